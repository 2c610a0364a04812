// Package bag writes a copy kept by rsx as a BagIt bag (RFC 8493, BagIt 1.0),
// the package preservation systems ingest, and checks bags against the RFC's
// rules.
//
// A bag is made from what rsx already knows: the state's rows say which files
// the copy holds and the digests verified when each was written. Those
// digests go into the payload manifests as they are; a file is read only when
// its record cannot be trusted as it stands (its modification time is not the
// one recorded when it was verified, as rsync's quick check does, or the
// state holds no SHA-256 of it), or when Options.Verify asks for every file to
// be read. A file that does not match its record is not put in the bag: the
// bag is not written, and the copy wants a sync first.
//
// A bag is a copy: an edit of the copy in place afterwards leaves it as it
// was. Its files are reflinked where the file system can (a copy-on-write
// clone: no bytes written), else copied; hard links only when asked for
// (Options.Link). A bucket copy is streamed into the bag, and hashed on the
// way. A bag inside the copy's folder, or the copy inside the bag's, is
// refused.
package bag

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"rsx/dest/state"
	"rsx/dest/store"
)

// Field is one line of bag-info.txt: a label and its value.
type Field struct {
	Label, Value string
}

// Options say what to put in the bag and how.
type Options struct {
	// Sources limits the bag to these Sources (the URLs the state keys them
	// by, their Capability Lists); empty: every Source of the copy.
	Sources []string
	// Include and Exclude select resources by URI, as sync's options do:
	// a resource is in the bag when it matches an Include (or there is
	// none) and no Exclude.
	Include, Exclude []*regexp.Regexp
	// Copy writes every file's bytes anew: no reflink, so that the bag
	// shares no block with the copy. Without it (and without Link) a file
	// is reflinked where the file system can, else copied.
	Copy bool
	// Link hard-links the copy's files into the bag where it can (the bag's
	// files are then the copy's own: an edit of either in place changes
	// both), and copies the rest.
	Link bool
	// Incomplete makes the bag of a copy that is not complete (its last
	// run did not finish, or failed; files that do not match their records,
	// left out), marked so in bag-info.txt, instead of refusing it.
	Incomplete bool
	// Verify reads every file and checks it against every digest recorded
	// of it, instead of trusting the records of files that did not change.
	Verify bool
	// Info are more lines for bag-info.txt (the Source Description's
	// metadata, what the caller knows), after those Write makes itself.
	Info []Field
	// Software names the program in Bag-Software-Agent.
	Software string
	// Workers is how many files are handled at once (default: the number of
	// CPUs, at least 2).
	Workers int
	// Now is the clock (time.Now by default): Bagging-Date.
	Now func() time.Time
	// Progress, when set, is told of every file done.
	Progress func(done int, bytes int64)
}

// Refusal is a resource of the copy that could not be put in the bag.
type Refusal struct {
	URI, Path, Reason string
}

// Result says what Write did.
type Result struct {
	Dir     string   // the bag
	Sources []string // the Sources it holds
	Files   int
	Bytes   int64
	// How the payload got there.
	Reflinked, Linked, Copied int
	// Hashed files were read to check them against their records (or to
	// compute a SHA-256 the state did not hold).
	Hashed      int
	HashedBytes int64
	Manifests   []string // the payload manifests' algorithms (BagIt names: sha256, md5, ...)
	Skipped     int      // rows left out: deleted by the Source, or outside the selection
	// Refused are the resources that did not match their records; when
	// there is any, no bag is written.
	Refused []Refusal
	Elapsed time.Duration
	// Copies say, for each Source, the run the bag reflects and what keeps
	// the copy from being complete.
	Copies []SourceCopy
	// Incomplete says that the bag was made of a copy that is not complete
	// (Options.Incomplete), and says so.
	Incomplete bool
}

// SourceCopy is what a bag says of one Source's copy.
type SourceCopy struct {
	Source state.Source
	// Run is the run of the history the bag reflects: the newest that
	// carried out a plan (nil: the history holds none).
	Run *state.Run
	// Later is the newest run after it that could not plan (the copy
	// unchanged since Run), or nil.
	Later *state.Run
	// Gaps say why the copy is not complete; none: it is.
	Gaps []string
	// Left out of the bag: rows the Source deleted, rows outside the bag's
	// selection, files that did not match their records.
	Deleted, Unselected, Refused int
}

// Complete reports whether nothing keeps the copy from being complete.
func (c *SourceCopy) Complete() bool { return len(c.Gaps) == 0 && c.Refused == 0 }

// ErrIncomplete is returned (wrapped) when the copy is not complete.
var ErrIncomplete = errors.New("the copy is not complete")

// ErrRefused is returned (wrapped) when a resource did not match its record.
var ErrRefused = errors.New("the copy does not match its records")

// bagitAlgs are the algorithms of payload manifests, in the order they are
// written: the state's name and BagIt's.
var bagitAlgs = []struct{ state, bagit string }{
	{"sha-256", "sha256"},
	{"sha-512", "sha512"},
	{"sha-1", "sha1"},
	{"md5", "md5"},
}

