package republish

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"rsx/demo"
	"rsx/dest/engine"
	"rsx/dest/state"
	"rsx/dest/store"
	"rsx/model"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// The documents of a copy of many runs, laid out small (parts of 40 rows,
// Change Lists of 40 run_file rows, 3 in the index): a Resource List
// index, Change Lists that follow one another into an archive; rsx
// validate --recursive finds nothing to say of them, and a Destination
// that copies them is in sync, then follows them incrementally.
func TestSmallLayoutValidatesAndSyncs(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 300})
	A := t.TempDir()
	target := srv.URL + "/dataset1/capabilitylist.xml"
	syncDir(t, A, target, engine.PlanOptions{})
	for range 6 {
		advance(t, srv.URL, 3)
		syncDir(t, A, target, engine.PlanOptions{Delete: true})
	}
	s, base := serveDir(t, A, shape{bucket: 40, live: 3})
	if probs, docs := problems(t, base); len(probs) > 0 || docs < 10 {
		t.Errorf("%d documents, problems:\n%s", docs, strings.Join(probs, "\n"))
	}
	g := s.cur.Load()
	ss := g.sources[0]
	if len(ss.parts) < 2 || len(ss.lists) <= 3 {
		t.Fatalf("%d parts, %d Change Lists: the layout is not small", len(ss.parts), len(ss.lists))
	}
	for i := 1; i < len(ss.lists); i++ {
		if !ss.lists[i].from.Equal(ss.lists[i-1].until) || !ss.lists[i].until.After(ss.lists[i].from) {
			t.Errorf("list %d: %s..%s after %s..%s", i, ss.lists[i].from, ss.lists[i].until, ss.lists[i-1].from, ss.lists[i-1].until)
		}
	}
	if last := ss.lists[len(ss.lists)-1]; !last.until.Equal(g.until) {
		t.Errorf("the last Change List ends at %s, the generation at %s", last.until, g.until)
	}
	idx := parseDoc(t, base+"/resourcesync/1/changelist.xml")
	if len(idx.Entries) != 3 || len(model.LinkHrefs(idx.Header.Links, model.RelArchives, "")) != 1 {
		t.Errorf("Change List Index: %d entries, links %+v", len(idx.Entries), idx.Header.Links)
	}

	// A Destination copies the Source served, and follows it.
	B := t.TempDir()
	served := base + "/resourcesync/1/capabilitylist.xml"
	syncDir(t, B, served, engine.PlanOptions{})
	auditInSync(t, B, served)
	was := g.until
	advance(t, srv.URL, 3)
	a := syncDir(t, A, target, engine.PlanOptions{Delete: true})
	waitGeneration(t, s, was)
	b := syncDir(t, B, served, engine.PlanOptions{Delete: true})
	if b.Plan.Mode != engine.ModeIncremental || b.Created != a.Created || b.Updated != a.Updated || b.Deleted != a.Deleted {
		t.Errorf("B's run: %s +%d ~%d -%d; A's: +%d ~%d -%d", b.Plan.Mode, b.Created, b.Updated, b.Deleted, a.Created, a.Updated, a.Deleted)
	}
	auditInSync(t, B, served)
}

