package model

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// The entry fast path (decode_fast.go) must give what the general path gives,
// and leave to it whatever it does not take: each variant below is mixed
// with entries of the common shape into a document that is decoded
// sequentially (never the fast path) and on the parallel path (the fast path
// in every block decoder), and the two are compared with parCompare.

// fastCommon is an entry of the common shape.
func fastCommon(i int) string {
	return fmt.Sprintf("<url>\n    <loc>http://e.com/res/%d</loc>\n    <lastmod>2013-01-02T13:00:%02dZ</lastmod>\n"+
		"    <rs:md hash=\"md5:1584abdf8ebdc9802ac0c6a7402c03b6 sha-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784\" length=\"%d\" type=\"text/html\"/>\n</url>\n", i, i%60, 1000+i)
}

var fastVariants = map[string]string{
	"common":                   fastCommon(7),
	"attributes in any order":  "<url><loc>http://e.com/a</loc><rs:md type='text/plain' length='12'\thash='md5:1584abdf8ebdc9802ac0c6a7402c03b6'/></url>\n",
	"space before slash":       "<url><loc>http://e.com/a</loc><rs:md length=\"1\" /></url>\n",
	"no space after name":      "<url><loc>http://e.com/a</loc><rs:md/></url>\n",
	"space around equals":      "<url><loc>http://e.com/a</loc><rs:md length = \"1\"/></url>\n",
	"no space between attrs":   "<url><loc>http://e.com/a</loc><rs:md length=\"1\"type=\"x\"/></url>\n",
	"repeated attribute":       "<url><loc>http://e.com/a</loc><rs:md length=\"1\" length=\"2\"/></url>\n",
	"unknown attribute":        "<url><loc>http://e.com/a</loc><rs:md foo=\"x\" length=\"1\"/></url>\n",
	"prefixed attribute":       "<url><loc>http://e.com/a</loc><rs:md rs:length=\"1\"/></url>\n",
	"namespace declaration":    "<url><loc>http://e.com/a</loc><rs:md xmlns:x=\"urn:x\" x:y=\"1\" length=\"1\"/></url>\n",
	"legacy attributes":        "<url><loc>http://e.com/a</loc><rs:md modified=\"2013-01-01\" etag=\"x\"/></url>\n",
	"upper-case attribute":     "<url><loc>http://e.com/a</loc><rs:md Length=\"1\"/></url>\n",
	"empty values":             "<url><loc>http://e.com/a</loc><rs:md hash=\"\" length=\"\" type=\"\" change=\"\" at=\"\" path=\"\"/></url>\n",
	"every md attribute":       "<url><loc>http://e.com/a</loc><rs:md capability=\"resourcelist\" change=\"updated\" at=\"2013-01-01\" completed=\"2013-01-02\" from=\"2013\" until=\"2014\" datetime=\"2013-01-01T00:00:00Z\" hash=\"sha-1:0000000000000000000000000000000000000000\" length=\"x\" type=\"a/b\" encoding=\"gzip\" path=\"/a\"/></url>\n",
	"entity in value":          "<url><loc>http://e.com/a</loc><rs:md type=\"a&amp;b\"/></url>\n",
	"tab in value":             "<url><loc>http://e.com/a</loc><rs:md type=\"a\tb\"/></url>\n",
	"newline in value":         "<url><loc>http://e.com/a</loc><rs:md type=\"a\nb\" length=\"1\"/></url>\n",
	"non-ASCII value":          "<url><loc>http://e.com/a</loc><rs:md type=\"caf\u00e9\"/></url>\n",
	"invalid UTF-8 value":      "<url><loc>http://e.com/a</loc><rs:md type=\"caf\xe9\"/></url>\n",
	"lt in value":              "<url><loc>http://e.com/a</loc><rs:md type=\"a<b\"/></url>\n",
	"control in value":         "<url><loc>http://e.com/a</loc><rs:md type=\"a\x01b\"/></url>\n",
	"unquoted value":           "<url><loc>http://e.com/a</loc><rs:md length=1/></url>\n",
	"unterminated value":       "<url><loc>http://e.com/a</loc><rs:md length=\"1/></url>\n",
	"slash without gt":         "<url><loc>http://e.com/a</loc><rs:md length=\"1\"/ </url>\n",
	"md with end tag":          "<url><loc>http://e.com/a</loc><rs:md length=\"1\"></rs:md></url>\n",
	"md not closed":            "<url><loc>http://e.com/a</loc><rs:md length=\"1\"></url>\n",
	"md name longer":           "<url><loc>http://e.com/a</loc><rs:mdx length=\"1\"/></url>\n",
	"md twice":                 "<url><loc>http://e.com/a</loc><rs:md length=\"1\"/><rs:md length=\"2\"/></url>\n",
	"md over lines":            "<url>\n<loc>http://e.com/a</loc>\n<rs:md\n  hash=\"md5:1584abdf8ebdc9802ac0c6a7402c03b6\"\r\n  length=\"1\"\n/>\n</url>\n",
	"entity in loc":            "<url><loc>http://e.com/?a=1&amp;b=&#x41;&#66;</loc></url>\n",
	"bad entity in loc":        "<url><loc>http://e.com/?a=1&b=2</loc></url>\n",
	"loc over lines":           "<url><loc>\n  http://e.com/a\n</loc><rs:md length=\"1\"/></url>\n",
	"crlf in loc":              "<url><loc>http://e.com/a\r\n</loc></url>\n",
	"empty loc":                "<url><loc></loc><lastmod></lastmod></url>\n",
	"self-closing loc":         "<url><loc/><lastmod/></url>\n",
	"non-ASCII loc":            "<url><loc>http://e.com/caf\u00e9</loc></url>\n",
	"invalid UTF-8 loc":        "<url><loc>http://e.com/caf\xe9</loc></url>\n",
	"control in loc":           "<url><loc>http://e.com/\x02</loc></url>\n",
	"gt in loc":                "<url><loc>http://e.com/a>b</loc></url>\n",
	"cdata in loc":             "<url><loc><![CDATA[http://e.com/a]]></loc></url>\n",
	"comment in loc":           "<url><loc>http://e.com/<!-- x -->a</loc></url>\n",
	"child in loc":             "<url><loc>http://e.com/<b>a</b></loc></url>\n",
	"space in loc end tag":     "<url><loc>http://e.com/a</loc ></url>\n",
	"loc end tag wrong":        "<url><loc>http://e.com/a</lox></url>\n",
	"two locs":                 "<url><loc>http://e.com/a</loc><loc>http://e.com/b</loc></url>\n",
	"two lastmods":             "<url><loc>http://e.com/a</loc><lastmod>2013</lastmod><lastmod>2014</lastmod></url>\n",
	"lastmod first":            "<url><lastmod>2013-01-02</lastmod><rs:md length=\"3\"/><loc>http://e.com/a</loc></url>\n",
	"bad lastmod":              "<url><loc>http://e.com/a</loc><lastmod>2013-13-45T25:00Z</lastmod></url>\n",
	"lastmod with spaces":      "<url><loc>http://e.com/a</loc><lastmod> 2013-01-02 </lastmod></url>\n",
	"no loc":                   "<url><lastmod>2013-01-02</lastmod></url>\n",
	"only md":                  "<url><rs:md length=\"3\"/></url>\n",
	"empty entry":              "<url></url>\n",
	"self-closing entry":       "<url/>\n",
	"entry with space":         "<url ><loc>http://e.com/a</loc></url>\n",
	"entry end with space":     "<url><loc>http://e.com/a</loc></url >\n",
	"entry attribute":          "<url a=\"b\"><loc>http://e.com/a</loc></url>\n",
	"entry redeclares default": "<url xmlns=\"urn:other\"><loc>http://e.com/a</loc></url>\n",
	"entry redeclares rs":      "<url xmlns:rs=\"urn:other\"><loc>http://e.com/a</loc><rs:md length=\"1\"/></url>\n",
	"comment in entry":         "<url><!-- c --><loc>http://e.com/a</loc></url>\n",
	"pi in entry":              "<url><?pi x?><loc>http://e.com/a</loc></url>\n",
	"text in entry":            "<url>text<loc>http://e.com/a</loc></url>\n",
	"changefreq":               "<url><loc>http://e.com/a</loc><changefreq>daily</changefreq></url>\n",
	"link":                     "<url><loc>http://e.com/a</loc><rs:ln rel=\"duplicate\" href=\"http://f.com/a\"/></url>\n",
	"other element":            "<url><loc>http://e.com/a</loc><x:y xmlns:x=\"urn:x\">t</x:y></url>\n",
	"prefixed loc":             "<url><rs:loc>http://e.com/a</rs:loc></url>\n",
	"unclosed entry":           "<url><loc>http://e.com/a</loc>\n",
	"wrong end tag":            "<url><loc>http://e.com/a</loc></urlx>\n",
	"tabs and crs":             "<url>\t\r\n<loc>http://e.com/a</loc>\r\n\t<lastmod>2013-01-02</lastmod>\r\n</url>\r\n",
	"upper-case hex hash":      "<url><loc>http://e.com/a</loc><rs:md hash=\"md5:1584ABDF8EBDC9802AC0C6A7402C03B6\"/></url>\n",
	"bad hash":                 "<url><loc>http://e.com/a</loc><rs:md hash=\"md5:zz sha-256:\"/></url>\n",
	"long loc":                 "<url><loc>http://e.com/" + strings.Repeat("a", 300) + "</loc></url>\n",
}

