package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The documents in testdata/interop were written by the reference
// implementation, Python resync 2.0.1 (scripts/interop says how): a Source
// published under http://resync.test in two states, v1 and then v2 after
// files were changed, added and deleted. These tests check what rsx says
// about them and that it syncs from them.

const (
	interopDir  = "../testdata/interop"
	interopBase = "http://resync.test"
)

// interopSource serves one state of testdata/interop as http://resync.test:
// every request goes to its server whatever the host (the app's transport
// dials it). Files are served without Last-Modified, since a checkout does
// not keep the modification times resync read.
type interopSource struct {
	srv   *httptest.Server
	dir   atomic.Value // string: the folder served
	edits atomic.Value // map[string]func([]byte) []byte: per-path rewrites
}

func newInteropSource(t *testing.T, state string) *interopSource {
	t.Helper()
	s := &interopSource{}
	s.serve(state, nil)
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dir := s.dir.Load().(string)
		name := filepath.Join(dir, filepath.FromSlash(filepath.Clean("/"+r.URL.Path)))
		data, err := os.ReadFile(name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if edit := s.edits.Load().(map[string]func([]byte) []byte)[r.URL.Path]; edit != nil {
			data = edit(data)
		}
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// serve switches to state (v1, v2), with edits of some paths' bodies.
func (s *interopSource) serve(state string, edits map[string]func([]byte) []byte) {
	s.dir.Store(filepath.Join(interopDir, state))
	if edits == nil {
		edits = map[string]func([]byte) []byte{}
	}
	s.edits.Store(edits)
}

// run runs rsx with every request sent to the source's server.
func (s *interopSource) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", s.srv.Listener.Addr().String())
	}}
	defer tr.CloseIdleConnections()
	var out, errb bytes.Buffer
	args = append([]string{"--no-cache", "--rate", "0", "--retries", "0"}, args...)
	code := runWith(args, streams{in: strings.NewReader(""), out: &out, err: &errb}, func(a *app) { a.http.transport = tr })
	return code, out.String(), errb.String()
}

// problemCounts is a document's problems as "severity rule" → count.
func problemCounts(problems []struct {
	Severity string `json:"severity"`
	Rule     string `json:"rule"`
	Message  string `json:"message"`
}) map[string]int {
	m := map[string]int{}
	for _, p := range problems {
		m[p.Severity+" "+p.Rule]++
	}
	return m
}

type interopValidateJSON struct {
	Errors    int `json:"errors"`
	Warnings  int `json:"warnings"`
	Documents []struct {
		URL        string `json:"url"`
		Capability string `json:"capability"`
		Entries    int    `json:"entries"`
		Problems   []struct {
			Severity string `json:"severity"`
			Rule     string `json:"rule"`
			Message  string `json:"message"`
		} `json:"problems"`
	} `json:"documents"`
}

