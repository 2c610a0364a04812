package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"rsx/dest/pathmap"
	"rsx/dest/plan"
	"rsx/dest/state"
	"rsx/display"
	runspool "rsx/internal/spool"
	"rsx/model"
	"rsx/notify"
)

// Summary counts a plan.
type Summary struct {
	Create, Update, Delete int
	// PendingDelete counts the deletions remembered, not applied (no
	// --delete): those found now and those remembered from earlier runs.
	PendingDelete int
	// Unchanged counts the resources whose copy is current; Touch of them
	// only have their metadata recorded again.
	Unchanged, Touch int
	// Excluded counts the resources the selection leaves out; Refused those
	// outside the Source's authority or that cannot be mapped to a path, and
	// Unmapped those of Refused that are not outside the authority (a loc
	// that is no http(s) URI, or has no host): copies the run cannot make,
	// so it fails (Result.OK), while resources outside the authority are
	// left out on purpose.
	Excluded, Refused, Unmapped int
	// Collisions counts the refused that lose a path to another resource
	// (the collision rule, collide.go): left out, reported, not a failure.
	// Owned counts those of them whose path another Source's copy holds
	// (a path of the destination belongs to one Source).
	Collisions, Owned int
	// NotChosen counts the entries read that PlanOptions.Only leaves out.
	NotChosen int
	// Vanished counts the resources created and deleted inside the window
	// of changes (or deleted before they were copied): nothing to do.
	Vanished int
	// SkippedChanges counts the changes before the copy's point or already
	// processed by an earlier run.
	SkippedChanges int
	// SuspectDatetimes counts the changes whose datetime cannot be true:
	// before their list's from, after its until, or in the future. Those
	// after until or in the future are applied by their place in the list,
	// their datetimes not recorded (dest/plan.Changes); a warning names the
	// first of each list.
	SuspectDatetimes int
	// Bytes is the declared length of what is to be fetched; UnknownBytes
	// counts the resources to fetch that declare none.
	Bytes        int64
	UnknownBytes int
	// Documents and Entries count what was read from the Source.
	Documents int
	Entries   int64
	// A reconcile's checks of the copy (Plan.Reconcile): Checked files
	// looked at, Hashed of them read and hashed (HashedBytes), and Repair
	// found missing or different, so fetched again (counted in Update).
	Checked, Hashed, Repair int
	HashedBytes             int64
	// Trash counts the stray files the run moves to the trash, Protected
	// the files of the Source's part the protect list keeps (when the
	// plan looked for stray files: Plan.StrayLooked).
	Trash, Protected int
}

// Work is how many resources the run acts on (creates, updates, deletes).
func (s Summary) Work() int { return s.Create + s.Update + s.Delete }

// ListRead is a Change List (or a Change Dump package) the plan read.
type ListRead struct {
	URL         string
	Kind        string // changelist or changedump
	From, Until time.Time
	Entries     int
	Skipped     int  // changes before the copy's point or processed earlier
	OutOfOrder  int  // changes not in forward chronological order
	Suspect     int  // changes whose datetime cannot be true (Summary.SuspectDatetimes)
	Unchanged   bool // the open list had not changed since the last run (not read again)
	// Archived: the list (or the Change Dump's package) came from the
	// Source's Change List Archive (Change Dump Archive).
	Archived bool
}

// ArchivedList is a closed Change List (or Change Dump) of the Source's
// Change List Archive (Change Dump Archive) that a plan reads because the
// live Change List Index (Change Dump) no longer reaches back to the copy's
// point.
type ArchivedList struct {
	URL         string
	Kind        string // changelist or changedump
	Archive     string // the archive (or archive index) that lists it
	From, Until time.Time
}

