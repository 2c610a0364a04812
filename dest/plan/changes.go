package plan

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"rsx/dest/state"
	"rsx/model"
)

// ListInfo describes a Change List (or a Change Dump manifest) to Changes.
type ListInfo struct {
	URL         string
	Kind        string // "changelist" or "changedump"
	From, Until time.Time
	// Previous is the state's record of the list from an earlier run (nil
	// when it was never processed): changes up to its Last are not applied
	// again, provided the list still holds that change at that position.
	Previous *state.ChangeList
}

// ListResult is what Changes learnt of one list.
type ListResult struct {
	// Record is the list's row for the state: URL, Kind, From, Until and Last
	// (its last entry), Complete when the list is closed. The engine adds the
	// HTTP validators and ProcessedAt, and records it once the changes are
	// applied (clearing Complete if some failed).
	Record     state.ChangeList
	Entries    int // entries in the list
	Skipped    int // before the copy's point, or processed by an earlier run
	OutOfOrder int // entries with a datetime earlier than one before them
}

// held is the last change of one resource, kept compact: planning a window of
// many changes holds one of these per resource changed.
type held struct {
	uri      string
	digests  state.Digests
	ref      string
	length   int64
	lastmod  stamp
	datetime stamp
	eff      stamp // the datetime the change is ordered by
	seq      int64 // its position among every change added
	change   model.Change
}

// stamp is a time in 12 bytes (a time.Time takes 24).
type stamp struct {
	sec int64
	ns  uint32
}

func stampOf(t time.Time) stamp {
	if t.IsZero() {
		return stamp{}
	}
	return stamp{t.Unix(), uint32(t.Nanosecond()) | 1<<31}
}

func (s stamp) set() bool { return s.ns&(1<<31) != 0 }

func (s stamp) time() time.Time {
	if !s.set() {
		return time.Time{}
	}
	return time.Unix(s.sec, int64(s.ns&^(1<<31))).UTC()
}

