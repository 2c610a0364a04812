package components

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"rsx/display"
	"rsx/ui/common"
)

// press is a key press as the terminal sends it.
func press(k string) tea.KeyPressMsg {
	switch k {
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "ctrl+d":
		return tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	msg := tea.KeyPressMsg{Code: r, Text: k}
	if r >= 'A' && r <= 'Z' {
		msg.Code, msg.ShiftedCode, msg.Mod = r+'a'-'A', r, tea.ModShift
	}
	return msg
}

func TestLayoutColumns(t *testing.T) {
	cols := []Column{
		{Title: "loc", Min: 10, Flex: 3},
		{Title: "lastmod", Min: 20, Max: 20},
		{Title: "type", Min: 8, Max: 12, Flex: 1},
		{Title: "hash", Min: 12, Flex: 1},
	}
	cases := []struct {
		width int
		want  []int
	}{
		{100, nil}, // checked by the invariants below
		{53, []int{10, 20, 8, 12}},
		{40, []int{10, 20, 8, 0}}, // hash does not fit: left out
		{25, []int{25, 0, 0, 0}},  // only loc
	}
	for _, tc := range cases {
		got := FitColumns(cols, nil, tc.width)
		total := 0
		shown := 0
		for i, w := range got {
			if w > 0 {
				total += w
				shown++
				if w < cols[i].Min {
					t.Errorf("width %d: column %s is %d, under its minimum", tc.width, cols[i].Title, w)
				}
			}
		}
		if used := total + max(shown-1, 0); used != tc.width {
			t.Errorf("width %d: columns use %d cells (%v)", tc.width, used, got)
		}
		if tc.want != nil && !slices.Equal(got, tc.want) {
			t.Errorf("width %d: %v, want %v", tc.width, got, tc.want)
		}
	}
}

func TestCell(t *testing.T) {
	cases := []struct {
		s     string
		w     int
		right bool
		trunc int
		want  string
	}{
		{"abc", 5, false, TruncEnd, "abc  "},
		{"abc", 5, true, TruncEnd, "  abc"},
		{"abcdef", 4, false, TruncEnd, "abc…"},
		{"http://example.org/a/b/c/file.xml", 16, false, TruncMiddle, "http://ex…le.xml"},
		{"héllo wörld", 6, false, TruncEnd, "héllo…"},
		// Controls are shown escaped (Escape), and measured as shown.
		{"line\nbreak", 12, false, TruncEnd, `line\nbreak `},
		{"a\x1b[31mb\u009bc\x7f", 24, false, TruncEnd, `a\x1b[31mb\u009bc\x7f   `},
		{"a\x1b[31mb", 6, false, TruncEnd, `a\x1b…`},
		{"x", 0, false, TruncEnd, ""},
	}
	for _, tc := range cases {
		got := Graphemes.Cell(tc.s, tc.w, tc.right, tc.trunc)
		if got != tc.want {
			t.Errorf("Graphemes.Cell(%q, %d) = %q, want %q", tc.s, tc.w, got, tc.want)
		}
		if w := ansi.StringWidth(got); w != tc.w {
			t.Errorf("Graphemes.Cell(%q, %d) is %d cells wide", tc.s, tc.w, w)
		}
	}
}

func TestTableMoves(t *testing.T) {
	c := common.New(true, nil)
	tb := NewTable(c)
	tb.SetColumns([]Column{{Title: "n", Min: 5, Flex: 1, Value: func(i int) string { return fmt.Sprint(i) }}})
	tb.SetSize(20, 11) // 10 rows
	tb.SetCount(100)
	steps := []struct {
		msg        tea.Msg
		cur, first int
	}{
		{press("j"), 1, 0},
		{press("G"), 99, 90},
		{press("k"), 98, 90},
		{press("g"), 0, 0},
		{press("pgdown"), 10, 1},
		{press("ctrl+d"), 15, 6},
		{tea.MouseWheelMsg{Button: tea.MouseWheelDown}, 15, 9},
		{tea.MouseWheelMsg{Button: tea.MouseWheelDown}, 15, 12},
		{tea.MouseWheelMsg{Button: tea.MouseWheelDown}, 15, 15},
		{tea.MouseWheelMsg{Button: tea.MouseWheelDown}, 18, 18}, // the cursor is pushed along
	}
	for i, st := range steps {
		tb.Update(st.msg, &c.Keys)
		if tb.Cursor() != st.cur || tb.Offset() != st.first {
			t.Fatalf("step %d: cursor %d first %d, want %d %d", i, tb.Cursor(), tb.Offset(), st.cur, st.first)
		}
	}
	// A permutation keeps the cursor on the same entry.
	tb.MoveTo(42)
	perm := make([]int32, 100)
	for i := range perm {
		perm[i] = int32(99 - i)
	}
	tb.SetPerm(perm)
	if tb.Selected() != 42 || tb.Cursor() != 57 {
		t.Fatalf("after reversing: entry %d at %d, want 42 at 57", tb.Selected(), tb.Cursor())
	}
	// Only the rows in view are drawn, each exactly as wide as the table.
	lines := strings.Split(tb.View(), "\n")
	if len(lines) != 11 {
		t.Fatalf("%d lines, want 11", len(lines))
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w != 20 {
			t.Fatalf("line %q is %d wide", ansi.Strip(l), w)
		}
	}
}

// TestListLinks drives the list state of a text with links (discovery,
// resource): 10 items on lines 2, 4, …, 20 of 25, a 5-line window.
func TestListLinks(t *testing.T) {
	l := NewList(Links)
	items := make([]int, 10)
	for i := range items {
		items[i] = 2 + 2*i
	}
	l.SetHeight(5)
	l.SetItems(items, 25)
	k := common.DefaultKeyMap()
	steps := []struct {
		msg      tea.Msg
		sel, top int
	}{
		{press("j"), 1, 0},
		{press("j"), 2, 4}, // line 6 left the window 0–4: centred
		{press("j"), 3, 4}, // line 8 is in 4–8
		{press("G"), 9, 20},
		{press("g"), 0, 0},
		{tea.MouseWheelMsg{Button: tea.MouseWheelDown}, 0, 3}, // the wheel scrolls, keeps the selection
		{tea.MouseWheelMsg{Button: tea.MouseWheelUp}, 0, 0},
		{press("pgdown"), 0, 4}, // a page less a line, the selection stays
		{press("k"), 0, 0},      // clamped at the first item, brought back into view
	}
	for i, s := range steps {
		if !l.Update(s.msg, &k) {
			t.Fatalf("step %d: %v not handled", i, s.msg)
		}
		if l.Cursor() != s.sel || l.Offset() != s.top {
			t.Fatalf("step %d (%v): sel %d top %d, want sel %d top %d", i, s.msg, l.Cursor(), l.Offset(), s.sel, s.top)
		}
	}
	if l.Update(press("x"), &k) {
		t.Error("x is not a movement key, but Update took it")
	}
}

// TestListSelectSkips: a list with section headings (problems) never
// selects a heading, and counts pages in items.
func TestListSelectSkips(t *testing.T) {
	// Lines 0 and 5 are headings; 1–4 and 6–11 items.
	heading := func(i int) bool { return i == 0 || i == 5 }
	l := NewList(Select)
	l.Skip = heading
	l.SetHeight(4)
	l.SetLen(12)
	l.Select(0)
	k := common.DefaultKeyMap()
	steps := []struct {
		msg      tea.Msg
		sel, top int
	}{
		{nil, 1, 0}, // Select(0) landed on the first item
		{press("j"), 2, 0},
		{press("j"), 3, 0},
		{press("j"), 4, 1},
		{press("j"), 6, 3}, // over the heading
		{press("k"), 4, 3},
		{press("G"), 11, 8},
		{press("g"), 1, 0},
		{press("pgdown"), 6, 3}, // four items down, the heading not counted
		{tea.MouseWheelMsg{Button: tea.MouseWheelUp}, 3, 0}, // pushed along to the window's last line
	}
	for i, s := range steps {
		if s.msg != nil && !l.Update(s.msg, &k) {
			t.Fatalf("step %d: %v not handled", i, s.msg)
		}
		if l.Cursor() != s.sel || l.Offset() != s.top {
			t.Fatalf("step %d (%v): sel %d top %d, want sel %d top %d", i, s.msg, l.Cursor(), l.Offset(), s.sel, s.top)
		}
	}
	// Scrolling pushes the cursor onto the heading's line: it goes on to
	// the item after it.
	l.Select(1)
	l.ScrollBy(5)
	if l.Cursor() != 6 || l.Offset() != 5 {
		t.Errorf("scrolled onto a heading: sel %d top %d, want sel 6 top 5", l.Cursor(), l.Offset())
	}
}

// TestListScroll: a text without selection scrolls by lines, pages, half
// pages and the wheel, within its ends.
func TestListScroll(t *testing.T) {
	l := NewList(Scroll)
	l.SetHeight(10)
	l.SetLen(35)
	k := common.DefaultKeyMap()
	steps := []struct {
		msg tea.Msg
		top int
	}{
		{press("j"), 1},
		{press("pgdown"), 11},
		{press("ctrl+d"), 16},
		{press("pgdown"), 25}, // the last page
		{press("j"), 25},
		{press("g"), 0},
		{press("k"), 0},
		{tea.MouseWheelMsg{Button: tea.MouseWheelDown}, 3},
		{press("G"), 25},
	}
	for i, s := range steps {
		l.Update(s.msg, &k)
		if l.Offset() != s.top {
			t.Fatalf("step %d (%v): top %d, want %d", i, s.msg, l.Offset(), s.top)
		}
	}
	l.SetLen(5) // shorter than the window
	if l.Offset() != 0 {
		t.Errorf("a text shorter than the window scrolled to %d", l.Offset())
	}
}

// TestStepOfWhileTyping: under a text input, letters type and only the
// arrows and page keys still move.
func TestStepOfWhileTyping(t *testing.T) {
	k := common.DefaultKeyMap()
	typing := k.WhileTyping()
	cases := []struct {
		msg          tea.KeyPressMsg
		moves, typed bool
	}{
		{press("j"), true, false},
		{tea.KeyPressMsg{Code: tea.KeyDown}, true, true},
		{tea.KeyPressMsg{Code: tea.KeyPgDown}, true, true},
		{press("g"), true, false},
		{press("ctrl+d"), true, false},
		// space marks entries (the document page): it pages nowhere.
		{tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}, false, false},
	}
	for _, c := range cases {
		if _, ok := StepOf(c.msg, &k); ok != c.moves {
			t.Errorf("%v moves %v, want %v", c.msg, ok, c.moves)
		}
		if _, ok := StepOf(c.msg, &typing); ok != c.typed {
			t.Errorf("%v moves while typing %v, want %v", c.msg, ok, c.typed)
		}
	}
}

