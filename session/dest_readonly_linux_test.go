package session

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"rsx/demo"
)

// The explorer's :audit of a copy on a read-only mount compares it, writes
// nothing, and says what it did not record.
func TestAuditCopyOfAReadOnlyDest(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 40, ListSize: 1000})
	rl := srv.URL + "/dataset1/resourcelist.xml"
	dir, ro := t.TempDir(), t.TempDir()
	ctx := context.Background()
	j := s.NewSync(SyncRequest{Dest: dir, Target: rl})
	if _, err := j.Plan(ctx, false); err != nil {
		t.Fatal(err)
	}
	if res, err := j.Run(ctx); err != nil || !res.OK() {
		t.Fatalf("sync: %v", err)
	}
	j.Close()
	if err := syscall.Mount(dir, ro, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("no bind mount here: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(ro, syscall.MNT_DETACH) })
	if err := syscall.Mount("", ro, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("no read-only remount here: %v", err)
	}
	tree := func() string {
		var b strings.Builder
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if fi, err := d.Info(); err == nil {
				fmt.Fprintf(&b, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
			}
			return nil
		})
		return b.String()
	}
	before := tree()
	rep, err := s.AuditCopy(ctx, AuditRequest{Dest: ro, Target: rl})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.InSync() || rep.Same == 0 || !strings.Contains(strings.Join(rep.Warnings, "\n"), "nothing recorded in the state") {
		t.Errorf("in sync %v, same %d, warnings %q", rep.InSync(), rep.Same, rep.Warnings)
	}
	if tree() != before {
		t.Error("the read-only copy changed")
	}
}
