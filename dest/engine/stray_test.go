package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"rsx/demo"
	"rsx/dest/state"
	"rsx/dest/store"
)

// A Source's part of DEST: the deepest folder of each first folder that
// holds its copies, widened to its Capability List's folder when that is in
// the same first folder, and its --map folders whole; a file is the
// business of the deepest part that holds it.
func TestSourceParts(t *testing.T) {
	tests := []struct {
		name   string
		src    state.Source
		groups []state.PathGroup
		want   []string
	}{
		{"no copies", state.Source{URL: "http://h/d/cap.xml"}, nil, nil},
		{"the copies and the Capability List's folder",
			state.Source{URL: "http://h/d1/capabilitylist.xml"},
			[]state.PathGroup{{Min: "h/d1/res/000001.html", Max: "h/d1/res/000099.html"}}, []string{"h/d1"}},
		{"a Capability List below the copies",
			state.Source{URL: "http://h/a/meta/cap.xml"},
			[]state.PathGroup{{Min: "h/a/b/1", Max: "h/a/c/2"}}, []string{"h/a"}},
		{"one copy", state.Source{URL: "http://other/cap.xml"},
			[]state.PathGroup{{Min: "h/x/y/f.pdf", Max: "h/x/y/f.pdf"}}, []string{"h/x/y"}},
		{"a Capability List at the host's top",
			state.Source{URL: "http://h:8080/capabilitylist.xml"},
			[]state.PathGroup{{Min: "h+8080/d/1", Max: "h+8080/d/2"}}, []string{"h+8080"}},
		{"two hosts", state.Source{URL: "http://h/d/cap.xml"},
			[]state.PathGroup{{Min: "g/x/1", Max: "g/x/2"}, {Min: "h/d/r/1", Max: "h/d/r/2"}}, []string{"g/x", "h/d"}},
		{"names that share a start are not a folder",
			state.Source{URL: "http://o/cap.xml"},
			[]state.PathGroup{{Min: "h/ab/1", Max: "h/abc/2"}}, []string{"h"}},
		{"--map folders whole",
			state.Source{URL: "http://h/d/cap.xml", Selection: state.Selection{Map: []string{"http://h/d/img/=mirror/images"}}},
			[]state.PathGroup{{Min: "h/d/r/1", Max: "h/d/r/2"}, {Min: "mirror/images/a/1.png", Max: "mirror/images/b/2.png"}},
			[]string{"h/d", "mirror/images"}},
		{"a --map to DEST's top", state.Source{URL: "http://h/d/cap.xml", Selection: state.Selection{Map: []string{"http://h/=."}}},
			[]state.PathGroup{{Min: "d/r/1", Max: "d/r/2"}}, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sourceFolders(tt.src, tt.groups); !slices.Equal(got, tt.want) {
				t.Errorf("folders %q, want %q", got, tt.want)
			}
		})
	}

	// Sources 1 (h/d), 2 (h/d/mirror, inside 1's), 3 (h/d too: they
	// share it), 4 (the whole DEST).
	d := &destParts{owners: map[string][]int64{"h/d": {1, 3}, "h/d/mirror": {2}}}
	for _, c := range []struct {
		path string
		id   int64
		want bool
	}{
		{"h/d/x", 1, true}, {"h/d/x", 3, true}, {"h/d/sub/x", 1, true}, {"h/d/x", 2, false},
		{"h/d/mirror/x", 1, false}, {"h/d/mirror/a/x", 2, true}, {"h/dd/x", 1, false},
		{"h/x", 1, false}, {"notes.txt", 1, false},
	} {
		if got := d.owns(c.id, c.path); got != c.want {
			t.Errorf("Source %d owns %s: %v", c.id, c.path, got)
		}
	}
	top := &destParts{owners: map[string][]int64{"": {4}, "h/d": {1}}}
	if !top.owns(4, "notes.txt") || !top.owns(4, "g/x") || top.owns(4, "h/d/x") || !top.owns(1, "h/d/x") {
		t.Error("a part at DEST's top")
	}
}

// A bucket's ranges are clipped to the Source's folders: what lies outside
// them is not listed.
func TestClipRanges(t *testing.T) {
	got := clipRanges([]string{"", "h/d/m", "k", ""}, []string{"a", "h/d"})
	want := [][2]string{
		{"a/", "a/\xff"},      // (start, h/d/m] ∩ a
		{"h/d/", "h/d/m"},     // (start, h/d/m] ∩ h/d
		{"h/d/m", "h/d/\xff"}, // (h/d/m, k] ∩ h/d
	}
	if !slices.Equal(got, want) {
		t.Errorf("clipped %q, want %q", got, want)
	}
	if got := clipRanges([]string{"", ""}, []string{""}); !slices.Equal(got, [][2]string{{"", ""}}) {
		t.Errorf("the whole DEST: %q", got)
	}
}

