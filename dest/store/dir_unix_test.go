//go:build unix

package store

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A named pipe or a folder where a copy should be is refused at once: an
// audit that opened a pipe would wait in open(2) for a writer for ever.
func TestDirOpenRefusesWhatIsNotAFile(t *testing.T) {
	d, dir := openDir(t)
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, d, "folder/x", "x")
	for _, p := range []string{"pipe", "folder"} {
		done := make(chan error, 1)
		go func() {
			r, err := d.Open(context.Background(), p)
			if err == nil {
				r.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("Open(%s): opened, want an error", p)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Open(%s) hangs", p)
		}
	}
	if got := read(t, d, "folder/x"); got != "x" {
		t.Errorf("a regular file reads %q", got)
	}
}

// A FileOpener opens what Open opens and refuses what Open refuses (links
// to a file or a folder, a link that leads out, a pipe, a folder, .rsx,
// paths that leave DEST), in any order of folders, read-only too, and its
// files' Stat is the file's.
func TestDirFileOpenerAgreesWithOpen(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	bodies := map[string]string{"top.txt": "t", "h/a/1": "one", "h/a/2": "two!", "h/b/3": "three", "other/x": "x"}
	for p, body := range bodies {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	for link, to := range map[string]string{"link": "other", "h/a/tofile": "1", "out": outside, "h/outfile": filepath.Join(outside, "secret")} {
		if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "h/a/pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths := []string{"h/b/3", "h/a/1", "top.txt", "h/a/missing", "h/a", "h/a/2", "h/a/pipe", "h/a/tofile",
		"nofolder/x", "link/x", "out/secret", "h/outfile", "../out", ".rsx/state.db", ".RSX/x", "h/b/3", "other/x", "h/a/1"}
	for _, readOnly := range []bool{false, true} {
		d, err := OpenDir(dir, Options{Create: true, ReadOnly: readOnly})
		if err != nil {
			t.Fatal(err)
		}
		o := d.NewFileOpener()
		ctx := context.Background()
		for _, p := range paths {
			done := make(chan struct{})
			go func() {
				defer close(done)
				want, werr := d.Open(ctx, p)
				got, err := o.Open(ctx, p)
				if (err == nil) != (werr == nil) {
					t.Errorf("read-only %v, %s: FileOpener %v; Open %v", readOnly, p, err, werr)
				}
				if werr == nil {
					want.Close()
				}
				if err != nil {
					return
				}
				defer got.Close()
				b, rerr := io.ReadAll(got)
				if rerr != nil || string(b) != bodies[p] {
					t.Errorf("%s: read %q, %v; want %q", p, b, rerr, bodies[p])
				}
				fi, serr := got.(interface{ Stat() (fs.FileInfo, error) }).Stat()
				lfi, _ := os.Lstat(filepath.Join(dir, p))
				if serr != nil || !fi.Mode().IsRegular() || !fi.ModTime().Equal(lfi.ModTime()) || fi.Size() != lfi.Size() || fi.Size() != int64(len(bodies[p])) {
					t.Errorf("%s: Stat %v, %v: not the file", p, fi, serr)
				}
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: hangs", p)
			}
		}
		if err := o.Close(); err != nil {
			t.Error(err)
		}
		d.Close()
	}
}

// CountFiles counts what Walk lists: regular files, not links, pipes,
// folders, nor the files of .rsx.
func TestDirCountFilesAgreesWithWalk(t *testing.T) {
	ctx := context.Background()
	d, dir := openDir(t)
	for _, p := range []string{"h/a/b/1", "h/a/b/2", "h/a/3", "h/4", "top"} {
		write(t, d, p, p)
	}
	os.Symlink("h", filepath.Join(dir, "folderlink"))
	os.Symlink("top", filepath.Join(dir, "filelink"))
	syscall.Mkfifo(filepath.Join(dir, "h/pipe"), 0o644)
	os.MkdirAll(filepath.Join(dir, "empty/er"), 0o755)
	var walked int64
	if err := d.Walk(ctx, func(FileInfo) error { walked++; return nil }); err != nil {
		t.Fatal(err)
	}
	n, err := d.CountFiles(ctx)
	if err != nil || n != walked || n != 5 {
		t.Errorf("CountFiles: %d, %v; Walk listed %d; want 5", n, err, walked)
	}
}

// A FileOpener's file read to the size it had when opened, by a read that
// came short of its buffer, is at its end: the next Read says io.EOF
// without a read(2) (an audit's small files are read whole in one), so
// bytes appended after are not read. A file read in full buffers, or that
// grew before its first read, is read to its true end.
func TestDirFileOpenerEndsAtTheSizeOpened(t *testing.T) {
	d, dir := openDir(t)
	write(t, d, "a/f", "abc")
	write(t, d, "a/g", "abcd")
	o := d.NewFileOpener()
	defer o.Close()
	ctx := context.Background()
	appendTo := func(p, s string) {
		f, err := os.OpenFile(filepath.Join(dir, p), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	f, err := o.Open(ctx, "a/f")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, err := f.Read(buf); n != 3 || err != nil {
		t.Fatalf("Read: %d, %v", n, err)
	}
	appendTo("a/f", "def")
	if n, err := f.Read(buf); n != 0 || err != io.EOF {
		t.Errorf("Read after the size opened was read short: %d %q, %v; want io.EOF", n, buf[:n], err)
	}
	f.Close()
	// Full buffers: the end is asked of read(2).
	g, err := o.Open(ctx, "a/g")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := g.Read(buf[:4]); n != 4 || err != nil {
		t.Fatalf("Read: %d, %v", n, err)
	}
	appendTo("a/g", "ef")
	if b, err := io.ReadAll(g); string(b) != "ef" || err != nil {
		t.Errorf("the rest of a file read in full buffers: %q, %v; want what was appended", b, err)
	}
	g.Close()
	// Grown before its first read: read whole.
	h, err := o.Open(ctx, "a/f")
	if err != nil {
		t.Fatal(err)
	}
	appendTo("a/f", "ghi")
	if b, err := io.ReadAll(h); string(b) != "abcdefghi" || err != nil {
		t.Errorf("a file grown before its first read: %q, %v", b, err)
	}
	h.Close()
}
