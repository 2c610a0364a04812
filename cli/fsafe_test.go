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

// Two URIs of one path: the smaller wins, the other is refused naming it;
// the sync exits 0, and the audit agrees: in sync, the loser outside the
// copy, not missing.
func TestSyncCommandCollisions(t *testing.T) {
	docs := map[string]string{
		"/cap.xml": rsOpen + `<rs:md capability="capabilitylist"/><url><loc>{{base}}/rl.xml</loc><rs:md capability="resourcelist"/></url>` + rsClose,
		"/rl.xml": rsOpen + `<rs:ln rel="up" href="{{base}}/cap.xml"/><rs:md capability="resourcelist" at="2030-01-01T00:00:00Z"/>` +
			`<url><loc>{{base}}/r/same</loc><lastmod>2029-01-01T00:00:00Z</lastmod><rs:md length="5"/></url><url><loc>{{base}}/r//same</loc><lastmod>2029-01-01T00:00:00Z</lastmod><rs:md length="6"/></url>` + rsClose,
		"/r/same":  "big\n\n",
		"/r//same": "small\n",
	}
	srv := crawlSite(t, docs)
	dest := t.TempDir()
	code, out, errs := runCmd(t, "sync", "--dest", dest, "--json", srv.URL+"/cap.xml")
	o := decodeOneJSON[struct {
		Refused []struct{ URL, Error, Kind string }
		Failed  []any
		Plan    struct{ Collisions int }
	}](t, out, "sync")
	if code != 0 || len(o.Failed) != 0 || o.Plan.Collisions != 1 || len(o.Refused) != 1 || o.Refused[0].Kind != "collision" ||
		o.Refused[0].URL != srv.URL+"/r/same" || !strings.Contains(o.Refused[0].Error, srv.URL+"/r//same gets it") {
		t.Fatalf("sync: exit %d, %+v, %s", code, o, errs)
	}
	host := strings.ReplaceAll(strings.TrimPrefix(srv.URL, "http://"), ":", "+")
	if b, err := os.ReadFile(filepath.Join(dest, host, "r", "same")); err != nil || string(b) != "small\n" {
		t.Errorf("the copy: %q %v", b, err)
	}
	code, out, _ = runCmd(t, "audit", "--dest", dest, "--json", srv.URL+"/cap.xml")
	a := decodeOneJSON[struct {
		InSync         bool `json:"in_sync"`
		Missing        []string
		Collisions     int
		OutOfSelection int `json:"out_of_selection"`
	}](t, out, "audit")
	if code != 0 || !a.InSync || len(a.Missing) != 0 || a.Collisions != 1 || a.OutOfSelection != 1 {
		t.Errorf("audit: exit %d, %+v\n%s", code, a, out)
	}
	code, out, _ = runCmd(t, "sync", "--dest", dest, srv.URL+"/cap.xml")
	if code != 0 || !strings.Contains(out, "1 refused (1 of them lose a path to another resource)") {
		t.Errorf("sync again: exit %d\n%s", code, out)
	}
}
