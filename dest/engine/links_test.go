package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rsx/dest/store"
)

// A folder of the copy that a link leads into DEST/.rsx (or out of DEST)
// is refused for the resources under it, each a failure that names its
// path and the link; the state, the lock and the files outside are never
// written, and the other resources are copied.
func TestSyncRefusesPathsThroughLinks(t *testing.T) {
	f := newFakeSource(t)
	f.setDoc("/cap.xml", capList(map[string]string{"resourcelist": "/rl.xml"}))
	var entries []string
	for _, p := range []string{"/r/ok", "/r/a/state.db", "/r/a/lock", "/r/out/x", "/r/deep/b/state.db"} {
		body := []byte("resource " + p + "\n")
		f.setRes(p, body)
		entries = append(entries, rlEntry(p, body, "2030-01-01T09:00:00Z"))
	}
	f.setDoc("/rl.xml", resourceList("2030-01-01T10:00:00Z", entries...))
	dir := t.TempDir()
	outside := t.TempDir()
	host := filepath.Join(dir, f.hostDir())
	os.MkdirAll(filepath.Join(host, "r", "deep"), 0o755)
	os.Symlink("../../.rsx", filepath.Join(host, "r", "a"))
	os.Symlink(outside, filepath.Join(host, "r", "out"))
	os.Symlink("../../../.rsx", filepath.Join(host, "r", "deep", "b"))

	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if res.Created != 1 || res.FailedCount != 4 {
		t.Fatalf("created %d, failed:%s", res.Created, failures(res))
	}
	links := map[string]string{
		"/r/a/state.db":      "r/a",
		"/r/a/lock":          "r/a",
		"/r/out/x":           "r/out",
		"/r/deep/b/state.db": "r/deep/b",
	}
	for _, fl := range res.Failed {
		p := strings.TrimPrefix(fl.URL, f.srv.URL)
		link := f.hostDir() + "/" + links[p]
		var le *store.LinkError
		if !errors.As(fl.Err, &le) || le.Link != link || fl.Path != f.hostDir()+p || le.Path != fl.Path {
			t.Errorf("%s: [%s] %v (path %s), want a refusal naming the link %s", p, fl.Kind, fl.Err, fl.Path, link)
		}
		if !strings.Contains(fl.Error(), fl.Path) || !strings.Contains(fl.Error(), link) {
			t.Errorf("%s: %q does not name the path and the link", p, fl.Error())
		}
	}
	// The state is whole, and a second run works from it.
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside DEST: %v", entries)
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".rsx", "lock")); err != nil || strings.Contains(string(b), "resource") {
		t.Errorf("the lock: %q %v", b, err)
	}
	res = syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if res.FailedCount != 4 || res.Created != 0 {
		t.Errorf("second run: created %d, failed:%s", res.Created, failures(res))
	}
}