func (s stamp) cmp(o stamp) int {
	if c := cmpInt(s.sec, o.sec); c != 0 {
		return c
	}
	return cmpInt(int64(s.ns&^(1<<31)), int64(o.ns&^(1<<31)))
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// later reports whether h comes after o in the order of changes: by datetime,
// then by position.
func (h *held) later(o *held) bool {
	if c := h.eff.cmp(o.eff); c != 0 {
		return c > 0
	}
	return h.seq > o.seq
}

func (h *held) entry() Entry {
	return Entry{URI: h.uri, Length: h.length, Digests: h.digests, Lastmod: h.lastmod.time(),
		Change: h.change, Datetime: h.datetime.time(), Ref: h.ref}
}

type candidate struct {
	e   Entry
	eff time.Time
	seq int64
}

// Changes plans from Change Lists or Change Dump manifests: for each list, in
// the order the index gives them, BeginList, Add every entry, EndList; then
// Finish. It holds one compact record per resource changed (the last change)
// and, while an open list is re-read, the changes an earlier run processed.
type Changes struct {
	opts  Options
	since time.Time
	held  []held
	byURI map[string]int32
	seq   int64
	sum   Summary

	list       *ListInfo
	res        ListResult
	pos        int
	maxDT      time.Time
	resumeAt   int // position of the earlier run's last change, -1 when none
	candidates []candidate
}

// NewChanges starts a plan of the changes after since (the state's Point:
// changes with an earlier datetime are already in the copy).
func NewChanges(since time.Time, opts Options) *Changes {
	return &Changes{opts: opts, since: since, byURI: map[string]int32{}}
}

// Held is how many resources have a change held.
func (p *Changes) Held() int { return len(p.held) }

// BeginList starts the entries of a list.
func (p *Changes) BeginList(l ListInfo) error {
	if p.list != nil {
		return fmt.Errorf("plan Change List %s: %s was not ended", l.URL, p.list.URL)
	}
	p.list = &l
	p.res = ListResult{Record: state.ChangeList{URL: l.URL, Kind: l.Kind, From: l.From, Until: l.Until, Last: state.Cursor{Position: -1}}}
	p.pos, p.maxDT, p.resumeAt = 0, time.Time{}, -1
	p.candidates = p.candidates[:0]
	if prev := l.Previous; prev != nil && prev.Last.Position >= 0 {
		p.resumeAt = prev.Last.Position
	}
	return nil
}

// Add adds the list's next entry.
func (p *Changes) Add(e Entry) error {
	if p.list == nil {
		return fmt.Errorf("plan change of %s: no list begun", e.URI)
	}
	pos := p.pos
	p.pos++
	p.res.Entries++
	p.res.Record.Last = state.Cursor{Position: pos, Datetime: e.Datetime, URI: e.URI}

	eff := e.Datetime
	if !e.Datetime.IsZero() {
		if e.Datetime.Before(p.maxDT) {
			p.res.OutOfOrder++
		} else {
			p.maxDT = e.Datetime
		}
	} else if !p.maxDT.IsZero() {
		eff = p.maxDT
	} else {
		eff = p.list.From
	}
	seq := p.seq
	p.seq++

	if pos <= p.resumeAt {
		p.candidates = append(p.candidates, candidate{e, eff, seq})
		if pos == p.resumeAt {
			prev := p.list.Previous.Last
			if e.URI == prev.URI && e.Datetime.Equal(prev.Datetime) {
				p.res.Skipped += len(p.candidates)
				p.sum.Skipped += len(p.candidates)
				p.candidates = p.candidates[:0]
			} else {
				p.replayCandidates(fmt.Sprintf("Change List %s no longer has the change processed last at position %d (%s): its changes are all applied again", p.list.URL, pos+1, prev.URI))
			}
		}
		return nil
	}
	p.take(e, eff, seq)
	return nil
}

func (p *Changes) replayCandidates(warning string) {
	p.sum.Warnings = append(p.sum.Warnings, warning)
	for _, c := range p.candidates {
		p.take(c.e, c.eff, c.seq)
	}
	p.candidates = p.candidates[:0]
	p.resumeAt = -1
}

// take applies the selection and the copy's point, then collapses the change
// with those held for its resource.
func (p *Changes) take(e Entry, eff time.Time, seq int64) {
	if !p.opts.Selection.Selected(e.URI) {
		p.sum.Excluded++
		return
	}
	if !p.since.IsZero() {
		if e.Datetime.IsZero() {
			if !p.list.Until.IsZero() && !p.list.Until.After(p.since) {
				p.res.Skipped++
				p.sum.Skipped++
				return
			}
		} else if e.Datetime.Before(p.since) {
			p.res.Skipped++
			p.sum.Skipped++
			return
		}
	}
	h := held{uri: e.URI, digests: e.Digests, ref: e.Ref, length: e.Length, lastmod: stampOf(e.Lastmod),
		datetime: stampOf(e.Datetime), eff: stampOf(eff), seq: seq, change: e.Change}
	if i, ok := p.byURI[e.URI]; ok {
		if h.later(&p.held[i]) {
			p.held[i] = h
		}
		return
	}
	p.byURI[e.URI] = int32(len(p.held))
	p.held = append(p.held, h)
}

// EndList ends the list's entries and returns what was learnt of it.
func (p *Changes) EndList() (ListResult, error) {
	if p.list == nil {
		return ListResult{}, fmt.Errorf("end a Change List: none was begun")
	}
	if len(p.candidates) > 0 {
		p.replayCandidates(fmt.Sprintf("Change List %s is shorter than when it was processed (%d entries, %d then): its changes are all applied again", p.list.URL, p.res.Entries, p.resumeAt+1))
	}
	if p.res.OutOfOrder > 0 {
		p.sum.Warnings = append(p.sum.Warnings, fmt.Sprintf("Change List %s: %d of its %d changes are not in forward chronological order; they are applied in the order of their datetimes", p.list.URL, p.res.OutOfOrder, p.res.Entries))
	}
	p.res.Record.Complete = !p.list.Until.IsZero()
	res := p.res
	p.list = nil
	return res, nil
}

// Finish decides the last change of every resource, in the order of changes
// (datetime, then position), emitting each item; then, with Options.Delete,
// the deletions earlier runs remembered (without it they are counted as
// PendingDelete and not emitted again). It returns the summary.
func (p *Changes) Finish(ctx context.Context, st State, emit func(Item) error) (Summary, error) {
	if p.list != nil {
		return p.sum, fmt.Errorf("finish the plan: Change List %s was not ended", p.list.URL)
	}
	order := make([]int32, len(p.held))
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(a, b int) bool { return p.held[order[b]].later(&p.held[order[a]]) })

	uris := make([]string, 0, state.LookupBatch)
	items := make([]Item, state.LookupBatch)
	for start := 0; start < len(order); start += state.LookupBatch {
		batch := order[start:min(start+state.LookupBatch, len(order))]
		uris = uris[:0]
		for _, i := range batch {
			uris = append(uris, p.held[i].uri)
		}
		clear(items)
		err := st.Find(ctx, uris, func(j int, k *state.Known) error {
			items[j] = p.decide(&p.held[batch[j]], k)
			return nil
		})
		if err != nil {
			return p.sum, err
		}
		for j, i := range batch {
			it := &items[j]
			if it.Action == 0 {
				*it = p.decide(&p.held[i], nil)
				if it.Action == 0 {
					p.sum.Vanished++
					continue
				}
			}
			p.sum.count(it)
			if err := emit(*it); err != nil {
				return p.sum, err
			}
		}
	}

	// Deletions remembered from earlier runs that no change of this window
	// decided again.
	err := st.EachKnown(ctx, true, func(uri string, k *state.Known) error {
		if _, decided := p.byURI[uri]; decided {
			return nil
		}
		if !p.opts.Selection.Selected(uri) {
			p.sum.Excluded++
			return nil
		}
		it := Item{Action: PendingDelete, Entry: Entry{URI: uri, Length: -1, Change: model.ChangeDeleted}, ID: k.ID, Reason: "deletion remembered from an earlier run"}
		if !p.opts.Delete {
			p.sum.count(&it)
			return nil
		}
		it.Action = Delete
		p.sum.count(&it)
		return emit(it)
	})
	return p.sum, err
}

