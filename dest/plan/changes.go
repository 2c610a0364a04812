package plan

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"rsx/dest/state"
	"rsx/display"
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
	// Suspect counts the entries whose datetime cannot be true: before the
	// list's from, after its until, or in the future (ChangesOptions.Now).
	Suspect int
}

// held is one change as Finish reads it back from the spool.
type held struct {
	uri      string
	digests  state.Digests
	ref      string
	length   int64
	lastmod  stamp
	datetime stamp
	seq      uint32 // its position among every change added
	change   model.Change
	typ      string    // the media type declared
	via      state.Via // the entry's via link (Href "" when none)
}

// winner is the last change of one resource so far, in 16 bytes: the
// datetime it is ordered by, in Unix nanoseconds (clamped to the years
// 1678–2261: changes outside them are ordered by position), and its position.
type winner struct {
	eff int64
	seq uint32
}

func orderNanos(t time.Time) int64 {
	switch {
	case t.IsZero():
		return math.MinInt64
	case t.Year() < 1678:
		return math.MinInt64 + 1
	case t.Year() > 2261:
		return math.MaxInt64
	}
	return t.UnixNano()
}

// laterThan reports whether w comes after the change (eff, seq) in the order
// of changes: by datetime, then by position.
func (w winner) laterThan(eff int64, seq uint32) bool {
	if w.eff != eff {
		return w.eff > eff
	}
	return w.seq > seq
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

func (h *held) entry() Entry {
	return Entry{URI: h.uri, Length: h.length, Digests: h.digests, Lastmod: h.lastmod.time(),
		Change: h.change, Datetime: h.datetime.time(), Ref: h.ref, Type: h.typ, Via: h.via}
}

type candidate struct {
	e      Entry
	eff    time.Time
	seq    uint32
	listed time.Time // its datetime as listed (e's is cleared when suspect)
}

// ChangesOptions configure Changes.
type ChangesOptions struct {
	Options
	// Since is the copy's point (state.Source.Point): changes with an earlier
	// datetime are already in the copy.
	Since time.Time
	// TempDir is where the changes are spooled while planning (os.TempDir()
	// when empty). The engine passes the Store's TempDir, so that the spool
	// of a killed run is removed by the next one.
	TempDir string
	// Now is the time of the plan: a change dated later than Now plus
	// FutureAllowance has not happened yet (zero: no such check).
	Now time.Time
	// OnlyAdded: Finish decides the changes added and nothing else, leaving
	// the deletions earlier runs remembered alone (neither applied nor
	// counted): a plan of the few changes of a notification, which is not
	// a window of the Source's changes.
	OnlyAdded bool
}

// FutureAllowance is how far a change's datetime may be ahead of the plan's
// clock (ChangesOptions.Now) before it counts as in the future: the clocks
// of a Source and a Destination differ by a little.
const FutureAllowance = 5 * time.Minute

// Changes plans from Change Lists or Change Dump manifests: for each list, in
// the order the index gives them, BeginList, Add every entry, EndList; then
// Finish (or Close to give up).
//
// Memory does not grow with the entries: every change kept is written to a
// spool file, and only its resource's key (a 128-bit keyed hash of the URI)
// and the datetime and position of its last change are held, about 40 bytes
// per resource changed. Finish reads the spool back and decides each resource's last
// change. While an open list is re-read, the changes an earlier run processed
// are held until the list shows it still starts as it did.
//
// A change dated after its list's until, or in the future (after
// ChangesOptions.Now and FutureAllowance), is suspect: its datetime cannot
// be true, and trusting it would pin the resource (every later real change
// would look older, found applied or overtaken). It is planned as a change
// without a datetime: ordered by its position in the list, and applied (or
// found current by its digest) without its datetime becoming the resource's
// change datetime. A change dated before its list's from is only counted:
// its datetime makes it older, which pins nothing. Both are warned about.
// Likewise a resource whose recorded change datetime is in the future (a
// copy pinned before this rule) is decided as if it had none.
type Changes struct {
	opts    ChangesOptions
	winners map[[2]uint64]winner
	k1, k2  maphash.Seed
	seq     uint32
	sum     Summary
	excl    excludedOnce // the URIs counted as Excluded

	spool    *os.File
	spoolBuf *bufio.Writer
	rec      []byte
	spoolErr error

	list       *ListInfo
	res        ListResult
	pos        int
	maxDT      time.Time
	resumeAt   int // position of the earlier run's last change, -1 when none
	candidates []candidate
	// The list's datetimes that cannot be true (late: after its until or
	// in the future; early: before its from): how many, and the first.
	late, early           int
	firstLate, firstEarly string
}

// NewChanges starts a plan of changes.
func NewChanges(opts ChangesOptions) *Changes {
	return &Changes{opts: opts, winners: map[[2]uint64]winner{}, k1: maphash.MakeSeed(), k2: maphash.MakeSeed(), excl: newExcludedOnce()}
}

func (p *Changes) key(uri string) [2]uint64 {
	return [2]uint64{maphash.String(p.k1, uri), maphash.String(p.k2, uri)}
}

// winnerSeqs is a bit for each change added, set for the resources' last
// changes: one walk of the winners, where a look-up for each change spooled
// hashed its URI twice and read the map at random (0.55 s of a plan of a
// million changes); the bits take a byte for eight changes.
func (p *Changes) winnerSeqs() []uint64 {
	last := make([]uint64, (uint64(p.seq)+63)/64)
	for _, w := range p.winners {
		last[w.seq/64] |= 1 << (w.seq % 64)
	}
	return last
}

// Held is how many resources have a change to decide.
func (p *Changes) Held() int { return len(p.winners) }

// Close removes the spool. Finish calls it; call it when giving up a plan.
func (p *Changes) Close() error {
	if p.spool == nil {
		return nil
	}
	name := p.spool.Name()
	p.spool.Close()
	p.spool, p.spoolBuf = nil, nil
	if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the plan's spool: %w", err)
	}
	return nil
}

