package session

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
	"time"

	"rsx/claims"
	"rsx/demo"
	"rsx/dump"
	"rsx/fetch"
	"rsx/memento"
	"rsx/model"
)

// versionedResource finds a resource of the demo with at least two
// versions, through the links of the Resource List's entries: its entry
// and TimeMap.
func versionedResource(t *testing.T, s *Session, base string) (model.Entry, *memento.TimeMap) {
	t.Helper()
	r := load(t, s, base+"/dataset1/resourcelist.xml")
	if len(r.entries) == 0 {
		t.Fatal("no Resource List")
	}
	for _, e := range r.entries {
		for _, l := range e.Links {
			if !model.HasRel(l.Rel, "timemap") {
				continue
			}
			tm, _, err := s.TimeMap(context.Background(), l.Href)
			if err != nil {
				t.Fatal(err)
			}
			if len(tm.Mementos) >= 2 {
				return e, tm
			}
		}
	}
	t.Fatal("no resource of the demo has two versions")
	return model.Entry{}, nil
}

func TestTimeMapTimeGateAndCompare(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 300})
	e, tm := versionedResource(t, s, srv.URL)
	if tm.Original != e.Loc || tm.TimeGate == "" || len(tm.Problems) != 0 {
		t.Fatalf("TimeMap of %s: %+v", e.Loc, tm)
	}
	for i := 1; i < len(tm.Mementos); i++ {
		if !tm.Mementos[i-1].Datetime.Before(tm.Mementos[i].Datetime) {
			t.Errorf("mementos out of order: %+v", tm.Mementos)
		}
	}
	// The TimeGate, asked for a moment just after the first version, leads
	// to the first version; asked for now, to the last.
	first, last := tm.Mementos[0], tm.Mementos[len(tm.Mementos)-1]
	a, err := s.TimeGate(context.Background(), tm.TimeGate, first.Datetime.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if a.Memento != first.URL || !a.Datetime.Equal(first.Datetime) || a.TimeMap == "" || a.Status != 200 {
		t.Errorf("TimeGate for the first version: %+v, want %s", a, first.URL)
	}
	if got := a.Exchange.RequestHeader.Get("Accept-Datetime"); got != memento.FormatHTTPDate(first.Datetime.Add(time.Second)) {
		t.Errorf("Accept-Datetime sent: %q", got)
	}
	a, err = s.TimeGate(context.Background(), tm.TimeGate, time.Now())
	if err != nil || a.Memento != last.URL {
		t.Errorf("TimeGate for now: %+v %v, want %s", a, err, last.URL)
	}
	// The first version against the current resource: both arrive, they
	// differ, and a text diff says how.
	d := s.CompareVersions(context.Background(), first.URL, e.Loc)
	if d.Version.Err != nil || d.Current.Err != nil {
		t.Fatalf("compare: %v, %v", d.Version.Err, d.Current.Err)
	}
	if d.Same || len(d.Version.Digests) != 4 || d.Version.Digests[0] == d.Current.Digests[0] {
		t.Errorf("versions compared the same: %+v", d)
	}
	if d.Version.Text && d.Current.Text {
		if !strings.HasPrefix(d.Diff, "--- version\n+++ current\n") || !strings.Contains(d.Diff, "\n@@") {
			t.Errorf("text diff:\n%s", d.Diff)
		}
	} else if d.Note == "" {
		t.Error("no diff and no note")
	}
	// The last version is the current resource.
	if d := s.CompareVersions(context.Background(), last.URL, e.Loc); !d.Same || d.Diff != "" {
		t.Errorf("the last version differs from the current resource: %+v", d)
	}
	// Unreachable and local targets are refused, said in the result.
	if d := s.CompareVersions(context.Background(), "file:///etc/passwd", e.Loc); d.Version.Err == nil || d.Note == "" {
		t.Errorf("a local version was compared: %+v", d.Version)
	}
	if _, _, err := s.TimeMap(context.Background(), srv.URL+"/timemap/nothing"); err == nil {
		t.Error("a missing TimeMap gave no error")
	}
	if _, err := s.TimeGate(context.Background(), "/etc/passwd", time.Now()); err == nil {
		t.Error("a local TimeGate was asked")
	}
}