// entry is one payload file as it goes through the workers.
type entry struct {
	seq     int
	src     int // the Source's index in Result.Copies
	res     state.Resource
	digests map[string]string // BagIt algorithm → hex
	how     linkKind
	hashed  bool
	refused string
	err     error
}

// Write makes a bag of the copy in st (its state open in db) at out, which
// must not exist yet or be an empty folder. The bag is built in a folder
// beside out and renamed into place when it is complete: an interrupted or
// refused Write leaves nothing at out.
func Write(ctx context.Context, st store.Store, db *state.DB, out string, opt Options) (*Result, error) {
	start := time.Now()
	now := time.Now
	if opt.Now != nil {
		now = opt.Now
	}
	w, err := begin(ctx, st, db, out, opt)
	if errors.Is(err, ErrIncomplete) {
		return w.res, err
	}
	if err != nil {
		return nil, err
	}
	defer w.abandon()
	if err := w.payload(ctx); err != nil {
		return nil, err
	}
	res := w.res
	if len(res.Refused) > 0 && !opt.Incomplete {
		res.Elapsed = time.Since(start)
		return res, fmt.Errorf("bag: %d of the copy's files %s: %w", len(res.Refused), plural(len(res.Refused), "does", "do")+" not match the state's records", ErrRefused)
	}
	if res.Files == 0 {
		return nil, errors.New("bag: nothing to put in it: the copy holds no resource of the selection")
	}
	for i := range res.Copies {
		if !res.Copies[i].Complete() {
			res.Incomplete = true
		}
	}
	if err := w.seal(now()); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// writer is a Write under way: what its stages share.
type writer struct {
	st      store.Store
	db      *state.DB
	out     string
	tmp     string // the folder the bag is built in, beside out
	local   string // the copy's folder; "" for a bucket
	opt     Options
	sources []state.Source
	res     *Result
	mf      *manifests
	done    bool // the bag is in place: nothing to remove
	// noClone: the file system refused a reflink; copies from then on.
	noClone atomic.Bool
}

// begin checks out and the Sources asked for, and makes the folder the bag
// is built in. A copy that is not complete is refused (ErrIncomplete, with
// the writer's result saying why) before anything is made, unless
// Options.Incomplete.
func begin(ctx context.Context, st store.Store, db *state.DB, out string, opt Options) (*writer, error) {
	if opt.Copy && opt.Link {
		return nil, errors.New("bag: copy or link: not both")
	}
	if err := checkApart(localRoot(st), out); err != nil {
		return nil, err
	}
	if err := checkOut(out); err != nil {
		return nil, err
	}
	sources, err := pickSources(ctx, db, opt.Sources)
	if err != nil {
		return nil, err
	}
	w := &writer{st: st, db: db, out: out, local: localRoot(st), opt: opt, sources: sources, res: &Result{Dir: out}, done: true}
	for _, s := range sources {
		w.res.Sources = append(w.res.Sources, s.URL)
		c, err := assess(ctx, db, s)
		if err != nil {
			return nil, err
		}
		w.res.Copies = append(w.res.Copies, c)
	}
	if err := Incomplete(w.res.Copies); err != nil && !opt.Incomplete {
		return w, err
	}
	if w.tmp, err = makeTemp(out); err != nil {
		return nil, err
	}
	w.done = false
	if err := os.Mkdir(filepath.Join(w.tmp, "data"), 0o755); err != nil {
		w.abandon()
		return nil, fmt.Errorf("bag: %w", err)
	}
	return w, nil
}

// abandon removes what was built unless the bag was put in place.
func (w *writer) abandon() {
	if w.mf != nil {
		w.mf.close()
	}
	if !w.done {
		os.RemoveAll(w.tmp)
	}
}

// payload puts every selected file of the copy in the bag and lists it in
// the manifests. The rows go to the workers in order; their results come
// back in any order and are put back in order (a window of a few per
// worker), so that the manifests list files in the state's order on every
// run.
func (w *writer) payload(ctx context.Context) error {
	workers := w.opt.Workers
	if workers <= 0 {
		workers = max(2, runtime.NumCPU())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan *entry, workers*2)
	window := make(chan struct{}, workers*64) // entries handed out and not yet written in order
	results := make(chan *entry, workers*2)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for e := range jobs {
				w.place(ctx, e)
				results <- e
			}
		})
	}
	var feedErr error
	go func() {
		defer close(jobs)
		feedErr = w.feed(ctx, jobs, window)
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	mf, err := newManifests(w.tmp)
	if err != nil {
		cancel()
		for range results {
		}
		return err
	}
	w.mf = mf
	firstErr := w.collect(results, window, cancel)
	if feedErr != nil && firstErr == nil {
		firstErr = fmt.Errorf("bag: read the state: %w", feedErr)
	}
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	return firstErr
}

