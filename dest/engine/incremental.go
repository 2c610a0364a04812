package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"rsx/crawl"
	"rsx/dest/plan"
	"rsx/dest/state"
	"rsx/display"
	"rsx/dump"
	runspool "rsx/internal/spool"
	"rsx/model"
)

// listRef is a Change List (or a Change Dump package) as its index or dump
// describes it.
type listRef struct {
	url         string
	from, until time.Time
	fromKnown   bool
	pkg         int    // index in the dump's packages, -1 for a Change List
	archive     string // the archive that lists it (or its Change Dump), "" for a live one
	// etag is the ETag the list was served with when the plan read its
	// header to learn what it covers (a Change List that is no index), ""
	// when it was not read (a list its index describes).
	etag string
	pos  int // its place in its index
}

// incremental plans from the Change Lists (or the Change Dump) after the
// copy's point.
func (b *builder) incremental(ctx context.Context, row state.Source) error {
	p := b.p
	// The state's record of the lists read before: a Change Dump's few
	// packages at once, a Change List Index's lists (which may be a
	// million) one at a time.
	prior := lookPrior
	if p.From == FromDump {
		prior = loadPrior
	}
	prev, err := prior(ctx, b.s.db, row.ID)
	if err != nil {
		return err
	}
	chg := plan.NewChanges(plan.ChangesOptions{Options: plan.Options{Selection: b.sel, Delete: p.Delete, Only: p.opts.Only}, Since: p.Point, Now: b.s.opts.Now(), TempDir: b.s.st.TempDir()})
	defer chg.Close()
	if b.index, err = newIndexLoader(ctx, b.s.db, row.ID); err != nil {
		return err
	}
	b.index.held, b.index.step = b.s.opts.Held, b.s.opts.heldStep
	b.index.nextHeld = b.index.step
	defer b.index.wait()
	var ok bool
	if p.From == FromDump {
		ok, err = b.readChangeDump(ctx, chg, prev)
	} else {
		ok, err = b.readChangeLists(ctx, chg, prev)
	}
	if err == nil {
		err = prev.err
	}
	if err != nil {
		return err
	}
	if !ok {
		// A gap, or a list that could not be read: nothing is applied.
		return nil
	}
	if b.s.opts.listRead != nil {
		b.s.opts.listRead()
	}
	st, err := b.index.state(ctx, chg.Held())
	if err != nil {
		return err
	}
	sum, err := chg.Finish(ctx, st, b.emit(ctx))
	if err != nil {
		return err
	}
	b.dropUnusedPackages()
	b.mergeSummary(sum)
	p.complete = true
	return nil
}

// orderLists sorts lists by from (forward chronological order, as an index
// must list them; a list without from keeps its place after the others).
func orderLists(lists []listRef) {
	sort.SliceStable(lists, func(i, j int) bool {
		if lists[i].fromKnown != lists[j].fromKnown {
			return lists[i].fromKnown
		}
		return lists[i].from.Before(lists[j].from)
	})
}

// needed tells whether a list must be read: not one that ends before the
// copy's point, and not a closed list processed whole before, unless it
// changed since. A list processed whole is skipped only while it is the
// list that was read: recorded closed (its until was well before the time
// it was read, closedList), and described now (by its index, or its own
// header) with the same from and until, and served with the same ETag when
// both are known. A Source that serves one list that keeps growing, each
// time with until the time it is served (the reference implementation's
// simulator), has it read again at every run.
func (b *builder) needed(l listRef, prev *priorLists) bool {
	if !l.until.IsZero() && !l.until.After(b.p.Point) {
		return false
	}
	if r, ok := prev.get(l.url); ok && r.Complete && r.Closed() && sameList(l, r) {
		return false
	}
	return true
}

// sameList tells whether a list, as described now, is the one recorded.
func sameList(l listRef, r state.ChangeList) bool {
	if !l.until.Equal(r.Until) || (l.fromKnown && !r.From.IsZero() && !l.from.Equal(r.From)) {
		return false
	}
	return l.etag == "" || r.ETag == "" || l.etag == r.ETag
}

