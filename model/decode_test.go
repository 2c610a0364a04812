package model

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// The third-party documents under chkConformanceDir (their READMEs say where
// they come from): the specification's examples and what a real implementation
// wrote.
const (
	decSpecExamples = "spec-examples-v1.1/*.xml"
	decRealWorld    = "real-world/resync-client-ruby/*/*.xml"
)

const (
	decSM = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"`
	decRS = `xmlns:rs="http://www.openarchives.org/rs/terms/"`
)

func decParseString(s string) (*Document, error) { return Parse(strings.NewReader(s)) }

func decMustParse(t *testing.T, s string) *Document {
	t.Helper()
	doc, err := decParseString(s)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return doc
}

// decXMLReference reads what the decoder should find with encoding/xml, for documents
// encoding/xml can read: the root, the document capability and every entry's loc.
type decXMLReference struct {
	XMLName xml.Name
	MD      struct {
		Capability string `xml:"capability,attr"`
	} `xml:"http://www.openarchives.org/rs/terms/ md"`
	URLs []struct {
		Loc string `xml:"loc"`
	} `xml:"url"`
	Sitemaps []struct {
		Loc string `xml:"loc"`
	} `xml:"sitemap"`
}

func decConformanceFiles(t *testing.T, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(chkConformanceDir, pattern))
	if err != nil || len(files) == 0 {
		t.Fatalf("no file matches %s in %s (%v)", pattern, chkConformanceDir, err)
	}
	return files
}

// decThirdPartyFiles: the specification's examples and the real-world documents.
func decThirdPartyFiles(t *testing.T) []string {
	t.Helper()
	return append(decConformanceFiles(t, decSpecExamples), decConformanceFiles(t, decRealWorld)...)
}

func TestDecodeSpecExamples(t *testing.T) {
	for _, f := range decThirdPartyFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var ref decXMLReference
			if err := xml.Unmarshal(data, &ref); err != nil {
				t.Fatalf("encoding/xml: %v", err)
			}
			doc, err := Parse(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			wantRoot := map[string]RootKind{"urlset": RootURLSet, "sitemapindex": RootSitemapIndex}[ref.XMLName.Local]
			if doc.Root != wantRoot || doc.RootSpace != NSSitemap {
				t.Errorf("root = %v %q, want %v", doc.Root, doc.RootSpace, wantRoot)
			}
			if string(doc.MD.Capability) != ref.MD.Capability || doc.MDCount != 1 {
				t.Errorf("capability = %q (md count %d), want %q", doc.MD.Capability, doc.MDCount, ref.MD.Capability)
			}
			locs := ref.URLs
			if doc.Root == RootSitemapIndex {
				locs = ref.Sitemaps
			}
			if len(doc.Entries) != len(locs) {
				t.Fatalf("%d entries, want %d", len(doc.Entries), len(locs))
			}
			for i, e := range doc.Entries {
				if e.Index != i || !e.HasLoc || e.LocCount != 1 || e.Loc != strings.TrimSpace(locs[i].Loc) {
					t.Errorf("entry %d: index %d loc %q (has %v, count %d), want %q", i, e.Index, e.Loc, e.HasLoc, e.LocCount, locs[i].Loc)
				}
				if e.Lastmod.Raw != "" && !e.Lastmod.OK {
					t.Errorf("entry %d: lastmod %q did not parse", i, e.Lastmod.Raw)
				}
				if e.MD.HashRaw != "" && len(e.MD.Hash) == 0 {
					t.Errorf("entry %d: hash %q not parsed", i, e.MD.HashRaw)
				}
			}
			if doc.Bytes != int64(len(data)) {
				t.Errorf("Bytes = %d, want %d", doc.Bytes, len(data))
			}
		})
	}
}