// feed hands the selected rows of every Source to the workers, in the
// state's order, each after a place in the window.
func (w *writer) feed(ctx context.Context, jobs chan<- *entry, window chan<- struct{}) error {
	seq := 0
	for i, s := range w.sources {
		c := &w.res.Copies[i]
		err := w.db.EachResource(ctx, s.ID, false, func(r *state.Resource) error {
			switch {
			case !r.DeletedAt.IsZero():
				c.Deleted++
				w.res.Skipped++
				return nil
			case !selected(r.URI, w.opt):
				c.Unselected++
				w.res.Skipped++
				return nil
			}
			e := &entry{seq: seq, src: i, res: *r}
			seq++
			select {
			case window <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case jobs <- e:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// collect takes the workers' results, puts them back in order and records
// each: in the manifests, or among the refused. It returns the first error
// (and cancels the rest).
func (w *writer) collect(results <-chan *entry, window <-chan struct{}, cancel func()) error {
	pending := map[int]*entry{}
	next := 0
	var firstErr error
	fail := func(err error) {
		if firstErr == nil {
			firstErr = err
			cancel()
		}
	}
	for e := range results {
		pending[e.seq] = e
		for {
			e, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-window
			switch {
			case e.err != nil:
				fail(e.err)
			case e.refused != "":
				w.res.Refused = append(w.res.Refused, Refusal{URI: e.res.URI, Path: e.res.Path, Reason: e.refused})
				w.res.Copies[e.src].Refused++
			case firstErr == nil:
				if err := w.mf.add(e); err != nil {
					fail(err)
					continue
				}
				w.res.count(e)
				if w.opt.Progress != nil {
					w.opt.Progress(w.res.Files, w.res.Bytes)
				}
			}
		}
	}
	return firstErr
}

// count adds a file put in the bag to the result.
func (res *Result) count(e *entry) {
	res.Files++
	res.Bytes += e.res.Length
	switch e.how {
	case reflinked:
		res.Reflinked++
	case hardLinked:
		res.Linked++
	default:
		res.Copied++
	}
	if e.hashed {
		res.Hashed++
		res.HashedBytes += e.res.Length
	}
}

// seal finishes the manifests, writes the tag files, and puts the bag in
// place at out.
func (w *writer) seal(now time.Time) error {
	algs, err := w.mf.finish()
	if err != nil {
		return err
	}
	w.res.Manifests = algs
	if err := writeTagFiles(w.tmp, w.res, w.opt, now); err != nil {
		return err
	}
	// An empty folder given as OUT is replaced (os.Rename does not put a
	// folder over another).
	if fi, err := os.Lstat(w.out); err == nil && fi.IsDir() {
		if err := os.Remove(w.out); err != nil {
			return fmt.Errorf("bag: %w", err)
		}
	}
	if err := os.Rename(w.tmp, w.out); err != nil {
		return fmt.Errorf("bag: put the bag in place: %w", err)
	}
	w.done = true
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// checkOut refuses an out that exists and is not an empty folder.
func checkOut(out string) error {
	fi, err := os.Lstat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("bag: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("bag: %s exists and is not a folder", out)
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("bag: %w", err)
	}
	if len(ents) > 0 {
		return fmt.Errorf("bag: %s is not empty: give a new folder for the bag", out)
	}
	return nil
}

// makeTemp makes the folder the bag is built in, beside out (on its file
// system, so that the final rename is atomic).
func makeTemp(out string) (string, error) {
	parent := filepath.Dir(filepath.Clean(out))
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("bag: %w", err)
	}
	tmp := filepath.Join(parent, "."+filepath.Base(filepath.Clean(out))+".rsx-partial-"+hex.EncodeToString(b[:]))
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return "", fmt.Errorf("bag: make the bag's folder: %w", err)
	}
	return tmp, nil
}

func pickSources(ctx context.Context, db *state.DB, want []string) ([]state.Source, error) {
	all, err := db.Sources(ctx)
	if err != nil {
		return nil, fmt.Errorf("bag: read the state: %w", err)
	}
	if len(all) == 0 {
		return nil, errors.New("bag: the copy holds no Source yet (run rsx sync first)")
	}
	if len(want) == 0 {
		return all, nil
	}
	var out []state.Source
	for _, w := range want {
		found := false
		for _, s := range all {
			if s.URL == w {
				out = append(out, s)
				found = true
				break
			}
		}
		if !found {
			names := make([]string, len(all))
			for i, s := range all {
				names[i] = s.URL
			}
			return nil, fmt.Errorf("bag: the copy holds no Source %s (it holds %s)", w, strings.Join(names, ", "))
		}
	}
	return out, nil
}

func selected(uri string, opt Options) bool {
	if len(opt.Include) > 0 && !slices.ContainsFunc(opt.Include, func(re *regexp.Regexp) bool { return re.MatchString(uri) }) {
		return false
	}
	return !slices.ContainsFunc(opt.Exclude, func(re *regexp.Regexp) bool { return re.MatchString(uri) })
}

// localRoot is the folder of a folder destination, "" for a bucket.
func localRoot(st store.Store) string { return st.Features().Local }