// The resource view's inspection: every digest, the declared ones checked,
// text told from binary.
func TestInspectResource(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 60})
	for _, tc := range []struct {
		list string
		text bool
	}{{"/dataset1/resourcelist.xml", true}, {"/dataset2/resourcelist.xml", false}} {
		r := load(t, s, srv.URL+tc.list)
		for _, e := range r.entries[:4] {
			in := s.InspectResource(context.Background(), claims.Targets(e)[0], nil)
			if in.Err() != nil || in.Received.Status != 200 {
				t.Fatalf("%s: %v", e.Loc, in.Err())
			}
			if want := tc.text || in.MediaType == "image/svg+xml"; in.Text != want { // SVG is XML: text
				t.Errorf("%s (%s): text %v, want %v", e.Loc, in.MediaType, in.Text, want)
			}
			if len(in.Digests) != 4 || in.Digests[3].Alg != "sha-512" {
				t.Fatalf("%s: digests %+v", e.Loc, in.Digests)
			}
			for _, h := range e.MD.Hash {
				for _, d := range in.Digests {
					if d.Alg == h.Alg && d.Hex != h.Hex() {
						t.Errorf("%s: %s %s, declared %s", e.Loc, d.Alg, d.Hex, h.Hex())
					}
				}
			}
			if in.Count(claims.Mismatch) > 0 {
				t.Errorf("%s: mismatches %+v", e.Loc, in.Checks)
			}
		}
	}
	for _, tc := range []struct {
		mt   string
		head string
		want bool
	}{{"text/plain", "", true}, {"application/ld+json", "{", true}, {"image/png", "abc", false}, {"", "plain words", true}, {"application/octet-stream", "a\x00b", false}, {"", "caf\xc3", true}} {
		if got := IsText(tc.mt, []byte(tc.head)); got != tc.want {
			t.Errorf("IsText(%q, %q) = %v", tc.mt, tc.head, got)
		}
	}
}

// A Resource Dump opened from a local file reads its packages from beside
// it before the network (which is not there: the URLs point at a closed
// port).
func TestPackageBesideLocalDump(t *testing.T) {
	dir := t.TempDir()
	dumpFile := filepath.Join(dir, "resourcedump.xml")
	zip := zipOf(t, manifestXML("resourcedump-manifest", ""))
	for _, tc := range []struct {
		name, at, loc string
		found         bool
	}{
		{"same folder", "part-0001.zip", "http://127.0.0.1:9/dataset1/resourcedump/part-0001.zip", true},
		{"its folder", "resourcedump/part-0002.zip", "http://127.0.0.1:9/dataset1/resourcedump/part-0002.zip", true},
		{"nothing there", "", "http://127.0.0.1:9/dataset1/resourcedump/part-0003.zip", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.at != "" {
				p := filepath.Join(dir, filepath.FromSlash(tc.at))
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, zip, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			s := NewWithGetter(noNetwork{}, Options{LocalFiles: true}) // the user opened the dump file
			l := s.OpenPackage(dump.PackageRef{URL: tc.loc, Dump: dumpFile}, dump.Options{TempDir: t.TempDir()})
			defer l.Close()
			f := l.Download(nil)
			if tc.found {
				if f.Err != nil || f.Package == nil || f.Beside != filepath.Join(dir, filepath.FromSlash(tc.at)) {
					t.Fatalf("package beside the dump: %+v", f)
				}
				return
			}
			if f.Err == nil || f.Beside != "" {
				t.Fatalf("no package beside the dump, yet %+v", f)
			}
		})
	}
	// A dump from the network never makes rsx read local files.
	if p := packageBeside(dump.PackageRef{URL: "http://e.org/part-0001.zip", Dump: "http://e.org/resourcedump.xml"}); p != "" {
		t.Errorf("a remote dump found %s", p)
	}
	if p := packageBeside(dump.PackageRef{URL: "http://e.org/a/../../part-0001.zip", Dump: dumpFile}); p != filepath.Join(dir, "part-0001.zip") {
		t.Errorf("dot segments: %q", p)
	}
}

// noNetwork fails every request.
type noNetwork struct{}

func (noNetwork) Get(_ context.Context, url string) (*fetch.Response, error) {
	return nil, fmt.Errorf("GET %s: no network in this test", url)
}

// A memento's Link header may name its TimeMap and original resource by
// relative references: they are resolved against the memento's URL.
func TestTimeGateRelativeLinks(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/gate/r", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/mementos/2026/r", http.StatusFound)
	})
	mux.HandleFunc("/mementos/2026/r", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", `</r>; rel="original", <../../timemap/r>; rel="timemap"`)
		w.Header().Set("Memento-Datetime", "Mon, 05 Jan 2026 10:30:00 GMT")
		io.WriteString(w, "then")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, err := fetch.NewClient(fetch.Options{NoCache: true, Netrc: "-"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(c, Options{}).TimeGate(context.Background(), srv.URL+"/gate/r", time.Date(2026, 1, 5, 11, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if a.Memento != srv.URL+"/mementos/2026/r" || a.Original != srv.URL+"/r" || a.TimeMap != srv.URL+"/timemap/r" {
		t.Errorf("memento %s, original %s, TimeMap %s", a.Memento, a.Original, a.TimeMap)
	}
}