func TestWrap(t *testing.T) {
	cases := []struct {
		s    string
		w    int
		want []string
	}{
		{"a date (2013-01), or column:text", 12, []string{"a date", "(2013-01),", "or", "column:text"}},
		{"an OAI-ORE Aggregation", 5, []string{"an", "OAI-ORE", "Aggregation"}}, // hyphens do not break
		{"  spaces   collapse  ", 40, []string{"spaces collapse"}},
		{"", 10, nil},
	}
	for _, c := range cases {
		if got := Graphemes.Wrap(c.s, c.w); !slices.Equal(got, c.want) {
			t.Errorf("Wrap(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
	}
}

func TestHardWrap(t *testing.T) {
	cases := []struct {
		s    string
		w    int
		want []string
	}{
		{"abcdefgh", 3, []string{"abc", "def", "gh"}},
		{"héllo wörld", 4, []string{"héll", "o wö", "rld"}},
		{"漢字漢字", 3, []string{"漢", "字", "漢", "字"}},
		{"short", 10, []string{"short"}},
	}
	for _, c := range cases {
		if got := Graphemes.HardWrap(c.s, c.w); !slices.Equal(got, c.want) {
			t.Errorf("HardWrap(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
	}
}

// TestCounts: sizes and plurals are display's (display.Size, display.Plural).
func TestCounts(t *testing.T) {
	if got := Count(1234567); got != "1,234,567" {
		t.Errorf("Count = %q", got)
	}
}

// TestEscape: what a Source wrote is shown as it was, with every character
// a terminal would act on written as an escape (display.Escape), and the
// escapes measure as the text they are.
func TestEscape(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain http://example.org/a b", "plain http://example.org/a b"},
		{"a\x1b[2J\tb\xffc", `a\x1b[2J\tb\xffc`},
		{"a\nb\u009bc\u009d", `a\nb\u009bc\u009d`},
		{"evil\u202etxt.exe\u2066", `evil\u202etxt.exe\u2066`},
		{"naïve ✓ 日本", "naïve ✓ 日本"},
		// No password is shown (a Source URL given with one, an error
		// quoting it).
		{"GET http://user:hunter2@h/cap.xml: 401", "GET http://user:xxxxx@h/cap.xml: 401"},
	}
	for _, c := range cases {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// A line of a text body: tabs are its whitespace, to the next stop.
	if got, want := EscapeLine("a\tbc\td\x07"), `a   bc  d\x07`; got != want {
		t.Errorf("EscapeLine = %q, want %q", got, want)
	}
	if got, want := EscapeLine("\u202e\tx"), `\u202e  x`; got != want {
		t.Errorf("EscapeLine after an escape = %q, want %q", got, want)
	}
	if got, want := EscapeLine("<loc>http://u:pw@h/a</loc>\tx"), "<loc>http://u:xxxxx@h/a</loc>   x"; got != want {
		t.Errorf("EscapeLine of a URL with a password = %q, want %q", got, want)
	}
	if got := Graphemes.Cell("http://u:hunter2@h/a", 30, false, TruncEnd); strings.Contains(got, "hunter2") {
		t.Errorf("Cell = %q, shows the password", got)
	}
}

// TestCellEscapes: a table cell shows an escape in place of a control and
// keeps its width, measured as the terminal will.
func TestCellEscapes(t *testing.T) {
	for _, in := range []string{"ab\x1b[31mcd", "x\u202ey", "\u009b2J日本", "a\tb\nc"} {
		for _, w := range []int{3, 8, 20} {
			for _, right := range []bool{false, true} {
				got := Graphemes.Cell(in, w, right, TruncMiddle)
				if n := ansi.StringWidth(got); n != w {
					t.Errorf("Graphemes.Cell(%q, %d) = %q is %d cells wide", in, w, got, n)
				}
				for _, r := range got {
					if r < 0x20 || (r >= 0x7f && r < 0xa0) || r == 0x202e {
						t.Errorf("Graphemes.Cell(%q, %d) = %q holds %U", in, w, got, r)
					}
				}
			}
		}
	}
	if got := Graphemes.Cell("x\u202ey", 10, false, TruncEnd); got != `x\u202ey  ` {
		t.Errorf("Cell = %q, want the escape shown", got)
	}
}

// TestInputTypes: the text input edits and draws without blinking, and
// leaves enter and esc to its owner.
func TestInputTypes(t *testing.T) {
	st := common.NewStyles(true)
	in := NewInput(st, "/ ")
	in.SetWidth(20)
	in.Start("ab")
	for _, m := range []tea.Msg{press("c"), tea.KeyPressMsg{Code: tea.KeyBackspace}, tea.PasteMsg{Content: "x\ny"}} {
		in.Update(m)
	}
	if in.Value() != "abx y" {
		t.Errorf("value %q, want %q", in.Value(), "abx y")
	}
	if got := ansi.Strip(in.View()); got != "/ abx y " {
		t.Errorf("view %q", got)
	}
	if in.Update(tea.KeyPressMsg{Code: tea.KeyEnter}) {
		t.Error("enter changed the text")
	}
	in.SetValue(strings.Repeat("x", 40))
	in.Start(strings.Repeat("x", 40))
	if w := ansi.StringWidth(in.View()); w > 2+20+1 {
		t.Errorf("a long text drew %d cells, more than the input's width", w)
	}
}

func TestShortHelpDropsWhatDoesNotFit(t *testing.T) {
	st := common.NewStyles(true)
	k := common.DefaultKeyMap()
	full := ansi.Strip(ShortHelp(st, k.DocumentFooter(false, false), " · ", 0))
	if !strings.HasPrefix(full, "enter open · esc back · / filter") || !strings.HasSuffix(full, "q quit") {
		t.Errorf("footer %q", full)
	}
	cut := ansi.Strip(ShortHelp(st, k.DocumentFooter(false, false), " · ", 40))
	if ansi.StringWidth(cut) > 40 || !strings.HasSuffix(cut, "…") {
		t.Errorf("footer cut to 40: %q", cut)
	}
}

// FuzzCell: whatever a Source wrote, a table cell is exactly as wide as its
// column and holds nothing a terminal acts on.
func FuzzCell(f *testing.F) {
	for _, s := range []string{"", "plain", "a\x1b]0;t\x07b", "\u202eevil\u2066", "日本語テキスト", "\xff\xfe", "tab\there\nline", "e\u0301\u200d"} {
		f.Add(s, 10)
	}
	f.Fuzz(func(t *testing.T, s string, w int) {
		w = w%80 + 1
		if w < 1 {
			w += 80
		}
		for _, trunc := range []int{TruncEnd, TruncMiddle} {
			got := Graphemes.Cell(s, w, false, trunc)
			if n := ansi.StringWidth(got); n != w {
				t.Fatalf("Graphemes.Cell(%q, %d) = %q is %d cells wide", s, w, got, n)
			}
			for _, r := range got {
				if display.Unsafe(r) {
					t.Fatalf("Graphemes.Cell(%q, %d) = %q holds %U", s, w, got, r)
				}
			}
		}
	})
}
