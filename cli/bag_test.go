package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rsx/demo"
)

// rsx bag makes a valid bag of a copy rsx sync made; rsx bag --verify says
// so, and finds a bag spoilt afterwards (exit 1); a copy damaged since the
// sync is not bagged (exit 1, nothing at OUT), and the JSON says which.
func TestBagCommand(t *testing.T) {
	url := startDemo(t, false)
	dir := t.TempDir()
	dest := filepath.Join(dir, "copy")
	if code, _, stderr := runCmd(t, "sync", "--dest", dest, url+"/dataset1/capabilitylist.xml"); code != 0 {
		t.Fatalf("sync: %d %s", code, stderr)
	}
	out := filepath.Join(dir, "bag")
	code, stdout, stderr := runCmd(t, "bag", dest, out, "--json")
	if code != 0 {
		t.Fatalf("bag: %d %s %s", code, stdout, stderr)
	}
	j := decodeOneJSON[bagJSON](t, stdout, "bag")
	if !j.Written || j.Files == 0 || j.Linked != 0 || j.Copied+j.Reflinked != j.Files || len(j.Sources) != 1 || j.Manifests[0] != "sha256" {
		t.Errorf("bag JSON: %+v", j)
	}
	info, _ := os.ReadFile(filepath.Join(out, "bag-info.txt"))
	for _, w := range []string{"ResourceSync-Capability-List: " + url + "/dataset1/capabilitylist.xml", "ResourceSync-Source-Description: " + url + "/.well-known/resourcesync", "Payload-Oxum: "} {
		if !strings.Contains(string(info), w) {
			t.Errorf("bag-info.txt lacks %q:\n%s", w, info)
		}
	}
	if code, stdout, _ := runCmd(t, "bag", "--verify", out); code != 0 || !strings.Contains(stdout, "is a valid bag") {
		t.Errorf("verify: %d %s", code, stdout)
	}

	// A bag spoilt after it was written.
	var victim string
	filepath.WalkDir(filepath.Join(out, "data"), func(p string, d os.DirEntry, err error) error {
		if victim == "" && d.Type().IsRegular() {
			victim = p
		}
		return nil
	})
	rel, _ := filepath.Rel(filepath.Join(out, "data"), victim)
	os.WriteFile(victim, []byte("tampered"), 0o644)
	code, stdout, _ = runCmd(t, "bag", "--verify", "--json", out)
	v := decodeOneJSON[bagCheckJSON](t, stdout, "bag --verify")
	if code != 1 || v.Valid || len(v.Problems) == 0 {
		t.Errorf("a tampered bag: exit %d, %+v", code, v)
	}

	// A copy damaged since the sync: no bag.
	if err := os.WriteFile(filepath.Join(dest, rel), []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(dir, "bag2")
	code, stdout, _ = runCmd(t, "bag", "--offline", dest, out2)
	if code != 1 || !strings.Contains(stdout, "no bag written") || !strings.Contains(stdout, filepath.ToSlash(rel)) {
		t.Errorf("a damaged copy: exit %d\n%s", code, stdout)
	}
	if _, err := os.Stat(out2); err == nil {
		t.Error("a bag was written of a damaged copy")
	}

	// Usage.
	if code, _, stderr := runCmd(t, "bag", dest); code != 2 || !strings.Contains(stderr, "want DEST and OUT") {
		t.Errorf("one argument: %d %s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "bag", filepath.Join(dir, "nothing"), filepath.Join(dir, "x")); code != 2 || !strings.Contains(stderr, "bag:") {
		t.Errorf("no copy: %d %s", code, stderr)
	}
}

// A bag inside the copy, or the copy inside the bag's folder, is refused
// (exit 2) and nothing is written.
func TestBagRefusesOverlap(t *testing.T) {
	url := startDemo(t, false)
	dir := t.TempDir()
	dest := filepath.Join(dir, "copy")
	if code, _, stderr := runCmd(t, "sync", "--dest", dest, url+"/dataset1/capabilitylist.xml"); code != 0 {
		t.Fatalf("sync: %d %s", code, stderr)
	}
	for _, tc := range []struct{ out, want string }{
		{filepath.Join(dest, "bag"), "inside the copy"},
		{filepath.Join(dest, ".rsx", "tmp", "bag"), "inside the copy"},
		{dir, "inside the bag's folder"},
	} {
		code, _, stderr := runCmd(t, "bag", "--offline", dest, tc.out)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("bag %s: exit %d %s", tc.out, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dest, "bag")); err == nil {
		t.Error("a bag was written inside the copy")
	}
}

// The new user's check of issue 35: a sync of the broken demo fails (exit
// 1) and rsx bag refuses the copy, saying why and what to run, writing
// nothing; --incomplete makes a bag marked so; once the copy is finished
// (the good demo on the same address) the bag names the run it reflects.
func TestBagRefusesAnUnfinishedCopy(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	broken, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 600, Broken: true})
	if err != nil {
		t.Fatal(err)
	}
	url := broken.URL + "/dataset1/capabilitylist.xml"
	dir := t.TempDir()
	dest := filepath.Join(dir, "my copy")
	if code, _, stderr := runCmd(t, "sync", "--dest", dest, url); code != 1 {
		t.Fatalf("sync of the broken demo: exit %d %s", code, stderr)
	}
	out := filepath.Join(dir, "bag")
	code, stdout, stderr := runCmd(t, "bag", dest, out)
	if code != 1 {
		t.Errorf("bag of an unfinished copy: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"no bag written", "the baseline is not finished", "run 1 ended", "exit status 1",
		"rsx sync --dest '" + dest + "' " + url, "--incomplete"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a bag was written of an unfinished copy")
	}
	code, stdout, _ = runCmd(t, "bag", "--json", dest, out)
	j := decodeOneJSON[bagJSON](t, stdout, "bag")
	if code != 1 || j.Written || j.Complete || len(j.Copies) != 1 || j.Copies[0].Complete || len(j.Copies[0].Reasons) == 0 ||
		j.Copies[0].Run == nil || *j.Copies[0].Run != 1 || j.Copies[0].Failed == 0 || !strings.Contains(j.Copies[0].Sync, url) {
		t.Errorf("bag --json: exit %d %+v", code, j)
	}

	// Asked for: a bag marked incomplete, without a copy point.
	code, stdout, stderr = runCmd(t, "bag", "--offline", "--incomplete", dest, out)
	if code != 0 || !strings.Contains(stdout, "not complete") {
		t.Errorf("bag --incomplete: exit %d\n%s%s", code, stdout, stderr)
	}
	info, _ := os.ReadFile(filepath.Join(out, "bag-info.txt"))
	for _, want := range []string{"ResourceSync-Copy-Complete: no\n", "ResourceSync-Run: 1\n", "ResourceSync-Baseline-Finished: no\n", "ResourceSync-Incomplete-Reason: the baseline is not finished\n"} {
		if !strings.Contains(string(info), want) {
			t.Errorf("bag-info.txt lacks %q:\n%s", want, info)
		}
	}
	if strings.Contains(string(info), "Copy-Point") {
		t.Errorf("an incomplete bag states a copy point:\n%s", info)
	}

	// The copy finished: the good demo at the same address.
	addr := strings.TrimPrefix(broken.URL, "http://")
	broken.Close()
	good, err := demo.Start(ctx, addr, demo.Options{Resources: 600})
	if err != nil {
		t.Skipf("the demo's address %s was taken meanwhile: %v", addr, err)
	}
	defer good.Close()
	if code, stdout, stderr := runCmd(t, "sync", "--dest", dest, url); code != 0 {
		t.Fatalf("sync of the good demo: exit %d\n%s%s", code, stdout, stderr)
	}
	out2 := filepath.Join(dir, "bag2")
	code, stdout, stderr = runCmd(t, "bag", "--offline", dest, out2)
	if code != 0 || !strings.Contains(stdout, "run 2, ended") {
		t.Errorf("bag of the finished copy: exit %d\n%s%s", code, stdout, stderr)
	}
	info, _ = os.ReadFile(filepath.Join(out2, "bag-info.txt"))
	for _, want := range []string{"ResourceSync-Copy-Complete: yes\n", "ResourceSync-Run: 2\n", "ResourceSync-Copy-Point: "} {
		if !strings.Contains(string(info), want) {
			t.Errorf("bag-info.txt lacks %q:\n%s", want, info)
		}
	}
}

// hostileSource serves a Capability List and a Resource List of resources
// whose names the path rule writes with %XX: a query string, a "%", a
// device name, a tab, a space.
func hostileSource(t *testing.T) string {
	t.Helper()
	locs := []string{"/p?x=1&y=/z", "/100%25.txt", "/CON", "/tab%09x", "/with%20space.txt", "/caret%5E^"}
	mux := http.NewServeMux()
	var srv *httptest.Server
	mux.HandleFunc("/capabilitylist.xml", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="capabilitylist"/>
<url><loc>%s/resourcelist.xml</loc><rs:md capability="resourcelist"/></url>
</urlset>`, srv.URL)
	})
	mux.HandleFunc("/resourcelist.xml", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="` + srv.URL + `/capabilitylist.xml"/>
<rs:md capability="resourcelist" at="2026-01-05T09:00:00Z" completed="2026-01-05T09:00:00Z"/>
`)
		for _, l := range locs {
			b.WriteString("<url><loc>" + srv.URL + strings.ReplaceAll(l, "&", "&amp;") + "</loc></url>\n")
		}
		b.WriteString("</urlset>\n")
		io.WriteString(w, b.String())
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "the resource %s\n", r.URL.RequestURI())
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/capabilitylist.xml"
}

