package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"rsx/demo"
)

// The live cross-run with the reference implementation, Python resync: it
// publishes a Source with scripts/interop and rsx checks and syncs it, and
// resync-sync syncs rsx's demo Source and rsx compares the copies. It needs
// RSX_RESYNC, a checkout of github.com/resync/resync (2.0.1 was used), and
// Debian's /usr/bin/python3 with python3-lxml, python3-defusedxml,
// python3-dateutil and python3-requests; without RSX_RESYNC it is skipped.

const resyncPython = "/usr/bin/python3"

// resyncCheckout is the resync checkout RSX_RESYNC names; the test is
// skipped when it is not set.
func resyncCheckout(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("RSX_RESYNC")
	if dir == "" {
		t.Skip("RSX_RESYNC is not set: this cross-run needs Python resync (RSX_RESYNC=a checkout of github.com/resync/resync, " +
			"run by /usr/bin/python3 with python3-lxml, python3-defusedxml, python3-dateutil, python3-requests)")
	}
	if testing.Short() {
		t.Skip("-short: the cross-run with Python resync takes seconds")
	}
	cmd := exec.Command(resyncPython, "-c", "import resync, lxml, defusedxml, dateutil, requests")
	cmd.Env = append(os.Environ(), "PYTHONPATH="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("RSX_RESYNC=%s: resync cannot run with %s: %v\n%s", dir, resyncPython, err, out)
	}
	return dir
}

// resyncRun runs one of resync's scripts (resync-build, resync-sync) in dir.
func resyncRun(t *testing.T, checkout, dir, script string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(resyncPython, append([]string{filepath.Join(checkout, script)}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONPATH="+checkout)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestInteropLiveResyncPublishes(t *testing.T) {
	checkout := resyncCheckout(t)
	var root atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.FileServer(http.Dir(root.Load().(string))).ServeHTTP(w, r)
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "source")
	cmd := exec.Command("bash", "../scripts/interop", out, srv.URL, "60", "100000", "20")
	cmd.Env = append(os.Environ(), "RESYNC="+checkout)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/interop: %v\n%s", err, b)
	}
	root.Store(filepath.Join(out, "v1"))

	// Only the deviations known from testdata/interop (interopWant), and the
	// contents copy that differs from its package's manifest.
	code, stdout, stderr := validateRun(t, "", "validate", "--recursive", "--packages", "--json", srv.URL+"/.well-known/resourcesync")
	var v interopValidateJSON
	if err := json.Unmarshal([]byte(stdout), &v); err != nil || code != exitFound {
		t.Fatalf("validate: exit %d, %v\n%s\n%s", code, err, stdout, stderr)
	}
	known := map[string]bool{"error loc-invalid-char": true, "warning describedby-recommended": true, "warning description-entry-describedby": true, "error contents-manifest-mismatch": true}
	seen := map[string]int{}
	for _, d := range v.Documents {
		for k, n := range problemCounts(d.Problems) {
			seen[k] += n
			if !known[k] {
				t.Errorf("%s: %s: not a deviation known from resync", d.URL, k)
			}
		}
	}
	if seen["error loc-invalid-char"] == 0 || seen["error contents-manifest-mismatch"] != 1 || len(v.Documents) != 9 {
		t.Errorf("%d documents, problems %v", len(v.Documents), seen)
	}

	const files = 62 // 60 and the two large ones
	if code, stdout, _ := validateRun(t, "", "dump", "--verify", srv.URL+"/resourcedump.xml"); code != exitFound || !strings.Contains(stdout, "✓ 62 verified") {
		t.Errorf("dump: exit %d\n%s", code, stdout)
	}
	dest := t.TempDir()
	host := strings.ReplaceAll(strings.TrimPrefix(srv.URL, "http://"), ":", "+")
	cap := srv.URL + "/capabilitylist.xml"
	code, stdout, stderr = validateRun(t, "", "sync", "--json", "--dest", dest, cap)
	if s := decodeOneJSON[interopSyncJSON](t, stdout, "sync"); code != exitOK || s.Created != files {
		t.Fatalf("baseline: exit %d %+v\n%s", code, s, stderr)
	}
	sameFiles(t, filepath.Join(dest, host, "files"), filepath.Join(out, "v1", "files"))

	root.Store(filepath.Join(out, "v2"))
	code, stdout, stderr = validateRun(t, "", "sync", "--json", "--delete", "--dest", dest, cap)
	if s := decodeOneJSON[interopSyncJSON](t, stdout, "sync"); code != exitOK || s.Mode != "incremental" || s.Created+s.Updated+s.Deleted == 0 {
		t.Fatalf("incremental: exit %d %+v\n%s", code, s, stderr)
	}
	sameFiles(t, filepath.Join(dest, host, "files"), filepath.Join(out, "v2", "files"))
	if code, stdout, _ := validateRun(t, "", "audit", "--json", "--dest", dest, cap); code != exitOK || !decodeOneJSON[interopAuditJSON](t, stdout, "audit").InSync {
		t.Errorf("audit --dest: exit %d\n%s", code, stdout)
	}
	// The server's Last-Modified is the files' modification time, which
	// resync declared as lastmod: nothing differs, not even a warning.
	if code, stdout, _ := validateRun(t, "", "audit", "--sample", "all", cap); code != exitOK || !strings.Contains(stdout, "resources checked ok") {
		t.Errorf("spot audit: exit %d\n%s", code, stdout)
	}
}