func TestFastEntryVariants(t *testing.T) {
	for name, v := range fastVariants {
		doc := parDoc(parRoot, func(i int) string {
			if i%3 == 1 {
				return v
			}
			return fastCommon(i)
		}, 60, "</urlset>\n")
		parCompare(t, name, doc, DecoderOptions{}, 64, 256, 4<<10)
	}
}

// TestFastEntryOptions: the fast path under the limits of DecoderOptions
// (MaxBytes cuts where the reads fall, on either path: TestParallelLimits).
func TestFastEntryOptions(t *testing.T) {
	doc := parDoc(parRoot, func(i int) string {
		if i%4 == 1 {
			return fastVariants["long loc"]
		}
		return fastCommon(i)
	}, 60, "</urlset>\n")
	for _, o := range []DecoderOptions{{MaxTokenBytes: 200}, {MaxTokenBytes: 400}, {MaxDepth: 2}, {MaxDepth: 3}} {
		parCompare(t, fmt.Sprintf("%+v", o), doc, o, 256, 4<<10)
	}
}

// TestFastEntryDocuments: documents whose roots bind the names otherwise.
func TestFastEntryDocuments(t *testing.T) {
	docs := map[string][]byte{
		"other rs prefix": parDoc(`<urlset `+decSM+` xmlns:r="http://www.openarchives.org/rs/terms/">`, func(i int) string {
			return strings.ReplaceAll(fastCommon(i), "rs:md", "r:md")
		}, 100, "</urlset>"),
		"rs prefix of another namespace": parDoc(`<urlset `+decSM+` xmlns:rs="urn:other" xmlns:r="http://www.openarchives.org/rs/terms/">`, fastCommon, 100, "</urlset>"),
		"legacy rs":                      parDoc(`<urlset `+decSM+` xmlns:rs="http://www.openarchives.org/rs/">`, fastCommon, 100, "</urlset>"),
		"no default namespace":           parDoc(`<urlset `+decRS+`>`, fastCommon, 100, "</urlset>"),
		"rs also default":                parDoc(`<urlset xmlns="http://www.openarchives.org/rs/terms/" `+decRS+`>`, fastCommon, 100, "</urlset>"),
		"variant sitemap namespace":      parDoc(`<urlset xmlns="http://www.google.com/schemas/sitemap/0.84" `+decRS+`>`, fastCommon, 100, "</urlset>"),
		"sitemapindex": parDoc(`<sitemapindex `+decSM+` `+decRS+`>`, func(i int) string {
			return strings.ReplaceAll(fastCommon(i), "url>", "sitemap>")
		}, 100, "</sitemapindex>"),
		"url in sitemapindex": parDoc(`<sitemapindex `+decSM+` `+decRS+`>`, fastCommon, 100, "</sitemapindex>"),
		"sitemap in urlset": parDoc(parRoot, func(i int) string {
			return strings.ReplaceAll(fastCommon(i), "url>", "sitemap>") + fastCommon(i)
		}, 100, "</urlset>"),
	}
	for name, doc := range docs {
		parCompare(t, name, doc, DecoderOptions{}, 256, 4<<10)
	}
}