func TestDecodeSpecExampleDetails(t *testing.T) {
	f := filepath.Join(chkConformanceDir, "spec-examples-v1.1/resourcesync_ex_2.xml")
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !doc.MD.At.OK || doc.MD.At.Raw != "2013-01-03T09:00:00Z" || !doc.MD.At.Time.Equal(time.Date(2013, 1, 3, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("at = %+v", doc.MD.At)
	}
	e := doc.Entries[1]
	if e.Line != 11 || e.MD.Line != 14 || len(e.Links) != 1 || e.Links[0].Line != 15 {
		t.Errorf("lines: entry %d md %d links %+v", e.Line, e.MD.Line, e.Links)
	}
	if l := e.Links[0]; l.Rel != "duplicate" || l.Href != "http://mirror.example.com/res2" || !l.HasRel || !l.HasHref {
		t.Errorf("link = %+v", l)
	}
	if h, ok := e.MD.Hash.Get("md5"); !ok || h.Encoding != HashHex || len(h.Digest) != 16 || h.Value != "1e0d5cb8ef6ba40c99b14c0237be735e" {
		t.Errorf("hash = %+v", e.MD.Hash)
	}
	if !e.Lastmod.OK || e.Lastmod.Precision != PrecisionSecond {
		t.Errorf("lastmod = %+v", e.Lastmod)
	}
}

func TestDecodeDocuments(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		check func(t *testing.T, d *Document)
	}{
		{
			name: "prefixed root and rs bound to another prefix",
			in: `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:x="http://www.openarchives.org/rs/terms/">
<x:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
<sm:url><sm:loc>http://e.com/1</sm:loc><x:md length="5"/></sm:url></sm:urlset>`,
			check: func(t *testing.T, d *Document) {
				if d.Root != RootURLSet || d.RootSpace != NSSitemap || d.MD.Capability != CapResourceList || len(d.Entries) != 1 {
					t.Fatalf("header %+v, %d entries", d.Header, len(d.Entries))
				}
				if e := d.Entries[0]; e.Loc != "http://e.com/1" || e.MD.Length != 5 || !e.MD.LengthOK || !e.MD.Present {
					t.Errorf("entry %+v", e)
				}
				want := []Namespace{{"sm", NSSitemap}, {"x", NSRS}}
				if !reflect.DeepEqual(d.Namespaces, want) {
					t.Errorf("namespaces %+v", d.Namespaces)
				}
			},
		},
		{
			name: "default namespace rebound on children",
			in: `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns="http://www.openarchives.org/rs/terms/">
<md capability="changelist"/>
<sm:url><sm:loc>a</sm:loc><md change="created"/><ln rel="alternate" href="b"/></sm:url>
<url xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><loc>c</loc><md xmlns="http://www.openarchives.org/rs/terms/" change="deleted"/></url>
</sm:urlset>`,
			check: func(t *testing.T, d *Document) {
				if d.MD.Capability != CapChangeList || len(d.Entries) != 2 {
					t.Fatalf("header %+v, %d entries", d.Header, len(d.Entries))
				}
				if e := d.Entries[0]; e.MD.Change != ChangeCreated || len(e.Links) != 1 || e.Links[0].Rel != "alternate" {
					t.Errorf("entry 0 %+v", e)
				}
				if e := d.Entries[1]; e.Loc != "c" || e.MD.Change != ChangeDeleted || len(e.Extra) != 0 {
					t.Errorf("entry 1 %+v", e)
				}
			},
		},
		{
			name: "no namespace is accepted and recorded",
			in:   `<urlset><url><loc>a</loc><lastmod>2013</lastmod></url></urlset>`,
			check: func(t *testing.T, d *Document) {
				if d.Root != RootURLSet || d.RootSpace != "" || len(d.Entries) != 1 || d.Entries[0].Loc != "a" {
					t.Errorf("%+v", d)
				}
				if lm := d.Entries[0].Lastmod; !lm.OK || lm.Precision != PrecisionYear {
					t.Errorf("lastmod %+v", lm)
				}
			},
		},
		{
			name: "sitemap index",
			in: `<sitemapindex ` + decSM + ` ` + decRS + `><rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
<sitemap><loc>http://e.com/l1.xml</loc><rs:md at="2013-01-03T09:00:00Z" completed="2013-01-03T09:05:00Z"/></sitemap></sitemapindex>`,
			check: func(t *testing.T, d *Document) {
				if d.Root != RootSitemapIndex || len(d.Entries) != 1 {
					t.Fatalf("%+v", d)
				}
				if md := d.Entries[0].MD; !md.At.OK || !md.Completed.OK || md.Completed.Time.Sub(md.At.Time) != 5*time.Minute {
					t.Errorf("md %+v", md)
				}
			},
		},
		{
			name: "unknown elements and attributes are kept",
			in: `<urlset ` + decSM + ` ` + decRS + ` xmlns:x="urn:x">
<rs:md capability="resourcelist" x:note="n" rs:at="2013" foo="bar"/>
<x:generator version="1">rsx <b>bold</b> tail</x:generator>
<url><loc>a</loc><x:extra x:k="v">t&amp;u<![CDATA[<c>]]></x:extra><image/>
<rs:md type="text/html" rs:capability="resourcelist" xml:lang="en"/></url></urlset>`,
			check: func(t *testing.T, d *Document) {
				md := d.MD
				wantExtra := []Attr{{Space: "urn:x", Prefix: "x", Local: "note", Value: "n"}, {Space: NSRS, Prefix: "rs", Local: "at", Value: "2013"}, {Local: "foo", Value: "bar"}}
				if !reflect.DeepEqual(md.Extra, wantExtra) || md.At.Raw != "" {
					t.Errorf("md extra %+v, at %+v", md.Extra, md.At)
				}
				if len(d.Extra) != 1 {
					t.Fatalf("header extra %+v", d.Extra)
				}
				if g := d.Extra[0]; g.Local != "generator" || g.Space != "urn:x" || g.Prefix != "x" || g.Text != "rsx  tail" || g.Inner != "rsx <b>bold</b> tail" || g.Line != 3 || !reflect.DeepEqual(g.Attrs, []Attr{{Local: "version", Value: "1"}}) {
					t.Errorf("generator %+v", g)
				}
				e := d.Entries[0]
				if len(e.Extra) != 2 || e.Extra[0].Text != "t&u<c>" || e.Extra[0].Inner != "t&amp;u<![CDATA[<c>]]>" || e.Extra[1].Local != "image" || e.Extra[1].Space != NSSitemap {
					t.Errorf("entry extra %+v", e.Extra)
				}
				want := []Attr{{Space: NSRS, Prefix: "rs", Local: "capability", Value: "resourcelist"}, {Space: NSXML, Prefix: "xml", Local: "lang", Value: "en"}}
				if !reflect.DeepEqual(e.MD.Extra, want) || e.MD.Capability != "" || e.MD.Type != "text/html" {
					t.Errorf("entry md %+v", e.MD)
				}
			},
		},
		{
			name: "legacy namespace, elements and attributes",
			in: `<urlset ` + decSM + ` xmlns:rs="http://www.openarchives.org/rs/">
<rs:md capability="resourcelist" modified="2012-10-31T09:00:00Z"/>
<url><loc>a</loc><rs:fixity type="md5">Q2hlY2sgSW50ZWdyaXR5IQ==</rs:fixity><rs:size>15672</rs:size>
<rs:md hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6" etag="114c12b"/></url></urlset>`,
			check: func(t *testing.T, d *Document) {
				if d.MD.Capability != CapResourceList || len(d.MD.Extra) != 1 || d.MD.Extra[0].Local != "modified" {
					t.Errorf("md %+v", d.MD)
				}
				e := d.Entries[0]
				if len(e.Extra) != 2 || e.Extra[0].Local != "fixity" || e.Extra[0].Text != "Q2hlY2sgSW50ZWdyaXR5IQ==" || e.Extra[1].Text != "15672" || e.Extra[0].Attrs[0].Value != "md5" {
					t.Errorf("extra %+v", e.Extra)
				}
				if len(e.MD.Hash) != 1 || len(e.MD.Extra) != 1 || e.MD.Extra[0].Local != "etag" {
					t.Errorf("entry md %+v", e.MD)
				}
				var whats []string
				for _, l := range d.Legacy {
					whats = append(whats, l.What)
				}
				want := []string{"namespace " + NSRSLegacy, "attribute modified", "element rs:fixity", "element rs:size", "attribute etag"}
				if !reflect.DeepEqual(whats, want) {
					t.Errorf("legacy %q", whats)
				}
				if d.Legacy[0].Entry != -1 || d.Legacy[2].Entry != 0 || d.Legacy[2].Line != 3 {
					t.Errorf("legacy %+v", d.Legacy)
				}
			},
		},
		{
			name: "entities, character references and CDATA in loc",
			in:   `<urlset ` + decSM + `><url><loc>http://e.com/?a=1&amp;b=&#50;&#x33;&lt;&gt;&apos;&quot;</loc></url><url><loc><![CDATA[http://e.com/?x=1&y=2]]></loc></url></urlset>`,
			check: func(t *testing.T, d *Document) {
				if d.Entries[0].Loc != `http://e.com/?a=1&b=23<>'"` || d.Entries[1].Loc != "http://e.com/?x=1&y=2" {
					t.Errorf("locs %q %q", d.Entries[0].Loc, d.Entries[1].Loc)
				}
			},
		},
		{
			name: "whitespace around loc and in attributes",
			in:   "<urlset " + decSM + " " + decRS + "><url><loc>\n   http://e.com/a \n</loc><rs:md hash=\"md5:1584abdf8ebdc9802ac0c6a7402c03b6\n sha-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784\"/></url></urlset>",
			check: func(t *testing.T, d *Document) {
				e := d.Entries[0]
				if e.Loc != "http://e.com/a" || e.LocRaw != "\n   http://e.com/a \n" {
					t.Errorf("loc %q raw %q", e.Loc, e.LocRaw)
				}
				if len(e.MD.Hash) != 2 || e.MD.HashRaw != "md5:1584abdf8ebdc9802ac0c6a7402c03b6  sha-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784" {
					t.Errorf("hash %q %+v", e.MD.HashRaw, e.MD.Hash)
				}
			},
		},
		{
			name: "64-bit length, invalid values keep their raw form",
			in: `<urlset ` + decSM + ` ` + decRS + `><url><loc>a</loc><lastmod>2013-13-01</lastmod><rs:md length="9788456778" datetime="yesterday" hash="md5:zz"/></url>
<url><loc>b</loc><rs:md length="-3" change="moved" capability="other"/></url></urlset>`,
			check: func(t *testing.T, d *Document) {
				e := d.Entries[0]
				if e.MD.Length != 9788456778 || !e.MD.LengthOK || e.MD.LengthRaw != "9788456778" {
					t.Errorf("length %+v", e.MD)
				}
				if e.Lastmod.OK || e.Lastmod.Raw != "2013-13-01" || e.MD.Datetime.OK || e.MD.Datetime.Raw != "yesterday" {
					t.Errorf("datetimes %+v %+v", e.Lastmod, e.MD.Datetime)
				}
				if e.MD.HashRaw != "md5:zz" || len(e.MD.Hash) != 1 || e.MD.Hash[0].Encoding != HashInvalid {
					t.Errorf("hash %+v", e.MD.Hash)
				}
				e = d.Entries[1]
				if e.MD.LengthOK || e.MD.LengthRaw != "-3" || e.MD.Change != "moved" || e.MD.Capability != "other" {
					t.Errorf("entry 1 md %+v", e.MD)
				}
			},
		},
		{
			name: "links with every attribute",
			in: `<urlset ` + decSM + ` ` + decRS + `><url><loc>a</loc><rs:ln rel="duplicate mirror" href=" http://m.com/a " pri="2" type="text/plain" encoding="gzip" path="/a" length="12" hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6" modified="2013-01-03T09:00:00+01:00" x="y"/>
<rs:ln rel="alternate" href="b" pri="high"/></url></urlset>`,
			check: func(t *testing.T, d *Document) {
				ls := d.Entries[0].Links
				if len(ls) != 2 {
					t.Fatalf("links %+v", ls)
				}
				l := ls[0]
				if l.Rel != "duplicate mirror" || l.Href != "http://m.com/a" || l.Pri != 2 || !l.PriOK || l.Type != "text/plain" || l.Encoding != "gzip" || !l.HasPath || l.Path != "/a" || l.Length != 12 || len(l.Hash) != 1 || !l.Modified.OK || l.Modified.UTC || len(l.Extra) != 1 {
					t.Errorf("link %+v", l)
				}
				if l.Modified.Time.Hour() != 8 {
					t.Errorf("modified %v", l.Modified.Time)
				}
				if ls[1].PriOK || ls[1].PriRaw != "high" || ls[1].HasPath {
					t.Errorf("link 1 %+v", ls[1])
				}
			},
		},
		{
			name: "repeated loc and md are counted",
			in:   `<urlset ` + decSM + ` ` + decRS + `><url><loc>a</loc><loc>b</loc><rs:md length="1"/><rs:md length="2"/></url><url><lastmod>2013</lastmod></url></urlset>`,
			check: func(t *testing.T, d *Document) {
				e := d.Entries[0]
				if e.Loc != "a" || e.LocCount != 2 || e.MDCount != 2 || e.MD.Length != 1 {
					t.Errorf("entry %+v", e)
				}
				if e := d.Entries[1]; e.HasLoc || e.LocCount != 0 || e.MD.Present {
					t.Errorf("entry 1 %+v", e)
				}
			},
		},
		{
			name: "document-level elements after the entries",
			in:   `<urlset ` + decSM + ` ` + decRS + `><url><loc>a</loc></url><rs:md capability="resourcelist"/><rs:ln rel="up" href="u"/></urlset>`,
			check: func(t *testing.T, d *Document) {
				if d.MD.Capability != CapResourceList || len(d.Links) != 1 || len(d.Entries) != 1 {
					t.Errorf("%+v", d)
				}
			},
		},
		{
			name: "comments, processing instructions and a plain DOCTYPE",
			in:   "<?xml version='1.0'?>\n<!-- c -->\n<!DOCTYPE urlset SYSTEM \"x.dtd\">\n<?pi x?><urlset " + decSM + "><!-- c --><url><loc>a<!-- c -->b</loc></url></urlset>\n<!-- end -->\n",
			check: func(t *testing.T, d *Document) {
				if len(d.Entries) != 1 || d.Entries[0].Loc != "ab" || d.Entries[0].Line != 4 {
					t.Errorf("%+v", d.Entries)
				}
			},
		},
		{
			name: "HTML page is not a Sitemap",
			in:   "<!DOCTYPE html>\n<html lang=en><head><link rel=resourcesync href=/x></head></html>",
			check: func(t *testing.T, d *Document) {
				if d.Root != RootUnknown || d.RootLocal != "html" || len(d.Entries) != 0 {
					t.Errorf("%+v", d)
				}
			},
		},
		{
			name: "Atom feed is not a Sitemap",
			in:   `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><entry/></feed>`,
			check: func(t *testing.T, d *Document) {
				if d.Root != RootUnknown || d.RootLocal != "feed" || d.RootSpace != "http://www.w3.org/2005/Atom" {
					t.Errorf("%+v", d)
				}
			},
		},
		{
			name: "variant Sitemap namespace is read and recorded",
			in:   `<urlset xmlns="http://www.google.com/schemas/sitemap/0.84" ` + decRS + `><url><loc>a</loc><rs:md length="1"/><x xmlns="urn:x"/></url></urlset>`,
			check: func(t *testing.T, d *Document) {
				if d.Root != RootURLSet || d.RootSpace != "http://www.google.com/schemas/sitemap/0.84" || len(d.Entries) != 1 || d.Entries[0].Loc != "a" || len(d.Entries[0].Extra) != 1 {
					t.Errorf("%+v", d)
				}
			},
		},
		{
			name: "urlset in a foreign namespace is not a Sitemap",
			in:   `<urlset xmlns="urn:other"><url><loc>a</loc></url></urlset>`,
			check: func(t *testing.T, d *Document) {
				if d.Root != RootUnknown || d.RootLocal != "urlset" || d.RootSpace != "urn:other" || len(d.Entries) != 0 {
					t.Errorf("%+v", d)
				}
			},
		},
		{
			name: "UTF-8 BOM and non-ASCII text",
			in:   "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"UTF-8\"?><urlset " + decSM + "><url><loc>http://e.com/caf\u00e9</loc></url></urlset>",
			check: func(t *testing.T, d *Document) {
				if d.XMLEncoding != "UTF-8" || d.Entries[0].Loc != "http://e.com/café" {
					t.Errorf("%+v", d)
				}
			},
		},
		{
			name: "ISO-8859-1 declared encoding",
			in:   "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><urlset " + decSM + "><url><loc>http://e.com/caf\xe9</loc></url></urlset>",
			check: func(t *testing.T, d *Document) {
				if d.XMLEncoding != "ISO-8859-1" || d.Entries[0].Loc != "http://e.com/café" {
					t.Errorf("encoding %q loc %q", d.XMLEncoding, d.Entries[0].Loc)
				}
			},
		},
		{
			name: "windows-1252 declared encoding",
			in:   "<?xml version=\"1.0\" encoding=\"windows-1252\"?><urlset " + decSM + "><url><loc>http://e.com/\x80</loc></url></urlset>",
			check: func(t *testing.T, d *Document) {
				if d.Entries[0].Loc != "http://e.com/€" {
					t.Errorf("loc %q", d.Entries[0].Loc)
				}
			},
		},
		{
			name: "UTF-16 with BOM",
			in:   decUTF16LE("\uFEFF<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<urlset " + decSM + "><url><loc>http://e.com/é</loc></url></urlset>"),
			check: func(t *testing.T, d *Document) {
				if len(d.Entries) != 1 || d.Entries[0].Loc != "http://e.com/é" || d.Entries[0].Line != 2 {
					t.Errorf("%+v", d.Entries)
				}
			},
		},
		{
			name: "UTF-16 declared on an ASCII stream is ignored",
			in:   "<?xml version=\"1.0\" encoding=\"UTF-16\"?><urlset " + decSM + "><url><loc>a</loc></url></urlset>",
			check: func(t *testing.T, d *Document) {
				if len(d.Entries) != 1 || d.Entries[0].Loc != "a" {
					t.Errorf("%+v", d.Entries)
				}
			},
		},
		{
			name: "CR LF line ends",
			in:   "<urlset " + decSM + ">\r\n<url>\r\n<loc>a</loc>\r\n</url>\r\n<url><loc>b</loc></url></urlset>",
			check: func(t *testing.T, d *Document) {
				if d.Entries[0].Line != 2 || d.Entries[1].Line != 5 {
					t.Errorf("lines %d %d", d.Entries[0].Line, d.Entries[1].Line)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, decMustParse(t, tt.in))
			// The same document read one byte at a time gives the same result.
			doc, err := Parse(iotest.OneByteReader(strings.NewReader(tt.in)))
			if err != nil {
				t.Fatalf("one byte at a time: %v", err)
			}
			tt.check(t, doc)
		})
	}
}

