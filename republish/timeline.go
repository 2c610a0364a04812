package republish

import (
	"time"

	"rsx/dest/state"
)

// The served history's times. A copy's runs take turns (the destination's
// lock), each run's files are recorded with the time they changed (to the
// second), and a generation is served only once no run goes on: so every
// change of a finished run can be dated within its run, after every change
// of the runs before, and a generation's time (its Resource Lists' at, its
// last Change List's until) is after all it holds and before all it does
// not. Its Change Lists then follow one another without a gap or an empty
// period, whatever the seconds of their changes:
//
//   - A run's first time is the end of the run before it plus a second (the
//     first run: its start); its end is when it recorded its end (of a run
//     killed before it could, the start of the run after it, which found it
//     so, or, when none came after and no process holds the destination,
//     its last file's time), not before its first time, and a second more
//     when it changed files: every change of it is dated before its end.
//   - A change is served with its own time, or its run's first when that is
//     later; within a Change List (and a notification) each change is dated
//     a microsecond after the one before it when it would not be later (one
//     recorded after another, by a worker whose clock read earlier, or in
//     the same second): so datetimes never go back, and the first change of
//     a list is after its from, the until of the list before.

// runSpan is one finished run's place in the served history.
type runSpan struct {
	id, source int64
	first      time.Time // its changes are served with datetimes from here
	end        time.Time // … up to here
	changes    int       // files it created, updated or deleted
}

// changeTime is the datetime a change of the run is served with (before
// a Change List keeps its datetimes from going back).
func (s *runSpan) changeTime(at time.Time) time.Time {
	if at.Before(s.first) {
		return s.first
	}
	return at
}

// endOf tells the end of a run that recorded none, when it is over: the
// time of its last file, or ok false while it may be going on.
type endOf func(r *state.Run) (end time.Time, ok bool)

// timeline places the runs (oldest first) in the served history; busy is
// true when a run may still be going on (nothing is served of a
// generation that would hold half of it).
func timeline(runs []state.Run, over endOf) (spans []runSpan, busy bool) {
	spans = make([]runSpan, 0, len(runs))
	var prev time.Time
	for i := range runs {
		r := &runs[i]
		end := r.Ended
		if end.IsZero() {
			switch {
			case i+1 < len(runs):
				end = runs[i+1].Started
			default:
				t, ok := over(r)
				if !ok {
					return nil, true
				}
				end = t
			}
		}
		sp := runSpan{id: r.ID, source: r.SourceID, changes: r.Created + r.Updated + r.Deleted, first: r.Started}
		if !prev.IsZero() {
			sp.first = prev.Add(time.Second)
		}
		sp.end = later(end, prev)
		if sp.changes > 0 {
			sp.end = later(sp.end, sp.first).Add(time.Second)
		}
		prev = sp.end
		spans = append(spans, sp)
	}
	return spans, false
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// tick is how much later than the change before it a change is dated when
// its own time is not later.
const tick = time.Microsecond

// nextTime is the datetime a change is served with after one served at
// prev: its own (at, raw), or a tick after prev.
func nextTime(prev, at time.Time) time.Time {
	if t := prev.Add(tick); !at.After(t) {
		return t
	}
	return at
}
