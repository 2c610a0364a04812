package dump

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestFolderResolve: a local dump's locations resolve under its folder,
// relative to the document that writes them; absolute ones, and those
// ".." leads out of the folder, are refused.
func TestFolderResolve(t *testing.T) {
	dir := t.TempDir()
	f, err := openFolder(filepath.Join(dir, "dump.xml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	top, part := filepath.Join(dir, "dump.xml"), filepath.Join(dir, "parts", "part1.xml")
	for _, tc := range []struct {
		base, loc string
		want      string // under dir, slash-separated; "" when refused
		reason    string // in the refusal
	}{
		{top, "p.zip", "p.zip", ""},
		{top, "  sub/p.zip ", "sub/p.zip", ""},
		{top, "./sub/../p.zip", "p.zip", ""},
		{top, "sub/p%20one.zip", "sub/p one.zip", ""},
		{top, "p.zip?x=1#frag", "p.zip", ""},
		{part, "p.zip", "parts/p.zip", ""},
		{part, "../p.zip", "p.zip", ""}, // out of the part's folder, still in the dump's
		{top, "http://example.org/p.zip", "http://example.org/p.zip", ""},
		{top, "HTTPS://example.org/p.zip", "HTTPS://example.org/p.zip", ""},
		{top, "../p.zip", "", `".." leads out of the folder`},
		{top, "sub/../../p.zip", "", `".." leads out of the folder`},
		{part, "../../p.zip", "", `".." leads out of the folder`},
		{top, "..", "", `".." leads out of the folder`},
		{top, "/etc/passwd", "", "an absolute path"},
		{top, "file:///etc/passwd", "", "a file URL is an absolute path"},
		{top, "FILE:p.zip", "", "a file URL is an absolute path"},
		{top, "//host/share/p.zip", "", "an absolute path"},
		{top, `C:\Windows\p.zip`, "", "neither a relative path nor an http(s) URL"},
		{top, "ftp://example.org/p.zip", "", "neither a relative path nor an http(s) URL"},
		{top, `sub\..\..\p.zip`, "", "a backslash"},
		{top, ".", "", "names no file"},
		{top, "", "", "names no file"},
		{top, "%zz", "", "not a URI reference"},
	} {
		got, err := f.resolve(tc.base, tc.loc)
		if tc.reason == "" {
			want := tc.want
			if !strings.HasPrefix(strings.ToLower(want), "http") {
				want = filepath.Join(dir, filepath.FromSlash(want))
			}
			if err != nil || got != want {
				t.Errorf("resolve(%q, %q) = %q, %v; want %q", tc.base, tc.loc, got, err, want)
			}
			continue
		}
		var le *LocationError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.reason) || le.Dir != dir || got != "" {
			t.Errorf("resolve(%q, %q) = %q, %v; want a refusal: %s", tc.base, tc.loc, got, err, tc.reason)
		}
	}
}

// localDump writes a Resource Dump into dir listing locs, each with the
// length and md5 of pkg.
func localDump(t *testing.T, dir, name string, pkg []byte, locs ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`<urlset ` + nsAttrs + `><rs:md capability="resourcedump" at="2024-01-01T00:00:00Z"/>`)
	for _, l := range locs {
		b.WriteString(`<url><loc>` + l + `</loc><rs:md length="` + strconv.Itoa(len(pkg)) + `" hash="md5:` + md5hex(pkg) + `"/></url>`)
	}
	b.WriteString(`</urlset>`)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunLocalDump: the packages of a dump read from a file are read from
// its folder and verified as downloaded ones are, a package named by a URL
// from its copy beside the dump; a location out of the folder is refused
// (absolute, "..", a symbolic link out of it) and nothing of it is read,
// and a device or a pipe is refused without blocking.
func TestRunLocalDump(t *testing.T) {
	pkg := goodPackage(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "p.zip"), pkg, 0o644)
	dir := filepath.Join(t.TempDir(), "dump")
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.MkdirAll(filepath.Join(dir, "resourcedump"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "p.zip"), pkg, 0o644)
	os.WriteFile(filepath.Join(dir, "resourcedump", "part-1.zip"), pkg, 0o644)
	os.WriteFile(filepath.Join(dir, "bad.zip"), append([]byte(nil), pkg[:len(pkg)-1]...), 0o644)
	if err := os.Symlink(filepath.Join(outside, "p.zip"), filepath.Join(dir, "link.zip")); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.zip")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	rel, _ := filepath.Rel(dir, outside)
	for _, tc := range []struct {
		loc     string
		ok      bool
		beside  string // the file read instead of the URL
		refused string // a *LocationError saying this
		err     string // another error saying this
	}{
		{loc: "sub/p.zip", ok: true},
		{loc: "http://127.0.0.1:1/any/where/resourcedump/part-1.zip", ok: true, beside: filepath.Join(dir, "resourcedump", "part-1.zip")},
		{loc: "http://127.0.0.1:1/data/sub/p.zip", ok: true, beside: filepath.Join(dir, "sub", "p.zip")},
		{loc: "http://127.0.0.1:1/data/link.zip", err: "connection refused"}, // a link out of the folder is no copy beside: the URL is fetched
		{loc: "../" + filepath.ToSlash(rel) + "/p.zip", refused: `".." leads out of the folder`},
		{loc: filepath.ToSlash(filepath.Join(outside, "p.zip")), refused: "an absolute path"},
		{loc: "file://" + filepath.ToSlash(filepath.Join(outside, "p.zip")), refused: "a file URL"},
		{loc: "link.zip", err: "escapes"},
		{loc: "fifo.zip", err: "not a regular file"},
		{loc: "absent.zip", err: "no such file"},
		{loc: "bad.zip", err: "its dump entry declares"},
	} {
		t.Run(tc.loc, func(t *testing.T) {
			p := localDump(t, dir, "dump.xml", pkg, tc.loc)
			ctx, cancel := context.WithTimeout(context.Background(), 10e9)
			defer cancel()
			rep, err := Run(ctx, testClient(t), p, Job{Verify: true}, Options{TempDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Packages) != 1 {
				t.Fatalf("%d packages", len(rep.Packages))
			}
			pr := rep.Packages[0]
			switch {
			case tc.ok:
				if !pr.OK() || pr.Result.Verified != 2 || pr.Beside != tc.beside {
					t.Errorf("not verified: err %v, beside %q, result %+v", pr.Err, pr.Beside, pr.Result)
				}
			case tc.refused != "":
				if !pr.LocationRefused() || !strings.Contains(pr.Err.Error(), tc.refused) || pr.Header != nil || rep.Failed() || rep.OK() {
					t.Errorf("want a refusal (%s), got err %v, header %v, failed %v", tc.refused, pr.Err, pr.Header, rep.Failed())
				}
			default:
				if pr.Err == nil || !strings.Contains(pr.Err.Error(), tc.err) || pr.LocationRefused() || pr.Header != nil {
					t.Errorf("want an error (%s), got %v", tc.err, pr.Err)
				}
			}
		})
	}
}

// TestRunLocalDumpIndex: an index read from a file reads its parts and
// their packages and manifest copies relative to each part, within the
// index's folder; a part or a contents link out of it is refused.
func TestRunLocalDumpIndex(t *testing.T) {
	pkg := goodPackage(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "parts", "zips"), 0o755)
	os.WriteFile(filepath.Join(dir, "parts", "zips", "p.zip"), pkg, 0o644)
	os.WriteFile(filepath.Join(dir, "p-manifest.xml"), manifest(entry("http://example.com/res1", "/resources/res1", []byte(res1)), entry("http://example.com/res2", "/resources/res2", []byte(res2))), 0o644)
	part := `<urlset ` + nsAttrs + `><rs:md capability="resourcedump" at="2024-01-01T00:00:00Z"/>
<url><loc>zips/p.zip</loc><rs:md length="` + strconv.Itoa(len(pkg)) + `" hash="md5:` + md5hex(pkg) + `"/><rs:ln rel="contents" href="%s"/></url></urlset>`
	os.WriteFile(filepath.Join(dir, "parts", "part1.xml"), []byte(strings.Replace(part, "%s", "../p-manifest.xml", 1)), 0o644)
	os.WriteFile(filepath.Join(dir, "parts", "part2.xml"), []byte(strings.Replace(part, "%s", "/etc/passwd", 1)), 0o644)
	index := func(parts ...string) string {
		s := `<sitemapindex ` + nsAttrs + `><rs:md capability="resourcedump" at="2024-01-01T00:00:00Z"/>`
		for _, p := range parts {
			s += `<sitemap><loc>` + p + `</loc></sitemap>`
		}
		p := filepath.Join(dir, "index.xml")
		os.WriteFile(p, []byte(s+`</sitemapindex>`), 0o644)
		return p
	}
	rep, err := Run(context.Background(), testClient(t), index("parts/part1.xml", "parts/part2.xml"), Job{Verify: true}, Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Packages) != 2 || len(rep.Dump.Documents) != 3 {
		t.Fatalf("%d packages, %d documents", len(rep.Packages), len(rep.Dump.Documents))
	}
	a, b := rep.Packages[0], rep.Packages[1]
	if !a.OK() || a.Result.Verified != 2 || a.URL != filepath.Join(dir, "parts", "zips", "p.zip") || a.Contents != filepath.Join(dir, "p-manifest.xml") {
		t.Errorf("first part's package: %+v", a)
	}
	var le *LocationError
	if b.Result == nil || b.Result.Verified != 2 || !errors.As(b.ContentsErr, &le) || b.OK() {
		t.Errorf("second part's package: contents error %v, result %+v", b.ContentsErr, b.Result)
	}

	_, err = Run(context.Background(), testClient(t), index("parts/part1.xml", "../elsewhere/part.xml"), Job{}, Options{TempDir: t.TempDir()})
	if !errors.As(err, &le) || !strings.Contains(err.Error(), `".." leads out of the folder`) {
		t.Errorf("a part out of the folder: %v", err)
	}
}

// Beside finds a package saved beside a local dump, and never one that a
// symbolic link leads out of the dump's folder to.
func TestBeside(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "part-0002.zip"), []byte("PK"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dumpFile := filepath.Join(dir, "resourcedump.xml")
	if err := os.MkdirAll(filepath.Join(dir, "resourcedump"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "resourcedump", "part-0001.zip"), []byte("PK"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "part-0002.zip"), filepath.Join(dir, "part-0002.zip")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	for _, c := range []struct{ pkg, want string }{
		{"http://e.org/rs/resourcedump/part-0001.zip", filepath.Join(dir, "resourcedump", "part-0001.zip")},
		{"http://e.org/a/../../resourcedump/part-0001.zip", filepath.Join(dir, "resourcedump", "part-0001.zip")},
		{"http://e.org/part-0002.zip", ""},
		{"http://e.org/part-0003.zip", ""},
	} {
		if got := Beside(dumpFile, c.pkg); got != c.want {
			t.Errorf("Beside(%s) = %q, want %q", c.pkg, got, c.want)
		}
	}
}
