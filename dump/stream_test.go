package dump

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"hash/crc32"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestStreamVerify: a package verified as it downloads gives the Result of
// verifying the file afterwards, for every way members are written (stored
// or deflated, with or without data descriptors, the manifest first or last,
// corrupt data, wrong digests, bytes that look like a data descriptor), and
// the walk is used where it can be.
func TestStreamVerify(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	blob := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + rnd.IntN(4))
		}
		return b
	}
	a, b, c := blob(300000), blob(70000), blob(5)
	tricky := append(append(blob(1000), 'P', 'K', 7, 8), blob(40)...) // a false data descriptor
	deflated := func(data []byte) []byte {
		var buf bytes.Buffer
		fw, _ := flate.NewWriter(&buf, flate.BestSpeed)
		fw.Write(data)
		fw.Close()
		return buf.Bytes()
	}
	raw := func(name string, data []byte, method uint16) zm {
		body := data
		if method == zip.Deflate {
			body = deflated(data)
		}
		return zm{raw: &zip.FileHeader{Name: name, Method: method, CRC32: crc32.ChecksumIEEE(data),
			CompressedSize64: uint64(len(body)), UncompressedSize64: uint64(len(data))}, data: body}
	}
	man := manifest(entry("http://e.com/a", "/a", a), entry("http://e.com/b", "/b", b),
		entry("http://e.com/c", "/c", c), entry("http://e.com/t", "/t", tricky),
		strings.Replace(entry("http://e.com/w", "/w", c), md5hex(c), md5hex(a), 1))
	members := func(method uint16) []zm {
		return []zm{{name: "a", data: a, method: method}, {name: "b", data: b, method: method},
			{name: "c", data: c, method: method}, {name: "t", data: tricky, method: method}, {name: "w", data: c, method: method}}
	}
	cases := map[string]struct {
		zip      []byte
		streamed int // members verified as they downloaded
	}{
		"stored, descriptors":   {buildZip(t, append([]zm{{name: ManifestName, data: man}}, members(zip.Store)...)...), 5},
		"deflated, descriptors": {buildZip(t, append([]zm{{name: ManifestName, data: man}}, members(zip.Deflate)...)...), 5},
		"raw, no descriptors": {buildZip(t, raw(ManifestName, man, zip.Deflate), raw("a", a, zip.Store), raw("b", b, zip.Deflate),
			raw("c", c, zip.Store), raw("t", tricky, zip.Store), raw("w", c, zip.Deflate)), 5},
		"manifest last":   {buildZip(t, append(members(zip.Store), zm{name: ManifestName, data: man})...), 0},
		"unlisted member": {buildZip(t, append([]zm{{name: ManifestName, data: man}, {name: "x", data: b}}, members(zip.Deflate)...)...), 5},
	}
	corrupt := bytes.Clone(cases["raw, no descriptors"].zip)
	i := bytes.Index(corrupt, a[:100])
	if i < 0 {
		t.Fatal("member a not found stored")
	}
	corrupt[i+50] ^= 1 // stored member a's data: the walk follows it, its CRC-32 disagrees
	cases["corrupt stored data"] = struct {
		zip      []byte
		streamed int
	}{corrupt, 4}

	dir := t.TempDir()
	files := map[string][]byte{}
	for name, tc := range cases {
		files["/"+strings.ReplaceAll(name, " ", "_")+".zip"] = tc.zip
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(files[r.URL.Path])
	}))
	defer srv.Close()
	c2 := testClient(t)
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".zip")
			os.WriteFile(path, tc.zip, 0o600)
			local, err := OpenFile(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer local.Close()
			want, _ := local.Verify(context.Background(), nil)
			p, _, err := FetchPackage(context.Background(), c2, PackageRef{URL: srv.URL + "/" + filepath.Base(path)}, Options{TempDir: dir}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			got, _ := p.Verify(context.Background(), nil)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("as downloaded %+v\nafterwards   %+v", got, want)
			}
			if len(p.streamed) != tc.streamed {
				t.Errorf("%d members verified as they downloaded, want %d", len(p.streamed), tc.streamed)
			}
			if want.OK() || len(want.Mismatched) == 0 {
				t.Errorf("the package was meant to have a mismatch: %+v", want)
			}
		})
	}
}
