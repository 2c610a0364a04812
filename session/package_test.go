package session

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rsx/demo"
	"rsx/dump"
	"rsx/model"
)

// leftIn lists what is left under dir.
func leftIn(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if p != dir && err == nil {
			out = append(out, strings.TrimPrefix(p, dir))
		}
		return nil
	})
	return out
}

// firstPackage is the first package of the demo's dataset1 Resource Dump.
func firstPackage(t *testing.T, s *Session, base string) dump.PackageRef {
	t.Helper()
	r := load(t, s, base+"/dataset1/resourcedump.xml")
	if r.done[0].Err != nil || len(r.entries) == 0 {
		t.Fatalf("resource dump: %v, %d entries", r.done[0].Err, len(r.entries))
	}
	e := r.entries[0]
	ref := dump.PackageRef{URL: e.Loc, Dump: base + "/dataset1/resourcedump.xml", MD: e.MD}
	for _, l := range e.Links {
		if model.HasRel(l.Rel, "contents") {
			ref.Contents = model.ResolveHref(ref.Dump, l.Href)
		}
	}
	return ref
}

// A package downloaded, verified, compared with its manifest copy and read,
// then closed: nothing is left behind.
func TestPackageLoad(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 60, PackageSize: 20})
	ref := firstPackage(t, s, srv.URL)
	if ref.Contents == "" {
		t.Fatal("the demo's package has no contents link")
	}
	tmp := t.TempDir()
	l := s.OpenPackage(ref, dump.Options{TempDir: tmp})
	var last int64
	f := l.Download(func(done, total int64) { last = done })
	if f.Err != nil || f.Package == nil || !f.Complete || len(f.Mismatches) != 0 {
		t.Fatalf("download: %+v", f)
	}
	if f.Bytes != f.Package.Size || last != f.Bytes || !ref.MD.LengthOK || f.Bytes != ref.MD.Length {
		t.Errorf("bytes %d, progress %d, package %d, declared %d", f.Bytes, last, f.Package.Size, ref.MD.Length)
	}
	if l.File() == "" || !strings.HasPrefix(l.File(), l.Dir()) || !strings.HasPrefix(l.Dir(), tmp) {
		t.Errorf("file %q in %q under %q", l.File(), l.Dir(), tmp)
	}
	res, err := l.Verify(context.Background(), nil)
	if err != nil || !res.OK() || res.Verified == 0 {
		t.Errorf("verify: %v %+v", err, res)
	}
	diffs, err := l.CompareContents(ref.Contents)
	if err != nil || len(diffs) != 0 {
		t.Errorf("contents: %v %v", err, diffs)
	}
	m := l.Manifest()
	text, err := io.ReadAll(m)
	m.Close()
	if err != nil || !bytes.Contains(text, []byte(`capability="resourcedump-manifest"`)) {
		t.Errorf("manifest: %v\n%.200s", err, text)
	}
	rows := PackageRows(f.Package.Manifest, res)
	if len(rows) != len(f.Package.Manifest.Entries) {
		t.Errorf("%d rows for %d entries", len(rows), len(f.Package.Manifest.Entries))
	}
	for _, r := range rows {
		if r.Kind != RowVerified {
			t.Errorf("row %+v", r)
		}
	}

	l.Close()
	l.Close()
	if !l.Closed() || l.File() != "" || l.Package() != nil {
		t.Error("the load is still open")
	}
	if left := leftIn(t, tmp); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	if _, err := l.Verify(context.Background(), nil); err == nil {
		t.Error("a closed load verified")
	}
	if _, err := io.ReadAll(l.Manifest()); err == nil {
		t.Error("a closed load's manifest was read")
	}
}