// closedList tells whether a list read at readAt whose until is until may
// be taken as closed, not to be read again: its until must lie before the
// time it was read by more than the clocks' allowance. A list whose until is
// the time it was served (or later) says only what it held then: it may
// still grow.
func closedList(until, readAt time.Time) bool {
	return !until.IsZero() && until.Before(readAt.Add(-plan.FutureAllowance))
}

// checkGap finds a stretch after the copy's point that no list covers, and
// makes it the plan's gap.
func (b *builder) checkGap(lists []listRef, prev *priorLists) bool {
	if gap := b.gapOf(lists, prev); gap != nil {
		b.p.Gap = gap
		return true
	}
	return false
}

// gapOf is the first stretch after the copy's point that no list covers.
func (b *builder) gapOf(lists []listRef, prev *priorLists) *plan.Gap {
	infos := make([]plan.ListInfo, 0, len(lists))
	for _, l := range lists {
		from, until := l.from, l.until
		if !l.fromKnown {
			r, ok := prev.get(l.url)
			if !ok {
				continue
			}
			from, until = r.From, r.Until
		}
		infos = append(infos, plan.ListInfo{URL: l.url, From: from, Until: until})
	}
	return plan.FindGap(b.p.Point, infos)
}

// newPoint is how far the copy is synced once the lists are applied: the
// until of the last closed list in an unbroken run from the point, but never
// later than readAt, the time the plan began to read the lists (a list that
// says it covers a time after it was read cannot hold the changes made
// after that), nor than now (a list's until in the future is not believed:
// a point there would skip every real change up to it).
func (b *builder) newPoint(lists []listRef, readAt time.Time) time.Time {
	return b.capPoint(newPoint(b.p.Point, lists), readAt)
}

// capPoint is newPoint of lists that take the copy's point to covered.
func (b *builder) capPoint(covered, readAt time.Time) time.Time {
	if now := b.s.opts.Now().UTC(); covered.After(now.Add(plan.FutureAllowance)) {
		b.p.Warnings = append(b.p.Warnings, fmt.Sprintf("a list's until (%s) is in the future: the copy is synced up to now (%s), not up to it", model.FormatDatetime(covered), model.FormatDatetime(now)))
		return now
	}
	if covered.After(readAt) {
		return readAt.UTC()
	}
	return covered
}

func newPoint(point time.Time, lists []listRef) time.Time {
	pt := pointer{covered: point}
	for _, l := range lists {
		pt.add(l)
	}
	return pt.covered
}

// readChangeLists reads the Change List or its index and adds the changes
// of every list needed, in order, a list at a time (catchUpStream). It
// reports false when nothing may be applied (a gap, a list that could not
// be read).
func (b *builder) readChangeLists(ctx context.Context, chg *plan.Changes, prev *priorLists) (bool, error) {
	p := b.p
	readAt := b.s.opts.Now()
	lists, gap, err := b.catchUpStream(ctx, p.Document, p.Point, prev)
	if err != nil || gap != nil {
		p.Gap = gap
		return false, err
	}
	defer lists.close()
	if len(b.p.Problems) > 0 {
		return false, nil
	}
	pt := pointer{covered: p.Point}
	ok := true
	err = lists.each(func(l listRef) error {
		if !b.needed(l, prev) {
			pt.add(l)
			return nil
		}
		ld, err := b.s.openDoc(ctx, l.url)
		if err != nil {
			if cerr := ctxErr(ctx, "read "+l.url); cerr != nil {
				return cerr
			}
			b.problem(l.url, KindDocument, err)
			ok = false
			return errListsStop
		}
		b.docs.Add(1)
		until, lok, err := b.readChangeList(ctx, chg, ld, l, prev, readAt)
		ld.Close()
		if err != nil {
			return err
		}
		if !lok {
			ok = false
			return errListsStop
		}
		l.until = until
		if l.archive != "" {
			p.ArchivedLists = append(p.ArchivedLists, ArchivedList{URL: l.url, Kind: "changelist", Archive: l.archive, From: l.from, Until: l.until})
		}
		pt.add(l)
		return nil
	})
	if err != nil && !errors.Is(err, errListsStop) {
		return false, err
	}
	if !ok {
		return false, nil
	}
	p.newPoint = b.capPoint(pt.covered, readAt)
	return true, nil
}

