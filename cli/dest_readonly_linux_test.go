package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadOnlyDest: a copy on a read-only mount can be dry-run and audited;
// nothing in it changes, and the audit says what it could not record. Needs
// a read-only bind mount (root on Linux); skipped elsewhere.
func TestReadOnlyDest(t *testing.T) {
	source := startDemo(t, false) + "/dataset1/capabilitylist.xml"
	copyDir, ro := t.TempDir(), t.TempDir()
	if code, _, errs := runCmd(t, "sync", "--dest", copyDir, source); code != 0 {
		t.Fatalf("sync: %d %s", code, errs)
	}
	if err := syscall.Mount(copyDir, ro, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("no bind mount here: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(ro, syscall.MNT_DETACH) })
	if err := syscall.Mount("", ro, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("no read-only remount here: %v", err)
	}
	if err := os.WriteFile(filepath.Join(ro, "probe"), nil, 0o644); !errors.Is(err, syscall.EROFS) {
		t.Fatalf("the mount is writable: %v", err)
	}
	before := treeOf(t, copyDir)

	code, out, errs := runCmd(t, "sync", "--dry-run", "--dest", ro, source)
	if code != 0 || !strings.Contains(out, "dry run") {
		t.Errorf("dry run: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = runCmd(t, "audit", "--dest", ro, source)
	if code != 0 || !strings.Contains(out, "in sync") || !strings.Contains(out, "not marked verified") || !strings.Contains(errs, "audited read-only") {
		t.Errorf("audit: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = runCmd(t, "audit", "--json", "--dest", ro, source)
	v := decodeOneJSON[map[string]any](t, out, "audit")
	if code != 0 || v["in_sync"] != true {
		t.Errorf("audit --json: exit %d\n%s\n%s", code, out, errs)
	}
	if after := treeOf(t, copyDir); after != before {
		t.Errorf("the read-only copy changed:\n%s\nafter:\n%s", before, after)
	}
}
