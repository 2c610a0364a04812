package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// manyPartsSite serves a Resource List Index (/rl.xml) of parts one-entry
// Resource Lists (/rl/K.xml); part bad answers 404.
func manyPartsSite(t *testing.T, parts, bad int) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		if r.URL.Path == "/rl.xml" {
			var b strings.Builder
			b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:ln rel="up" href="http://example.org/cap.xml"/><rs:md capability="resourcelist" at="2030-01-01T00:00:00Z"/>`)
			for k := range parts {
				fmt.Fprintf(&b, "<sitemap><loc>%s/rl/%d.xml</loc></sitemap>\n", srv.URL, k)
			}
			b.WriteString("</sitemapindex>")
			w.Write([]byte(b.String()))
			return
		}
		k, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/rl/"), ".xml"))
		if err != nil || k == bad {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `%s<rs:ln rel="up" href="http://example.org/cap.xml"/><rs:ln rel="index" href="%s/rl.xml"/><rs:md capability="resourcelist" at="2030-01-01T00:00:00Z"/><url><loc>%s/r/%d</loc></url>%s`,
			rsOpen, srv.URL, srv.URL, k, rsClose)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestTreeAndValidateStreamManyParts: an index of more parts than the walk
// keeps down links in memory (4,096) and than the output's spool sorts in
// memory (16,384) comes out whole and in document order, from tree (text
// and JSON) and validate --recursive (JSON), its one part that cannot be
// fetched said on the index at its entry (issue 23: these pieces wait in
// temporary files).
func TestTreeAndValidateStreamManyParts(t *testing.T) {
	if testing.Short() {
		t.Skip("walks 17,000 documents")
	}
	const parts, bad = 17000, 12345
	srv := manyPartsSite(t, parts, bad)

	code, out, errs := runCmd(t, "tree", "--json", "--max-documents", "-1", srv.URL+"/rl.xml")
	var root jsonTreeNode
	if err := json.Unmarshal([]byte(out), &root); err != nil {
		t.Fatalf("tree --json: exit %d, %v\n%s", code, err, errs)
	}
	if code != 1 || len(root.Children) != parts || root.Errors != 1 {
		t.Fatalf("tree --json: exit %d, %d children, %d errors\n%s", code, len(root.Children), root.Errors, errs)
	}
	for k, c := range root.Children {
		if want := fmt.Sprintf("%s/rl/%d.xml", srv.URL, k); c.URL != want || (k != bad && c.Entries != 1) {
			t.Fatalf("child %d: %s, %d entries; want %s", k, c.URL, c.Entries, want)
		}
	}

	code, out, _ = runCmd(t, "tree", "--max-documents", "-1", srv.URL+"/rl.xml")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 1 || len(lines) != parts+2 || !strings.HasPrefix(lines[0], "Resource List Index  ") || !strings.Contains(lines[0], "✗ 1") ||
		!strings.HasPrefix(lines[1], "├── Resource List  "+srv.URL+"/rl/0.xml") || !strings.HasPrefix(lines[parts], "└── Resource List  "+srv.URL+fmt.Sprintf("/rl/%d.xml", parts-1)) ||
		!strings.Contains(lines[parts+1], "1 could not be read, 1 error, 0 warnings") {
		t.Fatalf("tree: exit %d, %d lines; first, last:\n%s\n%s\n%s", code, len(lines), lines[0], lines[1], strings.Join(lines[max(0, len(lines)-2):], "\n"))
	}

	code, out, errs = runCmd(t, "validate", "--recursive", "--json", "--max-documents", "-1", srv.URL+"/rl.xml")
	var v jsonValidate
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("validate --json: exit %d, %v\n%s", code, err, errs)
	}
	if code != 1 || len(v.Documents) != parts || v.Errors != 1 {
		t.Fatalf("validate: exit %d, %d documents, %d errors", code, len(v.Documents), v.Errors)
	}
	idx := v.Documents[0]
	if idx.URL != srv.URL+"/rl.xml" || idx.Errors != 1 || len(idx.Problems) != 1 || idx.Problems[0].Rule != "child-unreachable" || *idx.Problems[0].Entry != bad {
		t.Errorf("the index's report: %+v", idx)
	}
	for i, d := range v.Documents[1:] {
		k := i
		if k >= bad {
			k++ // the part that could not be fetched has no report of its own
		}
		if want := fmt.Sprintf("%s/rl/%d.xml", srv.URL, k); d.URL != want {
			t.Fatalf("document %d: %s, want %s", i+1, d.URL, want)
		}
	}
}