// decide turns the last change of a resource into an item; k is its row, nil
// when it has none. An item without an Action means nothing to do.
func (p *Changes) decide(h *held, k *state.Known) Item {
	e := h.entry()
	when := ""
	if !e.Datetime.IsZero() {
		when = " at " + model.FormatDatetime(e.Datetime)
	}
	if e.Change == model.ChangeDeleted {
		if k == nil {
			return Item{}
		}
		it := Item{Action: PendingDelete, Entry: e, ID: k.ID, Reason: "deleted" + when}
		if p.opts.Delete {
			it.Action = Delete
		}
		return it
	}
	if k == nil {
		return Item{Action: Create, Entry: e, Reason: string(orUpdated(e.Change)) + when}
	}
	if !e.Datetime.IsZero() && !k.ChangeDatetime.IsZero() && !e.Datetime.After(k.ChangeDatetime) {
		return Item{Action: Unchanged, Entry: e, ID: k.ID, Reason: "change" + when + " already applied"}
	}
	if k.Pending {
		return Item{Action: Update, Entry: e, ID: k.ID, Reason: string(orUpdated(e.Change)) + " again after its deletion" + when}
	}
	shared, differ := k.CompareDigests(e.Digests)
	if shared > 0 && len(differ) == 0 && (e.Length < 0 || k.Length < 0 || e.Length == k.Length) {
		return Item{Action: Unchanged, Entry: e, ID: k.ID, Reason: "the copy already has the digest of the change" + when, Touch: true}
	}
	return Item{Action: Update, Entry: e, ID: k.ID, Reason: string(orUpdated(e.Change)) + when}
}

func orUpdated(c model.Change) model.Change {
	if c == "" {
		return model.ChangeUpdated
	}
	return c
}

// Gap is a stretch of time no Change List describes: changes in it may be
// missed, and a new baseline is the safe way on.
type Gap struct {
	From time.Time // the copy's point, or the end of a list
	To   time.Time // the start of the next list; zero when no list covers anything after From
}

func (g Gap) String() string {
	if g.To.IsZero() {
		return "no Change List covers the changes since " + model.FormatDatetime(g.From)
	}
	return "no Change List covers the changes from " + model.FormatDatetime(g.From) + " to " + model.FormatDatetime(g.To)
}

// FindGap reports the first stretch of time after point that the lists (by
// their from and until) leave uncovered, or nil when they cover everything
// from point on (an open list covers up to now; closed lists up to the last
// until, after which the Source has published nothing yet).
func FindGap(point time.Time, lists []ListInfo) *Gap {
	if len(lists) == 0 {
		return &Gap{From: point}
	}
	sorted := slices.Clone(lists)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].From.Before(sorted[j].From) })
	covered := point
	for _, l := range sorted {
		if l.From.After(covered) {
			return &Gap{From: covered, To: l.From}
		}
		if l.Until.IsZero() {
			return nil
		}
		if l.Until.After(covered) {
			covered = l.Until
		}
	}
	return nil
}
