package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"rsx/demo"
	"rsx/model"
)

// startServeDest runs rsx serve --dest for the length of the test (or until
// stop) and returns the base URL it printed first.
func startServeDest(t *testing.T, f serveFlags) (base string, stderr *syncBuffer, stop func()) {
	t.Helper()
	pr, pw := io.Pipe()
	stderr = &syncBuffer{}
	a := &app{streams: streams{in: strings.NewReader(""), out: pw, err: stderr}}
	if f.addr == "" {
		f.addr = "127.0.0.1:0"
	}
	if f.poll == 0 {
		f.poll = 20 * time.Millisecond
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- a.serveDest(ctx, f, true)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("rsx serve --dest %s printed no base URL: %v\n%s", f.dest, err, stderr.String())
	}
	go io.Copy(io.Discard, pr)
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("rsx serve --dest %s: %v", f.dest, err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("rsx serve --dest %s did not stop", f.dest)
		}
	}
	t.Cleanup(stop)
	return strings.TrimSpace(line), stderr, stop
}

// syncBuffer is a strings.Builder safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type chainSyncJSON struct {
	Mode    string `json:"mode"`
	Created int    `json:"created"`
	Updated int    `json:"updated"`
	Deleted int    `json:"deleted"`
	Failed  []any  `json:"failed"`
}

// chainSync runs rsx sync --json and decodes its document.
func chainSync(t *testing.T, args ...string) chainSyncJSON {
	t.Helper()
	code, out, errs := runCmd(t, append([]string{"sync", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("rsx sync %q: exit %d\n%s\n%s", args, code, out, errs)
	}
	return decodeOneJSON[chainSyncJSON](t, out, "sync")
}

// inSync runs rsx audit --dest --json and reports whether it is in sync.
func inSync(t *testing.T, dest, url string) bool {
	t.Helper()
	code, out, errs := runCmd(t, "audit", "--json", "--dest", dest, url)
	doc := decodeOneJSON[struct {
		InSync bool `json:"in_sync"`
	}](t, out, "audit")
	if code != 0 || !doc.InSync {
		t.Logf("audit --dest %s %s: exit %d\n%s\n%s", dest, url, code, out, errs)
	}
	return code == 0 && doc.InSync
}

// treeFiles reads every file under dir, by its path relative to dir.
func treeFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameTrees compares two folders byte for byte.
func sameTrees(t *testing.T, a, b string) {
	t.Helper()
	fa, fb := treeFiles(t, a), treeFiles(t, b)
	if len(fa) == 0 {
		t.Fatalf("no file in %s", a)
	}
	for p, x := range fa {
		if y, ok := fb[p]; !ok {
			t.Errorf("%s: in %s, not in %s", p, a, b)
		} else if !bytes.Equal(x, y) {
			t.Errorf("%s differs between %s and %s", p, a, b)
		}
	}
	for p := range fb {
		if _, ok := fa[p]; !ok {
			t.Errorf("%s: in %s, not in %s", p, b, a)
		}
	}
}

// servedAt reads the at of a served Resource List (or index).
func servedAt(t *testing.T, url string) string {
	t.Helper()
	d := fetchDoc(t, url)
	return d.Header.MD.At.Raw
}

func fetchDoc(t *testing.T, url string) *model.Document {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s", url, resp.Status)
	}
	d, err := model.Parse(resp.Body)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return d
}

// waitServed waits until the served Resource List's at is no longer was:
// the run that ended is served.
func waitServed(t *testing.T, rl, was string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if servedAt(t, rl) != was {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s still at %s: the run that ended is not served", rl, was)
}

// TestServeDestChain is issue 37's chain on one machine: the demo Source, a
// copy A of it, A served, a copy B of the served A, B audited in sync and
// byte for byte A's; the demo advances, A syncs again with --delete, and B's
// next run is incremental from A's Change Lists and brings exactly A's
// changes, its deletions too; the served Source validates without a
// problem; B served in its turn keeps the original via of each resource.
func TestServeDestChain(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 300})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	A, B := t.TempDir(), t.TempDir()
	origin := [2]string{srv.URL + "/dataset1/capabilitylist.xml", srv.URL + "/dataset2/capabilitylist.xml"}
	for _, u := range origin {
		if r := chainSync(t, "--dest", A, u); r.Mode != "baseline" || r.Created == 0 {
			t.Fatalf("A's baseline of %s: %+v", u, r)
		}
	}
	baseA, _, _ := startServeDest(t, serveFlags{dest: A})
	served := [2]string{baseA + "/resourcesync/1/capabilitylist.xml", baseA + "/resourcesync/2/capabilitylist.xml"}

	code, out, errs := runCmd(t, "validate", "--recursive", "--json", baseA+"/.well-known/resourcesync")
	v := decodeOneJSON[struct {
		Errors, Warnings int
		Documents        []struct{ URL string }
	}](t, out, "validate")
	if code != 0 || v.Errors != 0 || v.Warnings != 0 || len(v.Documents) < 9 {
		t.Errorf("validate --recursive of the served Source: exit %d, %d errors, %d warnings, %d documents\n%s\n%s", code, v.Errors, v.Warnings, len(v.Documents), out, errs)
	}

	for i, u := range served {
		if r := chainSync(t, "--dest", B, u); r.Mode != "baseline" || r.Created == 0 {
			t.Fatalf("B's baseline of %s: %+v", u, r)
		}
		if !inSync(t, B, u) {
			t.Errorf("B is not in sync with %s (a copy of %s)", u, origin[i])
		}
	}
	hostA := strings.ReplaceAll(strings.TrimPrefix(srv.URL, "http://"), ":", "+")
	hostB := strings.ReplaceAll(strings.TrimPrefix(baseA, "http://"), ":", "+")
	sameTrees(t, filepath.Join(A, hostA), filepath.Join(B, hostB, hostA))

	// The demo advances; A follows with --delete; B's next run brings
	// exactly A's changes, from A's Change Lists.
	was := [2]string{servedAt(t, baseA+"/resourcesync/1/resourcelist.xml"), servedAt(t, baseA+"/resourcesync/2/resourcelist.xml")}
	resp, err := http.Post(srv.URL+"/demo/advance?steps=4", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var ofA [2]chainSyncJSON
	deleted := 0
	for i, u := range origin {
		ofA[i] = chainSync(t, "--delete", "--dest", A, u)
		if ofA[i].Mode != "incremental" {
			t.Fatalf("A's second run of %s: %+v", u, ofA[i])
		}
		deleted += ofA[i].Deleted
	}
	if ofA[0].Created+ofA[0].Updated+ofA[0].Deleted == 0 || deleted == 0 {
		t.Fatalf("the demo's advance brought A no change, or no deletion: %+v", ofA)
	}
	for i := range served {
		waitServed(t, baseA+"/resourcesync/"+string(rune('1'+i))+"/resourcelist.xml", was[i])
	}
	for i, u := range served {
		r := chainSync(t, "--delete", "--dest", B, u)
		if r.Mode != "incremental" || r.Created != ofA[i].Created || r.Updated != ofA[i].Updated || r.Deleted != ofA[i].Deleted {
			t.Errorf("B's run of %s: %+v, A's run brought %+v", u, r, ofA[i])
		}
		if !inSync(t, B, u) {
			t.Errorf("B is not in sync with %s after A changed", u)
		}
	}
	sameTrees(t, filepath.Join(A, hostA), filepath.Join(B, hostB, hostA))

	// A second aggregator: B served keeps the original's via of each
	// resource, as A serves it.
	baseB, _, _ := startServeDest(t, serveFlags{dest: B})
	for i := range served {
		viaA := viaByPath(t, baseA, fetchDoc(t, baseA+"/resourcesync/"+string(rune('1'+i))+"/resourcelist.xml"))
		viaB := viaByPath(t, baseB+"/"+hostB, fetchDoc(t, baseB+"/resourcesync/"+string(rune('1'+i))+"/resourcelist.xml"))
		if len(viaA) == 0 || len(viaA) != len(viaB) {
			t.Fatalf("dataset %d: %d entries served by A, %d by B", i+1, len(viaA), len(viaB))
		}
		fromOrigin := 0
		for p, la := range viaA {
			lb := viaB[p]
			if la != lb {
				t.Errorf("%s: via %q at A, %q at B", p, la, lb)
			}
			if strings.HasPrefix(la, `["`+srv.URL+"/") {
				fromOrigin++
			}
		}
		if fromOrigin != len(viaA) {
			t.Errorf("dataset %d: %d of %d via links name the original Source", i+1, fromOrigin, len(viaA))
		}
	}
}

// viaByPath maps each entry of a served Resource List, by its loc less
// base, to its via link (href and its claims, as written).
func viaByPath(t *testing.T, base string, d *model.Document) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, e := range d.Entries {
		var vias []string
		for _, l := range e.Links {
			if model.HasRel(l.Rel, "via") {
				b, _ := json.Marshal([]any{l.Href, l.Modified.Raw, l.HashRaw, l.LengthRaw, l.Type})
				vias = append(vias, string(b))
			}
		}
		if len(vias) != 1 {
			t.Errorf("%s: %d via links", e.Loc, len(vias))
			continue
		}
		out[strings.TrimPrefix(e.Loc, base)] = vias[0]
	}
	return out
}

