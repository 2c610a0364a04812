package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"rsx/dest/pathmap"
	"rsx/dest/state"
	"rsx/dest/store"
	runspool "rsx/internal/spool"
)

// Stray files. A file of DEST is a Source's business only inside the
// Source's part of DEST (destParts): the folders its copies are in. Inside
// it, a file that no resource of any Source owns (no row of the state has
// its path) and that the protect list (ProtectFile) does not keep is
// stray: an audit reports it (extra), and a sync with --delete moves it to
// the trash (DEST/.rsx/trash/, store.Trasher), as rsync --delete removes
// what the source does not have. A file elsewhere in DEST (its top,
// another Source's folders) is not the Source's, and never counted against
// it nor moved.

// ProtectFile is the protect list, at DEST's top: files an operator keeps
// in the copy on purpose, in gitignore syntax, paths relative to DEST. An
// audit does not count them, and a sync never deletes or moves them. The
// list itself is always kept.
const ProtectFile = ".rsxignore"

// maxProtectFile bounds the protect list: a longer one is refused.
const maxProtectFile = 1 << 20

// protectList is the patterns of ProtectFile (github.com/go-git/go-git's
// gitignore matcher: the syntax of git's own, with ** and ! and a trailing
// / for folders).
type protectList struct {
	m        gitignore.Matcher // nil: no list
	patterns int
}

// loadProtectList reads DEST's protect list; a DEST without one keeps
// nothing but what its own folders hold. A list that cannot be read is an
// error: the files it protects would be taken for stray.
func loadProtectList(ctx context.Context, st store.Store) (*protectList, error) {
	r, err := st.Open(ctx, ProtectFile)
	if errors.Is(err, fs.ErrNotExist) {
		return &protectList{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the protect list %s of %s: %w", ProtectFile, st, err)
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxProtectFile+1))
	if err != nil {
		return nil, fmt.Errorf("read the protect list %s of %s: %w", ProtectFile, st, err)
	}
	if len(b) > maxProtectFile {
		return nil, fmt.Errorf("the protect list %s of %s is larger than %d bytes: refused", ProtectFile, st, maxProtectFile)
	}
	return parseProtectList(string(b)), nil
}

// parseProtectList reads the lines of a protect list: blank lines and
// those starting with # are none.
func parseProtectList(text string) *protectList {
	var ps []gitignore.Pattern
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, nil))
	}
	if len(ps) == 0 {
		return &protectList{}
	}
	return &protectList{m: gitignore.NewMatcher(ps), patterns: len(ps)}
}

// keeps reports whether the protect list keeps the file at p (a path of
// DEST, "/"-separated).
func (l *protectList) keeps(p string) bool {
	if p == ProtectFile {
		return true
	}
	return l != nil && l.m != nil && l.m.Match(strings.Split(p, "/"), false)
}

// destParts are the parts of DEST the Sources' copies are in. A Source's
// part is, for each first folder its copies are in (a host's, or a --map
// folder's), the deepest folder that holds them all and the place of its
// own URL (its Capability List's folder) when that is in the same first
// folder; and each of its --map folders whole. A file is the business of
// the Source whose part is the deepest that holds it (two Sources with the
// same folder share it).
type destParts struct {
	owners map[string][]int64 // folder ("" for DEST's top) → the Sources whose part it is
	of     map[int64][]string // each Source's folders, sorted, none inside another
}

// loadParts reads the parts of every Source of the state (one read of
// every row: state.DB.PathGroups).
func (s *Dest) loadParts(ctx context.Context) (*destParts, error) {
	groups, err := s.db.PathGroups(ctx)
	if err != nil {
		return nil, err
	}
	srcs, err := s.db.Sources(ctx)
	if err != nil {
		return nil, err
	}
	bySource := map[int64][]state.PathGroup{}
	for _, g := range groups {
		bySource[g.SourceID] = append(bySource[g.SourceID], g)
	}
	d := &destParts{owners: map[string][]int64{}, of: map[int64][]string{}}
	for _, src := range srcs {
		folders := sourceFolders(src, bySource[src.ID])
		d.of[src.ID] = folders
		for _, f := range folders {
			d.owners[f] = append(d.owners[f], src.ID)
		}
	}
	return d, nil
}

