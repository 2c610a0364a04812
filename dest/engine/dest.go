package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"rsx/crawl"
	"rsx/dest/state"
	"rsx/dest/store"
)

// Dest is a destination held for a series of plans, runs and audits:
// its lock and its state database. It is used by one goroutine at a time.
type Dest struct {
	st     store.Store
	client Client
	// capture keeps the documents a plan reads, for its run to store with
	// the run's history (provenance.go); nil for a read-only session.
	capture *docCapture
	opts    Options
	lock    *store.Lock
	db      *state.DB
	// readOnly: the store was opened read-only (an audit of a read-only
	// copy, a dry run): plans and audits only; emptyState is the state
	// made for a destination that has none yet, removed by Close.
	readOnly   bool
	emptyState string

	mu      sync.Mutex
	closed  bool
	delayed map[string]bool // hosts whose robots.txt was read
}

// Open takes the destination's lock (a second run gets a *store.LockedError)
// and opens its state database. Close the Dest to release them.
//
// A store opened read-only (store.Options.ReadOnly) gives a read-only
// session: its state is opened read-only (state.OpenReadOnly), or, when the
// destination has none yet, is an empty one in the store's TempDir; it
// plans and audits, and Run refuses.
func Open(ctx context.Context, st store.Store, client Client, opts Options) (*Dest, error) {
	if st == nil || client == nil {
		return nil, errors.New("open a sync session: no store or no client")
	}
	lock, err := st.Lock(ctx)
	if err != nil {
		return nil, err
	}
	path, err := st.StatePath(ctx)
	if err != nil {
		lock.Release()
		return nil, err
	}
	s := &Dest{st: st, client: client, opts: opts.withDefaults(), lock: lock, delayed: map[string]bool{}}
	s.readOnly = st.Features().ReadOnly
	switch {
	case s.readOnly && path == "":
		// No state yet: everything is new. An empty state of our own,
		// outside the destination.
		f, ferr := os.CreateTemp(st.TempDir(), "rsx-empty-state-*.db")
		if ferr != nil {
			lock.Release()
			return nil, fmt.Errorf("open an empty state for %s: %w", st, ferr)
		}
		f.Close()
		s.emptyState = f.Name()
		s.db, err = state.Open(ctx, s.emptyState)
	case s.readOnly:
		s.db, err = state.OpenReadOnly(ctx, path)
	default:
		s.db, err = state.Open(ctx, path)
	}
	if err != nil {
		s.removeEmptyState()
		lock.Release()
		return nil, err
	}
	if !s.readOnly {
		s.capture = newDocCapture(st.TempDir())
		s.client = capturingClient{Client: client, cap: s.capture}
	}
	return s, nil
}

// ReadOnly reports whether the session writes nothing (see Open).
func (s *Dest) ReadOnly() bool { return s.readOnly }

func (s *Dest) removeEmptyState() {
	if s.emptyState == "" {
		return
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(s.emptyState + suffix)
	}
}

// Lock is the destination's lock held by the session: it says whether an
// interrupted run's lock was taken over and its temporaries removed.
func (s *Dest) Lock() *store.Lock { return s.lock }

// Store is the destination.
func (s *Dest) Store() store.Store { return s.st }

// DB is the destination's state.
func (s *Dest) DB() *state.DB { return s.db }

// Close closes the state and releases the lock.
func (s *Dest) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.capture.reset()
	err := s.db.Close()
	s.removeEmptyState()
	if lerr := s.lock.Release(); err == nil {
		err = lerr
	}
	return err
}

func (s *Dest) check() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("the sync session is closed")
	}
	return s.lock.Lost()
}

// isBucket reports whether the destination is an object store (whose state
// file is uploaded after each batch), as the Store says (store.Features).
func (s *Dest) isBucket() bool { return s.st.Features().Bucket }

// writerOptions are the state writer's options for this destination.
func (s *Dest) writerOptions(det *state.Detector) state.WriterOptions {
	o := state.WriterOptions{Detector: det, BeforeCommit: s.st.Sync, BatchSize: s.opts.StateBatch, MaxDelay: s.opts.StateDelay}
	if s.isBucket() {
		if o.BatchSize <= 0 {
			o.BatchSize = 20000
		}
		if o.MaxDelay <= 0 {
			o.MaxDelay = 60e9
		}
		o.AfterCommit = s.publish
	}
	return o
}

// publish stores the committed state in the destination (a bucket).
func (s *Dest) publish(ctx context.Context) error {
	return s.db.Snapshot(ctx, func(p string) error { return s.st.PublishState(ctx, p) })
}

// honourCrawlDelay reads robots.txt of the URL's host once per session and
// passes its Crawl-delay to the client.
func (s *Dest) honourCrawlDelay(ctx context.Context, rawURL string) []string {
	if s.opts.IgnoreCrawlDelay {
		return nil
	}
	c := s.client
	if cc, ok := c.(capturingClient); ok {
		c = cc.Client // what the client can do besides fetching
	}
	cd, ok := c.(crawl.CrawlDelayer)
	if !ok {
		return nil
	}
	host, robotsURL := robotsLocation(rawURL)
	if host == "" {
		return nil
	}
	s.mu.Lock()
	done := s.delayed[host]
	s.delayed[host] = true
	s.mu.Unlock()
	if done {
		return nil
	}
	d, note := readCrawlDelay(ctx, s.client, robotsURL, s.opts.UserAgent, s.opts.MaxCrawlDelay)
	if d > 0 {
		cd.SetCrawlDelay(host, d)
	}
	if note != "" {
		return []string{fmt.Sprintf("%s: %s", robotsURL, note)}
	}
	return nil
}

// errFound stops a walk at the first file.
var errFound = errors.New("found")

// hasFiles reports whether the destination holds a file of a copy.
func (s *Dest) hasFiles(ctx context.Context) bool {
	err := s.st.Walk(ctx, func(store.FileInfo) error { return errFound })
	return errors.Is(err, errFound)
}
