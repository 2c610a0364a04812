package engine

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"rsx/dest/pathmap"
	"rsx/dest/plan"
	"rsx/dest/state"
	"rsx/dest/store"
	"rsx/display"
	runspool "rsx/internal/spool"
	"rsx/model"
)

// AuditReport compares a copy with its Source's current state.
type AuditReport struct {
	Source string
	// Document is the Resource List read, At its at; Point is the copy's
	// point (its baseline's at, or how far it was synced since).
	Document  string
	At, Point time.Time
	// Same counts the resources whose copy holds what the Source declares.
	Same int
	// Missing: resources of the Source the copy claims to hold and lacks
	// (new at the Source, yet to copy by an unfinished baseline, or whose
	// file is gone); a copy of chosen resources only claims those it has
	// (see Unselected). Changed: resources whose copy differs from what
	// the Source declares now (the Source changed them, or the copy is
	// damaged). Extra: resources of the copy the Source no longer has, and
	// the stray files of the Source's part of DEST (Stray).
	Missing, Changed, Extra []string
	// Stray are the files of Extra: inside the Source's part of DEST (the
	// folders its copies are in, stray.go), owned by no resource of any
	// Source, not kept by the protect list (DEST/.rsxignore). A sync with
	// --delete moves them to the trash. Files elsewhere in DEST (its top,
	// another Source's folders) are not the Source's, and not listed.
	Stray []string
	// Protected counts the files of the Source's part that the protect
	// list keeps: neither counted nor moved.
	Protected int
	// PendingDeletes counts the resources of Extra whose deletion at the
	// Source the copy already knows of: a sync without --delete reported
	// and remembered it, and a sync with --delete applies it.
	PendingDeletes int
	// Unannounced are the resources of Missing, Changed and Extra whose
	// difference comes from the Source (not from damage to the copy, nor
	// from a baseline not finished) and that no Change List since the
	// copy's point announced. A copy with no point has none: what it
	// missed may be older than the Change Lists read.
	Unannounced []string
	// Damaged are copies whose bytes are no longer those recorded when they
	// were written (bit rot, a hand edit): also in Changed or Missing.
	Damaged []string
	// Unverifiable are resources of which the Source declares nothing to
	// compare (no digest, length or lastmod): counted Same when the copy's
	// bytes are those recorded.
	Unverifiable []string
	Excluded     int // left out by the copy's selection
	// Unselected counts the Source's resources that a copy of chosen
	// resources only (no baseline: the explorer's marks) never chose: out
	// of its selection like Excluded, neither missing nor unannounced.
	Unselected int
	// NotChosen counts the Source's resources AuditOptions.Only left out.
	NotChosen int
	// Collisions counts the Source's resources the copy lacks because, by
	// the collision rule (collide.go), another resource of the copy holds
	// their path: a sync refuses them, so they are outside the copy, not
	// missing.
	Collisions int
	// SameURIs are the resources counted in Same, with
	// AuditOptions.ListSame (sorted).
	SameURIs []string
	// Hashed and HashedBytes count the local copies read again.
	Hashed      int
	HashedBytes int64
	Documents   int
	// Problems are the documents that could not be read: the audit is
	// incomplete (Complete is false), and NotCompared counts the copy's
	// resources that no document read lists, which may be in those.
	Problems    []Failure
	NotCompared int
	Warnings    []string
	Elapsed     time.Duration

	// spools hold the lists, with AuditOptions.Keep: the slices above then
	// hold the first Keep of each.
	spools [nAuditLists]*runspool.List[string]
}

// AuditList names one list of an AuditReport.
type AuditList int

// The lists of an AuditReport.
const (
	ListMissing AuditList = iota
	ListChanged
	ListExtra
	ListDamaged
	ListUnannounced
	ListUnverifiable
	ListSame
	ListStray
	nAuditLists
)

// list is the slice of the report that holds l.
func (r *AuditReport) list(l AuditList) *[]string {
	return [...]*[]string{&r.Missing, &r.Changed, &r.Extra, &r.Damaged, &r.Unannounced, &r.Unverifiable, &r.SameURIs, &r.Stray}[l]
}

// Len is how many entries list l has: with AuditOptions.Keep, more than its
// slice may hold.
func (r *AuditReport) Len(l AuditList) int {
	if sp := r.spools[l]; sp != nil {
		return sp.Len()
	}
	return len(*r.list(l))
}

// Each calls fn with every entry of list l, in order: from its slice, or
// read back from its spool (AuditOptions.Keep).
func (r *AuditReport) Each(l AuditList, fn func(string) error) error {
	if sp := r.spools[l]; sp != nil {
		return sp.Each(fn)
	}
	for _, u := range *r.list(l) {
		if err := fn(u); err != nil {
			return err
		}
	}
	return nil
}

// Close removes the report's spools (AuditOptions.Keep); Each reads nothing
// after it.
func (r *AuditReport) Close() error {
	var errs []error
	for l, sp := range r.spools {
		if sp != nil {
			errs = append(errs, sp.Close())
			r.spools[l] = nil
		}
	}
	return errors.Join(errs...)
}

// InSync reports whether the copy and the Source agree on everything but
// what sync keeps on purpose: the deletions at the Source that a sync
// without --delete reported and kept (PendingDeletes) are the copy's
// policy, as its selection is, not a difference; after a sync that exits
// 0, an audit of the same Source state is in sync whichever --delete it
// ran with (the command-line contract's rule).
func (r *AuditReport) InSync() bool {
	return r.Differences() == 0 && len(r.Problems) == 0
}

// Differences counts what makes the copy out of sync: the resources
// missing, changed and extra, but the kept deletions.
func (r *AuditReport) Differences() int {
	return r.Len(ListMissing) + r.Len(ListChanged) + r.Len(ListExtra) - r.PendingDeletes
}

// OutOfSelection counts the Source's resources that the copy does not
// claim to hold: left out by its selection, or never chosen.
func (r *AuditReport) OutOfSelection() int { return r.Excluded + r.Unselected + r.Collisions }

