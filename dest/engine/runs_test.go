package engine

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"rsx/demo"
	"rsx/dest/state"
)

// Every run is recorded in the state's run table: its mode, counts, the
// copy's point and its exit status, newest first.
func TestRunsAreRecorded(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 200, Seed: 3})
	dir := t.TempDir()
	target := srv.URL + "/dataset2/capabilitylist.xml"
	first := syncOnce(t, dir, testClient(t), target, PlanOptions{})
	advance(t, srv.URL, 2)
	second := syncOnce(t, dir, testClient(t), target, PlanOptions{})
	third := syncOnce(t, dir, testClient(t), target, PlanOptions{Mode: ModeBaseline})
	if !first.OK() || !second.OK() || !third.OK() {
		t.Fatalf("runs failed: %s %s %s", failures(first), failures(second), failures(third))
	}
	db, err := state.OpenReadOnly(context.Background(), filepath.Join(dir, ".rsx", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var runs []state.Run
	if err := db.Runs(context.Background(), 0, 0, func(r *state.Run) error { runs = append(runs, *r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 {
		t.Fatalf("%d runs recorded, want 3", len(runs))
	}
	want := []struct {
		mode string
		res  *Result
	}{{"reconcile", third}, {"incremental", second}, {"baseline", first}}
	for i, w := range want {
		r := runs[i]
		if r.Mode != w.mode || r.Created != w.res.Created || r.Updated != w.res.Updated || r.Deleted != w.res.Deleted ||
			r.Bytes != w.res.Bytes || r.ExitStatus != 0 || r.Ended.IsZero() || !r.Finished || !r.SyncedUntil.Equal(w.res.SyncedUntil) ||
			r.Source != target || r.Version == "" {
			t.Errorf("run %d: %+v, want mode %s and the result's counts %d/%d/%d", i, r, w.mode, w.res.Created, w.res.Updated, w.res.Deleted)
		}
	}
	if runs[0].Why == "" {
		t.Error("a reconcile's run does not say why")
	}
}

// A run keeps the Source's documents its plan read, as received: the bytes
// read back are those the Source served, and equal bytes are kept once.
func TestRunKeepsTheSourceDocuments(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 200, Seed: 3})
	dir := t.TempDir()
	target := srv.URL + "/dataset2/capabilitylist.xml"
	syncOnce(t, dir, testClient(t), target, PlanOptions{})
	syncOnce(t, dir, testClient(t), target, PlanOptions{Mode: ModeBaseline})
	ctx := context.Background()
	db, err := state.OpenReadOnly(ctx, filepath.Join(dir, ".rsx", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r, _, _ := db.LastRun(ctx, 0)
	docs, err := db.RunDocuments(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	var cl *state.RunDocument
	for i := range docs {
		if docs[i].URL == target {
			cl = &docs[i]
		}
	}
	if cl == nil || len(docs) < 2 {
		t.Fatalf("documents kept of the run: %+v", docs)
	}
	gz, err := db.DocumentGzip(ctx, r.ID, target)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	kept, _ := io.ReadAll(zr)
	resp, err := http.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(kept, served) || int64(len(served)) != cl.Length {
		t.Errorf("the Capability List kept (%d bytes) is not the one served (%d bytes)", len(kept), len(served))
	}
	// Both runs read the same Capability List: one copy of its bytes.
	raw, _ := sql.Open("sqlite", filepath.Join(dir, ".rsx", "state.db"))
	defer raw.Close()
	var runs, blobs int
	raw.QueryRow(`SELECT count(DISTINCT run_id), count(DISTINCT sha256) FROM run_document WHERE url = ?`, target).Scan(&runs, &blobs)
	if runs != 2 || blobs != 1 {
		t.Errorf("the Capability List: in %d runs, %d copies of its bytes; want 2 and 1", runs, blobs)
	}
}

// A run keeps at most maxCapturedDocs of the documents its plan read, the
// first read: a Resource List Index of a million parts kept a file and 400
// bytes of memory for each part until the run stored them (issue 23).
func TestRunKeepsBoundedDocuments(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 200, Seed: 3, ListSize: 20})
	dir := t.TempDir()
	target := srv.URL + "/dataset1/capabilitylist.xml"
	s := openSession(t, dir, testClient(t), Options{})
	s.capture.maxDocs = 3
	ctx := context.Background()
	p, err := s.Plan(ctx, target, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Summary.Documents <= 3 {
		t.Fatalf("the plan read %d documents; the test wants more than 3", p.Summary.Documents)
	}
	if spooled, _ := filepath.Glob(filepath.Join(dir, ".rsx", "tmp", "rsx-doc-*")); len(spooled) > 3 {
		t.Errorf("%d documents spooled, want at most 3", len(spooled))
	}
	res, err := s.Run(ctx, p)
	if err != nil || !res.OK() {
		t.Fatalf("run: %v%s", err, failures(res))
	}
	r, _, _ := s.db.LastRun(ctx, 0)
	docs, err := s.db.RunDocuments(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	for _, d := range docs {
		kept[d.URL] = true
	}
	if len(docs) != 3 || !kept[target] {
		t.Errorf("kept %d documents (the Capability List: %v), want 3 with it", len(docs), kept[target])
	}
}

// A run that cannot plan (the Source gone) is recorded in the history of a
// DEST that holds the Source, with exit status 2 and why; on a DEST that
// does not hold it, nothing is written.
func TestPlanFailureRecorded(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 50, Seed: 3})
	dir := t.TempDir()
	target := srv.URL + "/dataset2/capabilitylist.xml"
	syncOnce(t, dir, testClient(t), target, PlanOptions{})
	srv.Close()
	s := openSession(t, dir, testClient(t), Options{})
	_, err := s.Plan(context.Background(), target, PlanOptions{})
	if err == nil {
		t.Fatal("a plan against a Source that is gone succeeded")
	}
	if !s.RecordPlanFailure(context.Background(), target, fixtureClock(), err) {
		t.Fatal("not recorded")
	}
	r, _, _ := s.DB().LastRun(context.Background(), 0)
	if r.Mode != "plan" || r.ExitStatus != 2 || r.Stopped == "" || r.Ended.IsZero() {
		t.Errorf("the failed run: %+v", r)
	}
	other := openSession(t, t.TempDir(), testClient(t), Options{})
	if other.RecordPlanFailure(context.Background(), target, fixtureClock(), err) {
		t.Error("recorded in a DEST that does not hold the Source")
	}
}

// interruptedBaseline runs a baseline of f into dir and cancels it when
// the Source has served after resources: the interrupted run's result.
func interruptedBaseline(t *testing.T, dir string, f *fakeSource, after int) *Result {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var served atomic.Int64
	f.mu.Lock()
	f.hook = func(p string) {
		if strings.HasPrefix(p, "/r/") && served.Add(1) == int64(after) {
			cancel()
		}
	}
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.hook = nil; f.mu.Unlock() }()
	s := openSession(t, dir, testClient(t), Options{Concurrency: 2, StateBatch: 10})
	p, err := s.Plan(context.Background(), f.target(), PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	res, err := s.Run(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if res.Stopped != "interrupted" || res.Created == 0 || res.Created >= p.Summary.Create {
		t.Fatalf("the baseline was not interrupted in its middle: stopped %q, created %d of %d", res.Stopped, res.Created, p.Summary.Create)
	}
	return res
}

// A baseline continued after an interruption is recorded as what it is, a
// baseline resumed, not as the "--mode baseline" the user never gave.
func TestResumedBaselineRecordedAsResumed(t *testing.T) {
	f := manySource(t, 100)
	dir := t.TempDir()
	interruptedBaseline(t, dir, f, 20)
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !res.OK() || !res.Plan.Resumed {
		t.Fatalf("the next run: resumed %v%s", res.Plan.Resumed, failures(res))
	}
	db, err := state.OpenReadOnly(context.Background(), filepath.Join(dir, ".rsx", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r, _, err := db.LastRun(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Mode != "baseline" || !strings.HasPrefix(r.Why, "resumed") || strings.Contains(r.Why, "--mode") {
		t.Errorf("the resumed baseline is recorded as mode %q, why %q", r.Mode, r.Why)
	}
}

// runFiles reads the files of run id in dir's state, by kind and path
// ("created a/b").
func runFiles(t *testing.T, dir string, id int64) (map[string]state.RunFile, state.Run) {
	t.Helper()
	db, err := state.OpenReadOnly(context.Background(), filepath.Join(dir, ".rsx", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := map[string]state.RunFile{}
	if err := db.RunFiles(context.Background(), id, func(f *state.RunFile) error {
		out[string(f.Kind)+" "+f.URI] = *f
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	r, ok, err := db.Run(context.Background(), id)
	if err != nil || !ok {
		t.Fatalf("run %d: %v %v", id, ok, err)
	}
	return out, r
}

// A run records each file it created, updated and deleted, and each
// resource it refused or failed, with the path, length and digests of the
// copy; its row's counts agree with them.
func TestRunRecordsItsFiles(t *testing.T) {
	f := newFakeSource(t)
	f.setDoc("/cap.xml", capList(map[string]string{"resourcelist": "/rl.xml"}))
	a, b, c, d := []byte("aaa"), []byte("bbbb"), []byte("ccccc"), []byte("dd")
	for p, body := range map[string][]byte{"/r/a": a, "/r/b": b, "/r/c": c, "/r/d": d} {
		f.setRes(p, body)
	}
	const lm = "2030-01-01T09:00:00Z"
	f.setDoc("/rl.xml", resourceList("2030-01-01T10:00:00Z", rlEntry("/r/a", a, lm), rlEntry("/r/b", b, lm), rlEntry("/r/c", c, lm)))
	dir := t.TempDir()
	first := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !first.OK() || first.Created != 3 {
		t.Fatalf("first run: created %d%s", first.Created, failures(first))
	}
	files, row := runFiles(t, dir, 1)
	base := f.srv.URL
	if len(files) != 3 || row.Created != 3 || row.Bytes != 12 {
		t.Fatalf("the first run's files %+v, row %+v", files, row)
	}
	if cr := files["created "+base+"/r/a"]; cr.Length != 3 || cr.Digests != state.Digests("md5:"+md5hex(a)) || cr.At.IsZero() || !strings.HasSuffix(cr.Path, "/r/a") {
		t.Errorf("created a: %+v", cr)
	}
	// b changes, c goes, d is new and fails, a resource of another host is
	// refused.
	b2 := []byte("BBBBBB")
	f.setRes("/r/b", b2)
	f.setCode("/r/d", 404)
	f.setDoc("/rl.xml", resourceList("2030-01-02T10:00:00Z", rlEntry("/r/a", a, lm), rlEntry("/r/b", b2, "2030-01-02T09:00:00Z"),
		rlEntry("/r/d", d, lm), strings.Replace(rlEntry("/r/e", a, lm), "{{base}}", "http://elsewhere.example", 1)))
	second := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Mode: ModeBaseline, Delete: true})
	if second.Updated != 1 || second.Deleted != 1 || second.FailedCount != 1 {
		t.Fatalf("second run: updated %d, deleted %d, failed %d%s", second.Updated, second.Deleted, second.FailedCount, failures(second))
	}
	files, row = runFiles(t, dir, 2)
	up, del, fail, ref := files["updated "+base+"/r/b"], files["deleted "+base+"/r/c"], files["failed "+base+"/r/d"], files["refused http://elsewhere.example/r/e"]
	if up.Length != 6 || up.Digests != state.Digests("md5:"+md5hex(b2)) || up.Note == "" || !strings.HasSuffix(up.Path, "/r/b") {
		t.Errorf("updated b: %+v", up)
	}
	if del.Length != 5 || !strings.HasSuffix(del.Path, "/r/c") {
		t.Errorf("deleted c: %+v", del)
	}
	if !strings.Contains(fail.Note, "404") || ref.Note == "" || len(files) != 4 {
		t.Errorf("files of the second run: %+v", files)
	}
	if row.Updated != 1 || row.Deleted != 1 || row.Failed != 1 || row.Created != 0 {
		t.Errorf("the second run's row: %+v", row)
	}
}

// An interrupted run (ctrl+c, SIGTERM: its context cancelled) is recorded
// as interrupted, with what it wrote, its files listed.
func TestInterruptedRunRecorded(t *testing.T) {
	f := manySource(t, 100)
	dir := t.TempDir()
	res := interruptedBaseline(t, dir, f, 20)
	files, row := runFiles(t, dir, 1)
	if !row.Interrupted() || row.Stopped != state.StoppedInterrupted || row.Ended.IsZero() || row.ExitStatus != 2 ||
		row.Created != res.Created || len(files) != res.Created {
		t.Errorf("the interrupted run: %+v, %d files; the run created %d", row, len(files), res.Created)
	}
}