// Plan is what a run will do, decided without writing anything. Run it with
// Dest.Run; Close it when it is not run.
type Plan struct {
	Mode   Mode // ModeBaseline or ModeIncremental
	From   From // FromList or FromDump
	Source string
	// CapabilityList is the Source's Capability List ("" when the document
	// given has none above it).
	CapabilityList string
	Target         string // the URL given
	Document       string // the document read: Resource List (Index), Resource Dump, Change List (Index), Change Dump
	// Point is the copy's point before the run (zero: none yet); At is a
	// baseline's snapshot time, which becomes the point.
	Point, At time.Time
	// Resumed says that the baseline continues one that was not finished.
	Resumed bool
	// Reconcile says that the baseline checks the copy's files, not only the
	// state (a copy of the Source is there already), and Checksum that it
	// hashes every one; ReconcileWhy says why a plan of mode auto
	// reconciles ("" when it was asked for).
	Reconcile, Checksum bool
	ReconcileWhy        string
	Delete              bool
	// StrayLooked says that the plan looked for the stray files of the
	// Source's part of DEST (with Delete: a reconcile, or after an audit
	// found some); Strays lists them (the first maxListed; Summary.Trash
	// counts them all).
	StrayLooked bool
	Strays      []string
	// DeletesHeld, with PlanOptions.LimitDeletes, counts the deletions
	// (resources and stray files) the plan would have made past
	// MaxDelete: none is made, and the run fails.
	DeletesHeld int
	// Limited is how many resources PlanOptions.Only limits the plan to; 0
	// when it is not limited.
	Limited int
	Summary Summary
	// Gap is a stretch of time no Change List covers: the plan does nothing
	// and proposes a new baseline.
	Gap *plan.Gap
	// Problems are documents or packages that could not be used: the run
	// applies what could be read, but neither finishes a baseline nor marks
	// lists processed, and it fails.
	Problems []Failure
	// Refused are resources outside the Source's authority or without a
	// path (at most maxListed of them; Summary.Refused counts all).
	Refused []Failure
	// Lists are the Change Lists (or Change Dump packages) read, the first
	// maxListed of them: ListCount says how many were read, EachList gives
	// them all.
	Lists []ListRead
	// ArchivedLists are the lists of the Source's archive the plan reads,
	// in the order they are applied (before the live ones): empty when the
	// live index reaches back to the copy's point.
	ArchivedLists []ArchivedList
	// Warnings are about the Source's documents; Notes explain the plan.
	Warnings, Notes []string
	// Selection is the selection of the run; PreviousSelection is the one
	// it replaces, when the run changes it.
	Selection         state.Selection
	PreviousSelection *state.Selection
	// Channels are the notification channels the Capability List read
	// advertises (none when it advertises none, or no Capability List was
	// read).
	Channels []notify.Channel
	// Notified is how many change notifications a plan of PlanNotified
	// applies (0: a plan of the Source's documents), and NotifiedUntil how
	// far the Source's changes are known to be in the copy once it has run
	// (zero: no further than the copy's point).
	Notified      int
	NotifiedUntil time.Time

	sess    *Dest
	opts    PlanOptions
	srcID   int64
	names   []string     // the URLs the run records as the Source's names (identity.go)
	held    []state.Held // resources another Source's copy keeps out (collide.go)
	items   *spool
	strays  *runspool.List[string] // every stray file found (StrayLooked)
	protect *protectList           // the protect list the strays were found with
	pkgs    []*pkgFile
	records *runspool.List[state.ChangeList] // Change Lists to record after a run without failures
	// listsRead counts the lists read; past maxListed of them, every one
	// is in listSpool.
	listsRead int
	listSpool *runspool.List[ListRead]
	// borrowed: the spools of records and lists are another plan's (a
	// retry's): Close leaves them.
	borrowed bool
	newPoint time.Time      // synced_until after such a run
	baseline state.Baseline // the baseline, for a baseline plan
	complete bool           // everything was read: deletions decided, the run may finish the baseline or mark lists
	adopt    bool           // files already at a Create's path are verified and kept instead of fetched
	selSave  bool           // the run records Selection
	ran      atomic.Bool
	// changeList is the Source's Change List, for a baseline from its
	// Resource List: a run looks up in it the resources that changed after
	// the list's at (live.go); listed are the documents its Capability List
	// lists, which an archive must be among.
	changeList string
	listed     []listed
	// why is why a plan of mode auto chose a baseline, or that it resumes
	// one, as the run history records it (historyMode).
	why string

	// What a plan of notifications (Follow) is made with: the selection and
	// the URI → path rules of the plan it follows.
	sel    *plan.Selection
	mapper *pathmap.Mapper
	// observe, when set, is told what became of each item of the run
	// (Follow reports each change).
	observe func(observed)

	// pathsChecked: no row of the Source has a name to rename (rename.go):
	// the run records it, and later plans look no more.
	pathsChecked bool
}