// Complete reports whether every document of the Source the audit needs
// was read: when one was not, what the report says holds for the resources
// of the documents read only.
func (r *AuditReport) Complete() bool { return len(r.Problems) == 0 }

// everything is a plan.State in which every resource exists and nothing is
// known of it: Changes.Finish then hands over each resource's last change.
type everything struct{}

func (everything) Find(_ context.Context, uris []string, found func(int, *state.Known) error) error {
	var k state.Known
	for i := range uris {
		k = state.Known{Length: -1}
		if err := found(i, &k); err != nil {
			return err
		}
	}
	return nil
}
func (everything) EachKnown(context.Context, bool, func(string, *state.Known) error) error {
	return nil
}
func (everything) EachID(context.Context, func(int64) error) error { return nil }
func (everything) FindIDs(context.Context, []int64, func(string, *state.Known) error) error {
	return nil
}
func (everything) MaxID(context.Context) (int64, error) { return 0, nil }

// uriSet is a set of URIs held as 128-bit keyed hashes.
type uriSet struct {
	k1, k2 maphash.Seed
	m      map[[2]uint64]struct{}
}

func newURISet() *uriSet {
	return &uriSet{k1: maphash.MakeSeed(), k2: maphash.MakeSeed(), m: map[[2]uint64]struct{}{}}
}

func (s *uriSet) key(u string) [2]uint64 {
	return [2]uint64{maphash.String(s.k1, u), maphash.String(s.k2, u)}
}
func (s *uriSet) add(u string)      { s.m[s.key(u)] = struct{}{} }
func (s *uriSet) has(u string) bool { _, ok := s.m[s.key(u)]; return ok }

// AuditOptions say what to compare.
type AuditOptions struct {
	// Only, when not nil, limits the comparison to these resources (those
	// of the document open in the explorer): the others are neither
	// compared nor reported, only counted (AuditReport.NotChosen). Files
	// no resource owns are reported all the same.
	Only *plan.URISet
	// ListSame keeps the resources found the same (AuditReport.SameURIs),
	// for a report that lists them; without it they are only counted.
	ListSame bool
	// AllowOtherHosts compares the resources outside the Source's
	// authority too, as a sync with --allow-other-hosts copies them;
	// without it they are out of the copy's selection (Excluded).
	AllowOtherHosts bool
	// OtherSources are the URLs the caller names other Sources of the
	// destination by (PlanOptions.OtherSources).
	OtherSources []string
	// Keep, when above 0, bounds the memory the report's lists take: each
	// slice (Missing, Changed, …) holds its first Keep entries in order,
	// and every entry goes to a temporary file in the Store's TempDir, for
	// AuditReport.Len and Each (close the report to remove it). Without
	// it the slices hold every entry.
	Keep int
	// RequireCopy refuses a destination that holds no copy of the Source
	// with a *NoCopyError naming those it holds (a mistyped URL or DEST),
	// instead of comparing an empty copy: every resource "missing".
	RequireCopy bool
}

// NoCopyError is an audit of a destination that holds no copy of the
// Source (AuditOptions.RequireCopy): Holds are the Sources it holds copies
// of, none when it holds none.
type NoCopyError struct {
	Dest   string
	Source string
	Holds  []string
}

func (e *NoCopyError) Error() string {
	if len(e.Holds) == 0 {
		return fmt.Sprintf("%s holds no copy of %s, nor of any Source", e.Dest, e.Source)
	}
	return fmt.Sprintf("%s holds no copy of %s; it holds: %s", e.Dest, e.Source, strings.Join(e.Holds, ", "))
}

// noCopy is the *NoCopyError of an audit of source, which the destination
// holds no copy of.
func (s *Dest) noCopy(ctx context.Context, source string) error {
	srcs, err := s.db.Sources(ctx)
	if err != nil {
		return err
	}
	e := &NoCopyError{Dest: s.st.String(), Source: source}
	for _, r := range srcs {
		e.Holds = append(e.Holds, r.URL)
	}
	return e
}

// Audit compares the destination's copy of the Source of target with the
// Source's current state: its Resource List, with the changes of the Change
// Lists after the list's at. Every local copy the comparison involves is
// read again and hashed (in parallel), so that damage to the copy is found,
// not only what the state says. The copy's selection applies. Checks that
// pass are recorded (state: verified_at).
func (s *Dest) Audit(ctx context.Context, target string) (*AuditReport, error) {
	return s.AuditWith(ctx, target, AuditOptions{})
}

// AuditWith is Audit with options. It goes by stages: what the copy
// claims to hold (beginAudit), the comparison of the Source's current
// resources with it and the hashing of its files (compare), the files no
// resource owns (extraFiles or the bucket's listing), the lists put in
// order (settleLists) and what was found recorded in the state (record).
func (s *Dest) AuditWith(ctx context.Context, target string, opts AuditOptions) (*AuditReport, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	ctx = withoutCapture(ctx)
	started := s.opts.Now()
	s.opts.report(Progress{Phase: PhaseReading})
	au, err := s.beginAudit(ctx, target, opts)
	if err != nil {
		return nil, err
	}
	defer au.close()
	if err := au.compare(ctx); err != nil {
		return nil, err
	}
	a, rep := au.a, au.rep
	if err := au.extras(ctx); err != nil {
		return nil, err
	}
	if err := a.settleLists(); err != nil {
		return nil, err
	}
	if err := a.record(ctx); err != nil {
		return nil, err
	}
	rep.Elapsed = s.opts.Now().Sub(started)
	au.ok = true
	return rep, nil
}

// audit is one audit under way: the Source, the copy's row and selection,
// and the auditor that sorts the resources out.
type audit struct {
	s    *Dest
	opts AuditOptions
	src  *source
	row  state.Source
	rep  *AuditReport
	a    *auditor
	b    *builder
	snap *plan.Snapshot
	// listed waits for a bucket's listing of its objects, started beside
	// the comparison (nil: a folder, walked after it).
	listed func() error
	// ok: the report is handed over (close keeps its spools).
	ok      bool
	closers []func()
}

