package engine

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rsx/dest/pathmap"
	"rsx/dest/state"
	"rsx/dest/store"
)

// rawNamesSource is a Source whose URIs hold characters a terminal or a
// text format acts on, raw or escaped, with a Change List after its
// Resource List. Each body names its resource.
func rawNamesSource(t *testing.T) (*fakeSource, []string) {
	f := newFakeSource(t)
	// As the client asks for them (escaped), which is how the fake serves.
	paths := []string{
		"/r/plain.txt",
		"/r/evil%E2%80%AEgpj.exe",    // U+202E RIGHT-TO-LEFT OVERRIDE
		"/r/csi%C2%9B2J.txt",         // U+009B CSI
		"/r/zw%E2%80%8Bsp.txt",       // U+200B ZERO WIDTH SPACE
		"/r/line%E2%80%A8sep/in.txt", // U+2028 in a folder's name
		"/r/nel%C2%85.txt",           // U+0085 NEL
		"/r/changes%E2%81%A6.txt",    // U+2066, changed by the Change List
	}
	var entries []string
	for _, p := range paths {
		body := []byte("from " + p + "\n")
		f.setRes(p, body)
		entries = append(entries, rlEntry(p, body, "2030-01-01T09:00:00Z"))
	}
	f.setDoc("/cap.xml", capList(map[string]string{"resourcelist": "/rl.xml", "changelist": "/cl.xml"}))
	f.setDoc("/rl.xml", resourceList("2030-01-01T10:00:00Z", entries...))
	f.setDoc("/cl.xml", changeList("2030-01-01T10:00:00Z", ""))
	return f, paths
}

// oldName is the name an rsx before state.PathRule gave a path: every
// escape of valid UTF-8 decoded (C0 controls and DEL were escaped already).
func oldName(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if d, err := url.PathUnescape(s); err == nil && !strings.ContainsAny(d, "/?") {
			segs[i] = d
		}
	}
	return strings.Join(segs, "/")
}