func decUTF16LE(s string) string {
	var b []byte
	for _, r := range s {
		b = append(b, byte(r), byte(r>>8))
	}
	return string(b)
}

func decGzip(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestDecodeGzipSource: gzip is undone by the source (fetch.Open), not by the
// Decoder; a source whose compressed data is cut short or corrupt gives a
// syntax error, whatever the byte.
func TestDecodeGzipSource(t *testing.T) {
	data := benchResourceList(t, 300)
	z := decGzip(t, data)
	doc, err := Parse(gunzipSource(bytes.NewReader(z)))
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Entries) != 300 || doc.Bytes != int64(len(data)) {
		t.Errorf("%d entries, %d bytes; want 300, %d", len(doc.Entries), doc.Bytes, len(data))
	}
	plain, _ := Parse(bytes.NewReader(data))
	if !reflect.DeepEqual(plain.Entries, doc.Entries) {
		t.Error("gzip and plain entries differ")
	}
	if _, err := Parse(bytes.NewReader(z)); !decIsSyntaxError(err) || !strings.Contains(err.Error(), "not an XML document") {
		t.Errorf("gzip bytes themselves: %v, want: not an XML document", err)
	}
	for k := 0; k < len(z); k += 1 + len(z)/200 {
		if _, err := Parse(gunzipSource(bytes.NewReader(z[:k]))); !decIsSyntaxError(err) {
			t.Fatalf("gzip cut at %d of %d: %v, want a syntax error", k, len(z), err)
		}
		bad := bytes.Clone(z)
		bad[k] ^= 0x5a
		if _, err := Parse(gunzipSource(bytes.NewReader(bad))); err != nil && !decIsSyntaxError(err) {
			t.Fatalf("gzip corrupt at %d of %d: %v, want a syntax error", k, len(z), err)
		}
	}
}

