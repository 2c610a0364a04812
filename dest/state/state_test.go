package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"rsx/model"
)

func openTemp(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func tm(s string) time.Time {
	d, err := model.ParseDatetime(s)
	if err != nil {
		panic(err)
	}
	return d.Time
}

func TestOpenCreatesAndChecksTheSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var mode string
	if err := db.sql.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal mode %q, %v", mode, err)
	}
	var v string
	if err := db.sql.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); err != nil || v != strconv.Itoa(SchemaVersion) {
		t.Errorf("schema_version %q, %v", v, err)
	}
	db.Close()

	// Reopening keeps it.
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	// A newer schema is refused, clearly.
	if _, err := db.sql.Exec(`UPDATE meta SET value = '99' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(ctx, path)
	var se *SchemaError
	if !errors.As(err, &se) || se.Found != 99 || !strings.Contains(err.Error(), fmt.Sprintf("schema version 99 is newer than this rsx understands (%d)", SchemaVersion)) {
		t.Errorf("newer schema: %v", err)
	}

	// Another program's database is refused.
	other := filepath.Join(t.TempDir(), "other.db")
	odb, err := sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := odb.Exec(`CREATE TABLE t (x)`); err != nil {
		t.Fatal(err)
	}
	odb.Close()
	if _, err := Open(ctx, other); !errors.As(err, &se) || !strings.Contains(err.Error(), "not an rsx state database") {
		t.Errorf("foreign database: %v", err)
	}

	// A file that is not a database.
	junk := filepath.Join(t.TempDir(), "junk.db")
	os.WriteFile(junk, []byte(strings.Repeat("not sqlite ", 100)), 0o644)
	if _, err := Open(ctx, junk); err == nil || !strings.Contains(err.Error(), junk) {
		t.Errorf("junk file: %v", err)
	}
}

// TestOpenOddPath: a database path with the characters of URIs in it.
func TestOpenOddPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a b?c#d%20e&f=g")
	os.MkdirAll(dir, 0o755)
	p := filepath.Join(dir, "state.db")
	db, err := Open(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.EnsureSource(context.Background(), "http://example.org/cap.xml"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the database is not where it was asked: %v", err)
	}
}

func TestSchemaIsDocumented(t *testing.T) {
	s := Schema()
	for _, table := range []string{"meta", "source", "selection", "changelist", "resource"} {
		if !strings.Contains(s, "CREATE TABLE "+table+" (") {
			t.Errorf("schema has no table %s", table)
		}
	}
	// Every column line carries a comment, or is a key, in the tables people query.
	for _, line := range strings.Split(s, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "deleted_at") || strings.HasPrefix(l, "digests") || strings.HasPrefix(l, "baseline_at") {
			if !strings.Contains(l, "--") {
				t.Errorf("column without a comment: %s", l)
			}
		}
	}
}

func TestSourceSelectionAndChangeLists(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	if _, err := db.Source(ctx, "http://example.org/cap.xml"); !errors.Is(err, ErrNoSource) {
		t.Errorf("missing Source: %v", err)
	}
	src, err := db.EnsureSource(ctx, "http://example.org/cap.xml")
	if err != nil {
		t.Fatal(err)
	}
	again, err := db.EnsureSource(ctx, "http://example.org/cap.xml")
	if err != nil || again.ID != src.ID || src.Created.IsZero() {
		t.Fatalf("EnsureSource twice: %+v %+v %v", src, again, err)
	}
	other, _ := db.EnsureSource(ctx, "http://example.net/cap.xml")

	w := db.NewWriter(WriterOptions{})
	b := Baseline{Kind: "list", URL: "http://example.org/rl.xml", At: tm("2013-01-03T09:00:00.5Z"), Done: time.Now()}
	sel := Selection{Include: []string{`\.pdf$`, "b"}, Exclude: []string{"x"}, Map: []string{"http://example.org/=ex"}}
	cl := ChangeList{URL: "http://example.org/cl.xml", Kind: "changelist", From: tm("2013-01-03T09:00:00Z"), ETag: `"e1"`,
		LastModified: "Thu, 03 Jan 2013 10:00:00 GMT", Last: Cursor{Position: 41, Datetime: tm("2013-01-03T09:59:00+01:00"), URI: "http://example.org/a"}, ProcessedAt: time.Now()}
	closed := ChangeList{URL: "http://example.org/cl0.xml", Kind: "changedump", From: tm("2013-01-02T00:00:00Z"), Until: tm("2013-01-03T09:00:00Z"), Complete: true, Last: Cursor{Position: -1}}
	for _, err := range []error{
		w.SetBaseline(ctx, src.ID, b),
		w.SetSelection(ctx, src.ID, sel),
		w.SetSyncedUntil(ctx, src.ID, tm("2013-01-03T10:00:00Z")),
		w.SetLastRun(ctx, src.ID, time.Now()),
		w.PutChangeList(ctx, src.ID, cl),
		w.PutChangeList(ctx, src.ID, closed),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.SetBaseline(ctx, src.ID, Baseline{Kind: "torrent"}); err == nil {
		t.Error("a baseline kind that is not list or dump was accepted")
	}
	if err := w.PutChangeList(ctx, src.ID, ChangeList{URL: "u", Kind: "resourcelist"}); err == nil {
		t.Error("a change list kind that is not changelist or changedump was accepted")
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := db.Source(ctx, src.URL)
	if err != nil {
		t.Fatal(err)
	}
	if got.Baseline.Kind != "list" || got.Baseline.URL != b.URL || !got.Baseline.At.Equal(b.At) || got.Baseline.Done.IsZero() {
		t.Errorf("baseline %+v", got.Baseline)
	}
	if !got.Selection.Equal(sel) || got.Selection.Empty() {
		t.Errorf("selection %+v", got.Selection)
	}
	if !got.Point().Equal(tm("2013-01-03T10:00:00Z")) || got.LastRun.IsZero() {
		t.Errorf("point %v, last run %v", got.Point(), got.LastRun)
	}
	lists, err := db.ChangeLists(ctx, src.ID)
	if err != nil || len(lists) != 2 {
		t.Fatalf("change lists %+v %v", lists, err)
	}
	if l := lists[0]; l.URL != closed.URL || !l.Closed() || !l.Complete || l.Last.Position != -1 || l.Kind != "changedump" {
		t.Errorf("closed list %+v", l)
	}
	if l := lists[1]; l.URL != cl.URL || l.Closed() || l.Complete || l.ETag != cl.ETag || l.LastModified != cl.LastModified ||
		l.Last.Position != 41 || !l.Last.Datetime.Equal(cl.Last.Datetime) || l.Last.URI != cl.Last.URI || l.ProcessedAt.IsZero() {
		t.Errorf("open list %+v", l)
	}
	// An empty selection replaces the old one.
	w = db.NewWriter(WriterOptions{})
	w.SetSelection(ctx, src.ID, Selection{})
	w.Close(ctx)
	got, _ = db.Source(ctx, src.URL)
	if !got.Selection.Empty() {
		t.Errorf("selection not replaced: %+v", got.Selection)
	}
	all, err := db.Sources(ctx)
	if err != nil || len(all) != 2 || all[1].ID != other.ID {
		t.Errorf("Sources: %+v %v", all, err)
	}
}

func TestResourceRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	w := db.NewWriter(WriterOptions{})
	r := Resource{SourceID: src.ID, URI: "http://example.org/a b", Path: "example.org/a b", Length: 0,
		Digests: "md5:00 sha-256:11", Lastmod: tm("2013-01-02T13:00:00.123456789Z"), ETag: `W/"x"`, LastModified: "Wed, 02 Jan 2013 13:00:00 GMT",
		ChangeDatetime: tm("2013-01-03T00:00:00Z"), FetchedAt: time.Now(), VerifiedAt: time.Now()}
	if err := w.PutResource(ctx, &r); err != nil || r.ID == 0 {
		t.Fatalf("put: %v, id %d", err, r.ID)
	}
	id := r.ID
	if err := w.PutResource(ctx, &Resource{SourceID: src.ID, URI: "no path"}); err == nil {
		t.Error("a resource without a path was accepted")
	}
	w.Close(ctx)
	got, err := db.Resource(ctx, src.ID, r.URI)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != id || got.Path != r.Path || got.Length != 0 || got.Digests != r.Digests || !got.Lastmod.Equal(r.Lastmod) ||
		got.ETag != r.ETag || got.LastModified != r.LastModified || !got.ChangeDatetime.Equal(r.ChangeDatetime) ||
		got.FetchedAt.IsZero() || got.VerifiedAt.IsZero() || got.Pending() {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, r)
	}

	// An update keeps the id; a deletion is remembered, then the row removed.
	w = db.NewWriter(WriterOptions{})
	r2 := Resource{SourceID: src.ID, URI: r.URI, Path: "elsewhere", Length: -1}
	if err := w.PutResource(ctx, &r2); err != nil || r2.ID != id {
		t.Fatalf("update: %v, id %d (was %d)", err, r2.ID, id)
	}
	if ok, err := w.MarkDeleted(ctx, src.ID, r.URI, tm("2013-01-04T00:00:00Z")); !ok || err != nil {
		t.Errorf("MarkDeleted: %v %v", ok, err)
	}
	if ok, err := w.MarkDeleted(ctx, src.ID, "http://example.org/none", time.Now()); ok || err != nil {
		t.Errorf("MarkDeleted of no row: %v %v", ok, err)
	}
	if err := w.SetVerified(ctx, id, time.Now(), time.Time{}); err != nil {
		t.Error(err)
	}
	w.Close(ctx)
	got, _ = db.ResourceByID(ctx, id)
	if got.Length != -1 || got.Digests != "" || got.Path != "elsewhere" || !got.Pending() || !got.DeletedAt.Equal(tm("2013-01-04T00:00:00Z")) {
		t.Errorf("after update and deletion: %+v", got)
	}
	c, err := db.Count(ctx, src.ID)
	if err != nil || c.Resources != 1 || c.Pending != 1 || c.MaxID != id {
		t.Errorf("count %+v %v", c, err)
	}
	var pending []string
	db.EachResource(ctx, src.ID, true, func(r *Resource) error { pending = append(pending, r.URI); return nil })
	if len(pending) != 1 {
		t.Errorf("pending %q", pending)
	}
	w = db.NewWriter(WriterOptions{})
	if ok, err := w.RemoveResource(ctx, src.ID, r.URI); !ok || err != nil {
		t.Errorf("RemoveResource: %v %v", ok, err)
	}
	w.Close(ctx)
	if _, err := db.ResourceByID(ctx, id); !errors.Is(err, ErrNoResource) {
		t.Errorf("removed row: %v", err)
	}
	if _, err := db.Resource(ctx, src.ID, r.URI); !errors.Is(err, ErrNoResource) {
		t.Errorf("removed row: %v", err)
	}
}

func TestDigests(t *testing.T) {
	h, err := model.ParseHashList("SHA-256:854F61290E2E197A11BC91063AFCE22E43F8CCC655237050ACE766ADC68DC784 md5:1584abdf8ebdc9802ac0c6a7402c03b6 md5:1e0d5cb8ef6ba40c99b14c0237be735e sha-1:zz")
	if h == nil {
		t.Fatal(err)
	}
	d := DigestsOf(h)
	want := Digests("md5:1584abdf8ebdc9802ac0c6a7402c03b6 sha-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784")
	if d != want {
		t.Fatalf("DigestsOf = %q", d)
	}
	if v, ok := d.Get("sha-256"); !ok || !strings.HasPrefix(v, "854f") {
		t.Errorf("Get = %q %v", v, ok)
	}
	if _, ok := d.Get("sha-1"); ok {
		t.Error("Get of a missing algorithm")
	}
	tests := []struct {
		a, b   Digests
		shared int
		differ string
	}{
		{d, d, 2, ""},
		{d, "md5:1584abdf8ebdc9802ac0c6a7402c03b6", 1, ""},
		{d, "md5:ffff", 1, "md5"},
		{d, "sha-512:00", 0, ""},
		{"", d, 0, ""},
		{d, "md5:00 sha-256:00", 2, "md5 sha-256"},
	}
	for _, tc := range tests {
		shared, differ := tc.a.Compare(tc.b)
		if shared != tc.shared || strings.Join(differ, " ") != tc.differ {
			t.Errorf("%q vs %q: %d %q", tc.a, tc.b, shared, differ)
		}
	}
	if hl := d.HashList(); len(hl) != 2 || hl[0].Alg != "md5" {
		t.Errorf("HashList %+v", hl)
	}
	if DigestsOf(nil) != "" || Digests("").HashList() != nil {
		t.Error("empty digests")
	}
}

func TestWriterBatches(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	var before, after int
	w := db.NewWriter(WriterOptions{BatchSize: 10,
		BeforeCommit: func(context.Context) error { before++; return nil },
		AfterCommit:  func(context.Context) error { after++; return nil }})
	for i := 0; i < 25; i++ {
		r := Resource{SourceID: src.ID, URI: fmt.Sprint("http://example.org/", i), Path: fmt.Sprint("p/", i)}
		if err := w.PutResource(ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	if w.Commits() != 2 || w.Pending() != 5 || before != 2 || after != 2 {
		t.Errorf("commits %d pending %d hooks %d/%d", w.Commits(), w.Pending(), before, after)
	}
	c, _ := db.Count(ctx, src.ID)
	if c.Resources != 20 {
		t.Errorf("%d rows visible before the last batch is committed, want 20", c.Resources)
	}
	// A failing BeforeCommit leaves the batch uncommitted.
	failing := errors.New("disk full")
	w.opts.BeforeCommit = func(context.Context) error { return failing }
	if err := w.Flush(ctx); !errors.Is(err, failing) {
		t.Errorf("Flush: %v", err)
	}
	c, _ = db.Count(ctx, src.ID)
	if c.Resources != 20 || w.Pending() != 0 {
		t.Errorf("%d rows after a refused commit, %d pending", c.Resources, w.Pending())
	}
	// MaxDelay commits an old batch at its next change.
	w2 := db.NewWriter(WriterOptions{BatchSize: 1000, MaxDelay: time.Millisecond})
	r := Resource{SourceID: src.ID, URI: "http://example.org/late", Path: "late"}
	w2.PutResource(ctx, &r)
	time.Sleep(5 * time.Millisecond)
	r = Resource{SourceID: src.ID, URI: "http://example.org/later", Path: "later"}
	w2.PutResource(ctx, &r)
	if w2.Commits() != 1 {
		t.Errorf("commits %d after MaxDelay", w2.Commits())
	}
	w2.Close(ctx)
}

func TestSnapshotCheckpoints(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	w := db.NewWriter(WriterOptions{})
	for i := 0; i < 100; i++ {
		r := Resource{SourceID: src.ID, URI: fmt.Sprint("http://example.org/", i), Path: fmt.Sprint("p/", i)}
		w.PutResource(ctx, &r)
	}
	w.Close(ctx)
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	err := db.Snapshot(ctx, func(path string) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(copyPath, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	// The copied file alone is the whole state.
	cp, err := Open(ctx, copyPath)
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	if c, err := cp.Count(ctx, src.ID); err != nil || c.Resources != 100 {
		t.Errorf("copy holds %+v, %v", c, err)
	}
}

func TestSnapshotWhileReading(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	src, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	w := db.NewWriter(WriterOptions{})
	for i := 0; i < 50; i++ {
		r := Resource{SourceID: src.ID, URI: fmt.Sprint("http://example.org/", i), Path: fmt.Sprint("p/", i)}
		w.PutResource(ctx, &r)
	}
	w.Close(ctx)
	// A reader in the middle of a walk holds a read transaction open.
	inside := make(chan struct{})
	release := make(chan struct{})
	first := true
	go db.EachResource(ctx, src.ID, false, func(*Resource) error {
		if first {
			first = false
			inside <- struct{}{}
			<-release
		}
		return nil
	})
	<-inside
	w = db.NewWriter(WriterOptions{})
	r := Resource{SourceID: src.ID, URI: "http://example.org/late", Path: "late"}
	w.PutResource(ctx, &r)
	w.Close(ctx)
	var snap string
	err := db.Snapshot(ctx, func(path string) error {
		snap = path
		cp, err := Open(ctx, path)
		if err != nil {
			return err
		}
		defer cp.Close()
		if c, err := cp.Count(ctx, src.ID); err != nil || c.Resources != 51 {
			t.Errorf("snapshot holds %+v, %v; want 51 rows", c, err)
		}
		return nil
	})
	close(release)
	if err != nil {
		t.Fatal(err)
	}
	if snap == db.Path() {
		t.Log("the log could be emptied despite the reader")
	} else if _, err := os.Stat(snap); !os.IsNotExist(err) {
		t.Errorf("the copy %s was left: %v", snap, err)
	}
}

// TestKillLosesAtMostABatch kills a process that writes the state without
// pause, then checks that the database is intact and holds whole batches only.
func TestKillLosesAtMostABatch(t *testing.T) {
	if os.Getenv("RSX_STATE_WRITER") != "" {
		writeForever(os.Getenv("RSX_STATE_WRITER"))
		return
	}
	if testing.Short() {
		t.Skip("starts a process and kills it")
	}
	path := filepath.Join(t.TempDir(), "state.db")
	before := 0
	for round, wait := range []time.Duration{13 * time.Millisecond, 71 * time.Millisecond} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillLosesAtMostABatch$")
		cmd.Env = append(os.Environ(), "RSX_STATE_WRITER="+path)
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for some batches to be committed, then kill it in the middle
		// of another.
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			if n := countRows(path); n >= before+3*killBatch {
				break
			}
		}
		time.Sleep(wait)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()

		db, err := Open(context.Background(), path)
		if err != nil {
			t.Fatalf("round %d: open after the kill: %v (writer said %s)", round, err, out)
		}
		var check string
		if err := db.sql.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
			t.Errorf("round %d: integrity_check %q %v", round, check, err)
		}
		var n int
		db.sql.QueryRow(`SELECT count(*) FROM resource`).Scan(&n)
		if n%killBatch != 0 {
			t.Errorf("round %d: %d rows: a batch was committed in part", round, n)
		}
		if n <= before {
			t.Errorf("round %d: no batch was committed before the kill (%d rows)", round, n)
		}
		before = n
		t.Logf("round %d: %d rows survived the kill", round, n)
		db.Close()
	}
}

const killBatch = 97

// countRows counts the rows another process committed, or -1.
func countRows(path string) int {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return -1
	}
	defer db.Close()
	n := -1
	db.QueryRow(`SELECT count(*) FROM resource`).Scan(&n)
	return n
}

func writeForever(path string) {
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		fmt.Println(err)
		os.Exit(3)
	}
	src, _ := db.EnsureSource(ctx, "http://example.org/cap.xml")
	w := db.NewWriter(WriterOptions{BatchSize: killBatch, MaxDelay: time.Hour})
	base := time.Now().UnixNano()
	for i := 0; ; i++ {
		r := Resource{SourceID: src.ID, URI: "http://example.org/" + strconv.FormatInt(base, 36) + "/" + strconv.Itoa(i), Path: strconv.FormatInt(base, 36) + "/" + strconv.Itoa(i), Length: int64(i)}
		if err := w.PutResource(ctx, &r); err != nil {
			fmt.Println(err)
			os.Exit(3)
		}
	}
}

// A database of schema version 1 (written by an earlier rsx) is upgraded in
// place when opened: its rows are kept, and the columns of version 2 work.
func TestOpenUpgradesSchemaVersion1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	// Version 1 is version 2 without the columns the migration adds.
	v1 := strings.NewReplacer(
		",\n  reconcile_due TEXT", "",
		",\n  damaged_at      TEXT", "",
		",\n  file_mtime      INTEGER", "",
		"CREATE INDEX resource_damaged ON resource (source_id) WHERE damaged_at IS NOT NULL;", "",
	).Replace(withoutRunTable(t, schemaV3(t)))
	if strings.Contains(v1, "damaged_at") || strings.Contains(v1, "reconcile_due") || strings.Contains(v1, "file_mtime") {
		t.Fatalf("could not make a version 1 schema:\n%s", v1)
	}
	for _, q := range []string{v1,
		`INSERT INTO meta (key, value) VALUES ('schema_version', '1'), ('created', '2026-01-01T00:00:00Z')`,
		`INSERT INTO source (id, url, created) VALUES (1, 'http://h/cap.xml', '2026-01-01T00:00:00Z')`,
		`INSERT INTO resource (source_id, uri, path, path_key, length) VALUES (1, 'http://h/a', 'h/a', 'h/a', 3)`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	raw.Close()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r, err := db.Resource(ctx, 1, "http://h/a")
	if err != nil || r.Length != 3 || !r.DamagedAt.IsZero() {
		t.Fatalf("the row after the upgrade: %+v, %v", r, err)
	}
	w := db.NewWriter(WriterOptions{})
	now := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	if err := w.SetDamaged(ctx, r.ID, now); err != nil {
		t.Fatal(err)
	}
	if err := w.SetReconcileDue(ctx, 1, now); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	r, _ = db.Resource(ctx, 1, "http://h/a")
	src, err := db.Source(ctx, "http://h/cap.xml")
	if err != nil || !r.DamagedAt.Equal(now) || !src.ReconcileDue.Equal(now) {
		t.Errorf("damaged %v, reconcile due %v, %v", r.DamagedAt, src.ReconcileDue, err)
	}
	var v string
	if err := db.sql.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); err != nil || v != strconv.Itoa(SchemaVersion) {
		t.Errorf("schema_version %q, %v", v, err)
	}
	// A copy written again is no longer damaged; a finished baseline clears
	// what the audit found.
	w = db.NewWriter(WriterOptions{})
	r.FetchedAt = now
	if err := w.PutResource(ctx, &r); err != nil {
		t.Fatal(err)
	}
	if err := w.SetBaseline(ctx, 1, Baseline{Kind: "list", URL: "http://h/rl.xml", At: now, Done: now}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	r, _ = db.Resource(ctx, 1, "http://h/a")
	src, _ = db.Source(ctx, "http://h/cap.xml")
	if !r.DamagedAt.IsZero() || !src.ReconcileDue.IsZero() {
		t.Errorf("after a write and a finished baseline: damaged %v, reconcile due %v", r.DamagedAt, src.ReconcileDue)
	}
}

// stripComments drops the -- comments of the schema's SQL.
func stripComments(q string) string {
	var b strings.Builder
	for _, l := range strings.Split(q, "\n") {
		if i := strings.Index(l, "--"); i >= 0 {
			l = l[:i]
		}
		if strings.TrimSpace(l) != "" {
			b.WriteString(strings.TrimRight(l, " ") + "\n")
		}
	}
	return b.String()
}

// A file of version 3 is upgraded when opened for writing (the stray files
// due and the runs' trashed count work), and read as it is, those empty,
// when opened read-only.
func TestOpenUpgradesSchemaVersion3Stray(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{schemaV3(t),
		`INSERT INTO meta (key, value) VALUES ('schema_version', '3'), ('created', '2026-01-01T00:00:00Z')`,
		`INSERT INTO source (id, url, created) VALUES (1, 'http://h/cap.xml', '2026-01-01T00:00:00Z')`,
		`INSERT INTO run (source_id, started, mode, rsx_version) VALUES (1, '2026-01-01T00:00:00Z', 'baseline', 'old')`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	raw.Close()
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	src, err := ro.Source(ctx, "http://h/cap.xml")
	n := 0
	rerr := ro.Runs(ctx, 1, 0, func(r *Run) error { n++; return nil })
	ro.Close()
	if err != nil || rerr != nil || n != 1 || !src.StrayDue.IsZero() {
		t.Fatalf("version 3 read-only: %+v %v; %d runs, %v", src, err, n, rerr)
	}
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	w := db.NewWriter(WriterOptions{})
	if err := w.SetStrayDue(ctx, 1, now); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	r := &Run{SourceID: 1, Started: now, Mode: "reconcile", Version: "new"}
	if err := db.StartRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	r.Ended, r.Trashed = now, 2
	if err := db.EndRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	src, err = db.Source(ctx, "http://h/cap.xml")
	last, _, lerr := db.LastRun(ctx, 1)
	if err != nil || lerr != nil || !src.StrayDue.Equal(now) || last.Trashed != 2 {
		t.Errorf("after the upgrade: stray due %v (%v), last run's trashed %d (%v)", src.StrayDue, err, last.Trashed, lerr)
	}
}

// withoutRunTable is schema (of version 3) without the run table that
// version 3 added.
func withoutRunTable(t *testing.T, schema string) string {
	t.Helper()
	i := strings.Index(schema, "CREATE TABLE run (")
	end := "gz     BLOB NOT NULL\n);"
	j := strings.Index(schema, end)
	if i < 0 || j < i {
		t.Fatalf("no run table in the schema:\n%s", schema)
	}
	return schema[:i] + schema[j+len(end):]
}

// schemaV3 is the schema as version 3 made it, without comments: without
// what versions 4 (the files of each run), 5 (a Source's names, what it is
// kept out of) and 6 (stray files due, a run's trashed count) added.
func schemaV3(t *testing.T) string {
	t.Helper()
	schema := withoutVersion5(t, withoutVersion7(t, stripComments(schemaSQL)))
	start, end := "CREATE TABLE run_file (", "CREATE INDEX run_file_run ON run_file (run_id);"
	i, j := strings.Index(schema, start), strings.Index(schema, end)
	if i < 0 || j < i {
		t.Fatalf("no run_file table in the schema:\n%s", schema)
	}
	v3 := strings.NewReplacer( // version 6's columns
		",\n  stray_due     TEXT", "",
		",\n  trashed      INTEGER NOT NULL DEFAULT 0", "",
	).Replace(schema[:i] + schema[j+len(end):])
	if strings.Contains(v3, "stray_due") || strings.Contains(v3, "trashed") {
		t.Fatalf("could not make a version 3 schema:\n%s", v3)
	}
	return v3
}

// withoutVersion5 is the schema without what version 5 added (a Source's
// names, what it is kept out of).
func withoutVersion5(t *testing.T, schema string) string {
	t.Helper()
	i := strings.Index(schema, "CREATE TABLE source_name (")
	last := strings.Index(schema, "CREATE TRIGGER held_path_moved")
	j := strings.Index(schema[max(last, 0):], "END;")
	if i < 0 || last < i || j < 0 {
		t.Fatalf("no version 5 tables in the schema:\n%s", schema)
	}
	return schema[:i] + schema[last+j+len("END;"):]
}

func TestRunHistory(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src, _ := db.EnsureSource(ctx, "http://h/cap.xml")
	other, _ := db.EnsureSource(ctx, "http://g/cap.xml")
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	killed := &Run{SourceID: src.ID, Started: t0, Mode: "baseline", Planned: 10, Version: "rsx test"}
	if err := db.StartRun(ctx, killed); err != nil {
		t.Fatal(err)
	}
	done := &Run{SourceID: src.ID, Started: t0.Add(time.Hour), Mode: "reconcile", Why: "a gap", Planned: 4, Version: "rsx test"}
	if err := db.StartRun(ctx, done); err != nil {
		t.Fatal(err)
	}
	done.Ended, done.Created, done.Updated, done.Deleted, done.Failed, done.Bytes = t0.Add(61*time.Minute), 3, 1, 0, 1, 1234
	done.Finished, done.SyncedUntil, done.ExitStatus = false, t0, 1
	if err := db.EndRun(ctx, done); err != nil {
		t.Fatal(err)
	}
	if err := db.StartRun(ctx, &Run{SourceID: other.ID, Started: t0, Mode: "incremental", Version: "rsx test"}); err != nil {
		t.Fatal(err)
	}
	var got []Run
	if err := db.Runs(ctx, src.ID, 0, func(r *Run) error { got = append(got, *r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != done.ID || got[1].ID != killed.ID {
		t.Fatalf("runs %+v, want the two of the Source, newest first", got)
	}
	g := got[0]
	if g.Mode != "reconcile" || g.Why != "a gap" || g.Created != 3 || g.Failed != 1 || g.Bytes != 1234 || g.ExitStatus != 1 ||
		!g.Ended.Equal(done.Ended) || !g.SyncedUntil.Equal(t0) || g.Source != "http://h/cap.xml" || g.Version != "rsx test" {
		t.Errorf("run read back: %+v", g)
	}
	if k := got[1]; !k.Ended.IsZero() || k.ExitStatus != -1 {
		t.Errorf("a killed run: %+v", k)
	}
	if r, ok, err := db.LastRun(ctx, other.ID); err != nil || !ok || r.Mode != "incremental" {
		t.Errorf("last run of the other Source: %+v %v %v", r, ok, err)
	}
	n := 0
	db.Runs(ctx, 0, 0, func(*Run) error { n++; return nil })
	if n != 3 {
		t.Errorf("%d runs in all, want 3", n)
	}
}

// The history is bounded: a Source synced more than KeepRuns times keeps
// its newest KeepRuns runs.
func TestRunHistoryPruned(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src, _ := db.EnsureSource(ctx, "http://h/cap.xml")
	if _, err := db.sql.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO run (source_id, started, mode, rsx_version) SELECT ?, '2026-01-01T00:00:00Z', 'incremental', 'old' FROM n`, KeepRuns+50, src.ID); err != nil {
		t.Fatal(err)
	}
	r := &Run{SourceID: src.ID, Started: time.Now(), Mode: "incremental", Version: "new"}
	if err := db.StartRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	r.Ended = time.Now()
	if err := db.EndRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	var n int
	var newest string
	db.sql.QueryRow(`SELECT count(*) FROM run`).Scan(&n)
	db.sql.QueryRow(`SELECT rsx_version FROM run ORDER BY id DESC LIMIT 1`).Scan(&newest)
	if n != KeepRuns || newest != "new" {
		t.Errorf("%d runs kept (newest %q), want %d with the newest", n, newest, KeepRuns)
	}
}

