package fleet

import (
	"context"
	"time"
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
}

// Every runs rounds until ctx ends: before each, the file is read again (a
// file that does not read keeps the last good one); each Source runs when
// its time between runs has passed since its last start. Its error is the
// first reading's, when the file never read.
func Every(ctx context.Context, r Runner, o EveryOptions) error {
	lastStart := map[string]time.Time{}
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
		next := now.Add(o.Every)
		for _, j := range jobs {
			if j.Every == 0 {
				j.Every = o.Every
			}
			t, ok := lastStart[j.Key()]
			if !ok || !now.Before(t.Add(j.Every)) {
				due = append(due, j)
				lastStart[j.Key()] = now
				t = now
			}
			if n := t.Add(j.Every); n.Before(next) {
				next = n
			}
		}
		if len(due) > 0 {
			ro := o.Round
			ro.Parallel, ro.Hold = f.Parallel, f.HoldBound
			runs := Round(ctx, r, due, ro)
			if ctx.Err() != nil {
				return nil
			}
			if o.Rounded != nil {
				o.Rounded(runs)
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