// gunzipSource undoes gzip, recognised by its magic bytes, as fetch.Open does
// for the Decoder: a header that does not parse fails the first Read.
func gunzipSource(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(2); len(head) < 2 || head[0] != 0x1f || head[1] != 0x8b {
		return br
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return iotest.ErrReader(err)
	}
	return zr
}

func decIsSyntaxError(err error) bool {
	var se *SyntaxError
	return errors.As(err, &se)
}

// TestDecodeChunked reads the benchmark document through readers that return
// few bytes at a time, so that items straddle the window's end.
func TestDecodeChunked(t *testing.T) {
	data := benchResourceList(t, 2000)
	want, err := Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Entries) != 2000 {
		t.Fatalf("%d entries", len(want.Entries))
	}
	readers := map[string]io.Reader{
		"one byte": iotest.OneByteReader(bytes.NewReader(data)),
		"half":     iotest.HalfReader(bytes.NewReader(data)),
		"data+err": iotest.DataErrReader(bytes.NewReader(data)),
	}
	for name, r := range readers {
		got, err := Parse(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got.Header, want.Header) || got.Bytes != want.Bytes || len(got.Entries) != len(want.Entries) {
			t.Fatalf("%s: document differs: %+v", name, got.Header)
		}
		for i := range got.Entries {
			if !reflect.DeepEqual(got.Entries[i], want.Entries[i]) {
				t.Fatalf("%s: entry %d differs:\n%+v\n%+v", name, i, got.Entries[i], want.Entries[i])
			}
		}
	}
	e := want.Entries[1234]
	if e.Loc != "http://example.com/res/1/item-1234.txt" {
		t.Errorf("entry 1234 loc %q", e.Loc)
	}
	if len(e.MD.Hash) != 2 || e.MD.Type != "text/plain" || !e.Lastmod.OK || e.Line != 6+1234*5 || e.MD.Line != e.Line+3 {
		t.Errorf("entry 1234 %+v", e)
	}
}

