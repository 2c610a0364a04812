package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"rsx/dest/plan"
	"rsx/dest/state"
	"rsx/dest/store"
)

// manySource is a fake Source of n resources /r/NNNN in one Resource List.
func manySource(t *testing.T, n int) *fakeSource {
	f := newFakeSource(t)
	f.setDoc("/cap.xml", capList(map[string]string{"resourcelist": "/rl.xml"}))
	entries := make([]string, n)
	for i := range n {
		p := fmt.Sprintf("/r/%04d", i)
		body := []byte(strings.Repeat(fmt.Sprintf("resource %d\n", i), 20))
		f.setRes(p, body)
		entries[i] = rlEntry(p, body, "2030-01-01T09:00:00Z")
	}
	f.setDoc("/rl.xml", resourceList("2030-01-01T10:00:00Z", entries...))
	return f
}

// assertConsistent checks that every row of the state has its file, whole
// (its length and digests hold), and that every file of the copy has a row.
func assertConsistent(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	db, err := state.Open(ctx, filepath.Join(dir, ".rsx", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srcs, err := db.Sources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, src := range srcs {
		err := db.EachResource(ctx, src.ID, false, func(r *state.Resource) error {
			rows[r.Path] = true
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.Path)))
			if err != nil {
				t.Errorf("row %s: %v", r.URI, err)
				return nil
			}
			v := claimsOf(&plan.Entry{Length: r.Length, Digests: r.Digests})
			if int64(len(b)) != v.Length {
				t.Errorf("%s: %d bytes, recorded %d", r.Path, len(b), v.Length)
			}
			if h, ok := r.Digests.Get("md5"); ok && h != md5hex(b) {
				t.Errorf("%s: md5 %s, recorded %s", r.Path, md5hex(b), h)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// A file committed but not recorded yet (its batch was lost) is
	// allowed, whole (the callers check): the next run adopts it.
	unrecorded := 0
	for _, p := range files(t, dir) {
		if !rows[p] {
			unrecorded++
		}
	}
	t.Logf("%d rows, %d files without a row yet", len(rows), unrecorded)
}

// assertWhole checks that every file of a copy of manySource is whole.
func assertWhole(t *testing.T, f *fakeSource, dir string) {
	t.Helper()
	for _, p := range files(t, dir) {
		rel := strings.TrimPrefix(p, f.hostDir())
		f.mu.Lock()
		want, ok := f.res[rel]
		f.mu.Unlock()
		if got := readFile(t, dir, p); !ok || string(got) != string(want) {
			t.Errorf("%s is not the resource's bytes (%d bytes)", p, len(got))
		}
	}
}

func TestTamperedResource(t *testing.T) {
	f := manySource(t, 20)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	// The Source lists a new version of r/0003, but serves other bytes.
	good := []byte("resource 3, version 2\n")
	f.setRes("/r/0003", []byte("tampered bytes, not what the list says\n"))
	f.mu.Lock()
	doc := f.docs["/rl.xml"]
	f.mu.Unlock()
	old := rlEntry("/r/0003", []byte(strings.Repeat("resource 3\n", 20)), "2030-01-01T09:00:00Z")
	f.setDoc("/rl.xml", strings.Replace(strings.Replace(doc, old, rlEntry("/r/0003", good, "2030-01-01T11:00:00Z"), 1), "2030-01-01T10:00:00Z", "2030-01-01T11:30:00Z", 1))
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if res.OK() || res.FailedCount != 1 || res.Failed[0].Kind != KindVerify || res.Finished {
		t.Fatalf("failed %+v, finished %v", res.Failed, res.Finished)
	}
	fl := res.Failed[0]
	p := f.hostDir() + "/r/0003"
	if got := readFile(t, dir, p); string(got) != strings.Repeat("resource 3\n", 20) {
		t.Errorf("the old copy was not kept: %q", got)
	}
	if kept, err := os.ReadFile(fl.Rejected); err != nil || string(kept) != "tampered bytes, not what the list says\n" || !strings.Contains(fl.Rejected, filepath.Join(".rsx", "rejected")) {
		t.Errorf("rejected bytes at %q: %q %v", fl.Rejected, kept, err)
	}
	if !strings.Contains(fl.Error(), "md5 declared") {
		t.Errorf("error %v", fl.Err)
	}
	assertConsistent(t, dir)
}

func TestNotFoundAndServerErrorsInTheMiddle(t *testing.T) {
	f := manySource(t, 60)
	f.setCode("/r/0017", 404)
	f.setCode("/r/0033", 500)
	dir := t.TempDir()
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if res.OK() || res.FailedCount != 2 || res.Created != 58 || res.Finished {
		t.Fatalf("created %d, failed %d, finished %v", res.Created, res.FailedCount, res.Finished)
	}
	status := map[string]int{}
	for _, fl := range res.Failed {
		status[strings.TrimPrefix(fl.URL, f.srv.URL)] = fl.Status
		if fl.Kind != KindFetch {
			t.Errorf("%s: kind %s", fl.URL, fl.Kind)
		}
	}
	if status["/r/0017"] != 404 || status["/r/0033"] != 500 {
		t.Errorf("statuses %v", status)
	}
	if len(res.FailedByKind) != 1 || res.FailedByKind[KindFetch] != 2 {
		t.Errorf("failures by kind %v", res.FailedByKind)
	}
	if f.hitsOf("/r/0033") < 2 {
		t.Errorf("a 500 was not retried")
	}
	assertWhole(t, f, dir)
	assertConsistent(t, dir)
	// The Source recovers: the next run fetches those two only, and
	// finishes the baseline.
	f.setCode("/r/0017", 0)
	f.setCode("/r/0033", 0)
	f.resetHits()
	res = syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !res.OK() || res.Created != 2 || !res.Finished || res.Plan.Mode != ModeBaseline || f.resourceHits() != 2 {
		t.Errorf("second run: created %d, finished %v, mode %s, %d requests:%s", res.Created, res.Finished, res.Plan.Mode, f.resourceHits(), failures(res))
	}
}

func TestRetryFailures(t *testing.T) {
	f := manySource(t, 10)
	f.setCode("/r/0004", 503)
	s := openSession(t, t.TempDir(), testClient(t), Options{})
	p, err := s.Plan(context.Background(), f.target(), PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), p)
	if err != nil || res.FailedCount != 1 {
		t.Fatalf("%v, failed %d", err, res.FailedCount)
	}
	if _, err := s.Run(context.Background(), p); err == nil {
		t.Error("a plan ran twice")
	}
	f.setCode("/r/0004", 0)
	retry := res.Retry()
	if retry == nil || retry.Summary.Create != 1 {
		t.Fatalf("retry plan %+v", retry)
	}
	res2, err := s.Run(context.Background(), retry)
	if err != nil || !res2.OK() || res2.Created != 1 || !res2.Finished {
		t.Fatalf("retry: %v, %+v:%s", err, res2, failures(res2))
	}
	retry.Close()
	p.Close()
}

// fullStore is a folder store whose writes fail with ENOSPC once limit
// bytes were written through it.
type fullStore struct {
	store.Store
	left atomic.Int64
}

func (s *fullStore) Create(ctx context.Context, p string, m store.Meta) (store.Writer, error) {
	w, err := s.Store.Create(ctx, p, m)
	if err != nil {
		return nil, err
	}
	return &fullWriter{Writer: w, s: s}, nil
}

type fullWriter struct {
	store.Writer
	s *fullStore
}

func (w *fullWriter) Write(b []byte) (int, error) {
	if w.s.left.Add(-int64(len(b))) < 0 {
		return 0, fmt.Errorf("write: %w", &os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC})
	}
	return w.Writer.Write(b)
}

func TestDiskFullStopsCleanly(t *testing.T) {
	f := manySource(t, 300)
	dir := t.TempDir()
	d, err := store.OpenDir(dir, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	full := &fullStore{Store: d}
	full.left.Store(100 * 220) // room for about 100 resources
	s, err := Open(context.Background(), full, testClient(t), Options{Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Plan(context.Background(), f.target(), PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	s.Close()
	d.Close()
	if !strings.Contains(res.Stopped, "the destination is full") || res.Created == 0 || res.Created >= 300 || res.Finished {
		t.Fatalf("stopped %q, created %d, finished %v", res.Stopped, res.Created, res.Finished)
	}
	if res.FailedCount > 4 {
		t.Errorf("%d failures after the disk filled: the run did not stop", res.FailedCount)
	}
	assertWhole(t, f, dir)
	assertConsistent(t, dir)
	// Room again: the next run finishes, fetching only what is missing.
	f.resetHits()
	res = syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !res.OK() || !res.Finished || res.Created+res.Plan.Summary.Unchanged != 300 || f.resourceHits() != res.Created-res.Adopted {
		t.Errorf("after the disk was freed: created %d (adopted %d), unchanged %d, %d requests:%s", res.Created, res.Adopted, res.Plan.Summary.Unchanged, f.resourceHits(), failures(res))
	}
	assertWhole(t, f, dir)
}

// slowSource delays every resource, so that a run can be stopped in its
// middle.
func slowSource(t *testing.T, n int) (*fakeSource, func()) {
	f := manySource(t, n)
	release := make(chan struct{})
	var once sync.Once
	var served atomic.Int64
	f.mu.Lock()
	f.hook = func(p string) {
		if strings.HasPrefix(p, "/r/") && served.Add(1) > int64(n/3) {
			<-release
		}
	}
	f.mu.Unlock()
	return f, func() { once.Do(func() { close(release) }) }
}

func TestCancelledRunResumes(t *testing.T) {
	f, release := slowSource(t, 90)
	defer release()
	dir := t.TempDir()
	s := openSession(t, dir, testClient(t), Options{Concurrency: 4})
	p, err := s.Plan(context.Background(), f.target(), PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *Result)
	go func() {
		res, err := s.Run(ctx, p)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	for f.resourceHits() < 34 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	res := <-done
	release()
	p.Close()
	s.Close()
	if res.Stopped != "interrupted" || res.FailedCount != 0 || res.Finished || res.Created < 25 || res.Created > 34 {
		t.Fatalf("stopped %q, failed %d:%s, finished %v, created %d", res.Stopped, res.FailedCount, failures(res), res.Finished, res.Created)
	}
	assertWhole(t, f, dir)
	assertConsistent(t, dir)
	f.resetHits()
	res2 := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !res2.OK() || !res2.Finished || res2.Created != 90-res.Created || f.resourceHits() != 90-res.Created {
		t.Errorf("the next run: created %d, %d requests, want %d:%s", res2.Created, f.resourceHits(), 90-res.Created, failures(res2))
	}
}

func TestSourceChangingDuringTheSync(t *testing.T) {
	f, release := slowSource(t, 60)
	defer release()
	dir := t.TempDir()
	s := openSession(t, dir, testClient(t), Options{Concurrency: 4})
	p, err := s.Plan(context.Background(), f.target(), PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// While the run waits, the Source changes ten resources it has not
	// fetched yet, and records the changes in a Change List after the
	// Resource List's at.
	f.setDoc("/cap.xml", capList(map[string]string{"resourcelist": "/rl.xml", "changelist": "/cl.xml"}))
	var changes []string
	for i := 50; i < 60; i++ {
		body := []byte(fmt.Sprintf("resource %d, changed during the sync\n", i))
		f.setRes(fmt.Sprintf("/r/%04d", i), body)
		changes = append(changes, clEntry(fmt.Sprintf("/r/%04d", i), "updated", "2030-01-01T10:30:00Z", body))
	}
	f.setDoc("/cl.xml", changeList("2030-01-01T10:00:00Z", "", changes...))
	release()
	res, err := s.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	s.Close()
	// The changed ones do not verify against the list: they are not
	// written, and the baseline is not finished.
	if res.FailedCount != 10 || res.Created != 50 || res.Finished {
		t.Fatalf("created %d, failed %d, finished %v", res.Created, res.FailedCount, res.Finished)
	}
	for _, fl := range res.Failed {
		if fl.Kind != KindVerify {
			t.Errorf("%s: %s", fl.URL, fl.Kind)
		}
	}
	assertConsistent(t, dir)
	// The baseline is continued by the next run, from the Resource List
	// the Source publishes then, which declares the new bytes.
	f.mu.Lock()
	var entries []string
	for i := range 60 {
		entries = append(entries, rlEntry(fmt.Sprintf("/r/%04d", i), f.res[fmt.Sprintf("/r/%04d", i)], "2030-01-01T10:30:00Z"))
	}
	f.mu.Unlock()
	f.setDoc("/rl.xml", resourceList("2030-01-01T10:40:00Z", entries...))
	res = syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !res.OK() || res.Created != 10 || !res.Finished {
		t.Errorf("after a new Resource List: created %d:%s", res.Created, failures(res))
	}
	assertWhole(t, f, dir)
	rep := auditOnce(t, dir, testClient(t), f.target())
	if !rep.InSync() {
		t.Errorf("audit: %+v", rep)
	}
}

func TestOutsideTheAuthorityIsRefused(t *testing.T) {
	f := newFakeSource(t)
	other := newFakeSource(t)
	other.setRes("/r/x", []byte("x\n"))
	f.setRes("/r/a", []byte("a\n"))
	f.setDoc("/cap.xml", capList(map[string]string{"resourcelist": "/rl.xml"}))
	f.setDoc("/rl.xml", resourceList("2030-01-01T10:00:00Z",
		rlEntry("/r/a", []byte("a\n"), "2030-01-01T09:00:00Z"),
		strings.ReplaceAll(rlEntry("/r/x", []byte("x\n"), "2030-01-01T09:00:00Z"), "{{base}}", other.srv.URL)))
	dir := t.TempDir()
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if res.Created != 1 || res.Plan.Summary.Refused != 1 || !strings.Contains(res.Plan.Refused[0].Error(), "authority") || other.resourceHits() != 0 {
		t.Fatalf("created %d, refused %+v, %d requests to the other host", res.Created, res.Plan.Refused, other.resourceHits())
	}
	res = syncOnce(t, t.TempDir(), testClient(t), f.target(), PlanOptions{AllowOtherHosts: true})
	if !res.OK() || res.Created != 2 {
		t.Errorf("allowed: created %d:%s", res.Created, failures(res))
	}
}

// The mapping's edge cases, through a whole sync: each URI lands at its
// path, and URIs that share one are a collision, never an overwrite.
func TestMappingEdgeCases(t *testing.T) {
	f := newFakeSource(t)
	f.setDoc("/cap.xml", capList(map[string]string{"resourcelist": "/rl.xml"}))
	long := strings.Repeat("n", 300)
	cases := []struct{ served, listed, path string }{
		{"/r/a%20b", "/r/a%20b", "/r/a b"},
		{"/r/caf%C3%A9", "/r/caf%C3%A9", "/r/café"},
		{"/r/cafe%CC%81x", "/r/cafe%CC%81x", "/r/caféx"}, // decomposed é, written composed (NFC)
		{"/r/q?x=1&y=/z", "/r/q?x=1&amp;y=/z", "/r/q%3Fx=1&y=%2Fz"},
		{"/r/dir/", "/r/dir/", "/r/dir/index.html"},
		{"/r/up", "/r/x/../up", "/r/up"},
		{"/r/%2Fslash", "/r/%2Fslash", "/r/%2Fslash"},
		{"/r/CON.txt", "/r/CON.txt", "/r/%43ON.txt"},
	}
	var entries []string
	for i, c := range cases {
		body := []byte(fmt.Sprintf("case %d\n", i))
		f.setRes(c.served, body)
		entries = append(entries, rlEntry(c.listed, body, "2030-01-01T09:00:00Z"))
	}
	f.setRes("/r/"+long, []byte("long\n"))
	entries = append(entries, rlEntry("/r/"+long, []byte("long\n"), "2030-01-01T09:00:00Z"))
	// Two URIs of one path: the smaller wins, the other is refused.
	f.setRes("/r/same", []byte("same\n"))
	f.setRes("/r//same", []byte("same\n"))
	entries = append(entries, rlEntry("/r/same", []byte("same\n"), "2030-01-01T09:00:00Z"), rlEntry("/r//same", []byte("same\n"), "2030-01-01T09:00:00Z"))
	f.setDoc("/rl.xml", resourceList("2030-01-01T10:00:00Z", entries...))
	dir := t.TempDir()
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if res.Created != len(cases)+2 || res.FailedCount != 0 || len(res.Plan.Refused) != 1 || res.Plan.Refused[0].Kind != KindCollision ||
		res.Plan.Refused[0].URL != f.srv.URL+"/r/same" {
		t.Fatalf("created %d, refused %v, failed:%s", res.Created, res.Plan.Refused, failures(res))
	}
	got := files(t, dir)
	for i, c := range cases {
		p := f.hostDir() + c.path
		if !slices.Contains(got, p) {
			t.Errorf("%s: no file %s in %q", c.listed, p, got)
			continue
		}
		if b := readFile(t, dir, p); string(b) != fmt.Sprintf("case %d\n", i) {
			t.Errorf("%s: %q", p, b)
		}
	}
	longs := 0
	for _, p := range got {
		for _, seg := range strings.Split(p, "/") {
			if len(seg) > 255 {
				t.Errorf("a name of %d bytes", len(seg))
			}
		}
		if strings.HasPrefix(p, f.hostDir()+"/r/nnnn") {
			longs++
		}
	}
	if longs != 1 {
		t.Errorf("the long name: %d files", longs)
	}
	for _, p := range got {
		if !strings.HasPrefix(p, f.hostDir()+"/") {
			t.Errorf("%s is outside the host's folder", p)
		}
	}
}

// The failures are counted by kind past those listed: a metric of a run
// with more failures than Failed keeps says what they were.
func TestFailuresCountedByKindPastTheListed(t *testing.T) {
	r := &runner{res: &Result{}}
	for i := range maxListed + 5 {
		kind := KindFetch
		if i%2 == 1 {
			kind = KindVerify
		}
		r.addFailure(Failure{URL: fmt.Sprintf("http://h/r/%d", i), Kind: kind})
	}
	res := r.res
	if res.FailedCount != maxListed+5 || len(res.Failed) != maxListed {
		t.Fatalf("counted %d, listed %d", res.FailedCount, len(res.Failed))
	}
	if res.FailedByKind[KindFetch] != (maxListed+5+1)/2 || res.FailedByKind[KindVerify] != (maxListed+5)/2 {
		t.Errorf("by kind %v", res.FailedByKind)
	}
}
