package bag

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"rsx/dest/state"
	"rsx/dest/store"
	"rsx/display"
)

// copyRow is one file of a test copy and what its row records.
type copyRow struct {
	uri, path, body string
	digests         string // "" computes md5 and sha-256 of body; "md5" only md5; "none" none
	deleted         bool
	damaged         bool
}

// makeCopy writes files into a folder destination and records them in its
// state, as rsx sync would have; it returns the store and the state.
func makeCopy(t *testing.T, files []copyRow) (store.Store, *state.DB, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, dir, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	lock, err := st.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dbPath, err := st.StatePath(ctx)
	if err != nil {
		t.Fatal(err)
	}
	db, err := state.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	src, err := db.EnsureSource(ctx, "http://example.org/capabilitylist.xml")
	if err != nil {
		t.Fatal(err)
	}
	w := db.NewWriter(state.WriterOptions{})
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.body), 0o644); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		m := md5.Sum([]byte(f.body))
		s := sha256.Sum256([]byte(f.body))
		var d string
		switch f.digests {
		case "":
			d = "md5:" + hex.EncodeToString(m[:]) + " sha-256:" + hex.EncodeToString(s[:])
		case "md5":
			d = "md5:" + hex.EncodeToString(m[:])
		case "none":
		default:
			d = f.digests
		}
		r := &state.Resource{SourceID: src.ID, URI: f.uri, Path: f.path, Length: int64(len(f.body)), Digests: state.Digests(d),
			FetchedAt: fetchedAt, VerifiedAt: time.Now(), FileMTime: fi.ModTime()}
		if f.deleted {
			r.DeletedAt = time.Now()
		}
		if err := w.PutResource(ctx, r); err != nil {
			t.Fatal(err)
		}
		if f.damaged {
			if err := w.SetDamaged(ctx, r.ID, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A finished baseline, and its run in the history, as rsx sync records
	// them.
	if err := w.SetBaseline(ctx, src.ID, state.Baseline{Kind: "list", URL: "http://example.org/resourcelist.xml", At: baselineAt, Done: runEnded}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	recordRun(t, db, state.Run{SourceID: src.ID, Mode: "baseline", Created: len(files), Ended: runEnded, Finished: true, ExitStatus: 0})
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	return st, db, dir
}

var (
	fetchedAt  = time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	baselineAt = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	runEnded   = time.Date(2026, 11, 2, 10, 30, 0, 0, time.UTC)
)

// recordRun adds a run to the history; a zero Ended leaves it without an
// end (killed).
func recordRun(t *testing.T, db *state.DB, r state.Run) int64 {
	t.Helper()
	ctx := context.Background()
	if r.SourceID == 0 {
		r.SourceID = 1
	}
	if r.Started.IsZero() {
		r.Started = runEnded.Add(-time.Minute)
	}
	r.Version = "rsx test"
	if err := db.StartRun(ctx, &r); err != nil {
		t.Fatal(err)
	}
	if !r.Ended.IsZero() {
		if err := db.EndRun(ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	return r.ID
}

// unfinishBaseline records the baseline of the copy's Source as started and
// not finished, as a baseline run that failed leaves it.
func unfinishBaseline(t *testing.T, db *state.DB) {
	t.Helper()
	ctx := context.Background()
	w := db.NewWriter(state.WriterOptions{})
	if err := w.SetBaseline(ctx, 1, state.Baseline{Kind: "list", URL: "http://example.org/resourcelist.xml", At: baselineAt}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

func readInfo(t *testing.T, out string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "bag-info.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func sha(s string) string { x := sha256.Sum256([]byte(s)); return hex.EncodeToString(x[:]) }

var sample = []copyRow{
	{uri: "http://example.org/a.txt", path: "example.org/a.txt", body: "alpha\n"},
	{uri: "http://example.org/dir/b.json", path: "example.org/dir/b.json", body: `{"b":1}`},
	{uri: "http://example.org/100%25.txt", path: "example.org/100%25.txt", body: "percent"},
	{uri: "http://example.org/gone.txt", path: "example.org/gone.txt", body: "deleted by the Source", deleted: true},
}

func TestWriteThenVerify(t *testing.T) {
	st, db, _ := makeCopy(t, sample)
	out := filepath.Join(t.TempDir(), "bag")
	res, err := Write(context.Background(), st, db, out, Options{Software: "rsx test", Now: func() time.Time { return time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 3 || res.Skipped != 1 {
		t.Errorf("files %d skipped %d, want 3 and 1 (the deleted one left out)", res.Files, res.Skipped)
	}
	if res.Hashed != 0 {
		t.Errorf("%d files read: the recorded digests of unchanged files are to be trusted", res.Hashed)
	}
	if res.Reflinked+res.Copied != res.Files || res.Linked != 0 {
		t.Errorf("reflinked %d linked %d copied %d: a bag is a copy unless links are asked for", res.Reflinked, res.Linked, res.Copied)
	}
	if !slices.Equal(res.Manifests, []string{"sha256", "md5"}) {
		t.Errorf("manifests %v", res.Manifests)
	}
	man, err := os.ReadFile(filepath.Join(out, "manifest-sha256.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := sha("alpha\n") + " data/example.org/a.txt\n" + sha(`{"b":1}`) + " data/example.org/dir/b.json\n" + sha("percent") + " data/example.org/100^25.txt\n"
	if string(man) != want {
		t.Errorf("manifest-sha256.txt:\n%s\nwant:\n%s", man, want)
	}
	info, _ := os.ReadFile(filepath.Join(out, "bag-info.txt"))
	for _, w := range []string{"Bagging-Date: 2026-11-27\n", "Payload-Oxum: 20.3\n", "ResourceSync-Capability-List: http://example.org/capabilitylist.xml\n", "Bag-Software-Agent: rsx test\n"} {
		if !strings.Contains(string(info), w) {
			t.Errorf("bag-info.txt lacks %q:\n%s", w, info)
		}
	}
	decl, _ := os.ReadFile(filepath.Join(out, "bagit.txt"))
	if string(decl) != "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n" {
		t.Errorf("bagit.txt: %q", decl)
	}
	if _, err := os.Stat(filepath.Join(out, "data/example.org/gone.txt")); err == nil {
		t.Error("a resource the Source deleted is in the bag")
	}
	c, err := Verify(context.Background(), out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Valid() || c.Files != 3 || c.Bytes != 20 {
		t.Errorf("verify: valid %v files %d bytes %d problems %v", c.Valid(), c.Files, c.Bytes, c.Problems)
	}
	assertNoPartial(t, filepath.Dir(out))
}

func TestWriteCopyAndSelection(t *testing.T) {
	st, db, dir := makeCopy(t, sample)
	out := filepath.Join(t.TempDir(), "bag")
	res, err := Write(context.Background(), st, db, out, Options{Copy: true, Include: []*regexp.Regexp{regexp.MustCompile(`/dir/|a\.txt`)}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 2 || res.Copied != 2 {
		t.Errorf("files %d copied %d, want 2 and 2", res.Files, res.Copied)
	}
	a, _ := os.Stat(filepath.Join(dir, "example.org/a.txt"))
	b, _ := os.Stat(filepath.Join(out, "data/example.org/a.txt"))
	if os.SameFile(a, b) {
		t.Error("--copy linked the file")
	}
	if c, _ := Verify(context.Background(), out, nil); !c.Valid() {
		t.Errorf("problems: %v", c.Problems)
	}
}

// A file whose record holds no SHA-256 is read once: its recorded md5 is
// checked and its SHA-256 computed from the same bytes.
func TestWriteComputesMissingSHA256(t *testing.T) {
	st, db, _ := makeCopy(t, []copyRow{
		{uri: "http://example.org/a", path: "example.org/a", body: "md5 only", digests: "md5"},
		{uri: "http://example.org/b", path: "example.org/b", body: "nothing declared", digests: "none"},
	})
	out := filepath.Join(t.TempDir(), "bag")
	res, err := Write(context.Background(), st, db, out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Hashed != 2 {
		t.Errorf("hashed %d, want 2", res.Hashed)
	}
	if !slices.Equal(res.Manifests, []string{"sha256"}) {
		t.Errorf("manifests %v: md5 only where every file has one", res.Manifests)
	}
	if c, _ := Verify(context.Background(), out, nil); !c.Valid() {
		t.Errorf("problems: %v", c.Problems)
	}
}

func TestWriteRefusesADamagedCopy(t *testing.T) {
	for _, tc := range []struct {
		name   string
		spoil  func(t *testing.T, dir string)
		opt    Options
		files  []copyRow
		reason string
	}{
		{name: "missing", spoil: func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "example.org/a.txt")) }, reason: "missing"},
		{name: "other length", spoil: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "example.org/a.txt"), []byte("longer than it was"), 0o644)
		}, reason: "bytes where the state records"},
		{name: "same length, changed and touched", spoil: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "example.org/a.txt"), []byte("ALPHA\n"), 0o644)
			os.Chtimes(filepath.Join(dir, "example.org/a.txt"), time.Now(), time.Now().Add(time.Hour))
		}, reason: "damaged"},
		{name: "same length, changed, time put back, --verify", spoil: func(t *testing.T, dir string) {
			p := filepath.Join(dir, "example.org/a.txt")
			fi, _ := os.Stat(p)
			os.WriteFile(p, []byte("ALPHA\n"), 0o644)
			os.Chtimes(p, fi.ModTime(), fi.ModTime())
		}, opt: Options{Verify: true}, reason: "damaged"},
		{name: "an audit found it damaged", files: []copyRow{{uri: "http://example.org/x", path: "example.org/x", body: "x", damaged: true}}, reason: "audit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := tc.files
			if files == nil {
				files = sample
			}
			st, db, dir := makeCopy(t, files)
			if tc.spoil != nil {
				tc.spoil(t, dir)
			}
			parent := t.TempDir()
			out := filepath.Join(parent, "bag")
			res, err := Write(context.Background(), st, db, out, tc.opt)
			if !errors.Is(err, ErrRefused) {
				t.Fatalf("err %v, want ErrRefused", err)
			}
			if len(res.Refused) != 1 || !strings.Contains(res.Refused[0].Reason, tc.reason) {
				t.Errorf("refused %+v, want one saying %q", res.Refused, tc.reason)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a bag was written although a file did not match its record")
			}
			assertNoPartial(t, parent)
		})
	}
}

func TestWriteRefusesANonEmptyOut(t *testing.T) {
	st, db, _ := makeCopy(t, sample)
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, "keep.txt"), []byte("mine"), 0o644)
	if _, err := Write(context.Background(), st, db, out, Options{}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "keep.txt")); string(b) != "mine" {
		t.Error("OUT's file was touched")
	}
	// An empty folder is taken.
	empty := t.TempDir()
	if _, err := Write(context.Background(), st, db, empty, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(empty, "bagit.txt")); err != nil {
		t.Error(err)
	}
}

func TestWriteCancelled(t *testing.T) {
	st, db, _ := makeCopy(t, sample)
	parent := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Write(ctx, st, db, filepath.Join(parent, "bag"), Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	assertNoPartial(t, parent)
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Errorf("left %v", ents)
	}
}

func assertNoPartial(t *testing.T, parent string) {
	t.Helper()
	ents, _ := os.ReadDir(parent)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".rsx-partial-") {
			t.Errorf("partial bag left: %s", e.Name())
		}
	}
}

// Each way a bag can be broken is found by Verify.
func TestVerifyFindsTampering(t *testing.T) {
	for _, tc := range []struct {
		name   string
		spoil  func(bag string)
		expect string
	}{
		{"payload changed", func(b string) { os.WriteFile(filepath.Join(b, "data/example.org/a.txt"), []byte("ALPHA\n"), 0o644) }, "data/example.org/a.txt: sha256"},
		{"payload removed", func(b string) { os.Remove(filepath.Join(b, "data/example.org/a.txt")) }, "listed but not in the bag"},
		{"payload added", func(b string) { os.WriteFile(filepath.Join(b, "data/extra.txt"), []byte("x"), 0o644) }, "not in this manifest"},
		{"bag-info changed", func(b string) {
			f, _ := os.OpenFile(filepath.Join(b, "bag-info.txt"), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("Contact-Name: someone\n")
			f.Close()
		}, "a tag file was changed"},
		{"oxum wrong", func(b string) {
			s, _ := os.ReadFile(filepath.Join(b, "bag-info.txt"))
			os.WriteFile(filepath.Join(b, "bag-info.txt"), []byte(strings.Replace(string(s), "Payload-Oxum: 20.3", "Payload-Oxum: 21.3", 1)), 0o644)
			os.Remove(filepath.Join(b, "tagmanifest-sha256.txt"))
			os.Remove(filepath.Join(b, "tagmanifest-md5.txt"))
		}, "Payload-Oxum 21.3"},
		{"no bagit.txt", func(b string) { os.Remove(filepath.Join(b, "bagit.txt")) }, "bagit.txt"},
		{"manifest climbs out", func(b string) {
			f, _ := os.OpenFile(filepath.Join(b, "manifest-sha256.txt"), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(sha("x") + " data/../bagit.txt\n")
			f.Close()
		}, "not a path under data/"},
		{"a link in the payload", func(b string) { os.Symlink("/etc/passwd", filepath.Join(b, "data/link")) }, "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, db, _ := makeCopy(t, sample)
			out := filepath.Join(t.TempDir(), "bag")
			if _, err := Write(context.Background(), st, db, out, Options{Copy: true}); err != nil {
				t.Fatal(err)
			}
			tc.spoil(out)
			c, err := Verify(context.Background(), out, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.Valid() {
				t.Fatal("a spoilt bag is valid")
			}
			found := false
			for _, p := range c.Problems {
				if strings.Contains(p, tc.expect) {
					found = true
				}
			}
			if !found {
				t.Errorf("problems %q lack %q", c.Problems, tc.expect)
			}
		})
	}
}

func TestEncodePath(t *testing.T) {
	for _, p := range []string{"a/b.txt", "100%.txt", "a%25b", "line\nbreak", "cr\rx", "%0A"} {
		e := EncodePath(p)
		if strings.ContainsAny(e, "\r\n") {
			t.Errorf("%q encodes to %q", p, e)
		}
		if d := DecodePath(e); d != p {
			t.Errorf("%q → %q → %q", p, e, d)
		}
	}
}

func FuzzVerifyManifest(f *testing.F) {
	f.Add([]byte(sha("x") + " data/a\n"))
	f.Add([]byte("zz  data/../../etc\r\n\n"))
	f.Fuzz(func(t *testing.T, manifest []byte) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "data"), 0o755)
		os.WriteFile(filepath.Join(dir, "data/a"), []byte("x"), 0o644)
		os.WriteFile(filepath.Join(dir, "bagit.txt"), []byte("BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "manifest-sha256.txt"), manifest, 0o644)
		c, err := Verify(context.Background(), dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if string(manifest) == sha("x")+" data/a\n" && !c.Valid() {
			t.Errorf("problems %v", c.Problems)
		}
	})
}

// A bag is a copy: a file of the copy changed in place afterwards (an
// editor, a script writing into the same file) leaves the bag as it was.
// Hard links are made only when asked for.
func TestWriteCopiesByDefault(t *testing.T) {
	st, db, dir := makeCopy(t, sample)
	out := filepath.Join(t.TempDir(), "bag")
	res, err := Write(context.Background(), st, db, out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Linked != 0 {
		t.Errorf("%d files hard-linked without --link", res.Linked)
	}
	// In place: the same inode, truncated and written again.
	f, err := os.OpenFile(filepath.Join(dir, "example.org/a.txt"), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("edited in place\n")
	f.Close()
	c, err := Verify(context.Background(), out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Valid() {
		t.Errorf("an edit of the copy in place damaged the bag: %v", c.Problems)
	}

	// --link: the copy's own inodes.
	st2, db2, dir2 := makeCopy(t, sample)
	out2 := filepath.Join(t.TempDir(), "bag")
	res, err = Write(context.Background(), st2, db2, out2, Options{Link: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Linked != res.Files {
		t.Errorf("--link: %d of %d files hard-linked", res.Linked, res.Files)
	}
	a, _ := os.Stat(filepath.Join(dir2, "example.org/a.txt"))
	b, _ := os.Stat(filepath.Join(out2, "data/example.org/a.txt"))
	if !os.SameFile(a, b) {
		t.Error("--link did not link the file")
	}
	if _, err := Write(context.Background(), st2, db2, filepath.Join(t.TempDir(), "bag"), Options{Link: true, Copy: true}); err == nil {
		t.Error("--link with --copy was taken")
	}
}

// A bag inside the copy, or a copy inside the bag, is refused before
// anything is written, however the paths are spelt (a symbolic link, "..").
func TestWriteRefusesOverlap(t *testing.T) {
	st, db, dir := makeCopy(t, sample)
	other := t.TempDir()
	link := filepath.Join(other, "link-to-copy")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "example.org", "sub"), 0o755)
	for _, tc := range []struct{ name, out, want string }{
		{"inside", filepath.Join(dir, "bag"), "inside the copy"},
		{"deep inside", filepath.Join(dir, "example.org", "sub", "bag"), "inside the copy"},
		{"its own state folder", filepath.Join(dir, ".rsx", "tmp", "bag"), "inside the copy"},
		{"through a link", filepath.Join(link, "bag"), "inside the copy"},
		{"through ..", filepath.Join(other, "..", filepath.Base(other), "link-to-copy", "example.org", "..", "bag"), "inside the copy"},
		{"the copy itself", dir, "inside the copy"},
		{"the copy's parent", filepath.Dir(dir), "inside the bag"},
		{"the copy's parent through ..", filepath.Join(dir, "example.org", "..", ".."), "inside the bag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := listTree(t, filepath.Dir(dir))
			_, err := Write(context.Background(), st, db, tc.out, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one saying %q", err, tc.want)
			}
			if after := listTree(t, filepath.Dir(dir)); !slices.Equal(before, after) {
				t.Errorf("something was written:\n%v\n%v", before, after)
			}
		})
	}
}

func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		out = append(out, p)
		return nil
	})
	return out
}

// A bag says which run of the history it reflects (its number and end), the
// Source, its baseline and the copy's point, that the copy is complete, and
// what was left out and why.
func TestBagInfoNamesTheRun(t *testing.T) {
	st, db, _ := makeCopy(t, sample)
	out := filepath.Join(t.TempDir(), "bag")
	res, err := Write(context.Background(), st, db, out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Copies) != 1 || res.Copies[0].Run == nil || res.Copies[0].Run.ID != 1 || !res.Copies[0].Complete() || res.Incomplete {
		t.Errorf("copies %+v incomplete %v", res.Copies, res.Incomplete)
	}
	info := readInfo(t, out)
	for _, want := range []string{
		"ResourceSync-Capability-List: http://example.org/capabilitylist.xml\n",
		"ResourceSync-Run: 1\n",
		"ResourceSync-Run-Ended: 2026-11-02T10:30:00Z\n",
		"ResourceSync-Baseline: http://example.org/resourcelist.xml at 2026-11-01T09:00:00Z\n",
		"ResourceSync-Baseline-Finished: 2026-11-02T10:30:00Z\n",
		"ResourceSync-Copy-Point: 2026-11-01T09:00:00Z\n",
		"ResourceSync-Copy-Complete: yes\n",
		"ResourceSync-Failed: 0\n",
		"ResourceSync-Left-Out-Deleted: 1\n",
		"ResourceSync-Left-Out-Selection: 0\n",
		"ResourceSync-Left-Out-Refused: 0\n",
	} {
		if !strings.Contains(info, want) {
			t.Errorf("bag-info.txt lacks %q:\n%s", want, info)
		}
	}
}

// A copy whose last run did not finish, or failed, is not bagged: nothing
// is written, and the reasons say why. With Options.Incomplete the bag is
// made and says so, without a copy point it does not have.
func TestWriteRefusesAnIncompleteCopy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		spoil   func(t *testing.T, db *state.DB)
		reasons []string
		point   bool // the copy still has its point (an incremental failed after it)
	}{
		{"a baseline that failed", func(t *testing.T, db *state.DB) {
			unfinishBaseline(t, db)
			recordRun(t, db, state.Run{Mode: "baseline", Created: 3, Failed: 4, Ended: runEnded.Add(time.Hour), ExitStatus: 1})
		}, []string{"the baseline is not finished", "run 2 ended", "exit status 1", "4 failed"}, false},
		{"a run with no end", func(t *testing.T, db *state.DB) {
			recordRun(t, db, state.Run{Mode: "incremental"})
		}, []string{"run 2", "no end recorded"}, true},
		{"an interrupted run", func(t *testing.T, db *state.DB) {
			recordRun(t, db, state.Run{Mode: "incremental", Ended: runEnded.Add(time.Hour), Stopped: "interrupted", ExitStatus: 2})
		}, []string{"run 2", "exit status 2", "interrupted"}, true},
		{"an incremental run that failed", func(t *testing.T, db *state.DB) {
			recordRun(t, db, state.Run{Mode: "incremental", Updated: 1, Failed: 2, Ended: runEnded.Add(time.Hour), ExitStatus: 1})
		}, []string{"run 2", "2 failed"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, db, _ := makeCopy(t, sample)
			tc.spoil(t, db)
			parent := t.TempDir()
			out := filepath.Join(parent, "bag")
			res, err := Write(context.Background(), st, db, out, Options{})
			if !errors.Is(err, ErrIncomplete) {
				t.Fatalf("err %v, want ErrIncomplete", err)
			}
			if res == nil || len(res.Copies) != 1 || res.Copies[0].Complete() {
				t.Fatalf("result %+v", res)
			}
			why := strings.Join(res.Copies[0].Gaps, "; ")
			for _, r := range tc.reasons {
				if !strings.Contains(why, r) {
					t.Errorf("reasons %q lack %q", why, r)
				}
			}
			if ents, _ := os.ReadDir(parent); len(ents) != 0 {
				t.Errorf("written: %v", ents)
			}

			// Asked for: made, and marked.
			res, err = Write(context.Background(), st, db, out, Options{Incomplete: true})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Incomplete || res.Files != 3 {
				t.Errorf("incomplete %v files %d", res.Incomplete, res.Files)
			}
			info := readInfo(t, out)
			for _, want := range append([]string{"ResourceSync-Copy-Complete: no\n", "ResourceSync-Run: 2\n"}, tc.reasons...) {
				if !strings.Contains(info, want) {
					t.Errorf("bag-info.txt lacks %q:\n%s", want, info)
				}
			}
			if strings.Contains(info, "ResourceSync-Copy-Point") {
				t.Errorf("an incomplete bag states a copy point:\n%s", info)
			}
			if c, _ := Verify(context.Background(), out, nil); !c.Valid() {
				t.Errorf("problems: %v", c.Problems)
			}
		})
	}
}

