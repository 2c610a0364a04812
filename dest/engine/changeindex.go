package engine

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"rsx/dest/state"
	runspool "rsx/internal/spool"
)

// A Change List Index of a million lists is planned as rsx tree walks one
// (issue 34): its entries go to a spool, sorted by from, read back to choose
// the lists that cover the time since the copy's point (model.CatchUpOf),
// those chosen to another spool, read back to read each list in turn; what
// the plan keeps of each list read (its record for the state, what --json
// lists) goes to spools too. Memory holds a list at a time, and a run of
// each spool's items while it is written.

// listSpool is a spooled list of listRefs, run items in memory at a time
// (0: the spool's default).
func listSpool(dir, name string, run int, sorted bool) *runspool.List[listRef] {
	order := func(a, b *listRef) int { return 0 } // the order added
	if sorted {
		// By from, then by place in the index (a list without from, whose
		// own header gave one, keeps its place among the others).
		order = func(a, b *listRef) int {
			if c := a.from.Compare(b.from); c != 0 {
				return c
			}
			return cmp.Compare(a.pos, b.pos)
		}
	}
	return runspool.NewList(dir, name, run, encListRef, decListRef, order)
}

func encListRef(b []byte, l *listRef) []byte {
	b = appendString(b, l.url)
	b = appendTime(b, l.from)
	b = appendTime(b, l.until)
	flags := byte(0)
	if l.fromKnown {
		flags = 1
	}
	b = append(b, flags)
	b = binary.AppendVarint(b, int64(l.pkg))
	b = binary.AppendVarint(b, int64(l.pos))
	b = appendString(b, l.archive)
	return appendString(b, l.etag)
}

func decListRef(b []byte, l *listRef) error {
	r := &byteReader{b: b}
	l.url = r.string()
	l.from, l.until = r.time(), r.time()
	l.fromKnown = r.byte() == 1
	l.pkg, l.pos = int(r.varint()), int(r.varint())
	l.archive, l.etag = r.string(), r.string()
	return r.err
}

// listsSpool is the spooled ListReads of a plan.
func listsSpool(dir string, run int) *runspool.List[ListRead] {
	return runspool.NewList(dir, "lists read", run, encListRead, decListRead, func(a, b *ListRead) int { return 0 })
}

func encListRead(b []byte, l *ListRead) []byte {
	b = appendString(b, l.URL)
	b = appendString(b, l.Kind)
	b = appendTime(b, l.From)
	b = appendTime(b, l.Until)
	for _, n := range []int{l.Entries, l.Skipped, l.OutOfOrder, l.Suspect} {
		b = binary.AppendUvarint(b, uint64(n))
	}
	flags := byte(0)
	if l.Unchanged {
		flags |= 1
	}
	if l.Archived {
		flags |= 2
	}
	return append(b, flags)
}

func decListRead(b []byte, l *ListRead) error {
	r := &byteReader{b: b}
	l.URL, l.Kind = r.string(), r.string()
	l.From, l.Until = r.time(), r.time()
	l.Entries, l.Skipped, l.OutOfOrder, l.Suspect = int(r.uvarint()), int(r.uvarint()), int(r.uvarint()), int(r.uvarint())
	flags := r.byte()
	l.Unchanged, l.Archived = flags&1 != 0, flags&2 != 0
	return r.err
}

// recordsSpool is the spooled records of the Change Lists a plan read.
func recordsSpool(dir string, run int) *runspool.List[state.ChangeList] {
	return runspool.NewList(dir, "Change Lists read", run, encRecord, decRecord, func(a, b *state.ChangeList) int { return 0 })
}

func encRecord(b []byte, c *state.ChangeList) []byte {
	for _, s := range []string{c.URL, c.Kind, c.ETag, c.LastModified, c.Last.URI} {
		b = appendString(b, s)
	}
	for _, t := range []time.Time{c.From, c.Until, c.Last.Datetime, c.ProcessedAt} {
		b = appendTime(b, t)
	}
	flags := byte(0)
	if c.Complete {
		flags = 1
	}
	b = append(b, flags)
	return binary.AppendVarint(b, int64(c.Last.Position))
}

