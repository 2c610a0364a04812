package cli

import (
	"archive/zip"
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"rsx/dump"
	"rsx/model"
)

// dumpJSON is the CLI contract's shape of dump --json (plus extras).
type dumpJSON struct {
	OK       *bool `json:"ok"`
	Packages []struct {
		URL        *string `json:"url"`
		Verified   *int    `json:"verified"`
		Mismatched []struct {
			Path     *string `json:"path"`
			Loc      *string `json:"loc"`
			Expected *string `json:"expected"`
			Actual   *string `json:"actual"`
			What     string  `json:"what"`
		} `json:"mismatched"`
		Missing []struct {
			Path *string `json:"path"`
		} `json:"missing"`
		Unlisted []struct {
			Path *string `json:"path"`
		} `json:"unlisted"`
		Refused []struct {
			Path   *string `json:"path"`
			Reason *string `json:"reason"`
		} `json:"refused"`
		ContentsMismatch    bool     `json:"contents_mismatch"`
		ContentsDifferences []string `json:"contents_differences"`
		Capability          string   `json:"capability"`
		Deleted             int      `json:"deleted"`
		Extracted           int      `json:"extracted"`
		ManifestProblems    []struct {
			Severity string `json:"severity"`
			Rule     string `json:"rule"`
		} `json:"manifest_problems"`
		Error *string `json:"error"`
	} `json:"packages"`
	Error *string `json:"error"`
}

func decodeDumpJSON(t *testing.T, stdout string) dumpJSON {
	t.Helper()
	v := decodeOneJSON[dumpJSON](t, stdout, "dump")
	if v.OK == nil || v.Packages == nil {
		t.Fatalf("required top-level fields missing:\n%s", stdout)
	}
	for _, p := range v.Packages {
		if p.URL == nil || p.Verified == nil || p.Mismatched == nil || p.Missing == nil || p.Unlisted == nil || p.Refused == nil {
			t.Fatalf("required package fields missing:\n%s", stdout)
		}
		for _, m := range p.Mismatched {
			if m.Path == nil || m.Loc == nil || m.Expected == nil || m.Actual == nil {
				t.Fatalf("mismatch fields missing:\n%s", stdout)
			}
		}
		for _, r := range p.Refused {
			if r.Path == nil || r.Reason == nil || *r.Reason == "" {
				t.Fatalf("refusal fields missing:\n%s", stdout)
			}
		}
	}
	return v
}

