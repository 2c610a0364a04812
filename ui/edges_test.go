package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// lastLine is the bottom line of a screen.
func lastLine(s string) string {
	lines := strings.Split(s, "\n")
	return lines[len(lines)-1]
}

// The footer names "? help" at every size, on the document page and on a
// page shown over it.
func TestFooterKeepsHelpAtEverySize(t *testing.T) {
	_, d := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", 120, 40)
	for _, keys := range []string{"", "p", "esc x"} {
		d.keys(keys)
		for w := 40; w <= 200; w += 3 {
			for _, h := range []int{10, 24, 40} {
				d.send(tea.WindowSizeMsg{Width: w, Height: h})
				if l := lastLine(d.screen()); !strings.Contains(l, "? help") {
					t.Errorf("keys %q at %d×%d: footer %q has no ? help", keys, w, h, l)
				}
			}
		}
	}
}

// A "name:text" filter whose name is no column is searched as text, and
// the filter line says so while typing and once applied.
func TestFilterUnknownColumnIsSaid(t *testing.T) {
	for _, sz := range exSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			_, d := exApp(t, newExGetter(), "/dataset1/resourcelist-1.xml", sz.w, sz.h)
			d.keys("/")
			d.typeText("kind:html")
			if l := lastLine(d.screen()); !strings.Contains(l, `no column "kind"`) {
				t.Errorf("while typing, the filter line %q does not name the unknown column", l)
			}
			d.keys("enter")
			if !strings.Contains(d.screen(), `no column "kind"`) {
				t.Errorf("applied, the status bar does not name the unknown column:\n%s", d.screen())
			}
			d.keys("esc /")
			d.typeText("type:html")
			if s := d.screen(); strings.Contains(s, "no column") {
				t.Errorf("a known column is reported unknown:\n%s", s)
			}
			d.keys("esc /")
			d.typeText("http://example")
			if s := d.screen(); strings.Contains(s, "no column") {
				t.Errorf("a URL is taken for a column name:\n%s", s)
			}
		})
	}
}