// TestDecodeEntriesIndependent checks that entries handed out by Next do not share
// memory that later entries overwrite.
func TestDecodeEntriesIndependent(t *testing.T) {
	data := benchResourceList(t, 50)
	d := NewDecoder(bytes.NewReader(data), DecoderOptions{})
	var e Entry
	var kept []Entry
	for d.Next(&e) == nil {
		kept = append(kept, e)
	}
	want, _ := Parse(bytes.NewReader(data))
	if !reflect.DeepEqual(kept, want.Entries) {
		t.Error("kept entries changed")
	}
}

func TestDecodeHeaderStreaming(t *testing.T) {
	in := `<urlset ` + decSM + ` ` + decRS + `><rs:md capability="changelist"/><url><loc>a</loc></url><url><loc>b</loc></url><rs:ln rel="up" href="u"/></urlset>`
	d := NewDecoder(strings.NewReader(in), DecoderOptions{})
	h, err := d.Header()
	if err != nil || h.MD.Capability != CapChangeList || len(h.Links) != 0 {
		t.Fatalf("header %+v %v", h, err)
	}
	var e Entry
	var locs []string
	for {
		err := d.Next(&e)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, e.Loc)
	}
	if !reflect.DeepEqual(locs, []string{"a", "b"}) || len(h.Links) != 1 || d.BytesRead() != int64(len(in)) || d.Line() != 1 {
		t.Errorf("locs %q links %+v bytes %d", locs, h.Links, d.BytesRead())
	}
	if err := d.Next(&e); err != io.EOF {
		t.Errorf("Next after the end: %v", err)
	}
}