// What resync writes deviates from the specification in these ways, each
// reported as a problem of the rule and section given:
//   - loc-invalid-char (§7): <loc> holds file names as they are, spaces
//     unescaped (a URI cannot hold a space; letters like é and 日 are fine:
//     sitemaps take IRIs);
//   - md-from-missing (Table 4): resync-build's Change List has no from;
//   - md-at-missing (Table 4) and up-link-missing (§11.2): its Resource Dump
//     Manifests have no at and no up link (checked on the copy beside the
//     package; the manifest inside has the same faults, and paths without the
//     leading slash §11.2 asks for);
//   - describedby-recommended and description-entry-describedby (§8, §9,
//     warnings): no describedby links, for the Source or its Capability List;
//   - path-unexpected (§7, a warning): what --write-changedump writes is no
//     Change Dump but a Change List whose entries carry file-system paths.
//
// changelist.xml is resync-build's Change List completed with from and
// datetime by resync's own ChangeList class (scripts/interop), so it has no
// md-from-missing.
var interopWant = map[string]map[string]int{
	"v1/.well-known/resourcesync": {"warning describedby-recommended": 1, "warning description-entry-describedby": 1},
	"v1/capabilitylist.xml":       {"warning describedby-recommended": 1},
	"v1/resourcelist.xml":         {},
	"v1/resourcelist00000.xml":    {"error loc-invalid-char": 3},
	"v1/resourcelist00001.xml":    {},
	"v1/resourcelist00002.xml":    {"error loc-invalid-char": 2},
	"v1/resourcedump.xml":         {},
	"v1/resourcedump00000.xml":    {"error md-at-missing": 1, "error up-link-missing": 1, "error loc-invalid-char": 5},
	"v1/changelist-build.xml":     {"error md-from-missing": 1},
	"v1/changelist.xml":           {},
	"v2/.well-known/resourcesync": {"warning describedby-recommended": 1, "warning description-entry-describedby": 1},
	"v2/capabilitylist.xml":       {"warning describedby-recommended": 1},
	"v2/resourcelist.xml":         {},
	"v2/resourcelist00000.xml":    {"error loc-invalid-char": 3},
	"v2/resourcelist00001.xml":    {"error loc-invalid-char": 1},
	"v2/resourcelist00002.xml":    {"error loc-invalid-char": 4},
	"v2/resourcedump.xml":         {},
	"v2/resourcedump00000.xml":    {"error md-at-missing": 1, "error up-link-missing": 1, "error loc-invalid-char": 8},
	"v2/changelist-build.xml":     {"error md-from-missing": 1, "error loc-invalid-char": 4},
	"v2/changelist.xml":           {"error loc-invalid-char": 4},
	// resync-build --write-changedump writes a Change List with paths.
	"v2/changedump-build.xml": {"error md-from-missing": 1, "error loc-invalid-char": 4, "warning path-unexpected": 7},
}