// TestFastEntryTaken: the entries of the common shape are decoded by the
// fast path (else the tests above would prove nothing about it).
func TestFastEntryTaken(t *testing.T) {
	data := benchResourceList(t, 2000)
	d := NewDecoder(bytes.NewReader(data), DecoderOptions{Parallel: 2, blockSize: 4096})
	var e Entry
	n := 0
	for d.Next(&e) == nil {
		n++
	}
	if n != 2000 || d.par.fast < 1900 {
		t.Fatalf("%d entries, %d of them by the fast path", n, d.par.fast)
	}
	doc := parDoc(parRoot, func(i int) string {
		if i%2 == 1 {
			return fastVariants["attributes in any order"]
		}
		return fastVariants["md over lines"]
	}, 400, "</urlset>\n")
	d = NewDecoder(bytes.NewReader(doc), DecoderOptions{Parallel: 2, blockSize: 4096})
	n = 0
	for d.Next(&e) == nil {
		n++
	}
	if n != 400 || d.par.fast < 350 {
		t.Fatalf("%d entries, %d of them by the fast path", n, d.par.fast)
	}
}

// TestFastTag: fastTag.at is bytes.HasPrefix, for tags of up to 16 bytes and
// beyond, inputs shorter and longer than 16 bytes, and a byte changed at
// every place.
func TestFastTag(t *testing.T) {
	const text = "</lastmod><rs:md hash=\"md5:0\"/></url>\n<url>"
	for n := 1; n <= 20; n++ {
		tag := newFastTag(text[:n])
		for l := 0; l <= len(text); l++ {
			in := []byte(text[:l])
			for at := -1; at < l; at++ {
				b := bytes.Clone(in)
				if at >= 0 {
					b[at] ^= 0x20
				}
				if got, want := tag.at(b), bytes.HasPrefix(b, tag.b); got != want {
					t.Fatalf("tag %q at %q = %v, want %v", tag.b, b, got, want)
				}
			}
		}
	}
}