// A copy holding such names bags: no "%" in the bag's names or manifests,
// resourcesync-uris.txt maps every file back to its URI and path, and the
// bag is valid.
func TestBagOfHostileNames(t *testing.T) {
	url := hostileSource(t)
	dir := t.TempDir()
	dest := filepath.Join(dir, "copy")
	if code, stdout, stderr := runCmd(t, "sync", "--dest", dest, url); code != 0 {
		t.Fatalf("sync: exit %d\n%s%s", code, stdout, stderr)
	}
	out := filepath.Join(dir, "bag")
	if code, stdout, stderr := runCmd(t, "bag", "--offline", dest, out); code != 0 {
		t.Fatalf("bag: exit %d\n%s%s", code, stdout, stderr)
	}
	var names []string
	filepath.WalkDir(filepath.Join(out, "data"), func(p string, d os.DirEntry, err error) error {
		if d.Type().IsRegular() {
			names = append(names, p)
		}
		return nil
	})
	man, _ := os.ReadFile(filepath.Join(out, "manifest-sha256.txt"))
	if len(names) != 6 || strings.Contains(string(man), "%") || strings.Contains(strings.Join(names, "\n"), "%") {
		t.Errorf("names %q\n%s", names, man)
	}
	uris, _ := os.ReadFile(filepath.Join(out, "resourcesync-uris.txt"))
	for _, want := range []string{"\t" + strings.TrimSuffix(url, "capabilitylist.xml") + "p?x=1&y=/z\t", "/p%3Fx=1&y=%2Fz\n", "/%43ON\n", "/^43ON\t", "/tab%09x\n"} {
		if !strings.Contains(string(uris), want) {
			t.Errorf("resourcesync-uris.txt lacks %q:\n%s", want, uris)
		}
	}
	if code, stdout, _ := runCmd(t, "bag", "--verify", out); code != 0 {
		t.Errorf("verify: exit %d\n%s", code, stdout)
	}
}