// errListsStop ends a walk of the lists to read (a problem of the plan).
var errListsStop = errors.New("stop reading the Change Lists")

// catchUpLists is catchUpStream's lists, in a slice: for an audit's and a
// live baseline's reading of the Change Lists after a Resource List's at.
func (b *builder) catchUpLists(ctx context.Context, url string, since time.Time, prev *priorLists) ([]listRef, *plan.Gap, error) {
	lists, gap, err := b.catchUpStream(ctx, url, since, prev)
	if err != nil || lists == nil {
		return nil, gap, err
	}
	defer lists.close()
	var out []listRef
	err = lists.each(func(l listRef) error {
		out = append(out, l)
		return nil
	})
	return out, gap, err
}

// catchUpStream reads the live Change List (or its index) at url and returns
// the lists that cover every change after since, in the order to apply
// them (model.CatchUpOf): the live ones, and those of the Source's Change
// List Archive when the live ones do not reach back to since; those that
// say no from come last. A stretch of time after since that none covers is
// the gap (returned with the lists that say no from). The index's entries
// and the lists chosen wait in spools (changeindex.go), so that an index of
// a million lists is planned without holding them; prev (nil: none) is the
// state's record of the lists read before.
func (b *builder) catchUpStream(ctx context.Context, url string, since time.Time, prev *priorLists) (*chosenLists, *plan.Gap, error) {
	if prev == nil {
		prev = &priorLists{none: true}
	}
	d, err := b.s.openDoc(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	b.docs.Add(1)
	if c := d.hdr.MD.Capability; c != model.CapChangeList {
		d.Close()
		return nil, nil, fmt.Errorf("%s is a %s, not a Change List", d.url, model.DocumentTitle(c, d.hdr.Root))
	}
	dir := b.s.st.TempDir()
	idx := listSpool(dir, "Change Lists of the index", b.s.listsRun(), true)
	defer idx.Close()
	var unknown []listRef // the lists that say no from, in the index's order
	if d.isIndex() {
		if unknown, err = b.readListIndex(ctx, d, idx, prev); err != nil || len(b.p.Problems) > 0 {
			return nil, nil, err
		}
	} else {
		l := listRef{url: d.url, from: d.hdr.MD.From.Time, until: d.hdr.MD.Until.Time, fromKnown: d.hdr.MD.From.OK, pkg: -1, etag: d.resp.Header.Get("ETag")}
		d.Close()
		if l.fromKnown {
			idx.Add(l)
		} else {
			unknown = append(unknown, l)
		}
	}
	out := &chosenLists{}
	cu, _, err := b.chooseLists(idx, since, nil, "", out)
	if err == nil && cu.Gap != nil {
		// The live lists do not reach back: the archive may.
		h, herr := crawl.LoadHistory(ctx, crawl.NewGraph(b.s.client, crawl.GraphOptions{}), url, crawl.HistoryOptions{CapabilityList: b.capList})
		if herr != nil {
			b.p.Warnings = append(b.p.Warnings, "the Change List Archive could not be read: "+herr.Error())
		}
		h = b.trustedArchive(h)
		if h != nil && len(h.ArchivedPeriods) > 0 {
			b.docs.Add(int64(len(h.Archive)))
			var n int
			cu, n, err = b.chooseLists(idx, since, h.ArchivedPeriods, h.Archive[0].URL, out)
			if n > 0 {
				b.p.Notes = append(b.p.Notes, fmt.Sprintf("the Change List Archive %s holds %s the index no longer lists", h.Archive[0].URL, display.Plural(n, "list", "lists")))
			}
		}
	}
	if err != nil {
		out.close()
		return nil, nil, err
	}
	if cu.Gap != nil {
		// The lists that say no from are returned with the gap: an audit
		// or a reconcile reads their changes after the Resource List's at
		// (an incremental plan applies nothing across a gap).
		out.close()
		gap := &plan.Gap{From: cu.Gap.From, To: cu.Gap.Until}
		for _, l := range unknown {
			gap.Unknown = append(gap.Unknown, l.url)
		}
		return &chosenLists{unknown: unknown}, gap, nil
	}
	// Lists that say no from cannot be placed in time: they are read last,
	// their changes ordered by their own datetimes.
	for _, l := range unknown {
		b.p.Warnings = append(b.p.Warnings, l.url+" says no from: it is read after the others")
	}
	out.unknown = unknown
	return out, nil, nil
}

// readListIndex reads the entries of a Change List Index into idx, in order
// of from; those that give no from take it from the state's record of the
// list, else from the list's own header (read once the index is read, so
// that its response is not held open meanwhile). It returns the lists whose
// from is still not known, in the index's order; a list that could not be
// read is a problem of the plan.
func (b *builder) readListIndex(ctx context.Context, d *openedDoc, idx *runspool.List[listRef], prev *priorLists) ([]listRef, error) {
	pending := listSpool(b.s.st.TempDir(), "Change Lists of the index without from", b.s.listsRun(), false)
	defer pending.Close()
	pos := 0
	_, err := d.each(ctx, func(e *model.Entry, loc string) error {
		l := listRef{url: loc, from: e.MD.From.Time, until: e.MD.Until.Time, fromKnown: e.MD.From.OK, pkg: -1, pos: pos}
		pos++
		if l.fromKnown {
			idx.Add(l)
		} else {
			pending.Add(l)
		}
		return nil
	})
	d.Close()
	if err == nil {
		err = cmp.Or(idx.Err(), pending.Err())
	}
	if err != nil || pending.Len() == 0 {
		return nil, err
	}
	var unknown []listRef
	err = pending.Each(func(l listRef) error {
		if r, ok := prev.get(l.url); ok && !r.From.IsZero() {
			// (An until the index gives stays: a list that says
			// another until now is not the one recorded.)
			l.from, l.fromKnown = r.From, true
			if l.until.IsZero() {
				l.until = r.Until
			}
			idx.Add(l)
			return nil
		}
		ld, err := b.s.openDoc(ctx, l.url)
		if err != nil {
			b.problem(l.url, KindDocument, err)
			return errListsStop
		}
		l.from, l.until, l.fromKnown = ld.hdr.MD.From.Time, ld.hdr.MD.Until.Time, ld.hdr.MD.From.OK
		ld.Close()
		if l.fromKnown {
			idx.Add(l)
		} else {
			unknown = append(unknown, l)
		}
		return nil
	})
	if errors.Is(err, errListsStop) {
		return nil, nil
	}
	return unknown, cmp.Or(err, idx.Err())
}

// chooseLists plans the catch-up from since of the live lists of idx (in
// order of from) and of the archived periods, whose lists are listed by
// archive: the lists chosen go to out (what it held before is dropped). It
// returns the plan (its Lists empty) and how many of the lists chosen are
// archived.
func (b *builder) chooseLists(idx *runspool.List[listRef], since time.Time, archived []model.Period, archive string, out *chosenLists) (model.CatchUp, int, error) {
	out.close()
	out.sp = listSpool(b.s.st.TempDir(), "Change Lists to read", b.s.listsRun(), false)
	n := 0
	c := model.NewCatchUpOf(since, func(l listRef, p model.Period) error {
		if p.Archived {
			l = listRef{url: p.URL, from: p.From, until: p.Until, fromKnown: true, pkg: -1, archive: archive}
			n++
		}
		out.sp.Add(l)
		return out.sp.Err()
	})
	// Archived periods first among those of the same from, as PlanCatchUp
	// gives them.
	archived = slices.Clone(archived)
	for i := range archived {
		archived[i].Archived = true
	}
	slices.SortStableFunc(archived, func(x, y model.Period) int { return x.From.Compare(y.From) })
	done := errors.New("planned")
	addArchived := func(upTo *time.Time) error {
		for len(archived) > 0 && (upTo == nil || !archived[0].From.After(*upTo)) {
			more, err := c.Add(listRef{}, archived[0])
			archived = archived[1:]
			if err != nil {
				return err
			}
			if !more {
				return done
			}
		}
		return nil
	}
	err := idx.Each(func(l listRef) error {
		if err := addArchived(&l.from); err != nil {
			return err
		}
		more, err := c.Add(l, model.Period{URL: l.url, From: l.from, Until: l.until})
		if err == nil && !more {
			err = done
		}
		return err
	})
	if err == nil {
		err = addArchived(nil)
	}
	if err != nil && !errors.Is(err, done) {
		return model.CatchUp{}, 0, err
	}
	cu, err := c.End()
	return cu, n, err
}

// chosenLists are the lists a plan reads, in order: those chosen (a
// spool), then those that say no from.
type chosenLists struct {
	sp      *runspool.List[listRef]
	unknown []listRef
}

func (c *chosenLists) each(fn func(listRef) error) error {
	if c.sp != nil {
		if err := c.sp.Each(fn); err != nil {
			return err
		}
	}
	for _, l := range c.unknown {
		if err := fn(l); err != nil {
			return err
		}
	}
	return nil
}

func (c *chosenLists) close() {
	if c != nil && c.sp != nil {
		c.sp.Close()
		c.sp = nil
	}
}

// readChangeList adds the changes of one open document, read from readAt
// on. It returns how far the list takes the copy's point: its until (the
// earlier, when its index and its header disagree; newPoint goes no
// further than readAt).
func (b *builder) readChangeList(ctx context.Context, chg *plan.Changes, d *openedDoc, l listRef, prev *priorLists, readAt time.Time) (time.Time, bool, error) {
	h := d.hdr
	if c := h.MD.Capability; c != model.CapChangeList || d.isIndex() {
		b.problem(d.url, KindDocument, fmt.Errorf("%s, listed as a Change List, is a %s", d.url, model.DocumentTitle(c, h.Root)))
		return time.Time{}, false, nil
	}
	etag := d.resp.Header.Get("ETag")
	lastMod := d.resp.Header.Get("Last-Modified")
	info := plan.ListInfo{URL: l.url, Kind: "changelist", From: firstTime(h.MD.From.Time, l.from), Until: firstTime(h.MD.Until.Time, l.until)}
	until, disagree := info.Until, h.MD.Until.OK && !l.until.IsZero() && !l.until.Equal(h.MD.Until.Time)
	if disagree {
		b.p.Warnings = append(b.p.Warnings, fmt.Sprintf("%s says until %s, its index %s: the copy's point goes no further than the earlier, and the list is read again at the next run", l.url, model.FormatDatetime(h.MD.Until.Time), model.FormatDatetime(l.until)))
		if l.until.Before(until) {
			until = l.until
		}
	}
	if r, ok := prev.get(l.url); ok {
		if info.Until.IsZero() && etag != "" && r.ETag == etag {
			// The open list has not changed since it was processed.
			b.p.addList(ListRead{URL: l.url, Kind: "changelist", From: info.From, Until: info.Until, Unchanged: true, Archived: l.archive != ""})
			return time.Time{}, true, nil
		}
		r := r
		info.Previous = &r
	}
	if err := chg.BeginList(info); err != nil {
		return time.Time{}, false, err
	}
	var addErr error
	n, err := d.each(ctx, func(e *model.Entry, loc string) error {
		addErr = chg.Add(entryOf(e, loc))
		b.index.added(chg.Held())
		return addErr
	})
	b.entries.Add(int64(n))
	res, eerr := chg.EndList()
	switch {
	case addErr != nil:
		return time.Time{}, false, addErr // the plan's spool could not be written
	case err != nil:
		if cerr := ctxErr(ctx, "read "+d.url); cerr != nil {
			return time.Time{}, false, cerr
		}
		b.problem(d.url, KindDocument, err)
		return time.Time{}, false, nil
	case eerr != nil:
		return time.Time{}, false, eerr
	}
	rec := res.Record
	rec.ETag, rec.LastModified, rec.ProcessedAt = etag, lastMod, b.s.opts.Now()
	// Recorded closed, not to be read again, only when its until was well
	// before it was read.
	rec.Complete = rec.Complete && closedList(rec.Until, readAt) && !disagree
	b.p.addRecord(rec)
	b.p.addList(ListRead{URL: l.url, Kind: "changelist", From: info.From, Until: info.Until, Entries: res.Entries, Skipped: res.Skipped, OutOfOrder: res.OutOfOrder, Suspect: res.Suspect, Archived: l.archive != ""})
	return until, b.p.spoolErr() == nil, b.p.spoolErr()
}

// readChangeDump reads the Change Dump (or its index), downloads every
// needed package (each checked against its dump entry; one that differs
// is refused whole) and adds the changes of each manifest, in order. When
// the Change Dump no longer reaches back to the copy's point, the closed
// Change Dumps of the Source's Change Dump Archive that cover the time
// since are read too, and their packages applied first.
func (b *builder) readChangeDump(ctx context.Context, chg *plan.Changes, prev *priorLists) (bool, error) {
	p := b.p
	readAt := b.s.opts.Now()
	d, err := b.s.openDump(ctx, p.Document, model.CapChangeDump)
	if err != nil {
		return false, err
	}
	b.docs.Add(int64(len(d.Documents)))
	refs := d.Packages
	lists := make([]listRef, len(refs))
	for i, ref := range refs {
		from, until := packageInterval(ref, nil)
		lists[i] = listRef{url: ref.URL, from: from, until: until, fromKnown: ref.MD.From.OK, pkg: i}
	}
	p.pkgs = make([]*pkgFile, len(refs))
	var opened []fetched
	defer func() {
		for _, f := range opened {
			if f.pk != nil {
				f.pk.closePkg()
			}
		}
	}()
	got, ok, err := b.fetchChangePackages(ctx, refs, lists, 0, prev)
	opened = append(opened, got...)
	if err != nil || !ok {
		return false, err
	}
	orderLists(lists)
	if gap := b.gapOf(lists, prev); gap != nil {
		// The live dump does not reach back: its archive may.
		more, gap, err := b.changeDumpArchive(ctx, lists, gap)
		switch {
		case err != nil:
			return false, err
		case gap != nil:
			p.Gap = gap
			return false, nil
		case len(p.Problems) > 0:
			return false, nil
		}
		base := len(refs)
		p.pkgs = append(p.pkgs, make([]*pkgFile, len(more))...)
		for j, ref := range more {
			refs = append(refs, ref.PackageRef)
			from, until := packageInterval(ref.PackageRef, nil)
			lists = append(lists, listRef{url: ref.URL, from: from, until: until, fromKnown: ref.MD.From.OK, pkg: base + j, archive: ref.Archive})
		}
		got, ok, err := b.fetchChangePackages(ctx, refs[base:], lists[len(lists)-len(more):], base, prev)
		opened = append(opened, got...)
		if err != nil || !ok {
			return false, err
		}
		orderLists(lists)
		if b.checkGap(lists, prev) {
			return false, nil
		}
	}
	for _, l := range lists {
		f := opened[l.pkg]
		if f.pkg == nil || !b.needed(l, prev) {
			continue
		}
		ref := refs[l.pkg]
		info := plan.ListInfo{URL: ref.URL, Kind: "changedump", From: l.from, Until: l.until}
		if r, ok := prev.get(ref.URL); ok {
			info.Previous = &r
		}
		if err := chg.BeginList(info); err != nil {
			return false, err
		}
		for j := range f.pkg.Manifest.Entries {
			e := &f.pkg.Manifest.Entries[j]
			b.entries.Add(1)
			if !e.HasLoc || e.Loc == "" {
				continue
			}
			pe := entryOf(e, resolveLoc(ref.URL, e.Loc))
			if e.MD.Change != model.ChangeDeleted {
				pe.Ref = makeRef(l.pkg, e.MD.Path)
			}
			if err := chg.Add(pe); err != nil {
				return false, err
			}
			b.index.added(chg.Held())
		}
		res, err := chg.EndList()
		if err != nil {
			return false, err
		}
		rec := res.Record
		rec.ProcessedAt = b.s.opts.Now()
		rec.Complete = rec.Complete && closedList(rec.Until, readAt)
		p.addRecord(rec)
		p.addList(ListRead{URL: ref.URL, Kind: "changedump", From: info.From, Until: info.Until, Entries: res.Entries, Skipped: res.Skipped, OutOfOrder: res.OutOfOrder, Suspect: res.Suspect, Archived: l.archive != ""})
		if err := p.spoolErr(); err != nil {
			return false, err
		}
	}
	p.newPoint = b.newPoint(lists, readAt)
	return true, nil
}

// fetchChangePackages downloads the packages of refs that are needed (those
// whose entry gives no interval are downloaded to learn it, into lists) and
// keeps them in the plan's packages from index base on. It reports false
// when one could not be used (a problem of the plan).
func (b *builder) fetchChangePackages(ctx context.Context, refs []dump.PackageRef, lists []listRef, base int, prev *priorLists) ([]fetched, bool, error) {
	skip := func(i int) bool {
		l := lists[i]
		if !l.fromKnown {
			r, ok := prev.get(l.url)
			return ok && r.Complete && r.Closed()
		}
		return !b.needed(l, prev)
	}
	got := b.s.fetchPackages(ctx, refs, skip, model.CapChangeDumpManifest)
	opened := make([]fetched, len(refs))
	failed := false
	for i := range refs {
		select {
		case opened[i] = <-got[i]:
		case <-ctx.Done():
			return opened, false, ctxErr(ctx, "read "+b.p.Document)
		}
		f := opened[i]
		if f.err != nil {
			if err := ctxErr(ctx, "read "+b.p.Document); err != nil {
				return opened, false, err
			}
			kind := KindDocument
			if errors.Is(f.err, dump.ErrEntryMismatch) {
				kind = KindPackage
			}
			b.problem(refs[i].URL, kind, f.err)
			failed = true
			continue
		}
		if f.pkg != nil {
			b.docs.Add(1)
			b.p.pkgs[base+i] = f.pk
			if !lists[i].fromKnown {
				lists[i].from, lists[i].until = packageInterval(refs[i], f.pkg)
				lists[i].fromKnown = !lists[i].from.IsZero()
			}
		}
	}
	return opened, !failed, nil
}

// changeDumpArchive looks in the Source's Change Dump Archive for closed
// Change Dumps that cover the time the live one (lists) leaves uncovered
// after the copy's point (model.PlanCatchUp), and returns their packages,
// in order; or the gap that even the archive leaves (the live dump's gap
// when there is no archive). An archived Change Dump that cannot be read is
// a problem of the plan.
func (b *builder) changeDumpArchive(ctx context.Context, lists []listRef, gap *plan.Gap) ([]archivedRef, *plan.Gap, error) {
	p := b.p
	h, herr := crawl.LoadHistory(ctx, crawl.NewGraph(b.s.client, crawl.GraphOptions{}), p.Document, crawl.HistoryOptions{CapabilityList: b.capList})
	if herr != nil {
		if err := ctxErr(ctx, "read the Change Dump Archive"); err != nil {
			return nil, nil, err
		}
		p.Warnings = append(p.Warnings, "the Change Dump Archive could not be read: "+herr.Error())
	}
	if h = b.trustedArchive(h); len(p.Problems) > 0 {
		return nil, nil, nil
	}
	if h == nil || len(h.ArchivedPeriods) == 0 {
		return nil, gap, nil
	}
	b.docs.Add(int64(len(h.Archive)))
	var live []model.Period
	for i, l := range lists {
		if l.fromKnown {
			live = append(live, model.Period{URL: l.url, From: l.from, Until: l.until, Entry: i})
		}
	}
	cu := model.PlanCatchUp(p.Point, h.ArchivedPeriods, live)
	if cu.Gap != nil {
		return nil, &plan.Gap{From: cu.Gap.From, To: cu.Gap.Until}, nil
	}
	archive := h.Archive[0].URL
	var out []archivedRef
	for _, ap := range cu.Archived() {
		d, err := b.s.openDump(ctx, ap.URL, model.CapChangeDump)
		if err != nil {
			if cerr := ctxErr(ctx, "read "+ap.URL); cerr != nil {
				return nil, nil, cerr
			}
			b.problem(ap.URL, KindDocument, fmt.Errorf("read the archived Change Dump %s: %w", ap.URL, err))
			return nil, nil, nil
		}
		b.docs.Add(int64(len(d.Documents)))
		for _, ref := range d.Packages {
			out = append(out, archivedRef{PackageRef: ref, Archive: archive})
		}
		p.ArchivedLists = append(p.ArchivedLists, ArchivedList{URL: ap.URL, Kind: "changedump", Archive: archive, From: ap.From, Until: ap.Until})
	}
	if n := len(p.ArchivedLists); n > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("the Change Dump Archive %s holds %s the Change Dump no longer lists", archive, display.Plural(n, "Change Dump", "Change Dumps")))
	}
	return out, nil, nil
}