// Two Sources in one DEST: a file in one's folders is not the other's
// business, and a file a resource of another Source owns is never stray,
// even inside the Source's folders (a --map into them).
func TestAuditStrayFilesOfTwoSources(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 60, Seed: 31})
	one, two := srv.URL+"/dataset1/capabilitylist.xml", srv.URL+"/dataset2/capabilitylist.xml"
	dir := t.TempDir()
	host := strings.ReplaceAll(strings.TrimPrefix(srv.URL, "http://"), ":", "+")
	if res := syncOnce(t, dir, testClient(t), one, PlanOptions{}); !res.OK() {
		t.Fatalf("dataset 1:%s", failures(res))
	}
	// Dataset 2's copies go inside dataset 1's folder.
	mirror := host + "/dataset1/mirror2"
	sel := &state.Selection{Map: []string{srv.URL + "/dataset2/=" + mirror}}
	if res := syncOnce(t, dir, testClient(t), two, PlanOptions{Selection: sel}); !res.OK() {
		t.Fatalf("dataset 2:%s", failures(res))
	}
	for _, p := range []string{host + "/dataset1/stray1.txt", mirror + "/stray2.txt", host + "/dataset2/res/x.png"} {
		write(t, filepath.Join(dir, filepath.FromSlash(p)))
	}
	if rep := auditOnce(t, dir, testClient(t), one); !slices.Equal(rep.Stray, []string{host + "/dataset1/stray1.txt"}) || !slices.Equal(rep.Extra, rep.Stray) {
		t.Errorf("dataset 1: stray %q, extra %q", rep.Stray, rep.Extra)
	}
	if rep := auditOnce(t, dir, testClient(t), two); !slices.Equal(rep.Stray, []string{mirror + "/stray2.txt"}) || rep.Same == 0 {
		t.Errorf("dataset 2: stray %q, same %d", rep.Stray, rep.Same)
	}
	// Dataset 2 mapped into dataset 1's folder itself: the two share it,
	// and dataset 2's copies there, owned by its resources, are never
	// dataset 1's stray files.
	sel = &state.Selection{Map: []string{srv.URL + "/dataset2/=" + host + "/dataset1"}}
	if res := syncOnce(t, dir, testClient(t), two, PlanOptions{Selection: sel}); !res.OK() {
		t.Fatalf("dataset 2 mapped again:%s", failures(res))
	}
	rep := auditOnce(t, dir, testClient(t), one)
	if !slices.Equal(rep.Stray, []string{mirror + "/stray2.txt", host + "/dataset1/stray1.txt"}) {
		t.Errorf("dataset 1 beside dataset 2: stray %q", rep.Stray)
	}
	if rep := auditOnce(t, dir, testClient(t), two); rep.Same == 0 || !slices.Contains(rep.Stray, host+"/dataset1/stray1.txt") {
		t.Errorf("dataset 2 in dataset 1's folder: same %d, stray %q", rep.Same, rep.Stray)
	}
}