// A file of the previous schema opened read-only (an audit of a read-only
// copy, rsx log) is read as it is: not upgraded, no history.
func TestOpenReadOnlyOlderSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{withoutRunTable(t, schemaV3(t)),
		`INSERT INTO meta (key, value) VALUES ('schema_version', '2'), ('created', '2026-01-01T00:00:00Z')`,
		`INSERT INTO source (id, url, created) VALUES (1, 'http://h/cap.xml', '2026-01-01T00:00:00Z')`,
		`INSERT INTO resource (source_id, uri, path, path_key, length) VALUES (1, 'http://h/a', 'h/a', 'h/a', 3)`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	raw.Close()
	db, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := db.Resource(ctx, 1, "http://h/a"); err != nil || r.Length != 3 {
		t.Errorf("resource: %+v %v", r, err)
	}
	n := 0
	if err := db.Runs(ctx, 0, 0, func(*Run) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("runs of a version 2 file: %d, %v", n, err)
	}
	db.Close()
	// Opened for writing, it is upgraded.
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.StartRun(ctx, &Run{SourceID: 1, Started: time.Now(), Mode: "incremental", Version: "x"}); err != nil {
		t.Errorf("after the upgrade: %v", err)
	}
}

// The documents kept are bounded: the last KeepDocumentRuns runs and the
// runs that changed the copy keep theirs, equal bytes are kept once, and
// the byte bound drops the oldest runs' documents first.
func TestRunDocumentsPruned(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src, _ := db.EnsureSource(ctx, "http://h/cap.xml")
	var ids []int64
	for i := range 30 {
		r := &Run{SourceID: src.ID, Started: time.Now(), Mode: "incremental", Version: "t"}
		if err := db.StartRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		if i == 3 {
			r.Created = 1 // this one changed the copy
		}
		r.Ended = time.Now()
		if err := db.EndRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
		docs := []RunDocument{
			{URL: "http://h/cap.xml", FetchedAt: time.Now(), SHA256: "same", Length: 3},
			{URL: "http://h/cl.xml", FetchedAt: time.Now(), SHA256: fmt.Sprintf("cl%d", i), Length: 3},
		}
		if err := db.PutRunDocuments(ctx, r.ID, docs, func(int) ([]byte, error) { return make([]byte, 1000), nil }); err != nil {
			t.Fatal(err)
		}
		if err := db.PruneDocuments(ctx, src.ID, 0); err != nil {
			t.Fatal(err)
		}
	}
	kept := map[int64]bool{}
	var blobs int
	db.sql.QueryRow(`SELECT count(*) FROM document_blob`).Scan(&blobs)
	for _, id := range ids {
		if d, _ := db.RunDocuments(ctx, id); len(d) > 0 {
			kept[id] = true
		}
	}
	if len(kept) != KeepDocumentRuns+1 || !kept[ids[3]] || !kept[ids[29]] || kept[ids[4]] {
		t.Errorf("runs with documents %v: want the last %d and the one that changed the copy", kept, KeepDocumentRuns)
	}
	if blobs != KeepDocumentRuns+2 {
		t.Errorf("%d blobs, want %d (one Capability List for all)", blobs, KeepDocumentRuns+2)
	}
	// A bound of 5 KB keeps the newest runs' documents only.
	if err := db.PruneDocuments(ctx, src.ID, 5000); err != nil {
		t.Fatal(err)
	}
	var total int64
	db.sql.QueryRow(`SELECT coalesce(sum(length(gz)), 0) FROM document_blob`).Scan(&total)
	if total > 5000 {
		t.Errorf("%d bytes kept over the bound", total)
	}
	if d, _ := db.RunDocuments(ctx, ids[29]); len(d) != 2 {
		t.Errorf("the newest run lost its documents: %v", d)
	}
	if d, _ := db.RunDocuments(ctx, ids[3]); len(d) != 0 {
		t.Errorf("the oldest run kept its documents past the bound")
	}
}

// withoutVersion7 is a schema (without comments) less the columns version 7
// added (each copy's media type and provenance): every schema before it.
func withoutVersion7(t *testing.T, schema string) string {
	t.Helper()
	added := regexp.MustCompile(`(?m)^\s*(type|via)\s+TEXT,?\n`)
	if n := len(added.FindAllString(schema, -1)); n != 4 {
		t.Fatalf("%d columns type and via in the schema, want 4:\n%s", n, schema)
	}
	return regexp.MustCompile(`(note\s+TEXT),`).ReplaceAllString(added.ReplaceAllString(schema, ""), "$1")
}
