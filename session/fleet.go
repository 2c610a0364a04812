package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"golang.org/x/sync/errgroup"

	"rsx/crawl"
	"rsx/dest/state"
	"rsx/dest/store"
	"rsx/fleet"
	"rsx/model"
)

// FleetSource is one Source of a fleet file as the explorer's fleet page
// shows it: its copy (from the destination's state, read-only) and how far
// behind the Source's newest change the copy's point is.
type FleetSource struct {
	Name, URL, Dest string
	// Request is the sync of the Source its entry in the file asks for.
	Request SyncRequest

	// From the destination's state; StateErr says why it could not be
	// read (no copy yet is no error: HasCopy is false).
	HasCopy   bool
	Resources int
	Bytes     int64
	Damaged   int // copies an audit found damaged or gone
	Pending   int // deletions waiting for a run with --delete
	Point     time.Time
	LastRun   state.Run
	HasRun    bool
	StateErr  string
	// From the Source: the datetime of its newest change (zero when it
	// lists none); SourceErr says why it could not be read.
	Newest    time.Time
	SourceErr string
}

// Behind is how far the copy's point is behind the Source's newest change
// (0 when in step or when either is unknown).
func (f FleetSource) Behind() time.Duration {
	if f.Point.IsZero() || f.Newest.IsZero() || !f.Newest.After(f.Point) {
		return 0
	}
	return f.Newest.Sub(f.Point)
}

// ReadFleet reads a fleet file (docs/fleet.md); defaultDest is the
// destination of the Sources without one (--dest). Each Source's Request
// is the sync its entry asks for, every setting of the file applied (as
// rsx sync --sources applies them): the fleet page's s plans it.
func (s *Session) ReadFleet(path, defaultDest string) ([]FleetSource, error) {
	f, err := fleet.Read(path)
	if err != nil {
		return nil, err
	}
	jobs, err := fleet.Jobs(f, fleet.CommandSync, fleet.Base{Dest: defaultDest, KeepWithoutDest: true})
	if err != nil {
		return nil, err
	}
	var out []FleetSource
	for _, j := range jobs {
		out = append(out, FleetSource{Name: j.Source.Name, URL: j.Source.URL, Dest: j.Dest, Request: j.Sync})
	}
	return out, nil
}

// FleetStatus fills in each Source's copy and newest change, several at
// once; what cannot be read is said in the Source's StateErr or SourceErr.
func (s *Session) FleetStatus(ctx context.Context, sources []FleetSource) []FleetSource {
	out := make([]FleetSource, len(sources))
	copy(out, sources)
	var g errgroup.Group
	g.SetLimit(4)
	for i := range out {
		g.Go(func() error {
			f := &out[i]
			if f.Dest == "" {
				f.StateErr = "no destination (give dest in the file, or --dest)"
			} else {
				s.fleetState(ctx, f)
			}
			s.fleetNewest(ctx, f)
			return nil
		})
	}
	_ = g.Wait()
	return out
}

// fleetState reads the copy's state read-only.
func (s *Session) fleetState(ctx context.Context, f *FleetSource) {
	so := s.opts.Dest.Store
	so.ReadOnly = true
	st, err := s.openStore(ctx, f.Dest, so)
	if errors.Is(err, fs.ErrNotExist) {
		return // no copy yet
	}
	if err != nil {
		f.StateErr = err.Error()
		return
	}
	defer st.Close()
	release, err := lockForReading(ctx, st)
	if err != nil {
		f.StateErr = err.Error()
		return
	}
	defer release()
	p, err := st.StatePath(ctx)
	if err != nil || p == "" {
		if err != nil {
			f.StateErr = err.Error()
		}
		return
	}
	db, err := state.OpenReadOnly(ctx, p)
	if err != nil {
		f.StateErr = err.Error()
		return
	}
	defer db.Close()
	src, err := db.SourceNamed(ctx, f.URL)
	if errors.Is(err, state.ErrNoSource) {
		return // the DEST holds other Sources, not this one yet
	}
	if err != nil {
		f.StateErr = err.Error()
		return
	}
	f.HasCopy = true
	// The copy's point, and past it the last change applied from the
	// open Change List (the point moves only with closed ones).
	f.Point = src.Point()
	if cls, err := db.ChangeLists(ctx, src.ID); err == nil {
		for _, c := range cls {
			if c.Last.Datetime.After(f.Point) {
				f.Point = c.Last.Datetime
			}
		}
	}
	if c, err := db.Count(ctx, src.ID); err == nil {
		f.Resources, f.Bytes, f.Pending = c.Resources, c.Bytes, c.Pending
	} else {
		f.StateErr = err.Error()
	}
	if n, err := db.Damaged(ctx, src.ID); err == nil {
		f.Damaged = n
	}
	if r, ok, err := db.LastRun(ctx, src.ID); err == nil {
		f.LastRun, f.HasRun = r, ok
	}
}