// makeOld turns a copy into one an older rsx made: its files and its rows
// at the raw names, and no record that its paths were checked.
func makeOld(t *testing.T, dir string) map[string]string {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, ".rsx", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id, path FROM resource`)
	if err != nil {
		t.Fatal(err)
	}
	moved := map[string]string{} // old → new
	type row struct {
		id   int64
		path string
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.path); err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
	}
	rows.Close()
	for _, r := range all {
		old := oldName(r.path)
		if old == r.path {
			continue
		}
		moved[old] = r.path
		if _, err := db.Exec(`UPDATE resource SET path = ?, path_key = ? WHERE id = ?`, old, pathmap.Key(old), r.id); err != nil {
			t.Fatal(err)
		}
		from, to := filepath.Join(dir, filepath.FromSlash(r.path)), filepath.Join(dir, filepath.FromSlash(old))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(from, to); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Dir(from)) // a folder left empty
	}
	if _, err := db.Exec(`DELETE FROM meta WHERE key LIKE 'path_rule/%'`); err != nil {
		t.Fatal(err)
	}
	return moved
}

// A copy an older rsx made holds files whose names carry controls,
// bidirectional and invisible characters raw. It stays whole and in sync
// (the state's paths are what every command goes by), and the next sync
// renames them (fetching each again to its new name, removing the old
// file), whatever it is (an incremental run, a reconcile): no file is lost,
// none is left twice, and later runs no longer look for names to rename.
func TestOlderRawNamesAreRenamedWithoutLossOrDuplicates(t *testing.T) {
	for _, mode := range []Mode{ModeAuto, ModeBaseline} {
		t.Run(string(mode), func(t *testing.T) { testOlderRawNamesRenamed(t, mode) })
	}
}

func testOlderRawNamesRenamed(t *testing.T, mode Mode) {
	f, paths := rawNamesSource(t)
	dir := t.TempDir()
	target := f.srv.URL + "/cap.xml"
	if res := syncOnce(t, dir, testClient(t), target, PlanOptions{}); !res.OK() {
		t.Fatalf("baseline: %s", failures(res))
	}
	moved := makeOld(t, dir)
	if len(moved) != len(paths)-1 {
		t.Fatalf("%d names made old, want %d: %v", len(moved), len(paths)-1, moved)
	}
	before := files(t, dir)
	for _, p := range before {
		if _, ok := moved[p]; !ok && !strings.HasSuffix(p, "plain.txt") {
			t.Fatalf("the old copy holds %q", p)
		}
	}
	// The old copy is whole and in sync as it is.
	if rep := auditDir(t, dir, target); !rep.InSync() {
		t.Fatalf("the old copy is not in sync: %+v", rep)
	}

	changed := []byte("changed\n")
	wantMode := ModeIncremental
	if mode == ModeAuto {
		// One change at the Source, to a resource with an old name.
		f.setRes("/r/changes%E2%81%A6.txt", changed)
		f.setDoc("/cl.xml", changeList("2030-01-01T10:00:00Z", "", clEntry("/r/changes%E2%81%A6.txt", "updated", "2030-01-01T11:00:00Z", changed)))
	} else {
		wantMode, changed = ModeBaseline, nil
	}
	res := syncOnce(t, dir, testClient(t), target, PlanOptions{Mode: mode})
	if !res.OK() || res.Plan.Mode != wantMode {
		t.Fatalf("sync: mode %s%s", res.Plan.Mode, failures(res))
	}
	if res.Plan.Summary.Update != len(moved) || !slices.ContainsFunc(res.Plan.Notes, func(n string) bool { return strings.Contains(n, "older rsx") }) {
		t.Errorf("the plan updates %d (want the %d renamed), notes %q", res.Plan.Summary.Update, len(moved), res.Plan.Notes)
	}
	after := files(t, dir)
	var want []string
	for _, p := range before {
		if n, ok := moved[p]; ok {
			p = n
		}
		want = append(want, p)
	}
	slices.Sort(want)
	if !slices.Equal(after, want) {
		t.Errorf("files after the sync:\n%q\nwant:\n%q", after, want)
	}
	for _, p := range after {
		if strings.ContainsFunc(p, func(r rune) bool { return r >= 0x80 }) {
			t.Errorf("%q still holds a raw character", p)
		}
		wantBody := "from /" + strings.SplitN(p, "/", 2)[1] + "\n"
		if strings.Contains(p, "changes") && changed != nil {
			wantBody = string(changed)
		}
		if got := string(readFile(t, dir, p)); got != wantBody {
			t.Errorf("%s holds %q, want %q", p, got, wantBody)
		}
	}
	if rep := auditDir(t, dir, target); !rep.InSync() {
		t.Errorf("not in sync after the renames: %+v", rep)
	}
	// The next run finds nothing to rename and records it; the one after
	// does not look.
	for i := range 2 {
		res := syncOnce(t, dir, testClient(t), target, PlanOptions{})
		if !res.OK() || res.Plan.Summary.Update != 0 || res.Plan.Summary.Create != 0 {
			t.Fatalf("run %d after: %+v%s", i, res.Plan.Summary, failures(res))
		}
	}
	db, err := state.OpenReadOnly(context.Background(), filepath.Join(dir, ".rsx", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src, err := db.Source(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := db.PathsChecked(context.Background(), src.ID); !ok || err != nil {
		t.Errorf("the paths are not recorded as checked: %v", err)
	}
	if got := files(t, dir); !slices.Equal(got, want) {
		t.Errorf("files changed again:\n%q", got)
	}
}

// A rename that cannot be fetched (the Source fails) leaves the old file
// and its row as they were: the run fails, nothing is lost, and the next
// run renames it.
func TestRenameThatFailsKeepsTheOldFile(t *testing.T) {
	f, _ := rawNamesSource(t)
	dir := t.TempDir()
	target := f.srv.URL + "/cap.xml"
	if res := syncOnce(t, dir, testClient(t), target, PlanOptions{}); !res.OK() {
		t.Fatalf("baseline: %s", failures(res))
	}
	makeOld(t, dir)
	old := "/r/evil\u202egpj.exe"
	f.setCode("/r/evil%E2%80%AEgpj.exe", 500)
	res := syncOnce(t, dir, testClient(t), target, PlanOptions{})
	if res.OK() || res.FailedCount != 1 {
		t.Fatalf("the run with a failing rename: failed %d%s", res.FailedCount, failures(res))
	}
	host := f.hostDir()
	if got := string(readFile(t, dir, host+old)); got != "from /r/evil%E2%80%AEgpj.exe\n" {
		t.Errorf("the old file holds %q", got)
	}
	if rep := auditDir(t, dir, target); !rep.InSync() {
		t.Errorf("not in sync after the failed rename: %+v", rep)
	}
	f.setCode("/r/evil%E2%80%AEgpj.exe", 0)
	if res := syncOnce(t, dir, testClient(t), target, PlanOptions{}); !res.OK() || res.Plan.Summary.Update != 1 {
		t.Fatalf("the next run: %+v%s", res.Plan.Summary, failures(res))
	}
	if _, err := os.Stat(filepath.Join(dir, host, "r", "evil\u202egpj.exe")); !os.IsNotExist(err) {
		t.Errorf("the old file is still there: %v", err)
	}
	if got := string(readFile(t, dir, host+"/r/evil%E2%80%AEgpj.exe")); got != "from /r/evil%E2%80%AEgpj.exe\n" {
		t.Errorf("the renamed file holds %q", got)
	}
}

// auditDir audits the copy in the folder dir.
func auditDir(t *testing.T, dir, target string) *AuditReport {
	t.Helper()
	return auditWith(t, func() store.Store {
		st, err := store.OpenDir(dir, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}, target)
}
