package pages

import (
	"bytes"
	"context"
	"fmt"
	"rsx/ui/nav"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func ivSampleXML(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"` + "\n")
	b.WriteString(`        xmlns:rs="http://www.openarchives.org/rs/terms/">` + "\n")
	b.WriteString(`  <!-- a Resource List` + "\n" + `       of test resources -->` + "\n")
	b.WriteString(`  <rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>` + "\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  <url>\n    <loc>http://example.com/res%d</loc>\n", i)
		b.WriteString("    <lastmod>2013-01-02T13:00:00Z</lastmod>\n")
		fmt.Fprintf(&b, "    <rs:md hash=\"md5:1584abdf8ebdc9802ac0c6a7402c03b6\" length=\"%d\" type=\"text/html\"/>\n", 8870+i)
		b.WriteString("  </url>\n")
	}
	b.WriteString("</urlset>\n")
	return b.Bytes()
}

// ivLoadedRaw returns a raw page of data, loaded and sized.
func ivLoadedRaw(t *testing.T, data []byte, w, h int) *Raw {
	t.Helper()
	v := NewRaw(ivTestCommon(), "http://example.com/resourcelist.xml", data)
	v.SetSize(w, h)
	ivDrive(v, v.Init()())
	if !v.Loaded() {
		t.Fatal("raw view did not load")
	}
	return v
}

func TestRawViewGolden(t *testing.T) {
	data := ivSampleXML(40)
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			v := NewRaw(ivTestCommon(), "http://example.com/resourcelist.xml", data)
			tm, rec := ivRun(t, v, w, h)
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "<urlset") })
			ivGolden(t, fmt.Sprintf("view_raw_%dx%d", w, h), rec.Screen())

			// Search, go to the second match, scroll sideways.
			tm.Type("/res12")
			tm.Send(ivKey("enter"))
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, `"res12" 1/1`) })
			tm.Type("g/loc")
			tm.Send(ivKey("enter"))
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, `"loc" 1/80`) })
			tm.Type("nn")
			screen := ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, `"loc" 3/80`) })
			if !strings.Contains(screen, "res2</loc>") {
				t.Errorf("third <loc> match not on screen:\n%s", screen)
			}
			tm.Type("N")
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, `"loc" 2/80`) })
			ivGolden(t, fmt.Sprintf("view_raw_search_%dx%d", w, h), rec.Screen())

			// Jump to a line, as the problems view asks.
			tm.Send(nav.ShowRawLineMsg{Line: 150, Entry: -1})
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "150 ▶") })
			ivGolden(t, fmt.Sprintf("view_raw_line_%dx%d", w, h), rec.Screen())
		})
	}
}

func TestRawViewScroll(t *testing.T) {
	data := ivSampleXML(40) // 207 lines
	v := ivLoadedRaw(t, data, 80, 24)
	body := v.bodyHeight()
	steps := []struct {
		msg tea.Msg
		top int
	}{
		{ivKey("j"), 1},
		{ivKey("down"), 2},
		{ivKey("k"), 1},
		{ivKey("pgdown"), 1 + body},
		{ivKey("pgup"), 1},
		{ivKey("G"), v.lineCount() - body},
		{ivKey("g"), 0},
		{tea.MouseWheelMsg{Button: tea.MouseWheelDown}, 3},
		{tea.MouseWheelMsg{Button: tea.MouseWheelUp}, 0},
		{ivKey("k"), 0},
	}
	for i, s := range steps {
		v.Update(s.msg)
		if v.top() != s.top {
			t.Fatalf("step %d (%v): top = %d, want %d", i, s.msg, v.top(), s.top)
		}
	}
	v.Update(ivKey("right"))
	if v.xoff != rawSideStep {
		t.Errorf("xoff = %d after →", v.xoff)
	}
	ivDrive(v, ivKey("#"), ivKey("9"), ivKey("9"), ivKey("enter"))
	if v.target != 98 || v.top() > 98 || v.top()+v.bodyHeight() <= 98 {
		t.Errorf("# 99: target %d, top %d", v.target, v.top())
	}
	if v.xoff != 0 {
		t.Errorf("a jump to a line should scroll back to column 0")
	}
}

