package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The explorer's edges: a word that is no command, a target that is neither
// a URL nor a file, and no terminal each end with a clear error and exit
// status 2, before anything starts.
func TestExplorerRefusesWhatItCannotOpen(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "resourcelist.xml")
	if err := os.WriteFile(existing, []byte("<urlset/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"mirror"}, []string{`unknown command "mirror"`, "rsx --help"}},
		{[]string{"tre"}, []string{`unknown command "tre"`, `did you mean "tree"?`}},
		{[]string{"valdate"}, []string{`did you mean "validate"?`}},
		{[]string{"tre", "http://127.0.0.1:9/x.xml"}, []string{`unknown command "tre"`, `did you mean "tree"?`}},
		{[]string{existing, existing}, []string{"the explorer opens one TARGET, 2 were given"}},
		{[]string{"example.org"}, []string{"neither a URL nor an existing file", "https://example.org"}},
		{[]string{filepath.Join(dir, "missing.xml")}, []string{"neither a URL nor an existing file"}},
		{[]string{"ftp://example.org/x"}, []string{"neither an http(s) URL nor an existing file"}},
		// What can be opened gets as far as the terminal check.
		{[]string{existing}, []string{"the explorer needs a terminal", "rsx validate", "rsx tree", "--json"}},
		{[]string{"http://127.0.0.1:9/x.xml"}, []string{"the explorer needs a terminal"}},
		{nil, []string{"the explorer needs a terminal", "rsx discover"}},
		// rsx --broken is the broken demo; with a TARGET it has no meaning.
		{[]string{"--broken"}, []string{"the explorer needs a terminal"}},
		{[]string{"--broken", existing}, []string{"--broken opens the built-in demo Source", "rsx serve --broken"}},
	} {
		code, out, errs := runCmd(t, tc.args...)
		if code != exitFailure {
			t.Errorf("rsx %v: exit %d, want %d (stderr %q)", tc.args, code, exitFailure, errs)
		}
		if out != "" {
			t.Errorf("rsx %v: wrote %q on stdout", tc.args, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(errs, w) {
				t.Errorf("rsx %v: stderr %q does not say %q", tc.args, errs, w)
			}
		}
		if strings.Contains(errs, "bubbletea") || strings.Count(errs, "\n") != 1 {
			t.Errorf("rsx %v: stderr should be one plain line: %q", tc.args, errs)
		}
	}
}

// A command without its argument, or with two, says what it wants in words,
// not cobra's "accepts 1 arg(s), received 0".
func TestCommandsSayWhatArgumentIsMissing(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tree"}, "tree: no URL given: a ResourceSync document"},
		{[]string{"sync"}, "sync: no URL given: the Source's Capability List"},
		{[]string{"audit"}, "audit: no URL given"},
		{[]string{"dump"}, "dump: no URL or FILE given"},
		{[]string{"discover"}, "discover: no URL given"},
		{[]string{"watch"}, "watch: no URL given"},
		{[]string{"tree", "a", "b"}, `tree: one URL is wanted, 2 were given ("a" "b")`},
		{[]string{"tree", "--bogus", "a"}, "unknown option --bogus (rsx tree --help lists the options)"},
		{[]string{"sync", "--dest"}, "--dest needs a value: the destination (required): a folder, or s3://"},
		{[]string{"audit", "--dest", filepath.Join(t.TempDir(), "nowhere"), "http://127.0.0.1:9/capabilitylist.xml"},
			"audit: there is no copy in "},
	} {
		code, out, errs := runCmd(t, tc.args...)
		if code != exitFailure || out != "" || !strings.Contains(errs, tc.want) || strings.Contains(errs, "arg(s)") {
			t.Errorf("rsx %v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, out, errs, tc.want)
		}
	}
}

// tree --json prints its one JSON document, the error said, when URL
// cannot be fetched, as every --json command does.
func TestTreeJSONOnUnreachableTarget(t *testing.T) {
	for _, target := range []string{"http://127.0.0.1:9/.well-known/resourcesync", "not-a-url"} {
		code, out, errs := runCmd(t, "tree", "--json", target)
		if code != exitFailure {
			t.Errorf("%s: exit %d, want %d", target, code, exitFailure)
		}
		var root jsonTreeNode
		dec := json.NewDecoder(strings.NewReader(out))
		if err := dec.Decode(&root); err != nil || dec.More() {
			t.Fatalf("%s: stdout is not one JSON document (%v):\n%s", target, err, out)
		}
		if root.URL != target || root.Error == nil || *root.Error == "" || root.Children == nil {
			t.Errorf("%s: node %+v, want the URL, its error and no children", target, root)
		}
		if !strings.Contains(errs, "tree:") {
			t.Errorf("%s: stderr %q does not say what failed", target, errs)
		}
	}
}

// tree and audit of a page that is no ResourceSync document (a site's home
// page) point to rsx discover, which finds the documents the page links to
// (tree has run discovery itself: it names what rsx discover shows).
func TestNotADocumentPointsToDiscover(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<!doctype html><html><head><link rel="resourcesync" href="/capabilitylist.xml"></head></html>`))
	}))
	defer srv.Close()
	for cmd, want := range map[string]string{
		"tree":  "rsx discover " + srv.URL + "/ shows every method tried",
		"audit": "rsx discover " + srv.URL + "/ finds the ResourceSync documents it points to",
	} {
		code, _, errs := runCmd(t, cmd, srv.URL+"/")
		if !strings.Contains(errs, want) || code != exitFailure {
			t.Errorf("rsx %s on an HTML page: exit %d, stderr %q does not say %q", cmd, code, errs, want)
		}
	}
}

// rsx --broken starts the same demo as rsx serve --broken: errors seeded.
func TestExplorerBrokenDemo(t *testing.T) {
	for _, broken := range []bool{false, true} {
		srv, _, err := startExplorerDemo(t.Context(), "127.0.0.1:0", false, broken)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.Get(srv.URL + "/demo/status")
		if err != nil {
			t.Fatal(err)
		}
		var status struct{ Broken bool }
		err = json.NewDecoder(resp.Body).Decode(&status)
		resp.Body.Close()
		srv.Close()
		if err != nil || status.Broken != broken {
			t.Errorf("startExplorerDemo(broken=%v): the demo says broken=%v (%v)", broken, status.Broken, err)
		}
	}
}
