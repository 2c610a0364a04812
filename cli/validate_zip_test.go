package cli

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A dump package given to validate is recognised by its magic bytes: it is
// not reported as malformed XML but as a ZIP package that rsx dump opens,
// with the exit status of a document that cannot be read.
func TestValidateRecognisesZIPPackage(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("manifest.xml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(rsOpen + `<rs:md capability="resourcedump-manifest" at="2013-01-03T09:00:00Z"/>` + rsClose)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pkg := filepath.Join(dir, "part1.zip")
	if err := os.WriteFile(pkg, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.zip")
	var eb bytes.Buffer
	if err := zip.NewWriter(&eb).Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, eb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	xmlFile := filepath.Join(dir, "rl.xml")
	if err := os.WriteFile(xmlFile, []byte(rsOpen+`<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/><rs:ln rel="up" href="http://example.com/cl.xml"/><url><loc>http://example.com/a</loc></url>`+rsClose), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{pkg, empty} {
		code, out, errs := runCmd(t, "validate", target)
		all := out + errs
		if code != 2 {
			t.Errorf("validate %s: exit %d, want 2\n%s", target, code, all)
		}
		if strings.Contains(all, "malformed") {
			t.Errorf("validate %s calls a ZIP package malformed XML:\n%s", target, all)
		}
		for _, want := range []string{"ZIP package", "rsx dump " + target} {
			if !strings.Contains(all, want) {
				t.Errorf("validate %s: output lacks %q:\n%s", target, want, all)
			}
		}
	}
	// An XML file is still read from its first byte.
	if code, out, errs := runCmd(t, "validate", xmlFile); code != 0 {
		t.Errorf("validate of a valid Resource List: exit %d\n%s%s", code, out, errs)
	}
}