func TestRawViewInputCapturesKeys(t *testing.T) {
	v := ivLoadedRaw(t, ivSampleXML(5), 80, 24)
	v.Update(ivKey("/"))
	if !v.InputActive() {
		t.Fatal("/ did not open the search prompt")
	}
	ivDrive(v, ivKey("G"), ivKey("j"), ivKey("backspace"), ivKey("u"), ivKey("r"), ivKey("l"))
	if got := v.input.Value(); got != "Gurl" {
		t.Errorf("input = %q", got)
	}
	if v.top() != 0 {
		t.Error("keys typed into the prompt moved the view")
	}
	v.Update(ivKey("esc"))
	if v.InputActive() || v.query != "" {
		t.Errorf("esc should close the prompt without searching")
	}
}

// The raw view shows what the document holds: a control, a bidirectional
// override or a byte that is not UTF-8 as its escape (as every page shows
// Source text), tabs as the whitespace they are.
func TestRawViewEscapesControlCharacters(t *testing.T) {
	data := []byte("<a>\x1b[2J\x1b]0;pwned\x07\t<b/>\xff</a>\r\nnext\u202eevil\u009b\r\n")
	v := ivLoadedRaw(t, data, 60, 6)
	out := v.View()
	if strings.Contains(ansi.Strip(out), "\x1b") || strings.ContainsAny(out, "\x07\u202e\u009b") || strings.Contains(out, "pwned\x07") {
		t.Fatalf("control characters reached the terminal: %q", out)
	}
	lines := ivLines(out)
	if want := `1 │ <a>\x1b[2J\x1b]0;pwned\x07  <b/>\xff</a>`; lines[1] != want {
		t.Errorf("line 1 = %q, want %q", lines[1], want)
	}
	if want := `2 │ next\u202eevil\u009b`; lines[2] != want {
		t.Errorf("line 2 = %q, want %q", lines[2], want)
	}
}

func TestRawViewTruncates(t *testing.T) {
	data := bytes.Repeat([]byte("<x/>\n"), (rawMaxBytes+1<<20)/5) // 65 MiB
	v := ivLoadedRaw(t, data, 100, 10)
	if len(v.text.data) != rawMaxBytes || !v.text.truncated {
		t.Fatalf("kept %d bytes, truncated %v", len(v.text.data), v.text.truncated)
	}
	if h := ivLines(v.View())[0]; !strings.Contains(h, "showing the first 64 MiB of 65 MiB") {
		t.Errorf("header does not say the document was cut: %q", h)
	}

	// From a reader: the size is unknown.
	r := NewRawReader(ivTestCommon(), "big", iotest.HalfReader(bytes.NewReader(data)), -1)
	r.SetSize(100, 10)
	ivDrive(r, r.Init()())
	if !r.text.truncated || len(r.text.data) != rawMaxBytes {
		t.Fatalf("reader: kept %d bytes, truncated %v", len(r.text.data), r.text.truncated)
	}
	if h := ivLines(r.View())[0]; !strings.Contains(h, "of a longer document") {
		t.Errorf("header: %q", h)
	}
}

func TestRawViewReaderCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := readBounded(ctx, strings.NewReader("<a/>"), 10)
	if err == nil {
		t.Fatal("a cancelled read should fail")
	}
	data, truncated, err := readBounded(context.Background(), iotest.OneByteReader(strings.NewReader("0123456789abc")), 10)
	if err != nil || string(data) != "0123456789" || !truncated {
		t.Errorf("readBounded = %q, %v, %v", data, truncated, err)
	}
}