// close frees what the audit holds, and the report's spools when it was
// not handed over.
func (au *audit) close() {
	for i := len(au.closers) - 1; i >= 0; i-- {
		au.closers[i]()
	}
	if !au.ok && au.rep != nil {
		au.rep.Close()
	}
}

// beginAudit resolves the Source and decides what the copy claims to hold:
// with a baseline (finished or not), every resource of its selection;
// without one (only chosen resources were synced), the resources it has.
// CopySelection decides it, as for whatever else shows a copy's resources
// (the explorer's :dest).
func (s *Dest) beginAudit(ctx context.Context, target string, opts AuditOptions) (*audit, error) {
	src, err := s.resolve(ctx, target)
	if err != nil {
		return nil, err
	}
	if err := s.identify(ctx, src, opts.OtherSources); err != nil {
		return nil, err
	}
	rep := &AuditReport{Source: src.key}
	rep.Warnings = append(rep.Warnings, s.honourCrawlDelay(ctx, src.capListOrKey())...)
	row, err := s.db.Source(ctx, src.key)
	if err != nil && !errors.Is(err, state.ErrNoSource) {
		return nil, err
	}
	if err != nil {
		if opts.RequireCopy {
			return nil, s.noCopy(ctx, src.key)
		}
		rep.Warnings = append(rep.Warnings, "the destination has no copy of this Source")
	}
	rep.Point = row.Point()
	cs, err := copySelectionOf(src, row, opts.AllowOtherHosts)
	if err != nil {
		return nil, err
	}
	baselineDone := !row.Baseline.Done.IsZero()
	if row.Baseline.Kind != "" && !baselineDone {
		rep.Warnings = append(rep.Warnings, "the copy's baseline is not finished: the resources it has yet to copy are missing, and not called unannounced")
	}
	rl := src.docs[model.CapResourceList]
	if rl == "" {
		return nil, fmt.Errorf("the Source %s offers no Resource List to compare the copy with: %w", src.key, errNoDocument)
	}
	rep.Document = rl
	au := &audit{s: s, opts: opts, src: src, row: row, rep: rep}
	ok := false
	defer func() {
		if !ok {
			au.close()
		}
	}()
	au.b = &builder{s: s, p: &Plan{}, sel: cs.sel, capList: src.capList}
	// The state is read a batch at a time (a View, not an Index in
	// memory), with the rows' paths and digests, so that neither the
	// look-ups nor the hashing hold anything per resource of the copy.
	rows := &auditRows{View: s.db.View(row.ID), rows: make(map[int64]auditRow, state.LookupBatch)}
	au.snap, err = plan.NewSnapshot(ctx, rows, plan.Options{Selection: cs.sel, Delete: true, Only: opts.Only, TempDir: s.st.TempDir()})
	if err != nil {
		return nil, err
	}
	au.closers = append(au.closers, func() { au.snap.Close() })
	a := &auditor{s: s, rep: rep, announced: newURISet(), srcID: row.ID, listSame: opts.ListSame, rows: rows,
		chosenOnly: cs.chosenOnly, baselineDone: baselineDone, outside: cs.outside}
	au.a = a
	tmp := s.st.TempDir()
	a.verify = runspool.NewList(tmp, "audit's intact copies", 0, appendVerified, readVerified, compareVerified)
	a.damaged = runspool.NewList(tmp, "audit's damaged copies", 0, appendID, readID, func(a, b *int64) int { return cmp.Compare(*a, *b) })
	au.closers = append(au.closers, func() { a.verify.Close() }, func() { a.damaged.Close() })
	if opts.Keep > 0 {
		a.keep = opts.Keep
		names := [nAuditLists]string{"missing resources", "changed resources", "extra resources", "damaged copies", "unannounced differences", "unverifiable resources", "same resources", "stray files"}
		for l := range rep.spools {
			rep.spools[l] = runspool.Strings(tmp, "audit's "+names[l], 0)
		}
	}
	if a.mapper, err = auditMapper(src, row.Selection); err != nil {
		return nil, err
	}
	a.det = s.db.NewDetector(s.st.CaseInsensitive())
	if row.ID != 0 {
		// The Source's part of DEST, where its stray files are looked for
		// (stray.go), and the files the operator keeps.
		if a.parts, err = s.loadParts(ctx); err != nil {
			return nil, err
		}
		if a.protect, err = loadProtectList(ctx, s.st); err != nil {
			return nil, err
		}
		a.strayDue = !row.StrayDue.IsZero()
	}
	ok = true
	return au, nil
}

// compare reads the Source's current resources (the Resource List, with
// the changes of the Change Lists after its at, and after the copy's point
// for what was announced) against the state, and hashes the copies they
// involve. A bucket's objects are listed beside it, ranges of them at once
// (listExtraFiles): a bucket's listing is a page of 1,000 objects a
// request, one after another, and the comparison's GETs do not wait for
// it. A folder is walked after the comparison (extras), which may spare
// the walk (noExtraFiles).
func (au *audit) compare(ctx context.Context) error {
	s, a, b, rep := au.s, au.a, au.b, au.rep
	cl := au.src.docs[model.CapChangeList]
	if cl == "" && au.src.docs[model.CapChangeDump] != "" {
		rep.Warnings = append(rep.Warnings, "the Source's changes are only in a Change Dump, which an audit does not read: changes since the Resource List's at are not taken into account")
	}
	ctx, fail := context.WithCancelCause(ctx)
	au.closers = append(au.closers, func() {
		fail(nil)
		if au.listed != nil {
			au.listed()
		}
	})
	if _, ok := s.st.(store.RangeWalker); ok {
		au.listed = a.listExtraFiles(ctx, fail)
	}
	a.start(ctx)
	emit := func(it plan.Item) error { return a.item(ctx, it) }
	at, unknown, err := b.readCurrent(ctx, rep.Document, cl, rep.Point, a.announced, func(e plan.Entry) error {
		if a.outside != nil && a.outside(e.URI) {
			// Outside the Source's authority: sync refuses it on purpose,
			// so it is out of the copy's selection.
			a.mu.Lock()
			rep.Excluded++
			a.mu.Unlock()
			return nil
		}
		return au.snap.Add(ctx, e, emit)
	})
	rep.At = at
	if unknown {
		a.unknownAnnouncements = true
		rep.Warnings = append(rep.Warnings, "a Change List could not be read: what it announced is not known, so no difference is called unannounced")
	}
	if err == nil {
		// The last batch, then the copy's resources that no document read
		// lists. With a document unread these may be in it: they are
		// counted as not compared, not called extra.
		a.incomplete = len(b.p.Problems) > 0
		var sum plan.Summary
		sum, err = au.snap.Finish(ctx, emit)
		rep.Excluded += sum.Excluded
		rep.NotChosen = sum.NotChosen
		rep.Warnings = append(rep.Warnings, sum.Warnings...)
	}
	if werr := a.wait(); err == nil {
		err = werr
	}
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && errors.Is(err, context.Canceled) {
			err = cause // the listing failed, which stopped the comparison
		}
		return err
	}
	rep.Problems = append(rep.Problems, b.p.Problems...)
	rep.Warnings = append(rep.Warnings, b.p.Warnings...)
	rep.Documents = int(b.docs.Load())
	return nil
}

