package dump

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"testing"
)

// FuzzOpenPackage feeds arbitrary bytes as a ZIP: OpenPackage refuses them or
// gives a package that Check, Verify and Extract handle without panicking and
// without writing outside the destination.
func FuzzOpenPackage(f *testing.F) {
	f.Add(goodPackage(f))
	b, err := os.ReadFile(realWorldPackage)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(buildZip(f, zm{name: ManifestName, data: manifest(entry("http://example.com/a", "/../a", []byte("x")))}, zm{name: "../a", data: []byte("x")}))
	f.Add([]byte("PK\x05\x06\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		opts := Options{MaxMemberBytes: 1 << 20, MaxTotalBytes: 4 << 20, MaxManifestBytes: 1 << 20}
		p, err := OpenPackage(bytes.NewReader(b), int64(len(b)), opts)
		if err != nil {
			return
		}
		_ = p.Check()
		want, err := p.Verify(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		// Verified as it downloads (stream.go): the same Result.
		sv := newStreamVerifier(p.opts)
		sv.Write(b)
		sv.finish(nil)
		sv.match(p)
		if got, err := p.Verify(context.Background(), nil); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("verified as it downloaded: %+v, %v\nwant %+v", got, err, want)
		}
		p.streamed = nil
		parent := t.TempDir()
		dest := parent + "/dest"
		if _, err := p.Extract(context.Background(), dest, nil); err != nil {
			t.Fatal(err)
		}
		if ents, _ := os.ReadDir(parent); len(ents) != 1 {
			t.Fatalf("extraction wrote beside the destination: %v", ents)
		}
	})
}
