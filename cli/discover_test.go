package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestDiscoverCommandJSON(t *testing.T) {
	docs := crawlDocs()
	docs["/"] = `<html><head><link rel="resourcesync" href="/cl.xml"></head></html>`
	srv := crawlSite(t, docs)
	code, out, errs := runCmd(t, "discover", "--json", srv.URL+"/")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var d struct {
		Input             string  `json:"input"`
		SourceDescription *string `json:"source_description"`
		CapabilityLists   []string
		Found             []struct{ Method, URL, Capability string }
		Attempts          []map[string]any
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var raw map[string]any
	json.Unmarshal([]byte(out), &raw)
	for _, k := range []string{"input", "found", "source_description", "capability_lists", "attempts", "problems"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("no %q", k)
		}
	}
	if d.SourceDescription == nil || *d.SourceDescription != srv.URL+"/.well-known/resourcesync" {
		t.Errorf("source_description = %v", d.SourceDescription)
	}
	if len(raw["capability_lists"].([]any)) != 1 {
		t.Errorf("capability_lists = %v", raw["capability_lists"])
	}
	if ps, _ := raw["problems"].([]any); ps == nil || len(ps) != 0 {
		t.Errorf("problems of a Source at the well-known URI = %v, want []", raw["problems"])
	}
	methods := map[string]bool{}
	for _, f := range d.Found {
		methods[f.Method] = true
	}
	if !methods["well-known"] || !methods["html-link"] {
		t.Errorf("found = %+v", d.Found)
	}
	for _, a := range d.Attempts {
		for _, k := range []string{"method", "url", "status", "error"} {
			if _, ok := a[k]; !ok {
				t.Errorf("attempt without %q: %v", k, a)
			}
		}
		if st, ok := a["status"].(float64); a["status"] != nil && (!ok || st < 100) {
			t.Errorf("status %v", a["status"])
		}
	}
}

func TestDiscoverCommandExitCodes(t *testing.T) {
	srv := crawlSite(t, map[string]string{"/page.html": "<html><head></head><body>nothing</body></html>"})
	code, out, _ := runCmd(t, "discover", "--json", srv.URL+"/page.html")
	var raw map[string]any
	// Nothing ResourceSync from a page that was read: exit status 2, the
	// rule of every command for such a target, with the JSON's error.
	if code != 2 || json.Unmarshal([]byte(out), &raw) != nil || raw["source_description"] != nil {
		t.Fatalf("nothing found: exit %d, %s", code, out)
	}
	if e, _ := raw["error"].(string); !strings.Contains(e, "nothing ResourceSync was found from "+srv.URL+"/page.html") || strings.Contains(e, "rsx discover") {
		t.Errorf("nothing found: error %q", raw["error"])
	}
	if len(raw["found"].([]any)) != 0 || len(raw["capability_lists"].([]any)) != 0 {
		t.Errorf("empty lists must be [] : %s", out)
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	u := closed.URL
	closed.Close()
	if code, _, errs := runCmd(t, "discover", u+"/"); code != 2 || !strings.Contains(errs, "rsx:") {
		t.Errorf("unreachable: exit %d, %s", code, errs)
	}
	if code, _, _ := runCmd(t, "discover", "ftp://127.0.0.1/x"); code != 2 {
		t.Errorf("bad URL: exit %d", code)
	}
	code, out, _ = runCmd(t, "discover", srv.URL+"/page.html")
	if code != 2 || !strings.Contains(out, "Attempts") || !strings.Contains(out, "not reached") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
}

// TestDiscoverCommandProblems: a Capability List linked from a page whose up
// link leads nowhere: no Source Description, an error in the JSON problems
// and the text, with the exit status of a Capability List found (0).
func TestDiscoverCommandProblems(t *testing.T) {
	srv := crawlSite(t, map[string]string{
		"/page.html": `<html><head><link rel="resourcesync" href="/cl.xml"></head><body>x</body></html>`,
		"/cl.xml": `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
			`<rs:md capability="capabilitylist"/></urlset>`,
	})
	code, out, _ := runCmd(t, "discover", "--json", srv.URL+"/page.html")
	var d struct {
		Problems []struct{ Severity, Rule, Section, Message string }
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || code != 0 {
		t.Fatalf("exit %d, %v\n%s", code, err, out)
	}
	if len(d.Problems) != 1 || d.Problems[0].Rule != "source-description-unreached" || d.Problems[0].Severity != "error" ||
		d.Problems[0].Section != "6.3.2" || !strings.Contains(d.Problems[0].Message, srv.URL+"/cl.xml") {
		t.Errorf("problems = %+v", d.Problems)
	}
	_, out, _ = runCmd(t, "discover", srv.URL+"/page.html")
	if !strings.Contains(out, "Problems") || !strings.Contains(out, "source-description-unreached §6.3.2") {
		t.Errorf("text:\n%s", out)
	}
}

// TestDiscoverCommandCoverage: --coverage reads the Resource List of the
// Capability List a page links to, and reports the page it does not list.
func TestDiscoverCommandCoverage(t *testing.T) {
	const head = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">`
	docs := map[string]string{
		"/page.html":                `<html><head><link rel="resourcesync" href="/cl.xml"></head><body>x</body></html>`,
		"/listed.html":              `<html><head><link rel="resourcesync" href="/cl.xml"></head><body>x</body></html>`,
		"/.well-known/resourcesync": head + `<rs:md capability="description"/><url><loc>/cl.xml</loc><rs:md capability="capabilitylist"/></url></urlset>`,
		"/cl.xml":                   head + `<rs:ln rel="up" href="/.well-known/resourcesync"/><rs:md capability="capabilitylist"/><url><loc>/rl.xml</loc><rs:md capability="resourcelist"/></url></urlset>`,
		"/rl.xml":                   head + `<rs:ln rel="up" href="/cl.xml"/><rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/><url><loc>/listed.html</loc></url></urlset>`,
	}
	srv := crawlSite(t, docs)
	type out struct {
		Problems []struct{ Rule, Section, Message string }
		Coverage []struct {
			CapabilityList  string `json:"capability_list"`
			Judged, Covered bool
		}
	}
	for _, tc := range []struct {
		page  string
		rules []string
	}{{"/page.html", []string{"discovery-link-coverage"}}, {"/listed.html", nil}} {
		code, stdout, errs := runCmd(t, "discover", "--json", "--coverage", srv.URL+tc.page)
		var d out
		if err := json.Unmarshal([]byte(stdout), &d); err != nil || code != 0 {
			t.Fatalf("%s: exit %d, %v\n%s%s", tc.page, code, err, stdout, errs)
		}
		var rules []string
		for _, p := range d.Problems {
			rules = append(rules, p.Rule)
		}
		if strings.Join(rules, " ") != strings.Join(tc.rules, " ") || len(d.Coverage) != 1 || !d.Coverage[0].Judged || d.Coverage[0].Covered != (tc.rules == nil) {
			t.Errorf("%s: problems %v, coverage %+v\n%s", tc.page, d.Problems, d.Coverage, stdout)
		}
	}
	// Without --coverage nothing is read beyond discovery.
	_, stdout, _ := runCmd(t, "discover", "--json", srv.URL+"/page.html")
	if strings.Contains(stdout, "coverage") {
		t.Errorf("coverage without --coverage:\n%s", stdout)
	}
}

// TestDiscoverAndTreeOnDemo runs both commands against the built-in demo Source.