// maxListed bounds the refusals and problems a plan or run keeps in memory.
const maxListed = 10000

// Items calls fn for each decision of the plan, in order (resources the
// copy already holds unchanged are counted, not listed).
func (p *Plan) Items(fn func(Item) error) error {
	if p.items == nil {
		return nil
	}
	return p.items.each(func(it *Item) error { return fn(*it) })
}

// addList notes a list read.
func (p *Plan) addList(l ListRead) {
	p.listsRead++
	if p.listSpool == nil && len(p.Lists) < p.sess.listsKept() {
		p.Lists = append(p.Lists, l)
		return
	}
	if p.listSpool == nil {
		p.listSpool = listsSpool(p.sess.st.TempDir(), p.sess.listsRun())
		for _, m := range p.Lists {
			p.listSpool.Add(m)
		}
	}
	p.listSpool.Add(l)
}

// addRecord notes the record of a list read, for the run to record.
func (p *Plan) addRecord(c state.ChangeList) {
	if p.records == nil {
		p.records = recordsSpool(p.sess.st.TempDir(), p.sess.listsRun())
	}
	p.records.Add(c)
}

// spoolErr is why the lists read or their records could not be spooled.
func (p *Plan) spoolErr() error {
	if p.records != nil && p.records.Err() != nil {
		return p.records.Err()
	}
	if p.listSpool != nil {
		return p.listSpool.Err()
	}
	return nil
}

// ListCount is how many Change Lists (or Change Dump packages) the plan
// read: Lists holds the first maxListed of them.
func (p *Plan) ListCount() int { return p.listsRead }

// EachList calls fn for every list the plan read, in order.
func (p *Plan) EachList(fn func(ListRead) error) error {
	if p.listSpool == nil {
		for _, l := range p.Lists {
			if err := fn(l); err != nil {
				return err
			}
		}
		return nil
	}
	return p.listSpool.Each(fn)
}

// eachRecord calls fn for the record of every list read.
func (p *Plan) eachRecord(fn func(state.ChangeList) error) error {
	if p.records == nil {
		return nil
	}
	return p.records.Each(fn)
}

// dropLists forgets the lists read (and closes their spools).
func (p *Plan) dropLists() {
	if !p.borrowed {
		if p.records != nil {
			p.records.Close()
		}
		if p.listSpool != nil {
			p.listSpool.Close()
		}
	}
	p.records, p.listSpool, p.Lists, p.listsRead = nil, nil, nil, 0
}

// Close removes the plan's temporary files (its spool, dump packages).
func (p *Plan) Close() error {
	var err error
	if p.items != nil {
		err = p.items.close()
	}
	if !p.borrowed {
		if p.records != nil {
			p.records.Close()
		}
		if p.listSpool != nil {
			p.listSpool.Close()
		}
	}
	if p.strays != nil {
		if cerr := p.strays.Close(); err == nil {
			err = cerr
		}
		p.strays = nil
	}
	for _, pk := range p.pkgs {
		if pk != nil {
			if cerr := pk.remove(); err == nil {
				err = cerr
			}
		}
	}
	return err
}

// builder collects a plan's items as dest/plan decides them.
type builder struct {
	s          *Dest
	p          *Plan
	sel        *plan.Selection
	mapper     *pathmap.Mapper
	mapChanged bool
	// noDeletes drops deletions (a snapshot that could not be read whole).
	noDeletes      bool
	emittedPending int
	index          *indexLoader    // an incremental plan's state, loaded in the background
	rc             *reconciler     // checks the files of unchanged resources, in a reconcile
	strays         *strayCollector // the stray files a bucket's reconcile found as it listed the copy
	emitMu         sync.Mutex      // emit is called by the planner and by rc's checkers
	capList        string          // the Source's Capability List, "" when none
	col            *collider       // the plan's paths, for the collision rule (nil: claims decide at run time)
	listed         []listed        // what it lists
	docs           atomic.Int64
	entries        atomic.Int64

	// renames are the rows whose names an older rsx wrote that the plan
	// has not met yet (rename.go).
	renames map[int64]rename
}

