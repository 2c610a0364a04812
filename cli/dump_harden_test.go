package cli

import (
	"archive/zip"
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func md5Of(b []byte) string { s := md5.Sum(b); return hex.EncodeToString(s[:]) }

// zipOf builds a package: name → content, in the order given.
func zipOf(t *testing.T, members ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		w, err := zw.Create(m[0])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(m[1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// dumpSite serves a Resource Dump per path in dumps ({{base}} is the server
// URL, {{len}} and {{md5}} the length and md5 of the package p.zip) and the
// packages.
func dumpSite(t *testing.T, dumps map[string]string, packages map[string][]byte) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := packages[r.URL.Path]; ok {
			w.Write(p)
			return
		}
		d, ok := dumps[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		p := packages["/p.zip"]
		d = strings.NewReplacer("{{base}}", srv.URL, "{{len}}", strconv.Itoa(len(p)), "{{md5}}", md5Of(p)).Replace(d)
		w.Write([]byte(d))
	}))
	t.Cleanup(srv.Close)
	return srv
}

const dumpHead = rsOpen + `<rs:md capability="resourcedump" at="2024-01-01T00:00:00Z"/><rs:ln rel="up" href="{{base}}/cl.xml"/>`

// TestDumpRefusesPackageThatFailsItsEntry: a package whose length or hash
// is not what its dump entry declares is refused whole, even though it
// agrees with its own manifest: nothing is extracted, it is reported, and
// the exit status is 1.
func TestDumpRefusesPackageThatFailsItsEntry(t *testing.T) {
	content := "the Source's wrong content\n"
	pkg := zipOf(t, [2]string{"manifest.xml", rsOpen + `<rs:md capability="resourcedump-manifest" at="2024-01-01T00:00:00Z"/>` +
		`<url><loc>http://example.com/r</loc><rs:md hash="md5:` + md5Of([]byte(content)) + `" path="/r"/></url>` + rsClose},
		[2]string{"r", content})
	srv := dumpSite(t, map[string]string{
		"/length.xml": dumpHead + `<url><loc>{{base}}/p.zip</loc><rs:md type="application/zip" length="12345"/></url>` + rsClose,
		"/hash.xml":   dumpHead + `<url><loc>{{base}}/p.zip</loc><rs:md type="application/zip" length="{{len}}" hash="md5:0123456789abcdef0123456789abcdef"/></url>` + rsClose,
		"/good.xml":   dumpHead + `<url><loc>{{base}}/p.zip</loc><rs:md type="application/zip" length="{{len}}" hash="md5:{{md5}}"/></url>` + rsClose,
	}, map[string][]byte{"/p.zip": pkg})

	for _, name := range []string{"length", "hash"} {
		t.Run(name, func(t *testing.T) {
			dest := t.TempDir()
			good := filepath.Join(dest, "r")
			os.WriteFile(good, []byte("good local copy\n"), 0o644)
			code, out, errs := runCmd(t, "dump", "--extract", dest, srv.URL+"/"+name+".xml")
			if code != exitFound {
				t.Errorf("exit %d, want 1\n%s%s", code, out, errs)
			}
			if b, _ := os.ReadFile(good); string(b) != "good local copy\n" {
				t.Errorf("the refused package overwrote a local file: %q", b)
			}
			for _, want := range []string{"refused", "1 refused", "→"} {
				if want == "→" {
					if strings.Contains(out, "→ extracted") {
						t.Errorf("a refused package reports an extraction:\n%s", out)
					}
					continue
				}
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			code, out, _ = runCmd(t, "dump", "--json", "--extract", dest, srv.URL+"/"+name+".xml")
			v := decodeDumpJSON(t, out)
			if code != exitFound || *v.OK || len(v.Packages) != 1 || v.Packages[0].Error == nil || *v.Packages[0].Verified != 0 || v.Packages[0].Extracted != 0 {
				t.Errorf("exit %d\n%s", code, out)
			}
		})
	}
	dest := t.TempDir()
	if code, out, errs := runCmd(t, "dump", "--extract", dest, srv.URL+"/good.xml"); code != exitOK {
		t.Fatalf("the matching package: exit %d\n%s%s", code, out, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "r")); string(b) != content {
		t.Fatalf("the matching package was not extracted: %q", b)
	}
}

// TestDumpMessages: a too-large package names --max-package-bytes; the
// bytes of an extraction count only the files written; a bitstream whose
// entry declares neither hash nor length is unverifiable, not verified.
func TestDumpMessages(t *testing.T) {
	a, r, u := "alpha\n", "tampered\n", "no claims\n"
	pkg := zipOf(t, [2]string{"manifest.xml", rsOpen + `<rs:md capability="resourcedump-manifest" at="2024-01-01T00:00:00Z"/>` +
		`<url><loc>http://example.com/a</loc><rs:md hash="md5:` + md5Of([]byte(a)) + `" length="6" path="/a"/></url>` +
		`<url><loc>http://example.com/r</loc><rs:md hash="md5:0123456789abcdef0123456789abcdef" path="/r"/></url>` +
		`<url><loc>http://example.com/u</loc><rs:md path="/u"/></url>` + rsClose},
		[2]string{"a", a}, [2]string{"r", r}, [2]string{"u", u})
	srv := dumpSite(t, map[string]string{
		"/dump.xml": dumpHead + `<url><loc>{{base}}/p.zip</loc><rs:md type="application/zip"/></url>` + rsClose,
	}, map[string][]byte{"/p.zip": pkg})

	code, out, errs := runCmd(t, "dump", "--max-package-bytes", "100B", srv.URL+"/dump.xml")
	if code != exitFailure || !strings.Contains(out+errs, "--max-package-bytes") || strings.Contains(out+errs, "--max-bytes") {
		t.Errorf("too large: exit %d\n%s%s", code, out, errs)
	}

	dest := t.TempDir()
	code, out, _ = runCmd(t, "dump", "--extract", dest, srv.URL+"/dump.xml")
	want := "→ extracted 2 files (" + strconv.Itoa(len(a)+len(u)) + " B)"
	if code != exitFound || !strings.Contains(out, want) || !strings.Contains(out, "✓ 1 verified") || !strings.Contains(out, "? unverifiable /u") {
		t.Errorf("exit %d, want %q, 1 verified and /u unverifiable:\n%s", code, want, out)
	}
	code, out, _ = runCmd(t, "dump", "--json", "--verify", srv.URL+"/dump.xml")
	v := decodeOneJSON[struct {
		Packages []struct {
			Verified     int `json:"verified"`
			Unverifiable []struct {
				Path string `json:"path"`
			} `json:"unverifiable"`
		} `json:"packages"`
	}](t, out, "dump")
	if code != exitFound || len(v.Packages) != 1 || v.Packages[0].Verified != 1 || len(v.Packages[0].Unverifiable) != 1 || v.Packages[0].Unverifiable[0].Path != "/u" {
		t.Errorf("exit %d\n%s", code, out)
	}
}
