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
// The payload is linked, not copied, where the file system allows: a reflink
// (copy-on-write clone) first, then a hard link, then a copy. A bucket copy is
// streamed into the bag, and hashed on the way.
package bag

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"rsx/dest/state"
	"rsx/dest/store"
	"rsx/display"
	"rsx/model"
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
	// Copy copies every file; without it files are linked where they can be.
	Copy bool
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
}

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
	if err := checkOut(out); err != nil {
		return nil, err
	}
	sources, err := pickSources(ctx, db, opt.Sources)
	if err != nil {
		return nil, err
	}
	tmp, err := makeTemp(out)
	if err != nil {
		return nil, err
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Mkdir(filepath.Join(tmp, "data"), 0o755); err != nil {
		return nil, fmt.Errorf("bag: %w", err)
	}
	local := localRoot(st)
	res := &Result{Dir: out}
	for _, s := range sources {
		res.Sources = append(res.Sources, s.URL)
	}

	// The rows go to the workers in order; their results come back in any
	// order and are put back in order (a window of a few per worker), so
	// that the manifests list files in the state's order on every run.
	workers := opt.Workers
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
				place(ctx, st, local, tmp, e, opt)
				results <- e
			}
		})
	}
	var feedErr error
	go func() {
		defer close(jobs)
		seq := 0
		for _, s := range sources {
			err := db.EachResource(ctx, s.ID, false, func(r *state.Resource) error {
				if !r.DeletedAt.IsZero() || !selected(r.URI, opt) {
					res.Skipped++
					return nil
				}
				e := &entry{seq: seq, res: *r}
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
				feedErr = err
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()

	mf, err := newManifests(tmp)
	if err != nil {
		cancel()
		for range results {
		}
		return nil, err
	}
	defer mf.close()
	pending := map[int]*entry{}
	next := 0
	var firstErr error
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
				if firstErr == nil {
					firstErr = e.err
					cancel()
				}
			case e.refused != "":
				res.Refused = append(res.Refused, Refusal{URI: e.res.URI, Path: e.res.Path, Reason: e.refused})
			case firstErr == nil:
				if err := mf.add(e); err != nil {
					firstErr = err
					cancel()
					continue
				}
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
				if opt.Progress != nil {
					opt.Progress(res.Files, res.Bytes)
				}
			}
		}
	}
	if feedErr != nil && firstErr == nil {
		firstErr = fmt.Errorf("bag: read the state: %w", feedErr)
	}
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	if firstErr != nil {
		return nil, firstErr
	}
	if len(res.Refused) > 0 {
		res.Elapsed = time.Since(start)
		return res, fmt.Errorf("bag: %d of the copy's files %s: %w", len(res.Refused), plural(len(res.Refused), "does", "do")+" not match the state's records", ErrRefused)
	}
	if res.Files == 0 {
		return nil, errors.New("bag: nothing to put in it: the copy holds no resource of the selection")
	}
	algs, err := mf.finish()
	if err != nil {
		return nil, err
	}
	res.Manifests = algs
	if err := writeTagFiles(tmp, sources, res, opt, now()); err != nil {
		return nil, err
	}
	// An empty folder given as OUT is replaced (os.Rename does not put a
	// folder over another).
	if fi, err := os.Lstat(out); err == nil && fi.IsDir() {
		if err := os.Remove(out); err != nil {
			return nil, fmt.Errorf("bag: %w", err)
		}
	}
	if err := os.Rename(tmp, out); err != nil {
		return nil, fmt.Errorf("bag: put the bag in place: %w", err)
	}
	done = true
	res.Elapsed = time.Since(start)
	return res, nil
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

// place puts one file in the bag's payload and fills in its digests, or says
// why it cannot.
func place(ctx context.Context, st store.Store, local, tmp string, e *entry, opt Options) {
	if ctx.Err() != nil {
		e.err = ctx.Err()
		return
	}
	r := &e.res
	if err := store.CheckPath(r.Path); err != nil {
		e.refused = "its path cannot be in a bag: " + err.Error()
		return
	}
	dst := filepath.Join(tmp, "data", filepath.FromSlash(r.Path))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		e.err = fmt.Errorf("bag: %w", err)
		return
	}
	if !r.DamagedAt.IsZero() {
		e.refused = "an audit found it damaged or gone (" + r.DamagedAt.UTC().Format(time.RFC3339) + "): run rsx sync to fetch it again"
		return
	}
	fi, err := st.Stat(ctx, r.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		e.refused = "missing from the copy: run rsx sync to fetch it again"
		return
	case err != nil:
		e.refused = err.Error()
		return
	case r.Length >= 0 && fi.Size != r.Length:
		e.refused = fmt.Sprintf("%d bytes where the state records %d: run rsx sync to fetch it again", fi.Size, r.Length)
		return
	}
	recorded := r.Digests.HashList()
	_, hasSHA256 := r.Digests.Get("sha-256")
	quickOK := local != "" && !r.FileMTime.IsZero() && fi.ModTime.Equal(r.FileMTime)
	mustHash := opt.Verify || !hasSHA256 || !quickOK || local == ""

	src, err := st.Open(ctx, r.Path)
	if err != nil {
		e.refused = err.Error()
		return
	}
	defer src.Close()

	if !mustHash {
		e.how, err = linkOrCopy(src, dst, opt.Copy, nil)
		if err != nil {
			e.err = fmt.Errorf("bag: %s: %w", r.Path, err)
			return
		}
		e.digests = bagitDigests(r.Digests)
		return
	}

	// Read the bytes once: hash them with every recorded algorithm (and
	// SHA-256 when none is recorded), and copy them when the file cannot be
	// linked (or is a bucket's object).
	declared := recorded
	if !hasSHA256 {
		declared = append(slices.Clone(recorded), model.Hash{Alg: "sha-256"})
	}
	v := model.NewVerifier(declared)
	if local != "" && !opt.Copy {
		if _, err := io.Copy(v, ctxReader{ctx, src}); err != nil {
			e.err = fmt.Errorf("bag: read %s: %w", r.Path, err)
			return
		}
		if f, ok := src.(*os.File); ok {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				e.err = fmt.Errorf("bag: read %s: %w", r.Path, err)
				return
			}
		}
		if reason := mismatch(v, r, recorded); reason != "" {
			e.refused = reason
			return
		}
		e.how, err = linkOrCopy(src, dst, false, nil)
	} else {
		e.how, err = linkOrCopy(ctxReader{ctx, src}, dst, true, v)
		if err == nil {
			if reason := mismatch(v, r, recorded); reason != "" {
				os.Remove(dst)
				e.refused = reason
				return
			}
		}
	}
	if err != nil {
		e.err = fmt.Errorf("bag: %s: %w", r.Path, err)
		return
	}
	e.hashed = true
	e.digests = map[string]string{}
	for _, hr := range v.Results() {
		if hr.Supported {
			for _, a := range bagitAlgs {
				if a.state == hr.Alg {
					e.digests[a.bagit] = hr.Actual
				}
			}
		}
	}
}

