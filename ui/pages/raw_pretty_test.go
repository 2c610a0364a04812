package pages

import (
	"bytes"
	"fmt"
	"rsx/ui/nav"
	"strings"
	"testing"
)

// minified is a Resource List written on one line, as some servers send it.
func minified(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `<url><loc>http://example.com/res%d</loc><lastmod>2013-01-02T13:00:00Z</lastmod><rs:md hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6" length="%d" type="text/html"/></url>`, i, 8870+i)
	}
	b.WriteString(`</urlset>`)
	return b.Bytes()
}

func TestPrettyXML(t *testing.T) {
	in := `<?xml version="1.0"?><a x="1 > 2"><!-- c --><b>text</b><c/><d>
  mixed <e/> tail</d><f></f><![CDATA[<raw>]]></a>`
	p := prettyXML([]byte(in))
	want := strings.Join([]string{
		`<?xml version="1.0"?>`,
		`<a x="1 > 2">`,
		`  <!-- c -->`,
		`  <b>text</b>`,
		`  <c/>`,
		`  <d>`,
		`    mixed`,
		`    <e/>`,
		`    tail`,
		`  </d>`,
		`  <f></f>`,
		`  <![CDATA[<raw>]]>`,
		`</a>`,
	}, "\n")
	if got := string(p.text.data); got != want {
		t.Errorf("pretty:\n%s\nwant:\n%s", got, want)
	}
	// Every line points back at where its first token is in the input.
	for i, start := range p.text.lines {
		line := strings.TrimLeft(strings.SplitN(string(p.text.data[start:]), "\n", 2)[0], " ")
		if !strings.HasPrefix(in[p.src[i]:], line) {
			t.Errorf("line %d %q points at %q", i+1, line, in[p.src[i]:min(p.src[i]+20, len(in))])
		}
	}
}

// Broken or odd input is shown, never lost or looped on.
func TestPrettyXMLBroken(t *testing.T) {
	for _, in := range []string{"", "no markup", "<a", "<a><b>x</b", "</a></b>", "<a x='>", "<!DOCTYPE a [<!ENTITY e 'x'>]><a/>", "<?pi", "<!-- open", "<a>\r\n<b>x</b>\r\n</a>"} {
		p := prettyXML([]byte(in))
		if len(p.text.lines) != len(p.src) || len(p.text.lines) == 0 {
			t.Errorf("%q: %d lines, %d sources", in, len(p.text.lines), len(p.src))
		}
		squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
		if squeeze(string(p.text.data)) != squeeze(in) {
			t.Errorf("%q: pretty text %q lost something", in, p.text.data)
		}
	}
}

func FuzzPrettyXML(f *testing.F) {
	f.Add(minified(3))
	f.Add(ivSampleXML(2))
	f.Add([]byte("<a x='1'>t<b/></a>"))
	f.Fuzz(func(t *testing.T, in []byte) {
		p := prettyXML(in)
		if len(p.text.lines) != len(p.src) {
			t.Fatalf("%d lines, %d sources", len(p.text.lines), len(p.src))
		}
		last := -1
		for i, s := range p.src {
			if s < 0 || s > len(in) || s < last {
				t.Fatalf("line %d points at %d (input %d bytes, previous line %d)", i, s, len(in), last)
			}
			last = s
		}
		if !bytes.Equal(bytes.Join(bytes.Fields(p.text.data), nil), bytes.Join(bytes.Fields(in), nil)) && !p.text.truncated {
			t.Fatalf("pretty text differs beyond white space:\n%q\n%q", p.text.data, in)
		}
		if off, ok := entryOffset(in, 0); ok && (off < 0 || off >= len(in) || in[off] != '<') {
			t.Fatalf("entry offset %d is not a tag", off)
		}
	})
}

func TestEntryOffset(t *testing.T) {
	data := minified(5)
	for i := range 5 {
		off, ok := entryOffset(data, i)
		want := bytes.Index(data, []byte(fmt.Sprintf("<url><loc>http://example.com/res%d<", i+1)))
		if !ok || off != want {
			t.Errorf("entry %d: %d %v, want %d", i, off, ok, want)
		}
	}
	// The document's own rs:md is the root's first child; entries count from it
	// as the decoder counts them only for <url> and <sitemap>.
	if _, ok := entryOffset(data, 6); ok {
		t.Error("entry 7 of a 5-entry document found")
	}
}

// The pretty view of a minified document: a toggle, the place kept, and a
// problem's entry found by its byte offset in both views.
func TestRawPrettyGolden(t *testing.T) {
	data := minified(40)
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			v := ivLoadedRaw(t, data, w, h)
			if v.lineCount() != 1 {
				t.Fatalf("fixture: %d lines", v.lineCount())
			}
			// As received, entry 12 is far to the right on line 1.
			ivDrive(v, nav.ShowRawLineMsg{Line: 1, Entry: 11})
			if v.xoff == 0 || !strings.Contains(ansiLines(v), "res12</loc>") {
				t.Errorf("entry 12 is not in view on the one long line (col +%d):\n%s", v.xoff, v.View())
			}
			ivDrive(v, ivKey("f"))
			if !v.prettyOn {
				t.Fatal("f did not pretty-print")
			}
			if got := v.lines()[v.target]; !strings.Contains(got, "<url>") || !strings.Contains(v.lines()[v.target+1], "res12</loc>") {
				t.Errorf("the marked line in the pretty view is %q, want entry 12's <url>", got)
			}
			ivGolden(t, fmt.Sprintf("view_raw_pretty_%dx%d", w, h), v.View())
			ivDrive(v, ivKey("f"))
			if v.prettyOn || v.lineCount() != 1 {
				t.Error("f again did not go back to the text as received")
			}
		})
	}
}

// ansiLines is the page's screen without colours.
func ansiLines(v *Raw) string { return strings.Join(ivLines(v.View()), "\n") }

// lines are the lines of the text shown.
func (v *Raw) lines() []string {
	out := make([]string, len(v.text.lines))
	for i := range v.text.lines {
		a, b := v.text.lineBounds(i)
		out[i] = string(v.text.data[a:b])
	}
	return out
}