// TestMDNameFast: what mdNameFast recognises is what fastMD's loop and
// mdFieldFast read, for every name with either quote, a byte changed at every
// place, and inputs cut short.
func TestMDNameFast(t *testing.T) {
	slow := func(b []byte) (uint8, int, bool) {
		i := 0
		for i < len(b) && b[i] >= 'a' && b[i] <= 'z' {
			i++
		}
		if i+1 >= len(b) || b[i] != '=' || (b[i+1] != '"' && b[i+1] != '\'') {
			return 0, 0, false
		}
		return mdFieldFast(b[:i]), i, true
	}
	var inputs [][]byte
	for _, name := range []string{"hash", "length", "type", "at", "change", "path", "hashes", "lengt", "typ", "hasH", "xtype"} {
		for _, q := range []string{`"`, `'`} {
			base := []byte(name + "=" + q + "text/html" + q + "/>")
			for at := -1; at < len(base); at++ {
				for _, x := range []byte{0x20, 0x01, 0x80} {
					b := bytes.Clone(base)
					if at >= 0 {
						b[at] ^= x
					}
					for cut := 0; cut <= len(b); cut++ {
						inputs = append(inputs, b[:cut])
					}
				}
			}
		}
	}
	known := 0
	for _, b := range inputs {
		field, name := mdNameFast(b)
		if name == 0 {
			continue
		}
		known++
		want, n, ok := slow(b)
		if !ok || want != field || n != name {
			t.Fatalf("%q: mdNameFast %d, %d; the loop %d, %d, %v", b, field, name, want, n, ok)
		}
	}
	if known < 100 {
		t.Fatalf("mdNameFast recognised %d inputs only", known)
	}
}