func TestDecodeErrors(t *testing.T) {
	deep := strings.Repeat("<a>", 100000) + strings.Repeat("</a>", 100000)
	tests := []struct {
		name string
		in   string
		line int
		msg  string
	}{
		{"empty", "", 1, "empty document"},
		{"whitespace only", "  \n ", 2, "no root element"},
		{"binary garbage", "\x00\x01\x02\xff\xfe garbage", 1, "not an XML document"},
		{"plain text", "Not Found", 1, "not an XML document"},
		{"truncated", `<urlset ` + decSM + `><url><loc>a</lo`, 1, "unexpected end of input"},
		{"unclosed root", "<urlset " + decSM + ">\n<url><loc>a</loc></url>\n", 3, "<urlset> opened on line 1 is not closed"},
		{"mismatched", "<urlset " + decSM + "><url>\n<loc>a</url></urlset>", 2, "</url> does not match <loc>"},
		{"unknown entity", `<urlset ` + decSM + `><url><loc>&nbsp;</loc></url></urlset>`, 1, "undefined entity &nbsp;"},
		{"bare ampersand", `<urlset ` + decSM + `><url><loc>a&b</loc></url></urlset>`, 1, "'&' not followed"},
		{"bad char ref", `<urlset ` + decSM + `><url><loc>&#0;</loc></url></urlset>`, 1, "invalid character reference"},
		{"surrogate char ref", `<urlset ` + decSM + `><url><loc>&#xD800;</loc></url></urlset>`, 1, "invalid character reference"},
		{"bad char ref in attribute", `<urlset ` + decSM + ` ` + decRS + `><rs:md capability="&#x110000;"/></urlset>`, 1, "invalid character reference"},
		{"text outside root", `<urlset ` + decSM + `></urlset>junk`, 1, "after the end of the root"},
		{"two roots", `<urlset ` + decSM + `></urlset><urlset/>`, 1, "second root element"},
		{"DOCTYPE entity bomb", `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]><urlset ` + decSM + `><url><loc>&lol2;</loc></url></urlset>`, 1, "DOCTYPE declares entities"},
		{"deep nesting", `<urlset ` + decSM + `><url>` + deep + `</url></urlset>`, 1, "nested more than 256 deep"},
		{"undeclared prefix", `<urlset ` + decSM + `><rs:md capability="x"/></urlset>`, 1, `undeclared namespace prefix "rs"`},
		{"duplicate attribute", `<urlset ` + decSM + ` ` + decRS + `><rs:md at="1" at="2"/></urlset>`, 1, "attribute at repeated"},
		{"lt in attribute", `<urlset ` + decSM + ` ` + decRS + `><rs:md type="a<b"/></urlset>`, 1, "'<' in the value"},
		{"unquoted attribute in a urlset", `<urlset a=b></urlset>`, 1, "not quoted"},
		{"invalid UTF-8", "<urlset " + decSM + "><url><loc>\xff\xfe</loc></url></urlset>", 1, "invalid UTF-8"},
		{"control character", "<urlset " + decSM + "><url><loc>a\x01</loc></url></urlset>", 1, "invalid character U+0001"},
		{"end tag without start", `</urlset>`, 1, "without a matching start tag"},
		{"unsupported encoding", `<?xml version="1.0" encoding="x-klingon"?><urlset/>`, 1, "unsupported encoding"},
		{"CDATA outside root", `<![CDATA[x]]><urlset/>`, 1, "CDATA section outside"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := decParseString(tt.in)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Parse did not return")
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T), want *SyntaxError", err, err)
			}
			if se.Line != tt.line || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("error %q, want line %d and %q", err, tt.line, tt.msg)
			}
			if !strings.HasPrefix(se.Error(), "line ") {
				t.Errorf("Error() = %q", se.Error())
			}
		})
	}
}