// sourceFolders are the folders of a Source's part (destParts) from the
// ranges of its copies' paths.
func sourceFolders(src state.Source, groups []state.PathGroup) []string {
	if len(groups) == 0 {
		return nil
	}
	var rules []pathmap.Rule
	var folders []string
	for _, m := range src.Selection.Map {
		if r, err := pathmap.ParseRule(m); err == nil {
			rules = append(rules, r)
			folders = append(folders, r.Dir)
		}
	}
	home, haveHome := "", false
	if m, err := pathmap.New(pathmap.Options{AllowOtherHosts: true, Rules: rules}); err == nil {
		if p, err := m.Map(src.URL); err == nil {
			home, haveHome = path.Dir(p), true
		}
	}
	for _, g := range groups {
		f := commonFolder(g.Min, g.Max)
		if haveHome && home != "." && firstName(home) == firstName(g.Min) {
			f = commonFolder(f+"/", home+"/")
		}
		folders = append(folders, f)
	}
	return outermost(folders)
}

// commonFolder is the deepest folder that holds the paths a and b ("" for
// DEST's top): of every path between them too, in byte order.
func commonFolder(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	if i := strings.LastIndexByte(a[:n], '/'); i >= 0 {
		return a[:i]
	}
	return ""
}

func firstName(p string) string {
	first, _, _ := strings.Cut(p, "/")
	return first
}

// outermost sorts folders and drops those inside another.
func outermost(folders []string) []string {
	slices.Sort(folders)
	folders = slices.Compact(folders)
	var out []string
	for _, f := range folders {
		if !slices.ContainsFunc(out, func(o string) bool { return inFolder(f, o) }) {
			out = append(out, f)
		}
	}
	return out
}

// inFolder reports whether p is folder or inside it ("" is DEST's top).
func inFolder(p, folder string) bool {
	return folder == "" || p == folder || strings.HasPrefix(p, folder+"/")
}

// owns reports whether the file at p is Source id's business: the deepest
// part that holds it is the Source's.
func (d *destParts) owns(id int64, p string) bool {
	if d == nil {
		return false
	}
	for dir := path.Dir(p); ; dir = path.Dir(dir) {
		key := dir
		if dir == "." {
			key = ""
		}
		if ids, ok := d.owners[key]; ok {
			return slices.Contains(ids, id)
		}
		if dir == "." || dir == "/" {
			return false
		}
	}
}

// strayFinder finds the stray files of one Source's part of DEST: of the
// paths given (add), those inside the Source's part that the protect list
// does not keep are looked up in the state a batch at a time, and those no
// row of any Source has are handed to stray.
type strayFinder struct {
	s       *Dest
	srcID   int64
	parts   *destParts
	protect *protectList
	stray   func(p string) error
	batch   []string
	held    []bool
	// protected counts the files of the part the protect list keeps;
	// strays those found stray.
	protected, strays int
}

func (s *Dest) newStrayFinder(srcID int64, parts *destParts, protect *protectList, stray func(string) error) *strayFinder {
	return &strayFinder{s: s, srcID: srcID, parts: parts, protect: protect, stray: stray,
		batch: make([]string, 0, state.LookupBatch), held: make([]bool, state.LookupBatch)}
}

// folders are the folders of the Source's part.
func (f *strayFinder) folders() []string { return f.parts.of[f.srcID] }

// add takes the path of a file of DEST.
func (f *strayFinder) add(ctx context.Context, p string) error {
	f.batch = append(f.batch, p)
	if len(f.batch) == cap(f.batch) {
		return f.flush(ctx)
	}
	return nil
}

// flush looks the batch's paths of the part up in the state, and hands on
// those no resource owns.
func (f *strayFinder) flush(ctx context.Context) error {
	ours := f.batch[:0]
	for _, p := range f.batch {
		if !f.parts.owns(f.srcID, p) {
			continue
		}
		if f.protect.keeps(p) {
			f.protected++
			continue
		}
		ours = append(ours, p)
	}
	f.batch = ours
	if len(f.batch) == 0 {
		return nil
	}
	find := f.s.db.FindPaths
	if fp := f.s.opts.findPaths; fp != nil {
		find = fp
	}
	clear(f.held)
	if err := find(ctx, f.batch, func(i int) error { f.held[i] = true; return nil }); err != nil {
		return err
	}
	for i, p := range f.batch {
		if !f.held[i] {
			f.strays++
			if err := f.stray(p); err != nil {
				return err
			}
		}
	}
	f.batch = f.batch[:0]
	return nil
}

