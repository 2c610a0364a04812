// Package republish serves a destination's copy as a ResourceSync Source, read only: an aggregator republishes what it copied (§12.7), with provenance links and Change Lists made from the copy's own history.
//
// A Server reads the destination's state (dest/state) and its files
// (dest/store) and writes nothing there. What it serves is a generation: a
// view of the state taken while no run went on, so never half a run; a run
// that ends (a sync, a --follow's notifications) brings the next one,
// without a restart.
//
// The URL space, under the base URL:
//
//	/                                        a page that names the Sources, with <link rel="resourcesync">
//	/robots.txt                              a Sitemap line for each Resource List
//	/.well-known/resourcesync                the Source Description: a Capability List per Source of the copy
//	/resourcesync/ID/capabilitylist.xml      Source ID (its row in the state)
//	/resourcesync/ID/about.html              its describedby page (its title, its Source)
//	/resourcesync/ID/resourcelist.xml        its Resource List, or an index of parts
//	/resourcesync/ID/resourcelist/B.xml      part B: the copies whose rows are in bucket B
//	/resourcesync/ID/changelist.xml          its Change List Index
//	/resourcesync/ID/changelist/B-FROM-UNTIL.xml  a Change List: the changes in bucket B of run_file
//	/resourcesync/ID/changelist-archive.xml  the Change Lists that left the index
//	/resourcesync/ID/channel/change          change notifications (WebSocket), with Options.Channels
//	/PATH                                    the copy at PATH in the destination
package republish

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"rsx/dest/store"
)

// Options configure a Server.
type Options struct {
	// BaseURL is the URL the documents name the Server by (scheme, host,
	// port, and a path when it is served below one), without a trailing
	// slash.
	BaseURL string
	// Titles names Sources (by the URL of their Capability List): a fleet
	// file's names.
	Titles map[string]string
	// Channels advertises a change notification channel in each Capability
	// List and pushes each generation's changes on it (WebSocket).
	Channels bool
	// Poll is how often the state is looked at (default DefaultPoll).
	Poll time.Duration
	// TempDir holds the Server's own copies of the state (default
	// os.TempDir()); nothing is written in the destination.
	TempDir string
	// MaxLog bounds what a view of a state a run writes keeps in its log
	// (DefaultMaxLog): beyond it the generation served goes on from a copy
	// of its own, so that a long run's log does not grow for the Server.
	MaxLog int64
	// Note receives what the Server has to say as it goes (nil: nothing).
	Note func(string)
}

// Defaults of Options.
const (
	DefaultPoll   = time.Second
	DefaultMaxLog = 64 << 20
)

// Server serves one destination. Its ServeHTTP answers once the first
// generation is read (Ready); Run keeps the generation current.
type Server struct {
	opts   Options
	shape  shape
	st     store.Store
	reader stateReader
	cache  *layoutCache
	tmp    string

	cur     atomic.Pointer[generation]
	ready   chan struct{}
	readyMu sync.Once
	seq     uint64
	busy    atomic.Bool // a run goes on: what is served is the last generation before it
	notify  *notifier
	verify  *verifiedCache
}