// fleetNewest finds the datetime of the Source's newest change: the latest
// change of its (live) Change List, the last part of a Change List Index. A
// Source that publishes no Change List has no newest change to be behind.
func (s *Session) fleetNewest(ctx context.Context, f *FleetSource) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	g := crawl.NewGraph(s.get, crawl.GraphOptions{})
	cl, err := g.Load(ctx, f.URL)
	if err != nil {
		f.SourceErr = err.Error()
		return
	}
	var list string
	for _, d := range cl.Down {
		if d.Capability == model.CapChangeList {
			list = d.Loc
			break
		}
	}
	if list == "" {
		return // no changes published: nothing to be behind
	}
	doc, err := g.Load(ctx, list)
	if err != nil {
		f.SourceErr = fmt.Sprintf("its Change List: %v", err)
		return
	}
	parts := []*crawl.Document{doc}
	if doc.Header != nil && doc.Header.Root == model.RootSitemapIndex {
		// The newest parts, from the last: the open one may have no
		// change yet.
		parts = nil
		for i := len(doc.Down) - 1; i >= 0 && i >= len(doc.Down)-3; i-- {
			part, err := g.Load(ctx, doc.Down[i].Loc)
			if err != nil {
				f.SourceErr = fmt.Sprintf("its Change List: %v", err)
				return
			}
			parts = append(parts, part)
			if part.EntryCount > 0 {
				break
			}
		}
	}
	for _, d := range parts {
		if d.Entries == nil {
			continue
		}
		for i := range d.Entries.Len() {
			if t := d.Entries.Datetime(i); t.OK && t.Time.After(f.Newest) {
				f.Newest = t.Time
			}
		}
	}
}

// FleetRuns lists the runs of one Source of a fleet, newest first, at most
// limit of them.
func (s *Session) FleetRuns(ctx context.Context, f FleetSource, limit int) ([]state.Run, error) {
	so := s.opts.Dest.Store
	so.ReadOnly = true
	st, err := s.openStore(ctx, f.Dest, so)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	release, err := lockForReading(ctx, st)
	if err != nil {
		return nil, err
	}
	defer release()
	p, err := st.StatePath(ctx)
	if err != nil {
		return nil, err
	}
	if p == "" {
		return nil, nil
	}
	db, err := state.OpenReadOnly(ctx, p)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	src, err := db.SourceNamed(ctx, f.URL)
	if errors.Is(err, state.ErrNoSource) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var runs []state.Run
	err = db.Runs(ctx, src.ID, limit, func(r *state.Run) error { runs = append(runs, *r); return nil })
	return runs, err
}

// lockForReading takes a destination's shared lock to read its state. A
// folder that a run holds (a sync the explorer runs from the fleet page, or
// one from cron) is read all the same: SQLite lets a reader beside the
// writer, and the fleet page only counts. A bucket's state is fetched under
// its lock only.
func lockForReading(ctx context.Context, st store.Store) (func(), error) {
	lock, err := st.Lock(ctx)
	if err == nil {
		return func() { lock.Release() }, nil
	}
	var le *store.LockedError
	if !st.Features().Bucket && errors.As(err, &le) {
		return func() {}, nil
	}
	return nil, err
}