// demoDumps starts a demo Source and finds its Resource Dump and Change Dump
// through the Capability List of dataset 1.
func demoDumps(t *testing.T, broken bool) (resourceDump, changeDump string) {
	t.Helper()
	base := startDemo(t, broken)
	get := func(u string) *model.Document {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		d, err := model.Parse(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	sd := get(base + "/.well-known/resourcesync")
	for _, e := range sd.Entries {
		if !strings.Contains(e.Loc, "dataset1") {
			continue
		}
		for _, c := range get(e.Loc).Entries {
			switch c.MD.Capability {
			case model.CapResourceDump:
				resourceDump = c.Loc
			case model.CapChangeDump:
				changeDump = c.Loc
			}
		}
	}
	if resourceDump == "" || changeDump == "" {
		t.Fatalf("dumps not found: %q %q", resourceDump, changeDump)
	}
	return resourceDump, changeDump
}

func TestDumpCommandDemo(t *testing.T) {
	rd, cd := demoDumps(t, false)
	for _, u := range []string{rd, cd} {
		code, out, errOut := validateRun(t, "", "dump", "--verify", "--json", u)
		if code != exitOK {
			t.Fatalf("%s: exit %d\n%s\n%s", u, code, out, errOut)
		}
		v := decodeDumpJSON(t, out)
		if !*v.OK || len(v.Packages) == 0 {
			t.Fatalf("%s: %s", u, out)
		}
		for _, p := range v.Packages {
			if *p.Verified == 0 && p.Deleted == 0 {
				t.Errorf("%s: nothing verified", *p.URL)
			}
			if len(p.Unlisted) != 0 || len(p.Refused) != 0 || p.ContentsMismatch || p.ManifestProblems == nil || len(p.ManifestProblems) != 0 {
				t.Errorf("%s: %+v", *p.URL, p)
			}
		}
	}
	// Without --verify the summary says the bitstreams were not read,
	// rather than "0 verified".
	code, out, _ := validateRun(t, "", "dump", rd)
	if code != exitOK || !strings.Contains(out, "bitstreams not read (--verify checks them)") || strings.Contains(out, "0 verified") {
		t.Errorf("dump without --verify: exit %d\n%s", code, out)
	}
	// Extraction of the Change Dump, then of the Resource Dump, into one directory.
	dest := t.TempDir()
	for _, u := range []string{rd, cd} {
		code, out, errOut := validateRun(t, "", "dump", "--extract", dest, u)
		if code != exitOK || !strings.Contains(out, "→ extracted") || !strings.Contains(out, "OK:") {
			t.Fatalf("%s: exit %d\n%s\n%s", u, code, out, errOut)
		}
	}
	if ents, err := os.ReadDir(filepath.Join(dest, "resources")); err != nil || len(ents) == 0 {
		t.Fatalf("resources: %d %v", len(ents), err)
	}
}

func TestDumpCommandDemoBroken(t *testing.T) {
	rd, _ := demoDumps(t, true)
	dest := t.TempDir()
	code, out, errOut := validateRun(t, "", "dump", "--extract", dest, "--json", rd)
	if code != exitFound {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	v := decodeDumpJSON(t, out)
	if *v.OK || len(v.Packages) < 2 {
		t.Fatalf("%s", out)
	}
	p1, p2 := v.Packages[0], v.Packages[1]
	var passwd, evil bool
	for _, r := range p1.Refused {
		passwd = passwd || *r.Path == "/../../etc/passwd"
		evil = evil || *r.Path == "../../evil.txt"
	}
	if !passwd || !evil {
		t.Errorf("package 1 refusals: %+v", p1.Refused)
	}
	// The member whose manifest path was replaced by /../../etc/passwd is unlisted.
	if len(p1.Unlisted) != 2 || !strings.HasPrefix(*p1.Unlisted[0].Path, "resources/") || *p1.Verified != 249 {
		t.Errorf("package 1: verified %d, unlisted %+v", *p1.Verified, p1.Unlisted)
	}
	if !p2.ContentsMismatch || len(p2.ContentsDifferences) == 0 || len(p2.Refused) != 0 {
		t.Errorf("package 2: %+v", p2)
	}
	// Nothing was written outside DEST.
	parent := filepath.Dir(dest)
	ents, _ := os.ReadDir(parent)
	if len(ents) != 1 {
		t.Errorf("%s holds %d entries", parent, len(ents))
	}
	if _, err := os.Stat(filepath.Join(dest, "..", "..", "evil.txt")); err == nil {
		t.Error("evil.txt written")
	}
}

func TestDumpCommandContentsMismatch(t *testing.T) {
	data := []byte("hello\n")
	man := func(length int) string {
		return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcedump-manifest" at="2024-01-01T00:00:00Z"/>
<url><loc>http://127.0.0.1/r</loc><rs:md length="` + strconv.Itoa(length) + `" path="/r"/></url>
</urlset>`
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("manifest.xml")
	w.Write([]byte(man(len(data))))
	w, _ = zw.Create("r")
	w.Write(data)
	zw.Close()
	pkg := buf.Bytes()
	mux := http.NewServeMux()
	var base string
	mux.HandleFunc("/dump.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcedump" at="2024-01-01T00:00:00Z"/>
<url><loc>` + base + `/p.zip</loc><rs:md length="` + strconv.Itoa(len(pkg)) + `" type="application/zip"/><rs:ln rel="contents" href="/copy.xml"/></url>
<url><loc>` + base + `/p.zip</loc><rs:md length="1"/><rs:ln rel="contents" href="/copy-ok.xml"/></url>
</urlset>`))
	})
	mux.HandleFunc("/p.zip", func(w http.ResponseWriter, r *http.Request) { w.Write(pkg) })
	mux.HandleFunc("/copy.xml", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(man(7))) })
	mux.HandleFunc("/copy-ok.xml", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(man(len(data)))) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	base = srv.URL
	code, out, _ := validateRun(t, "", "dump", "--verify", "--json", srv.URL+"/dump.xml")
	if code != exitFound {
		t.Fatalf("exit %d\n%s", code, out)
	}
	v := decodeDumpJSON(t, out)
	if len(v.Packages) != 2 || !v.Packages[0].ContentsMismatch || v.Packages[1].ContentsMismatch || *v.Packages[0].Verified != 1 {
		t.Fatalf("%s", out)
	}
	// The second entry declares a wrong package length.
	if !strings.Contains(out, `"package_mismatched": [
        {`) {
		t.Errorf("package length mismatch not reported:\n%s", out)
	}
	// Human output.
	code, out, _ = validateRun(t, "", "dump", srv.URL+"/dump.xml")
	if code != exitFound || !strings.Contains(out, "contents copy") || !strings.Contains(out, "FAILED") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

