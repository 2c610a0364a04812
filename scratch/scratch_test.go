//go:build unix

package scratch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// deadPid is the pid of a process that has ended.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestOpenClose(t *testing.T) {
	root := t.TempDir()
	d, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Path(), "pkg.zip"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(d.Path()); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("%v %v", st, err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.Path()); !os.IsNotExist(err) {
		t.Fatalf("folder left: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
}

func TestSweep(t *testing.T) {
	root := t.TempDir()
	live, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	mk := func(name string, lock bool) string {
		p := filepath.Join(root, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(p, "package.zip"), []byte("gigabytes"), 0o600)
		if lock {
			os.WriteFile(filepath.Join(p, lockName), nil, 0o600)
		}
		return p
	}
	self := strconv.Itoa(os.Getpid())
	dead := mk(strconv.Itoa(deadPid(t))+"-"+startTime(os.Getpid())+"-aaaa", true) // killed: its lock died with it
	reused := mk(self+"-1-bbbb", true)                                            // our pid, another start: a reused pid
	starting := mk(Self()+"-cccc", false)                                         // ours, lock not taken yet
	other := mk("not-a-process-folder", false)
	removed, err := Sweep(root)
	if err != nil {
		t.Fatal(err)
	}
	gone := map[string]bool{}
	for _, p := range removed {
		gone[p] = true
	}
	for p, want := range map[string]bool{dead: true, reused: true, starting: false, other: false, live.Path(): false} {
		_, err := os.Stat(p)
		if exists := err == nil; exists == want || gone[p] != want {
			t.Errorf("%s: removed %v, want %v", filepath.Base(p), !exists, want)
		}
	}
}

func TestSweepKeepsLockedFolder(t *testing.T) {
	// A folder whose lock is held is kept even when its name says its owner
	// is gone (another pid namespace sharing the folder, say).
	root := t.TempDir()
	p := filepath.Join(root, strconv.Itoa(deadPid(t))+"-5-dddd")
	os.Mkdir(p, 0o700)
	f, err := os.OpenFile(filepath.Join(p, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := lockFile(f); err != nil {
		t.Fatal(err)
	}
	if removed, _ := Sweep(root); len(removed) != 0 {
		t.Fatalf("removed %v", removed)
	}
}

func TestOwnerGone(t *testing.T) {
	for owner, want := range map[string]bool{
		Self():                            false,
		strconv.Itoa(deadPid(t)) + "-0":   true,
		strconv.Itoa(os.Getpid()) + "-0":  false, // start unknown: the pid decides
		strconv.Itoa(os.Getpid()) + "-12": true,  // reused pid
		"garbage":                         false,
		"-1-2":                            false,
	} {
		if got := OwnerGone(owner); got != want {
			t.Errorf("OwnerGone(%q) = %v, want %v", owner, got, want)
		}
	}
}

func TestRootIsPrivate(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
		t.Fatalf("%s: %v %v", dir, st, err)
	}
	// Without a cache directory, a folder of the user's own under TMPDIR; a
	// symbolic link planted there is refused.
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	os.Symlink(t.TempDir(), filepath.Join(tmp, "rsx-"+strconv.Itoa(os.Getuid())))
	if _, err := Root(); err == nil {
		t.Fatal("a symbolic link accepted as the temporary folder")
	}
}