// BeginList starts the entries of a list.
func (p *Changes) BeginList(l ListInfo) error {
	if p.list != nil {
		return fmt.Errorf("plan Change List %s: %s was not ended", l.URL, p.list.URL)
	}
	p.list = &l
	p.res = ListResult{Record: state.ChangeList{URL: l.URL, Kind: l.Kind, From: l.From, Until: l.Until, Last: state.Cursor{Position: -1}}}
	p.pos, p.maxDT, p.resumeAt = 0, time.Time{}, -1
	p.late, p.early, p.firstLate, p.firstEarly = 0, 0, "", ""
	p.candidates = p.candidates[:0]
	if prev := l.Previous; prev != nil && prev.Last.Position >= 0 {
		p.resumeAt = prev.Last.Position
	}
	return nil
}

// Add adds the list's next entry. An error means the spool could not be
// written (a full disk).
func (p *Changes) Add(e Entry) error {
	if p.list == nil {
		return fmt.Errorf("plan change of %s: no list begun", e.URI)
	}
	pos := p.pos
	p.pos++
	p.res.Entries++
	p.res.Record.Last = state.Cursor{Position: pos, Datetime: e.Datetime, URI: e.URI}

	listed := e.Datetime // the cursor's, to know the list again
	if _, late := p.judge(listed); late {
		// Planned without its datetime: it neither orders nor pins.
		e.Datetime = time.Time{}
	}
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
	if p.seq == math.MaxUint32 {
		return fmt.Errorf("plan change of %s: more than %d changes in one plan", e.URI, uint32(math.MaxUint32))
	}
	p.seq++

	if pos <= p.resumeAt {
		p.candidates = append(p.candidates, candidate{e, eff, seq, listed})
		if pos == p.resumeAt {
			prev := p.list.Previous.Last
			if e.URI == prev.URI && listed.Equal(prev.Datetime) {
				p.res.Skipped += len(p.candidates)
				p.sum.Skipped += len(p.candidates)
				p.candidates = p.candidates[:0]
			} else {
				p.replayCandidates(fmt.Sprintf("Change List %s no longer has the change processed last at position %d (%s): its changes are all applied again", p.list.URL, pos+1, prev.URI))
			}
		}
		return p.spoolErr
	}
	p.noteSuspect(&e, listed)
	p.take(e, eff, seq)
	return p.spoolErr
}

