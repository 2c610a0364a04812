package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A DEST/.rsx/tmp that is a link into the copy would have the start of a
// run empty the copy's folder: sync (and audit) refuse to start, exit 2,
// and touch nothing.
func TestSyncCommandRefusesLinksInItsOwnFolder(t *testing.T) {
	base := startDemo(t, false)
	dest := t.TempDir()
	cap := base + "/dataset1/capabilitylist.xml"
	if code, _, errs := runCmd(t, "sync", "--dest", dest, cap); code != 0 {
		t.Fatalf("baseline: exit %d, %s", code, errs)
	}
	n := countFiles(t, dest)
	entries, _ := os.ReadDir(dest)
	var host string
	for _, e := range entries {
		if e.Name() != ".rsx" {
			host = e.Name()
		}
	}
	tmp := filepath.Join(dest, ".rsx", "tmp")
	os.RemoveAll(tmp)
	if err := os.Symlink("../"+host, tmp); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"sync", "--dest", dest, cap},
		{"sync", "--dest", dest, "--json", cap},
		{"audit", "--dest", dest, cap},
	} {
		code, out, errs := runCmd(t, args...)
		text := out + errs
		if code != 2 || !strings.Contains(text, "tmp is a symbolic link") || strings.Contains(text, "✓") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
		if got := countFiles(t, dest); got != n {
			t.Fatalf("%s: %d files of %d left", args, got, n)
		}
	}
}