// New returns a Server of the destination st (a folder or a bucket, opened
// read-only). It has read nothing yet: Run reads the state.
func New(st store.Store, o Options) (*Server, error) {
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	if o.BaseURL == "" {
		return nil, errors.New("republish: no base URL")
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.MaxLog <= 0 {
		o.MaxLog = DefaultMaxLog
	}
	if o.TempDir == "" {
		o.TempDir = os.TempDir()
	}
	tmp, err := os.MkdirTemp(o.TempDir, "rsx-serve-*")
	if err != nil {
		return nil, fmt.Errorf("serve %s: a folder for the state's copies: %w", st, err)
	}
	s := &Server{opts: o, shape: shape{bucket: bucket, live: liveLists}, st: st, cache: newLayoutCache(), tmp: tmp, ready: make(chan struct{}), notify: newNotifier(), verify: newVerifiedCache()}
	switch d := st.(type) {
	case *store.Dir:
		s.reader = newFolderReader(d.String(), tmp)
	case *store.S3:
		s.reader = newBucketReader(d, tmp)
	default:
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("serve %s: a destination of kind %T is not served", st, st)
	}
	return s, nil
}

// Ready is closed once the first generation is served.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Run reads the state every Poll and serves each new generation, until
// ctx is done. The first error before anything could be served is
// returned; later ones are said (Options.Note) and the last generation
// stays served.
func (s *Server) Run(ctx context.Context) error {
	t := time.NewTicker(s.opts.Poll)
	defer t.Stop()
	for {
		err := s.refresh(ctx)
		if err != nil && ctx.Err() == nil {
			if s.cur.Load() == nil {
				return err
			}
			s.note("the state could not be read (what was read before is served): " + err.Error())
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// refresh reads the state once and serves a new generation when there is
// one.
func (s *Server) refresh(ctx context.Context) error {
	v, err := s.reader.next(ctx)
	if err != nil || v == nil {
		return err
	}
	cur := s.cur.Load()
	g, busy, err := build(ctx, v, s.cache, s.shape, s.opts.Titles, s.reader.over(ctx, v.f))
	if err != nil || busy {
		v.close()
		if busy {
			s.busy.Store(true)
			s.reader.again() // looked at again, until the run ends
			s.guardLog(ctx, cur)
		}
		return err
	}
	s.busy.Store(false)
	if cur != nil && cur.fingerprint == g.fingerprint {
		v.close()
		return nil
	}
	s.seq++
	g.num = s.seq
	s.cur.Store(g)
	s.readyMu.Do(func() { close(s.ready) })
	if cur != nil {
		s.notifyChanges(ctx, cur, g)
		cur.retire()
	}
	return nil
}

// guardLog: while a run goes on, the generation served keeps its read
// transaction, and the state's log cannot be copied back into the state
// and begun again: it grows with the run. Beyond MaxLog the generation goes
// on from a copy of its own.
func (s *Server) guardLog(ctx context.Context, g *generation) {
	if g == nil || !g.view.f.Shared() || g.view.f.LogBytes() < s.opts.MaxLog {
		return
	}
	pv, err := s.reader.private(ctx, g.view)
	if err != nil || pv == nil {
		if err != nil {
			s.note("a copy of the state served could not be made (the state's log grows while a run goes on): " + err.Error())
		}
		return
	}
	s.cur.Store(g.withView(pv))
	g.retire()
}

func (s *Server) note(msg string) {
	if s.opts.Note != nil {
		s.opts.Note(msg)
	}
}

// Close ends the notification channels and frees what the Server holds:
// its generation (once its requests are done), the reader and its copies.
func (s *Server) Close() error {
	s.notify.close()
	if g := s.cur.Swap(nil); g != nil {
		g.retire()
	}
	s.reader.close()
	return os.RemoveAll(s.tmp)
}

// Busy reports whether a run goes on in the destination (what is served is
// the last generation before it).
func (s *Server) Busy() bool { return s.busy.Load() }

// Sources are the URLs of the Sources served, with the URL of each one's
// Capability List here.
func (s *Server) Sources() [][2]string {
	g := s.cur.Load()
	if g == nil {
		return nil
	}
	var out [][2]string
	for _, ss := range g.sources {
		out = append(out, [2]string{ss.row.URL, s.capURL(ss)})
	}
	return out
}

// generation takes the current generation for a request, waiting for the
// first one (up to wait); nil when there is none yet.
func (s *Server) generation(ctx context.Context, wait time.Duration) *generation {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return nil
	case <-time.After(wait):
		return nil
	}
	for {
		g := s.cur.Load()
		if g == nil {
			return nil
		}
		g.acquire()
		if s.cur.Load() == g {
			return g
		}
		g.release() // replaced meanwhile
	}
}

// ServeHTTP answers GET and HEAD requests.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed: this Source is read only", http.StatusMethodNotAllowed)
		return
	}
	g := s.generation(r.Context(), 30*time.Second)
	if g == nil {
		w.Header().Set("Retry-After", "5")
		http.Error(w, "the copy's state is not read yet: try again", http.StatusServiceUnavailable)
		return
	}
	defer g.release()
	s.route(w, r, g)
}