// judge tells why a change's datetime cannot be true ("" when it can), and
// whether it is late: after the list's until, or in the future. A late
// datetime would pin its resource; an early one (before the list's from)
// only makes the change older.
func (p *Changes) judge(dt time.Time) (why string, late bool) {
	if dt.IsZero() {
		return "", false
	}
	l := p.list
	switch {
	case p.inFuture(dt):
		return "in the future", true
	case !l.Until.IsZero() && dt.After(l.Until):
		return "after the list's until " + model.FormatDatetime(l.Until), true
	case !l.From.IsZero() && dt.Before(l.From):
		return "before the list's from " + model.FormatDatetime(l.From), false
	}
	return "", false
}

// noteSuspect counts a change whose listed datetime cannot be true, for
// the list's warnings. Changes an earlier run processed are not counted
// again.
func (p *Changes) noteSuspect(e *Entry, listed time.Time) {
	why, late := p.judge(listed)
	if why == "" {
		return
	}
	p.res.Suspect++
	// Said of the first only (made for each, it was a string a change).
	first := func() string {
		return fmt.Sprintf("%s %s at %s, %s", orUpdated(e.Change), e.URI, model.FormatDatetime(listed), why)
	}
	if late {
		p.late++
		if p.firstLate == "" {
			p.firstLate = first()
		}
		return
	}
	p.early++
	if p.firstEarly == "" {
		p.firstEarly = first()
	}
}

func (p *Changes) replayCandidates(warning string) {
	p.sum.Warnings = append(p.sum.Warnings, warning)
	for _, c := range p.candidates {
		p.noteSuspect(&c.e, c.listed)
		p.take(c.e, c.eff, c.seq)
	}
	p.candidates = p.candidates[:0]
	p.resumeAt = -1
}

// take applies the selection and the copy's point, then keeps the change if
// it is its resource's last so far.
func (p *Changes) take(e Entry, eff time.Time, seq uint32) {
	if !p.opts.chosen(e.URI, &p.sum) {
		return
	}
	if !p.opts.Selection.Selected(e.URI) {
		p.excl.count(e.URI, &p.sum.Excluded)
		return
	}
	if since := p.opts.Since; !since.IsZero() {
		if e.Datetime.IsZero() {
			if !p.list.Until.IsZero() && !p.list.Until.After(since) {
				p.res.Skipped++
				p.sum.Skipped++
				return
			}
		} else if e.Datetime.Before(since) {
			p.res.Skipped++
			p.sum.Skipped++
			return
		}
	}
	k := p.key(e.URI)
	en := orderNanos(eff)
	if w, ok := p.winners[k]; ok && w.laterThan(en, seq) {
		return // an earlier change, listed late: the resource's last change stays
	}
	p.winners[k] = winner{eff: en, seq: seq}
	p.write(&held{uri: e.URI, digests: e.Digests, ref: e.Ref, length: e.Length, lastmod: stampOf(e.Lastmod),
		datetime: stampOf(e.Datetime), seq: seq, change: e.Change, typ: e.Type, via: e.Via})
}

// write appends a change to the spool.
func (p *Changes) write(h *held) {
	if p.spoolErr != nil {
		return
	}
	if p.spool == nil {
		f, err := os.CreateTemp(p.opts.TempDir, "rsx-plan-*.spool")
		if err != nil {
			p.spoolErr = fmt.Errorf("plan the changes: create a spool file: %w", err)
			return
		}
		p.spool, p.spoolBuf = f, bufio.NewWriterSize(f, 1<<16)
	}
	b := p.rec[:0]
	b = binary.AppendUvarint(b, uint64(h.seq))
	for _, s := range []string{h.uri, string(h.digests), h.ref, string(h.change), h.typ, h.via.Href, string(h.via.Hash), h.via.Type} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendVarint(b, h.length)
	b = binary.AppendVarint(b, h.via.Length)
	for _, st := range []stamp{h.lastmod, h.datetime, stampOf(h.via.Modified)} {
		b = binary.AppendVarint(b, st.sec)
		b = binary.AppendUvarint(b, uint64(st.ns))
	}
	p.rec = b
	var n [binary.MaxVarintLen64]byte
	if _, err := p.spoolBuf.Write(n[:binary.PutUvarint(n[:], uint64(len(b)))]); err != nil {
		p.spoolErr = fmt.Errorf("plan the changes: write the spool: %w", err)
		return
	}
	if _, err := p.spoolBuf.Write(b); err != nil {
		p.spoolErr = fmt.Errorf("plan the changes: write the spool: %w", err)
	}
}

