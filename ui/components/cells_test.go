package components

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// odd are texts whose width depends on how a terminal counts: by code
// point (wcwidth) or by grapheme cluster.
var odd = []string{
	"👨\u200d👩\u200d👧", "🇫🇷", "👍🏽", "\u3164", "⚠\ufe0f", "e\u0301", "漢字", "🏳\ufe0f\u200d🌈",
}

// TestCellsPadAndCutByTheirMethod pads and cuts texts holding odd
// characters to every width by both methods: the cell is exactly as wide
// as asked, counted by the same method, and no cluster is split.
func TestCellsPadAndCutByTheirMethod(t *testing.T) {
	for _, m := range []ansi.Method{ansi.WcWidth, ansi.GraphemeWidth} {
		c := CellsOf(m)
		for _, o := range odd {
			s := "/photos/" + o + "/item-" + o + "-01.jpg"
			for w := 1; w <= c.Width(s)+2; w++ {
				for _, trunc := range []int{TruncEnd, TruncMiddle} {
					for _, right := range []bool{false, true} {
						got := c.Cell(s, w, right, trunc)
						if n := m.StringWidth(got); n != w {
							t.Errorf("method %d: Cell(%q, %d) = %q, %d cells", m, s, w, got, n)
						}
						if strings.Contains(got, "\u200d…") || strings.HasPrefix(strings.TrimPrefix(got, "…"), "\u200d") {
							t.Errorf("method %d: Cell(%q, %d) = %q splits a cluster", m, s, w, got)
						}
					}
				}
			}
		}
	}
}

func TestWrapValue(t *testing.T) {
	sha := "sha-256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	cases := []struct {
		name, s string
		w       int
		want    []ValueLine
	}{
		{"fits", "http://example.org/a.html", 40, []ValueLine{{Text: "http://example.org/a.html"}}},
		{"after slashes", "http://example.org/collections/letters/1887/letter-0198.xml", 30,
			[]ValueLine{{Text: "http://example.org/"}, {Text: "collections/letters/1887/"}, {Text: "letter-0198.xml"}}},
		{"after ? & =", "http://example.org/api/records?id=10042&format=mods&x=1", 36,
			[]ValueLine{{Text: "http://example.org/api/records?id="}, {Text: "10042&format=mods&x=1"}}},
		{"digest cut with the mark", sha, 30,
			[]ValueLine{{Text: sha[:29], Cut: true}, {Text: sha[29:58], Cut: true}, {Text: sha[58:]}}},
		{"words whole", "Source Description › Capability List › Resource List", 24,
			[]ValueLine{{Text: "Source Description ›"}, {Text: "Capability List ›"}, {Text: "Resource List"}}},
		{"long token on lines of its own", "md5:1584abdf8ebdc9802ac0c6a7402c03b6 " + sha + " x", 40,
			[]ValueLine{{Text: "md5:1584abdf8ebdc9802ac0c6a7402c03b6"}, {Text: sha[:39], Cut: true}, {Text: sha[39:]}, {Text: "x"}}},
		// "text/" would leave most of the line empty: cut instead.
		{"no early break", "text/html;profile=" + strings.Repeat("x", 40), 30,
			[]ValueLine{{Text: "text/html;profile="}, {Text: strings.Repeat("x", 29), Cut: true}, {Text: "xxxxxxxxxxx"}}},
	}
	for _, tc := range cases {
		got := Graphemes.WrapValue(tc.s, tc.w)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: WrapValue(%q, %d) =\n%+v\nwant\n%+v", tc.name, tc.s, tc.w, got, tc.want)
		}
	}
}

// TestWrapValueKeepsEveryCharacter wraps values holding odd characters by
// both methods: every line fits (its mark included), no cluster is split,
// and the lines give the value back.
func TestWrapValueKeepsEveryCharacter(t *testing.T) {
	for _, m := range []ansi.Method{ansi.WcWidth, ansi.GraphemeWidth} {
		c := CellsOf(m)
		for _, o := range odd {
			s := "https://example.org/" + strings.Repeat(o, 9) + "/" + strings.Repeat("a"+o, 7) + "?q=" + o
			for w := 4; w < 40; w++ {
				var joined strings.Builder
				for _, l := range c.WrapValue(s, w) {
					lw := c.Width(l.Text)
					if l.Cut {
						lw++
					}
					if cl, _ := ansi.FirstGraphemeCluster(l.Text, m); lw > w && cl != l.Text {
						// (one cluster wider than the line keeps a line of its own)
						t.Errorf("method %d, width %d: line %q is %d cells", m, w, l.Text, lw)
					}
					if strings.HasPrefix(l.Text, "\u200d") || strings.HasPrefix(l.Text, "\ufe0f") || strings.HasPrefix(l.Text, "\u0301") {
						t.Errorf("method %d, width %d: line %q starts inside a cluster", m, w, l.Text)
					}
					joined.WriteString(l.Text)
				}
				if joined.String() != s {
					t.Errorf("method %d, width %d: lines give %q, want %q", m, w, joined.String(), s)
				}
			}
		}
	}
}

// TestFitColumnsByContent: a short column is never cut while a long one
// has cells to spare, the fixed columns show their content whole, and
// every row is exactly as wide as the table.
func TestFitColumnsByContent(t *testing.T) {
	cols := []Column{
		{Title: "loc", Min: 24, Flex: 6, Trunc: TruncMiddle},
		{Title: "lastmod", Min: 20, Max: 25},
		{Title: "length", Min: 9, Max: 10, Right: true},
		{Title: "type", Min: 10, Max: 24, Flex: 1},
		{Title: "hash", Min: 12, Max: 45, Flex: 1},
	}
	cases := []struct {
		name    string
		content []int
		width   int
		want    []int
	}{
		// Everything fits: each column its content, the slack to the
		// flexible ones by Flex.
		{"room", []int{13, 20, 6, 9, 36}, 120, nil},
		// The media type (19) whole before the loc gets more; the loc
		// still above its Min.
		{"type first", []int{80, 20, 7, 19, 71}, 116, []int{50, 20, 7, 19, 16}},
		// Tight: the hash is left out, the type whole, the loc at least
		// its Min.
		{"tight", []int{80, 20, 7, 20, 71}, 76, []int{26, 20, 7, 20, 0}},
		// Short content: columns narrower than their Min, titles whole.
		{"short", []int{5, 7, 6, 4, 4}, 40, nil},
	}
	for _, tc := range cases {
		got := FitColumns(cols, tc.content, tc.width)
		used, shown := 0, 0
		for i, w := range got {
			if w == 0 {
				continue
			}
			used += w
			shown++
			if w < len(cols[i].Title) {
				t.Errorf("%s: column %s is %d, narrower than its title", tc.name, cols[i].Title, w)
			}
			if cols[i].Flex == 0 && w < min(tc.content[i], cols[i].Max) {
				t.Errorf("%s: fixed column %s cut to %d", tc.name, cols[i].Title, w)
			}
		}
		if used+shown-1 != tc.width {
			t.Errorf("%s: %v uses %d cells of %d", tc.name, got, used+shown-1, tc.width)
		}
		if tc.want != nil && !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
		if tc.name == "room" {
			for i, w := range got {
				if w < min(tc.content[i], max(cols[i].Max, tc.content[i])) {
					t.Errorf("room: column %s cut to %d (content %d)", cols[i].Title, w, tc.content[i])
				}
			}
		}
	}
}
