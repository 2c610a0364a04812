package model

import (
	"slices"
	"sort"
	"time"
)

// Coverage of a Source's change history: the periods its Change Lists (or
// Change Dumps) cover, as a live index and an archive (Archives specification,
// sections 5 and 6) declare them; where they overlap, where they leave holes;
// and which of them bring a copy up to date from a point in time.
//
// A period covers [From, Until): a list whose until is another's from joins
// it without a hole or an overlap. An open period (no until) covers from From
// on. Times are compared as the instants Datetime.Time gives.

// Period is the interval one Change List (or Change Dump) covers, as the entry
// that lists it, or the document itself, declares it.
type Period struct {
	URL      string
	From     time.Time
	Until    time.Time // zero: open, the list goes on
	Archived bool      // listed by an archive, not by the live index
	// Entry is the position of the entry in the index or archive that lists
	// the period, -1 when the period is a document's own.
	Entry int
}

// Open tells whether the period has no end yet.
func (p Period) Open() bool { return p.Until.IsZero() }

// valid tells whether the period has any length: an open one, or one whose
// until is after its from.
func (p Period) valid() bool { return !p.From.IsZero() && (p.Open() || p.Until.After(p.From)) }

// PeriodOf is the period an index or archive entry declares: its from and
// until. It is false when the entry has no valid from.
func PeriodOf(e *Entry, archived bool) (Period, bool) {
	if !e.MD.From.OK {
		return Period{}, false
	}
	p := Period{URL: e.Loc, From: e.MD.From.Time, Archived: archived, Entry: e.Index}
	if e.MD.Until.OK {
		p.Until = e.MD.Until.Time
	}
	return p, true
}

// Segment is a stretch of time and the periods that cover it.
type Segment struct {
	From  time.Time
	Until time.Time // zero: open-ended, it goes on to the present
	// Covers are the positions, in the slice given to Coverage, of the
	// periods that cover the whole segment, in increasing order. None: a hole.
	// More than one: an overlap.
	Covers []int
}

// Hole tells whether no period covers the segment.
func (s Segment) Hole() bool { return len(s.Covers) == 0 }

// Overlap tells whether more than one period covers the segment.
func (s Segment) Overlap() bool { return len(s.Covers) > 1 }

// Coverage cuts the time from the earliest from to the latest until (or on
// without end, when a period is open) into segments, each covered by the same
// periods throughout, in time order. Adjacent segments differ in what covers
// them; a hole is a segment covered by none. Periods without a from, or whose
// until is not after their from, cover nothing and appear in no segment. The
// time after the last until is not a hole: nothing has been published for it
// yet.
func Coverage(periods []Period) []Segment {
	type event struct {
		at  time.Time
		idx int
		end bool
	}
	events := make([]event, 0, 2*len(periods))
	for i, p := range periods {
		if !p.valid() {
			continue
		}
		events = append(events, event{at: p.From, idx: i})
		if !p.Open() {
			events = append(events, event{at: p.Until, idx: i, end: true})
		}
	}
	if len(events) == 0 {
		return nil
	}
	sort.SliceStable(events, func(a, b int) bool { return events[a].at.Before(events[b].at) })
	var segs []Segment
	var active []int // sorted
	for k := 0; k < len(events); {
		at := events[k].at
		for ; k < len(events) && events[k].at.Equal(at); k++ {
			ev := events[k]
			pos, found := slices.BinarySearch(active, ev.idx)
			switch {
			case ev.end && found:
				active = slices.Delete(active, pos, pos+1)
			case !ev.end && !found:
				active = slices.Insert(active, pos, ev.idx)
			}
		}
		var until time.Time
		if k < len(events) {
			until = events[k].at
		} else if len(active) == 0 {
			break // the last until: coverage ends here
		}
		if n := len(segs); n > 0 && slices.Equal(segs[n-1].Covers, active) {
			segs[n-1].Until = until
			continue
		}
		segs = append(segs, Segment{From: at, Until: until, Covers: slices.Clone(active)})
	}
	return segs
}

// Holes are the segments of Coverage(periods) that no period covers.
func Holes(periods []Period) []Segment {
	return slices.DeleteFunc(Coverage(periods), func(s Segment) bool { return !s.Hole() })
}

// Overlaps are the segments of Coverage(periods) that more than one period
// covers.
func Overlaps(periods []Period) []Segment {
	return slices.DeleteFunc(Coverage(periods), func(s Segment) bool { return !s.Overlap() })
}

// Gap is a stretch of time from a point on that no period covers: changes in
// it may have been missed.
type Gap struct {
	From  time.Time // the copy's point, or the end of the last period that reaches it
	Until time.Time // the start of the next period; zero when no period starts after From
}

// CatchUp is the way to bring a copy up to date from a point in time.
type CatchUp struct {
	// Lists are the periods to apply, in order: each begins at or before the
	// end of the one before it (the first at or before the point), so that
	// together they cover every change since the point. Archived ones come
	// from the archive; the others from the live index.
	Lists []Period
	// Until is how far Lists cover: the until of the last one, zero when it
	// is open (they cover up to the present). With a Gap, it is Gap.From.
	Until time.Time
	// Gap is set when no period covers the time after Until: Lists reach
	// only that far, and a copy that applied them would still miss the
	// changes of the gap. A new baseline is then the safe way on.
	Gap *Gap
}