func TestPackageLoadFailures(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 60, PackageSize: 20})
	ref := firstPackage(t, s, srv.URL)

	// Closed before it started: nothing is fetched or left.
	tmp := t.TempDir()
	l := s.OpenPackage(ref, dump.Options{TempDir: tmp})
	l.Close()
	if f := l.Download(nil); !errors.Is(f.Err, context.Canceled) || f.Package != nil {
		t.Errorf("closed load: %+v", f)
	}
	if left := leftIn(t, tmp); len(left) > 0 {
		t.Errorf("closed load left %v", left)
	}

	// Larger than the limit.
	small := ref
	small.MD.LengthOK = false // else dump refuses it before downloading
	l = s.OpenPackage(small, dump.Options{TempDir: tmp, MaxPackageBytes: 100})
	f := l.Download(nil)
	if f.Err == nil || !strings.Contains(f.Err.Error(), "more than the limit of 100 B") || f.Complete {
		t.Errorf("too large: %+v", f)
	}
	if left := leftIn(t, tmp); len(left) > 0 {
		t.Errorf("too large left %v", left)
	}
	l.Close()

	// Not a package, with a wrong declared hash: mismatches come back.
	bad := dump.PackageRef{URL: srv.URL + "/dataset1/resourcelist.xml", MD: ref.MD}
	l = s.OpenPackage(bad, dump.Options{TempDir: tmp})
	f = l.Download(nil)
	if f.Err == nil || !f.Complete || len(f.Mismatches) == 0 {
		t.Errorf("not a package: %+v", f)
	}
	l.Close()
	if left := leftIn(t, tmp); len(left) > 0 {
		t.Errorf("not a package left %v", left)
	}
}

// A local ZIP is downloaded from the file system.
func TestPackageLoadLocal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.zip")
	os.WriteFile(path, zipOf(t, manifestXML("resourcedump-manifest", "")), 0o600)
	s := NewWithGetter(nil, Options{LocalFiles: true}) // the user opened a local file
	l := s.OpenPackage(dump.PackageRef{URL: path}, dump.Options{TempDir: t.TempDir()})
	defer l.Close()
	if f := l.Download(nil); f.Err != nil || f.Package == nil {
		t.Fatalf("local package: %+v", f)
	}
}

func manifestXML(capability, urls string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="` + capability + `" at="2013-01-03T09:00:00Z"/>
` + urls + `</urlset>
`
}

func zipOf(t *testing.T, manifest string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(dump.ManifestName)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, manifest)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A load closed while its download finishes still removes the file,
// whichever comes first.
func TestPackageLoadCloseRace(t *testing.T) {
	for _, closeFirst := range []bool{true, false} {
		t.Run(fmt.Sprint("closeFirst=", closeFirst), func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "rsx-package-x")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "p.zip")
			if err := os.WriteFile(path, zipOf(t, manifestXML("resourcedump-manifest", "")), 0o600); err != nil {
				t.Fatal(err)
			}
			p, err := dump.OpenFile(path, dump.Options{})
			if err != nil {
				t.Fatal(err)
			}
			l := NewWithGetter(nil, Options{}).OpenPackage(dump.PackageRef{}, dump.Options{})
			if !l.setDir(dir) {
				t.Fatal("setDir refused an open load")
			}
			if closeFirst {
				l.Close()
				if l.adopt(p) {
					t.Error("a closed load adopted a package")
				}
			} else {
				if !l.adopt(p) || l.File() != path {
					t.Fatalf("adopt: file %q", l.File())
				}
				l.Close()
				l.Close() // twice is fine
			}
			if left := leftIn(t, base); len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
			if l.setDir(dir) {
				t.Error("setDir accepted a closed load")
			}
		})
	}
}

// TestPackageRefusedWhenItDiffersFromItsEntry: a package whose bytes are not
// what its dump entry declares is refused whole, although it agrees with its
// own manifest: no package to browse or verify, the mismatches to show, and
// nothing left on disk.
func TestPackageRefusedWhenItDiffersFromItsEntry(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 60, PackageSize: 20})
	ref := firstPackage(t, s, srv.URL)
	wrong, err := model.ParseHashList("md5:0123456789abcdef0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	ref.MD.Hash, ref.MD.HashRaw = wrong, "md5:0123456789abcdef0123456789abcdef"
	tmp := t.TempDir()
	l := s.OpenPackage(ref, dump.Options{TempDir: tmp})
	defer l.Close()
	f := l.Download(nil)
	if !errors.Is(f.Err, dump.ErrEntryMismatch) || f.Package != nil || l.Package() != nil || !f.Complete || len(f.Mismatches) != 1 {
		t.Fatalf("%+v", f)
	}
	if left := leftIn(t, tmp); len(left) > 0 {
		t.Errorf("a refused package left %v", left)
	}
}