// decHugeAttrReader yields a Resource List whose first rs:md has a hash attribute of
// n bytes, generated lazily.
type decHugeAttrReader struct {
	head, tail string
	n, done    int64
	stage      int
}

func (r *decHugeAttrReader) Read(p []byte) (int, error) {
	switch r.stage {
	case 0:
		n := copy(p, r.head)
		r.head = r.head[n:]
		if r.head == "" {
			r.stage++
		}
		return n, nil
	case 1:
		m := int64(len(p))
		if m > r.n-r.done {
			m = r.n - r.done
		}
		for i := range p[:m] {
			p[i] = 'a'
		}
		r.done += m
		if r.done == r.n {
			r.stage++
		}
		return int(m), nil
	case 2:
		n := copy(p, r.tail)
		r.tail = r.tail[n:]
		if r.tail == "" {
			r.stage++
		}
		return n, nil
	}
	return 0, io.EOF
}

func TestDecodeHugeAttribute(t *testing.T) {
	r := &decHugeAttrReader{
		head: `<urlset ` + decSM + ` ` + decRS + `><url><loc>a</loc><rs:md hash="md5:`,
		n:    2 << 30,
		tail: `"/></url></urlset>`,
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := Parse(r)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "attribute value exceeds 4194304 bytes") || !decIsSyntaxError(err) {
		t.Fatalf("error %v", err)
	}
	if r.done > 64<<20 {
		t.Errorf("read %d bytes of the attribute before failing", r.done)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("allocated %d bytes", alloc)
	}
	if elapsed > 5*time.Second {
		t.Errorf("took %v", elapsed)
	}
}

