package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"rsx/model"
)

func TestExplorerLayoutColumns(t *testing.T) {
	cols := []tableColumn{
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
		got := layoutColumns(cols, tc.width)
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

func TestExplorerFitAndTruncate(t *testing.T) {
	cases := []struct {
		s     string
		w     int
		right bool
		trunc int
		want  string
	}{
		{"abc", 5, false, truncEnd, "abc  "},
		{"abc", 5, true, truncEnd, "  abc"},
		{"abcdef", 4, false, truncEnd, "abc…"},
		{"http://example.org/a/b/c/file.xml", 16, false, truncMiddle, "http://ex…le.xml"},
		{"héllo wörld", 6, false, truncEnd, "héllo…"},
		{"line\nbreak", 10, false, truncEnd, "line break"},
		{"a\x1b[31mb\u009bc\x7f", 10, false, truncEnd, "a [31mb c "},
		{"x", 0, false, truncEnd, ""},
	}
	for _, tc := range cases {
		got := fit(tc.s, tc.w, tc.right, tc.trunc)
		if got != tc.want {
			t.Errorf("fit(%q, %d) = %q, want %q", tc.s, tc.w, got, tc.want)
		}
		if w := ansi.StringWidth(got); w != tc.w {
			t.Errorf("fit(%q, %d) is %d cells wide", tc.s, tc.w, w)
		}
	}
}

func TestExplorerTableMoves(t *testing.T) {
	c := NewCommon(NopBackend{})
	tb := newTable(c)
	tb.SetColumns([]tableColumn{{Title: "n", Min: 5, Flex: 1, Value: func(i int) string { return fmt.Sprint(i) }}})
	tb.SetSize(20, 11) // 10 rows
	tb.SetCount(100)
	steps := []struct {
		msg        tea.Msg
		cur, first int
	}{
		{exKey("j"), 1, 0},
		{exKey("G"), 99, 90},
		{exKey("k"), 98, 90},
		{exKey("g"), 0, 0},
		{exKey("pgdown"), 10, 1},
		{exKey("ctrl+d"), 15, 6},
		{tea.MouseWheelMsg{Button: tea.MouseWheelDown}, 15, 9},
		{tea.MouseWheelMsg{Button: tea.MouseWheelDown}, 15, 12},
		{tea.MouseWheelMsg{Button: tea.MouseWheelDown}, 15, 15},
		{tea.MouseWheelMsg{Button: tea.MouseWheelDown}, 18, 18}, // the cursor is pushed along
	}
	for i, st := range steps {
		tb.Update(st.msg)
		if tb.Cursor() != st.cur || tb.offset != st.first {
			t.Fatalf("step %d: cursor %d first %d, want %d %d", i, tb.Cursor(), tb.offset, st.cur, st.first)
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

func TestExplorerFilterQueries(t *testing.T) {
	d := exBigDocument(t, 2000)
	kinds := columnsFor(model.CapResourceList, model.RootURLSet, false)
	count := func(q string, use keyUse) int {
		return len(filterRows(context.Background(), newMatcher(d, parseFilter(q, kinds), kinds, use), d.entries.Len(), nil))
	}
	cases := []struct {
		q    string
		want int
	}{
		{"res/000004", 10}, // loc substring, .0 to .9 suffixes … of 0000040–0000049
		{"RES/000004", 0},  // upper case: exact
		{"type:image/png", 500},
		{"png", 500},         // plain queries look in the type too
		{"2020-01-01", 1440}, // a date selects a period of lastmod
		{"lastmod:2020-01-01", 1440},
		{"2020-01-01T00:0", 0}, // not a datetime prefix the filter knows: a substring, and no loc has it
		{"md5:", 2000},         // looks like a digest: the hash is searched
		{"nothing-like-this", 0},
	}
	for _, tc := range cases {
		for _, use := range []keyUse{keysNone, keysBuild} {
			if got := count(tc.q, use); got != tc.want {
				t.Errorf("%q (keys %d): %d matches, want %d", tc.q, use, got, tc.want)
			}
		}
	}
}

func TestExplorerDatePeriod(t *testing.T) {
	cases := []struct {
		q      string
		ok     bool
		lo, hi string
	}{
		{"2013", true, "2013-01-01T00:00:00Z", "2014-01-01T00:00:00Z"},
		{"2013-02", true, "2013-02-01T00:00:00Z", "2013-03-01T00:00:00Z"},
		{"2013-02-28", true, "2013-02-28T00:00:00Z", "2013-03-01T00:00:00Z"},
		{"2013-02-28T10", true, "2013-02-28T10:00:00Z", "2013-02-28T11:00:00Z"},
		{"2013-02-28T10:05Z", true, "2013-02-28T10:05:00Z", "2013-02-28T10:06:00Z"},
		{"2013-13", false, "", ""},
		{"201", false, "", ""},
		{"html", false, "", ""},
	}
	for _, tc := range cases {
		lo, hi, ok := datePeriod(tc.q)
		if ok != tc.ok {
			t.Errorf("%q: ok %v", tc.q, ok)
			continue
		}
		if !ok {
			continue
		}
		if got := time.Unix(0, lo).UTC().Format(time.RFC3339); got != tc.lo {
			t.Errorf("%q: from %s, want %s", tc.q, got, tc.lo)
		}
		if got := time.Unix(0, hi).UTC().Format(time.RFC3339); got != tc.hi {
			t.Errorf("%q: until %s, want %s", tc.q, got, tc.hi)
		}
	}
}

func TestExplorerContainsFold(t *testing.T) {
	cases := []struct {
		s, needle string
		want      bool
	}{
		{"http://Example.org/RES/1", "res/1", true},
		{"http://example.org/res/1", "res/2", false},
		{"abc", "abcd", false},
		{"ABC", "", true},
		{"xxR", "r", true},
		{"aaaaab", "aab", true},
	}
	for _, tc := range cases {
		if got := containsFoldASCII(tc.s, tc.needle); got != tc.want {
			t.Errorf("containsFoldASCII(%q, %q) = %v", tc.s, tc.needle, got)
		}
	}
}

func TestExplorerSortStable(t *testing.T) {
	d := exBigDocument(t, 1000)
	for _, k := range []colKind{colLoc, colLastmod, colLength, colType} {
		for _, desc := range []bool{false, true} {
			for _, frozen := range []bool{false, true} {
				perm := sortPerm(d, d.entries.Len(), k, desc, frozen)
				for p := 1; p < len(perm); p++ {
					a, b := int(perm[p-1]), int(perm[p])
					c := exCompare(d, k, a, b)
					if desc {
						c = -c
					}
					if c > 0 || (c == 0 && a > b) {
						t.Fatalf("%s desc=%v: entry %d before %d", k.name(), desc, a, b)
					}
				}
			}
		}
	}
}

func exCompare(d *document, k colKind, a, b int) int {
	if isNumericCol(k) {
		ka, _ := colNumKey(d, k, a)
		kb, _ := colNumKey(d, k, b)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	}
	return strings.Compare(colText(d, k, a), colText(d, k, b))
}

func TestExplorerHistory(t *testing.T) {
	h := newHistory()
	for _, u := range []string{"a", "b", "c"} {
		h.visit(place{url: "http://x/" + u, selected: -1})
	}
	if p, _ := h.back(); p.url != "http://x/b" {
		t.Fatalf("back: %s", p.url)
	}
	h.remember(7)
	h.visit(place{url: "http://x/d"}) // drops c
	if h.canForward() {
		t.Fatal("forward after a new visit")
	}
	p, _ := h.back()
	if p.url != "http://x/b" || p.selected != 7 {
		t.Fatalf("back: %+v", p)
	}
	// The same document again is not a new place.
	h.visit(place{url: "HTTP://X:80/b"})
	if len(h.places) != 3 {
		t.Fatalf("%d places", len(h.places))
	}
}