// errCorruptChange: a spooled change could not be decoded.
var errCorruptChange = errors.New("a spooled change is corrupt")

// readHeld decodes one spooled change.
func readHeld(r *bufio.Reader, buf []byte, h *held) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return buf, err
	}
	if n > 1<<26 {
		return buf, fmt.Errorf("a spooled change of %d bytes", n)
	}
	buf = slices.Grow(buf[:0], int(n))[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		return buf, err
	}
	b := buf
	uv := func() uint64 {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			b = nil
			return 0
		}
		b = b[k:]
		return v
	}
	sv := func() int64 {
		v, k := binary.Varint(b)
		if k <= 0 {
			b = nil
			return 0
		}
		b = b[k:]
		return v
	}
	str := func() string {
		l := uv()
		if uint64(len(b)) < l {
			b = nil
			return ""
		}
		s := string(b[:l])
		b = b[l:]
		return s
	}
	h.seq = uint32(uv())
	h.uri = str()
	h.digests = state.Digests(str())
	h.ref = str()
	h.change = model.Change(str())
	h.typ = str()
	h.via.Href = str()
	h.via.Hash = state.Digests(str())
	h.via.Type = str()
	h.length = sv()
	h.via.Length = sv()
	var viaModified stamp
	for _, st := range []*stamp{&h.lastmod, &h.datetime, &viaModified} {
		st.sec = sv()
		st.ns = uint32(uv())
	}
	h.via.Modified = viaModified.time()
	if b == nil {
		return buf, errCorruptChange
	}
	return buf, nil
}

// EndList ends the list's entries and returns what was learnt of it.
func (p *Changes) EndList() (ListResult, error) {
	if p.list == nil {
		return ListResult{}, fmt.Errorf("end a Change List: none was begun")
	}
	if len(p.candidates) > 0 {
		p.replayCandidates(fmt.Sprintf("Change List %s is shorter than when it was processed (%d entries, %d then): its changes are all applied again", p.list.URL, p.res.Entries, p.resumeAt+1))
	}
	if p.late > 0 {
		p.sum.Suspect += p.late
		p.sum.Warnings = append(p.sum.Warnings, fmt.Sprintf("%s %s: %s dated after its until or in the future (the first: %s): each is applied by its place in the list and its datetime is not recorded, so that it cannot make later changes look older",
			listTitle(p.list.Kind), p.list.URL, display.Plural(p.late, "change", "changes"), p.firstLate))
	}
	if p.early > 0 {
		p.sum.Suspect += p.early
		p.sum.Warnings = append(p.sum.Warnings, fmt.Sprintf("%s %s: %s dated before its from (the first: %s)",
			listTitle(p.list.Kind), p.list.URL, display.Plural(p.early, "change", "changes"), p.firstEarly))
	}
	if p.res.OutOfOrder > 0 {
		p.sum.Warnings = append(p.sum.Warnings, fmt.Sprintf("Change List %s: %d of its %d changes are not in forward chronological order; they are applied in the order of their datetimes", p.list.URL, p.res.OutOfOrder, p.res.Entries))
	}
	p.res.Record.Complete = !p.list.Until.IsZero()
	res := p.res
	// The cursor outlives the list: its URI is the decoder's, carved out
	// of a chunk of tens of KiB that it would keep from being freed, a
	// chunk for every list of a Change List Index (50 KB a part: 813 MB
	// for a plan of an index of 100,000 parts).
	res.Record.Last.URI = strings.Clone(res.Record.Last.URI)
	p.list = nil
	return res, p.spoolErr
}

