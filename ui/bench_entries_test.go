package ui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"rsx/fetch"
	"rsx/model"
	"rsx/session"
)

// The memory of the entries table (issue 27): a Resource List of n entries
// shaped like the demo Source's (loc, lastmod, md5 and sha-256, length,
// type; three entries in four link to mirrors, a canonical URI, an
// alternate or a collection) opened in the explorer, as one document and
// as the view of all parts of an index of 50,000-entry parts. The entries
// are written as XML on the fly and read through the session, as from a
// Source; each view is measured with its entries whole as before
// (App.wholeTables) and lean, in the same run.

const bePartSize = 50000

// beEntry writes entry i of a generated Resource List.
func beEntry(b []byte, i int) []byte {
	exts := [...]string{"html", "txt", "json", "pdf"}
	types := [...]string{"text/html", "text/plain", "application/json", "application/pdf"}
	loc := fmt.Sprintf("%s/dataset1/res/%07d.%s", exHost, i, exts[i%4])
	t := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i*7919%31_536_000) * time.Second)
	b = fmt.Appendf(b, "  <url>\n    <loc>%s</loc>\n    <lastmod>%s</lastmod>\n", loc, t.Format(time.RFC3339))
	b = fmt.Appendf(b, "    <rs:md hash=\"md5:%032x sha-256:%064x\"\n           length=\"%d\"\n           type=\"%s\"/>\n", i*104729, i*1299709, 500+i*37%5000, types[i%4])
	mod := t.Format(time.RFC3339)
	switch i % 4 {
	case 0:
		for m := 1; m <= 2; m++ {
			b = fmt.Appendf(b, "    <rs:ln rel=\"duplicate\" pri=\"%d\" href=\"%s/mirror%d/dataset1/res/%07d.%s\" modified=\"%s\"/>\n", m, exHost, m, i, exts[i%4], mod)
		}
		b = fmt.Appendf(b, "    <rs:ln rel=\"canonical\" href=\"%s/dataset1/res/%07d\" modified=\"%s\"/>\n", exHost, i, mod)
	case 2:
		b = fmt.Appendf(b, "    <rs:ln rel=\"alternate\" href=\"%s/dataset1/alt/%07d.html\" type=\"text/html\"/>\n", exHost, i)
	case 3:
		b = fmt.Appendf(b, "    <rs:ln rel=\"collection\" href=\"%s/dataset1/collections/%d.html\"/>\n", exHost, i%97)
	}
	return append(b, "  </url>\n"...)
}

// beListReader writes a Resource List of entries from..to-1 as it is read.
type beListReader struct {
	next, to int
	buf      []byte
	off      int
	closed   bool
}

func newBEList(from, to int) *beListReader {
	r := &beListReader{next: from, to: to}
	r.buf = append(r.buf, `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:ln rel="up" href="`+exHost+`/dataset1/capabilitylist.xml"/>
  <rs:md capability="resourcelist" at="2026-01-05T09:00:00Z" completed="2026-01-05T09:00:00Z"/>
`...)
	return r
}

