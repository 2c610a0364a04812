package session

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"rsx/fetch"
)

// entriesDoc is a Resource List of n entries, each with a mirror link.
func entriesDoc(base string, n int) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
`)
	for i := range n {
		fmt.Fprintf(&b, `<url><loc>%s/r/%d</loc><rs:md length="%d"/><rs:ln rel="duplicate" href="http://mirror.example.net/r/%d"/></url>`+"\n", base, i, i, i)
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

// ReadEntries gives the entries asked for whole, from the network or from
// the bytes kept, and reads no further than the last one asked for.
func TestReadEntries(t *testing.T) {
	var served atomic.Int64
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := entriesDoc(srv.URL, 20000)
		w.Header().Set("Content-Type", "application/xml")
		n, _ := w.Write([]byte(body))
		served.Add(int64(n))
	}))
	defer srv.Close()
	c, err := fetch.NewClient(fetch.Options{NoCache: true, Netrc: "-"})
	if err != nil {
		t.Fatal(err)
	}
	s := New(c, Options{})
	ctx := context.Background()
	url := srv.URL + "/list.xml"

	check := func(how string, got []int, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		if fmt.Sprint(got) != "[2 5 6]" {
			t.Fatalf("%s: entries %v, want 2 5 6 (20001 is not in the document)", how, got)
		}
	}
	es, err := s.ReadEntries(ctx, url, nil, []int{2, 5, 5, 6, 20001})
	var got []int
	for _, e := range es {
		got = append(got, e.Index)
		if len(e.Links) != 1 || e.Links[0].Href != fmt.Sprintf("http://mirror.example.net/r/%d", e.Index) || e.Loc != fmt.Sprintf("%s/r/%d", srv.URL, e.Index) {
			t.Fatalf("entry %d not whole: %+v", e.Index, e)
		}
	}
	check("from the network", got, err)

	raw := []byte(entriesDoc(srv.URL, 20000))
	before := served.Load()
	es, err = s.ReadEntries(ctx, url, raw, []int{2, 5, 6, 20001})
	got = got[:0]
	for _, e := range es {
		got = append(got, e.Index)
	}
	check("from the bytes kept", got, err)
	if served.Load() != before {
		t.Error("read from the network with the bytes at hand")
	}

	if _, err := s.ReadEntries(ctx, url, raw, []int{5, 2}); err == nil {
		t.Error("indexes out of order: no error")
	}
	if _, err := s.ReadEntries(ctx, srv.URL+"/x", []byte("<html>not a sitemap"), []int{0}); err == nil {
		t.Error("a document that is no Sitemap: no error")
	}
}