// Archived are the lists of the plan that come from the archive, in order.
func (c CatchUp) Archived() []Period {
	var out []Period
	for _, p := range c.Lists {
		if p.Archived {
			out = append(out, p)
		}
	}
	return out
}

// PlanCatchUp chooses, from a Source's archived and live periods (a Change
// List Archive and the Change List Index, or the dumps), the lists that cover
// every change since the point a copy was last brought up to date, in the
// order to apply them. A period reaches the point when its from is at or
// before it and its until after it (or it is open); from each point on, the
// one that reaches furthest is taken, so that the fewest lists are read:
// among equals the one that begins latest (the fewest changes already
// applied), then a live one, then the first given. The periods given are
// marked Archived or not by the slice they come in.
//
// Nothing is needed from the archive when the live index reaches back to the
// point: the plan is then made of live lists only. When neither reaches some
// stretch of time after the point, the plan stops there and Gap says which
// stretch (its Until is zero only when no period was given at all). When the
// lists end before the present without a gap, or the point is past them all,
// the Source has published nothing after their last until yet: that is not a
// gap. A zero point (a copy that was never brought up to date) is before
// everything: a gap up to the first period, for a baseline to fill.
func PlanCatchUp(since time.Time, archived, live []Period) CatchUp {
	all := make([]Period, 0, len(archived)+len(live))
	for _, p := range archived {
		p.Archived = true
		all = append(all, p)
	}
	for _, p := range live {
		p.Archived = false
		all = append(all, p)
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].From.Before(all[b].From) })
	var lists []Period
	c := NewCatchUpOf(since, func(_ struct{}, p Period) error {
		lists = append(lists, p)
		return nil
	})
	for _, p := range all {
		if more, _ := c.Add(struct{}{}, p); !more {
			break
		}
	}
	plan, _ := c.End()
	plan.Lists = lists
	return plan
}

// CatchUpOf is PlanCatchUp of periods given one at a time (Add), in order
// of their from, so that an index of a million lists is planned without
// holding them: each period chosen is handed to take, with the value it was
// added with, as soon as it is known to be chosen; End gives Until and Gap
// (its Lists are empty). Among periods of the same from, the one added first
// counts as given first (PlanCatchUp adds the archived ones first).
type CatchUpOf[T any] struct {
	at    time.Time
	take  func(T, Period) error
	best  Period
	bestV T
	found bool // best is a candidate
	seen  bool // a period with a length was added
	done  bool // the plan is made: nothing added later changes it
	plan  CatchUp
}

// NewCatchUpOf starts a plan from since.
func NewCatchUpOf[T any](since time.Time, take func(T, Period) error) *CatchUpOf[T] {
	return &CatchUpOf[T]{at: since, take: take}
}

// Add gives the next period, p, with v; periods that have no length are
// passed over. It reports false when the plan is made (a gap, or an open
// period taken): later periods need not be added. An error is take's.
func (c *CatchUpOf[T]) Add(v T, p Period) (bool, error) {
	if c.done {
		return false, nil
	}
	if !p.valid() {
		return true, nil
	}
	for p.From.After(c.at) {
		// The candidates that begin at or before the point are all known.
		if !c.found {
			c.plan.Until, c.plan.Gap, c.done = c.at, &Gap{From: c.at, Until: p.From}, true
			return false, nil
		}
		if more, err := c.choose(); !more || err != nil {
			return false, err
		}
	}
	// A period seen earlier that did not reach then does not reach now
	// (the point only moves on), and one that reached was taken or is
	// outdone by the one taken: only newly seen periods are candidates.
	c.seen = true
	if (p.Open() || p.Until.After(c.at)) && (!c.found || further(p, c.best)) {
		c.best, c.bestV, c.found = p, v, true
	}
	return true, nil
}

// choose takes the best candidate and moves the point to its until; false
// when it is open (the plan is made).
func (c *CatchUpOf[T]) choose() (bool, error) {
	c.found = false
	if err := c.take(c.bestV, c.best); err != nil {
		c.done = true
		return false, err
	}
	if c.best.Open() {
		c.plan.Until, c.done = time.Time{}, true
		return false, nil
	}
	c.at = c.best.Until
	return true, nil
}

// End makes the plan of the periods added.
func (c *CatchUpOf[T]) End() (CatchUp, error) {
	for !c.done {
		if !c.found {
			c.plan.Until, c.done = c.at, true
			if !c.seen {
				c.plan.Gap = &Gap{From: c.at} // nothing published at all
			}
			break
		}
		if _, err := c.choose(); err != nil {
			return CatchUp{}, err
		}
	}
	return c.plan, nil
}

// further orders how far periods go: an open one furthest; among equals
// the one that begins latest, then a live one.
func further(a, b Period) bool {
	switch {
	case a.Open() != b.Open():
		return a.Open()
	case !a.Open() && !a.Until.Equal(b.Until):
		return a.Until.After(b.Until)
	case !a.From.Equal(b.From):
		return a.From.After(b.From)
	case a.Archived != b.Archived:
		return !a.Archived
	}
	return false
}
