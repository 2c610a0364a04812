package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"rsx/demo"
)

// crawlSite serves fixed documents; {{base}} in a body is the server URL.
func crawlSite(t *testing.T, docs map[string]string) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(r.URL.Path, ".html") || r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/html")
		} else {
			w.Header().Set("Content-Type", "application/xml")
		}
		fmt.Fprint(w, strings.ReplaceAll(body, "{{base}}", srv.URL))
	}))
	t.Cleanup(srv.Close)
	return srv
}

const (
	rsOpen  = `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">`
	rsClose = `</urlset>`
)

// crawlDocs is a small Source: a Source Description at the well-known URI,
// one Capability List, one Resource List of two resources.
func crawlDocs() map[string]string {
	return map[string]string{
		"/.well-known/resourcesync": rsOpen + `<rs:md capability="description"/><url><loc>{{base}}/cl.xml</loc><rs:md capability="capabilitylist"/></url>` + rsClose,
		"/cl.xml": rsOpen + `<rs:md capability="capabilitylist"/><rs:ln rel="up" href="{{base}}/.well-known/resourcesync"/>` +
			`<url><loc>{{base}}/rl.xml</loc><rs:md capability="resourcelist"/></url>` + rsClose,
		"/rl.xml": rsOpen + `<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/><rs:ln rel="up" href="{{base}}/cl.xml"/>` +
			`<url><loc>{{base}}/r1</loc></url><url><loc>{{base}}/r2</loc></url>` + rsClose,
	}
}

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	args = append([]string{"--no-cache", "--rate", "0", "--retries", "0"}, args...)
	code = run(args, streams{in: strings.NewReader(""), out: &out, err: &errb})
	return code, out.String(), errb.String()
}

func TestTreeCommandJSON(t *testing.T) {
	srv := crawlSite(t, crawlDocs())
	code, out, errs := runCmd(t, "tree", "--json", srv.URL+"/.well-known/resourcesync")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	var root map[string]any
	if err := json.Unmarshal([]byte(out), &root); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
	}
	for _, k := range []string{"url", "capability", "index", "entries", "error", "children"} {
		if _, ok := root[k]; !ok {
			t.Errorf("node without %q", k)
		}
	}
	if root["error"] != nil || root["capability"] != "description" || root["index"] != false || root["entries"] != 1.0 {
		t.Errorf("root = %v", root)
	}
	cl := root["children"].([]any)[0].(map[string]any)
	rl := cl["children"].([]any)[0].(map[string]any)
	if rl["url"] != srv.URL+"/rl.xml" || rl["entries"] != 2.0 || len(rl["children"].([]any)) != 0 || rl["at"] != "2013-01-03T09:00:00Z" {
		t.Errorf("resource list node = %v", rl)
	}
}

func TestTreeCommandText(t *testing.T) {
	docs := crawlDocs()
	docs["/cl.xml"] = strings.Replace(docs["/cl.xml"], rsClose,
		`<url><loc>{{base}}/gone.xml</loc><rs:md capability="changelist"/></url>`+rsClose, 1)
	srv := crawlSite(t, docs)
	code, out, _ := runCmd(t, "tree", srv.URL+"/.well-known/resourcesync")
	if code != 1 {
		t.Errorf("exit %d with a missing child, want 1", code)
	}
	for _, want := range []string{"Source Description", "└── Capability List", "    ├── Resource List  " + srv.URL + "/rl.xml  2 entries  at 2013-01-03T09:00:00Z", "    └── ✗ " + srv.URL + "/gone.xml", "404", "✗ 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestTreeCommandDepthAndExitCodes(t *testing.T) {
	srv := crawlSite(t, crawlDocs())
	code, out, _ := runCmd(t, "tree", "--json", "--depth", "0", srv.URL+"/.well-known/resourcesync")
	var root map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &root) != nil || len(root["children"].([]any)) != 0 || root["unexpanded"] != true {
		t.Errorf("--depth 0: exit %d %s", code, out)
	}
	if code, _, _ := runCmd(t, "tree", srv.URL+"/nothing.xml"); code != 2 {
		t.Errorf("missing root: exit %d, want 2", code)
	}
	if code, _, _ := runCmd(t, "tree", "not-a-url"); code != 2 {
		t.Errorf("bad URL: exit %d, want 2", code)
	}
}

