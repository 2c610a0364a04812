package dump

import (
	"archive/zip"
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"
)

// zm is a member of a test package.
type zm struct {
	name   string
	data   []byte
	mode   fs.FileMode // 0: a regular file
	method uint16
	raw    *zip.FileHeader // written with CreateRaw: data is the compressed bytes
}

// buildZip writes a package with the given members in order.
func buildZip(t testing.TB, members ...zm) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		if m.raw != nil {
			w, err := zw.CreateRaw(m.raw)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(m.data); err != nil {
				t.Fatal(err)
			}
			continue
		}
		h := &zip.FileHeader{Name: m.name, Method: m.method, Modified: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)}
		if m.mode != 0 {
			h.SetMode(m.mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(m.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func md5hex(b []byte) string    { s := md5.Sum(b); return hex.EncodeToString(s[:]) }
func sha256hex(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// entry is a manifest <url> for data at path, with its md5, sha-256 and length.
func entry(loc, path string, data []byte) string {
	return fmt.Sprintf(`<url><loc>%s</loc><rs:md hash="md5:%s sha-256:%s" length="%d" type="text/plain" path="%s"/></url>`,
		loc, md5hex(data), sha256hex(data), len(data), path)
}

// manifest is a Resource Dump Manifest with the given entries.
func manifest(entries ...string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>
<rs:md capability="resourcedump-manifest" at="2024-01-01T00:00:00Z"/>
` + strings.Join(entries, "\n") + "\n</urlset>\n")
}

// changeManifest is a Change Dump Manifest with the given entries.
func changeManifest(entries ...string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>
<rs:md capability="changedump-manifest" from="2024-01-01T00:00:00Z" until="2024-01-02T00:00:00Z"/>
` + strings.Join(entries, "\n") + "\n</urlset>\n")
}

func openBytes(t testing.TB, z []byte, opts Options) *Package {
	t.Helper()
	p, err := OpenPackage(bytes.NewReader(z), int64(len(z)), opts)
	if err != nil {
		t.Fatalf("OpenPackage: %v", err)
	}
	return p
}

const (
	res1 = "first resource\n"
	res2 = "second resource, a little longer\n"
)

// goodPackage has two members listed with correct hashes and lengths.
func goodPackage(t testing.TB) []byte {
	return buildZip(t,
		zm{name: ManifestName, data: manifest(entry("http://example.com/res1", "/resources/res1", []byte(res1)), entry("http://example.com/res2", "/resources/res2", []byte(res2)))},
		zm{name: "resources/res1", data: []byte(res1), method: zip.Deflate},
		zm{name: "resources/res2", data: []byte(res2)},
	)
}
