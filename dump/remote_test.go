package dump

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"rsx/fetch"
)

func testClient(t *testing.T) *fetch.Client {
	t.Helper()
	o := fetch.DefaultOptions()
	o.NoCache, o.PerHostRate, o.Retries, o.Netrc = true, 0, 0, "-"
	c, err := fetch.NewClient(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const nsAttrs = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`

// testSource serves a Resource Dump Index with two parts, each listing the
// good package; the second part lists it with a wrong md5.
func testSource(t *testing.T) *httptest.Server {
	pkg := goodPackage(t)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u := srv.URL
		switch r.URL.Path {
		case "/index.xml":
			w.Write([]byte(`<sitemapindex ` + nsAttrs + `><rs:md capability="resourcedump" at="2024-01-01T00:00:00Z"/>
<sitemap><loc>` + u + `/part1.xml</loc></sitemap><sitemap><loc>part2.xml</loc></sitemap><sitemap><loc>/part1.xml</loc></sitemap></sitemapindex>`))
		case "/part1.xml":
			w.Write([]byte(`<urlset ` + nsAttrs + `><rs:md capability="resourcedump" at="2024-01-01T00:00:00Z"/>
<url><loc>` + u + `/p.zip</loc><rs:md length="` + strconv.Itoa(len(pkg)) + `" hash="md5:` + md5hex(pkg) + `"/><rs:ln rel="contents" href="p-manifest.xml"/></url></urlset>`))
		case "/part2.xml":
			w.Write([]byte(`<urlset ` + nsAttrs + `><rs:md capability="resourcedump" at="2024-01-01T00:00:00Z"/>
<url><loc>p.zip</loc><rs:md hash="md5:00000000000000000000000000000000"/></url></urlset>`))
		case "/p.zip":
			w.Write(pkg)
		case "/p-manifest.xml":
			w.Write(manifest(entry("http://example.com/res1", "/resources/res1", []byte(res1)), entry("http://example.com/res2", "/resources/res2", []byte(res2))))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestOpenDumpIndex(t *testing.T) {
	srv := testSource(t)
	d, err := OpenDump(context.Background(), testClient(t), srv.URL+"/index.xml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Documents) != 3 || !d.Documents[0].Index || len(d.Packages) != 2 {
		t.Fatalf("%d documents, %d packages", len(d.Documents), len(d.Packages))
	}
	p := d.Packages[0]
	if p.URL != srv.URL+"/p.zip" || p.Contents != srv.URL+"/p-manifest.xml" || p.Dump != srv.URL+"/part1.xml" {
		t.Fatalf("%+v", p)
	}
	if d.Packages[1].URL != srv.URL+"/p.zip" {
		t.Fatalf("relative loc resolved to %q", d.Packages[1].URL)
	}
}

func TestFetchPackage(t *testing.T) {
	srv := testSource(t)
	c := testClient(t)
	d, err := OpenDump(context.Background(), c, srv.URL+"/index.xml", Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	p, mism, err := FetchPackage(context.Background(), c, d.Packages[0], Options{TempDir: tmp}, nil)
	if err != nil || len(mism) != 0 {
		t.Fatalf("%v %+v", err, mism)
	}
	if r, err := p.Verify(context.Background(), nil); err != nil || r.Verified != 2 {
		t.Fatalf("%+v %v", r, err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 1 {
		t.Fatalf("temp dir holds %d files", len(ents))
	}
	p.Close()
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Fatalf("temp file not removed")
	}
	// A package that differs from its dump entry is refused whole, although
	// it agrees with its own manifest: not opened, its file removed.
	p, mism, err = FetchPackage(context.Background(), c, d.Packages[1], Options{TempDir: tmp}, nil)
	if !errors.Is(err, ErrEntryMismatch) || p != nil || len(mism) != 1 || mism[0].What != "md5" || mism[0].Loc != srv.URL+"/p.zip" {
		t.Fatalf("%v %v %+v", p, err, mism)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Fatalf("a refused package left its file behind")
	}
	// Too large: refused before or while downloading, naming the option
	// that raises the limit; nothing left behind.
	var tl *PackageTooLargeError
	_, _, err = FetchPackage(context.Background(), c, d.Packages[0], Options{TempDir: tmp, MaxPackageBytes: 100}, nil)
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "--max-package-bytes") {
		t.Fatalf("err %v", err)
	}
	_, _, err = FetchPackage(context.Background(), c, PackageRef{URL: srv.URL + "/p.zip"}, Options{TempDir: tmp, MaxPackageBytes: 100}, nil)
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "--max-package-bytes") || strings.Contains(err.Error(), "--max-bytes") {
		t.Fatalf("past MaxPackageBytes: %v", err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Fatalf("temp file left behind")
	}
}

func TestRunDumpIndex(t *testing.T) {
	srv := testSource(t)
	var seen int
	rep, err := Run(context.Background(), testClient(t), srv.URL+"/index.xml", Job{Verify: true, OnPackage: func(*PackageReport) { seen++ }}, Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Packages) != 2 || seen != 2 || rep.Failed() || rep.OK() {
		t.Fatalf("%d packages, seen %d, failed %v, ok %v", len(rep.Packages), seen, rep.Failed(), rep.OK())
	}
	a, b := rep.Packages[0], rep.Packages[1]
	if !a.OK() || a.Result.Verified != 2 || len(a.ContentsDiff) != 0 {
		t.Errorf("first: %+v %+v", a, a.Result)
	}
	if b.OK() || len(b.Mismatched) != 1 {
		t.Errorf("second: %+v", b)
	}
}

func TestRunNotADump(t *testing.T) {
	srv := testSource(t)
	if _, err := Run(context.Background(), testClient(t), srv.URL+"/p-manifest.xml", Job{}, Options{}); err == nil || !strings.Contains(err.Error(), "not a dump") {
		t.Fatalf("err %v", err)
	}
	if _, err := Run(context.Background(), testClient(t), srv.URL+"/absent.xml", Job{}, Options{}); err == nil {
		t.Fatal("no error for a 404")
	}
}
