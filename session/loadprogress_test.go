package session

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"rsx/fetch"
)

// A document sent compressed, with the Content-Length of its compressed
// bytes, is read ahead of its decoding: its compressed bytes were the
// progress, and it said "3.4 KiB of 3.4 KiB" from the start while the
// entries were still decoded. The progress is the decoded bytes, of a total
// not known; an uncompressed document keeps its total.
func TestLoadProgressOfACompressedDocument(t *testing.T) {
	var doc strings.Builder
	doc.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:md capability="resourcelist" at="2026-01-05T09:00:00Z"/>`)
	for i := range 3000 {
		fmt.Fprintf(&doc, "<url><loc>http://example.org/r/%06d</loc></url>", i)
	}
	doc.WriteString("</urlset>")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(doc.String()))
	zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		if r.URL.Path == "/gz.xml" {
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Length", strconv.Itoa(gz.Len()))
			w.Write(gz.Bytes())
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(doc.Len()))
		w.Write([]byte(doc.String()))
	}))
	defer srv.Close()
	c, err := fetch.NewClient(fetch.Options{NoCache: true, Netrc: "-"})
	if err != nil {
		t.Fatal(err)
	}
	s := New(c, Options{BatchSize: 16})

	r := load(t, s, srv.URL+"/gz.xml")
	if r.done[0].Err != nil || len(r.entries) != 3000 {
		t.Fatalf("%d entries, %v", len(r.entries), r.done[0].Err)
	}
	if r.total > 0 {
		t.Errorf("total %d (the compressed length): progress of decoded bytes has no known total", r.total)
	}
	if len(r.progress) < 2 || r.progress[0] >= int64(doc.Len()) || r.progress[len(r.progress)-1] != int64(doc.Len()) {
		t.Errorf("progress %v: want decoded bytes growing to %d", r.progress, doc.Len())
	}

	r = load(t, s, srv.URL+"/plain.xml")
	if r.total != int64(doc.Len()) || r.progress[len(r.progress)-1] != int64(doc.Len()) {
		t.Errorf("uncompressed: total %d, progress %v; want a total of %d", r.total, r.progress, doc.Len())
	}
}
