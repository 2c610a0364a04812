package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"rsx/crawl"
	"rsx/dest/state"
	"rsx/dest/store"
)

// Session is a destination held for a series of plans, runs and audits:
// its lock and its state database. It is used by one goroutine at a time.
type Session struct {
	st     store.Store
	client Client
	opts   Options
	lock   *store.Lock
	db     *state.DB

	mu      sync.Mutex
	closed  bool
	delayed map[string]bool // hosts whose robots.txt was read
}

// Open takes the destination's lock (a second run gets a *store.LockedError)
// and opens its state database. Close the Session to release them.
func Open(ctx context.Context, st store.Store, client Client, opts Options) (*Session, error) {
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
	db, err := state.Open(ctx, path)
	if err != nil {
		lock.Release()
		return nil, err
	}
	return &Session{st: st, client: client, opts: opts.withDefaults(), lock: lock, db: db, delayed: map[string]bool{}}, nil
}

// Lock is the destination's lock held by the session: it says whether an
// interrupted run's lock was taken over and its temporaries removed.
func (s *Session) Lock() *store.Lock { return s.lock }

// Store is the destination.
func (s *Session) Store() store.Store { return s.st }

// DB is the destination's state.
func (s *Session) DB() *state.DB { return s.db }

// Close closes the state and releases the lock.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	err := s.db.Close()
	if lerr := s.lock.Release(); err == nil {
		err = lerr
	}
	return err
}

func (s *Session) check() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("the sync session is closed")
	}
	return s.lock.Lost()
}

// isBucket reports whether the destination is an object store (whose state
// file is uploaded after each batch).
func (s *Session) isBucket() bool { return strings.HasPrefix(s.st.String(), "s3://") }

// writerOptions are the state writer's options for this destination.
func (s *Session) writerOptions(det *state.Detector) state.WriterOptions {
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
func (s *Session) publish(ctx context.Context) error {
	return s.db.Snapshot(ctx, func(p string) error { return s.st.PublishState(ctx, p) })
}

// honourCrawlDelay reads robots.txt of the URL's host once per session and
// passes its Crawl-delay to the client.
func (s *Session) honourCrawlDelay(ctx context.Context, rawURL string) []string {
	if s.opts.IgnoreCrawlDelay {
		return nil
	}
	cd, ok := s.client.(crawl.CrawlDelayer)
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
func (s *Session) hasFiles(ctx context.Context) bool {
	err := s.st.Walk(ctx, func(store.FileInfo) error { return errFound })
	return errors.Is(err, errFound)
}
