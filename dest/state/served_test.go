package state

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A state that no process has open is not opened to be shared: SQLite would
// make its log and index beside it. One that a run has open is read as the
// commit before each Frozen view began left it, whatever the run commits
// while the view is open; a new view sees the new commits.
func TestFrozenViewBesideAWriter(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	src, _ := db.EnsureSource(ctx, "http://a/cap.xml")
	db.Close()
	names := func() []string {
		es, _ := os.ReadDir(dir)
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		return out
	}
	if _, err := OpenShared(ctx, path); !errors.Is(err, ErrNoLog) {
		t.Fatalf("a state no process has open: %v", err)
	}
	if got := names(); !slices.Equal(got, []string{"state.db"}) {
		t.Fatalf("files beside the state after OpenShared refused: %q", got)
	}

	w, err := Open(ctx, path) // the run's
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	put := func(uri string) {
		t.Helper()
		wr := w.NewWriter(WriterOptions{})
		if err := wr.PutResource(ctx, &Resource{SourceID: src.ID, URI: uri, Path: uri[len("http://"):], Length: 1, Digests: "md5:aa", FetchedAt: time.Now(), Via: "{}"}); err != nil {
			t.Fatal(err)
		}
		if err := wr.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	put("http://a/1")
	r, err := OpenShared(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	count := func(f *Frozen) int {
		t.Helper()
		n := 0
		if err := f.EachCopy(ctx, src.ID, 0, 1<<40, func(*Resource) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	f1, err := r.Freeze(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	put("http://a/2")
	put("http://a/3")
	if n := count(f1); n != 1 {
		t.Errorf("the view sees %d rows, want the 1 of when it began", n)
	}
	var row Resource
	if ok, err := f1.CopyAt(ctx, "a/1", &row); !ok || err != nil || row.URI != "http://a/1" || row.Via != "{}" {
		t.Errorf("CopyAt: %v %v %+v", ok, err, row)
	}
	if srcs, err := f1.Sources(ctx); err != nil || len(srcs) != 1 || srcs[0].URL != "http://a/cap.xml" {
		t.Errorf("Sources: %+v, %v", srcs, err)
	}
	if ok, _ := f1.CopyAt(ctx, "a/2", &row); ok {
		t.Error("a row committed after the view began is in it")
	}
	f2, err := r.Freeze(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(f2); n != 3 {
		t.Errorf("a new view sees %d rows, want 3", n)
	}
	if f1.LogBytes() == 0 {
		t.Error("no log while a run has the state open")
	}
	// The view copied to a file of its own holds what the view reads, not
	// what was committed since.
	put("http://a/4")
	cp := filepath.Join(t.TempDir(), "copy.db")
	if err := f1.CopyTo(ctx, cp); err != nil {
		t.Fatal(err)
	}
	if n := count(f1); n != 1 {
		t.Errorf("the view sees %d rows after its copy, want 1", n)
	}
	f1.Close()
	f2.Close()
	c, err := OpenReadOnly(ctx, cp)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fc, _ := c.Freeze(ctx, false)
	if n := count(fc); n != 1 {
		t.Errorf("the copy holds %d rows, want the 1 of the view", n)
	}
	// A watcher sees the commits of the run, once each.
	wt, err := r.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer wt.Close()
	for i, want := range []bool{true, false} {
		if got, err := wt.Changed(ctx); got != want || err != nil {
			t.Errorf("look %d: changed %v, %v", i, got, err)
		}
	}
	put("http://a/5")
	if got, _ := wt.Changed(ctx); !got {
		t.Error("a commit not seen")
	}
}