func TestDecodeLimits(t *testing.T) {
	data := benchResourceList(t, 100)
	d := NewDecoder(bytes.NewReader(data), DecoderOptions{MaxBytes: 10000})
	var e Entry
	var err error
	for err == nil {
		err = d.Next(&e)
	}
	// The size limit is not malformed XML (issue 27): a SizeLimitError
	// that names the limit, in every decoding mode.
	for _, par := range []int{0, 4} {
		d := NewDecoder(bytes.NewReader(data), DecoderOptions{MaxBytes: 10000, Parallel: par, blockSize: 4096})
		var err error
		for err == nil {
			err = d.Next(&e)
		}
		var sl *SizeLimitError
		if !errors.As(err, &sl) || sl.Limit != 10000 || decIsSyntaxError(err) || !strings.Contains(err.Error(), "size limit was reached") {
			t.Errorf("MaxBytes, parallel %d: %T %v", par, err, err)
		}
		d.Close()
	}
	// A negative MaxBytes sets no bound: the caller's reader bounds it.
	big := benchResourceList(t, 20000)
	if len(big) < 1<<20 {
		t.Fatalf("test document of %d bytes", len(big))
	}
	doc, err := ParseWith(bytes.NewReader(big), DecoderOptions{MaxBytes: -1})
	if err != nil || len(doc.Entries) != 20000 {
		t.Errorf("MaxBytes -1: %v", err)
	}
	long := `<urlset ` + decSM + `><url><loc>` + strings.Repeat("x", 5000) + `</loc></url></urlset>`
	_, err = NewDecoder(strings.NewReader(long), DecoderOptions{MaxTokenBytes: 1000}).Header()
	if err == nil {
		_, err = decParseWith(long, DecoderOptions{MaxTokenBytes: 1000})
	}
	if !decIsSyntaxError(err) || !strings.Contains(err.Error(), "text of <loc> exceeds 1000 bytes") {
		t.Errorf("MaxTokenBytes: %v", err)
	}
	nested := `<urlset ` + decSM + `><url><x><y><z/></y></x></url></urlset>`
	if _, err := decParseWith(nested, DecoderOptions{MaxDepth: 4}); !decIsSyntaxError(err) || !strings.Contains(err.Error(), "nested more than 4 deep") {
		t.Errorf("MaxDepth: %v", err)
	}
	if _, err := decParseWith(nested, DecoderOptions{MaxDepth: 5}); err != nil {
		t.Errorf("MaxDepth 5: %v", err)
	}
}

func decParseWith(s string, opts DecoderOptions) (int, error) {
	d := NewDecoder(strings.NewReader(s), opts)
	if _, err := d.Header(); err != nil {
		return 0, err
	}
	var e Entry
	n := 0
	for {
		err := d.Next(&e)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// decErrReader fails after its data.
type decErrReader struct {
	data []byte
	err  error
}

func (r *decErrReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestDecodeReadError(t *testing.T) {
	boom := errors.New("connection reset")
	_, err := Parse(&decErrReader{data: []byte(`<urlset ` + decSM + `><url><loc>a</loc></url>`), err: boom})
	if !errors.Is(err, boom) || decIsSyntaxError(err) {
		t.Errorf("error %v", err)
	}
}

func TestFastHashListMatchesParseHashList(t *testing.T) {
	inputs := []string{
		"md5:1584abdf8ebdc9802ac0c6a7402c03b6",
		"md5:1584ABDF8EBDC9802AC0C6A7402C03B6 sha-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784",
		"sha-1:da39a3ee5e6b4b0d3255bfef95601890afd80709",
		"sha-512:cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
		"md5:1584abdf8ebdc9802ac0c6a7402c03b6 md5:1584abdf8ebdc9802ac0c6a7402c03b6",
		"md5:1584abdf8ebdc9802ac0c6a7402c03b",
		"md5:1584abdf8ebdc9802ac0c6a7402c03b6 ",
		" md5:1584abdf8ebdc9802ac0c6a7402c03b6",
		"MD5:1584abdf8ebdc9802ac0c6a7402c03b6",
		"md5:Yx8m6CqWBJjKT5VBggoWeQ==",
		"md5:1584abdf8ebdc9802ac0c6a7402c03bg",
		"",
	}
	for _, s := range inputs {
		decCheckFastHash(t, s)
	}
}

func decCheckFastHash(t *testing.T, s string) {
	t.Helper()
	fast, ok := fastHashList(s, nil)
	if !ok {
		return
	}
	slow, err := ParseHashList(s)
	if err != nil {
		t.Errorf("%q: fast path accepted what ParseHashList refuses: %v", s, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Errorf("%q: fast %+v, ParseHashList %+v", s, fast, slow)
	}
}
