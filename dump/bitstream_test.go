package dump

import (
	"archive/zip"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
)

func TestOpenBitstream(t *testing.T) {
	z := buildZip(t,
		zm{name: ManifestName, data: manifest(entry("http://example.com/res1", "/resources/res1", []byte(res1)))},
		zm{name: "resources/res1", data: []byte(res1), method: zip.Deflate},
		zm{name: "resources/link", data: []byte("/etc/passwd"), mode: fs.ModeSymlink | 0o777},
		zm{name: "twice", data: []byte("a")},
		zm{name: "twice", data: []byte("b")},
	)
	p := openBytes(t, z, Options{})
	rc, size, err := p.OpenBitstream("/resources/res1")
	if err != nil || size != int64(len(res1)) {
		t.Fatalf("OpenBitstream: %d %v", size, err)
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(b) != res1 {
		t.Fatalf("read %q %v", b, err)
	}
	for _, c := range []struct {
		path    string
		missing bool
		reason  string
	}{
		{"/resources/none", true, ""},
		{"/../etc/passwd", false, `".." segment`},
		{"/resources/link", false, "symbolic link"},
		{"/twice", false, "ambiguous"},
		{"", false, "path is empty"},
	} {
		_, _, err := p.OpenBitstream(c.path)
		var be *BitstreamError
		if !errors.As(err, &be) || be.Missing != c.missing || !strings.Contains(be.Reason, c.reason) {
			t.Errorf("%q: %v", c.path, err)
		}
	}
}