func TestRawIndexLines(t *testing.T) {
	tests := []struct {
		in   string
		want []int32
	}{
		{"", []int32{0}},
		{"a", []int32{0}},
		{"a\n", []int32{0}},
		{"a\nb", []int32{0, 2}},
		{"a\r\nb\r\n", []int32{0, 3}},
		{"\n\n", []int32{0, 1}},
	}
	for _, tt := range tests {
		got := indexLines([]byte(tt.in))
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("indexLines(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestRawFindAll(t *testing.T) {
	big := bytes.Repeat([]byte{'.'}, 3<<20)
	copy(big[1<<20-2:], "LOC") // across the first fold window
	copy(big[2<<20:], "loc")
	tests := []struct {
		name   string
		data   []byte
		query  string
		limit  int
		want   []int
		capped bool
	}{
		{"smart case folds", []byte("<loc>LOC</Loc>"), "loc", 10, []int{1, 5, 10}, false},
		{"upper case is exact", []byte("<loc>LOC</Loc>"), "LOC", 10, []int{5}, false},
		{"non-overlapping", []byte("aaaa"), "aa", 10, []int{0, 2}, false},
		{"capped", []byte("aaaa"), "a", 3, []int{0, 1, 2}, true},
		{"none", []byte("abc"), "x", 3, nil, false},
		{"empty query", []byte("abc"), "", 3, nil, false},
		{"across windows", big, "loc", 10, []int{1<<20 - 2, 2 << 20}, false},
	}
	for _, tt := range tests {
		got, capped := findAll(tt.data, tt.query, tt.limit)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) || capped != tt.capped {
			t.Errorf("%s: findAll = %v, %v; want %v, %v", tt.name, got, capped, tt.want, tt.capped)
		}
	}
}

// A 50 MB document must not freeze the UI: loading and searching run in
// commands, and drawing a screen costs the same anywhere in it.
func TestRawViewLargeDocument(t *testing.T) {
	if testing.Short() {
		t.Skip("large document")
	}
	data := ivSampleXML(260000) // about 50 MB
	v := NewRaw(ivTestCommon(), "big", data)
	v.SetSize(120, 40)
	start := time.Now()
	v.Update(v.Init()())
	t.Logf("%d lines, %d MB indexed in %v", v.lineCount(), len(data)>>20, time.Since(start))

	for _, k := range []string{"G", "g", "pgdown"} {
		start = time.Now()
		v.Update(ivKey(k))
		_ = v.View()
		if d := time.Since(start); d > 250*time.Millisecond {
			t.Errorf("key %s and a frame took %v", k, d)
		}
	}
	start = time.Now()
	cmd := ivDrive2(v, "/res259999")
	if cmd == nil {
		t.Fatal("search did not return a command")
	}
	if d := time.Since(start); d > 50*time.Millisecond {
		t.Errorf("starting a search blocked for %v", d)
	}
	v.Update(cmd())
	if len(v.matches) != 1 || !strings.Contains(ansi.Strip(v.View()), "<loc>http://example.com/res259999</loc>") {
		t.Errorf("search in the large document: %d matches", len(v.matches))
	}

	// One line of 50 MB (a minified document).
	flat := bytes.ReplaceAll(data, []byte("\n"), nil)
	f := NewRaw(ivTestCommon(), "flat", flat)
	f.SetSize(120, 40)
	f.Update(f.Init()())
	for i := 0; i < 3; i++ {
		start = time.Now()
		f.xoff = i * 20 << 20
		_ = f.View()
		if d := time.Since(start); d > 250*time.Millisecond {
			t.Errorf("a frame of a 50 MB line at column %d took %v", f.xoff, d)
		}
	}
}

// ivDrive2 types s into the page (keys only), then enter, and returns the
// command enter gave.
func ivDrive2(v *Raw, s string) tea.Cmd {
	for _, r := range s {
		v.Update(ivKey(string(r)))
	}
	_, cmd := v.Update(ivKey("enter"))
	return cmd
}

func BenchmarkRawViewFrame(b *testing.B) {
	data := ivSampleXML(20000)
	v := NewRaw(ivTestCommon(), "bench", data)
	v.SetSize(120, 40)
	v.Update(v.Init()())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v.Update(ivKey("pgdown"))
		_ = v.View()
	}
}