// walk lists the files of the Source's part (each of its folders, when
// the store lists a folder alone; else the whole DEST), then flushes.
func (f *strayFinder) walk(ctx context.Context) error {
	add := func(fi store.FileInfo) error { return f.add(ctx, fi.Path) }
	if fw, ok := f.s.st.(store.FolderWalker); ok {
		for _, folder := range f.folders() {
			if err := fw.WalkFolder(ctx, folder, add); err != nil {
				return err
			}
		}
	} else if len(f.folders()) > 0 {
		if err := f.s.st.Walk(ctx, add); err != nil {
			return err
		}
	}
	return f.flush(ctx)
}

// clipRanges are the ranges of a listing by ranges (bounds: range i is
// after bounds[i] and up to bounds[i+1], "" for no bound) that lie in the
// folders, in order: a bucket's listing of one Source's part lists nothing
// else.
func clipRanges(bounds, folders []string) [][2]string {
	var out [][2]string
	for i := range len(bounds) - 1 {
		a, b := bounds[i], bounds[i+1]
		for _, f := range folders {
			lo, hi := "", ""
			if f != "" {
				lo, hi = store.FolderRange(f)
			}
			if lo == "" || (a != "" && a > lo) {
				lo = a
			}
			if hi == "" || (b != "" && b < hi) {
				hi = b
			}
			if hi == "" || lo < hi {
				out = append(out, [2]string{lo, hi})
			}
		}
	}
	return out
}

// strayCollector keeps the stray files a look for them finds, for the
// plan: the first maxListed by path, and all of them spooled.
type strayCollector struct {
	f       *strayFinder
	protect *protectList
	spool   *runspool.List[string]
	listed  []string
}

// newStrayCollector loads DEST's protect list and makes the finder of the
// stray files of the Source srcID's part.
func (s *Dest) newStrayCollector(ctx context.Context, srcID int64, parts *destParts) (*strayCollector, error) {
	protect, err := loadProtectList(ctx, s.st)
	if err != nil {
		return nil, err
	}
	c := &strayCollector{protect: protect, spool: runspool.Strings(s.st.TempDir(), "plan's stray files", 0)}
	c.f = s.newStrayFinder(srcID, parts, protect, func(path string) error {
		if len(c.listed) < maxListed {
			c.listed = append(c.listed, strings.Clone(path))
		}
		c.spool.Add(path)
		return c.spool.Err()
	})
	return c, nil
}

// planStrays looks for the stray files of the Source's part of DEST, for a
// run with --delete to move them to the trash: every file of its folders
// no resource owns and the protect list does not keep. A bucket's
// reconcile found them as it listed the copy (listCopy: b.strays), and
// they are not listed again. The copy's own files are checked again when
// they are moved (runner.trashStrays).
func (b *builder) planStrays(ctx context.Context) error {
	p, s := b.p, b.s
	c := b.strays
	b.strays = nil
	if c == nil {
		parts, err := s.loadParts(ctx)
		if err != nil {
			return err
		}
		if c, err = s.newStrayCollector(ctx, p.srcID, parts); err != nil {
			return err
		}
		p.protect, p.strays = c.protect, c.spool
		if b.p.opts.Strays != nil {
			// Those an audit found: each still in the Source's part, not
			// protected, owned by no resource.
			for _, path := range b.p.opts.Strays {
				if store.CheckPath(path) != nil {
					continue
				}
				if err = c.f.add(ctx, path); err != nil {
					break
				}
			}
			if err == nil {
				err = c.f.flush(ctx)
			}
		} else {
			err = c.f.walk(ctx)
		}
		if err != nil {
			return fmt.Errorf("look for the stray files of %s: %w", s.st, err)
		}
	}
	p.protect, p.strays, p.Strays = c.protect, c.spool, c.listed
	p.StrayLooked = true
	p.Summary.Trash, p.Summary.Protected = c.f.strays, c.f.protected
	if c.f.strays > 0 && p.Summary.Create+p.Summary.Update > 0 {
		return b.unplannedStrays(ctx)
	}
	slices.Sort(p.Strays)
	return nil
}

