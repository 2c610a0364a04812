package fetch

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"0", "120", "-1", "99999999999999999999", "Sun, 22 Nov 2026 08:00:30 GMT", "Sunday, 22-Nov-26 08:00:30 GMT", "x"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := retryAfter(http.Header{"Retry-After": {v}}, now)
		if d < 0 || (!ok && d != 0) {
			t.Fatalf("%q: %v %v", v, d, ok)
		}
	})
}

// FuzzCacheEntry feeds arbitrary files to the cache reader: anything that
// does not check out must read as absent, never fail or panic.
func FuzzCacheEntry(f *testing.F) {
	dir := f.TempDir()
	c := &diskCache{dir: dir}
	const u = "http://example.org/doc.xml"
	w := c.create(u, 200, http.Header{"Etag": {`"x"`}})
	w.write([]byte("<urlset/>"))
	w.commit()
	good, err := os.ReadFile(c.path(u))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)-3])
	f.Add([]byte(cacheMagic))
	f.Add([]byte("\x00\x00\x00\x02{}" + cacheMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := c.path(u)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if m := c.lookup(u); m != nil && m.Size < 0 {
			t.Fatalf("negative size %d", m.Size)
		}
		if e, err := c.open(u); err == nil {
			e.body.Close()
		}
	})
}
