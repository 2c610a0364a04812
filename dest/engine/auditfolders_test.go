package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"

	"rsx/demo"
	"rsx/dest/store"
)

// TestOpenedFolders: the folders of the files opened tell that DEST holds
// nothing else only when they hold those files and the folders leading to
// them; any other entry (a file, an empty folder, a link, a file in a folder
// of its own, a file not opened) or a path that is not clean says "cannot
// tell", and DEST's .rsx does not count.
func TestOpenedFolders(t *testing.T) {
	files := []string{"top.txt", "a/b/1", "a/b/2", "a/c/3", "a/c/d/e/4"}
	tests := []struct {
		name   string
		extra  func(t *testing.T, dir string)
		opened []string // the files opened (nil: files)
		only   bool
		parts  []string // the Source's part of DEST (nil: every folder up to its top)
	}{
		{"every file opened", nil, nil, true, nil},
		{"with .rsx", func(t *testing.T, dir string) { write(t, filepath.Join(dir, ".rsx", "state.db")) }, nil, true, nil},
		{"a file not opened", nil, files[1:], false, nil},
		{"an extra file beside others", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "a/b/x")) }, nil, false, nil},
		{"an extra file at the top", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "x")) }, nil, false, nil},
		{"an extra file in a folder of its own", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "a/f/g/x")) }, nil, false, nil},
		{"an empty folder", func(t *testing.T, dir string) { mkdir(t, filepath.Join(dir, "a/c/empty")) }, nil, false, nil},
		{"a link", func(t *testing.T, dir string) {
			if err := os.Symlink("1", filepath.Join(dir, "a/b/link")); err != nil {
				t.Fatal(err)
			}
		}, nil, false, nil},
		{"a path not clean", nil, []string{"top.txt", "a/b/1", "a/./b/2", "a/c/3", "a/c/d/e/4"}, false, nil},
		{"a path out of DEST", nil, []string{"top.txt", "a/b/1", "a/b/2", "a/c/3", "a/c/d/e/4", "../x"}, false, nil},
		// Only the Source's part counts: what is above its folders is not
		// its business.
		{"files outside the Source's part", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "x")) }, files[1:], true, []string{"a"}},
		{"an extra file in the Source's part", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "a/x")) }, files[1:], false, []string{"a"}},
		{"an extra file in a part's subfolder", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "a/c/x")) }, files[1:], false, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range files {
				write(t, filepath.Join(dir, filepath.FromSlash(f)))
			}
			if tt.extra != nil {
				tt.extra(t, dir)
			}
			st, err := store.OpenDir(dir, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			opened := tt.opened
			if opened == nil {
				opened = files
			}
			// Two workers, as an audit's share the files.
			var f openedFolders
			w1, w2 := &auditWorker{dirs: map[string]int64{}}, &auditWorker{dirs: map[string]int64{}}
			for i, p := range opened {
				[]*auditWorker{w1, w2}[i%2].noteOpened(p)
			}
			f.merge(w1.dirs)
			f.merge(w2.dirs)
			only, err := f.only(context.Background(), st, tt.parts)
			if err != nil {
				t.Fatal(err)
			}
			if only != tt.only {
				t.Errorf("only = %v, want %v", only, tt.only)
			}
		})
	}

	// Past maxOpenedFolders folders, it is not counted.
	w := &auditWorker{dirs: map[string]int64{}}
	for i := range maxOpenedFolders + 1 {
		w.noteOpened("f/" + strconv.Itoa(i) + "/x")
	}
	if w.dirs != nil {
		t.Errorf("%d folders counted", len(w.dirs))
	}
}

func write(t *testing.T, p string) {
	t.Helper()
	mkdir(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

// countingDir is a folder that counts the walks of its files.
type countingDir struct {
	*store.Dir
	counts, walks atomic.Int64
}

func (d *countingDir) CountFiles(ctx context.Context) (int64, error) {
	d.counts.Add(1)
	return d.Dir.CountFiles(ctx)
}

func (d *countingDir) Walk(ctx context.Context, fn func(store.FileInfo) error) error {
	d.walks.Add(1)
	return d.Dir.Walk(ctx, fn)
}

// TestAuditTellsNoExtraFilesByFolders: an audit of a whole copy, intact or
// with files gone, tells that DEST holds no other file by the folders of the
// files it opened, without counting or walking the files of DEST; a file
// no resource owns, beside the copies or in a folder of its own, is found
// extra all the same.
func TestAuditTellsNoExtraFilesByFolders(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 600, ListSize: 1000, Seed: 3})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), target, PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	audit := func() (*AuditReport, *countingDir) {
		t.Helper()
		d, err := store.OpenDir(dir, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		st := &countingDir{Dir: d}
		s, err := Open(context.Background(), st, testClient(t), Options{Now: fixtureClock})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		rep, err := s.Audit(context.Background(), target)
		if err != nil {
			t.Fatal(err)
		}
		return rep, st
	}
	rep, st := audit()
	if !rep.InSync() || rep.Same == 0 {
		t.Fatalf("intact: same %d, missing %q, extra %q", rep.Same, rep.Missing, rep.Extra)
	}
	if n, w := st.counts.Load(), st.walks.Load(); n+w != 0 {
		t.Errorf("intact: the files of DEST counted %d times and walked %d times, want none", n, w)
	}
	files := copyFiles(t, dir)
	slices.Sort(files)
	if err := os.Remove(files[3]); err != nil {
		t.Fatal(err)
	}
	rep, st = audit()
	if len(rep.Missing) != 1 || len(rep.Extra) != 0 {
		t.Fatalf("a file gone: missing %q, extra %q", rep.Missing, rep.Extra)
	}
	if n, w := st.counts.Load(), st.walks.Load(); n+w != 0 {
		t.Errorf("a file gone: the files of DEST counted %d times and walked %d times, want none", n, w)
	}
	for _, extra := range []string{filepath.Join(filepath.Dir(files[5]), "stray.txt"), filepath.Join(filepath.Dir(filepath.Dir(files[5])), "new", "folder", "stray.txt")} {
		write(t, extra)
		rep, _ = audit()
		rel, _ := filepath.Rel(dir, extra)
		if !slices.Contains(rep.Extra, filepath.ToSlash(rel)) {
			t.Errorf("%s: extra %q", rel, rep.Extra)
		}
		os.Remove(extra)
	}
}
