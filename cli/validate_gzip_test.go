package cli

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateGzip: gzip is undone by fetch.Open (a file, standard input);
// a gzipped document gives what the plain one gives, and one whose gzip is
// broken is malformed (exit 1), not unreadable.
func TestValidateGzip(t *testing.T) {
	var doc strings.Builder
	doc.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
`)
	for i := 0; i < 3000; i++ {
		doc.WriteString("<url><loc>http://example.com/res/" + strings.Repeat("x", i%50) + "</loc><lastmod>2013-01-02T13:00:00Z</lastmod></url>\n")
	}
	doc.WriteString("<url><loc>relative</loc></url>\n</urlset>\n")
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(doc.String()))
	zw.Close()
	gz := z.Bytes()

	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := write("list.xml", []byte(doc.String()))
	code, want, _ := validateRun(t, "", "validate", "--json", plain)
	if code != 1 || !strings.Contains(want, "loc-not-absolute") {
		t.Fatalf("plain: exit %d\n%s", code, want)
	}
	norm := func(s, path string) string { return strings.ReplaceAll(s, path, "PATH") }

	t.Run("file", func(t *testing.T) {
		p := write("list.xml.gz", gz)
		code, got, _ := validateRun(t, "", "validate", "--json", p)
		if code != 1 || norm(got, p) != norm(want, plain) {
			t.Errorf("exit %d\n%s\nwant\n%s", code, got, want)
		}
	})
	t.Run("standard input", func(t *testing.T) {
		code, got, _ := validateRun(t, string(gz), "validate", "--json", "-")
		code2, want2, _ := validateRun(t, doc.String(), "validate", "--json", "-")
		if code != 1 || code2 != 1 || got != want2 {
			t.Errorf("exit %d\n%s\nwant\n%s", code, got, want2)
		}
	})
	bad := map[string][]byte{
		"header":    append([]byte{0x1f, 0x8b, 0x08, 0xff}, gz[4:]...),
		"truncated": gz[:len(gz)/2],
		"checksum":  append(bytes.Clone(gz[:len(gz)-8]), 0, 0, 0, 0, gz[len(gz)-4], gz[len(gz)-3], gz[len(gz)-2], gz[len(gz)-1]),
		"data":      append(append(bytes.Clone(gz[:40]), 0xff, 0xff, 0xff, 0xff), gz[44:]...),
	}
	for name, data := range bad {
		t.Run("corrupt "+name, func(t *testing.T) {
			p := write(name+".xml.gz", data)
			code, out, errs := validateRun(t, "", "validate", p)
			if code != 1 || !strings.Contains(out, "xml-malformed") {
				t.Errorf("exit %d, want 1 with xml-malformed\n%s\n%s", code, out, errs)
			}
		})
	}
}