func auditInSync(t *testing.T, dir, target string) {
	t.Helper()
	st, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := engine.Open(context.Background(), st, testClient(t), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep, err := s.Audit(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.InSync() {
		t.Errorf("%s is not in sync with %s: %+v", dir, target, rep)
	}
}

// waitGeneration waits for a generation later than until.
func waitGeneration(t *testing.T, s *Server, until time.Time) *generation {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if g := s.cur.Load(); g != nil && g.until.After(until) {
			return g
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no generation after %s", until)
	return nil
}

// A copy is served as the copy recorded it; one whose bytes no longer
// match is never served as good: a file of another size is refused (503),
// one of the same size whose bytes changed ends the connection before its
// last byte, and a range of it is refused; conditional requests and ranges
// of a good copy are answered.
func TestDamagedCopyIsNotServedAsGood(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 100})
	A := t.TempDir()
	syncDir(t, A, srv.URL+"/dataset1/capabilitylist.xml", engine.PlanOptions{})
	_, base := serveDir(t, A, shape{})
	rl := parseDoc(t, base+"/resourcesync/1/resourcelist.xml")
	if len(rl.Entries) < 3 {
		t.Fatalf("%d entries", len(rl.Entries))
	}
	file := func(e model.Entry) string {
		return filepath.Join(A, filepath.FromSlash(strings.TrimPrefix(e.Loc, base+"/")))
	}
	good, shorter, flipped := rl.Entries[0], rl.Entries[1], rl.Entries[2]
	want, err := os.ReadFile(file(good))
	if err != nil {
		t.Fatal(err)
	}
	resp, body, err := get(t, good.Loc, nil)
	sum := md5.Sum(want)
	if err != nil || resp.StatusCode != 200 || !bytes.Equal(body, want) || resp.Header.Get("Content-Type") != good.MD.Type ||
		resp.Header.Get("ETag") != `"md5-`+hex.EncodeToString(sum[:])+`"` || resp.Header.Get("Last-Modified") == "" {
		t.Fatalf("a good copy: %d %v %q, %d bytes of %d, %v", resp.StatusCode, err, resp.Header, len(body), len(want), good.MD.Type)
	}
	if resp, _, _ := get(t, good.Loc, map[string]string{"If-None-Match": resp.Header.Get("ETag")}); resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match of its ETag: %d", resp.StatusCode)
	}
	if resp, b, _ := get(t, good.Loc, map[string]string{"Range": "bytes=2-9"}); resp.StatusCode != http.StatusPartialContent || !bytes.Equal(b, want[2:10]) {
		t.Errorf("a range of a good copy: %d %q", resp.StatusCode, b)
	}

	// Another size: refused.
	p := file(shorter)
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, b[:len(b)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	if resp, _, _ := get(t, shorter.Loc, nil); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a copy one byte short: %d", resp.StatusCode)
	}
	// The same size, its bytes changed, its time kept: never whole.
	p = file(flipped)
	b, _ = os.ReadFile(p)
	fi, _ := os.Stat(p)
	recorded := md5.Sum(b)
	b[len(b)/2] ^= 0x55
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
	resp, body, err = get(t, flipped.Loc, nil)
	if err == nil && resp.StatusCode == http.StatusOK && int64(len(body)) == flipped.MD.Length {
		t.Errorf("a damaged copy was served whole with %d", resp.StatusCode)
	}
	if err == nil {
		t.Errorf("a damaged copy's body ended without an error (%d bytes, status %d)", len(body), resp.StatusCode)
	}
	if resp, _, _ := get(t, flipped.Loc, map[string]string{"Range": "bytes=0-3"}); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a range of a damaged copy: %d", resp.StatusCode)
	}
	// Nor does a HEAD or a 304 vouch for it.
	if resp, err := http.Head(flipped.Loc); err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a HEAD of a damaged copy: %v %v", resp, err)
	}
	etag := `"md5-` + hex.EncodeToString(recorded[:]) + `"`
	if resp, _, _ := get(t, flipped.Loc, map[string]string{"If-None-Match": etag}); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("If-None-Match of a damaged copy's ETag %s: %d", etag, resp.StatusCode)
	}
	if resp, err := http.Head(good.Loc); err != nil || resp.StatusCode != http.StatusOK || resp.ContentLength != int64(len(want)) {
		t.Errorf("a HEAD of a good copy: %v %v", resp, err)
	}
	// What the state does not list is not served; nor is .rsx.
	for _, u := range []string{base + "/.rsx/state.db", base + "/" + strings.TrimPrefix(srv.URL, "http://") + "/nothing", base + "/resourcesync/9/capabilitylist.xml"} {
		if resp, _, _ := get(t, u, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d", u, resp.StatusCode)
		}
	}
	if resp, _, _ := get(t, base+"/robots.txt", nil); resp.StatusCode != 200 {
		t.Errorf("robots.txt: %d", resp.StatusCode)
	}
}

// Serving reads the state beside the runs that write it and writes nothing
// in the destination; what it serves is a generation the last finished
// run left: a run going on shows only once it ends, whatever it committed
// meanwhile.
func TestLiveGenerationNeverHalfARun(t *testing.T) {
	for _, guard := range []bool{false, true} {
		name := "read beside the run"
		if guard {
			name = "copied once the log grew"
		}
		t.Run(name, func(t *testing.T) { testLiveGeneration(t, guard) })
	}
}