func (r *beListReader) Read(p []byte) (int, error) {
	for r.off == len(r.buf) {
		if r.closed {
			return 0, io.EOF
		}
		r.buf, r.off = r.buf[:0], 0
		for k := 0; k < 64 && r.next < r.to; k++ {
			r.buf = beEntry(r.buf, r.next)
			r.next++
		}
		if r.next == r.to {
			r.buf = append(r.buf, "</urlset>\n"...)
			r.closed = true
		}
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}

// beGetter serves /list.xml (n entries) and /index.xml with its parts
// /part-K.xml of bePartSize entries, written as they are read.
type beGetter struct{ n int }

func (g beGetter) Get(ctx context.Context, url string) (*fetch.Response, error) {
	path := strings.TrimPrefix(url, exHost)
	var body io.Reader
	switch {
	case path == "/list.xml":
		body = newBEList(0, g.n)
	case path == "/index.xml":
		var b bytes.Buffer
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:md capability="resourcelist" at="2026-01-05T09:00:00Z" completed="2026-01-05T09:00:00Z"/>
`)
		for k := 0; k*bePartSize < g.n; k++ {
			fmt.Fprintf(&b, "  <sitemap><loc>%s/part-%d.xml</loc><rs:md at=\"2026-01-05T09:00:00Z\"/></sitemap>\n", exHost, k)
		}
		b.WriteString("</sitemapindex>\n")
		body = &b
	case strings.HasPrefix(path, "/part-"):
		k, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(path, "/part-"), ".xml"))
		if err != nil {
			return nil, err
		}
		body = newBEList(k*bePartSize, min((k+1)*bePartSize, g.n))
	default:
		return nil, &fetch.StatusError{URL: url, Status: 404, StatusText: "Not Found", Tries: 1}
	}
	ex := &fetch.Exchange{Method: "GET", URL: url, FinalURL: url, Status: 200, StatusText: "OK", Done: true}
	return &fetch.Response{URL: url, Status: 200, Header: http.Header{}, Body: io.NopCloser(body), Exchange: ex}, nil
}

// beHeap is the heap in use after a collection.
func beHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// beOpen opens target in an explorer whose tables are whole or lean,
// opens all its parts when all, and runs every command to the end: the
// load, then the sort and filter keys built in the background. It returns
// the explorer, the time to the first rows and to the last.
func beOpen(tb testing.TB, n int, target string, all, whole bool) (a *App, first, last time.Duration) {
	a = New(Options{
		Target:  exHost + target,
		Backend: session.NewWithGetter(beGetter{n: n}, session.Options{}),
		Now:     func() time.Time { return exTime },
	})
	a.noTick = true
	a.wholeTables = whole
	d := &exDriver{t: tb, a: a, msgs: make(chan tea.Msg, 64)}
	drain := func(start time.Time) {
		for d.pending > 0 {
			msg := <-d.msgs
			d.pending--
			d.handle(msg)
			if first == 0 && a.doc != nil && a.doc.entries.Len() > 0 {
				first = time.Since(start)
			}
		}
	}
	d.handle(tea.WindowSizeMsg{Width: 120, Height: 40})
	start := time.Now()
	d.exec(a.Init())
	drain(start)
	if all {
		first = 0
		start = time.Now()
		d.handle(exKey("a"))
		drain(start)
	}
	last = time.Since(start)
	if a.doc == nil || a.doc.loading || a.doc.entries.Len() != n || a.doc.err != nil {
		tb.Fatalf("%s: not loaded whole: %d entries, err %v", target, a.doc.entries.Len(), a.doc.err)
	}
	return a, first, last
}

// BenchmarkEntriesMemory reports the heap an open document's entries take
// (bytes-entry: HeapInuse after a collection, less the heap before it was
// opened, per entry), with the time to its first rows and to the last, and
// the CPU time of the whole load (the generating of the XML included).
//
//	go test ./ui/ -run '^$' -bench EntriesMemory -benchtime 1x -timeout 30m
func BenchmarkEntriesMemory(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		for _, view := range []struct {
			name, target string
			all          bool
		}{{"document", "/list.xml", false}, {"allparts", "/index.xml", true}} {
			for _, whole := range []bool{true, false} {
				table := "lean"
				if whole {
					table = "whole"
				}
				b.Run(fmt.Sprintf("%s/%dk/%s", view.name, n/1000, table), func(b *testing.B) {
					var perEntry float64
					var first, last, cpu time.Duration
					for b.Loop() {
						before := beHeap()
						c := exCPUTime()
						a, f, l := beOpen(b, n, view.target, view.all, whole)
						cpu = exCPUTime() - c
						after := beHeap()
						perEntry = (float64(after) - float64(before)) / float64(n)
						first, last = f, l
						runtime.KeepAlive(a)
					}
					b.ReportMetric(perEntry, "bytes/entry")
					b.ReportMetric(float64(first.Milliseconds()), "first-rows-ms")
					b.ReportMetric(float64(last.Milliseconds()), "loaded-ms")
					b.ReportMetric(float64(cpu.Milliseconds()), "cpu-ms")
				})
			}
		}
	}
}

// The entries the benchmark writes decode as they should, and the detail
// pane of a lean view shows an entry's links once read back.
func TestEntriesMemoryFixture(t *testing.T) {
	dec := model.NewDecoder(newBEList(0, 8), model.DecoderOptions{})
	if _, err := dec.Header(); err != nil {
		t.Fatal(err)
	}
	links := 0
	for k := 0; k < 8; k++ {
		var e model.Entry
		if err := dec.Next(&e); err != nil {
			t.Fatalf("entry %d: %v", k, err)
		}
		links += len(e.Links)
		if len(e.MD.Hash) != 2 || !e.MD.LengthOK || !e.Lastmod.OK {
			t.Fatalf("entry %d: %+v", k, e)
		}
	}
	if links != 2*(3+1+1) {
		t.Errorf("%d links in 8 entries", links)
	}
	a, first, _ := beOpen(t, 60_000, "/index.xml", true, false)
	if first <= 0 || a.doc.entries.Loc(50_000) != exHost+"/dataset1/res/0050000.html" {
		t.Fatalf("part 2 does not follow part 1: row 50,001 is %s", a.doc.entries.Loc(50_000))
	}
	a.dv.JumpTo(55_000)
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64)}
	d.send(nil)
	if s := d.screen(); !strings.Contains(s, "mirror1/dataset1/res/0055000.html") {
		t.Errorf("the detail pane of row 55,001 does not show its mirror:\n%s", s)
	}
}

// beIndexGetter serves /big-index.xml: an index of n parts, each entry
// with its at and completed times, as the demo writes them.
type beIndexGetter struct{ n int }

// beIndexReader writes the index as it is read.
type beIndexReader struct {
	next, n int
	buf     []byte
	off     int
	closed  bool
}

func (r *beIndexReader) Read(p []byte) (int, error) {
	for r.off == len(r.buf) {
		if r.closed {
			return 0, io.EOF
		}
		r.buf, r.off = r.buf[:0], 0
		if r.next == 0 {
			r.buf = append(r.buf, `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:md capability="resourcelist" at="2026-01-05T09:00:00Z" completed="2026-01-05T09:00:00Z"/>
`...)
		}
		for k := 0; k < 256 && r.next < r.n; k++ {
			r.buf = fmt.Appendf(r.buf, "  <sitemap>\n    <loc>%s/dataset1/resourcelist-%07d.xml</loc>\n    <rs:md at=\"2026-01-05T09:00:00Z\"\n           completed=\"2026-01-05T09:%02d:%02dZ\"/>\n  </sitemap>\n", exHost, r.next+1, r.next/60%60, r.next%60)
			r.next++
		}
		if r.next == r.n {
			r.buf = append(r.buf, "</sitemapindex>\n"...)
			r.closed = true
		}
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}

func (g beIndexGetter) Get(ctx context.Context, url string) (*fetch.Response, error) {
	if url != exHost+"/big-index.xml" {
		return nil, &fetch.StatusError{URL: url, Status: 404, StatusText: "Not Found", Tries: 1}
	}
	ex := &fetch.Exchange{Method: "GET", URL: url, FinalURL: url, Status: 200, StatusText: "OK", Done: true}
	return &fetch.Response{URL: url, Status: 200, Header: http.Header{}, Body: io.NopCloser(&beIndexReader{n: g.n}), Exchange: ex}, nil
}

// beNoCross is the session without the checks across documents: those load
// the documents an index lists (crawl's walk, up to its MaxDocuments), which
// this benchmark does not measure.
type beNoCross struct{ *session.Session }

func (beNoCross) CrossCheck(context.Context, string, []Crumb) ([]model.Problem, error) {
	return nil, nil
}

// BenchmarkIndexMemory is issue 23's explorer side: an index of n parts
// opened in the explorer (its rows are sitemap entries like any other
// document's), with the heap it takes once loaded and its sort and filter
// keys built (bytes-entry, and MiB in all); the checks across documents
// (beNoCross) are not part of it.
//
//	go test ./ui/ -run '^$' -bench IndexMemory -benchtime 1x -timeout 30m
func BenchmarkIndexMemory(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		for _, whole := range []bool{true, false} {
			table := "lean"
			if whole {
				table = "whole"
			}
			b.Run(fmt.Sprintf("%dk/%s", n/1000, table), func(b *testing.B) {
				var bytes float64
				for b.Loop() {
					before := beHeap()
					a := New(Options{
						Target:  exHost + "/big-index.xml",
						Backend: beNoCross{session.NewWithGetter(beIndexGetter{n: n}, session.Options{})},
						Now:     func() time.Time { return exTime },
					})
					a.noTick = true
					a.wholeTables = whole
					d := &exDriver{t: b, a: a, msgs: make(chan tea.Msg, 64)}
					d.handle(tea.WindowSizeMsg{Width: 120, Height: 40})
					d.exec(a.Init())
					for d.pending > 0 {
						msg := <-d.msgs
						d.pending--
						d.handle(msg)
					}
					if a.doc == nil || a.doc.entries.Len() != n {
						b.Fatalf("%d entries", a.doc.entries.Len())
					}
					bytes = float64(beHeap()) - float64(before)
					runtime.KeepAlive(a)
				}
				b.ReportMetric(bytes/float64(n), "bytes/entry")
				b.ReportMetric(bytes/(1<<20), "MiB")
			})
		}
	}
}
