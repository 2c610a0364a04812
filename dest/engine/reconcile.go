package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"rsx/claims"
	"rsx/dest/plan"
	"rsx/dest/state"
	"rsx/dest/store"
	"rsx/model"
)

// A reconcile checks the copy itself, not only the state, as rsync and
// rclone do: every resource a snapshot plan (a baseline's Resource List or
// Resource Dump) finds unchanged has its file looked at, and one that is
// missing or differs is fetched again (an Update whose Reason says why).
//
// Without --checksum a file is checked as rsync's quick check does: it must
// exist with the length recorded when it was written, and one modified since
// it was written (a folder's file whose modification time is later than the
// state's fetched_at and verified_at) is read and hashed against the digests
// recorded. With --checksum every file is read and hashed against the
// digests recorded and every digest the Source declares. The checks run in
// parallel (readers at disk speed; for a bucket, listings of the copy, see
// bucketlist.go, and a HEAD request for what they find damaged), on
// batches of items. Without --checksum, a copy is described by the row the
// plan looked its URI up in (state.Copies: its path, length and a folder's
// file time, read with the batch's other rows by a walk of their URIs'
// range, nothing held per row), so that a stat (a bucket: the listing, or
// a HEAD request) alone checks it; otherwise, and for a file to hash, the
// batch's rows are read from the state with one query (a query per item
// cost more than the stat it served).

// mtimeSlack allows for the state's clock being kept to the second and for
// the write of a file finishing after its fetched_at was taken.
const mtimeSlack = 2 * time.Second

// Items a checker takes at once: their rows are read with one query. A
// batch is checked by one worker, so the batches that read (--checksum, or
// HEAD requests to a bucket) are smaller, for the workers to share the last
// of the work.
const (
	statBatch = 256
	readBatch = 32
)

// reconciler checks the copies of the unchanged resources of a plan.
type reconciler struct {
	b        *builder
	checksum bool
	bucket   bool
	take     func(plan.Item) error // the builder's emit, for what a check decides
	ctx      context.Context

	batch   int
	pmu     sync.Mutex
	pending []plan.Item // the batch being filled
	jobs    chan []plan.Item
	wg      sync.WaitGroup
	mu      sync.Mutex
	err     error
	checked atomic.Int64
	hashed  atomic.Int64
	hbytes  atomic.Int64
	damaged atomic.Int64
	list    *copyListing       // a bucket's copy, listed (bucketlist.go); nil for a folder or --checksum
	unlist  context.CancelFunc // ends the listing
}

func newReconciler(ctx context.Context, b *builder, checksum bool, take func(plan.Item) error) *reconciler {
	rc := &reconciler{b: b, checksum: checksum, bucket: b.s.isBucket(), take: take, ctx: ctx, batch: statBatch}
	n := 2 * runtime.GOMAXPROCS(0)
	if rc.bucket || !checksum {
		// Stats and HEAD requests wait rather than compute.
		n = max(n, 16)
	}
	if rc.bucket || checksum {
		rc.batch = readBatch
	}
	if rc.bucket && !checksum {
		lctx, cancel := context.WithCancel(ctx)
		// With --delete, the plan looks for the stray files of the
		// Source's part (planStrays): the listing finds them.
		strays := b.p.Delete && b.p.opts.Strays == nil && b.p.opts.Only == nil
		rc.list, rc.unlist = listCopy(lctx, b.s, b.p.srcID, strays), cancel
		// Listed before the Source's documents are read: a reader held up
		// by checkers waiting for a slow listing (minutes at a loaded
		// server) saw its response deadline pass mid-document.
		select {
		case <-rc.list.done:
		case <-ctx.Done():
		}
	}
	rc.jobs = make(chan []plan.Item, n)
	for range n {
		rc.wg.Add(1)
		go func() {
			defer rc.wg.Done()
			buf := make([]byte, 256<<10)
			rows := make(map[int64]state.Resource, rc.batch)
			for items := range rc.jobs {
				if rc.failed() {
					continue
				}
				if err := rc.checkBatch(ctx, items, rows, buf); err != nil {
					rc.fail(err)
				}
			}
		}()
	}
	return rc
}

func (rc *reconciler) fail(err error) {
	rc.mu.Lock()
	if rc.err == nil {
		rc.err = err
	}
	rc.mu.Unlock()
}