// testLiveGeneration: guard, the log grows past MaxLog while the run goes
// on, and the generation served is copied to go on from there.
func testLiveGeneration(t *testing.T, guard bool) {
	srv := startDemo(t, demo.Options{Resources: 100})
	A := t.TempDir()
	target := srv.URL + "/dataset1/capabilitylist.xml"
	syncDir(t, A, target, engine.PlanOptions{})
	rsx := filepath.Join(A, ".rsx")
	ctx := context.Background()
	var db *state.DB
	openState := func() {
		var err error
		if db, err = state.Open(ctx, filepath.Join(rsx, "state.db")); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
	}
	o := Options{}
	if guard {
		// The state is open in another process (a --follow) before the
		// generation is read: it is read beside it.
		o.MaxLog = 1
		openState()
	}
	before := listDir(t, rsx)
	s, base := serveDirWith(t, A, shape{}, o)
	g0 := s.cur.Load()
	if after := listDir(t, rsx); !guard && !slices.Equal(before, after) {
		t.Fatalf("serving changed %s: %q, then %q", rsx, before, after)
	}
	if g0.view.f.Shared() != guard {
		t.Fatalf("the first generation is read beside a run: %v", g0.view.f.Shared())
	}

	// A run begins (it holds the lock: this process), and commits a batch.
	if db == nil {
		openState()
	}
	lock := filepath.Join(rsx, "lock")
	host, _ := os.Hostname()
	if err := os.WriteFile(lock, []byte(`{"pid":`+itoa(os.Getpid())+`,"host":"`+host+`","token":"test"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := db.EnsureSource(ctx, g0.sources[0].row.URL)
	if err != nil {
		t.Fatal(err)
	}
	run := &state.Run{SourceID: src.ID, Started: time.Now(), Mode: "incremental", Version: "test"}
	if err := db.StartRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	path := filepath.ToSlash(filepath.Join(strings.ReplaceAll(strings.TrimPrefix(srv.URL, "http://"), ":", "+"), "new.txt"))
	if err := os.WriteFile(filepath.Join(A, filepath.FromSlash(path)), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum([]byte("new\n"))
	digests := state.Digests("md5:" + hex.EncodeToString(sum[:]))
	w := db.NewWriter(state.WriterOptions{})
	w.TrackRun(run.ID)
	now := time.Now()
	r := state.Resource{SourceID: src.ID, URI: srv.URL + "/new.txt", Path: path, Length: 4, Digests: digests, FetchedAt: now, VerifiedAt: now, Type: "text/plain", Via: "{}"}
	if err := w.PutResource(ctx, &r); err != nil {
		t.Fatal(err)
	}
	if err := w.PutRunFile(ctx, state.RunFile{Kind: state.FileCreated, URI: r.URI, Path: path, Length: 4, Digests: digests, At: now, Type: "text/plain", Via: "{}"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !s.Busy() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !s.Busy() {
		t.Fatal("the run going on is not seen")
	}
	if g := s.cur.Load(); g.until != g0.until {
		t.Errorf("a generation of half a run: until %s, was %s", g.until, g0.until)
	}
	if guard {
		// The generation served was read beside the run (the run opened
		// the state after it, so its log was there) and is now a copy.
		deadline := time.Now().Add(10 * time.Second)
		for s.cur.Load().view.f.Shared() && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if s.cur.Load().view.f.Shared() {
			t.Error("the generation served still holds the state's log")
		}
	}
	newURL := base + "/" + path
	if resp, _, _ := get(t, newURL, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a copy of the run going on is served: %d", resp.StatusCode)
	}
	if isListed(t, base+"/resourcesync/1/resourcelist.xml", newURL) {
		t.Error("a copy of the run going on is listed")
	}

	// The run ends: the next generation has it.
	run.Ended, run.Created, run.ExitStatus, run.Finished = time.Now(), 1, 0, true
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.EndRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(lock, nil, 0o644)
	g1 := waitGeneration(t, s, g0.until)
	if resp, b, err := get(t, newURL, nil); resp.StatusCode != 200 || string(b) != "new\n" || err != nil {
		t.Errorf("the run's copy once it ended: %d %q %v", resp.StatusCode, b, err)
	}
	if !isListed(t, base+"/resourcesync/1/resourcelist.xml", newURL) {
		t.Error("the run's copy is not listed once it ended")
	}
	cl := g1.sources[0].lists[len(g1.sources[0].lists)-1]
	d := parseDoc(t, s.clURL(g1.sources[0], cl))
	last := d.Entries[len(d.Entries)-1]
	if last.Loc != newURL || last.MD.Change != model.ChangeCreated || last.MD.Datetime.Time.Before(run.Started.Truncate(time.Second)) ||
		last.MD.Datetime.Time.After(g1.until) || !d.Header.MD.Until.Time.Equal(g1.until) {
		t.Errorf("the run's change: %s %s at %s (run from %s, until %s)", last.Loc, last.MD.Change, last.MD.Datetime.Raw, run.Started, d.Header.MD.Until.Raw)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func isListed(t *testing.T, rl, loc string) bool {
	t.Helper()
	for _, e := range parseDoc(t, rl).Entries {
		if e.Loc == loc {
			return true
		}
	}
	return false
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		fi, _ := e.Info()
		out = append(out, e.Name()+" "+fi.ModTime().String())
	}
	return out
}