// extras finds the files of the copy no resource owns: the bucket's
// listing started beside the comparison, or a walk of the folder.
func (au *audit) extras(ctx context.Context) error {
	if au.listed != nil {
		return au.listed()
	}
	return au.a.extraFiles(ctx)
}

// settleLists puts the report's lists in order: each sorted, or (with
// AuditOptions.Keep) the first Keep of each read back from its spool.
func (a *auditor) settleLists() error {
	rep := a.rep
	for l := range nAuditLists {
		list := rep.list(l)
		if rep.spools[l] == nil {
			sort.Strings(*list)
			continue
		}
		errEnough := errors.New("enough")
		err := rep.Each(l, func(u string) error {
			if len(*list) == a.keep {
				return errEnough
			}
			*list = append(*list, u)
			return nil
		})
		if err != nil && err != errEnough {
			return err
		}
	}
	return nil
}

// auditRow is what check needs of a row of the state: its path, what
// was recorded of its bytes, and its file's modification time then
// (mtimeRead: the look-up read file_mtime, a range's does; mtimeKnown: the
// row has one).
type auditRow struct {
	path                  string
	length                int64
	digests               state.Digests
	mtime                 int64
	mtimeRead, mtimeKnown bool
}

// sameMTime reports whether recording a copy of the row found intact with
// this modification time of its file (zero: none known, as a bucket's)
// leaves the row's file_mtime as it is (state.Writer.SetVerifiedBatch
// writes zero as NULL).
func (r *auditRow) sameMTime(mtime time.Time) bool {
	if !r.mtimeRead {
		return false // not known: the record writes it
	}
	if mtime.IsZero() {
		return !r.mtimeKnown
	}
	return r.mtimeKnown && r.mtime == mtime.UnixNano()
}

// auditRows is the State an audit plans with: a View that keeps, of each
// row its last look-up found, what check needs, so that hashing a copy
// costs no query of its own (one query per resource serialised the
// hashing workers on the database). The snapshot emits a batch's items
// right after looking it up, and the auditor copies the row into the job.
type auditRows struct {
	*state.View
	rows  map[int64]auditRow
	merge rangeFinder
	// ranged: the rows found now come from a range (auditView), with
	// their file_mtime.
	ranged bool
}

func (r *auditRows) Find(ctx context.Context, uris []string, found func(int, *state.Known) error) error {
	clear(r.rows)
	return r.merge.find(ctx, auditView{r}, uris, func(i int, k *state.Known) error {
		if d, exact := k.Digests(); exact && k.Path != "" {
			r.rows[k.ID] = auditRow{path: k.Path, length: k.Length, digests: d, mtime: k.FileMTime, mtimeRead: r.ranged, mtimeKnown: k.FileMTimeKnown}
		}
		return found(i, k)
	})
}

// auditView is the View an audit's look-ups read: its ranges with the
// columns an audit uses (state.View.EachAuditBetween), file_mtime among
// them; the rest of a batch (a list out of order) by View.Find, which does
// not read file_mtime.
type auditView struct{ r *auditRows }

func (v auditView) Find(ctx context.Context, uris []string, found func(int, *state.Known) error) error {
	return v.r.View.Find(ctx, uris, found)
}

func (v auditView) EachKnownBetween(ctx context.Context, lo, hi string, limit int, fn func(string, *state.Known) error) (int, error) {
	v.r.ranged = true
	defer func() { v.r.ranged = false }()
	return v.r.EachAuditBetween(ctx, lo, hi, limit, fn)
}

// Encodings of the spooled ids.

func appendVerified(b []byte, v *verified) []byte {
	key := v.id << 1
	if v.sameMTime {
		key |= 1
	}
	b = binary.AppendVarint(b, key)
	if v.mtime.IsZero() {
		return b
	}
	return binary.AppendVarint(b, v.mtime.UnixNano())
}

func readVerified(b []byte, v *verified) error {
	key, n := binary.Varint(b)
	if n <= 0 {
		return errors.New("a spooled verification that is not an id")
	}
	v.id, v.sameMTime, v.mtime = key>>1, key&1 == 1, time.Time{}
	if len(b) > n {
		t, m := binary.Varint(b[n:])
		if m <= 0 {
			return errors.New("a spooled verification whose time is not a number")
		}
		v.mtime = time.Unix(0, t)
	}
	return nil
}

func compareVerified(a, b *verified) int { return cmp.Compare(a.id, b.id) }

func appendID(b []byte, id *int64) []byte { return binary.AppendVarint(b, *id) }

func readID(b []byte, id *int64) error {
	v, n := binary.Varint(b)
	if n <= 0 {
		return errors.New("a spooled id that is not a number")
	}
	*id = v
	return nil
}

