package store

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
)

// reject writes content for p and keeps it as rejected, dated at.
func reject(t *testing.T, s Store, p, content string, at time.Time, dir string) {
	t.Helper()
	ctx := context.Background()
	w, err := s.Create(ctx, p, Meta{})
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, content)
	kept, err := w.Reject(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if dir != "" {
		os.Chtimes(kept, at, at)
	}
}

// rejectedFiles lists DEST/.rsx/rejected, relative to it, sorted.
func rejectedFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	root := filepath.Join(dir, ".rsx", "rejected")
	filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err == nil && p != root {
			rel, _ := filepath.Rel(root, p)
			if e.IsDir() {
				rel += "/"
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// DEST/.rsx/rejected keeps the newest files within a count and a size:
// the start of a run (Lock) and its end (Release) remove the older ones
// and the folders they leave empty. The newest is kept whatever its size.
func TestDirPrunesRejected(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "dest")
	d, err := OpenDir(dir, Options{Create: true, KeepRejectedFiles: 3, KeepRejectedBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	dir = d.String()
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, p := range []string{"h/old/1", "h/old/2", "h/a/3", "h/a/4", "h/b/5"} {
		reject(t, d, p, strings.Repeat("x", 10), t0.Add(time.Duration(i)*time.Hour), dir)
	}
	l, err := d.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"h/", "h/a/", "h/a/3", "h/a/4", "h/b/", "h/b/5"}
	if got := rejectedFiles(t, dir); l.Pruned != 2 || !slices.Equal(got, want) {
		t.Errorf("at the start: pruned %d, kept %q, want %q", l.Pruned, got, want)
	}
	// Rejected during the run: the end keeps the newest within 100 bytes.
	reject(t, d, "h/c/6", strings.Repeat("y", 85), t0.Add(10*time.Hour), dir)
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	want = []string{"h/", "h/b/", "h/b/5", "h/c/", "h/c/6"}
	if got := rejectedFiles(t, dir); !slices.Equal(got, want) {
		t.Errorf("at the end: kept %q, want %q", got, want)
	}
	// The newest is kept, however big.
	reject(t, d, "h/big", strings.Repeat("z", 500), t0.Add(20*time.Hour), dir)
	l, err = d.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	if got := rejectedFiles(t, dir); !slices.Equal(got, []string{"h/", "h/big"}) {
		t.Errorf("a big newest: kept %q", got)
	}
}

// The defaults bound what is kept.
func TestRejectedToPruneDefaults(t *testing.T) {
	files, bytes := Options{}.keepRejected()
	if files != DefaultKeepRejectedFiles || bytes != DefaultKeepRejectedBytes {
		t.Fatalf("defaults %d %d", files, bytes)
	}
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	var kept []FileInfo
	for i := range files + 5 {
		kept = append(kept, FileInfo{Path: strings.Repeat("p", i%7) + string(rune('a'+i%26)), Size: 1, ModTime: t0.Add(time.Duration(i%500) * time.Second)})
	}
	if got := len(rejectedToPrune(kept, files, bytes)); got != 5 {
		t.Errorf("pruned %d of %d", got, len(kept))
	}
}

// A bucket keeps PREFIX/.rsx/rejected/ within the same bounds, by the
// objects' last-modified times.
func TestS3PrunesRejected(t *testing.T) {
	g := startGateway(t, "copy")
	s := openS3(t, g, "copy/pre", Options{KeepRejectedFiles: 2})
	defer s.Close()
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, p := range []string{"h/1", "h/2", "h/a/3", "h/4"} {
		reject(t, s, p, "x", time.Time{}, "")
		if g.root == "" {
			// Its times are when it was written, to the second
			// (SeaweedFS): a second apart.
			time.Sleep(1100 * time.Millisecond)
			continue
		}
		// versitygw keeps objects as files: their times are its objects'.
		at := t0.Add(time.Duration(i) * time.Hour)
		if err := os.Chtimes(filepath.Join(g.root, "copy", "pre", ".rsx", "rejected", filepath.FromSlash(p)), at, at); err != nil {
			t.Fatal(err)
		}
	}
	l, err := s.Lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	var got []string
	for o := range g.client.ListObjects(context.Background(), "copy", minio.ListObjectsOptions{Prefix: "pre/.rsx/rejected/", Recursive: true}) {
		got = append(got, o.Key)
	}
	slices.Sort(got)
	if l.Pruned != 2 || !slices.Equal(got, []string{"pre/.rsx/rejected/h/4", "pre/.rsx/rejected/h/a/3"}) {
		t.Errorf("pruned %d, kept %q", l.Pruned, got)
	}
}