func (rc *reconciler) failed() bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.err != nil
}

// add hands an unchanged item to the checkers, a batch at a time.
func (rc *reconciler) add(ctx context.Context, it plan.Item) error {
	rc.pmu.Lock()
	if rc.pending == nil {
		rc.pending = make([]plan.Item, 0, rc.batch)
	}
	rc.pending = append(rc.pending, it)
	var full []plan.Item
	if len(rc.pending) == rc.batch {
		full, rc.pending = rc.pending, nil
	}
	rc.pmu.Unlock()
	if full == nil {
		return nil
	}
	select {
	case rc.jobs <- full:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// wait checks the last batch, ends the checks and returns the first error.
func (rc *reconciler) wait() error {
	rc.pmu.Lock()
	last := rc.pending
	rc.pending = nil
	rc.pmu.Unlock()
	if len(last) > 0 && rc.ctx.Err() == nil {
		rc.jobs <- last // the workers take every batch until the channel is closed
	}
	close(rc.jobs)
	rc.wg.Wait()
	if rc.list != nil {
		rc.unlist()
		<-rc.list.done
		if rc.list.why != "" {
			rc.b.p.Notes = append(rc.b.p.Notes, rc.list.why)
		}
		if c := rc.list.strays; c != nil {
			// The plan's from now on (Plan.Close closes the spool).
			rc.b.strays, rc.b.p.strays, rc.list.strays = c, c.spool, nil
		}
	}
	s := &rc.b.p.Summary
	s.Checked = int(rc.checked.Load())
	s.Hashed = int(rc.hashed.Load())
	s.HashedBytes = rc.hbytes.Load()
	s.Repair = int(rc.damaged.Load())
	return rc.err
}

// checkBatch checks the copies of a batch of unchanged resources. An item
// whose copy the plan's State describes (Item.Copy: its path, length and
// file time) is checked by a stat alone; the rows of the others are read
// (into rows, reused) with one query, and so are those of quick items whose
// file was modified after it was written, to hash them against what was
// recorded.
func (rc *reconciler) checkBatch(ctx context.Context, items []plan.Item, rows map[int64]state.Resource, buf []byte) error {
	if rc.list != nil {
		var err error
		if items, err = rc.fromListing(ctx, items); err != nil || len(items) == 0 {
			return err
		}
	}
	clear(rows)
	paths := make([]string, len(items)) // the file of each item to stat; "" for none
	quick := make([]bool, len(items))
	ids := make([]int64, 0, len(items))
	for k := range items {
		it := &items[k]
		if rc.quick(&it.Copy) {
			paths[k], quick[k] = it.Copy.Path, true
			continue
		}
		ids = append(ids, it.ID)
	}
	if err := rc.readRows(ctx, ids, rows); err != nil {
		return err
	}
	for k, it := range items {
		if row, ok := rows[it.ID]; ok && !quick[k] && row.DamagedAt.IsZero() {
			paths[k] = row.Path
		}
	}
	stats := rc.statBatch(ctx, paths)
	var again []int // quick items to hash
	for k, it := range items {
		if rc.failed() {
			return nil
		}
		if quick[k] {
			row := state.Resource{ID: it.ID, Path: paths[k], Length: it.Copy.Length}
			if it.Copy.FileMTime != 0 {
				row.FileMTime = time.Unix(0, it.Copy.FileMTime).UTC()
			}
			why, modified, err := rc.quickCheck(ctx, &row, stats[k])
			if err != nil {
				return err
			}
			if modified {
				again = append(again, k)
				continue
			}
			rc.checked.Add(1)
			if err := rc.decided(it, why); err != nil {
				return err
			}
			continue
		}
		row, ok := rows[it.ID]
		if !ok {
			// No row any more: nothing to check.
			if err := rc.take(it); err != nil {
				return err
			}
			continue
		}
		if err := rc.check(ctx, it, &row, stats[k], buf); err != nil {
			return err
		}
	}
	if len(again) == 0 {
		return nil
	}
	ids = ids[:0]
	for _, k := range again {
		ids = append(ids, items[k].ID)
	}
	clear(rows)
	if err := rc.readRows(ctx, ids, rows); err != nil {
		return err
	}
	for _, k := range again {
		if rc.failed() {
			return nil
		}
		it := items[k]
		row, ok := rows[it.ID]
		if !ok {
			if err := rc.take(it); err != nil {
				return err
			}
			continue
		}
		if err := rc.check(ctx, it, &row, stats[k], buf); err != nil {
			return err
		}
	}
	return nil
}

// quick says whether the copy c describes is checked from c alone, without
// its row read again: without --checksum, a copy the plan's row describes
// (not found damaged), and with a file time recorded for a folder's (its
// quick check compares it; a row of an older state without one compares
// the times of its writing, which the row holds). A bucket's quick check
// compares the length alone: a bucket reconcile reads no row by id but
// for a copy to look at closer, as a folder's does. (It read every row
// by id, a query per batch in each of its 16 checkers: 16 connections,
// each with its page cache of up to 16 MiB, most of the 281 MiB the 1M
// cycle's bucket reconcile peaked at.)
func (rc *reconciler) quick(c *state.CopyFacts) bool {
	return !rc.checksum && c.OK && (rc.bucket || c.FileMTime != 0)
}

// readRows reads the check fields of the rows ids into rows.
func (rc *reconciler) readRows(ctx context.Context, ids []int64, rows map[int64]state.Resource) error {
	if len(ids) == 0 {
		return nil
	}
	return rc.b.s.db.CopiesByID(ctx, ids, func(r *state.Resource) error {
		rows[r.ID] = *r
		return nil
	})
}

// statResult is what a stat of a copy's file found.
type statResult struct {
	fi  store.FileInfo
	err error
}

// statBatch describes the files of a batch (paths[k] of its item k; ""
// for none): at once where the store can (a folder: store.BatchStater),
// else one by one.
func (rc *reconciler) statBatch(ctx context.Context, paths []string) []statResult {
	out := make([]statResult, len(paths))
	some := make([]string, 0, len(paths))
	at := make([]int, 0, len(paths))
	for k, p := range paths {
		if p != "" {
			some = append(some, p)
			at = append(at, k)
		}
	}
	if bs, ok := rc.b.s.st.(store.BatchStater); ok {
		bs.StatBatch(ctx, some, func(i int, fi store.FileInfo, err error) {
			out[at[i]] = statResult{fi, err}
		})
		return out
	}
	for i, p := range some {
		fi, err := rc.b.s.st.Stat(ctx, p)
		out[at[i]] = statResult{fi, err}
	}
	return out
}

// check looks at one unchanged resource's copy and hands the item on:
// unchanged when the copy is what was recorded, an Update otherwise.
func (rc *reconciler) check(ctx context.Context, it plan.Item, row *state.Resource, st statResult, buf []byte) error {
	rc.checked.Add(1)
	why, err := rc.differs(ctx, &it.Entry, row, st, buf)
	if err != nil {
		return err
	}
	return rc.decided(it, why)
}

// decided hands a checked item on: unchanged when why is "", else an
// Update that says why.
func (rc *reconciler) decided(it plan.Item, why string) error {
	if why != "" {
		rc.damaged.Add(1)
		it.Action, it.Reason, it.Touch = plan.Update, why, false
	}
	return rc.take(it)
}

// quickCheck is rsync's quick check of the copy of row, by what a stat of
// its file found: why it differs ("" when it does not seem to), and whether
// it was modified since it was written or verified (its bytes are then to
// be read).
func (rc *reconciler) quickCheck(ctx context.Context, row *state.Resource, st statResult) (string, bool, error) {
	if !row.DamagedAt.IsZero() {
		return "the audit of " + row.DamagedAt.UTC().Format(time.RFC3339) + " found the copy " + row.Path + " damaged or gone", false, nil
	}
	fi, err := st.fi, st.err
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "the copy " + row.Path + " is missing", false, nil
	case err != nil:
		if ctx.Err() != nil {
			return "", false, ctx.Err()
		}
		return "the copy " + row.Path + " cannot be read: " + err.Error(), false, nil
	}
	if row.Length >= 0 && fi.Size != row.Length {
		return fmt.Sprintf("the copy %s has %d bytes, %d were recorded", row.Path, fi.Size, row.Length), false, nil
	}
	// Modified since it was written or verified: its time differs from the
	// one recorded then (as rsync's quick check compares), or, for a row of
	// an older state that has none, is later than when it was written.
	switch {
	case rc.bucket:
		return "", false, nil
	case !row.FileMTime.IsZero():
		return "", !fi.ModTime.Equal(row.FileMTime), nil
	default:
		return "", fi.ModTime.After(latest(row.FetchedAt, row.VerifiedAt).Add(mtimeSlack)), nil
	}
}

// differs says why the copy of row is not what was recorded (or, with
// --checksum, not what the Source declares), "" when it is.
func (rc *reconciler) differs(ctx context.Context, e *plan.Entry, row *state.Resource, st statResult, buf []byte) (string, error) {
	why, modified, err := rc.quickCheck(ctx, row, st)
	if why != "" || err != nil {
		return why, err
	}
	if !rc.checksum && !modified {
		return "", nil
	}
	// Read it: against what was recorded, and with --checksum against what
	// the Source declares too.
	f, err := rc.b.s.st.Open(ctx, row.Path)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "the copy " + row.Path + " cannot be read: " + err.Error(), nil
	}
	defer f.Close()
	rec := claims.NewVerifier(claimsOf(&plan.Entry{Length: row.Length, Digests: row.Digests}), claims.Limits{Margin: -1})
	var w io.Writer = rec
	var src *claims.Verifier
	if rc.checksum {
		src = claims.NewVerifier(claimsOf(e), claims.Limits{Margin: -1})
		w = io.MultiWriter(&stopQuietly{w: src}, &stopQuietly{w: rec})
	}
	n, err := io.CopyBuffer(w, f, buf)
	rc.hashed.Add(1)
	rc.hbytes.Add(n)
	if err != nil && !errors.Is(err, claims.ErrTooLong) {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "the copy " + row.Path + " cannot be read: " + err.Error(), nil
	}
	if verr := rec.Verify(); verr != nil {
		if modified {
			return "the copy " + row.Path + " was modified after it was written: " + verr.Error(), nil
		}
		return "the copy " + row.Path + " differs from what was recorded: " + verr.Error(), nil
	}
	if src != nil {
		if verr := src.Verify(); verr != nil {
			return "the copy " + row.Path + " differs from what the Source declares: " + verr.Error(), nil
		}
	}
	return "", nil
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// snapshotState is the State a baseline plans with. A reconcile's is
// state.Copies, which holds nothing per row (the 1M cycle's bucket
// reconcile peaked at 323 MiB with the Index loaded): its rows carry the
// copies' facts (path, length, a folder's file time), so that a quick
// check of a copy is a stat (a bucket's: the listing, or a HEAD request)
// without its row read again; with --checksum the rows are read by id as
// they were with the Index.
func (b *builder) snapshotState(ctx context.Context) (plan.State, error) {
	p := b.p
	if p.Reconcile {
		return plan.ForChecks(ctx, b.s.db, p.srcID)
	}
	return plan.ForLookups(ctx, b.s.db, p.srcID, 1<<30)
}

// planBaseline makes p a baseline: the document to read, whether files
// already in the destination are adopted, and whether the copy is
// reconciled (copyThere: the destination holds a copy of the Source).
func (s *Dest) planBaseline(ctx context.Context, p *Plan, src *source, opts PlanOptions, copyThere bool) error {
	from, doc := chooseDoc(src, opts.BaselineFrom, model.CapResourceList, model.CapResourceDump)
	if doc == "" {
		if opts.BaselineFrom != FromDefault {
			return fmt.Errorf("the Source %s offers no Resource %s: %w", src.key, map[From]string{FromList: "List", FromDump: "Dump"}[opts.BaselineFrom], errNoDocument)
		}
		return fmt.Errorf("the Source %s offers no Resource List or Resource Dump: %w", src.key, errNoDocument)
	}
	p.Mode, p.From, p.Document = ModeBaseline, from, doc
	// Files already where a resource goes are verified and kept rather
	// than fetched: the rest of an interrupted run, or a copy whose state
	// was lost. A fresh folder has none to look for.
	p.adopt = p.Resumed || (!s.isBucket() && s.hasFiles(ctx))
	p.Reconcile = copyThere
	p.Checksum = opts.Checksum
	switch {
	case p.ReconcileWhy != "":
		p.Notes = append(p.Notes, p.ReconcileWhy)
	case copyThere && opts.Mode == ModeBaseline:
		p.Notes = append(p.Notes, "the destination holds a copy of this Source: it is reconciled (each file checked, only what is missing or differs is fetched)")
	}
	if copyThere && p.Checksum {
		p.Notes = append(p.Notes, "--checksum: every file is read and hashed against the digests recorded and those the Source declares")
	}
	return nil
}

// reconcileGap turns an incremental plan that found a gap into a reconcile
// with the Resource List (mode auto): what was read of the Change Lists is
// dropped, and the plan is made again as a baseline of the copy there.
func (b *builder) reconcileGap(ctx context.Context, src *source, copyThere bool) error {
	p := b.p
	gap := p.Gap
	if len(gap.Unknown) > 0 {
		p.ReconcileWhy = "the Source's Change Lists give no from (the first: " + gap.Unknown[0] + "), so they cannot prove that they hold every change since the copy's point: the copy is checked against the Resource List and its changes at each run, and only what is missing or differs is fetched"
	} else {
		p.ReconcileWhy = gap.String() + ": instead of a new baseline, the copy is reconciled with the Resource List and its changes, and only what is missing or differs is fetched"
	}
	if err := p.items.close(); err != nil {
		return err
	}
	var err error
	if p.items, err = newSpool(b.s.st.TempDir()); err != nil {
		return err
	}
	for _, pk := range p.pkgs {
		if pk != nil {
			pk.remove()
		}
	}
	p.dropLists()
	p.pkgs, p.newPoint = nil, time.Time{}
	p.Gap, p.Problems, p.ArchivedLists = nil, nil, nil
	p.Summary = Summary{}
	b.emittedPending, b.noDeletes = 0, false
	if err := b.s.planBaseline(ctx, p, src, p.opts, copyThere); err != nil {
		return err
	}
	return b.baseline(ctx, src)
}

// readCurrent reads the Source's current state, as an audit and a reconcile
// compare the copy with it: the Resource List at rl, each resource's entry
// replaced by its last change after the list's at in the Change Lists at cl
// ("" for none), the resources those lists created added and those they
// deleted left out. Every entry goes to add, from this goroutine. With
// announced, the resources changed after point are noted in it. It returns
// the list's at, and whether a Change List could not be read (what it
// announced is not known).
func (b *builder) readCurrent(ctx context.Context, rl, cl string, point time.Time, announced *uriSet, add func(plan.Entry) error) (time.Time, bool, error) {
	d, err := b.s.openDoc(ctx, rl)
	if err != nil {
		return time.Time{}, false, err
	}
	at := d.hdr.MD.At.Time
	d.Close()
	overrides := map[[2]uint64]plan.Entry{}
	keys := newURISet()
	unknown := false
	if cl != "" {
		since := at
		if !point.IsZero() && (since.IsZero() || point.Before(since)) {
			since = point
		}
		before := len(b.p.Problems)
		if announced == nil {
			announced = newURISet()
		}
		if err := b.auditChanges(ctx, cl, at, since, point, keys, overrides, announced); err != nil {
			return at, false, err
		}
		unknown = len(b.p.Problems) > before
	}
	_, err = b.readResourceList(ctx, rl, func(e plan.Entry) error {
		if _, over := overrides[keys.key(e.URI)]; over {
			return nil
		}
		return add(e)
	})
	if err != nil {
		return at, unknown, err
	}
	// The resources the lists created or changed, in URI order (the same
	// plan on every run); their entries in the Resource List were skipped
	// above. (No set of the URIs listed: it grew with the list, 40 bytes a
	// resource, and never held one of these.)
	rest := make([]plan.Entry, 0, len(overrides))
	for _, e := range overrides {
		if e.Change != model.ChangeDeleted {
			rest = append(rest, e)
		}
	}
	slices.SortFunc(rest, func(a, b plan.Entry) int { return strings.Compare(a.URI, b.URI) })
	for _, e := range rest {
		if err := add(e); err != nil {
			return at, unknown, err
		}
	}
	return at, unknown, nil
}

// endChecks waits for a reconcile's checks of the copy (once; later calls
// return nil).
func (b *builder) endChecks() error {
	if b.rc == nil {
		return nil
	}
	rc := b.rc
	b.rc = nil
	return rc.wait()
}
