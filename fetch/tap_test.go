package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"testing"
)

// TapContent sees the body as sent with Content-Encoding undone, and a
// gzip file (sent without Content-Encoding) as the file, while Body gives
// the decompressed document either way.
func TestTapContent(t *testing.T) {
	doc := []byte("<urlset>" + string(bytes.Repeat([]byte("<url><loc>x</loc></url>"), 500)) + "</urlset>")
	var gzBuf bytes.Buffer
	zw := gzip.NewWriter(&gzBuf)
	zw.Write(doc)
	zw.Close()
	gzFile := gzBuf.Bytes()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/plain.xml":
			w.Write(doc)
		case "/encoded.xml":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gzFile)
		case "/file.xml.gz":
			w.Header().Set("Content-Type", "application/gzip")
			w.Write(gzFile)
		}
	})
	c := newTestClient(t, testOptions())
	for _, tc := range []struct {
		path string
		want []byte
	}{
		{"/plain.xml", doc},
		{"/encoded.xml", doc},
		{"/file.xml.gz", gzFile},
	} {
		t.Run(tc.path, func(t *testing.T) {
			resp, err := c.Get(context.Background(), srv.URL+tc.path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var tapped bytes.Buffer
			if !TapContent(resp, &tapped) {
				t.Fatal("TapContent refused a fresh body")
			}
			got, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, doc) {
				t.Errorf("Body gave %d bytes, want the %d of the document", len(got), len(doc))
			}
			if !bytes.Equal(tapped.Bytes(), tc.want) {
				t.Errorf("tap saw %d bytes, want %d", tapped.Len(), len(tc.want))
			}
			if TapContent(resp, io.Discard) {
				t.Error("TapContent accepted a body already read")
			}
		})
	}
}