// rsx serve --dest refuses what it cannot serve, saying why (exit 2): a
// folder without a copy, the demo's flags, a base URL that is not one, the
// flags of --dest without it.
func TestServeDestRefusals(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--dest", empty, "--addr", "127.0.0.1:0"}, "no copy in"},
		{[]string{"serve", "--dest", filepath.Join(empty, "nothing"), "--addr", "127.0.0.1:0"}, "there is no copy in"},
		{[]string{"serve", "--dest", empty, "--resources", "10"}, "--resources is for the demo Source"},
		{[]string{"serve", "--dest", empty, "--addr", "127.0.0.1:0", "--base-url", "ftp://x"}, "--base-url"},
		{[]string{"serve", "--channels"}, "--channels is for a copy served with --dest"},
	} {
		code, out, errs := runCmd(t, tc.args...)
		if code != exitFailure || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q (want %q)", tc.args, code, out, errs, tc.want)
		}
	}
}

// A fleet file's names title the Sources served (--sources).
func TestServeDestTitles(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 50})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	A := t.TempDir()
	u := srv.URL + "/dataset2/capabilitylist.xml"
	chainSync(t, "--dest", A, u)
	fleet := filepath.Join(t.TempDir(), "fleet.toml")
	if err := os.WriteFile(fleet, []byte("[[source]]\nname = \"The images\"\nurl = \""+u+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base, stderr, _ := startServeDest(t, serveFlags{dest: A, sources: fleet})
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), ">The images</a>") || !strings.Contains(string(b), `<link rel="resourcesync" href="`+base+`/resourcesync/1/capabilitylist.xml">`) {
		t.Errorf("home page:\n%s", b)
	}
	if !strings.Contains(stderr.String(), base+"/resourcesync/1/capabilitylist.xml  (a copy of "+u+")") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}