func decRecord(b []byte, c *state.ChangeList) error {
	r := &byteReader{b: b}
	c.URL, c.Kind, c.ETag, c.LastModified, c.Last.URI = r.string(), r.string(), r.string(), r.string(), r.string()
	c.From, c.Until, c.Last.Datetime, c.ProcessedAt = r.time(), r.time(), r.time(), r.time()
	c.Complete = r.byte() == 1
	c.Last.Position = int(r.varint())
	return r.err
}

// byteReader reads what appendString, appendTime and the varint appends
// wrote (spool.go); the first error stays.
type byteReader struct {
	b   []byte
	err error
}

var errShortItem = errors.New("an item cut short")

func (r *byteReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *byteReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *byteReader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *byteReader) string() string {
	n := r.uvarint()
	if r.err != nil || uint64(len(r.b)) < n {
		r.fail()
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *byteReader) time() time.Time {
	if r.byte() == 0 || r.err != nil {
		return time.Time{}
	}
	sec := r.varint()
	nsec := r.uvarint()
	if r.err != nil || nsec >= 1e9 {
		r.fail()
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec)).UTC()
}

func (r *byteReader) fail() {
	if r.err == nil {
		r.err = errShortItem
	}
	r.b = nil
}

// priorLists is the state's record of the lists the Source's earlier runs
// processed, by URL: loaded whole (m, a Change Dump's packages), or looked
// up one at a time in the state (a Change List Index's lists, which may be
// a million). A look-up that fails is kept in err, and reads as none.
type priorLists struct {
	m     map[string]state.ChangeList
	ctx   context.Context
	db    *state.DB
	srcID int64
	none  bool // the state records no list of the Source
	last  state.ChangeList
	lastK string
	hit   bool
	err   error
}

// loadPrior reads every list recorded of the Source.
func loadPrior(ctx context.Context, db *state.DB, srcID int64) (*priorLists, error) {
	rows, err := db.ChangeLists(ctx, srcID)
	if err != nil {
		return nil, err
	}
	pr := &priorLists{m: make(map[string]state.ChangeList, len(rows))}
	for _, r := range rows {
		pr.m[r.URL] = r
	}
	return pr, nil
}

// lookPrior looks the lists recorded of the Source up as they are asked
// for.
func lookPrior(ctx context.Context, db *state.DB, srcID int64) (*priorLists, error) {
	n, err := db.ChangeListCount(ctx, srcID)
	if err != nil {
		return nil, err
	}
	return &priorLists{ctx: ctx, db: db, srcID: srcID, none: n == 0}, nil
}

// get is the record of the list at url.
func (pr *priorLists) get(url string) (state.ChangeList, bool) {
	switch {
	case pr.m != nil:
		r, ok := pr.m[url]
		return r, ok
	case pr.none || pr.err != nil:
		return state.ChangeList{}, false
	case url == pr.lastK:
		return pr.last, pr.hit
	}
	r, ok, err := pr.db.ChangeList(pr.ctx, pr.srcID, url)
	if err != nil {
		pr.err = fmt.Errorf("read the state's record of %s: %w", url, err)
		return state.ChangeList{}, false
	}
	pr.last, pr.lastK, pr.hit = r, strings.Clone(url), ok
	return r, ok
}

// listsRun is the run of the spools of lists (listsInMemory; 0: the
// spool's default).
func (s *Dest) listsRun() int { return s.opts.listsInMemory }

// listsKept is how many of the lists read Plan.Lists holds.
func (s *Dest) listsKept() int {
	if s.opts.listsInMemory > 0 {
		return s.opts.listsInMemory
	}
	return maxListed
}

// pointer is newPoint of lists given one at a time: how far the copy is
// synced once they are applied.
type pointer struct {
	covered time.Time
	stopped bool
}

func (pt *pointer) add(l listRef) {
	if pt.stopped {
		return
	}
	if l.from.After(pt.covered) || l.until.IsZero() {
		pt.stopped = true
		return
	}
	if l.until.After(pt.covered) {
		pt.covered = l.until
	}
}
