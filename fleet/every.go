package fleet

import (
	"context"
	"time"

	"rsx/dest/store"
)

// EveryOptions tune Every.
type EveryOptions struct {
	// Every is the time between two runs of a Source that sets none of
	// its own (and whose file sets none).
	Every time.Duration
	// Load reads the file again: its Sources resolved, and the file for
	// its parallel and hold.
	Load func() (*File, []Job, error)
	// Round tunes each round (its Parallel and Hold come from the file).
	Round RoundOptions
	// Rounded is told of each round's runs, in the jobs' order, when it
	// ends (not when ctx ended it).
	Rounded func(runs []*Run)
	// FileError is told that the file no longer reads: the last good list
	// goes on.
	FileError func(err error)
	// Next is told when the next run is due, after each round.
	Next func(t time.Time)
	// Host is this process's host id (job.Runner.HostID): the rounds of a
	// fleet are shared by every process that runs it into the same DESTs
	// (several machines: docs/fleet.md), each Source run once a round by
	// one of them, and its own runs are told from theirs by it.
	Host string
}

// Sharing the rounds. Each sync asks to run only when no other process
// has had the Source's turn since the last start of it this process knows
// (job.SyncRequest.OnceSince, checked while DEST is held, so that two
// processes never both run it); a DEST another process holds is tried
// again in the round (RoundOptions.WaitLocked), until its holder is done
// (its run is then the turn) or its lease ends (killed: its lock is taken
// over, its run counted for nothing, and the Source runs). A Source run
// elsewhere is next due one interval after that run's start. A process
// that ran a Source last lets the others try it first (courtesy), so that
// they take turns, and one started later takes a share.

// courtesy is how long a process waits before a Source it ran last.
func courtesy(every time.Duration) time.Duration {
	return min(3*time.Second, every/4)
}

// known is what a process knows of a Source's last turn.
type known struct {
	start time.Time // when the last run this process knows of started
	mine  bool      // this process ran it
	seen  bool      // start is a run's (not only the time it was due)
}

// Every runs rounds until ctx ends: before each, the file is read again (a
// file that does not read keeps the last good one); each Source runs when
// its time between runs has passed since its last start. Its error is the
// first reading's, when the file never read.
func Every(ctx context.Context, r Runner, o EveryOptions) error {
	if o.Host == "" {
		o.Host = store.DefaultHostID()
	}
	lastStart := map[string]known{}
	var last []Job
	var lastFile *File
	for {
		f, jobs, err := o.Load()
		if err != nil {
			if last == nil {
				return err
			}
			if o.FileError != nil {
				o.FileError(err)
			}
			f, jobs = lastFile, last
		}
		last, lastFile = jobs, f
		now := time.Now()
		var due []Job
		for i, j := range jobs {
			if j.Every == 0 {
				j.Every = o.Every
				jobs[i].Every = o.Every
			}
			k, ok := lastStart[j.Key()]
			if ok && now.Before(k.start.Add(j.Every)) {
				continue
			}
			if j.Command == CommandSync {
				j.Sync.OnceSince, j.Sync.OnceExcept = now.Add(-j.Every), ""
				if ok && k.seen {
					// Another's turn since the last this process knows.
					j.Sync.OnceSince, j.Sync.OnceExcept = k.start, o.Host
				}
				if k.mine {
					j.NotBefore = now.Add(courtesy(j.Every))
				}
			}
			due = append(due, j)
			lastStart[j.Key()] = known{start: now}
		}
		if len(due) > 0 {
			ro := o.Round
			ro.Parallel, ro.Hold = f.Parallel, f.HoldBound
			ro.WaitLocked = o.Every
			runs := Round(ctx, r, due, ro)
			if ctx.Err() != nil {
				return nil
			}
			for _, run := range runs {
				switch {
				case run.NotRun:
				case run.Sync != nil && run.Sync.RanElsewhere != nil:
					lastStart[run.Job.Key()] = known{start: run.Sync.RanElsewhere.Started, seen: true}
				default:
					lastStart[run.Job.Key()] = known{start: run.Started, mine: true, seen: true}
				}
			}
			if o.Rounded != nil {
				o.Rounded(runs)
			}
		}
		next := time.Now().Add(o.Every)
		for _, j := range jobs {
			if k, ok := lastStart[j.Key()]; ok {
				if n := k.start.Add(j.Every); n.Before(next) {
					next = n
				}
			}
		}
		if o.Next != nil {
			o.Next(next)
		}
		t := time.NewTimer(max(time.Until(next), time.Second))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}
