package ui

import (
	"crypto/md5"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"rsx/session"
	"rsx/ui/components"
	"rsx/ui/internal/uitest"
)

// Tests of the table's columns and the detail pane as a terminal draws
// them: sized by content, measured as the terminal counts, values broken
// where a URL or a digest may be broken.

// rcSite is a Resource List and a Change List as Sources write them:
// locs of several depths, some on a CDN host, one with a query; lengths
// from bytes to gigabytes; sha-256 and md5 digests; media types long and
// short.
func rcSite() map[string]string {
	const urlset = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
%s
%s
%s</urlset>
`
	locs := []string{
		"/collections/maps/1923/sheet-0042.tif",
		"/collections/maps/1923/sheet-0043.tif",
		"/items/ark:/13960/t0ht3kf9k/manifest.json",
		"/api/records?id=10042&format=mods",
		"/collections/letters/1887/box-12/folder-03/letter-0198.xml",
		"/datasets/census/1901/enumeration-district-0417.csv",
		"/index.html",
		"/collections/photographs/glass-plates/negative-11034.jp2",
	}
	types := []string{"image/tiff", "image/tiff", "application/ld+json", "application/mods+xml",
		"application/tei+xml", "text/csv", "text/html", "image/jp2"}
	lengths := []int64{88_342_117, 87_990_402, 4_211, 9_874, 31_552, 2_441_126_912, 18_233, 412_067_840}
	var rl, cl strings.Builder
	for i, p := range locs {
		loc := exHost + p
		if i == 5 {
			loc = "https://cdn.example.net/mirror/datasets/census/1901/enumeration-district-0417.csv"
		}
		hash := fmt.Sprintf("sha-256:%x", sha256.Sum256([]byte(loc)))
		if i == 1 || i == 6 {
			hash = fmt.Sprintf("md5:%x", md5.Sum([]byte(loc)))
		}
		loc = strings.ReplaceAll(loc, "&", "&amp;")
		fmt.Fprintf(&rl, "  <url><loc>%s</loc><lastmod>2024-0%d-1%dT08:%02d:00Z</lastmod><rs:md hash=%q length=\"%d\" type=%q/></url>\n",
			loc, 1+i%9, i%10, 7*i%60, hash, lengths[i], types[i])
		change := []string{"created", "updated", "deleted", "updated"}[i%4]
		md := fmt.Sprintf(`change=%q datetime="2024-03-0%dT1%d:%02d:00Z"`, change, 1+i/3, i, 11*i%60)
		if change != "deleted" {
			md += fmt.Sprintf(" hash=%q length=\"%d\" type=%q", hash, lengths[i], types[i])
		}
		fmt.Fprintf(&cl, "  <url><loc>%s</loc><rs:md %s/></url>\n", loc, md)
	}
	return map[string]string{
		"/rl.xml": fmt.Sprintf(urlset, `<rs:md capability="resourcelist" at="2024-03-01T00:00:00Z" completed="2024-03-01T00:12:00Z"/>`,
			`<rs:ln rel="up" href="`+exHost+`/capabilitylist.xml"/>`, rl.String()),
		"/cl.xml": fmt.Sprintf(urlset, `<rs:md capability="changelist" from="2024-03-01T00:00:00Z" until="2024-03-04T00:00:00Z"/>`,
			`<rs:ln rel="up" href="`+exHost+`/capabilitylist.xml"/>`, cl.String()),
		"/capabilitylist.xml": fmt.Sprintf(urlset, `<rs:md capability="capabilitylist"/>`,
			`<rs:ln rel="up" href="`+exHost+`/.well-known/resourcesync"/>`,
			`  <url><loc>`+exHost+`/rl.xml</loc><rs:md capability="resourcelist"/></url>`+"\n"+
				`  <url><loc>`+exHost+`/cl.xml</loc><rs:md capability="changelist"/></url>`+"\n"),
		"/.well-known/resourcesync": fmt.Sprintf(urlset, `<rs:md capability="description"/>`, "",
			`  <url><loc>`+exHost+`/capabilitylist.xml</loc><rs:md capability="capabilitylist"/></url>`+"\n"),
	}
}

// TestRealisticDocumentScreens draws a Resource List and a Change List as
// Sources write them at 120 and 80 columns: the columns are sized by what
// they hold (the media types and the digests whole where there is room,
// the locs cut in the middle where there is not), and no title runs into
// another or into the pane's border.
func TestRealisticDocumentScreens(t *testing.T) {
	for _, doc := range []string{"resourcelist", "changelist"} {
		target := map[string]string{"resourcelist": "/rl.xml", "changelist": "/cl.xml"}[doc]
		for _, sz := range exSizes {
			name := fmt.Sprintf("realistic_%s_%dx%d", doc, sz.w, sz.h)
			t.Run(name, func(t *testing.T) {
				_, d := exApp(t, &exGetter{docs: rcSite(), fail: map[string]error{}}, target, sz.w, sz.h)
				d.keys("j j") // the ark: identifier, long enough to wrap in a narrow pane
				exGolden(t, d, name)
				rcCheckColumns(t, d.screen(), ansi.WcWidth, sz.w)
			})
		}
		for _, w := range []int{90, 100, 140, 160, 200, 240} {
			t.Run(fmt.Sprintf("%s_%dx40", doc, w), func(t *testing.T) {
				_, d := exApp(t, &exGetter{docs: rcSite(), fail: map[string]error{}}, target, w, 40)
				rcCheckColumns(t, d.screen(), ansi.WcWidth, w)
			})
		}
	}
}

// rcCheckColumns checks the table in screen s: every title starts where
// its column's cells start, with a blank cell before it, and no cell of
// a column holds a cut value while another column has cells to spare.
func rcCheckColumns(t *testing.T, s string, m ansi.Method, w int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	hdr := lines[2]
	for _, title := range []string{"loc", "lastmod", "datetime", "length", "type", "hash"} {
		i := strings.Index(hdr, title)
		if i < 0 {
			continue // not this document's, or left out at this width
		}
		if hdr[i-1] != ' ' {
			t.Errorf("the title %q runs into the one before it: %q", title, hdr)
		}
		if end := i + len(title); end < len(hdr) && hdr[end] != ' ' && !strings.HasPrefix(hdr[end:], "│") {
			t.Errorf("the title %q runs into the one after it: %q", title, hdr)
		}
	}
	if !strings.Contains(hdr, "loc") {
		t.Errorf("the loc column is left out: %q", hdr)
	}
	if k := strings.Index(hdr, "╭"); k > 0 && hdr[k-1] != ' ' {
		t.Errorf("a title runs into the pane's border: %q", hdr)
	}

	// The left-aligned columns whose ends the header shows: a cut cell in
	// one while another has cells to spare is room given to the wrong one.
	h := []rune(strings.TrimRight(hdr, " "))
	starts := map[string]int{}
	var order []int
	for _, f := range strings.Fields(string(h)) {
		i := strings.Index(string(h), " "+f)
		starts[f] = len([]rune(string(h)[:i+1]))
		order = append(order, starts[f])
	}
	type span struct{ from, to int }
	spans := map[string]span{}
	for _, title := range []string{"loc", "type", "hash"} {
		from, ok := starts[title]
		if !ok {
			continue
		}
		to := len(h)
		if title != "hash" || strings.Contains(hdr, "╭") {
			for _, o := range order {
				if o > from && o-1 < to {
					to = o - 1
				}
			}
		}
		if title == "hash" && !strings.Contains(hdr, "╭") {
			to = w
		}
		spans[title] = span{from, to}
	}
	cut, spare := map[string]bool{}, map[string]int{}
	for title, sp := range spans {
		spare[title] = sp.to - sp.from
		for _, l := range lines[3:] {
			r := []rune(l)
			if len(r) < sp.to || strings.HasPrefix(strings.TrimSpace(l), "╭") {
				break
			}
			cell := strings.TrimRight(string(r[sp.from:sp.to]), " ")
			if strings.Contains(cell, "…") {
				cut[title] = true
			}
			spare[title] = min(spare[title], sp.to-sp.from-len([]rune(cell)))
		}
	}
	for c := range cut {
		for o, n := range spare {
			if o != c && n > 1 {
				t.Errorf("the %s column is cut while the %s column has %d cells to spare:\n%s", c, o, n, s)
			}
		}
	}
}

// rcWidthSite is a Resource List whose locs and metadata hold characters
// that terminals count differently by code point and by grapheme cluster.
func rcWidthSite() map[string]string {
	odd := []string{
		"👨\u200d👩\u200d👧",     // a family: ZWJ sequence, one cluster
		"🇫🇷🇩🇪",                // flags: regional indicator pairs
		"👍🏽",                  // a skin tone modifier
		"\u3164\u3164",        // Hangul fillers
		"⚠\ufe0f",             // an emoji presentation selector
		"e\u0301te\u0301",     // combining accents
		"漢字",                  // wide characters
		"🏳\ufe0f\u200d🌈-flag", // ZWJ with a selector
	}
	var b strings.Builder
	for i, o := range odd {
		fmt.Fprintf(&b, "  <url><loc>%s/photos/%s/item-%02d.jpg</loc><lastmod>2024-01-0%dT00:00:00Z</lastmod><rs:md length=\"%d\" type=\"image/jpeg\" hash=\"md5:%032x\"/></url>\n",
			exHost, o, i, 1+i, 1000+i, i)
	}
	// A type with an emoji of its own (a Source's mistake, drawn as it is).
	fmt.Fprintf(&b, "  <url><loc>%s/photos/plain.jpg</loc><rs:md length=\"1\" type=\"image/👍🏽jpeg\"/></url>\n", exHost)
	return map[string]string{"/odd.xml": `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2024-03-01T00:00:00Z"/>
` + b.String() + "</urlset>\n"}
}

// TestOddWidthsKeepRowsInPlace draws locs and metadata holding emoji
// sequences, Hangul fillers and other characters whose width depends on
// how it is counted, under both counts a terminal may use (bubbletea
// places the screen by code point unless the terminal reports grapheme
// clustering, mode 2027): every line of the page is as wide as the
// terminal, and the pane's border and the columns after the loc start at
// the same cell on every row.
func TestOddWidthsKeepRowsInPlace(t *testing.T) {
	for _, m := range []ansi.Method{ansi.WcWidth, ansi.GraphemeWidth} {
		for _, sz := range []struct{ w, h int }{{120, 40}, {100, 30}, {80, 24}} {
			t.Run(fmt.Sprintf("method%d_%dx%d", m, sz.w, sz.h), func(t *testing.T) {
				a, d := exApp(t, &exGetter{docs: rcWidthSite(), fail: map[string]error{}}, "/odd.xml", sz.w, sz.h)
				if m == ansi.GraphemeWidth {
					d.send(tea.ModeReportMsg{Mode: ansi.ModeUnicodeCore, Value: ansi.ModeReset})
					if a.c.WidthMethod != ansi.GraphemeWidth {
						t.Fatal("the terminal's report of mode 2027 is not taken")
					}
				}
				for _, keys := range []string{"", "j j", "G", "d"} { // the pane shows the odd locs in turn
					d.keys(keys)
					rcCheckWidths(t, d.screen(), m, sz.w, sz.h)
				}
			})
		}
	}
}

// rcCheckWidths checks that the body of a document page (between the
// title and the status bar) is w cells wide on every line, counted by m,
// and that the lastmod column and the pane's left border each start at
// one cell on every row of the table.
func rcCheckWidths(t *testing.T, s string, m ansi.Method, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Fatalf("%d lines, want %d", len(lines), h)
	}
	col := func(l, sub string) int {
		i := strings.Index(l, sub)
		if i < 0 {
			return -1
		}
		return m.StringWidth(l[:i])
	}
	lastmodAt := col(lines[2], "lastmod")
	paneAt := col(lines[2], "╭")
	for n, l := range lines[2 : h-2] {
		if got := m.StringWidth(l); got != w {
			t.Errorf("line %d is %d cells wide, not %d: %q", n+3, got, w, l)
		}
		if row := strings.TrimLeft(l, " "); row == "" || row[0] < '0' || row[0] > '9' {
			// not a row of the table
		} else if x := col(l, " 2024-01-0"); x >= 0 && x+1 != lastmodAt {
			t.Errorf("line %d: its lastmod starts at cell %d, its title at %d: %q", n+3, x+1, lastmodAt, l)
		}
		if paneAt >= 0 {
			border := "│"
			if n == len(lines[2:h-2])-1 {
				border = "╰"
			}
			if x := col(l, border); x != paneAt {
				t.Errorf("line %d: the pane's border is at cell %d, not %d: %q", n+3, x, paneAt, l)
			}
		}
	}
}

// TestDetailPaneBreaksURLsAndDigests selects entries whose loc and digest
// are longer than the pane is wide: each line of the loc ends at a '/',
// '?', '&' or '=' (or with the continuation mark), the lines put back
// together give the loc, a sha-256 digest is cut with the mark, and y
// copies the loc whole.
func TestDetailPaneBreaksURLsAndDigests(t *testing.T) {
	loc := exHost + "/collections/letters/1887/box-12/folder-03/letter-0198.xml"
	a, d := exApp(t, &exGetter{docs: rcSite(), fail: map[string]error{}}, "/rl.xml", 80, 40)
	d.keys("j j j j") // the letter
	pane := rcPaneLines(t, d.screen())
	value := rcValue(pane, "loc")
	if len(value) < 2 {
		t.Fatalf("the loc is not broken over lines: %q", value)
	}
	for _, l := range value[:len(value)-1] {
		if !strings.ContainsAny(l[len(l)-1:], "/?&=") && !strings.HasSuffix(l, components.ContinuationMark) {
			t.Errorf("the loc is broken inside a path segment: %q ends %q", value, l)
		}
	}
	if got := strings.ReplaceAll(strings.Join(value, ""), components.ContinuationMark, ""); got != loc {
		t.Errorf("the loc's lines give %q, want %q", got, loc)
	}

	digest := rcValue(pane, "hash")
	if len(digest) < 2 || !strings.HasSuffix(digest[0], components.ContinuationMark) {
		t.Errorf("a digest too long for the pane is not cut with the mark: %q", digest)
	}
	want := fmt.Sprintf("sha-256:%x", sha256.Sum256([]byte(loc)))
	if got := strings.ReplaceAll(strings.Join(digest, ""), components.ContinuationMark, ""); got != want {
		t.Errorf("the digest's lines give %q, want %q", got, want)
	}

	// Words wrap whole: the document's path in the pane.
	d.keys("d")
	pane = rcPaneLines(t, d.screen())
	for _, l := range pane {
		if strings.HasSuffix(l, "capabilit") || strings.HasSuffix(l, "Capabil") {
			t.Errorf("a word is cut at the end of a line: %q", l)
		}
	}
	d.keys("d")

	// y copies the loc whole, on one line.
	_, cmd := a.Update(exKey("y"))
	if cmd == nil {
		t.Fatal("y did nothing")
	}
	msg, ok := cmd().(copyMsg)
	if !ok {
		t.Fatalf("y: %T", msg)
	}
	if copied := clipboardOf(t, a, msg); copied != loc {
		t.Errorf("y copied %q, want the loc %q whole", copied, loc)
	}
}

// rcPaneLines are the lines inside the detail pane (beside the table or
// under it), without its borders and the space inside them, trailing
// spaces dropped.
func rcPaneLines(t *testing.T, s string) []string {
	t.Helper()
	lines := strings.Split(s, "\n")
	top := -1
	for i, l := range lines {
		if strings.Contains(l, "╭") {
			top = i
			break
		}
	}
	if top < 0 {
		t.Fatalf("no pane:\n%s", s)
	}
	var out []string
	for _, l := range lines[top+1:] {
		first, last := strings.Index(l, "│"), strings.LastIndex(l, "│")
		if first < 0 || first == last {
			break
		}
		inner := strings.TrimPrefix(l[first+len("│"):last], " ")
		out = append(out, strings.TrimRight(inner, " "))
	}
	return out
}

// rcValue is the value of the label's first line in pane lines, one
// string a line: the first line after the label, then the lines under it
// that hold no label of their own.
func rcValue(pane []string, label string) []string {
	for i, l := range pane {
		rest, ok := strings.CutPrefix(l, label+" ")
		if !ok {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(rest, " "))
		out := []string{strings.TrimLeft(rest, " ")}
		for _, next := range pane[i+1:] {
			if len(next) <= indent || strings.TrimSpace(next[:indent]) != "" {
				break
			}
			out = append(out, next[indent:])
		}
		return out
	}
	return nil
}

// rcPaneHas tells whether the detail pane in s shows want, which may be
// broken over lines there: spaces and line ends are not compared.
func rcPaneHas(t *testing.T, s, want string) bool {
	t.Helper()
	var b strings.Builder
	for _, l := range rcPaneLines(t, s) {
		b.WriteString(strings.ReplaceAll(l, components.ContinuationMark, ""))
	}
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	return strings.Contains(squeeze(b.String()), squeeze(want))
}

// TestKVLinesBoundsALongValue: a value longer than eight lines of the
// pane ends with an ellipsis on the eighth, and no line is wider than the
// pane, by either count.
func TestKVLinesBoundsALongValue(t *testing.T) {
	st := ivTestCommon().Styles
	long := exHost + "/" + strings.Repeat("segment-👍🏽/", 40) + strings.Repeat("x", 900)
	for _, m := range []ansi.Method{ansi.WcWidth, ansi.GraphemeWidth} {
		for _, w := range []int{30, 44, 60, 116} {
			lines := kvLines(st, components.CellsOf(m), "", "loc", 11, long, st.URL, w)
			if len(lines) != maxValueLines {
				t.Errorf("method %d, width %d: %d lines, want %d", m, w, len(lines), maxValueLines)
			}
			for _, l := range lines {
				if n := m.StringWidth(l); n > w {
					t.Errorf("method %d, width %d: a line of %d cells: %q", m, w, n, ansi.Strip(l))
				}
			}
			if last := ansi.Strip(lines[len(lines)-1]); !strings.HasSuffix(last, "…") {
				t.Errorf("method %d, width %d: the last line does not say the value goes on: %q", m, w, last)
			}
		}
	}
}

// rcOddStrings are characters that terminals count differently by code
// point and by grapheme cluster (and CJK, wide by both).
var rcOddStrings = []string{"👨\u200d👩\u200d👧", "🇫🇷🇩🇪", "漢字", "\u3164\u3164", "👍🏽"}

// rcOddPagesSite is rcWidthSite's Resource List with the odd characters in
// values its checks quote (type, lastmod) too, and a Resource List whose
// entry links to a TimeMap of versions at odd URLs.
func rcOddPagesSite() map[string]string {
	site := rcWidthSite()
	var b, tm strings.Builder
	tm.WriteString(`<http://example.com/res1.txt>;rel="original",` + "\n")
	for i, o := range rcOddStrings {
		long := strings.Repeat(o, 16) // long enough that the pages cut or wrap it
		fmt.Fprintf(&b, "  <url><loc>%s/odd/%s/%02d.txt</loc><lastmod>%s</lastmod><rs:md type=\"text/%s\"/></url>\n", exHost, long, i, long, long)
		fmt.Fprintf(&tm, "<http://example.com/versions/%s/%02d/res1.txt>;rel=\"memento\";datetime=\"Mon, 0%d Jan 2026 00:00:00 GMT\",\n", o, i, i+1)
	}
	tm.WriteString(`<` + exHost + `/timemap/res1.txt>;rel="self";type="application/link-format"` + "\n")
	site["/odd.xml"] = strings.Replace(site["/odd.xml"], "</urlset>", b.String()+"</urlset>", 1)
	site["/timemap/res1.txt"] = tm.String()
	site["/versions.xml"] = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2026-01-06T00:00:00Z"/>
<url><loc>http://example.com/res1.txt</loc>
<rs:ln rel="timemap" href="` + exHost + `/timemap/res1.txt" type="application/link-format"/>
</url>
</urlset>
`
	return site
}

// TestOddWidthsOnEveryPage draws the pages over a document whose values
// hold emoji sequences, flags, CJK and Hangul fillers (problems, HTTP
// exchanges, the resource, a sync plan, an audit, versions, notifications
// and the help), under both counts a terminal may use, at 120, 100 and 80
// columns: no line of a page is wider than the terminal as it counts, and
// a line the page padded to its width (a rule, a pane's border) ends in
// the terminal's last column, so that nothing is cut or pushed over.
func TestOddWidthsOnEveryPage(t *testing.T) {
	places := []struct {
		name, target, keys, prompt, title string
		keyMap                            map[string][]string
	}{
		{name: "problems", target: "/odd.xml", keys: "p right j", title: "Problems"},
		{name: "http", target: "/odd.xml", keys: "G enter esc h", title: "HTTP"},
		{name: "resource", target: "/odd.xml", keys: "G enter", title: "Resource"},
		{name: "sync plan", target: "/odd.xml", prompt: "sync DIR", title: "Sync"},
		{name: "audit", target: "/odd.xml", prompt: "audit DIR", title: "Audit"},
		{name: "versions", target: "/versions.xml", keys: "v", title: "Versions"},
		{name: "notifications", target: "/odd.xml", keys: "w", title: "Notifications"},
		{name: "help", target: "/odd.xml", keys: "?", keyMap: map[string][]string{"raw": {"👨\u200d👩\u200d👧"}, "problems": {"漢"}}},
	}
	for _, m := range []ansi.Method{ansi.WcWidth, ansi.GraphemeWidth} {
		for _, sz := range []struct{ w, h int }{{120, 40}, {100, 30}, {80, 24}} {
			for _, p := range places {
				t.Run(fmt.Sprintf("%s_method%d_%dx%d", p.name, m, sz.w, sz.h), func(t *testing.T) {
					a := New(Options{
						Target:          exHost + p.target,
						Backend:         session.NewWithGetter(&exGetter{docs: rcOddPagesSite(), fail: map[string]error{}}, session.Options{BatchSize: 16}),
						Now:             func() time.Time { return exTime },
						PartConcurrency: 1,
						Keys:            p.keyMap,
					})
					a.noTick = true
					d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64)}
					d.send(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
					d.run(a.Init())
					if m == ansi.GraphemeWidth {
						d.send(tea.ModeReportMsg{Mode: ansi.ModeUnicodeCore, Value: ansi.ModeReset})
					}
					for _, k := range strings.Fields(p.keys) {
						d.send(helpKey(k))
					}
					if p.prompt != "" {
						d.keys(":")
						d.typeText(strings.ReplaceAll(p.prompt, "DIR", t.TempDir()))
						d.keys("enter")
					}
					var view string
					switch {
					case p.name == "help":
						if a.help == nil {
							t.Fatal("? opened no help")
						}
						view = a.help.View()
					case len(a.pages) == 0 || !strings.HasPrefix(a.pageTitle(), p.title):
						t.Fatalf("the page shown is not %s (flash %q):\n%s", p.title, a.flash, d.screen())
					default:
						view = a.pages[len(a.pages)-1].View()
					}
					if testing.Verbose() {
						t.Logf("\n%s", ansi.Strip(view))
					}
					rcCheckPageWidths(t, view, m, sz.w)
				})
			}
		}
	}
}

// rcCheckPageWidths checks the lines of a page's view as m counts: every
// line it padded or drew to the width w (uitest.OverPadded) is w wide.
func rcCheckPageWidths(t *testing.T, view string, m ansi.Method, w int) {
	t.Helper()
	for _, e := range uitest.OverPadded(view, m, w) {
		t.Error(e)
	}
}