// resync-sync makes the same copy of rsx's demo Source as rsx sync, for a
// baseline (through a Resource List Index) and for the changes after it.
func TestInteropLiveResyncSyncsTheDemo(t *testing.T) {
	checkout := resyncCheckout(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 300, ListSize: 50, PackageSize: 50})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	work := t.TempDir() // resync-sync keeps its state in the working folder
	theirs, ours := filepath.Join(work, "resync"), filepath.Join(work, "rsx")
	prefix := srv.URL + "/dataset1/"
	cap := prefix + "capabilitylist.xml"
	host := strings.ReplaceAll(strings.TrimPrefix(srv.URL, "http://"), ":", "+")

	if out, err := resyncRun(t, checkout, work, "resync-sync", "--baseline", "--capabilitylist", cap, prefix, theirs); err != nil || !strings.Contains(out, "SYNCED") {
		t.Fatalf("resync-sync --baseline: %v\n%s", err, out)
	}
	if code, out, errOut := validateRun(t, "", "sync", "--dest", ours, cap); code != exitOK {
		t.Fatalf("rsx sync: exit %d\n%s\n%s", code, out, errOut)
	}
	sameFiles(t, theirs, filepath.Join(ours, host, "dataset1"))

	resp, err := http.Post(srv.URL+"/demo/advance?steps=3", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// resync 2.0.1 cannot read a Change List Index (it takes each <sitemap>
	// for a change and wants its change attribute), so it is given the
	// index's lists one by one; it skips the changes before its last sync.
	if out, err := resyncRun(t, checkout, work, "resync-sync", "--incremental", "--capabilitylist", cap, prefix, theirs); err == nil && !strings.Contains(out, "ChangeTypeError") {
		t.Logf("resync-sync reads the Change List Index now:\n%s", out)
	}
	index := string(httpGetBody(t, prefix+"changelist.xml"))
	lists := regexp.MustCompile(`<loc>([^<]+)</loc>`).FindAllStringSubmatch(index, -1)
	if len(lists) == 0 {
		t.Fatalf("no lists in the Change List Index:\n%s", index)
	}
	for _, l := range lists {
		if out, err := resyncRun(t, checkout, work, "resync-sync", "--incremental", "--delete", "--changelist-uri", l[1], "--capabilitylist", cap, prefix, theirs); err != nil || strings.Contains(out, "Error") {
			t.Fatalf("resync-sync --incremental --changelist-uri %s: %v\n%s", l[1], err, out)
		}
	}
	code, out, errOut := validateRun(t, "", "sync", "--json", "--delete", "--dest", ours, cap)
	if s := decodeOneJSON[interopSyncJSON](t, out, "sync"); code != exitOK || s.Mode != "incremental" || s.Created+s.Updated+s.Deleted == 0 {
		t.Fatalf("rsx sync incremental: exit %d %+v\n%s", code, s, errOut)
	}
	sameFiles(t, theirs, filepath.Join(ours, host, "dataset1"))
}

func httpGetBody(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return b
}
