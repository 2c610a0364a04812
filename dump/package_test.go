package dump

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"rsx/model"
)

// realWorldPackage is a Resource Dump package a real implementation wrote
// (resync-client, the Ruby client; MIT, see the README beside it).
const realWorldPackage = "../testdata/conformance/real-world/resync-client-ruby/resourcedump/bitstream-package.zip"

func TestRealWorldPackage(t *testing.T) {
	p, err := OpenFile(realWorldPackage, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Capability() != model.CapResourceDumpManifest || len(p.Members) != 3 || len(p.Manifest.Entries) != 2 {
		t.Fatalf("capability %q, %d members, %d entries", p.Capability(), len(p.Members), len(p.Manifest.Entries))
	}
	// resync-client-ruby's manifest declares hex md5 digests (not base64).
	for _, e := range p.Manifest.Entries {
		if h, ok := e.MD.Hash.Get("md5"); !ok || h.Encoding != model.HashHex {
			t.Errorf("%s: md5 %+v", e.Loc, h)
		}
	}
	r, err := p.Verify(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Verified != 2 || !r.OK() || len(r.Unlisted) != 0 {
		t.Fatalf("result %+v", r)
	}
	dir := t.TempDir()
	r, err = p.Extract(context.Background(), dir, nil)
	if err != nil || r.Extracted != 2 || !r.OK() {
		t.Fatalf("extract: %+v %v", r, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "resources", "res1"))
	if err != nil || len(b) != 446 {
		t.Fatalf("res1: %d bytes, %v", len(b), err)
	}
}

func TestVerify(t *testing.T) {
	d1, d2 := []byte(res1), []byte(res2)
	e1 := entry("http://example.com/res1", "/resources/res1", d1)
	e2 := entry("http://example.com/res2", "/resources/res2", d2)
	tests := []struct {
		name     string
		zip      []zm
		verified int
		check    func(t *testing.T, r *Result)
	}{
		{"good", []zm{{name: ManifestName, data: manifest(e1, e2)}, {name: "resources/res1", data: d1, method: zip.Deflate}, {name: "resources/res2", data: d2}}, 2,
			func(t *testing.T, r *Result) {
				if !r.OK() || len(r.Unlisted) != 0 {
					t.Errorf("%+v", r)
				}
			}},
		{"wrong hash", []zm{{name: ManifestName, data: manifest(e1, e2)}, {name: "resources/res1", data: []byte("first resourcE\n")}, {name: "resources/res2", data: d2}}, 1,
			func(t *testing.T, r *Result) {
				if len(r.Mismatched) != 2 || r.Mismatched[0].What != "md5" || r.Mismatched[1].What != "sha-256" ||
					r.Mismatched[0].Expected != md5hex(d1) || r.Mismatched[0].Actual != md5hex([]byte("first resourcE\n")) ||
					r.Mismatched[0].Path != "/resources/res1" || r.Mismatched[0].Loc != "http://example.com/res1" {
					t.Errorf("%+v", r.Mismatched)
				}
			}},
		{"wrong length", []zm{{name: ManifestName, data: manifest(strings.Replace(e1, `length="15"`, `length="16"`, 1), e2)}, {name: "resources/res1", data: d1}, {name: "resources/res2", data: d2}}, 1,
			func(t *testing.T, r *Result) {
				if len(r.Mismatched) != 1 || r.Mismatched[0].What != "length" || r.Mismatched[0].Expected != "16" || r.Mismatched[0].Actual != "15" {
					t.Errorf("%+v", r.Mismatched)
				}
			}},
		{"missing member", []zm{{name: ManifestName, data: manifest(e1, e2)}, {name: "resources/res1", data: d1}}, 1,
			func(t *testing.T, r *Result) {
				if !slices.Equal(r.Missing, []string{"/resources/res2"}) || r.OK() {
					t.Errorf("%+v", r)
				}
			}},
		{"unlisted member", []zm{{name: ManifestName, data: manifest(e1)}, {name: "resources/res1", data: d1}, {name: "resources/extra", data: d2}, {name: "resources/", mode: fs.ModeDir | 0o755}}, 1,
			func(t *testing.T, r *Result) {
				if !slices.Equal(r.Unlisted, []string{"resources/extra"}) || !r.OK() {
					t.Errorf("%+v", r)
				}
			}},
		{"traversal path and member", []zm{{name: ManifestName, data: manifest(e1, entry("http://example.com/p", "/../../etc/passwd", d2))}, {name: "resources/res1", data: d1}, {name: "../../etc/passwd", data: d2}}, 1,
			func(t *testing.T, r *Result) {
				if len(r.Refused) != 2 || r.Refused[0].Path != "/../../etc/passwd" || !strings.Contains(r.Refused[0].Reason, `".."`) ||
					r.Refused[1].Path != "../../etc/passwd" || !slices.Equal(r.Unlisted, []string{"../../etc/passwd"}) {
					t.Errorf("%+v", r)
				}
			}},
		{"absolute path", []zm{{name: ManifestName, data: manifest(entry("http://example.com/p", "//etc/passwd", d1))}, {name: "/etc/passwd", data: d1}}, 0,
			func(t *testing.T, r *Result) {
				if len(r.Refused) != 2 || !strings.Contains(r.Refused[0].Reason, "absolute") || !strings.Contains(r.Refused[1].Reason, "absolute") {
					t.Errorf("%+v", r.Refused)
				}
			}},
		{"backslash path", []zm{{name: ManifestName, data: manifest(entry("http://example.com/p", `/..\..\evil`, d1))}, {name: `..\..\evil`, data: d1}}, 0,
			func(t *testing.T, r *Result) {
				if len(r.Refused) != 2 || !strings.Contains(r.Refused[0].Reason, "backslash") {
					t.Errorf("%+v", r.Refused)
				}
			}},
		{"drive letter", []zm{{name: ManifestName, data: manifest(entry("http://example.com/p", `/C:/Windows/evil`, d1))}}, 0,
			func(t *testing.T, r *Result) {
				if len(r.Refused) != 1 || !strings.Contains(r.Refused[0].Reason, "drive") {
					t.Errorf("%+v", r.Refused)
				}
			}},
		{"symlink member", []zm{{name: ManifestName, data: manifest(entry("http://example.com/l", "/link", []byte("/etc/passwd")))}, {name: "link", data: []byte("/etc/passwd"), mode: fs.ModeSymlink | 0o777}}, 0,
			func(t *testing.T, r *Result) {
				if len(r.Refused) != 1 || !strings.Contains(r.Refused[0].Reason, "symbolic link") {
					t.Errorf("%+v", r.Refused)
				}
			}},
		{"device member", []zm{{name: ManifestName, data: manifest(entry("http://example.com/d", "/dev", d1))}, {name: "dev", data: d1, mode: fs.ModeDevice | 0o644}}, 0,
			func(t *testing.T, r *Result) {
				if len(r.Refused) != 1 || !strings.Contains(r.Refused[0].Reason, "device") {
					t.Errorf("%+v", r.Refused)
				}
			}},
		{"duplicate member names", []zm{{name: ManifestName, data: manifest(e1)}, {name: "resources/res1", data: d1}, {name: "resources/res1", data: d2}}, 0,
			func(t *testing.T, r *Result) {
				if len(r.Refused) != 1 || !strings.Contains(r.Refused[0].Reason, "ambiguous") {
					t.Errorf("%+v", r.Refused)
				}
			}},
		{"base64 md5", []zm{{name: ManifestName, data: manifest(`<url><loc>http://example.com/res1</loc><rs:md hash="md5:` + base64md5(d1) + `" path="/resources/res1"/></url>`)}, {name: "resources/res1", data: d1}}, 1,
			func(t *testing.T, r *Result) {
				if !r.OK() {
					t.Errorf("%+v", r)
				}
			}},
		{"no path", []zm{{name: ManifestName, data: manifest(`<url><loc>http://example.com/x</loc><rs:md length="3"/></url>`)}}, 0,
			func(t *testing.T, r *Result) {
				if len(r.Refused) != 1 || r.Refused[0].Loc != "http://example.com/x" {
					t.Errorf("%+v", r.Refused)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := openBytes(t, buildZip(t, tt.zip...), Options{})
			r, err := p.Verify(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.Verified != tt.verified {
				t.Errorf("verified %d, want %d: %+v", r.Verified, tt.verified, r)
			}
			tt.check(t, r)
		})
	}
}

func base64md5(b []byte) string {
	s := md5.Sum(b)
	return base64.StdEncoding.EncodeToString(s[:])
}

func TestOpenPackageErrors(t *testing.T) {
	tests := []struct {
		name string
		zip  []byte
		want string
	}{
		{"not a zip", []byte("<urlset/>"), "not a readable ZIP"},
		{"manifest missing", buildZip(t, zm{name: "resources/res1", data: []byte(res1)}), "no manifest.xml"},
		{"manifest not at top level", buildZip(t, zm{name: "pkg/manifest.xml", data: manifest()}), "not at the top level"},
		{"manifest twice", buildZip(t, zm{name: ManifestName, data: manifest()}, zm{name: ManifestName, data: manifest()}), "2 members"},
		{"not a manifest", buildZip(t, zm{name: ManifestName, data: []byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:md capability="resourcelist"/></urlset>`)}), "resourcelist"},
		{"manifest not XML", buildZip(t, zm{name: ManifestName, data: []byte("hello")}), "manifest.xml"},
		{"manifest a symlink", buildZip(t, zm{name: ManifestName, data: []byte("/etc/passwd"), mode: fs.ModeSymlink | 0o777}), "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := OpenPackage(bytes.NewReader(tt.zip), int64(len(tt.zip)), Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
	z := buildZip(t, zm{name: "resources/res1", data: []byte(res1)})
	if _, err := OpenPackage(bytes.NewReader(z), int64(len(z)), Options{}); !errors.Is(err, ErrNoManifest) {
		t.Errorf("error %v is not ErrNoManifest", err)
	}
}

func TestChangeDumpManifestDeleted(t *testing.T) {
	d1 := []byte(res1)
	cd := changeManifest(
		`<url><loc>http://example.com/res1</loc><rs:md change="created" datetime="2024-01-01T01:00:00Z" hash="md5:`+md5hex(d1)+`" length="15" path="/changes/res1.v1"/></url>`,
		`<url><loc>http://example.com/res5</loc><rs:md change="deleted" datetime="2024-01-01T02:00:00Z"/></url>`,
		`<url><loc>http://example.com/res6</loc><rs:md change="deleted" datetime="2024-01-01T02:00:00Z" path="/changes/res6.v3"/></url>`,
		`<url><loc>http://example.com/res4</loc><rs:md change="updated" path="/changes/res4.v2"/>`+
			`<rs:ln rel="http://www.openarchives.org/rs/terms/patch" href="http://example.com/res4-patch" type="application/json-patch" path="/patches/res4.v2" hash="md5:`+md5hex([]byte("[]"))+`"/></url>`,
	)
	p := openBytes(t, buildZip(t, zm{name: ManifestName, data: cd}, zm{name: "changes/res1.v1", data: d1}, zm{name: "changes/res4.v2", data: []byte("{}")}, zm{name: "patches/res4.v2", data: []byte("[]")}), Options{})
	if p.Capability() != model.CapChangeDumpManifest {
		t.Fatal(p.Capability())
	}
	r, err := p.Verify(context.Background(), nil)
	// /changes/res4.v2 declares neither hash nor length: read, but not verified.
	if err != nil || !r.OK() || r.Verified != 2 || !slices.Equal(r.Unverifiable, []string{"/changes/res4.v2"}) || len(r.Unlisted) != 0 || !slices.Equal(r.Deleted, []string{"http://example.com/res5", "http://example.com/res6"}) {
		t.Fatalf("%+v %v", r, err)
	}
}

// rawMember is a deflated member whose header declares size bytes uncompressed.
func rawMember(t *testing.T, name string, data []byte, size uint64) zm {
	var comp bytes.Buffer
	zw := zip.NewWriter(&comp)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "x", Method: zip.Deflate})
	w.Write(data)
	zw.Close()
	zr, err := zip.NewReader(bytes.NewReader(comp.Bytes()), int64(comp.Len()))
	if err != nil {
		t.Fatal(err)
	}
	f := zr.File[0]
	off, _ := f.DataOffset()
	raw := comp.Bytes()[off : off+int64(f.CompressedSize64)]
	h := &zip.FileHeader{Name: name, Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(data), CompressedSize64: uint64(len(raw)), UncompressedSize64: size}
	return zm{raw: h, data: raw}
}

func TestZipBombs(t *testing.T) {
	zeros := make([]byte, 8<<20) // deflates to about 8 KB
	tests := []struct {
		name string
		m    zm
		want string
	}{
		{"huge declared size", rawMember(t, "bomb", zeros, 1<<40), "beyond the limit"},
		{"high ratio", rawMember(t, "bomb", zeros, 4<<30-1), "compression ratio"},
		{"more than declared", rawMember(t, "bomb", zeros, 1000), "declared size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z := buildZip(t, zm{name: ManifestName, data: manifest(`<url><loc>http://example.com/b</loc><rs:md path="/bomb"/></url>`)}, tt.m)
			p := openBytes(t, z, Options{})
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			dir := t.TempDir()
			r, err := p.Extract(context.Background(), dir, nil)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Refused) != 1 || !strings.Contains(r.Refused[0].Reason, tt.want) || r.Extracted != 0 {
				t.Fatalf("%+v", r)
			}
			if r.Bytes > 1<<20 {
				t.Errorf("read %d bytes of the bomb", r.Bytes)
			}
			if a := after.TotalAlloc - before.TotalAlloc; a > 8<<20 {
				t.Errorf("allocated %d bytes", a)
			}
			assertEmptyDir(t, dir)
		})
	}
}

func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %v", dir, names)
	}
}

func TestTooManyMembers(t *testing.T) {
	p := openBytes(t, goodPackage(t), Options{MaxMembers: 2})
	dir := t.TempDir()
	r, err := p.Extract(context.Background(), dir, nil)
	if err != nil || len(r.Refused) != 1 || !strings.Contains(r.Refused[0].Reason, "limit") || r.Extracted != 0 {
		t.Fatalf("%+v %v", r, err)
	}
	assertEmptyDir(t, dir)
}

func TestVerifyCancel(t *testing.T) {
	p := openBytes(t, goodPackage(t), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Verify(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
}

func TestVerifyProgress(t *testing.T) {
	p := openBytes(t, goodPackage(t), Options{})
	var last, total int64
	if _, err := p.Verify(context.Background(), func(d, tot int64) { last, total = d, tot }); err != nil {
		t.Fatal(err)
	}
	if want := int64(len(res1) + len(res2)); last != want || total != want {
		t.Fatalf("progress %d/%d, want %d", last, total, want)
	}
}