func TestDiscoverAndTreeOnDemo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 3000, ListSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	code, out, errs := runCmd(t, "discover", "--json", srv.URL+"/")
	if code != 0 {
		t.Fatalf("discover: exit %d %s", code, errs)
	}
	var d struct {
		SourceDescription *string  `json:"source_description"`
		CapabilityLists   []string `json:"capability_lists"`
		Found             []struct{ Method string }
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.SourceDescription == nil || len(d.CapabilityLists) != 2 {
		t.Fatalf("discover: %v %s", err, out)
	}
	methods := map[string]bool{}
	for _, f := range d.Found {
		methods[f.Method] = true
	}
	for _, m := range []string{"well-known", "robots", "html-link"} {
		if !methods[m] {
			t.Errorf("demo: nothing found by %s", m)
		}
	}
	code, out, errs = runCmd(t, "tree", "--json", *d.SourceDescription)
	if code != 0 {
		t.Fatalf("tree: exit %d %s\n%s", code, errs, out)
	}
	var root struct {
		Children []struct {
			Children []struct {
				Index    bool
				Entries  int
				Children []struct{ Entries int }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &root); err != nil || len(root.Children) != 2 {
		t.Fatalf("tree: %v", err)
	}
	total := 0
	for _, cap := range root.Children[0].Children {
		if cap.Index && len(cap.Children) > 0 && cap.Children[0].Entries > 0 {
			for _, part := range cap.Children {
				total += part.Entries
			}
			break
		}
	}
	if total == 0 {
		t.Errorf("no Resource List Index parts with entries in the demo tree: %s", out)
	}
}

// A page that is not a Sitemap, listed below the tree's root, is given up at
// its root element: the bytes read until then are not its size, and neither
// its node nor the summary counts them. It is something wrong found (exit
// status 1); as the tree's root it would be no ResourceSync TARGET (2).
func TestTreeShowsNoSizeForUnreadDocument(t *testing.T) {
	page := `<html><head><title>a page</title></head><body>` + strings.Repeat("text ", 200) + `</body></html>`
	index := `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2020-01-01T00:00:00Z"/><sitemap><loc>{{base}}/page.html</loc></sitemap></sitemapindex>`
	srv := crawlSite(t, map[string]string{"/page.html": page, "/index.xml": index})
	code, out, errs := runCmd(t, "tree", srv.URL+"/index.xml")
	if code != exitFound || !strings.Contains(out, "not a Sitemap document") {
		t.Fatalf("exit %d; output does not say the page is not a Sitemap:\n%s\n%s", code, out, errs)
	}
	pageLine := out[strings.Index(out, "page.html"):]
	pageLine = pageLine[:strings.Index(pageLine, "\n")]
	summary := out[strings.LastIndex(strings.TrimRight(out, "\n"), "\n")+1:]
	size := regexp.MustCompile(`\d+(\.\d+)? (B|KiB|MiB|GiB)\b`)
	if size.MatchString(pageLine) {
		t.Errorf("the page's node shows a size for a document not read to its end: %q", pageLine)
	}
	if m := size.FindString(summary); m != fmt.Sprintf("%d B", len(strings.ReplaceAll(index, "{{base}}", srv.URL))) {
		t.Errorf("summary %q counts more than the index's bytes (%s)", summary, m)
	}
	if !strings.Contains(summary, "1 could not be read") {
		t.Errorf("summary %q does not count the unread document", summary)
	}
	// A tree read to its end still shows its size.
	srv2 := crawlSite(t, crawlDocs())
	_, out, _ = runCmd(t, "tree", srv2.URL+"/.well-known/resourcesync")
	if !regexp.MustCompile(`3 documents, 4 entries, \d+(\.\d+)? (B|KiB)`).MatchString(out) {
		t.Errorf("summary of a whole tree lacks its size:\n%s", out)
	}
}

// The one rule for a TARGET that is read but is no ResourceSync document
// and leads to none (an HTML page without links to one, a text file): every
// command exits with 2 (the job could not be done), with --json its one
// document carrying the error. validate, discover and tree used to exit
// with 1.
func TestNotResourceSyncExitsTwoEverywhere(t *testing.T) {
	srv := crawlSite(t, map[string]string{
		"/":           "<!doctype html><html><head><title>home</title></head><body>no ResourceSync here</body></html>",
		"/notes.text": "just some text",
	})
	dir := t.TempDir()
	local := filepath.Join(dir, "page.html")
	if err := os.WriteFile(local, []byte("<html><body>a page</body></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{srv.URL + "/", srv.URL + "/notes.text"} {
		for _, args := range [][]string{
			{"validate"}, {"validate", "--recursive"}, {"discover"}, {"tree"},
			{"sync", "--dry-run", "--dest", filepath.Join(dir, "copy")}, {"audit"}, {"dump"},
		} {
			for _, js := range []bool{false, true} {
				a := append([]string(nil), args...)
				if js {
					a = append(a, "--json")
				}
				a = append(a, target)
				code, out, errs := runCmd(t, a...)
				if code != exitFailure {
					t.Errorf("rsx %q: exit %d, want 2\n%s", a, code, errs)
				}
				if js {
					var doc struct{ Error *string }
					if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Error == nil || *doc.Error == "" {
						t.Errorf("rsx %q: stdout is not one JSON document with an error (%v):\n%s", a, err, out)
					}
				}
			}
		}
	}
	for _, args := range [][]string{{"validate", local}, {"tree", local}, {"validate", "--recursive", local}} {
		code, _, errs := runCmd(t, args...)
		if code != exitFailure || !strings.Contains(errs, local+" is not a ResourceSync document (root element <html>)") {
			t.Errorf("rsx %q: exit %d, stderr %q", args, code, errs)
		}
	}
}

// rsx tree takes what rsx sync and the explorer take: a site root (an HTML
// page) starts discovery and the tree starts at the Source Description it
// finds; a local file is read as the tree's root. It used to refuse both.
func TestTreeResolvesSiteRootAndLocalFile(t *testing.T) {
	docs := crawlDocs()
	docs["/"] = `<!doctype html><html><head><link rel="resourcesync" href="/.well-known/resourcesync"></head><body>home</body></html>`
	srv := crawlSite(t, docs)
	code, out, errs := runCmd(t, "tree", "--json", srv.URL+"/")
	var root struct {
		URL        string
		Capability string
		Children   []any
	}
	if code != exitOK || json.Unmarshal([]byte(out), &root) != nil {
		t.Fatalf("site root: exit %d\n%s\n%s", code, out, errs)
	}
	if root.URL != srv.URL+"/.well-known/resourcesync" || root.Capability != "description" || len(root.Children) == 0 {
		t.Errorf("site root: the tree starts at %q (%s, %d children)", root.URL, root.Capability, len(root.Children))
	}
	if !strings.Contains(errs, "discovery from "+srv.URL+"/ found the Source Description "+srv.URL+"/.well-known/resourcesync") {
		t.Errorf("site root: stderr does not say what discovery found: %q", errs)
	}

	// The Capability List saved as a file: its lists are fetched.
	body := strings.ReplaceAll(docs["/cl.xml"], "{{base}}", srv.URL)
	if body == "" {
		t.Fatal("crawlDocs has no /cl.xml")
	}
	local := filepath.Join(t.TempDir(), "capabilitylist.xml")
	if err := os.WriteFile(local, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCmd(t, "tree", "--json", local)
	if json.Unmarshal([]byte(out), &root) != nil || code == exitFailure {
		t.Fatalf("local file: exit %d\n%s\n%s", code, out, errs)
	}
	if root.URL != local || root.Capability != "capabilitylist" || len(root.Children) == 0 {
		t.Errorf("local file: the tree starts at %q (%s, %d children)\n%s", root.URL, root.Capability, len(root.Children), out)
	}
}

// Discovery that finds two Capability Lists and no Source Description to
// hold them names both: the tree of which one is for the user to say.
func TestTreeDiscoveryFindsTwoCapabilityLists(t *testing.T) {
	capList := rsOpen + `<rs:md capability="capabilitylist"/>` + rsClose
	srv := crawlSite(t, map[string]string{
		"/":      `<!doctype html><html><head><link rel="resourcesync" href="/a.xml"><link rel="resourcesync" href="/b.xml"></head></html>`,
		"/a.xml": capList,
		"/b.xml": capList,
	})
	code, _, errs := runCmd(t, "tree", srv.URL+"/")
	if want := "found 2 Capability Lists and no Source Description: give one of them: " + srv.URL + "/a.xml, " + srv.URL + "/b.xml"; code != exitFailure || !strings.Contains(errs, want) {
		t.Errorf("exit %d, stderr %q; want %q", code, errs, want)
	}
}