// archivedRef is a package of an archived Change Dump.
type archivedRef struct {
	dump.PackageRef
	Archive string
}

// indexLoader loads the state's Index in the background once the changes
// read are many enough for Finish to look them up in memory rather than
// one query per batch (plan.ForLookups' rule: from an eighth of the
// Source's rows on, and 2,001 at least): the load then overlaps the
// reading of the rest of the lists. Whether the rows are few enough is
// asked with counts bounded by the changes (state.DB.RowsUpTo), at 2,001
// changes and each time they have doubled since, so that a run of a few
// thousand changes against a large copy reads nothing in proportion to the
// copy.
type indexLoader struct {
	ctx     context.Context
	db      *state.DB
	srcID   int64
	empty   bool // the Source has no rows: nothing to load
	next    int  // held changes at which to count the rows again
	started bool
	done    chan struct{}
	idx     *state.Index
	err     error
	// held hears the changes held at each HeldStep (Options.Held).
	held           func(int)
	step, nextHeld int
}

// indexMinChanges is the fewest changes for which the Index is loaded.
const indexMinChanges = 2001

func newIndexLoader(ctx context.Context, db *state.DB, srcID int64) (*indexLoader, error) {
	n, err := db.RowsUpTo(ctx, srcID, 1)
	if err != nil {
		return nil, err
	}
	return &indexLoader{ctx: ctx, db: db, srcID: srcID, empty: n == 0, next: indexMinChanges}, nil
}