// mismatch says how the bytes read differ from the record, "" when they do
// not.
func mismatch(v *model.Verifier, r *state.Resource, recorded model.HashList) string {
	if r.Length >= 0 && v.Bytes() != r.Length {
		return fmt.Sprintf("%d bytes read where the state records %d: run rsx sync to fetch it again", v.Bytes(), r.Length)
	}
	for i, hr := range v.Results() {
		if i >= len(recorded) {
			break
		}
		if hr.Supported && !hr.Match {
			return fmt.Sprintf("its %s is %s where the state records %s: the copy is damaged; run rsx sync to fetch it again", hr.Alg, hr.Actual, hr.Expected)
		}
	}
	return ""
}

// bagitDigests are the recorded digests under BagIt's algorithm names.
func bagitDigests(d state.Digests) map[string]string {
	out := map[string]string{}
	d.Each(func(alg, hex string) {
		for _, a := range bagitAlgs {
			if a.state == alg {
				out[a.bagit] = hex
			}
		}
	})
	return out
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

type linkKind int

const (
	copied linkKind = iota
	reflinked
	hardLinked
)

// linkOrCopy makes dst the content of src: a reflink or a hard link of an
// open local file where it can (unless copyOnly), else a copy, which also
// feeds tee when given.
func linkOrCopy(src io.Reader, dst string, copyOnly bool, tee io.Writer) (linkKind, error) {
	if f, ok := src.(*os.File); ok && !copyOnly {
		if kind, ok := link(f, dst); ok {
			return kind, nil
		}
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, err
	}
	w := io.Writer(out)
	if tee != nil {
		w = io.MultiWriter(out, tee)
	}
	if _, err := io.Copy(w, src); err != nil {
		out.Close()
		os.Remove(dst)
		return 0, err
	}
	if err := out.Close(); err != nil {
		os.Remove(dst)
		return 0, err
	}
	return copied, nil
}

// manifests writes the payload manifests as files are added: one per
// algorithm that every file so far has a digest of. An algorithm a file lacks
// is dropped (BagIt wants every payload file in every payload manifest);
// SHA-256 every file has.
type manifests struct {
	dir   string
	files map[string]*manifestFile
}

type manifestFile struct {
	f    *os.File
	w    *bufio.Writer
	live bool
}

func newManifests(dir string) (*manifests, error) {
	m := &manifests{dir: dir, files: map[string]*manifestFile{}}
	for _, a := range bagitAlgs {
		f, err := os.Create(filepath.Join(dir, "manifest-"+a.bagit+".txt"))
		if err != nil {
			m.close()
			return nil, fmt.Errorf("bag: %w", err)
		}
		m.files[a.bagit] = &manifestFile{f: f, w: bufio.NewWriterSize(f, 64<<10), live: true}
	}
	return m, nil
}

func (m *manifests) add(e *entry) error {
	if _, ok := e.digests["sha256"]; !ok {
		return fmt.Errorf("bag: %s: no SHA-256 digest", e.res.Path)
	}
	line := " data/" + EncodePath(e.res.Path) + "\n"
	for alg, mf := range m.files {
		if !mf.live {
			continue
		}
		d, ok := e.digests[alg]
		if !ok {
			mf.live = false
			continue
		}
		if _, err := mf.w.WriteString(d + line); err != nil {
			return fmt.Errorf("bag: write manifest-%s.txt: %w", alg, err)
		}
	}
	return nil
}

// finish closes the manifests, removes those that do not list every file,
// and returns the algorithms of those kept.
func (m *manifests) finish() ([]string, error) {
	var kept []string
	for _, a := range bagitAlgs {
		mf := m.files[a.bagit]
		err := mf.w.Flush()
		if cerr := mf.f.Close(); err == nil {
			err = cerr
		}
		mf.f = nil
		if err != nil {
			return nil, fmt.Errorf("bag: write manifest-%s.txt: %w", a.bagit, err)
		}
		if !mf.live {
			if err := os.Remove(filepath.Join(m.dir, "manifest-"+a.bagit+".txt")); err != nil {
				return nil, fmt.Errorf("bag: %w", err)
			}
			continue
		}
		kept = append(kept, a.bagit)
	}
	return kept, nil
}

func (m *manifests) close() {
	for _, mf := range m.files {
		if mf.f != nil {
			mf.f.Close()
		}
	}
}

// EncodePath is a payload path as a manifest line writes it (RFC 8493 2.1.3):
// CR, LF and % percent-encoded.
func EncodePath(p string) string {
	if !strings.ContainsAny(p, "%\r\n") {
		return p
	}
	r := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	return r.Replace(p)
}

// DecodePath undoes EncodePath (any case of the hex digits).
func DecodePath(p string) string {
	if !strings.Contains(p, "%") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && i+2 < len(p) {
			switch strings.ToUpper(p[i+1 : i+3]) {
			case "25":
				b.WriteByte('%')
				i += 2
				continue
			case "0D":
				b.WriteByte('\r')
				i += 2
				continue
			case "0A":
				b.WriteByte('\n')
				i += 2
				continue
			}
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// writeTagFiles writes bagit.txt, bag-info.txt and the tag manifests.
func writeTagFiles(dir string, sources []state.Source, res *Result, opt Options, now time.Time) error {
	if err := os.WriteFile(filepath.Join(dir, "bagit.txt"), []byte("BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n"), 0o644); err != nil {
		return fmt.Errorf("bag: %w", err)
	}
	info := []Field{
		{"Bagging-Date", now.UTC().Format("2006-01-02")},
		{"Payload-Oxum", strconv.FormatInt(res.Bytes, 10) + "." + strconv.Itoa(res.Files)},
		{"Bag-Size", display.Size(res.Bytes)},
	}
	if opt.Software != "" {
		info = append(info, Field{"Bag-Software-Agent", opt.Software})
	}
	for _, s := range sources {
		info = append(info, Field{"ResourceSync-Capability-List", s.URL})
		if s.Baseline.URL != "" {
			v := s.Baseline.URL
			if !s.Baseline.At.IsZero() {
				v += " at " + s.Baseline.At.UTC().Format(time.RFC3339Nano)
			}
			info = append(info, Field{"ResourceSync-Baseline", v})
		}
		if p := s.Point(); !p.IsZero() {
			info = append(info, Field{"ResourceSync-Copy-Point", p.UTC().Format(time.RFC3339Nano)})
		}
		if !s.LastRun.IsZero() {
			info = append(info, Field{"ResourceSync-Last-Run", s.LastRun.UTC().Format(time.RFC3339)})
		}
	}
	info = append(info, opt.Info...)
	var b strings.Builder
	for _, f := range info {
		label := cleanLabel(f.Label)
		if label == "" {
			continue
		}
		b.WriteString(label)
		b.WriteString(": ")
		b.WriteString(cleanValue(f.Value))
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "bag-info.txt"), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("bag: %w", err)
	}
	tagFiles := []string{"bagit.txt", "bag-info.txt"}
	for _, a := range res.Manifests {
		tagFiles = append(tagFiles, "manifest-"+a+".txt")
	}
	for _, a := range res.Manifests {
		var tb strings.Builder
		for _, name := range tagFiles {
			f, err := os.Open(filepath.Join(dir, name))
			if err != nil {
				return fmt.Errorf("bag: %w", err)
			}
			d, err := model.Digest(stateAlg(a), f)
			f.Close()
			if err != nil {
				return fmt.Errorf("bag: %w", err)
			}
			tb.WriteString(hex.EncodeToString(d) + " " + name + "\n")
		}
		if err := os.WriteFile(filepath.Join(dir, "tagmanifest-"+a+".txt"), []byte(tb.String()), 0o644); err != nil {
			return fmt.Errorf("bag: %w", err)
		}
	}
	return nil
}

func stateAlg(bagit string) string {
	for _, a := range bagitAlgs {
		if a.bagit == bagit {
			return a.state
		}
	}
	return bagit
}

// cleanLabel makes a label RFC 8493 accepts: no colon, no control
// character, no surrounding white space.
func cleanLabel(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == ':' || r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// cleanValue keeps a value on one line: line breaks and other control
// characters become spaces.
func cleanValue(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}