// Finish decides the last change of every resource, emitting each item in
// the order the changes were added (each resource once; the order between
// different resources does not matter), then, with Options.Delete, the
// deletions earlier runs remembered (without it they are counted as
// PendingDelete and not emitted again). It removes the spool and returns the
// summary.
func (p *Changes) Finish(ctx context.Context, st State, emit func(Item) error) (Summary, error) {
	defer p.Close()
	if p.list != nil {
		return p.sum, fmt.Errorf("finish the plan: Change List %s was not ended", p.list.URL)
	}
	if p.spoolErr != nil {
		return p.sum, p.spoolErr
	}
	batch := make([]held, 0, state.LookupBatch)
	uris := make([]string, 0, state.LookupBatch)
	items := make([]Item, state.LookupBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		uris = uris[:0]
		for i := range batch {
			uris = append(uris, batch[i].uri)
		}
		clear(items)
		err := st.Find(ctx, uris, func(j int, k *state.Known) error {
			items[j] = p.decide(&batch[j], k)
			return nil
		})
		if err != nil {
			return err
		}
		for j := range batch {
			it := &items[j]
			if it.Action == 0 {
				*it = p.decide(&batch[j], nil)
				if it.Action == 0 {
					p.sum.Vanished++
					continue
				}
			}
			p.sum.count(it)
			if err := emit(*it); err != nil {
				return err
			}
		}
		batch = batch[:0]
		return nil
	}
	if p.spool != nil {
		if err := p.spoolBuf.Flush(); err != nil {
			return p.sum, fmt.Errorf("plan the changes: write the spool: %w", err)
		}
		if _, err := p.spool.Seek(0, io.SeekStart); err != nil {
			return p.sum, fmt.Errorf("plan the changes: read the spool: %w", err)
		}
		r := bufio.NewReaderSize(p.spool, 1<<16)
		last := p.winnerSeqs()
		var buf []byte
		for {
			var h held
			var err error
			buf, err = readHeld(r, buf, &h)
			if err == io.EOF {
				break
			}
			if err != nil {
				return p.sum, fmt.Errorf("plan the changes: read the spool: %w", err)
			}
			if last[h.seq/64]&(1<<(h.seq%64)) == 0 {
				continue // a later change of the resource follows
			}
			batch = append(batch, h)
			if len(batch) == cap(batch) {
				if err := flush(); err != nil {
					return p.sum, err
				}
			}
		}
		if err := flush(); err != nil {
			return p.sum, err
		}
	}

	if p.opts.OnlyAdded {
		return p.sum, nil
	}
	// Deletions remembered from earlier runs that no change of this window
	// decided again.
	err := st.EachKnown(ctx, true, func(uri string, k *state.Known) error {
		if _, decided := p.winners[p.key(uri)]; decided {
			return nil
		}
		if !p.opts.Only.Has(uri) {
			return nil
		}
		if !p.opts.Selection.Selected(uri) {
			p.excl.count(uri, &p.sum.Excluded)
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
	if !e.Datetime.IsZero() && !k.ChangeDatetime.IsZero() && !e.Datetime.After(k.ChangeDatetime) && !p.inFuture(k.ChangeDatetime) {
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

// inFuture tells whether t is later than the plan's clock allows.
func (p *Changes) inFuture(t time.Time) bool {
	return !p.opts.Now.IsZero() && t.After(p.opts.Now.Add(FutureAllowance))
}

// listTitle names a list of a kind in a warning.
func listTitle(kind string) string {
	switch kind {
	case "changedump":
		return "Change Dump package"
	case "notification":
		return "the notification channel"
	}
	return "Change List"
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
	// Unknown are the Change Lists whose period is unknown (no from
	// attribute, mandatory in a Change List: Table 4), which cannot close a
	// gap. Only the Change List path sets it.
	Unknown []string
}

func (g Gap) String() string {
	s := "no Change List covers the changes since " + model.FormatDatetime(g.From)
	if !g.To.IsZero() {
		s = "no Change List covers the changes from " + model.FormatDatetime(g.From) + " to " + model.FormatDatetime(g.To)
	}
	switch len(g.Unknown) {
	case 0:
	case 1:
		s += " (the Change List " + g.Unknown[0] + " has no from attribute, mandatory (Table 4), so the period it covers is unknown)"
	default:
		s += " (" + strconv.Itoa(len(g.Unknown)) + " Change Lists, the first " + g.Unknown[0] + ", have no from attribute, mandatory (Table 4), so the periods they cover are unknown)"
	}
	return s
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
