package session

import (
	"context"
	"sync"

	"rsx/dest/engine"
)

// openSyncs are a session's syncs not yet released, so that the explorer,
// as it quits, can stop those still running and wait until each has
// recorded what it wrote (a process that ended at once left a run's row
// without its end, its counts and "interrupted").
type openSyncs struct {
	mu   sync.Mutex
	open map[*Sync]struct{}
	// gone is closed when open empties; nil while nobody waits.
	gone chan struct{}
	// stopped are the runs stopped because their sync was closed (the
	// explorer quit, SIGTERM) before they were done.
	stopped []StoppedSync
}

// StoppedSync is a sync whose run was stopped because the sync was closed
// before the run was done: the explorer quit (q, ctrl+c, SIGTERM) during it.
type StoppedSync struct {
	Dest   string
	Result *engine.Result
}

func (o *openSyncs) add(j *Sync) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.open == nil {
		o.open = map[*Sync]struct{}{}
	}
	o.open[j] = struct{}{}
}

// released takes j out; res is its last run when that was stopped by the
// sync's Close (nil otherwise).
func (o *openSyncs) released(j *Sync, dest string, res *engine.Result) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.open, j)
	if res != nil {
		o.stopped = append(o.stopped, StoppedSync{Dest: dest, Result: res})
	}
	if len(o.open) == 0 && o.gone != nil {
		close(o.gone)
		o.gone = nil
	}
}

// RunningSyncs names the destinations of the syncs whose plan or run is
// going on.
func (s *Session) RunningSyncs() []string {
	var out []string
	for _, j := range s.syncs.list() {
		if j.isBusy() {
			out = append(out, j.req.Dest)
		}
	}
	return out
}

func (o *openSyncs) list() []*Sync {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]*Sync, 0, len(o.open))
	for j := range o.open {
		out = append(out, j)
	}
	return out
}

// StopSyncs closes every sync of the session, stops the runs still going
// on (each records what it wrote and that it was interrupted, as esc's stop
// does), and waits until all have, or until ctx ends. It returns the runs
// that were stopped by a Close before they were done, those the explorer's
// quitting stopped included: the explorer calls it once its screen is gone,
// and says so on standard error.
func (s *Session) StopSyncs(ctx context.Context) ([]StoppedSync, error) {
	o := &s.syncs
	for _, j := range o.list() {
		j.Close()
		j.interrupt()
	}
	o.mu.Lock()
	var gone chan struct{}
	if len(o.open) > 0 {
		if o.gone == nil {
			o.gone = make(chan struct{})
		}
		gone = o.gone
	}
	o.mu.Unlock()
	var err error
	if gone != nil {
		select {
		case <-gone:
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	out := o.stopped
	o.stopped = nil
	return out, err
}

// isBusy tells whether a plan or a run of j is going on.
func (j *Sync) isBusy() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.busy
}

// interrupt stops j's run going on, if any: it returns soon, what it wrote
// recorded.
func (j *Sync) interrupt() {
	j.mu.Lock()
	stop := j.stop
	j.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// stoppedByClose is j's last run when Close came while it went on and it
// stopped early; j.mu is held.
func (j *Sync) stoppedByClose() *engine.Result {
	if !j.closedBusy || j.res == nil || j.res.Stopped == "" {
		return nil
	}
	return j.res
}