// The convergence of a copy with stray files (issue 34): an audit finds a
// file deleted, one overwritten, a stray file in the Source's folders, and
// leaves a file at DEST's top and one the protect list keeps alone; a sync
// with --delete (a reconcile, the audit having found damage) puts the
// first two right and moves the stray file to the trash; the next audit is
// in sync, and the two other files are untouched.
func TestSyncDeleteMovesStrayFilesToTheTrash(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 80, Seed: 32})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), target, PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	files := copyFiles(t, dir)
	slices.Sort(files)
	os.Remove(files[0])
	os.WriteFile(files[1], []byte("overwritten"), 0o644)
	res := filepath.Dir(files[2])
	rel := func(p string) string { r, _ := filepath.Rel(dir, p); return filepath.ToSlash(r) }
	stray := filepath.Join(res, "stray.txt")
	kept := filepath.Join(res, "kept.log")
	top := filepath.Join(dir, "notes.txt")
	for _, p := range []string{stray, kept, top} {
		write(t, p)
	}
	os.WriteFile(filepath.Join(dir, ".rsxignore"), []byte("*.log\n"), 0o644)

	rep := auditOnce(t, dir, testClient(t), target)
	if rep.InSync() || len(rep.Missing) != 1 || len(rep.Changed) != 1 || !slices.Equal(rep.Stray, []string{rel(stray)}) || rep.Protected != 1 {
		t.Fatalf("audit: missing %q, changed %q, stray %q, %d protected", rep.Missing, rep.Changed, rep.Stray, rep.Protected)
	}
	r := syncOnce(t, dir, testClient(t), target, PlanOptions{Delete: true})
	if !r.OK() || !r.Plan.Reconcile || !r.Plan.StrayLooked || r.Plan.Summary.Trash != 1 || r.Trashed != 1 || r.Updated != 2 {
		t.Fatalf("sync --delete: ok %v, reconcile %v, looked %v, trash %d, trashed %d, updated %d:%s",
			r.OK(), r.Plan.Reconcile, r.Plan.StrayLooked, r.Plan.Summary.Trash, r.Trashed, r.Updated, failures(r))
	}
	inTrash := filepath.Join(dir, filepath.FromSlash(r.TrashFolder), filepath.FromSlash(rel(stray)))
	if _, err := os.Stat(inTrash); err != nil || !strings.HasPrefix(r.TrashFolder, ".rsx/trash/") {
		t.Errorf("the stray file in the trash (%s): %v", r.TrashFolder, err)
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Errorf("the stray file is still there: %v", err)
	}
	for _, p := range []string{kept, top} {
		if b, err := os.ReadFile(p); err != nil || string(b) != "x" {
			t.Errorf("%s: %q %v", rel(p), b, err)
		}
	}
	if rep := auditOnce(t, dir, testClient(t), target); !rep.InSync() || rep.Protected != 1 {
		t.Errorf("audit after: in sync %v, missing %q, changed %q, extra %q", rep.InSync(), rep.Missing, rep.Changed, rep.Extra)
	}
	s := openSession(t, dir, testClient(t), Options{})
	last, _, err := s.db.LastRun(context.Background(), r.Plan.srcID)
	src, serr := s.db.Source(context.Background(), r.Plan.Source)
	if err != nil || serr != nil || last.Trashed != 1 || !src.StrayDue.IsZero() {
		t.Errorf("history: trashed %d (%v); stray due %v (%v)", last.Trashed, err, src.StrayDue, serr)
	}
}

// After an audit that found only a stray file, a sync without --delete
// keeps it; the next sync with --delete, an incremental one, looks for it
// (the audit recorded it) and moves it; later syncs look for none.
func TestIncrementalSyncDeleteAfterAuditFoundStrayFiles(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 60, Seed: 33})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), target, PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	files := copyFiles(t, dir)
	stray := filepath.Join(filepath.Dir(files[0]), "zz-stray.txt")
	write(t, stray)
	if rep := auditOnce(t, dir, testClient(t), target); len(rep.Stray) != 1 {
		t.Fatalf("audit: stray %q", rep.Stray)
	}
	if r := syncOnce(t, dir, testClient(t), target, PlanOptions{}); !r.OK() || r.Plan.StrayLooked || r.Trashed != 0 {
		t.Fatalf("sync without --delete: looked %v, trashed %d", r.Plan.StrayLooked, r.Trashed)
	}
	r := syncOnce(t, dir, testClient(t), target, PlanOptions{Delete: true})
	if !r.OK() || r.Plan.Mode != ModeIncremental || !r.Plan.StrayLooked || r.Trashed != 1 {
		t.Fatalf("sync --delete: mode %s, looked %v, trashed %d:%s", r.Plan.Mode, r.Plan.StrayLooked, r.Trashed, failures(r))
	}
	if r := syncOnce(t, dir, testClient(t), target, PlanOptions{Delete: true}); !r.OK() || r.Plan.StrayLooked {
		t.Errorf("the next sync --delete looked for stray files again")
	}
}

// --max-delete: a plan that would delete more than it allows deletes
// nothing (the deletions are remembered, the stray files stay) and fails;
// one within it moves them.
func TestSyncMaxDelete(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 60, Seed: 34})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), target, PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	files := copyFiles(t, dir)
	strays := []string{filepath.Join(filepath.Dir(files[0]), "a.tmp"), filepath.Join(filepath.Dir(files[0]), "b.tmp")}
	for _, p := range strays {
		write(t, p)
	}
	r := syncOnce(t, dir, testClient(t), target, PlanOptions{Mode: ModeBaseline, Delete: true, LimitDeletes: true, MaxDelete: 1})
	if r.OK() || r.ExitStatus() != 1 || r.Plan.DeletesHeld != 2 || r.Trashed != 0 || r.Deleted != 0 {
		t.Fatalf("over --max-delete: ok %v, exit %d, held %d, trashed %d, deleted %d", r.OK(), r.ExitStatus(), r.Plan.DeletesHeld, r.Trashed, r.Deleted)
	}
	for _, p := range strays {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s after the held run: %v", p, err)
		}
	}
	r = syncOnce(t, dir, testClient(t), target, PlanOptions{Mode: ModeBaseline, Delete: true, LimitDeletes: true, MaxDelete: 2})
	if !r.OK() || r.Plan.DeletesHeld != 0 || r.Trashed != 2 {
		t.Fatalf("within --max-delete: ok %v, held %d, trashed %d:%s", r.OK(), r.Plan.DeletesHeld, r.Trashed, failures(r))
	}
}

