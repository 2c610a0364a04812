package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestIVListNavigate drives the shared list state of the discovery and
// resource views: 10 items on lines 2, 4, …, 20 of 25, a 5-line window.
func TestIVListNavigate(t *testing.T) {
	var l ivList
	layout := func() (int, int) { return 25, 2 + 2*l.sel }
	k := DefaultKeyMap()
	const count, height = 10, 5
	steps := []struct {
		msg      tea.Msg
		sel, top int
	}{
		{tea.KeyPressMsg{Code: 'j', Text: "j"}, 1, 0},
		{tea.KeyPressMsg{Code: 'j', Text: "j"}, 2, 4}, // line 6 left the window 0–4: centred
		{tea.KeyPressMsg{Code: 'j', Text: "j"}, 3, 4}, // line 8 is in 4–8
		{tea.KeyPressMsg{Code: 'G', Text: "G"}, 9, 20},
		{tea.KeyPressMsg{Code: 'g', Text: "g"}, 0, 0},
		{tea.MouseWheelMsg{Button: tea.MouseWheelDown}, 0, 3}, // the wheel scrolls, keeps the selection
		{tea.MouseWheelMsg{Button: tea.MouseWheelUp}, 0, 0},
		{tea.KeyPressMsg{Code: 'k', Text: "k"}, 0, 0}, // clamped at the first item
	}
	for i, s := range steps {
		if !l.navigate(s.msg, k, count, height, layout) {
			t.Fatalf("step %d: %v not handled", i, s.msg)
		}
		if l.sel != s.sel || l.top != s.top {
			t.Fatalf("step %d (%v): sel %d top %d, want sel %d top %d", i, s.msg, l.sel, l.top, s.sel, s.top)
		}
	}
	if l.navigate(tea.KeyPressMsg{Code: 'x', Text: "x"}, k, count, height, layout) {
		t.Error("x is not a movement key, but navigate took it")
	}
}
