package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"rsx/model"
)

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
