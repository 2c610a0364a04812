package model

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// normalizeForRoundTrip clears what a rewrite legitimately changes: line numbers,
// the byte count and the encoding named in the XML declaration.
func normalizeForRoundTrip(d *Document) {
	d.Bytes = 0
	d.XMLEncoding = ""
	clearMD := func(m *Metadata) { m.Line = 0 }
	clearLinks := func(ls []Link) {
		for i := range ls {
			ls[i].Line = 0
		}
	}
	clearElems := func(es []Element) {
		for i := range es {
			es[i].Line = 0
		}
	}
	clearMD(&d.MD)
	clearLinks(d.Links)
	clearElems(d.Header.Extra)
	for i := range d.Legacy {
		d.Legacy[i].Line = 0
	}
	for i := range d.Entries {
		e := &d.Entries[i]
		e.Line = 0
		clearMD(&e.MD)
		clearLinks(e.Links)
		clearElems(e.Extra)
	}
}

// Every spec example and real-world document survives parse → write → parse, and
// writing is idempotent.
func TestWriterRoundTripConformance(t *testing.T) {
	for _, path := range decThirdPartyFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := Parse(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("does not parse: %v", err)
			}
			var out bytes.Buffer
			n, err := doc.WriteTo(&out)
			if err != nil {
				t.Fatalf("WriteTo: %v", err)
			}
			if n != int64(out.Len()) {
				t.Errorf("WriteTo returned %d, wrote %d bytes", n, out.Len())
			}
			again, err := Parse(bytes.NewReader(out.Bytes()))
			if err != nil {
				t.Fatalf("written document does not parse: %v\n%s", err, out.Bytes())
			}
			var out2 bytes.Buffer
			if _, err := again.WriteTo(&out2); err != nil {
				t.Fatal(err)
			}
			normalizeForRoundTrip(doc)
			normalizeForRoundTrip(again)
			if !reflect.DeepEqual(doc, again) {
				for i := range doc.Entries {
					if i < len(again.Entries) && !reflect.DeepEqual(doc.Entries[i], again.Entries[i]) {
						t.Errorf("entry %d:\n got %+v\nwant %+v", i, again.Entries[i], doc.Entries[i])
						break
					}
				}
				t.Fatalf("round trip differs:\n got %+v\nwant %+v\n%s", again.Header, doc.Header, out.Bytes())
			}
			if !bytes.Equal(out.Bytes(), out2.Bytes()) {
				t.Errorf("writing is not idempotent:\n%s\n---\n%s", out.Bytes(), out2.Bytes())
			}
		})
	}
}

