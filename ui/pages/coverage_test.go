package pages

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"rsx/model"
)

// TestCoverageBars draws periods on an axis of ten cells: a list covers the
// cells it covers some of; the coverage marks a hole however short.
// The five signs of the page differ by shape, not only by colour: the
// legend's glyphs are five different ones.
func TestCoverageSignsDifferByShape(t *testing.T) {
	signs := []string{glyphLive, glyphArchived, glyphCovered, glyphHole, glyphOverlap}
	seen := map[string]bool{}
	for _, g := range signs {
		if seen[g] {
			t.Errorf("the sign %q stands for two things", g)
		}
		seen[g] = true
	}
}

func TestCoverageBars(t *testing.T) {
	day := func(h int) time.Time { return time.Date(2013, 1, 1, h, 0, 0, 0, time.UTC) }
	p := &Coverage{c: ivTestCommon()}
	p.periods = []model.Period{
		{URL: "a", From: day(0), Until: day(4)},
		{URL: "b", From: day(5), Until: day(10)},
		{URL: "c", From: day(9), Until: day(10)},
	}
	p.segs = model.Coverage(p.periods)
	p.start, p.end = day(0), day(10)
	bars := make([]string, 3)
	for i := range p.periods {
		bars[i] = p.periodBar(p.periods[i], 10, glyphLive)
	}
	if got := strings.Join(bars, "|"); got != "████      |     █████|         █" {
		t.Errorf("bars %q", got)
	}
	if got := ansi.Strip(p.periodBar(p.periods[0], 10, glyphArchived)); got != "▄▄▄▄      " {
		t.Errorf("archived bar %q", got)
	}
	if got := ansi.Strip(p.coverageBar(10)); got != "━━━━░━━━━▒" {
		t.Errorf("coverage %q", got)
	}
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{{30 * time.Minute, "30m"}, {90 * time.Minute, "1h 30m"}, {26 * time.Hour, "1d 2h"}, {45 * time.Second, "45s"}} {
		if got := shortDuration(tc.d); got != tc.want {
			t.Errorf("shortDuration(%v) = %q", tc.d, got)
		}
	}
	if l := timeLayout(p.periods); l != "15:04" {
		t.Errorf("layout of one day: %q", l)
	}
	p.periods[0].Until = day(4).Add(30*time.Second + 24*time.Hour)
	if l := timeLayout(p.periods); l != "01-02 15:04:05" {
		t.Errorf("layout of two days with seconds: %q", l)
	}
}
