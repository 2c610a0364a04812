package fetch

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkGetBody measures streaming a 16 MiB body over loopback through
// the counting, gzip-sniffing, limiting body reader.
func BenchmarkGetBody(b *testing.B) {
	payload := bytes.Repeat([]byte("<url><loc>http://example.org/r</loc></url>\n"), 16<<20/44)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(payload) }))
	b.Cleanup(s.Close)
	c, err := NewClient(testOptions())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(payload)))
	for b.Loop() {
		resp, err := c.Get(b.Context(), s.URL)
		if err != nil {
			b.Fatal(err)
		}
		if n, err := io.Copy(io.Discard, resp.Body); err != nil || n != int64(len(payload)) {
			b.Fatal(n, err)
		}
		resp.Body.Close()
	}
}