// auditChanges reads the Change Lists covering the time after since: the
// last change after at of each resource goes into overrides (its state now,
// over the Resource List's entry), and every resource changed after point is
// noted as announced.
func (b *builder) auditChanges(ctx context.Context, url string, at, since, point time.Time, keys *uriSet, overrides map[[2]uint64]plan.Entry, announced *uriSet) error {
	// The lists that cover the time after since (with the archive's when
	// the live ones do not reach back); past a gap, those after it.
	var lists []listRef
	from := since
	for range 8 {
		part, gap, err := b.catchUpLists(ctx, url, from, nil)
		if err != nil {
			return err
		}
		lists = append(lists, part...)
		if gap == nil {
			break
		}
		b.p.Warnings = append(b.p.Warnings, gap.String()+": what changed then and is not in the Resource List yet is not known, and differences from then are reported unannounced")
		if gap.To.IsZero() {
			break
		}
		from = gap.To
	}
	chg := plan.NewChanges(plan.ChangesOptions{Since: at, Now: b.s.opts.Now(), TempDir: b.s.st.TempDir()})
	defer chg.Close()
	for _, l := range lists {
		ld, err := b.s.openDoc(ctx, l.url)
		if err != nil {
			if cerr := ctxErr(ctx, "read "+l.url); cerr != nil {
				return cerr
			}
			b.problem(l.url, KindDocument, err)
			continue
		}
		b.docs.Add(1)
		h := ld.hdr
		info := plan.ListInfo{URL: l.url, Kind: "changelist", From: firstTime(h.MD.From.Time, l.from), Until: firstTime(h.MD.Until.Time, l.until)}
		if err := chg.BeginList(info); err != nil {
			ld.Close()
			return err
		}
		var addErr error
		_, err = ld.each(ctx, func(e *model.Entry, loc string) error {
			pe := entryOf(e, loc)
			dt := pe.Datetime
			if (dt.IsZero() && (info.Until.IsZero() || info.Until.After(point))) || (!dt.IsZero() && !dt.Before(point)) || point.IsZero() {
				announced.add(pe.URI)
			}
			addErr = chg.Add(pe)
			return addErr
		})
		ld.Close()
		if _, eerr := chg.EndList(); eerr != nil && addErr == nil {
			addErr = eerr
		}
		if addErr != nil {
			return addErr
		}
		if err != nil {
			if cerr := ctxErr(ctx, "read "+l.url); cerr != nil {
				return cerr
			}
			b.problem(l.url, KindDocument, err)
		}
	}
	sum, err := chg.Finish(ctx, everything{}, func(it plan.Item) error {
		overrides[keys.key(it.Entry.URI)] = it.Entry
		return nil
	})
	b.p.Warnings = append(b.p.Warnings, sum.Warnings...)
	return err
}

// auditor re-hashes local copies in parallel and sorts the resources out.
type auditor struct {
	s         *Dest
	rep       *AuditReport
	announced *uriSet
	srcID     int64
	listSame  bool
	// incomplete: a document could not be read, so a resource of the copy
	// that no document read lists is not known to be gone.
	incomplete bool
	// unknownAnnouncements: a Change List could not be read, so what was
	// announced is not known.
	unknownAnnouncements bool
	// chosenOnly: the copy holds chosen resources only (it has no
	// baseline), so a resource it lacks is out of its selection.
	// baselineDone: its baseline is finished, so a resource it lacks was
	// new at the Source after it (else it may be one yet to copy).
	chosenOnly, baselineDone bool
	// outside reports a URI that sync refuses as outside the Source's
	// authority (nil: none is).
	outside func(uri string) bool
	// mapper and det find the resources the copy lacks because another
	// holds their path (loses).
	mapper  *pathmap.Mapper
	det     *state.Detector
	lookups int // of det (the emitting goroutine's)
	// rows has the rows of the batch the snapshot looked up last.
	rows *auditRows
	// keep: the report's lists are spooled (AuditOptions.Keep).
	keep int
	// extraURIs counts the resources of Extra (the rest are paths).
	extraURIs int
	// parts are the parts of DEST each Source's copies are in, protect
	// the files the operator keeps (nil: the DEST holds no copy of the
	// Source, so nothing is its stray file); strayDue: the state says an
	// audit found stray files before.
	parts    *destParts
	protect  *protectList
	strayDue bool

	jobs    chan auditJob
	wg      sync.WaitGroup
	mu      sync.Mutex
	hashed  atomic.Int64
	opened  atomic.Int64 // files opened (each of a resource of its own)
	bytes   atomic.Int64
	verify  *runspool.List[verified] // rows whose bytes were found intact
	damaged *runspool.List[int64]    // rows whose copy is damaged or gone
	jobsErr error
	// folders has the files the workers opened, by folder.
	folders openedFolders
}

// auditJob is a copy to hash: the snapshot's item and its row (when the
// look-up kept it; else check reads it).
type auditJob struct {
	it    plan.Item
	row   auditRow
	found bool
}

func (a *auditor) start(ctx context.Context) {
	n := max(4, 2*runtime.GOMAXPROCS(0))
	// A batch of look-ups ahead: the workers hash while the next batch
	// is looked up in the state.
	a.jobs = make(chan auditJob, state.LookupBatch)
	for range n {
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			w := &auditWorker{hasher: newCopyHasher(256 << 10), open: a.s.st.Open}
			if fo, ok := a.s.st.(store.FileOpeners); ok {
				// A folder: each worker keeps the folder of its last
				// file open (the jobs come in the order of their URIs,
				// which most often share their folders).
				o := fo.NewFileOpener()
				defer o.Close()
				w.open = o.Open
			}
			w.dirs = map[string]int64{}
			for job := range a.jobs {
				if err := a.check(ctx, job, w); err != nil {
					a.mu.Lock()
					if a.jobsErr == nil {
						a.jobsErr = err
					}
					a.mu.Unlock()
				}
			}
			a.mu.Lock()
			a.folders.merge(w.dirs)
			a.mu.Unlock()
		}()
	}
}

// wait ends the re-hashing and records the copies found intact.
func (a *auditor) wait() error {
	close(a.jobs)
	a.wg.Wait()
	a.rep.Hashed, a.rep.HashedBytes = int(a.hashed.Load()), a.bytes.Load()
	if a.jobsErr != nil {
		return a.jobsErr
	}
	return nil
}