// The layout follows the specification's examples.
func TestWriterLayoutExample14(t *testing.T) {
	const want = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:ln rel="up"
         href="http://example.com/dataset1/capabilitylist.xml"/>
  <rs:md capability="resourcelist"
         at="2013-01-03T09:00:00Z"
         completed="2013-01-03T09:01:00Z"/>
  <url>
    <loc>http://example.com/res1</loc>
    <lastmod>2013-01-02T13:00:00Z</lastmod>
    <rs:md hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6"
           length="8876"
           type="text/html"/>
  </url>
  <url>
    <loc>http://example.com/res2</loc>
    <lastmod>2013-01-02T14:00:00Z</lastmod>
    <rs:md hash="md5:1e0d5cb8ef6ba40c99b14c0237be735e sha-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784"
           length="14599"
           type="application/pdf"/>
  </url>
</urlset>
`
	// Built from parsed values only (no Raw fields): canonical forms.
	at, _ := ParseDatetime("2013-01-03T10:00:00+01:00")
	at.Raw = ""
	h1, _ := ParseHashList("md5:1584ABDF8EBDC9802AC0C6A7402C03B6")
	h2, _ := ParseHashList("md5:1e0d5cb8ef6ba40c99b14c0237be735e sha256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784")
	doc := &Document{
		Header: Header{
			Root:  RootURLSet,
			Links: []Link{{Rel: "up", Href: "http://example.com/dataset1/capabilitylist.xml"}},
			MD: Metadata{
				Capability: CapResourceList,
				At:         at,
				Completed:  Datetime{Time: time.Date(2013, 1, 3, 9, 1, 0, 0, time.UTC)},
			},
		},
		Entries: []Entry{
			{Loc: "http://example.com/res1", Lastmod: DatetimeOf(time.Date(2013, 1, 2, 13, 0, 0, 0, time.UTC)),
				MD: Metadata{Hash: h1, Length: 8876, Type: "text/html"}},
			{Loc: "http://example.com/res2", Lastmod: Datetime{Time: time.Date(2013, 1, 2, 14, 0, 0, 0, time.UTC)},
				MD: Metadata{Hash: h2, Length: 14599, LengthOK: true, Type: "application/pdf"}},
		},
	}
	var b strings.Builder
	if _, err := doc.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWriterSitemapIndexAndAllAttributes(t *testing.T) {
	h := &Header{
		Root: RootSitemapIndex,
		MD:   Metadata{Capability: CapChangeList, From: Datetime{Raw: "2013-01-01T00:00:00+01:00"}},
	}
	var b bytes.Buffer
	w, err := NewWriter(&b, h)
	if err != nil {
		t.Fatal(err)
	}
	e := &Entry{
		Loc:        "http://example.com/20130101-changelist.xml",
		Changefreq: "daily",
		MD: Metadata{
			Capability: CapChangeList, Change: ChangeUpdated,
			Datetime:  Datetime{Raw: "2013-01-02"},
			At:        Datetime{Raw: "2013"},
			Completed: Datetime{Raw: "2013-02"},
			From:      Datetime{Raw: "2013-01-01T00:00:00Z"},
			Until:     Datetime{Time: time.Date(2013, 1, 2, 0, 0, 0, 500000000, time.UTC)},
			HashRaw:   "md5:Yx8m6CqWBJjKT5VBggoWeQ==", LengthRaw: "007",
			Type: "application/xml", Encoding: "gzip", HasPath: true,
		},
		Links: []Link{
			{Rel: "duplicate", Pri: 1, Href: "http://mirror.example.com/x", Modified: Datetime{Raw: "2013-01-02T00:00:00Z"}},
			{Rel: "duplicate", PriRaw: " 2 ", HasHref: true, Path: "/x", Length: 12, Encoding: "br", Type: "text/plain",
				HashRaw: "sha-1:da39a3ee5e6b4b0d3255bfef95601890afd80709"},
		},
	}
	if err := w.WriteEntry(e); err != nil {
		t.Fatal(err)
	}
	if w.Entries() != 1 {
		t.Errorf("Entries = %d", w.Entries())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := w.WriteEntry(e); err == nil {
		t.Error("WriteEntry after Close did not fail")
	}
	const want = `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
              xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:md capability="changelist"
         from="2013-01-01T00:00:00+01:00"/>
  <sitemap>
    <loc>http://example.com/20130101-changelist.xml</loc>
    <changefreq>daily</changefreq>
    <rs:md capability="changelist"
           change="updated"
           datetime="2013-01-02"
           at="2013"
           completed="2013-02"
           from="2013-01-01T00:00:00Z"
           until="2013-01-02T00:00:00.5Z"
           hash="md5:Yx8m6CqWBJjKT5VBggoWeQ=="
           length="007"
           type="application/xml"
           encoding="gzip"
           path=""/>
    <rs:ln rel="duplicate"
           pri="1"
           href="http://mirror.example.com/x"
           modified="2013-01-02T00:00:00Z"/>
    <rs:ln rel="duplicate"
           pri=" 2 "
           href=""
           hash="sha-1:da39a3ee5e6b4b0d3255bfef95601890afd80709"
           length="12"
           type="text/plain"
           encoding="br"
           path="/x"/>
  </sitemap>
</sitemapindex>
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	doc, err := Parse(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	got := doc.Entries[0]
	if doc.Root != RootSitemapIndex || got.MD.Until.Raw != "2013-01-02T00:00:00.5Z" || !got.MD.HasPath ||
		got.Links[1].PriRaw != " 2 " || got.Links[1].Href != "" || !got.Links[1].HasHref || got.MD.Hash[0].Encoding != HashBase64 {
		t.Errorf("parsed back: %+v", got)
	}
}

func TestWriterEscaping(t *testing.T) {
	var b bytes.Buffer
	w, err := NewWriter(&b, &Header{Root: RootURLSet, MD: Metadata{Capability: CapResourceList}})
	if err != nil {
		t.Fatal(err)
	}
	e := &Entry{
		Loc:   "http://example.com/a?b=1&c=<2>&d=\"é\"",
		MD:    Metadata{Type: "text/plain; q=\"1\"\t<x>&\n", Extra: []Attr{{Local: "note", Value: "it's"}}},
		Links: []Link{{Rel: "alternate", Href: "http://example.com/\r"}},
	}
	if err := w.WriteEntry(e); err != nil {
		t.Fatal(err)
	}
	// Refused: the entry is not written at all and the writer stays usable.
	for _, bad := range []struct {
		e     Entry
		field string
		why   string
	}{
		{Entry{Loc: "http://example.com/\x01"}, "loc", "control character U+0001 is not allowed in XML"},
		{Entry{Loc: "x", MD: Metadata{Type: "a\x00b"}}, "rs:md type", "control character U+0000"},
		{Entry{Loc: "x", Links: []Link{{Rel: "up", Href: "\xff"}}}, "rs:ln href", "invalid UTF-8 at byte 0"},
		{Entry{Loc: "x", Lastmod: Datetime{Raw: "2013\x1b"}}, "lastmod", "control character U+001B"},
		{Entry{Loc: "x", Changefreq: "\uffff"}, "changefreq", "character U+FFFF is not allowed in XML"},
		{Entry{Loc: "x", Extra: []Element{{Space: "urn:x", Prefix: "x", Local: "y", Text: "\x02"}}}, "x:y", "control character U+0002"},
		{Entry{Loc: "x", Extra: []Element{{Space: "urn:x", Prefix: "x", Local: "a b"}}}, "a b", `invalid element name "a b"`},
		{Entry{Loc: "x", MD: Metadata{Extra: []Attr{{Local: "1a"}}}}, "rs:md 1a", `invalid attribute name "1a"`},
		{Entry{Loc: "x", MD: Metadata{Extra: []Attr{{Local: "xmlns", Value: "urn:x"}}}}, "rs:md xmlns", `invalid attribute name "xmlns"`},
		{Entry{Loc: "x", MD: Metadata{Type: "t", Extra: []Attr{{Local: "type", Value: "u"}}}}, "rs:md type", "attribute type given twice"},
		{Entry{Loc: "x", Links: []Link{{Rel: "up", Extra: []Attr{{Space: "urn:a", Prefix: "a", Local: "k"}, {Space: "urn:a", Prefix: "b", Local: "k"}}}}}, "rs:ln k", "attribute a:k given twice"},
	} {
		err := w.WriteEntry(&bad.e)
		var we *WriteError
		if !errors.As(err, &we) || we.Field != bad.field || !strings.Contains(we.Reason, bad.why) || we.Entry != 1 {
			t.Errorf("WriteEntry(%+v) = %v, want %s: %s", bad.e, err, bad.field, bad.why)
		}
	}
	if err := w.WriteEntry(&Entry{Loc: "http://example.com/b"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, s := range []string{
		`<loc>http://example.com/a?b=1&amp;c=&lt;2&gt;&amp;d="é"</loc>`,
		`type="text/plain; q=&quot;1&quot;&#9;&lt;x&gt;&amp;&#10;"`,
		`note="it's"`,
		`href="http://example.com/&#13;"`,
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %s:\n%s", s, out)
		}
	}
	doc, err := Parse(strings.NewReader(out))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(doc.Entries) != 2 || doc.Entries[0].Loc != e.Loc || doc.Entries[0].MD.Type != e.MD.Type ||
		doc.Entries[0].Links[0].Href != "http://example.com/" && doc.Entries[0].Links[0].Href != e.Links[0].Href {
		t.Errorf("parsed back: %+v", doc.Entries)
	}
	if _, err := NewWriter(io.Discard, &Header{Root: RootURLSet, Links: []Link{{Rel: "up\x07"}}}); err == nil {
		t.Error("NewWriter accepted a control character")
	} else if we := (*WriteError)(nil); !errors.As(err, &we) || we.Entry != -1 || we.Field != "rs:ln rel" {
		t.Errorf("NewWriter error = %#v", err)
	}
	if _, err := NewWriter(io.Discard, &Header{Root: RootUnknown}); err == nil {
		t.Error("NewWriter accepted an unknown root")
	}
}

// Attributes and elements of other namespaces keep their namespace: declared on
// the root for the header (and the namespaces the document declared), on the
// element itself for entries.
func TestWriterNamespaces(t *testing.T) {
	const xhtml = "http://www.w3.org/1999/xhtml"
	h := &Header{
		Root:       RootURLSet,
		Namespaces: []Namespace{{"", NSSitemap}, {"rs", NSRS}, {"xhtml", xhtml}, {"rs", NSRSLegacy}},
		MD:         Metadata{Capability: CapResourceList, Extra: []Attr{{Space: "urn:a", Prefix: "a", Local: "x", Value: "1"}}},
		Extra:      []Element{{Space: xhtml, Prefix: "xhtml", Local: "meta", Attrs: []Attr{{Local: "name", Value: "n"}}}},
	}
	var b bytes.Buffer
	w, err := NewWriter(&b, h)
	if err != nil {
		t.Fatal(err)
	}
	entries := []Entry{
		{Loc: "http://example.com/1", MD: Metadata{Extra: []Attr{
			{Space: "urn:a", Prefix: "b", Local: "y", Value: "2"}, // bound on the root as a
			{Space: "urn:c", Prefix: "c", Local: "z", Value: "3"}, // declared locally
			{Space: NSXML, Prefix: "xml", Local: "lang", Value: "en"},
		}}},
		{Loc: "http://example.com/2", Extra: []Element{
			{Space: "urn:d", Prefix: "rs", Local: "e", Text: "t & u"},                             // prefix taken: renamed
			{Space: NSSitemap, Local: "priority", Text: "0.5"},                                    // default namespace
			{Space: "", Local: "bare", Attrs: []Attr{{Local: "k", Value: "v"}}},                   // no namespace
			{Space: xhtml, Prefix: "xhtml", Local: "div", Inner: `<xhtml:p a="&gt;">x</xhtml:p>`}, // inner kept
			{Space: "urn:f", Prefix: "f", Local: "cut", Text: "kept", Inner: `<f:a><f:b>ke`},      // truncated inner: text
			{Space: "urn:f", Prefix: "f", Local: "undeclared", Text: "y", Inner: `<g:a>y</g:a>`},  // unknown prefix: text
		}},
	}
	for i := range entries {
		if err := w.WriteEntry(&entries[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, s := range []string{
		"<urlset xmlns=\"" + NSSitemap + "\"\n        xmlns:rs=\"" + NSRS + "\"\n        xmlns:xhtml=\"" + xhtml + "\"\n        xmlns:a=\"urn:a\">",
		`<rs:md capability="resourcelist"` + "\n         a:x=\"1\"/>",
		`<xhtml:meta name="n"/>`,
		"<rs:md xmlns:c=\"urn:c\"\n           a:y=\"2\"\n           c:z=\"3\"\n           xml:lang=\"en\"/>",
		`<ns1:e xmlns:ns1="urn:d">t &amp; u</ns1:e>`,
		`<priority>0.5</priority>`,
		"<bare xmlns=\"\"\n          k=\"v\"/>",
		`<xhtml:div><xhtml:p a="&gt;">x</xhtml:p></xhtml:div>`,
		`<f:cut xmlns:f="urn:f">kept</f:cut>`,
		`<f:undeclared xmlns:f="urn:f">y</f:undeclared>`,
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks\n%s\nin\n%s", s, out)
		}
	}
	doc, err := Parse(strings.NewReader(out))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	md := doc.Entries[0].MD
	if len(md.Extra) != 3 || md.Extra[0].Space != "urn:a" || md.Extra[1].Space != "urn:c" || md.Extra[2].Space != NSXML {
		t.Errorf("entry attributes parsed back: %+v", md.Extra)
	}
	ex := doc.Entries[1].Extra
	if len(ex) != 6 || ex[0].Space != "urn:d" || ex[1].Space != NSSitemap || ex[2].Space != "" || ex[3].Inner != entries[1].Extra[3].Inner {
		t.Errorf("entry elements parsed back: %+v", ex)
	}
	if len(doc.Header.Extra) != 1 || doc.Header.Extra[0].Local != "meta" || doc.MD.Extra[0].Space != "urn:a" {
		t.Errorf("header parsed back: %+v", doc.Header)
	}
}

// Writing a parsed document again is idempotent for documents with datetimes in
// every form (offsets kept as written).
func TestWriterKeepsRawValues(t *testing.T) {
	in := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="changelist" from="2013-01-03T09:00:00+01:00"/>
<url><loc>  http://example.com/x  </loc><lastmod>2013</lastmod>
<rs:md change="created" datetime="2013-01-03T09:00:00.297844-08:00" length="0012" hash="MD5:1584ABDF8EBDC9802AC0C6A7402C03B6"/></url>
</urlset>`
	doc, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := doc.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`from="2013-01-03T09:00:00+01:00"`, `<loc>  http://example.com/x  </loc>`, `<lastmod>2013</lastmod>`,
		`datetime="2013-01-03T09:00:00.297844-08:00"`, `length="0012"`, `hash="MD5:1584ABDF8EBDC9802AC0C6A7402C03B6"`,
	} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("output lacks %s:\n%s", s, b.String())
		}
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n -= len(p); f.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestWriterIOError(t *testing.T) {
	w, err := NewWriter(&failWriter{n: 100}, &Header{Root: RootURLSet})
	if err != nil {
		t.Fatal(err)
	}
	var werr error
	for i := 0; i < 10000 && werr == nil; i++ {
		werr = w.WriteEntry(&Entry{Loc: "http://example.com/" + strconv.Itoa(i)})
	}
	if werr == nil {
		werr = w.Close()
	}
	if werr == nil || !strings.Contains(werr.Error(), "disk full") {
		t.Fatalf("error = %v", werr)
	}
	if err := w.WriteEntry(&Entry{Loc: "x"}); err != werr {
		t.Errorf("error not sticky: %v", err)
	}
	if err := w.Close(); err != werr {
		t.Errorf("Close after error: %v", err)
	}
}

func TestWriterAllocs(t *testing.T) {
	w, err := NewWriter(io.Discard, &Header{Root: RootURLSet})
	if err != nil {
		t.Fatal(err)
	}
	e := benchEntry()
	allocs := testing.AllocsPerRun(1000, func() {
		if err := w.WriteEntry(&e); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("WriteEntry allocates %.1f times per entry", allocs)
	}
}

func benchEntry() Entry {
	h, _ := ParseHashList("md5:1584abdf8ebdc9802ac0c6a7402c03b6")
	return Entry{
		Loc:     "http://example.com/resources/res12345",
		Lastmod: Datetime{Time: time.Date(2013, 1, 2, 13, 0, 0, 0, time.UTC)},
		MD:      Metadata{Hash: h, Length: 8876, LengthOK: true, Type: "text/html"},
	}
}

// The demo Source serves millions of entries through the Writer.
func BenchmarkWriteEntry(b *testing.B) {
	var cw countingWriter
	cw.w = io.Discard
	w, err := NewWriter(&cw, &Header{Root: RootURLSet, MD: Metadata{Capability: CapResourceList}})
	if err != nil {
		b.Fatal(err)
	}
	e := benchEntry()
	b.ReportAllocs()
	for b.Loop() {
		if err := w.WriteEntry(&e); err != nil {
			b.Fatal(err)
		}
	}
	w.Close()
	b.SetBytes(cw.n / int64(max(b.N, 1)))
}

// Whatever the values, the Writer either refuses them with a *WriteError or
// writes a document that parses back to the same values.
func FuzzWriteEntry(f *testing.F) {
	f.Add("http://example.com/a?b=1&c=2", "text/html", "duplicate", " http://x/ ", "t & u", "2013-01-03T09:00:00+01:00")
	f.Add(" \u00a0x\r\n", "a\"b'c\t<>", "up\n", "\x01", "]]>", "\uffff")
	f.Add("é", "\xff", "", "", "<a>", "")
	f.Fuzz(func(t *testing.T, loc, typ, rel, href, text, raw string) {
		e := Entry{
			Loc:     loc,
			HasLoc:  true,
			Lastmod: Datetime{Raw: raw},
			MD:      Metadata{Type: typ, Extra: []Attr{{Space: "urn:x", Prefix: "x", Local: "a", Value: text}}},
			Links:   []Link{{Rel: rel, HasRel: true, Href: href, HasHref: true}},
			Extra:   []Element{{Space: "urn:x", Prefix: "x", Local: "e", Text: text}},
		}
		var b bytes.Buffer
		w, err := NewWriter(&b, &Header{Root: RootURLSet, MD: Metadata{Capability: CapResourceList}})
		if err != nil {
			t.Fatal(err)
		}
		werr := w.WriteEntry(&e)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		doc, err := Parse(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatalf("output does not parse: %v\n%s", err, b.Bytes())
		}
		if werr != nil {
			var we *WriteError
			if !errors.As(werr, &we) {
				t.Fatalf("error %T %v", werr, werr)
			}
			if len(doc.Entries) != 0 {
				t.Fatalf("refused entry was written: %s", b.Bytes())
			}
			return
		}
		if len(doc.Entries) != 1 {
			t.Fatalf("%d entries", len(doc.Entries))
		}
		g := &doc.Entries[0]
		if g.loc() != loc && !(loc == "" && g.Loc == "") {
			t.Errorf("loc %q → %q", loc, g.loc())
		}
		if g.MD.Type != typ || g.Links[0].Rel != rel || g.Links[0].Href != strings.TrimSpace(href) {
			t.Errorf("attributes changed: %q %q %q → %q %q %q", typ, rel, href, g.MD.Type, g.Links[0].Rel, g.Links[0].Href)
		}
		if len(g.MD.Extra) != 1 || g.MD.Extra[0].Value != text || g.MD.Extra[0].Space != "urn:x" {
			t.Errorf("extra attribute %q → %+v", text, g.MD.Extra)
		}
		if len(g.Extra) != 1 || g.Extra[0].Text != strings.TrimSpace(text) {
			t.Errorf("extra element %q → %+v", text, g.Extra)
		}
		if trimmed := strings.TrimSpace(raw); g.Lastmod.Raw != trimmed && trimmed != "" {
			t.Errorf("lastmod %q → %q", raw, g.Lastmod.Raw)
		}
	})
}
