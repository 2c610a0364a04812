package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"rsx/internal/testproc"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func openDir(t *testing.T) (*Dir, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "dest")
	d, err := OpenDir(dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, d.String()
}

// write writes a file through the store and commits it.
func write(t *testing.T, s Store, p, content string) {
	t.Helper()
	ctx := context.Background()
	w, err := s.Create(ctx, p, Meta{ContentType: "text/plain"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, content); err != nil {
		t.Fatal(err)
	}
	if w.Written() != int64(len(content)) {
		t.Errorf("Written = %d", w.Written())
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, s Store, p string) string {
	t.Helper()
	r, err := s.Open(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func tmpCount(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, ".rsx", "tmp"))
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

func TestDirWrites(t *testing.T) {
	ctx := context.Background()
	d, dir := openDir(t)
	write(t, d, "example.org/a/b/c.txt", "first")
	if got := read(t, d, "example.org/a/b/c.txt"); got != "first" {
		t.Fatalf("read %q", got)
	}
	write(t, d, "example.org/a/b/c.txt", "second")
	if got := read(t, d, "example.org/a/b/c.txt"); got != "second" {
		t.Fatalf("replaced: %q", got)
	}
	if err := d.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if len(d.dirty) != 0 {
		t.Errorf("folders left dirty after Sync: %v", d.dirty)
	}

	// An abandoned write leaves the old file.
	w, _ := d.Create(ctx, "example.org/a/b/c.txt", Meta{})
	io.WriteString(w, "partial")
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := read(t, d, "example.org/a/b/c.txt"); got != "second" {
		t.Errorf("after Abort: %q", got)
	}
	if _, err := w.Write([]byte("x")); err == nil {
		t.Error("Write after Abort")
	}
	if err := w.Commit(ctx); err == nil {
		t.Error("Commit after Abort")
	}

	// A rejected write is kept for inspection, the old file stays.
	w, _ = d.Create(ctx, "example.org/a/b/c.txt", Meta{})
	io.WriteString(w, "tampered")
	kept, err := w.Reject(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if kept != filepath.Join(dir, ".rsx", "rejected", "example.org", "a", "b", "c.txt") {
		t.Errorf("kept at %s", kept)
	}
	if b, _ := os.ReadFile(kept); string(b) != "tampered" {
		t.Errorf("kept %q", b)
	}
	if got := read(t, d, "example.org/a/b/c.txt"); got != "second" {
		t.Errorf("after Reject: %q", got)
	}

	// A commit that cannot take the path (a folder is there) fails cleanly.
	w, _ = d.Create(ctx, "example.org/a", Meta{})
	io.WriteString(w, "x")
	if err := w.Commit(ctx); err == nil {
		t.Error("a file replaced a folder")
	}
	// A path that needs a file as a folder.
	w, _ = d.Create(ctx, "example.org/a/b/c.txt/d", Meta{})
	io.WriteString(w, "x")
	if err := w.Commit(ctx); err == nil || !strings.Contains(err.Error(), "is a file, not a folder") {
		t.Errorf("a file used as a folder: %v", err)
	}
	if n := tmpCount(t, dir); n != 0 {
		t.Errorf("%d temporaries left", n)
	}
	fi, err := d.Stat(ctx, "example.org/a/b/c.txt")
	if err != nil || fi.Size != 6 || fi.Path != "example.org/a/b/c.txt" {
		t.Errorf("Stat %+v %v", fi, err)
	}
	if _, err := d.Stat(ctx, "example.org/none"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat of a missing file: %v", err)
	}
	if _, err := d.Open(ctx, "example.org/none"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing file: %v", err)
	}
}

func TestCheckPath(t *testing.T) {
	for _, p := range []string{"", "/etc/passwd", "../x", "a/../../x", "a//b", "a/./b", "a/", ".rsx/state.db", ".RSX/x", ".rsx",
		"a\\b", "a\x00b", strings.Repeat("n", 256), "x/" + strings.Repeat("n", 256)} {
		if err := CheckPath(p); err == nil {
			t.Errorf("CheckPath(%q) accepted", p)
		}
	}
	for _, p := range []string{"a", "a/b.c", "a/.rsx/b", ".rsxx/a", "a b/c d", strings.Repeat("n", 255), "é/ü"} {
		if err := CheckPath(p); err != nil {
			t.Errorf("CheckPath(%q): %v", p, err)
		}
	}
	d, dir := openDir(t)
	ctx := context.Background()
	if _, err := d.Create(ctx, "../escape", Meta{}); err == nil {
		t.Error("Create outside the folder")
	}
	if err := d.Remove(ctx, ".rsx/state.db"); err == nil {
		t.Error("Remove inside .rsx")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape")); err == nil {
		t.Error("a file was written outside the folder")
	}
}

func TestDirRefusesLinksThatLeadOut(t *testing.T) {
	ctx := context.Background()
	d, dir := openDir(t)
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(dir, "out"))
	os.Symlink("../../etc", filepath.Join(dir, "up"))
	os.MkdirAll(filepath.Join(dir, "inside"), 0o755)
	os.Symlink("inside", filepath.Join(dir, "in"))
	for _, p := range []string{"out/x", "up/x", "out/sub/x"} {
		w, err := d.Create(ctx, p, Meta{})
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, "x")
		if err := w.Commit(ctx); err == nil {
			t.Errorf("%s: written through a link that leads out", p)
		}
		if _, err := d.Open(ctx, p); err == nil {
			t.Errorf("%s: read through a link that leads out", p)
		}
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 0 {
		t.Errorf("written outside: %v", entries)
	}
	// A link that stays inside the copy is not followed either: the file
	// would not be where the state says.
	write(t, d, "inside/y", "inner")
	w, err := d.Create(ctx, "in/y", Meta{})
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "through")
	var le *LinkError
	if err := w.Commit(ctx); !errors.As(err, &le) || le.Link != "in" || le.Leads != "elsewhere in the copy" {
		t.Errorf("written through an inner link: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "inside", "y")); string(b) != "inner" {
		t.Errorf("through an inner link: %q", b)
	}
	// Walk does not follow links.
	var paths []string
	d.Walk(ctx, func(fi FileInfo) error { paths = append(paths, fi.Path); return nil })
	if strings.Join(paths, " ") != "inside/y" {
		t.Errorf("Walk: %q", paths)
	}
}

// A link planted in the copy that leads into DEST/.rsx would let a
// resource overwrite the state or the lock: every write, read, stat and
// removal refuses a path with a link among its folders, naming the link.
func TestDirRefusesLinksIntoItsOwnFolder(t *testing.T) {
	ctx := context.Background()
	d, dir := openDir(t)
	write(t, d, "h/real/x", "x")
	state := filepath.Join(dir, ".rsx", "state.db")
	os.WriteFile(state, []byte("the state"), 0o644)
	os.Symlink(".rsx", filepath.Join(dir, "a"))
	os.Symlink("../.rsx", filepath.Join(dir, "h", "b"))
	os.Symlink("../../.rsx", filepath.Join(dir, "h", "real", "c"))
	os.Symlink(filepath.Join(dir, ".rsx"), filepath.Join(dir, "abs"))
	os.Symlink(".rsx/state.db", filepath.Join(dir, "final"))
	for _, tc := range []struct{ path, link, leads string }{
		{"a/state.db", "a", "into the destination's own folder .rsx"},
		{"a/lock", "a", "into the destination's own folder .rsx"},
		{"a/tmp/x", "a", "into the destination's own folder .rsx"},
		{"h/b/state.db", "h/b", "into the destination's own folder .rsx"},
		{"h/real/c/state.db", "h/real/c", "into the destination's own folder .rsx"},
		{"abs/state.db", "abs", "into the destination's own folder .rsx"},
	} {
		w, err := d.Create(ctx, tc.path, Meta{})
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, "overwritten")
		err = w.Commit(ctx)
		var le *LinkError
		if !errors.As(err, &le) || le.Link != tc.link || le.Leads != tc.leads {
			t.Errorf("Commit(%s): %v, want a LinkError of %s %s", tc.path, err, tc.link, tc.leads)
		} else if msg := err.Error(); !strings.Contains(msg, tc.path) || !strings.Contains(msg, strconv.Quote(tc.link)) {
			t.Errorf("Commit(%s): %q does not name the path and the link", tc.path, msg)
		}
		if err := d.Remove(ctx, tc.path); !errors.As(err, &le) {
			t.Errorf("Remove(%s): %v, want a LinkError", tc.path, err)
		}
		if _, err := d.Open(ctx, tc.path); !errors.As(err, &le) {
			t.Errorf("Open(%s): %v, want a LinkError", tc.path, err)
		}
		if _, err := d.Stat(ctx, tc.path); !errors.As(err, &le) {
			t.Errorf("Stat(%s): %v, want a LinkError", tc.path, err)
		}
	}
	// A link at the file's own place is neither read nor followed; a write
	// replaces the link by the file.
	if _, err := d.Open(ctx, "final"); err == nil {
		t.Error("Open followed a link to .rsx/state.db")
	}
	write(t, d, "final", "a file now")
	if fi, err := os.Lstat(filepath.Join(dir, "final")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the link was not replaced by the file: %v", err)
	}
	if b, _ := os.ReadFile(state); string(b) != "the state" {
		t.Errorf("state.db was changed through a link: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, ".rsx", "lock")); err == nil {
		t.Error("a lock was written through a link")
	}
	if got := tmpCount(t, dir); got != 0 {
		t.Errorf("%d temporaries left", got)
	}
}

// DEST/.rsx, or anything in it, that is a link or not of the kind rsx keeps
// there makes OpenDir refuse the destination, changing nothing: a tmp/
// that leads into the copy would otherwise be emptied by the next Lock.
func TestOpenDirRefusesLinksInItsOwnFolder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, dir, copyDir string)
		want  string
	}{
		{".rsx a link into the copy", func(t *testing.T, dir, copyDir string) {
			os.RemoveAll(filepath.Join(dir, ".rsx"))
			os.Symlink("h", filepath.Join(dir, ".rsx"))
		}, ".rsx is a symbolic link"},
		{".rsx a file", func(t *testing.T, dir, copyDir string) {
			os.RemoveAll(filepath.Join(dir, ".rsx"))
			os.WriteFile(filepath.Join(dir, ".rsx"), nil, 0o644)
		}, ".rsx is a file, not a folder"},
		{"tmp a link into the copy", func(t *testing.T, dir, copyDir string) {
			os.RemoveAll(filepath.Join(dir, ".rsx", "tmp"))
			os.Symlink("../h", filepath.Join(dir, ".rsx", "tmp"))
		}, "tmp is a symbolic link (to \"../h\", elsewhere in the copy)"},
		{"tmp a link outside", func(t *testing.T, dir, copyDir string) {
			os.RemoveAll(filepath.Join(dir, ".rsx", "tmp"))
			os.Symlink(t.TempDir(), filepath.Join(dir, ".rsx", "tmp"))
		}, "outside the destination"},
		{"tmp an absolute link into the copy", func(t *testing.T, dir, copyDir string) {
			os.RemoveAll(filepath.Join(dir, ".rsx", "tmp"))
			os.Symlink(copyDir, filepath.Join(dir, ".rsx", "tmp"))
		}, "elsewhere in the copy"},
		{"lock a link", func(t *testing.T, dir, copyDir string) {
			os.Remove(filepath.Join(dir, ".rsx", "lock"))
			os.Symlink("../h/x", filepath.Join(dir, ".rsx", "lock"))
		}, "lock is a symbolic link"},
		{"state.db a link", func(t *testing.T, dir, copyDir string) {
			os.Symlink("../h/x", filepath.Join(dir, ".rsx", "state.db"))
		}, "state.db is a symbolic link"},
		{"state.db a folder", func(t *testing.T, dir, copyDir string) {
			os.Mkdir(filepath.Join(dir, ".rsx", "state.db"), 0o755)
		}, "state.db is a folder, not a file"},
		{"rejected a link", func(t *testing.T, dir, copyDir string) {
			os.Symlink("../h", filepath.Join(dir, ".rsx", "rejected"))
		}, "rejected is a symbolic link"},
		{"a link deep in rejected", func(t *testing.T, dir, copyDir string) {
			os.MkdirAll(filepath.Join(dir, ".rsx", "rejected", "h", "a"), 0o755)
			os.Symlink("/etc", filepath.Join(dir, ".rsx", "rejected", "h", "a", "b"))
		}, "rejected/h/a/b is a symbolic link"},
		{"a pipe in tmp", func(t *testing.T, dir, copyDir string) {
			if err := syscall.Mkfifo(filepath.Join(dir, ".rsx", "tmp", "p"), 0o644); err != nil {
				t.Skip(err)
			}
		}, "neither a file nor a folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, dir := openDir(t)
			write(t, d, "h/x", "the copy")
			l, err := d.Lock(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			l.Release()
			d.Close()
			copyDir := filepath.Join(dir, "h")
			tc.plant(t, dir, copyDir)
			before := tree(t, dir)
			d2, err := OpenDir(dir, Options{Create: true})
			var re *ReservedError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
				if err == nil {
					d2.Close()
				}
				t.Fatalf("OpenDir: %v, want a ReservedError saying %q", err, tc.want)
			}
			if after := tree(t, dir); after != before {
				t.Errorf("the destination changed:\n%s\nwas\n%s", after, before)
			}
		})
	}
}