// record keeps what the audit found in the state: the copies found intact
// (verified_at), those found damaged or gone (damaged_at: the next sync
// fetches them again) and, when the copy is not in sync, that the next sync
// reconciles it (reconcile_due), so that whatever an audit finds, the next
// sync puts right.
func (a *auditor) record(ctx context.Context) error {
	// A reconcile is due for what an incremental sync would not put right:
	// damage to the copy, and differences no Change List announced (or
	// any difference, when what was announced is not known). Changes the
	// lists announce are the next incremental sync's.
	r := a.rep
	differs := r.Len(ListMissing)+r.Len(ListChanged)+a.extraURIs-r.PendingDeletes > 0
	due := a.srcID > 0 && (r.Len(ListDamaged)+r.Len(ListUnannounced) > 0 || (a.unknownAnnouncements && differs))
	// Stray files found: the next sync with --delete looks for them;
	// none (their folders all listed): it need not.
	strays := r.Len(ListStray) > 0
	markStray := a.srcID > 0 && a.parts != nil && strays != a.strayDue
	if a.verify.Len() == 0 && a.damaged.Len() == 0 && !due && !markStray {
		return nil
	}
	if err := errors.Join(a.verify.Err(), a.damaged.Err()); err != nil {
		return err
	}
	if a.s.ReadOnly() {
		// A read-only DEST (a read-only mount, a snapshot) is audited all
		// the same: what would have been recorded is said instead.
		a.rep.Warnings = append(a.rep.Warnings, a.notRecorded("the destination was opened read-only", due, markStray && strays))
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	o := a.s.writerOptions(nil)
	if !a.s.isBucket() && o.BatchSize <= 0 {
		// A commit (an fsync of the log, and of DEST) every
		// recordBatch rows, not every state.DefaultBatchSize: what
		// an audit records is all of one kind and redone by the next
		// audit when a kill loses it. (A bucket's batch is already
		// larger: each commit is published.)
		o.BatchSize = recordBatch
	}
	w := a.s.db.NewWriter(o)
	now := a.s.opts.Now()
	// Read back from the spools in id order (neighbouring rows share
	// pages of the database).
	err := a.recordVerified(ctx, w, now)
	if err == nil {
		// A statement per few hundred rows too (SetDamagedBatch): a
		// tenth of a copy gone is as many rows.
		ids := make([]int64, 0, 1000)
		err = a.damaged.Each(func(id int64) error {
			if ids = append(ids, id); len(ids) == cap(ids) {
				err := w.SetDamagedBatch(ctx, ids, now)
				ids = ids[:0]
				return err
			}
			return nil
		})
		if err == nil {
			err = w.SetDamagedBatch(ctx, ids, now)
		}
	}
	if err != nil {
		w.Abort()
		return err
	}
	if due {
		if err := w.SetReconcileDue(ctx, a.srcID, now); err != nil {
			w.Abort()
			return err
		}
	}
	if markStray {
		at := now
		if !strays {
			at = time.Time{}
		}
		if err := w.SetStrayDue(ctx, a.srcID, at); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close(ctx)
}

// recordVerified records the copies found intact (the verify spool, read
// in id order): each run of consecutive ids whose rows hold their files'
// modification times already is one statement that sets verified_at over
// the range (state.Writer.SetVerifiedRange: every id of it is a row found
// intact, so the range says nothing of any other), the others a few
// hundred rows a statement with their times (SetVerifiedBatch).
func (a *auditor) recordVerified(ctx context.Context, w *state.Writer, now time.Time) error {
	batch := make([]state.Verified, 0, 1000)
	flush := func() error {
		err := w.SetVerifiedBatch(ctx, batch, now)
		batch = batch[:0]
		return err
	}
	var lo, hi int64
	inRun := false
	endRun := func() error {
		if !inRun {
			return nil
		}
		inRun = false
		return w.SetVerifiedRange(ctx, lo, hi, now)
	}
	err := a.verify.Each(func(v verified) error {
		if !v.sameMTime {
			if batch = append(batch, state.Verified{ID: v.id, FileMTime: v.mtime}); len(batch) == cap(batch) {
				return flush()
			}
			return nil
		}
		switch {
		case inRun && v.id >= lo && v.id <= hi:
			return nil // the same row twice: in the range already
		case inRun && v.id == hi+1:
			hi = v.id
			return nil
		}
		if err := endRun(); err != nil {
			return err
		}
		lo, hi, inRun = v.id, v.id, true
		return nil
	})
	if err == nil {
		err = endRun()
	}
	if err == nil {
		err = flush()
	}
	return err
}

// recordBatch is how many rows of an audit's record a commit holds in a
// folder.
const recordBatch = 100_000

// notRecorded says what record did not keep in the state, and why.
func (a *auditor) notRecorded(why string, due, stray bool) string {
	var what []string
	if n := a.verify.Len(); n > 0 {
		what = append(what, display.Plural(n, "copy", "copies")+" found intact not marked verified (verified_at)")
	}
	if n := a.damaged.Len(); n > 0 {
		what = append(what, display.Plural(n, "copy", "copies")+" found damaged or gone not marked damaged (damaged_at)")
	}
	if due {
		what = append(what, "the next sync not marked to reconcile the copy (reconcile_due)")
	}
	if stray {
		what = append(what, "the next sync with --delete not marked to look for stray files (stray_due)")
	}
	return "nothing recorded in the state (" + why + "): " + strings.Join(what, "; ")
}

// add adds uri to list l of the report: to its spool (AuditOptions.Keep),
// or its slice. The URI is copied: the one of an entry shares the memory of
// every entry its document part decoded (model's arena), which a URI kept
// would keep whole (28 MB of parts held by 8,000 URIs at 80,008 resources).
func (a *auditor) add(l AuditList, uri string) {
	uri = strings.Clone(uri)
	a.mu.Lock()
	if sp := a.rep.spools[l]; sp != nil {
		sp.Add(uri)
	} else {
		list := a.rep.list(l)
		*list = append(*list, uri)
	}
	a.mu.Unlock()
}

// item sorts one decision of the snapshot plan out.
func (a *auditor) item(ctx context.Context, it plan.Item) error {
	uri := it.Entry.URI
	switch it.Action {
	case plan.Create:
		if a.chosenOnly {
			a.mu.Lock()
			a.rep.Unselected++
			a.mu.Unlock()
			return nil
		}
		if lost, err := a.loses(ctx, uri); err != nil {
			return err
		} else if lost {
			a.mu.Lock()
			a.rep.Collisions++
			a.mu.Unlock()
			return nil
		}
		a.add(ListMissing, uri)
		if a.baselineDone && a.unannounced(uri) {
			a.add(ListUnannounced, uri)
		}
	case plan.Delete, plan.PendingDelete:
		if a.incomplete {
			a.mu.Lock()
			a.rep.NotCompared++
			a.mu.Unlock()
			return nil
		}
		a.add(ListExtra, uri)
		a.mu.Lock()
		a.extraURIs++
		a.mu.Unlock()
		if a.pending(ctx, it.ID) {
			a.mu.Lock()
			a.rep.PendingDeletes++
			a.mu.Unlock()
		} else if a.unannounced(uri) {
			a.add(ListUnannounced, uri)
		}
	case plan.Update, plan.Unchanged:
		job := auditJob{it: it}
		job.row, job.found = a.rows.rows[it.ID]
		select {
		case a.jobs <- job:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// auditMapper maps URIs to paths as the copy's syncs do (its --map rules;
// every host, since only the paths matter here).
func auditMapper(src *source, sel state.Selection) (*pathmap.Mapper, error) {
	rules := make([]pathmap.Rule, 0, len(sel.Map))
	for _, m := range sel.Map {
		r, err := pathmap.ParseRule(m)
		if err != nil {
			return nil, fmt.Errorf("the stored --map: %w", err)
		}
		rules = append(rules, r)
	}
	return pathmap.New(pathmap.Options{Authorities: src.authorities, AllowOtherHosts: true, Rules: rules})
}

// loses reports whether a resource the copy lacks loses its path to a
// resource of the copy by the collision rule (collide.go): a sync refuses
// it. One that would win is missing: a sync takes the path over.
func (a *auditor) loses(ctx context.Context, uri string) (bool, error) {
	path, err := a.mapper.Map(uri)
	if err != nil {
		return false, nil
	}
	if a.lookups++; a.lookups == preloadClaims {
		// Many resources lacking (a baseline not finished): the state's
		// paths in memory spare the queries of those no path holds.
		if err := a.det.Preload(ctx); err != nil {
			return false, err
		}
	}
	hs, err := a.det.Holders(ctx, a.srcID, uri, path)
	if err != nil {
		return false, err
	}
	for _, h := range hs {
		switch {
		case h.Below, h.SourceID != a.srcID:
			return true, nil
		case h.Kind != state.FileFolder && !h.Deleted && h.URI < uri:
			return true, nil
		}
	}
	return false, nil
}

// unannounced reports whether a difference of uri that comes from the
// Source is unannounced: the copy has a point, every Change List since
// could be read, and none announced it. (Without a point, the changes the
// copy missed may be older than the Change Lists read.)
func (a *auditor) unannounced(uri string) bool {
	return !a.unknownAnnouncements && !a.rep.Point.IsZero() && !a.announced.has(uri)
}

// pending reports whether a row waits for its deletion: the copy knows the
// Source deleted it.
func (a *auditor) pending(ctx context.Context, id int64) bool {
	r, err := a.s.db.ResourceByID(ctx, id)
	return err == nil && r.Pending()
}

// auditWorker is what a worker of the audit keeps from one copy to the
// next.
type auditWorker struct {
	hasher *copyHasher
	open   func(context.Context, string) (io.ReadCloser, error)
	// dirs counts the files opened in each folder (openedFolders), up
	// to maxOpenedFolders folders; nil past them, or after a path that is
	// not clean.
	dirs map[string]int64
}

// check hashes one local copy and compares it with what the Source declares
// and with what was recorded.
func (a *auditor) check(ctx context.Context, job auditJob, w *auditWorker) error {
	it := &job.it
	e := &it.Entry
	row := job.row
	if !job.found {
		r, err := a.s.db.ResourceByID(ctx, it.ID)
		if err != nil {
			return err
		}
		row = auditRow{path: r.Path, length: r.Length, digests: r.Digests}
	}
	id := it.ID
	sourceChanged := it.Action == plan.Update
	f, err := w.open(ctx, row.path)
	if err != nil {
		a.add(ListMissing, e.URI)
		a.add(ListDamaged, e.URI)
		a.markDamaged(id)
		return nil
	}
	a.opened.Add(1)
	w.noteOpened(row.path)
	var mtime time.Time
	if st, ok := f.(interface{ Stat() (fs.FileInfo, error) }); ok && a.s.st.Features().ModTimes {
		if fi, err := st.Stat(); err == nil {
			mtime = fi.ModTime()
		}
	}
	// The copy is judged against what the Source declares and what was
	// recorded, each digest computed once. It is read to its end, or to
	// past the longer of the two lengths when both are known (it then
	// matches neither).
	h := w.hasher
	defer h.done()
	h.use(e.Digests)
	h.use(row.digests)
	most := int64(-1)
	if e.Length >= 0 && row.length >= 0 {
		most = max(e.Length, row.length)
	}
	err = h.read(f, most)
	f.Close()
	a.hashed.Add(1)
	a.bytes.Add(h.n)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		a.add(ListMissing, e.URI)
		a.add(ListDamaged, e.URI)
		a.markDamaged(id)
		return nil
	}
	srcOK := h.matches(e.Length, e.Digests)
	intact := h.matches(row.length, row.digests)
	if intact {
		v := verified{id: id, mtime: mtime, sameMTime: job.found && row.sameMTime(mtime)}
		a.mu.Lock()
		a.verify.Add(v)
		a.mu.Unlock()
	}
	digest := hasSupportedDigest(e.Digests)
	declared := digest || e.Length >= 0 || !e.Lastmod.IsZero()
	var same bool
	switch {
	case !declared:
		a.add(ListUnverifiable, e.URI)
		same = intact
		sourceChanged = false
	case digest:
		same = srcOK
		sourceChanged = sourceChanged && !same
	default:
		// A length, a lastmod: the bytes can only be told by them and by
		// what was recorded.
		same = srcOK && intact && !sourceChanged
	}
	if same {
		a.mu.Lock()
		a.rep.Same++
		a.mu.Unlock()
		if a.listSame {
			a.add(ListSame, e.URI)
		}
		return nil
	}
	a.add(ListChanged, e.URI)
	if !intact {
		a.add(ListDamaged, e.URI)
		a.markDamaged(id)
	}
	if sourceChanged && a.unannounced(e.URI) {
		a.add(ListUnannounced, e.URI)
	}
	return nil
}

// verified is a copy an audit found intact, and its file's modification
// time then; sameMTime: the row holds that time already (auditRow.sameMTime).
type verified struct {
	id        int64
	mtime     time.Time
	sameMTime bool
}

func (a *auditor) markDamaged(id int64) {
	a.mu.Lock()
	a.damaged.Add(id)
	a.mu.Unlock()
}

// stopQuietly is a writer that stops writing to w at its first error but
// takes every byte, so that the writers beside it in a MultiWriter go on.
type stopQuietly struct {
	w   io.Writer
	err error
}

func (s *stopQuietly) Write(p []byte) (int, error) {
	if s.err == nil {
		_, s.err = s.w.Write(p)
	}
	return len(p), nil
}

// extraFiles finds the stray files of the Source's part of DEST (the
// folders its copies are in): files there that no resource of any Source
// owns and the protect list does not keep.
func (a *auditor) extraFiles(ctx context.Context) error {
	if a.parts == nil {
		return nil
	}
	if none, err := a.noExtraFiles(ctx); err != nil || none {
		return err
	}
	x := a.newStrayFinder()
	if err := x.walk(ctx); err != nil {
		return err
	}
	a.noteProtected(x)
	return nil
}

// newStrayFinder finds the audit's stray files, each added to the extra
// files and the stray ones.
func (a *auditor) newStrayFinder() *strayFinder {
	return a.s.newStrayFinder(a.srcID, a.parts, a.protect, func(p string) error {
		a.add(ListExtra, p)
		a.add(ListStray, p)
		return nil
	})
}

func (a *auditor) noteProtected(x *strayFinder) {
	a.mu.Lock()
	a.rep.Protected += x.protected
	a.mu.Unlock()
}

// listExtraFiles starts finding the extra objects of a bucket: its listing
// of the Source's part by ranges (listByRanges), the paths it lists looked
// up in the state a batch at a time by one goroutine (one connection to the state: each
// holds a page cache of its own, which the look-ups would fill). It runs
// beside the comparison; a failure stops the audit (fail). The function
// returned waits for the listing and returns its error; it may be called
// again.
func (a *auditor) listExtraFiles(ctx context.Context, fail context.CancelCauseFunc) func() error {
	done := make(chan error, 1)
	go func() {
		err := a.listRanges(ctx)
		if err != nil {
			fail(err)
		}
		done <- err
	}()
	var once sync.Once
	var err error
	return func() error {
		once.Do(func() { err = <-done })
		return err
	}
}

// listRanges lists the Source's part of the bucket (listByRanges) and
// finds its stray files.
func (a *auditor) listRanges(ctx context.Context) error {
	if a.parts == nil {
		return nil // no copy of the Source: nothing is its stray file
	}
	x := a.newStrayFinder()
	err := listByRanges(ctx, a.s.db, a.s.st, a.parts.of[a.srcID], func(batch []store.FileInfo) error {
		for _, fi := range batch {
			x.batch = append(x.batch, fi.Path)
		}
		return x.flush(ctx)
	})
	if err != nil {
		return err
	}
	a.noteProtected(x)
	return nil
}

// noExtraFiles reports whether the destination's files are those the audit
// opened, by their number, so that no path of the copy needs looking up in
// the state: the common case of an audit of the whole copy of the only
// Source of a folder, intact or with files gone. The files opened are
// distinct files of the walk when no two resources share a path (nor their
// files one name, in a folder that tells case) and each resource was
// opened once (the snapshot emits a resource once); then as many files
// walked as opened are the same files. A bucket is not counted (its second
// listing would cost more than the look-ups).
func (a *auditor) noExtraFiles(ctx context.Context) (bool, error) {
	if a.s.isBucket() || a.s.st.CaseInsensitive() {
		return false, nil
	}
	opened := a.opened.Load()
	if opened == 0 {
		return false, nil
	}
	distinct, err := a.s.db.PathsDistinct(ctx)
	if err != nil || !distinct {
		return false, err
	}
	if nc, ok := a.s.st.(store.NameCounter); ok {
		// The folders the files opened are in, by their names alone.
		if only, err := a.folders.only(ctx, nc, a.parts.of[a.srcID]); err != nil || only {
			return only, err
		}
	}
	var files int64
	if fc, ok := a.s.st.(store.FileCounter); ok {
		files, err = fc.CountFiles(ctx)
	} else {
		err = a.s.st.Walk(ctx, func(store.FileInfo) error { files++; return nil })
	}
	if err != nil {
		return false, err
	}
	return files == opened, nil
}

// outsideOf returns what tells a URI that a sync with these map rules
// refuses as outside the Source's authority, nil when none is (with
// --allow-other-hosts, or when the rules cannot be read: then nothing is
// left out).
func outsideOf(src *source, maps []string, allowOtherHosts bool) func(string) bool {
	if allowOtherHosts {
		return nil
	}
	rules := make([]pathmap.Rule, 0, len(maps))
	for _, m := range maps {
		r, err := pathmap.ParseRule(m)
		if err != nil {
			return nil
		}
		rules = append(rules, r)
	}
	m, err := pathmap.New(pathmap.Options{Authorities: src.authorities, Rules: rules})
	if err != nil {
		return nil
	}
	return m.Outside
}