// added is called after each change added to the plan, held the resources
// it holds a change of: the load may start, and Options.Held hears of each
// HeldStep more.
func (l *indexLoader) added(held int) {
	l.maybeStart(held)
	if l != nil && l.held != nil && held >= l.nextHeld {
		l.nextHeld = held + l.step
		l.held(held)
	}
}

// maybeStart starts the load when held changes reach an eighth of the
// Source's rows.
func (l *indexLoader) maybeStart(held int) {
	if l == nil || l.started || l.empty || l.err != nil || held < l.next {
		return
	}
	l.next = 2 * held
	n, err := l.db.RowsUpTo(l.ctx, l.srcID, 8*held+1)
	if err != nil {
		l.err = err
		return
	}
	if n > 8*held {
		return
	}
	l.started = true
	l.done = make(chan struct{})
	go func() {
		defer close(l.done)
		l.idx, l.err = l.db.LoadIndex(l.ctx, l.srcID)
	}()
}

// state is the State to plan held changes with.
func (l *indexLoader) state(ctx context.Context, held int) (plan.State, error) {
	l.maybeStart(held)
	if !l.started {
		if l.err != nil {
			return nil, l.err
		}
		return l.db.View(l.srcID), nil
	}
	<-l.done
	return l.idx, l.err
}

// wait waits for a load begun, so that no read outlives the plan.
func (l *indexLoader) wait() {
	if l != nil && l.started {
		<-l.done
	}
}