// Plan reads the Source of target and decides what a run would do: a
// baseline or an incremental sync (opts.Mode). Nothing is written; a dry
// run stops here. An error means the plan could not be made at all
// (unreachable or unusable target, a state that cannot be read).
func (s *Dest) Plan(ctx context.Context, target string, opts PlanOptions) (*Plan, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	s.capture.reset() // the documents kept with the run are this plan's
	if opts.Mode == "" {
		opts.Mode = ModeAuto
	}
	s.opts.report(Progress{Phase: PhaseReading})
	src, err := s.resolve(ctx, target)
	if err != nil {
		return nil, err
	}
	if err := s.identify(ctx, src, opts.OtherSources); err != nil {
		return nil, err
	}
	p := &Plan{Source: src.key, CapabilityList: src.capList, Target: target, Delete: opts.Delete, Limited: opts.Only.Len(), sess: s, opts: opts,
		Channels: channelsListed(src)}
	p.Notes = append(p.Notes, src.notes...)
	p.Warnings = append(p.Warnings, s.honourCrawlDelay(ctx, src.capListOrKey())...)
	p.names = src.names

	row, err := s.db.Source(ctx, src.key)
	exists := err == nil
	if err != nil && !errors.Is(err, state.ErrNoSource) {
		return nil, err
	}
	if exists {
		p.srcID = row.ID
		p.Point = row.Point()
	}

	// The selection: the one given replaces the stored one.
	p.Selection = row.Selection
	selChanged := false
	if opts.Selection != nil {
		given := *opts.Selection
		if exists && !row.Selection.Equal(given) {
			prev := row.Selection
			p.PreviousSelection = &prev
			selChanged = true
			p.Notes = append(p.Notes, "the selection is replaced: was "+describeSelection(prev)+", now "+describeSelection(given))
		}
		p.selSave = !exists || selChanged
		p.Selection = given
	}
	b := &builder{s: s, p: p, capList: src.capList, listed: src.listed, col: newCollider(s, p.srcID)}
	defer b.col.close()
	if b.sel, b.mapper, err = selectionOf(p.Selection, src, opts); err != nil {
		return nil, err
	}
	b.mapChanged = p.PreviousSelection != nil && !slices.Equal(p.PreviousSelection.Map, p.Selection.Map)
	if err := b.findRenames(ctx, exists); err != nil {
		return nil, err
	}

	// The mode.
	baselineDone := exists && !row.Baseline.Done.IsZero()
	// A copy of the Source is in the destination: a baseline reconciles
	// (checks the files, fetches only what is missing or differs).
	copyThere := exists
	mode := opts.Mode
	if opts.Checksum && mode == ModeIncremental {
		return nil, errors.New("--checksum hashes every file of the copy against the Resource List: a reconcile, which --mode incremental is not (use --mode baseline, or auto)")
	}
	switch mode {
	case ModeAuto:
		switch {
		case !exists || row.Baseline.Kind == "" && opts.Only == nil:
			mode = ModeBaseline
			p.why = "no baseline of this Source in the destination yet"
			p.Notes = append(p.Notes, p.why+": a baseline")
		case !baselineDone && row.Baseline.Kind != "":
			mode = ModeBaseline
			p.Notes = append(p.Notes, "the baseline begun "+model.FormatDatetime(row.Baseline.At)+" was not finished: it is continued")
		case selChanged:
			mode = ModeBaseline
			p.why = "the selection changed: a baseline, so that what it newly includes is copied"
			p.Notes = append(p.Notes, p.why)
		case opts.Only != nil:
			mode = ModeBaseline
			p.ReconcileWhy = "the chosen resources are compared with the Source's Resource List and their files checked: what is missing, damaged or changed is fetched"
		case opts.Checksum:
			mode = ModeBaseline
			p.ReconcileWhy = "--checksum: every file of the copy is hashed and compared with the Source's Resource List"
		case !row.ReconcileDue.IsZero():
			mode = ModeBaseline
			p.ReconcileWhy = "the audit of " + model.FormatDatetime(row.ReconcileDue.UTC()) + " found the copy not in sync: it is reconciled with the Source, and only what is missing, damaged or changed is fetched"
			if _, freed, err := s.db.HeldCounts(ctx, row.ID); err != nil {
				return nil, err
			} else if freed > 0 {
				p.ReconcileWhy = display.Plural(freed, "resource", "resources") + " that another Source's copy kept out (it held their paths) can be copied now: the copy is reconciled with the Source, and only what is missing, damaged or changed is fetched"
			}
		default:
			mode = ModeIncremental
		}
	case ModeIncremental:
		if !baselineDone {
			return nil, fmt.Errorf("%s has no finished baseline of %s: run a baseline first (--mode baseline, or auto)", s.st, src.key)
		}
		if selChanged {
			p.Warnings = append(p.Warnings, "the selection changed, but an incremental sync copies only what changed: run a baseline to copy what it newly includes")
		}
	}
	p.Resumed = exists && row.Baseline.Kind != "" && row.Baseline.Done.IsZero()
	if p.Resumed && p.why == "" {
		p.why = "resumed: the baseline begun " + model.FormatDatetime(row.Baseline.At) + " was not finished: it is continued, the files already written checked and kept"
	}
	if mode == ModeIncremental {
		from, doc := chooseDoc(src, opts.ChangesFrom, model.CapChangeList, model.CapChangeDump)
		if doc == "" {
			mode = ModeBaseline
			if opts.Mode == ModeAuto {
				p.ReconcileWhy = "the Source offers no Change List or Change Dump: the copy is reconciled with its Resource List"
			} else {
				p.Notes = append(p.Notes, "the Source offers no Change List or Change Dump: the copy is compared with a new baseline instead")
			}
		} else {
			p.Mode, p.From, p.Document = ModeIncremental, from, doc
		}
	}
	if mode == ModeBaseline {
		if err := s.planBaseline(ctx, p, src, opts, copyThere); err != nil {
			return nil, err
		}
	}
	if p.Mode == ModeIncremental && opts.ChangesFrom == FromDump && p.From != FromDump {
		return nil, fmt.Errorf("the Source %s offers no Change Dump: %w", src.key, errNoDocument)
	}

	if p.items, err = newSpool(s.st.TempDir()); err != nil {
		return nil, err
	}
	stopTicker := b.tick(ctx)
	if p.Mode == ModeBaseline {
		err = b.baseline(ctx, src)
	} else {
		err = b.incremental(ctx, row)
		if err == nil && p.Gap != nil && opts.Mode == ModeAuto {
			// A gap (or lists that cannot say what they cover): the copy is
			// reconciled with the Resource List, not downloaded again.
			err = b.reconcileGap(ctx, src, copyThere)
		}
	}
	stopTicker()
	if err == nil {
		err = b.finishItems(ctx)
	}
	if err == nil {
		err = b.settleCollisions(ctx)
	}
	if err == nil && opts.Delete && exists && (opts.Strays != nil || opts.Only == nil && (p.Reconcile || !row.StrayDue.IsZero())) {
		err = b.planStrays(ctx)
	}
	if err != nil {
		p.Close()
		return nil, err
	}
	p.limitDeletes()
	if p.Summary.Delete > 0 && p.protect == nil {
		// A copy the Source deleted that the protect list keeps stays.
		if p.protect, err = loadProtectList(ctx, s.st); err != nil {
			p.Close()
			return nil, err
		}
	}
	if opts.Only != nil {
		// Part of the Source: the baseline is not finished, nor are the
		// Change Lists recorded, by a run of it.
		p.complete = false
		p.Notes = append(p.Notes, "limited to "+display.Plural(opts.Only.Len(), "chosen resource", "chosen resources")+": the rest of the Source is left as it is, and a full sync is still to be made")
	}
	p.Summary.Documents = int(b.docs.Load())
	p.Summary.Entries = b.entries.Load()
	p.sel, p.mapper = b.sel, b.mapper
	if p.Mode == ModeBaseline && p.From == FromList {
		p.changeList, p.listed = src.docs[model.CapChangeList], src.listed
	}
	return p, nil
}