// unplannedStrays drops from the stray files those at a path the plan
// writes: the file of a write a killed run did not record (which a bucket
// adopts) is no stray, and the write replaces it anyway.
func (b *builder) unplannedStrays(ctx context.Context) error {
	p := b.p
	found := newURISet()
	if err := p.strays.Each(func(path string) error { found.add(path); return nil }); err != nil {
		return err
	}
	planned := newURISet()
	n := 0
	err := p.items.each(func(it *Item) error {
		if it.Path != "" && found.has(it.Path) && !planned.has(it.Path) {
			planned.add(it.Path)
			n++
		}
		return ctx.Err()
	})
	if err != nil || n == 0 {
		slices.Sort(p.Strays)
		return err
	}
	kept := runspool.Strings(b.s.st.TempDir(), "plan's stray files", 0)
	p.Strays = p.Strays[:0]
	err = p.strays.Each(func(path string) error {
		if !planned.has(path) {
			kept.Add(path)
			if len(p.Strays) < maxListed {
				p.Strays = append(p.Strays, path)
			}
		}
		return kept.Err()
	})
	p.strays.Close()
	p.strays = kept
	p.Summary.Trash = kept.Len()
	return err
}

// limitDeletes holds every deletion of the plan when more would go than
// PlanOptions.MaxDelete allows: the resources' are remembered instead
// (as without --delete), the stray files stay.
func (p *Plan) limitDeletes() {
	n := p.Summary.Delete + p.Summary.Trash
	if !p.opts.LimitDeletes || !p.Delete || n <= max(p.opts.MaxDelete, 0) {
		return
	}
	p.DeletesHeld = n
	p.Summary.PendingDelete += p.Summary.Delete
	p.Summary.Delete = 0
	p.Notes = append(p.Notes, fmt.Sprintf("--max-delete %d: %s would go, so none does (deletions remembered, stray files kept)",
		p.opts.MaxDelete, deletionsSaid(p.DeletesHeld)))
}

// deletionsSaid counts deletions for people.
func deletionsSaid(n int) string {
	if n == 1 {
		return "1 deletion"
	}
	return fmt.Sprintf("%d deletions", n)
}

// trashStrays moves the stray files the plan found to the trash, into a
// folder of the run's own (store.TrashName), once the run's writes are
// recorded: each is looked up in the state again (a file the run wrote, or
// another run since, is no longer stray) and moved; one gone meanwhile is
// passed over, one that cannot be moved is a failure of the run. Nothing
// is moved when the run stopped early or --max-delete held the deletions.
// When every stray file is dealt with, the state forgets that an audit
// found some (stray_due).
func (r *runner) trashStrays(runID int64) {
	p, res := r.p, r.res
	if !p.StrayLooked || p.DeletesHeld > 0 {
		return
	}
	if res.Stopped != "" {
		if p.Summary.Trash > 0 {
			p.Notes = append(p.Notes, "the stray files were not moved to the trash: the run stopped")
		}
		return
	}
	ctx := r.wctx
	tr, ok := r.s.st.(store.Trasher)
	failed := 0
	if p.Summary.Trash > 0 && ok {
		name := store.TrashName(r.started, runID)
		batch := make([]string, 0, state.LookupBatch)
		held := make([]bool, state.LookupBatch)
		move := func() error {
			clear(held)
			if err := r.s.db.FindPaths(ctx, batch, func(i int) error { held[i] = true; return nil }); err != nil {
				return err
			}
			for i, path := range batch {
				if held[i] || p.protect.keeps(path) {
					continue
				}
				err := tr.Trash(ctx, name, path)
				switch {
				case err == nil:
					res.Trashed++
				case errors.Is(err, fs.ErrNotExist):
				default:
					failed++
					r.addFailure(Failure{URL: path, Path: path, Kind: KindWrite, Err: err})
				}
			}
			batch = batch[:0]
			return nil
		}
		err := p.strays.Each(func(path string) error {
			if batch = append(batch, path); len(batch) == cap(batch) {
				return move()
			}
			return nil
		})
		if err == nil {
			err = move()
		}
		if err == nil {
			err = r.s.st.Sync(ctx)
		}
		if err != nil {
			failed++
			r.addFailure(Failure{URL: p.Source, Kind: KindState, Err: fmt.Errorf("move the stray files to the trash: %w", err)})
		}
		if res.Trashed > 0 {
			res.TrashFolder = store.TrashDir + "/" + name
		}
	} else if p.Summary.Trash > 0 {
		failed++
		r.addFailure(Failure{URL: p.Source, Kind: KindWrite, Err: fmt.Errorf("the destination %s has no trash to move stray files to", r.s.st)})
	}
	if failed == 0 {
		w := r.s.db.NewWriter(r.s.writerOptions(nil))
		err := w.SetStrayDue(ctx, r.srcID, time.Time{})
		if err == nil {
			err = w.Close(ctx)
		} else {
			w.Abort()
		}
		if err != nil {
			r.addFailure(Failure{URL: p.Source, Kind: KindState, Err: err})
		}
	}
}