// tree describes every entry below dir (links not followed).
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, _ := e.Info()
		fmt.Fprintf(&b, "%s %s %d\n", p, fi.Mode(), fi.Size())
		return nil
	})
	return b.String()
}

func TestDirRemoveAndWalk(t *testing.T) {
	ctx := context.Background()
	d, dir := openDir(t)
	for _, p := range []string{"h/a/b/1", "h/a/b/2", "h/a/3", "h/4"} {
		write(t, d, p, p)
	}
	var paths []string
	if err := d.Walk(ctx, func(fi FileInfo) error {
		paths = append(paths, fi.Path+":"+strconv.FormatInt(fi.Size, 10))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	if strings.Join(paths, " ") != "h/4:3 h/a/3:5 h/a/b/1:7 h/a/b/2:7" {
		t.Errorf("Walk: %q", paths)
	}
	for _, p := range []string{"h/a/b/1", "h/a/b/2", "h/a/b/2", "h/missing/x"} {
		if err := d.Remove(ctx, p); err != nil {
			t.Errorf("Remove(%s): %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "h", "a", "b")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an emptied folder was left: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "h", "a", "3")); err != nil {
		t.Errorf("a file beside was removed: %v", err)
	}
	if err := d.Remove(ctx, "h/a"); err == nil {
		t.Error("a folder was removed as a file")
	}
	if err := d.Sync(ctx); err != nil {
		t.Errorf("Sync after removals: %v", err)
	}
	// A file can be written again where an emptied folder was, and where a
	// folder was removed behind the store's back.
	write(t, d, "h/a/b/5", "5")
	write(t, d, "x/y/1", "1")
	os.RemoveAll(filepath.Join(dir, "x"))
	write(t, d, "x/y/2", "2")
	stop := errors.New("stop")
	if err := d.Walk(ctx, func(FileInfo) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("Walk's error: %v", err)
	}
}

func TestOpenDir(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := OpenDir(missing, Options{}); err == nil {
		t.Error("a missing folder was opened without Create")
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := OpenDir(file, Options{Create: true}); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("a file as destination: %v", err)
	}
	d, err := Open(context.Background(), missing, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.CaseInsensitive() {
		t.Log("this file system ignores case")
	}
	if p, _ := d.StatePath(context.Background()); p != filepath.Join(d.String(), ".rsx", "state.db") {
		t.Errorf("StatePath %s", p)
	}
	if fi, err := os.Stat(d.TempDir()); err != nil || !fi.IsDir() || d.TempDir() != filepath.Join(d.String(), ".rsx", "tmp") {
		t.Errorf("TempDir %s: %v", d.TempDir(), err)
	}
	if _, err := Open(context.Background(), "ftp://x/y", Options{}); err == nil {
		t.Error("ftp:// accepted")
	}
	if _, err := Open(context.Background(), "", Options{}); err == nil {
		t.Error("an empty destination accepted")
	}
	// The folder may be reached through a link.
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(d.String(), link)
	d2, err := OpenDir(link, Options{})
	if err != nil || d2.String() != d.String() {
		t.Errorf("through a link: %v, %s", err, d2)
	}
	d2.Close()
}

func TestDirLock(t *testing.T) {
	ctx := context.Background()
	d, dir := openDir(t)
	// Temporaries of an interrupted run.
	for i := 0; i < 3; i++ {
		os.WriteFile(filepath.Join(dir, ".rsx", "tmp", fmt.Sprint("left-", i)), []byte("x"), 0o644)
	}
	l, err := d.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l.Removed != 3 || tmpCount(t, dir) != 0 || l.TookOver != nil || l.Holder.PID != os.Getpid() {
		t.Errorf("lock %+v, %d temporaries left", l, tmpCount(t, dir))
	}
	// A second run is refused, and told who holds the folder.
	d2, err := OpenDir(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	_, err = d2.Lock(ctx)
	var le *LockedError
	if !errors.As(err, &le) || le.Holder.PID != os.Getpid() {
		t.Fatalf("second lock: %v", err)
	}
	host, _ := os.Hostname()
	for _, want := range []string{"is in use by run " + l.Holder.Token + " on host " + host + " (pid " + strconv.Itoa(os.Getpid()) + ")", "since " + l.Holder.Started.Format(time.RFC3339), filepath.Join(dir, ".rsx", "lock")} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	l2, err := d2.Lock(ctx)
	if err != nil {
		t.Fatalf("after Release: %v", err)
	}
	if l2.TookOver != nil {
		t.Errorf("took over a lock released cleanly: %+v", l2.TookOver)
	}
	l2.Release()
}

// TestDirLockOfAKilledRun: a run killed while it holds the lock does not keep
// the folder: the next run takes over and says whose lock it was.
func TestDirLockOfAKilledRun(t *testing.T) {
	if dir := os.Getenv("RSX_STORE_HOLD"); dir != "" {
		holdLock(dir)
		return
	}
	if testing.Short() {
		t.Skip("starts a process and kills it")
	}
	ctx := context.Background()
	d, dir := openDir(t)
	cmd := testproc.Start(t, "TestDirLockOfAKilledRun", "RSX_STORE_HOLD="+dir)
	_, err := d.Lock(ctx)
	var le *LockedError
	if !errors.As(err, &le) || le.Holder.PID != cmd.Process.Pid {
		t.Fatalf("while the holder runs: %v", err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	l, err := d.Lock(ctx)
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	defer l.Release()
	if l.TookOver == nil || l.TookOver.PID != cmd.Process.Pid {
		t.Errorf("TookOver = %+v, want pid %d", l.TookOver, cmd.Process.Pid)
	}
	if l.Removed != 1 {
		t.Errorf("removed %d temporaries of the killed run, want 1", l.Removed)
	}
}

func holdLock(dir string) {
	d, err := OpenDir(dir, Options{})
	if err != nil {
		fmt.Println(err)
		os.Exit(3)
	}
	if _, err := d.Lock(context.Background()); err != nil {
		fmt.Println(err)
		os.Exit(3)
	}
	w, _ := d.Create(context.Background(), "x/unfinished", Meta{})
	io.WriteString(w, "partial")
	fmt.Println("ready")
	time.Sleep(time.Minute)
	os.Exit(0)
}

// TestDirKilledWhileWriting kills a process writing files through the store
// and checks that every file at its final path is whole.
func TestDirKilledWhileWriting(t *testing.T) {
	if dir := os.Getenv("RSX_STORE_WRITE"); dir != "" {
		writeForever(dir)
		return
	}
	if testing.Short() {
		t.Skip("starts a process and kills it")
	}
	d, dir := openDir(t)
	cmd := testproc.Start(t, "TestDirKilledWhileWriting", "RSX_STORE_WRITE="+dir)
	// Let it write some files, then kill it in the middle of others.
	deadline := time.Now().Add(20 * time.Second)
	for n := 0; n < 20 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		n = 0
		d.Walk(context.Background(), func(FileInfo) error { n++; return nil })
	}
	time.Sleep(37 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	files := 0
	err := d.Walk(context.Background(), func(fi FileInfo) error {
		files++
		b, err := os.ReadFile(filepath.Join(dir, fi.Path))
		if err != nil {
			return err
		}
		if !bytes.Equal(b, content(fi.Path)) {
			t.Errorf("%s is not whole: %d bytes", fi.Path, len(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("no file was written before the kill")
	}
	t.Logf("%d whole files, %d temporaries left by the killed run", files, tmpCount(t, dir))
	l, err := d.Lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if tmpCount(t, dir) != 0 {
		t.Errorf("the next run left %d temporaries", tmpCount(t, dir))
	}
}

func content(p string) []byte {
	return bytes.Repeat([]byte(p+"\n"), 20000)
}

func writeForever(dir string) {
	ctx := context.Background()
	d, err := OpenDir(dir, Options{})
	if err != nil {
		fmt.Println(err)
		os.Exit(3)
	}
	if _, err := d.Lock(ctx); err != nil {
		fmt.Println(err)
		os.Exit(3)
	}
	fmt.Println("ready")
	for i := 0; ; i++ {
		p := fmt.Sprintf("h/%d/%d", i%7, i%50) // the same files again and again
		w, err := d.Create(ctx, p, Meta{})
		if err != nil {
			os.Exit(3)
		}
		b := content(p)
		for len(b) > 0 { // in pieces, as a download arrives
			n := min(len(b), 4096)
			w.Write(b[:n])
			b = b[n:]
		}
		if err := w.Commit(ctx); err != nil {
			os.Exit(3)
		}
	}
}

// CommitBatch commits many writes with one flush: each lands whole at its
// path; a write already committed, or abandoned, is told so; a writer of
// another store is committed on its own.
func TestDirCommitBatch(t *testing.T) {
	ctx := context.Background()
	d, dir := openDir(t)
	other, _ := openDir(t)
	var ws []Writer
	for i := range 5 {
		w, err := d.Create(ctx, fmt.Sprintf("h/b%d/f%d", i%2, i), Meta{})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(w, "file %d", i)
		ws = append(ws, w)
	}
	done, _ := d.Create(ctx, "h/done", Meta{})
	done.Commit(ctx)
	ws = append(ws, done)
	ow, _ := other.Create(ctx, "h/other", Meta{})
	io.WriteString(ow, "other")
	ws = append(ws, ow)
	errs := d.CommitBatch(ctx, ws)
	for i := range 5 {
		if errs[i] != nil {
			t.Errorf("write %d: %v", i, errs[i])
		}
		b, err := os.ReadFile(filepath.Join(dir, "h", fmt.Sprintf("b%d", i%2), fmt.Sprintf("f%d", i)))
		if err != nil || string(b) != fmt.Sprintf("file %d", i) {
			t.Errorf("file %d: %q %v", i, b, err)
		}
	}
	if errs[5] == nil || !strings.Contains(errs[5].Error(), "already committed") {
		t.Errorf("a committed write: %v", errs[5])
	}
	if errs[6] != nil {
		t.Errorf("another store's write: %v", errs[6])
	}
	if tmpCount(t, dir) != 0 {
		t.Errorf("%d temporaries left", tmpCount(t, dir))
	}
}

// StatBatch says of each path what Stat says: files in several folders, at
// the top, missing ones, a folder, a path through a link, a bad path.
func TestDirStatBatchAgreesWithStat(t *testing.T) {
	dir := t.TempDir()
	d, err := OpenDir(dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for p, body := range map[string]string{"top.txt": "t", "h/a/1": "one", "h/a/2": "two!", "h/b/3": "three", "other/x": "x"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("other", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	paths := []string{"h/b/3", "h/a/1", "top.txt", "h/a/missing", "h/a", "h/a/2", "nofolder/x", "link/x", "../out", "h/b/3"}
	ctx := context.Background()
	seen := make([]bool, len(paths))
	d.StatBatch(ctx, paths, func(i int, fi FileInfo, err error) {
		if seen[i] {
			t.Errorf("%s told twice", paths[i])
		}
		seen[i] = true
		want, werr := d.Stat(ctx, paths[i])
		if (err == nil) != (werr == nil) || fi != want {
			t.Errorf("%s: StatBatch %+v, %v; Stat %+v, %v", paths[i], fi, err, want, werr)
		}
		if werr != nil && err != nil && errors.Is(werr, fs.ErrNotExist) != errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: StatBatch %v, Stat %v: not the same kind", paths[i], err, werr)
		}
	})
	for i, ok := range seen {
		if !ok {
			t.Errorf("%s not told", paths[i])
		}
	}
}

// Walk holds a batch of a folder's entries, not the whole folder: an audit
// walks a copy whose one folder holds a million files.
func TestDirWalkLargeFolder(t *testing.T) {
	if raceEnabled {
		t.Skip("a heap budget: the race detector's shadow memory counts in it")
	}
	ctx := context.Background()
	d, dir := openDir(t)
	const n = 20000
	folder := filepath.Join(dir, "h", "many")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		f, err := os.Create(filepath.Join(folder, fmt.Sprintf("file-with-a-long-name-%06d.html", i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	var during uint64
	seen := 0
	err := d.Walk(ctx, func(fi FileInfo) error {
		if seen++; seen == n/2 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			during = ms.HeapAlloc
		}
		return nil
	})
	if err != nil || seen != n {
		t.Fatalf("walked %d of %d: %v", seen, n, err)
	}
	if grew := int64(during) - int64(before); grew > 1<<20 {
		t.Errorf("the heap grew by %d KiB walking a folder of %d files", grew>>10, n)
	}
}