// selectionOf makes what decides which resources of src a run takes, and
// where their copies go: the selection's expressions, and its URI → path
// rules over the Source's authorities.
func selectionOf(sel state.Selection, src *source, opts PlanOptions) (*plan.Selection, *pathmap.Mapper, error) {
	ps, err := plan.NewSelection(sel.Include, sel.Exclude)
	if err != nil {
		return nil, nil, fmt.Errorf("selection: %w", err)
	}
	rules := make([]pathmap.Rule, 0, len(sel.Map))
	for _, m := range sel.Map {
		r, err := pathmap.ParseRule(m)
		if err != nil {
			return nil, nil, fmt.Errorf("--map: %w", err)
		}
		rules = append(rules, r)
	}
	mapper, err := pathmap.New(pathmap.Options{Authorities: src.authorities, AllowOtherHosts: opts.AllowOtherHosts, Rules: rules})
	if err != nil {
		return nil, nil, fmt.Errorf("map URIs to paths: %w", err)
	}
	return ps, mapper, nil
}

// tick reports the reading's progress until the returned func is called.
func (b *builder) tick(ctx context.Context) func() {
	if b.s.opts.Progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(b.s.opts.ProgressInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				b.s.opts.report(Progress{Phase: PhaseReading, Documents: int(b.docs.Load()), Entries: b.entries.Load()})
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// chooseDoc picks the list or the dump of a kind: the one asked for, else
// the list, else the dump.
func chooseDoc(src *source, want From, list, dump model.Capability) (From, string) {
	switch want {
	case FromList:
		return FromList, src.docs[list]
	case FromDump:
		return FromDump, src.docs[dump]
	}
	// The document given decides when it is of this kind.
	if u, ok := src.docs[list]; ok && sameURL(u, src.target) {
		return FromList, u
	}
	if u, ok := src.docs[dump]; ok && sameURL(u, src.target) {
		return FromDump, u
	}
	if u := src.docs[list]; u != "" {
		return FromList, u
	}
	if u := src.docs[dump]; u != "" {
		return FromDump, u
	}
	return FromDefault, ""
}

func sameURL(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) }

// describeSelection writes a selection for people.
func describeSelection(s state.Selection) string {
	if s.Empty() {
		return "everything"
	}
	var parts []string
	for _, v := range s.Include {
		parts = append(parts, "--include "+strconv.Quote(v))
	}
	for _, v := range s.Exclude {
		parts = append(parts, "--exclude "+strconv.Quote(v))
	}
	for _, v := range s.Map {
		parts = append(parts, "--map "+strconv.Quote(v))
	}
	return strings.Join(parts, " ")
}

// entryOf is a document entry as dest/plan reads it, with its loc resolved.
func entryOf(e *model.Entry, loc string) plan.Entry {
	pe := plan.EntryOf(e)
	pe.URI = loc
	return pe
}

// emit takes one decision of dest/plan. In a reconcile, the unchanged
// resources go to the checkers first, which hand them on as they are or as
// repairs.
func (b *builder) emit(ctx context.Context) func(plan.Item) error {
	take := b.take(ctx)
	if b.rc == nil {
		return take
	}
	return func(it plan.Item) error {
		if it.Action == plan.Unchanged && it.ID > 0 && !b.mapChanged {
			return b.rc.add(ctx, it)
		}
		return take(it)
	}
}

// take records one decision in the plan.
func (b *builder) take(ctx context.Context) func(plan.Item) error {
	sum := &b.p.Summary
	return func(it plan.Item) error {
		b.emitMu.Lock()
		defer b.emitMu.Unlock()
		item := Item{Item: it}
		switch it.Action {
		case plan.Create, plan.Update:
			if r, ok := b.renameTo(it.ID); ok {
				item.Path = r.path // a name an older rsx wrote (rename.go)
				break
			}
			if it.Action == plan.Update && it.ID > 0 && !b.mapChanged {
				// Same rules, same path: the run takes it from the row.
				break
			}
			path, err := b.mapper.Map(it.Entry.URI)
			if err != nil {
				b.refuse(it.Entry.URI, err)
				return nil
			}
			item.Path = path
		case plan.Unchanged:
			if r, ok := b.renameTo(it.ID); ok {
				item.Action, item.Path, item.Touch = plan.Update, r.path, false
				item.Reason = "renamed from " + r.row.Path + " (a name an older rsx wrote)"
				break
			}
			if b.mapChanged && it.ID > 0 {
				moved, err := b.moved(ctx, &item)
				if err != nil {
					return err
				}
				if moved {
					break
				}
			}
			sum.Unchanged++
			if !it.Touch {
				return nil
			}
			sum.Touch++
		case plan.Delete, plan.PendingDelete:
			b.renameTo(it.ID) // its file goes (or waits for --delete) where it is
			if it.Action == plan.PendingDelete {
				b.emittedPending++
			}
			if b.noDeletes {
				return nil
			}
		}
		switch item.Action {
		case plan.Create, plan.Update:
			if b.col != nil && item.Path != "" {
				if err := b.col.add(ctx, item.Entry.URI, item.Path); err != nil {
					return err
				}
			}
			if item.Action == plan.Create {
				sum.Create++
			} else {
				sum.Update++
			}
			if item.Entry.Length >= 0 {
				sum.Bytes += item.Entry.Length
			} else {
				sum.UnknownBytes++
			}
		case plan.Delete:
			sum.Delete++
		case plan.PendingDelete:
			sum.PendingDelete++
		}
		if k, _, ok := splitRef(item.Entry.Ref); ok && k < len(b.p.pkgs) {
			b.p.pkgs[k].refs.Add(1)
		}
		return b.p.items.add(&item)
	}
}

// moved turns an Unchanged item whose copy a changed --map puts elsewhere
// into an Update to the new path.
func (b *builder) moved(ctx context.Context, it *Item) (bool, error) {
	path, err := b.mapper.Map(it.Entry.URI)
	if err != nil {
		return false, nil
	}
	row, err := b.s.db.ResourceByID(ctx, it.ID)
	if err != nil {
		return false, err
	}
	if row.Path == path {
		return false, nil
	}
	it.Action, it.Path, it.Touch = plan.Update, path, false
	it.Reason = "moves from " + row.Path + " (the --map rules changed)"
	return true, nil
}

// refuse notes a resource that gets no path.
func (b *builder) refuse(uri string, err error) {
	b.p.Summary.Refused++
	var pe *pathmap.Error
	if !errors.As(err, &pe) || pe.Kind != pathmap.KindOutside {
		b.p.Summary.Unmapped++
	}
	if len(b.p.Refused) < maxListed {
		b.p.Refused = append(b.p.Refused, Failure{URL: uri, Kind: KindRefused, Err: err})
	}
}

// problem notes a document or package that could not be used.
func (b *builder) problem(url string, kind FailureKind, err error) {
	if len(b.p.Problems) < maxListed {
		b.p.Problems = append(b.p.Problems, Failure{URL: url, Kind: kind, Err: err})
	}
}

// mergeSummary takes what dest/plan counted and the builder did not.
func (b *builder) mergeSummary(ps plan.Summary) {
	sum := &b.p.Summary
	sum.Excluded += ps.Excluded
	sum.NotChosen += ps.NotChosen
	sum.Vanished += ps.Vanished
	sum.SkippedChanges += ps.Skipped
	sum.SuspectDatetimes += ps.Suspect
	// Remembered deletions that Changes counts without emitting them.
	if extra := ps.PendingDelete - b.emittedPending; extra > 0 && !b.noDeletes {
		sum.PendingDelete += extra
	}
	b.p.Warnings = append(b.p.Warnings, ps.Warnings...)
}

// splitRef reads an Entry.Ref the engine wrote for a bitstream of a dump
// package: the package's index and the manifest path.
func splitRef(ref string) (int, string, bool) {
	if ref == "" {
		return 0, "", false
	}
	k, path, ok := strings.Cut(ref, "\x00")
	if !ok {
		return 0, "", false
	}
	n, err := strconv.Atoi(k)
	if err != nil || n < 0 {
		return 0, "", false
	}
	return n, path, true
}

func makeRef(pkg int, path string) string { return strconv.Itoa(pkg) + "\x00" + path }
