package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"rsx/dest/state"
)

func getObject(t *testing.T, g *gateway, bucket, key string) string {
	t.Helper()
	obj, err := g.client.GetObject(context.Background(), bucket, key, minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	b, err := io.ReadAll(obj)
	if err != nil {
		t.Fatalf("read %s: %v", key, err)
	}
	return string(b)
}

// objects lists the bucket's keys under prefix with their sizes.
func objects(t *testing.T, g *gateway, bucket, prefix string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for o := range g.client.ListObjects(context.Background(), bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		out[o.Key] = o.Size
	}
	return out
}

func manifestOf(t *testing.T, g *gateway, bucket, prefix string) stateManifest {
	t.Helper()
	var m stateManifest
	if err := json.Unmarshal([]byte(getObject(t, g, bucket, prefix+"/.rsx/state/manifest.json")), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// stateRun is one run on a bucket's state: lock, state, a writer that
// publishes after each batch.
type stateRun struct {
	t    *testing.T
	s    *S3
	lock *Lock
	db   *state.DB
	src  state.Source
	w    *state.Writer
}

func beginStateRun(t *testing.T, s *S3, batch int) *stateRun {
	t.Helper()
	ctx := context.Background()
	l, err := s.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.StatePath(ctx)
	if err != nil {
		l.Release()
		t.Fatal(err)
	}
	db, err := state.Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	src, err := db.EnsureSource(ctx, "http://example.org/capabilitylist.xml")
	if err != nil {
		t.Fatal(err)
	}
	r := &stateRun{t: t, s: s, lock: l, db: db, src: src}
	r.w = db.NewWriter(state.WriterOptions{BatchSize: batch, AfterCommit: func(ctx context.Context) error {
		return db.Snapshot(ctx, func(p string) error { return s.PublishState(ctx, p) })
	}})
	return r
}

func (r *stateRun) put(from, to int) {
	r.t.Helper()
	for i := from; i < to; i++ {
		res := state.Resource{SourceID: r.src.ID, URI: fmt.Sprintf("http://example.org/r/%07d", i), Path: fmt.Sprintf("example.org/r/%07d", i),
			Length: int64(i), Lastmod: time.Unix(int64(1.7e9)+int64(i), 0)}
		if err := r.w.PutResource(context.Background(), &res); err != nil {
			r.t.Fatal(err)
		}
	}
}

func (r *stateRun) end() {
	r.t.Helper()
	if err := r.w.Close(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	r.db.Close()
	r.lock.Release()
}

// resourcesIn counts the resources of the state at p.
func resourcesIn(t *testing.T, p string) int {
	t.Helper()
	ctx := context.Background()
	db, err := state.OpenReadOnly(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src, err := db.Source(ctx, "http://example.org/capabilitylist.xml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := db.Count(ctx, src.ID)
	if err != nil {
		t.Fatal(err)
	}
	return c.Resources
}

// TestS3StateByChanges: after the first batch, what a publish uploads is the
// pages that changed, not the whole file; a second machine restores the same
// state, checked; a compaction writes a new base and removes the old
// generation's objects and what killed publishes left.
func TestS3StateByChanges(t *testing.T) {
	g := startGateway(t, "bychanges")
	ctx := context.Background()
	// One segment a batch: no merges (TestS3StateSmallRunsDoNotCompact).
	defer func(c int64) { mergeCap = c }(mergeCap)
	mergeCap = 0
	a := openS3(t, g, "bychanges/copy", Options{})

	r := beginStateRun(t, a, 500)
	r.put(0, 5000)
	r.end()
	m := manifestOf(t, g, "bychanges", "copy")
	if m.Generation != 1 || len(m.Segments) != 9 {
		t.Fatalf("after 10 batches: generation %d, %d segments; want 1 base and 9 segments", m.Generation, len(m.Segments))
	}
	dbSize := m.Pages * int64(m.PageSize)
	for _, seg := range m.Segments {
		// A batch of 500 rows of ~200 bytes changes ~30 pages of 4 KiB.
		if seg.Size > dbSize/4 {
			t.Errorf("segment %s: %d bytes for a database of %d", seg.Key, seg.Size, dbSize)
		}
	}
	if got := getObject(t, g, "bychanges", "copy/.rsx/state.db"); got != legacyStub {
		t.Errorf("PREFIX/.rsx/state.db is not the stub that stops older versions: %.60q", got)
	}

	// An incremental run of a few changes uploads a few pages.
	before := a.StateUploaded()
	r = beginStateRun(t, a, 500)
	r.put(5000, 5008)
	r.end()
	m = manifestOf(t, g, "bychanges", "copy")
	last := m.Segments[len(m.Segments)-1]
	if up := a.StateUploaded() - before; up > 64<<10 || last.Pages > 16 {
		t.Errorf("8 changes uploaded %d bytes, %d pages (database: %d bytes)", up, last.Pages, dbSize)
	}

	// Machine B restores it, and sees every resource.
	b := openS3(t, g, "bychanges/copy", Options{})
	lb, err := b.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := b.StatePath(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := resourcesIn(t, pb); got != 5008 {
		t.Errorf("machine B restored %d resources, want 5008", got)
	}
	lb.Release()
	if pa := a.localState(); !sameFile(t, pa, pb) {
		// A's copy is checkpointed: the pages are the same.
		t.Error("machine B's restored file differs from A's")
	}

	// A publish killed before its manifest left an object nothing lists.
	orphan := "copy/.rsx/state/seg-00000001-000099-deadbeefdeadbeef.zst"
	g.client.PutObject(ctx, "bychanges", orphan, strings.NewReader("killed"), 6, minio.PutObjectOptions{})

	// Compaction: once the segments weigh as much as the base, a new base.
	defer func(f int64) { compactFloor = f }(compactFloor)
	compactFloor = 0
	r = beginStateRun(t, a, 500)
	r.put(5008, 9000)
	r.end()
	m = manifestOf(t, g, "bychanges", "copy")
	if m.Generation < 2 {
		t.Fatalf("no compaction: generation %d, %d segments", m.Generation, len(m.Segments))
	}
	keys := objects(t, g, "bychanges", "copy/.rsx/state/")
	want := map[string]bool{"copy/.rsx/state/manifest.json": true, "copy/.rsx/state/" + m.Base.Key: true}
	for _, o := range m.Segments {
		want["copy/.rsx/state/"+o.Key] = true
	}
	for k := range keys {
		if !want[k] {
			t.Errorf("object the manifest does not list, left after compaction: %s", k)
		}
	}
	if _, ok := keys[orphan]; ok {
		t.Error("a killed publish's object survived a compaction")
	}
	lb, _ = b.Lock(ctx)
	pb, err = b.StatePath(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := resourcesIn(t, pb); got != 9000 {
		t.Errorf("machine B restored %d resources after compaction, want 9000", got)
	}
	lb.Release()
}

func sameFile(t *testing.T, a, b string) bool {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x, y)
}

// TestS3StateRestoreChecked: an object of the state whose bytes are not the
// ones the manifest lists is refused, and the local copy is left as it was.
func TestS3StateRestoreChecked(t *testing.T) {
	g := startGateway(t, "checked")
	ctx := context.Background()
	defer func(c int64) { mergeCap = c }(mergeCap) // a segment a batch
	mergeCap = 0
	a := openS3(t, g, "checked/copy", Options{})
	r := beginStateRun(t, a, 100)
	r.put(0, 300)
	r.end()
	m := manifestOf(t, g, "checked", "copy")
	if len(m.Segments) == 0 {
		t.Fatal("no segment")
	}
	seg := "copy/.rsx/state/" + m.Segments[0].Key
	body := []byte(getObject(t, g, "checked", seg))
	putSeg := func(b []byte) {
		t.Helper()
		if _, err := g.client.PutObject(ctx, "checked", seg, bytes.NewReader(b), int64(len(b)), minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		content []byte
		want    string
	}{
		// zstd's own checksum, or the manifest's SHA-256, finds it.
		{"one byte changed", append(append([]byte{}, body[:len(body)-1]...), body[len(body)-1]^1), m.Segments[0].Key},
		{"cut short", body[:len(body)/2], m.Segments[0].Key},
		{"another segment's bytes, whole", []byte(getObject(t, g, "checked", "copy/.rsx/state/"+m.Segments[1].Key)), m.Segments[0].Key},
	} {
		t.Run(tc.name, func(t *testing.T) {
			putSeg(tc.content)
			b := openS3(t, g, "checked/copy", Options{})
			lb, err := b.Lock(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer lb.Release()
			_, err = b.StatePath(ctx)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("restore of a damaged segment: %v, want an error that says %q", err, tc.want)
			}
			if _, serr := os.Stat(b.localState()); serr == nil {
				t.Error("a damaged restore left a local state")
			}
		})
	}
	putSeg(body)

	// A manifest whose page count is not the one its objects make.
	manifest := getObject(t, g, "checked", "copy/.rsx/state/manifest.json")
	for _, tc := range []struct{ name, from, to, want string }{
		{"more pages", fmt.Sprintf(`"pages": %d,`, m.Pages), fmt.Sprintf(`"pages": %d,`, m.Pages+1000000), "the manifest says"},
		{"another digest", m.Digest, "xxh3-128-pages:00", "digest"},
		{"an object outside its folder", m.Base.Key, "../../data/x", "outside its folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lied := strings.Replace(manifest, tc.from, tc.to, 1)
			if lied == manifest {
				t.Fatalf("%q not in the manifest", tc.from)
			}
			g.client.PutObject(ctx, "checked", "copy/.rsx/state/manifest.json", strings.NewReader(lied), int64(len(lied)), minio.PutObjectOptions{})
			b := openS3(t, g, "checked/copy", Options{})
			lb, err := b.Lock(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer lb.Release()
			if _, err := b.StatePath(ctx); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("restore: %v, want an error that says %q", err, tc.want)
			}
		})
	}
}

// TestS3StateLegacy: a bucket whose state an older rsx left as one whole
// file is read, and the first publish replaces it with the manifest and its
// objects; a read-only run reads either without writing.
func TestS3StateLegacy(t *testing.T) {
	g := startGateway(t, "legacy")
	ctx := context.Background()
	// The older rsx's state: a database file at PREFIX/.rsx/state.db.
	old := filepath.Join(t.TempDir(), "state.db")
	db, err := state.Open(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	src, _ := db.EnsureSource(ctx, "http://example.org/capabilitylist.xml")
	w := db.NewWriter(state.WriterOptions{})
	for i := range 50 {
		res := state.Resource{SourceID: src.ID, URI: fmt.Sprintf("http://example.org/r/%d", i), Path: fmt.Sprintf("example.org/r/%d", i), Length: 1}
		w.PutResource(ctx, &res)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := g.client.FPutObject(ctx, "legacy", "copy/.rsx/state.db", old, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}

	// A read-only run reads it and writes nothing.
	ro := openS3(t, g, "legacy/copy", Options{ReadOnly: true, TempDir: t.TempDir()})
	before := objects(t, g, "legacy", "")
	checkReadOnly := func(want int) {
		t.Helper()
		l, err := ro.Lock(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ro.StatePath(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := resourcesIn(t, p); got != want {
			t.Errorf("read-only run sees %d resources, want %d", got, want)
		}
		l.Release()
		ro.Close()
		if after := objects(t, g, "legacy", ""); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("a read-only run changed the bucket: %v, was %v", keysOf(after), keysOf(before))
		}
		if entries, _ := os.ReadDir(ro.CacheDir()); len(entries) > 1 { // tmp/
			t.Errorf("a read-only run wrote in its cache folder: %v", entries)
		}
	}
	checkReadOnly(50)

	a := openS3(t, g, "legacy/copy", Options{})
	r := beginStateRun(t, a, 20)
	if got := resourcesIn(t, a.localState()); got != 50 {
		t.Fatalf("the older state was read with %d resources", got)
	}
	r.put(50, 60)
	r.end()
	keys := objects(t, g, "legacy", "copy/.rsx/")
	if got := getObject(t, g, "legacy", "copy/.rsx/state.db"); got != legacyStub {
		t.Errorf("the older whole-file state was left beside the new one: %.60q", got)
	}
	// An older rsx stops at the stub.
	stub := filepath.Join(t.TempDir(), "state.db")
	os.WriteFile(stub, []byte(legacyStub), 0o644)
	if db, err := state.Open(ctx, stub); err == nil {
		db.Close()
		t.Error("the state package opens the stub")
	} else if !strings.Contains(err.Error(), "not a database") {
		t.Errorf("opening the stub: %v", err)
	}
	if _, ok := keys["copy/.rsx/state/manifest.json"]; !ok {
		t.Fatalf("no manifest: %v", keysOf(keys))
	}
	before = objects(t, g, "legacy", "")
	checkReadOnly(60)

	b := openS3(t, g, "legacy/copy", Options{})
	lb, _ := b.Lock(ctx)
	pb, err := b.StatePath(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := resourcesIn(t, pb); got != 60 {
		t.Errorf("machine B restored %d resources, want 60", got)
	}
	lb.Release()
}

func keysOf(m map[string]int64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestS3StatePublishRefusesNonDatabase: a file that is not a SQLite
// database is refused with an error, and nothing is written to the bucket.
func TestS3StatePublishRefusesNonDatabase(t *testing.T) {
	g := startGateway(t, "notdb")
	ctx := context.Background()
	a := openS3(t, g, "notdb/copy", Options{})
	l, err := a.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if _, err := a.StatePath(ctx); err != nil {
		t.Fatal(err)
	}
	before := objects(t, g, "notdb", "copy/.rsx/state")
	for _, content := range []string{"", "not a database", strings.Repeat("x", 5000)} {
		p := filepath.Join(t.TempDir(), "state.db")
		os.WriteFile(p, []byte(content), 0o644)
		if err := a.PublishState(ctx, p); err == nil || !strings.Contains(err.Error(), "database header") && !strings.Contains(err.Error(), "not a SQLite database") {
			t.Errorf("publish of %.20q: %v", content, err)
		}
	}
	if after := objects(t, g, "notdb", "copy/.rsx/state"); len(after) != len(before) {
		t.Errorf("a refused publish wrote %v", keysOf(after))
	}
}

// TestS3StateSmallRunsDoNotCompact: a compaction is paid by the run whose
// changes made it due, not by a run of few changes that comes after it: a
// run that leaves the segments heavier than the base writes the new base
// itself; runs whose own changes are small beside the base upload their
// pages and the manifest, however heavy the segments grow, their segments
// merged so that the manifest stays short; a run of many changes compacts.
// Every state published restores to the same file on another machine.
func TestS3StateSmallRunsDoNotCompact(t *testing.T) {
	g := startGateway(t, "smallruns")
	ctx := context.Background()
	defer func(f int64) { compactFloor = f }(compactFloor)
	compactFloor = 0
	cache := t.TempDir()
	// Each run is a process of its own: a Store of its own, on one cache
	// folder.
	store := func() *S3 { return openS3(t, g, "smallruns/copy", Options{CacheDir: cache}) }
	var a *S3
	run := func(rows ...[2]int) int64 {
		t.Helper()
		a = store()
		r := beginStateRun(t, a, 100000)
		for _, rg := range rows {
			r.put(rg[0], rg[1])
		}
		r.end()
		return a.StateUploaded()
	}
	restored := func(want int) {
		t.Helper()
		b := openS3(t, g, "smallruns/copy", Options{})
		lb, err := b.Lock(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer lb.Release()
		pb, err := b.StatePath(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := resourcesIn(t, pb); got != want {
			t.Errorf("another machine restored %d resources, want %d", got, want)
		}
		if !sameFile(t, a.localState(), pb) {
			t.Error("another machine's restored file differs from the local copy")
		}
	}

	// A first run of a few rows: a small base. Then a large run in one
	// batch: its segment weighs more than the base.
	run([2]int{0, 100})
	run([2]int{100, 6000})
	m := manifestOf(t, g, "smallruns", "copy")
	if m.segmentBytes() >= max(m.Base.Size, compactFloor) {
		t.Errorf("the large run left %d bytes of segments over a base of %d: it should have compacted them itself", m.segmentBytes(), m.Base.Size)
	}
	gen, n := m.Generation, 6000

	// Runs of a few changes: a few new rows, a few old ones updated.
	var most int64
	for i := range 80 {
		up := run([2]int{n, n + 3}, [2]int{(i * 37) % n, (i*37)%n + 1}, [2]int{(i*53 + 11) % n, (i*53+11)%n + 1})
		n += 3
		most = max(most, up)
		m = manifestOf(t, g, "smallruns", "copy")
		if m.Generation != gen {
			t.Fatalf("small run %d uploaded a new base (generation %d → %d, %d bytes; the segments weighed %d, the base %d)", i+1, gen, m.Generation, up, m.segmentBytes(), m.Base.Size)
		}
		if i%40 == 39 {
			restored(n)
		}
		if i%10 == 4 {
			// A cache folder of an older rsx: the pages of the segments to
			// merge are read from the segments.
			os.Remove(filepath.Join(cache, "state.segpages"))
		}
	}
	if most > 64<<10 {
		t.Errorf("a run of 5 changes uploaded up to %d bytes", most)
	}
	if len(m.Segments) > 12 {
		t.Errorf("80 runs of a few changes left %d segments: their segments are not merged", len(m.Segments))
	}
	t.Logf("80 small runs: at most %d bytes each; %d segments (%d bytes) over a base of %d", most, len(m.Segments), m.segmentBytes(), m.Base.Size)

	// Runs whose changes each weigh less than a quarter of the base, until
	// the segments outweigh it: none compacts.
	for i := 0; m.segmentBytes() < 2*m.Base.Size; i++ {
		if i == 40 {
			t.Fatalf("40 runs of 400 rows: the segments weigh %d, the base %d", m.segmentBytes(), m.Base.Size)
		}
		up := run([2]int{n, n + 400})
		n += 400
		m = manifestOf(t, g, "smallruns", "copy")
		if m.Generation != gen {
			t.Fatalf("a run of 400 rows uploaded a new base (%d bytes; the segments weighed %d, the base %d)", up, m.segmentBytes(), m.Base.Size)
		}
		if i == 0 {
			t.Logf("a run of 400 rows: %d bytes", up)
		}
	}
	t.Logf("runs of 400 rows: %d segments weigh %d, the base %d", len(m.Segments), m.segmentBytes(), m.Base.Size)
	restored(n)

	// A large run pays for the compaction.
	run([2]int{n, n + 6000})
	n += 6000
	if m = manifestOf(t, g, "smallruns", "copy"); m.Generation == gen {
		t.Errorf("the large run did not compact (%d bytes of segments over a base of %d)", m.segmentBytes(), m.Base.Size)
	}
	restored(n)
}
