package engine

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// zipOf builds a package: manifest.xml, then the members given.
func zipOf(t *testing.T, manifest string, members map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("manifest.xml")
	w.Write([]byte(manifest))
	names := make([]string, 0, len(members))
	for n := range members {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(members[n])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// manifestOf is a Resource Dump Manifest; each entry is loc path, body path
// in the package, and the body its md5 and length are of.
func manifestOf(base string, entries ...[3]string) string {
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(urlsetOpen, "{{base}}", base) + `<rs:md capability="resourcedump-manifest" at="2030-01-01T10:00:00Z"/>` + "\n")
	for _, e := range entries {
		fmt.Fprintf(&b, "<url><loc>%s%s</loc><rs:md hash=\"md5:%s\" length=\"%d\" path=%q/></url>\n", base, e[0], md5hex([]byte(e[2])), len(e[2]), e[1])
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

// A baseline from a Resource Dump: good bitstreams are written; a tampered
// one, a refused path and a missing one are reported and not written; a
// package that differs from its dump entry is refused whole; no request is
// made for any resource.
func TestBaselineFromADumpWithBadPackages(t *testing.T) {
	f := newFakeSource(t)
	base := f.srv.URL
	f.setDoc("/cap.xml", capList(map[string]string{"resourcedump": "/rd.xml"}))
	good := zipOf(t, manifestOf(base,
		[3]string{"/r/a", "/res/a", "a\n"},
		[3]string{"/r/b", "/res/b", "b\n"}),
		map[string][]byte{"res/a": []byte("a\n"), "res/b": []byte("b\n")})
	bad := zipOf(t, manifestOf(base,
		[3]string{"/r/c", "/res/c", "c\n"},
		[3]string{"/r/d", "/res/d", "d as declared\n"},
		[3]string{"/r/e", "/../../etc/e", "e\n"},
		[3]string{"/r/g", "/res/missing", "g\n"}),
		map[string][]byte{"res/c": []byte("c\n"), "res/d": []byte("d, tampered\n"), "etc/e": []byte("e\n")})
	third := zipOf(t, manifestOf(base, [3]string{"/r/h", "/res/h", "h\n"}), map[string][]byte{"res/h": []byte("h\n")})
	f.setRes("/p1.zip", good)
	f.setRes("/p2.zip", bad)
	f.setRes("/p3.zip", append(third, 0)) // one byte more than the entry declares
	entry := func(p string, z []byte) string {
		return fmt.Sprintf("<url><loc>{{base}}%s</loc><rs:md hash=\"md5:%s\" length=\"%d\" type=\"application/zip\"/></url>\n", p, md5hex(z), len(z))
	}
	f.setDoc("/rd.xml", urlsetOpen+`<rs:md capability="resourcedump" at="2030-01-01T10:00:00Z"/>`+"\n"+
		entry("/p1.zip", good)+entry("/p2.zip", bad)+entry("/p3.zip", third)+"</urlset>\n")

	dir := t.TempDir()
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if res.Plan.From != FromDump || res.OK() || res.Finished {
		t.Fatalf("from %s, ok %v, finished %v", res.Plan.From, res.OK(), res.Finished)
	}
	if res.Created != 3 || f.resourceHits() != 0 {
		t.Errorf("created %d (want a, b, c), %d resource requests", res.Created, f.resourceHits())
	}
	kinds := map[string]FailureKind{}
	for _, fl := range res.Failed {
		kinds[strings.TrimPrefix(fl.URL, base)] = fl.Kind
	}
	want := map[string]FailureKind{"/r/d": KindVerify, "/r/e": KindBitstream, "/r/g": KindBitstream}
	for u, k := range want {
		if kinds[u] != k {
			t.Errorf("%s: %q, want %q (all: %v)", u, kinds[u], k, kinds)
		}
	}
	if len(res.Plan.Problems) != 1 || res.Plan.Problems[0].Kind != KindPackage || !strings.HasSuffix(res.Plan.Problems[0].URL, "/p3.zip") {
		t.Errorf("problems %+v", res.Plan.Problems)
	}
	got := files(t, dir)
	h := f.hostDir()
	if !slices.Equal(got, []string{h + "/r/a", h + "/r/b", h + "/r/c"}) {
		t.Errorf("files %q", got)
	}
	if rej, err := os.ReadFile(filepath.Join(dir, ".rsx", "rejected", filepath.FromSlash(h), "r", "d")); err != nil || string(rej) != "d, tampered\n" {
		t.Errorf("rejected bitstream: %q %v", rej, err)
	}
	for _, p := range []string{"etc/e", "../etc/e"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s written", p)
		}
	}
}