func TestInteropResyncDocumentsValidate(t *testing.T) {
	var files []string
	for name := range interopWant {
		files = append(files, filepath.Join(interopDir, filepath.FromSlash(name)))
	}
	slices.Sort(files)
	code, out, errOut := validateRun(t, "", append([]string{"validate", "--json"}, files...)...)
	if code != exitFound {
		t.Fatalf("exit %d, want %d\n%s", code, exitFound, errOut)
	}
	var v interopValidateJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(v.Documents) != len(interopWant) {
		t.Fatalf("%d documents, want %d", len(v.Documents), len(interopWant))
	}
	for _, d := range v.Documents {
		rel, err := filepath.Rel(interopDir, d.URL)
		if err != nil {
			t.Fatal(err)
		}
		want, ok := interopWant[filepath.ToSlash(rel)]
		if !ok {
			t.Errorf("%s: not expected", d.URL)
			continue
		}
		if got := problemCounts(d.Problems); !mapsEqual(got, want) {
			t.Errorf("%s: problems %v, want %v", rel, got, want)
		}
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Over HTTP and recursively, the documents are checked against each other
// too: the Resource Dump's contents copy differs from the manifest in the
// package (resync writes the copy with file-system paths, the package's with
// paths relative to the package).
func TestInteropResyncRecursive(t *testing.T) {
	src := newInteropSource(t, "v1")
	code, out, errOut := src.run(t, "validate", "--recursive", "--packages", "--json", interopBase+"/.well-known/resourcesync")
	if code != exitFound {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var v interopValidateJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := map[string]map[string]int{
		"/.well-known/resourcesync": interopWant["v1/.well-known/resourcesync"],
		"/capabilitylist.xml":       interopWant["v1/capabilitylist.xml"],
		"/resourcelist.xml":         {},
		"/resourcelist00000.xml":    interopWant["v1/resourcelist00000.xml"],
		"/resourcelist00001.xml":    {},
		"/resourcelist00002.xml":    interopWant["v1/resourcelist00002.xml"],
		"/resourcedump.xml":         {"error contents-manifest-mismatch": 1},
		"/changelist.xml":           {},
	}
	got := map[string]map[string]int{}
	for _, d := range v.Documents {
		got[strings.TrimPrefix(d.URL, interopBase)] = problemCounts(d.Problems)
	}
	if len(got) != len(want) {
		t.Errorf("documents %v, want %v", got, want)
	}
	for u, w := range want {
		if g, ok := got[u]; !ok || !mapsEqual(g, w) {
			t.Errorf("%s: problems %v, want %v", u, g, w)
		}
	}
}

func TestInteropResyncDump(t *testing.T) {
	src := newInteropSource(t, "v1")
	code, out, errOut := src.run(t, "dump", "--verify", "--json", interopBase+"/resourcedump.xml")
	if code != exitFound {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var v struct {
		OK       bool `json:"ok"`
		Packages []struct {
			Verified            int      `json:"verified"`
			Mismatched          []any    `json:"mismatched"`
			Missing             []any    `json:"missing"`
			Unlisted            []any    `json:"unlisted"`
			Refused             []any    `json:"refused"`
			ContentsMismatch    bool     `json:"contents_mismatch"`
			ContentsDifferences []string `json:"contents_differences"`
			ManifestProblems    []struct {
				Severity string `json:"severity"`
				Rule     string `json:"rule"`
				Message  string `json:"message"`
			} `json:"manifest_problems"`
		} `json:"packages"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if v.OK || len(v.Packages) != 1 {
		t.Fatalf("%s", out)
	}
	p := v.Packages[0]
	// Every bitstream matches its manifest entry; only the copy differs,
	// and in the path of each entry alone.
	if p.Verified != 26 || len(p.Mismatched)+len(p.Missing)+len(p.Unlisted)+len(p.Refused) != 0 || !p.ContentsMismatch {
		t.Errorf("package %+v", p)
	}
	const first = interopBase + "/files/doc 003 with spaces.txt: path doc 003 with spaces.txt in the package, /tmp/resync-source/v1/files/doc 003 with spaces.txt in the copy"
	if len(p.ContentsDifferences) != 21 || p.ContentsDifferences[0] != first || p.ContentsDifferences[20] != "… and 6 more differences" {
		t.Errorf("contents differences %q", p.ContentsDifferences)
	}
	// The manifest inside the package departs from the specification as its
	// copy does, and its paths have no leading slash (§11.2).
	if got, want := problemCounts(p.ManifestProblems), map[string]int{
		"error md-at-missing": 1, "error up-link-missing": 1, "error loc-invalid-char": 5, "error path-not-absolute": 26,
	}; !mapsEqual(got, want) {
		t.Errorf("manifest problems %v, want %v", got, want)
	}
	// The package alone, a local file: every bitstream verifies, and the
	// manifest's problems are said beside.
	code, out, _ = validateRun(t, "", "dump", "--verify", filepath.Join(interopDir, "v1", "resourcedump00000.zip"))
	if code != exitOK || !strings.Contains(out, "✓ 26 verified") || !strings.Contains(out, "manifest.xml does not conform: 33 errors, 0 warnings") ||
		!strings.Contains(out, "✗ path-not-absolute ×26, the first: entry 1") {
		t.Errorf("the package alone: exit %d\n%s", code, out)
	}
}

type interopSyncJSON struct {
	Mode      string `json:"mode"`
	Created   int    `json:"created"`
	Updated   int    `json:"updated"`
	Deleted   int    `json:"deleted"`
	Unchanged int    `json:"unchanged"`
	Failed    []any  `json:"failed"`
	Gap       *struct {
		Message string `json:"message"`
	} `json:"gap"`
}

type interopAuditJSON struct {
	InSync      bool     `json:"in_sync"`
	Same        int      `json:"same"`
	Missing     []string `json:"missing"`
	Changed     []string `json:"changed"`
	Extra       []string `json:"extra"`
	Unannounced []string `json:"unannounced"`
}

// A baseline from v1 (from the Resource List, and from the Resource Dump),
// then v2: the audit names the changes and says the Change List announced
// them; an incremental sync applies them; the copy is then v2's files.
func TestInteropResyncSync(t *testing.T) {
	src := newInteropSource(t, "v1")
	cap := interopBase + "/capabilitylist.xml"
	dest, fromDump := t.TempDir(), t.TempDir()
	sync := func(args ...string) interopSyncJSON {
		t.Helper()
		code, out, errOut := src.run(t, append(append([]string{"sync", "--json"}, args...), cap)...)
		s := decodeOneJSON[interopSyncJSON](t, out, "sync")
		if code != exitOK || len(s.Failed) != 0 {
			t.Fatalf("sync %v: exit %d\n%s\n%s", args, code, out, errOut)
		}
		return s
	}
	audit := func() interopAuditJSON {
		t.Helper()
		_, out, _ := src.run(t, "audit", "--json", "--dest", dest, cap)
		return decodeOneJSON[interopAuditJSON](t, out, "audit")
	}
	if s := sync("--dest", dest); s.Mode != "baseline" || s.Created != 26 {
		t.Fatalf("baseline %+v", s)
	}
	sameFiles(t, filepath.Join(dest, "resync.test", "files"), filepath.Join(interopDir, "v1", "files"))
	if s := sync("--dest", fromDump, "--baseline-from", "dump"); s.Mode != "baseline" || s.Created != 26 {
		t.Fatalf("baseline from the dump %+v", s)
	}
	sameFiles(t, filepath.Join(fromDump, "resync.test", "files"), filepath.Join(interopDir, "v1", "files"))

	src.serve("v2", nil)
	a := audit()
	if a.InSync || a.Same != 20 || len(a.Missing) != 3 || len(a.Changed) != 4 || len(a.Extra) != 2 || len(a.Unannounced) != 0 {
		t.Errorf("audit before the incremental sync %+v", a)
	}
	if s := sync("--dest", dest, "--delete"); s.Mode != "incremental" || s.Created != 3 || s.Updated != 4 || s.Deleted != 2 {
		t.Fatalf("incremental %+v", s)
	}
	sameFiles(t, filepath.Join(dest, "resync.test", "files"), filepath.Join(interopDir, "v2", "files"))
	if a := audit(); !a.InSync || a.Same != 27 {
		t.Errorf("audit after %+v", a)
	}
	// A spot audit of every resource: what resync declares is what is served.
	code, out, errOut := src.run(t, "audit", "--sample", "all", "--json", cap)
	var spot struct {
		Checked    int   `json:"checked"`
		OK         int   `json:"ok"`
		Mismatched []any `json:"mismatched"`
	}
	if err := json.Unmarshal([]byte(out), &spot); err != nil || code != exitOK || spot.Checked == 0 || spot.OK != spot.Checked || len(spot.Mismatched) != 0 {
		t.Errorf("spot audit: exit %d, %+v %v\n%s\n%s", code, spot, err, out, errOut)
	}
}

// resync-build's own Change List has no from: a copy cannot tell which
// changes it covers. --mode incremental applies nothing and the gap says
// why; mode auto reconciles with the Resource List and its changes, says
// why, and keeps the copy byte-exact with the Source.
func TestInteropResyncChangeListWithoutFrom(t *testing.T) {
	src := newInteropSource(t, "v1")
	cap := interopBase + "/capabilitylist.xml"
	dest := t.TempDir()
	if code, out, errOut := src.run(t, "sync", "--json", "--dest", dest, cap); code != exitOK {
		t.Fatalf("baseline: exit %d\n%s\n%s", code, out, errOut)
	}
	src.serve("v2", map[string]func([]byte) []byte{
		"/capabilitylist.xml": func(b []byte) []byte {
			return bytes.ReplaceAll(b, []byte("/changelist.xml<"), []byte("/changelist-build.xml<"))
		},
	})
	code, out, _ := src.run(t, "sync", "--json", "--mode", "incremental", "--dest", dest, cap)
	s := decodeOneJSON[interopSyncJSON](t, out, "sync")
	if code != exitFound || s.Gap == nil || s.Created+s.Updated+s.Deleted != 0 {
		t.Fatalf("--mode incremental: exit %d, %+v\n%s", code, s, out)
	}
	if want := interopBase + "/changelist-build.xml has no from attribute, mandatory (Table 4)"; !strings.Contains(s.Gap.Message, want) {
		t.Errorf("gap %q, want it to say %q", s.Gap.Message, want)
	}
	sameFiles(t, filepath.Join(dest, "resync.test", "files"), filepath.Join(interopDir, "v1", "files"))

	code, out, _ = src.run(t, "sync", "--json", "--delete", "--dest", dest, cap)
	var r struct {
		interopSyncJSON
		Reconcile *struct {
			Why     string `json:"why"`
			Checked int    `json:"checked"`
		} `json:"reconcile"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("sync --json: %v\n%s", err, out)
	}
	if code != exitOK || r.Gap != nil || r.Reconcile == nil || !strings.Contains(r.Reconcile.Why, "give no from") ||
		r.Created != 3 || r.Updated != 4 || r.Deleted != 2 {
		t.Fatalf("auto: exit %d, %+v, reconcile %+v\n%s", code, r.interopSyncJSON, r.Reconcile, out)
	}
	sameFiles(t, filepath.Join(dest, "resync.test", "files"), filepath.Join(interopDir, "v2", "files"))
	if code, out, _ := src.run(t, "audit", "--json", "--dest", dest, cap); code != exitOK || !strings.Contains(out, `"in_sync": true`) {
		t.Errorf("audit after the reconcile: exit %d\n%s", code, out)
	}
}

// sameFiles fails unless the trees got and want hold the same files with
// the same bytes.
func sameFiles(t *testing.T, got, want string) {
	t.Helper()
	read := func(root string) map[string][]byte {
		m := map[string][]byte{}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			m[filepath.ToSlash(rel)] = b
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	g, w := read(got), read(want)
	for name, b := range w {
		if gb, ok := g[name]; !ok {
			t.Errorf("%s: missing from the copy", name)
		} else if !bytes.Equal(gb, b) {
			t.Errorf("%s: differs", name)
		}
	}
	for name := range g {
		if _, ok := w[name]; !ok {
			t.Errorf("%s: in the copy only", name)
		}
	}
}

// resync declares the md5 of every part of its Resource List Index: the
// parts as received are hashed while they stream, and a part whose bytes
// changed after the index was written is reported on the index's entry.
func TestInteropResyncIndexDigests(t *testing.T) {
	src := newInteropSource(t, "v1")
	src.serve("v1", map[string]func([]byte) []byte{
		"/resourcelist00001.xml": func(b []byte) []byte { return append(b, '\n') },
	})
	code, out, errOut := src.run(t, "validate", "--recursive", "--json", interopBase+"/resourcelist.xml")
	if code != exitFound {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var v interopValidateJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	found := 0
	for _, d := range v.Documents {
		for _, p := range d.Problems {
			if p.Rule != "document-declared-mismatch" {
				continue
			}
			found++
			if d.URL != interopBase+"/resourcelist.xml" || p.Severity != "error" {
				t.Errorf("%s: %s %s, want an error on the index", d.URL, p.Severity, p.Rule)
			}
			for _, want := range []string{"entry 2", "resourcelist00001.xml", "md5 4e5af5aba49005eaeea39038c39aaea0 declared", "§7"} {
				if !strings.Contains(p.Message, want) {
					t.Errorf("message %q lacks %q", p.Message, want)
				}
			}
		}
	}
	if found != 1 {
		t.Errorf("%d document-declared-mismatch problems, want 1\n%s", found, out)
	}
	// Unchanged, the parts match the digests resync wrote.
	src.serve("v1", nil)
	_, out, _ = src.run(t, "validate", "--recursive", "--json", interopBase+"/resourcelist.xml")
	if strings.Contains(out, "document-declared-mismatch") {
		t.Errorf("unchanged parts reported as mismatched:\n%s", out)
	}
	src.serve("v1", map[string]func([]byte) []byte{
		"/resourcelist00001.xml": func(b []byte) []byte { return append(b, '\n') },
	})
	// rsx tree counts it on the index (whose own document has no problem).
	_, out, _ = src.run(t, "tree", interopBase+"/resourcelist.xml")
	if first, _, _ := strings.Cut(out, "\n"); !strings.HasSuffix(first, "✗ 1") {
		t.Errorf("tree does not count the mismatch on the index:\n%s", out)
	}
}