// A run that could not plan (the Source unreachable) changed nothing in the
// copy: the bag reflects the run before it, and names the later one.
func TestWriteAfterARunThatCouldNotPlan(t *testing.T) {
	st, db, _ := makeCopy(t, sample)
	recordRun(t, db, state.Run{Mode: "plan", Ended: runEnded.Add(time.Hour), Stopped: "the run could not plan: GET http://example.org/capabilitylist.xml: 503", ExitStatus: 2})
	out := filepath.Join(t.TempDir(), "bag")
	res, err := Write(context.Background(), st, db, out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Copies[0].Run.ID != 1 || res.Incomplete {
		t.Errorf("reflects run %d, incomplete %v", res.Copies[0].Run.ID, res.Incomplete)
	}
	info := readInfo(t, out)
	for _, want := range []string{"ResourceSync-Run: 1\n", "ResourceSync-Later-Run: 2 ended 2026-11-02T11:30:00Z: the run could not plan: GET http://example.org/capabilitylist.xml: 503\n", "ResourceSync-Copy-Complete: yes\n"} {
		if !strings.Contains(info, want) {
			t.Errorf("bag-info.txt lacks %q:\n%s", want, info)
		}
	}
}

// With Options.Incomplete a file that does not match its record is left
// out, counted, and the bag says the copy is not complete.
func TestWriteIncompleteLeavesRefusedOut(t *testing.T) {
	st, db, dir := makeCopy(t, sample)
	os.Remove(filepath.Join(dir, "example.org/a.txt"))
	out := filepath.Join(t.TempDir(), "bag")
	res, err := Write(context.Background(), st, db, out, Options{Incomplete: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 2 || len(res.Refused) != 1 || !res.Incomplete || res.Copies[0].Refused != 1 {
		t.Errorf("files %d refused %v incomplete %v", res.Files, res.Refused, res.Incomplete)
	}
	info := readInfo(t, out)
	for _, want := range []string{"ResourceSync-Copy-Complete: no\n", "ResourceSync-Left-Out-Refused: 1\n", "not match the state's records"} {
		if !strings.Contains(info, want) {
			t.Errorf("bag-info.txt lacks %q:\n%s", want, info)
		}
	}
	if strings.Contains(info, "ResourceSync-Copy-Point") {
		t.Errorf("a bag without a file of the copy states the copy's point:\n%s", info)
	}
	if c, _ := Verify(context.Background(), out, nil); !c.Valid() {
		t.Errorf("problems: %v", c.Problems)
	}
}

// rsx bag --verify reads a bag made by the Library of Congress bagit.py
// 1.9 (testdata/bagitpy.md says what it writes): BagIt 0.97, two spaces in
// its manifests, sha512, and "%" written as it is in payload names, which
// an RFC 8493 reading would decode; and still finds it spoilt.
func TestVerifyReadsBagitPyBags(t *testing.T) {
	c, err := Verify(context.Background(), "testdata/bagitpy", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Valid() || c.Files != 5 || c.Version != "0.97" || !slices.Equal(c.Manifests, []string{"sha256", "sha512"}) {
		t.Errorf("valid %v files %d version %s manifests %v problems %v", c.Valid(), c.Files, c.Version, c.Manifests, c.Problems)
	}
	for _, spoil := range []string{"data/a%25b.txt", "data/100%.txt"} {
		dir := filepath.Join(t.TempDir(), "bag")
		if err := os.CopyFS(dir, os.DirFS("testdata/bagitpy")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, spoil), []byte("changed"), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Verify(context.Background(), dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.Valid() || !strings.Contains(strings.Join(c.Problems, "\n"), spoil+": sha256") {
			t.Errorf("%s changed: problems %v", spoil, c.Problems)
		}
	}
}

// A bag names its files its own way: no "%", CR or LF (bagit.py and
// bagit-java do not decode RFC 8493's %25, %0D, %0A), no character a
// validator splits lines at or strips; the name says what the copy's path
// is, and a tag file keeps the URI, the fetch time and the exact path.
func TestPayloadName(t *testing.T) {
	for _, tc := range []struct{ path, name, back string }{
		{"example.org/a.txt", "example.org/a.txt", ""},
		{"h/p%3Fx=1&y=%2Fz", "h/p^3Fx=1&y=^2Fz", ""},
		{"h/100%25.txt", "h/100^25.txt", ""},
		{"h/%43ON.txt", "h/^43ON.txt", ""},
		{"h/a^b^", "h/a^^b^^", ""},
		{"h/50%", "h/50^_", ""},
		{"h/50%4", "h/50^_4", ""},
		{"h/tab%09x", "h/tab^09x", ""},
		{"h/with space.txt", "h/with space.txt", ""},
		{"h/trailing%20", "h/trailing^20", ""},
		{"h/é.txt", "h/é.txt", ""},
		{"h/tab\tx", "h/tab^09x", "h/tab%09x"},
		{"h/a\u2028b", "h/a^E2^80^A8b", "h/a%E2%80%A8b"},
		{"h/nel\u0085", "h/nel^C2^85", "h/nel%C2%85"},
		{"h/rlo\u202ex", "h/rlo^E2^80^AEx", "h/rlo%E2%80%AEx"},
		{"h/nbsp\u00a0/x", "h/nbsp^C2^A0/x", "h/nbsp%C2%A0/x"},
		{"h/space /x", "h/space^20/x", "h/space%20/x"},
		{"h/bad\xffutf8", "h/bad^FFutf8", "h/bad%FFutf8"},
	} {
		name := PayloadName(tc.path)
		if name != tc.name {
			t.Errorf("PayloadName(%q) = %q, want %q", tc.path, name, tc.name)
		}
		back, err := CopyPath(name)
		want := tc.back
		if want == "" {
			want = tc.path
		}
		if err != nil || back != want {
			t.Errorf("CopyPath(%q) = %q, %v; want %q", name, back, err, want)
		}
	}
	for _, bad := range []string{"a^", "a^x", "a^0", "a^0g", "a%41"} {
		if p, err := CopyPath(bad); err == nil {
			t.Errorf("CopyPath(%q) = %q: not a bag's name", bad, p)
		}
	}
}

func FuzzPayloadName(f *testing.F) {
	for _, s := range []string{"a/b", "p%3Fx", "a^b", "50%", "x\u2028", "trail ", "é", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		name := PayloadName(p)
		if strings.ContainsAny(name, "%\r\n") || !utf8.ValidString(name) || strings.ContainsFunc(name, display.Unsafe) {
			t.Fatalf("PayloadName(%q) = %q", p, name)
		}
		for _, seg := range strings.Split(name, "/") {
			if r, _ := utf8.DecodeLastRuneInString(seg); unicode.IsSpace(r) {
				t.Fatalf("PayloadName(%q) = %q: a name ends in white space", p, name)
			}
		}
		back, err := CopyPath(name)
		if err != nil {
			t.Fatalf("CopyPath(PayloadName(%q) = %q): %v", p, name, err)
		}
		if !strings.ContainsFunc(p, display.Unsafe) && utf8.ValidString(p) && !endsInSpace(p) && back != p {
			t.Fatalf("%q → %q → %q", p, name, back)
		}
	})
}

func endsInSpace(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if r, _ := utf8.DecodeLastRuneInString(seg); r != ' ' && unicode.IsSpace(r) {
			return true
		}
		if strings.HasSuffix(seg, " ") {
			return true
		}
	}
	return false
}

// The names a path rule writes as %XX (a query string, "%", CON, a tab, a
// trailing space) are in the bag under names without "%", the manifests
// list them as every reader reads them, and resourcesync-uris.txt maps each
// back to its URI, its fetch time and its path in the copy.
func TestWriteNamesHostilePaths(t *testing.T) {
	files := []copyRow{
		{uri: "http://example.org/p?x=1&y=/z", path: "example.org/p%3Fx=1&y=%2Fz", body: "query"},
		{uri: "http://example.org/100%25.txt", path: "example.org/100%25.txt", body: "percent"},
		{uri: "http://example.org/CON", path: "example.org/%43ON", body: "device"},
		{uri: "http://example.org/tab%09x", path: "example.org/tab%09x", body: "tab"},
		{uri: "http://example.org/with%20space.txt", path: "example.org/with space.txt", body: "space"},
		{uri: "http://example.org/trailing%20", path: "example.org/trailing%20", body: "trailing"},
		{uri: "http://example.org/caret^", path: "example.org/caret^", body: "caret"},
	}
	st, db, _ := makeCopy(t, files)
	out := filepath.Join(t.TempDir(), "bag")
	if _, err := Write(context.Background(), st, db, out, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"manifest-sha256.txt", "manifest-md5.txt"} {
		b, _ := os.ReadFile(filepath.Join(out, m))
		if strings.Contains(string(b), "%") {
			t.Errorf("%s holds a %%:\n%s", m, b)
		}
	}
	uris, err := os.ReadFile(filepath.Join(out, "resourcesync-uris.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSuffix(string(uris), "\n"), "\n") {
		if !strings.HasPrefix(line, "#") {
			rows = append(rows, strings.Split(line, "\t"))
		}
	}
	if len(rows) != len(files) {
		t.Fatalf("resourcesync-uris.txt: %d rows:\n%s", len(rows), uris)
	}
	for i, f := range files {
		name := "data/" + PayloadName(f.path)
		if b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(name))); err != nil || string(b) != f.body {
			t.Errorf("%s: %q %v", name, b, err)
		}
		if want := []string{name, f.uri, "2026-11-02T10:00:00Z", f.path}; !slices.Equal(rows[i], want) {
			t.Errorf("row %d: %q, want %q", i, rows[i], want)
		}
	}
	c, err := Verify(context.Background(), out, nil)
	if err != nil || !c.Valid() {
		t.Errorf("verify: %v %v", err, c.Problems)
	}
	tm, _ := os.ReadFile(filepath.Join(out, "tagmanifest-sha256.txt"))
	if !strings.Contains(string(tm), " resourcesync-uris.txt\n") {
		t.Errorf("the tag manifest does not cover resourcesync-uris.txt:\n%s", tm)
	}
}

// Text a Source controls (its links, its titles) reaches bag-info.txt on
// one line, without a control, bidirectional or line-separator character,
// which bagit.py would split a line at.
func TestBagInfoSafeText(t *testing.T) {
	st, db, _ := makeCopy(t, sample)
	out := filepath.Join(t.TempDir(), "bag")
	hostile := "a\u2028b\u2029c\u0085d\u009be\u202eevil\u2066f\rg\nh\x1bi\xffj"
	_, err := Write(context.Background(), st, db, out, Options{Info: []Field{{"ResourceSync-Source-Description-Link", hostile}, {"Bad\u2028Label:x", "v"}}})
	if err != nil {
		t.Fatal(err)
	}
	info := readInfo(t, out)
	if !utf8.ValidString(info) || strings.ContainsFunc(strings.ReplaceAll(info, "\n", ""), display.Unsafe) {
		t.Errorf("bag-info.txt holds unsafe text: %q", info)
	}
	if !strings.Contains(info, "ResourceSync-Source-Description-Link: a b c d e evil f g h i\uFFFDj\n") || !strings.Contains(info, "\nBadLabelx: v\n") {
		t.Errorf("bag-info.txt: %q", info)
	}
}

// A copy of several Sources is complete only when each is; the refusal
// names the one that is not, and --source bags the others.
func TestWriteSeveralSources(t *testing.T) {
	st, db, dir := makeCopy(t, sample)
	ctx := context.Background()
	other, err := db.EnsureSource(ctx, "http://example.net/capabilitylist.xml")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "example.net"), 0o755)
	os.WriteFile(filepath.Join(dir, "example.net/n.txt"), []byte("net"), 0o644)
	fi, _ := os.Stat(filepath.Join(dir, "example.net/n.txt"))
	w := db.NewWriter(state.WriterOptions{})
	if err := w.PutResource(ctx, &state.Resource{SourceID: other.ID, URI: "http://example.net/n.txt", Path: "example.net/n.txt", Length: 3,
		Digests: state.Digests("sha-256:" + sha("net")), FetchedAt: fetchedAt, VerifiedAt: fetchedAt, FileMTime: fi.ModTime()}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	recordRun(t, db, state.Run{SourceID: other.ID, Mode: "baseline", Created: 1, Failed: 1, Ended: runEnded, ExitStatus: 1})

	res, err := Write(ctx, st, db, filepath.Join(t.TempDir(), "bag"), Options{})
	if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "example.net") || strings.Contains(err.Error(), "example.org") {
		t.Fatalf("err %v", err)
	}
	if len(res.Copies) != 2 || !res.Copies[0].Complete() || res.Copies[1].Complete() {
		t.Errorf("copies %+v", res.Copies)
	}
	out := filepath.Join(t.TempDir(), "bag")
	res, err = Write(ctx, st, db, out, Options{Sources: []string{"http://example.org/capabilitylist.xml"}})
	if err != nil || res.Files != 3 || res.Incomplete {
		t.Fatalf("--source: %v, %d files", err, res.Files)
	}
	out = filepath.Join(t.TempDir(), "bag")
	if res, err = Write(ctx, st, db, out, Options{Incomplete: true}); err != nil || res.Files != 4 || !res.Incomplete {
		t.Fatalf("--incomplete: %v", err)
	}
	info := readInfo(t, out)
	if strings.Count(info, "ResourceSync-Capability-List: ") != 2 || !strings.Contains(info, "ResourceSync-Copy-Complete: yes\n") || !strings.Contains(info, "ResourceSync-Copy-Complete: no\n") {
		t.Errorf("bag-info.txt:\n%s", info)
	}
}