// The same in a bucket: the audit finds the stray object in the Source's
// folders (and leaves the one at the prefix's top and the protected one
// alone), a sync with --delete moves it under PREFIX/.rsx/trash/, and the
// next audit is in sync.
func TestS3SyncDeleteMovesStrayFilesToTheTrash(t *testing.T) {
	endpoint, mc := startVersitygw(t, "copies")
	srv := startDemo(t, demo.Options{Resources: 80, Seed: 35})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dest := "s3://copies/demo?endpoint=" + endpoint + "&region=us-east-1"
	cache := t.TempDir()
	if res := s3Sync(t, dest, cache, target, PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	ctx := context.Background()
	host := strings.ReplaceAll(strings.TrimPrefix(srv.URL, "http://"), ":", "+")
	put := func(key, body string) {
		t.Helper()
		if _, err := mc.PutObject(ctx, "copies", "demo/"+key, strings.NewReader(body), int64(len(body)), minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	stray := host + "/dataset1/zz-stray.txt"
	put(stray, "stray")
	put("notes.txt", "mine")
	put(host+"/dataset1/keep/me.txt", "kept")
	put(".rsxignore", "/"+host+"/dataset1/keep/\n")
	audit := func() *AuditReport {
		t.Helper()
		st, err := store.Open(ctx, dest, store.Options{Getenv: s3Getenv, CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		s, err := Open(ctx, st, testClient(t), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		rep, err := s.Audit(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	if rep := audit(); !slices.Equal(rep.Stray, []string{stray}) || rep.Protected != 1 || rep.InSync() {
		t.Fatalf("audit: stray %q, %d protected, extra %q", rep.Stray, rep.Protected, rep.Extra)
	}
	r := s3Sync(t, dest, cache, target, PlanOptions{Delete: true})
	if !r.OK() || r.Trashed != 1 {
		t.Fatalf("sync --delete: trashed %d:%s", r.Trashed, failures(r))
	}
	if _, err := mc.StatObject(ctx, "copies", "demo/"+r.TrashFolder+"/"+stray, minio.StatObjectOptions{}); err != nil {
		t.Errorf("the stray object in the trash: %v", err)
	}
	for _, key := range []string{stray, "notes.txt", host + "/dataset1/keep/me.txt"} {
		_, err := mc.StatObject(ctx, "copies", "demo/"+key, minio.StatObjectOptions{})
		if gone := err != nil; gone != (key == stray) {
			t.Errorf("%s: %v", key, err)
		}
	}
	if rep := audit(); !rep.InSync() {
		t.Errorf("audit after: extra %q, missing %q", rep.Extra, rep.Missing)
	}
}

// A resource the Source deleted whose copy the protect list keeps: sync
// --delete forgets the resource and leaves the file, which the audit then
// counts as protected, not extra.
func TestSyncDeleteKeepsAProtectedCopy(t *testing.T) {
	f := newChangingSource(t)
	f.setRes("/r/a", []byte("a v1\n"))
	f.setRes("/r/b", []byte("b v1\n"))
	f.setDoc("/rl.xml", resourceList("2030-01-01T10:00:00Z",
		rlEntry("/r/a", []byte("a v1\n"), "2030-01-01T09:00:00Z"),
		rlEntry("/r/b", []byte("b v1\n"), "2030-01-01T09:00:00Z")))
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	os.WriteFile(filepath.Join(dir, ".rsxignore"), []byte("/"+f.hostDir()+"/r/b\n"), 0o644)
	f.setDoc("/rl.xml", resourceList("2030-01-01T11:00:00Z", rlEntry("/r/a", []byte("a v1\n"), "2030-01-01T09:00:00Z")))
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Mode: ModeBaseline, Delete: true})
	if !res.OK() || res.Deleted != 1 {
		t.Fatalf("sync --delete: deleted %d:%s", res.Deleted, failures(res))
	}
	if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.hostDir()+"/r/b"))); err != nil || string(b) != "b v1\n" {
		t.Errorf("the protected copy: %q %v", b, err)
	}
	if rep := auditOnce(t, dir, testClient(t), f.target()); !rep.InSync() || rep.Protected != 1 {
		t.Errorf("audit: in sync %v, extra %q, %d protected", rep.InSync(), rep.Extra, rep.Protected)
	}
}