func TestDumpCommandFailures(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/list.xml":
			w.Write([]byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:md capability="resourcelist"/></urlset>`))
		case "/notzip.zip":
			w.Write([]byte("not a zip"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	notZip := filepath.Join(dir, "x.zip")
	os.WriteFile(notZip, []byte("PK\x03\x04garbage"), 0o644)
	for _, target := range []string{srv.URL + "/missing.xml", srv.URL + "/list.xml", srv.URL + "/notzip.zip", filepath.Join(dir, "absent.zip"), notZip} {
		code, out, errOut := validateRun(t, "", "dump", "--json", target)
		if code != exitFailure {
			t.Errorf("%s: exit %d\n%s\n%s", target, code, out, errOut)
			continue
		}
		v := decodeDumpJSON(t, out)
		if *v.OK {
			t.Errorf("%s: ok\n%s", target, out)
		}
	}
	// In text, a target that is no dump prints no summary of packages that
	// were never read: standard error says why.
	code, out, errOut := validateRun(t, "", "dump", srv.URL+"/list.xml")
	if code != exitFailure || out != "" || !strings.Contains(errOut, "not a Resource Dump or Change Dump") {
		t.Errorf("dump of a Resource List: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestDumpCommandRealWorld(t *testing.T) {
	// A package a real implementation wrote (resync-client, the Ruby client).
	const pkg = "../testdata/conformance/real-world/resync-client-ruby/resourcedump/bitstream-package.zip"
	code, out, errOut := validateRun(t, "", "dump", "--verify", pkg)
	if code != exitOK || !strings.Contains(out, "✓ 2 verified") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = validateRun(t, "", "dump", "--verify", "--json", pkg)
	if v := decodeDumpJSON(t, out); code != exitOK || *v.Packages[0].Verified != 2 {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

func TestDumpCommandLocalMismatch(t *testing.T) {
	data := []byte("hello\n")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("manifest.xml")
	w.Write([]byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourdump-manifest"/></urlset>`))
	zw.Close()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad-capability.zip")
	os.WriteFile(bad, buf.Bytes(), 0o644)
	if code, _, errOut := validateRun(t, "", "dump", bad); code != exitFailure || !strings.Contains(errOut, "capability") {
		t.Errorf("exit %d: %s", code, errOut)
	}

	buf.Reset()
	zw = zip.NewWriter(&buf)
	w, _ = zw.Create("manifest.xml")
	w.Write([]byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcedump-manifest" at="2024-01-01T00:00:00Z"/>
<url><loc>http://127.0.0.1/r</loc><rs:md hash="md5:00000000000000000000000000000000" path="/r"/></url>
<url><loc>http://127.0.0.1/gone</loc><rs:md path="/gone"/></url>
</urlset>`))
	w, _ = zw.Create("r")
	w.Write(data)
	w, _ = zw.Create("extra")
	w.Write(data)
	zw.Close()
	pkg := filepath.Join(dir, "p.zip")
	os.WriteFile(pkg, buf.Bytes(), 0o644)
	dest := filepath.Join(dir, "dest")
	code, out, _ := validateRun(t, "", "dump", "--extract", dest, pkg)
	for _, want := range []string{
		"✗ mismatched /r: md5 expected 00000000000000000000000000000000 actual b1946ac92492d2347c6235b4d2611184",
		"✗ missing /gone", "! unlisted extra", "→ extracted 0 files", "FAILED: 1 package, 0 verified, 2 problems",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code != exitFound {
		t.Errorf("exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(dest, "r")); err == nil {
		t.Error("mismatched member written")
	}
}

func TestDumpCommandMaxPackageBytes(t *testing.T) {
	_, cd := demoDumps(t, false)
	code, out, _ := validateRun(t, "", "dump", "--json", "--max-package-bytes", "1KiB", cd)
	if code != exitFailure {
		t.Fatalf("exit %d\n%s", code, out)
	}
	v := decodeDumpJSON(t, out)
	if len(v.Packages) == 0 || v.Packages[0].Error == nil || !strings.Contains(*v.Packages[0].Error, "limit") {
		t.Fatalf("%s", out)
	}
	if code, _, _ := validateRun(t, "", "dump", "--max-package-bytes", "0", cd); code != exitFailure {
		t.Fatalf("exit %d for --max-package-bytes 0", code)
	}
}

// A contents copy that differs in many entries is one problem in the summary,
// not one per line of its description (which stops at 20 lines and a count):
// resync writes its copy with file-system paths, so every entry differs.
func TestDumpSummaryCountsContentsCopyOnce(t *testing.T) {
	diff := make([]string, 21)
	for i := range diff {
		diff[i] = "a difference"
	}
	for _, tt := range []struct {
		name string
		pkg  *dump.PackageReport
		want string
	}{
		{"many differences", &dump.PackageReport{URL: "p.zip", ContentsDiff: diff}, "FAILED: 1 package, bitstreams not read (--verify checks them), 1 problem"},
		{"unreadable copy", &dump.PackageReport{URL: "p.zip", ContentsErr: errors.New("404")}, "FAILED: 1 package, bitstreams not read (--verify checks them), 1 problem"},
		{"agrees", &dump.PackageReport{URL: "p.zip", Contents: "copy.xml"}, "OK: 1 package, bitstreams not read (--verify checks them), 0 problems"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			(&dumpText{w: &b}).summary(&dump.Report{Packages: []*dump.PackageReport{tt.pkg}}, nil)
			if got := strings.TrimSpace(b.String()); got != tt.want {
				t.Errorf("summary %q, want %q", got, tt.want)
			}
		})
	}
}