func TestRawHighlightClasses(t *testing.T) {
	v := ivLoadedRaw(t, ivSampleXML(2), 120, 30)
	classesOf := func(line int) map[string]rawClass {
		start, end := v.text.lineBounds(line)
		text := string(v.text.data[start:end])
		out := map[string]rawClass{}
		for _, s := range v.session.hl.lineSpans(v.text, line) {
			out[text[s.start:s.end]] = s.class
		}
		return out
	}
	l0 := classesOf(0)
	if l0[`<?xml version="1.0" encoding="UTF-8"?>`] != rawClassPreproc {
		t.Errorf("XML declaration: %v", l0)
	}
	// Line 3 continues the <urlset> start tag of line 2: the lexer state
	// carries over within a chunk.
	l2 := classesOf(2)
	if l2["xmlns:rs="] != rawClassAttr || l2[`"http://www.openarchives.org/rs/terms/"`] != rawClassValue {
		t.Errorf("attribute on a continuation line: %v", l2)
	}
	if l4 := classesOf(4); l4["-->"] != rawClassComment {
		t.Errorf("second line of a comment: %v", l4)
	}
	if l7 := classesOf(7); l7["<loc"] != rawClassTag && l7["<loc>"] != rawClassTag {
		t.Errorf("<loc>: %v", l7)
	}
	// And the styles reach the screen.
	if !strings.Contains(v.View(), "\x1b[") {
		t.Error("no colours on screen")
	}
}

// Whatever the bytes, the raw view neither panics nor lets a control
// character or an over-wide line reach the terminal.
func FuzzRawViewRender(f *testing.F) {
	f.Add([]byte("<a b=\"c\">\x1b[31m</a>"), 0, "a")
	f.Add([]byte("\xff\xfe<\t>\r\n\n<!-- x"), 3, "<")
	f.Add(ivSampleXML(2), 9, "LOC")
	f.Fuzz(func(t *testing.T, data []byte, xoff int, query string) {
		if len(data) > 1<<16 || xoff < 0 || xoff > 1<<16 {
			return
		}
		v := NewRaw(ivTestCommon(), "fuzz", data)
		v.SetSize(40, 8)
		v.Update(v.Init()())
		v.xoff = xoff
		if query != "" && !strings.ContainsAny(query, "\n") {
			v.Update(searchRawCmd(v.session, v.searchGen, data, query)())
		}
		for i, l := range strings.Split(v.View(), "\n") {
			plain := ansi.Strip(l)
			if w := ansi.StringWidth(l); w > 40 {
				t.Fatalf("line %d is %d cells wide: %q", i, w, plain)
			}
			if strings.ContainsAny(plain, "\x1b\x07\x00\r") {
				t.Fatalf("line %d carries a control character: %q", i, plain)
			}
		}
	})
}

// esc first clears an active search (its query, matches and highlights,
// as in less); only then does it leave the page. A search that found
// nothing is cleared the same way.
func TestRawViewEscClearsSearch(t *testing.T) {
	v := ivLoadedRaw(t, ivSampleXML(5), 80, 24)
	ivDrive(v, ivKey("/"), ivKey("l"), ivKey("o"), ivKey("c"), ivKey("enter"))
	if len(v.matches) != 10 || !strings.Contains(ansi.Strip(v.View()), `"loc" 1/10`) {
		t.Fatalf("search: %d matches\n%s", len(v.matches), ansi.Strip(v.View()))
	}
	withMatches := v.View()
	if handled, _ := v.Back(); !handled {
		t.Fatal("esc with a search active left the page")
	}
	if v.query != "" || len(v.matches) != 0 || v.current != -1 {
		t.Errorf("after esc: query %q, %d matches, current %d", v.query, len(v.matches), v.current)
	}
	if s := ansi.Strip(v.View()); strings.Contains(s, `"loc"`) || v.View() == withMatches {
		t.Errorf("the search is still shown after esc:\n%s", s)
	}
	if handled, _ := v.Back(); handled {
		t.Error("a second esc did not leave the page")
	}

	ivDrive(v, ivKey("/"), ivKey("z"), ivKey("z"), ivKey("enter"))
	if !strings.Contains(ansi.Strip(v.View()), `"zz" not found`) {
		t.Fatalf("no match: %s", ansi.Strip(v.View()))
	}
	if handled, _ := v.Back(); !handled || strings.Contains(ansi.Strip(v.View()), "not found") {
		t.Errorf("esc after a search that found nothing: handled %v\n%s", handled, ansi.Strip(v.View()))
	}
	if handled, _ := v.Back(); handled {
		t.Error("a second esc did not leave the page")
	}
}
