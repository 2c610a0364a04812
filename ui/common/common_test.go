package common

import (
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

func TestShortKeepsKeysAndState(t *testing.T) {
	k := DefaultKeyMap()
	b := k.Manifest
	b.SetEnabled(false)
	s := Short(b, "copy")
	if !slices.Equal(s.Keys(), b.Keys()) || s.Help().Key != "M" || s.Help().Desc != "copy" || s.Enabled() {
		t.Errorf("Short = keys %v help %+v enabled %v", s.Keys(), s.Help(), s.Enabled())
	}
	p := Pair(k.Left, k.Right, "scroll sideways")
	if p.Help().Key != "←/→" || !slices.Equal(p.Keys(), []string{"left", "right"}) {
		t.Errorf("Pair = keys %v help %+v", p.Keys(), p.Help())
	}
}

// TestWhileTyping: under a text input only the keys that cannot be typed
// move; every other binding is the key map's own.
func TestWhileTyping(t *testing.T) {
	k := DefaultKeyMap()
	w := k.WhileTyping()
	cases := []struct {
		b    key.Binding
		keys []string
	}{
		{w.Up, []string{"up"}},
		{w.Down, []string{"down"}},
		{w.PageUp, []string{"pgup"}},
		{w.PageDown, []string{"pgdown"}},
		{w.HalfDown, nil},
		{w.Top, nil},
		{w.Bottom, nil},
		{w.Filter, k.Filter.Keys()},
	}
	for i, c := range cases {
		if !slices.Equal(c.b.Keys(), c.keys) || c.b.Enabled() != (len(c.keys) > 0) {
			t.Errorf("case %d: keys %v enabled %v, want %v", i, c.b.Keys(), c.b.Enabled(), c.keys)
		}
	}
	if key.Matches(tea.KeyPressMsg{Code: 'j', Text: "j"}, w.Down) {
		t.Error("j moves while typing")
	}
}

// TestFootersFollowTheKeyMap: a footer shows the keys that work.
func TestFootersFollowTheKeyMap(t *testing.T) {
	k := DefaultKeyMap()
	k.Filter = key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "filter"))
	var got []string
	for _, b := range k.DocumentFooter(false, false) {
		got = append(got, b.Help().Key+" "+b.Help().Desc)
	}
	if s := strings.Join(got, " · "); !strings.Contains(s, "f filter") || strings.Contains(s, "/ filter") {
		t.Errorf("footer %q does not follow the key map", s)
	}
}

// TestPageFooterEsc: a page's footer says "esc back" unless the page gives
// esc another meaning just now, which it then lists alone (a sync's
// question said "esc back · y/enter stop the sync · esc go on").
func TestPageFooterEsc(t *testing.T) {
	k := DefaultKeyMap()
	footer := func(page ...key.Binding) string {
		var got []string
		for _, b := range k.PageFooter(page) {
			if b.Enabled() {
				got = append(got, b.Help().Key+" "+b.Help().Desc)
			}
		}
		return strings.Join(got, " · ")
	}
	if f := footer(Short(k.Open, "open")); !strings.HasPrefix(f, "esc back · enter open") {
		t.Errorf("footer %q", f)
	}
	goOn := Short(k.Cancel, "go on")
	if f := footer(Short(k.ConfirmStop, "stop"), goOn); strings.Contains(f, "esc back") || !strings.Contains(f, "esc go on") {
		t.Errorf("footer %q: esc is both back and go on", f)
	}
	goOn.SetEnabled(false)
	if f := footer(goOn); !strings.HasPrefix(f, "esc back") {
		t.Errorf("footer %q: a disabled esc binding hides back", f)
	}
}

// TestDocumentKeysAreDistinct: on the document page no key does two
// things (two branches that each claimed A and C met in a merge); the
// prompt's commands (:sync) are typed, not pressed, and stay out.
func TestDocumentKeysAreDistinct(t *testing.T) {
	k := DefaultKeyMap()
	bindings := []key.Binding{k.Count, k.Left, k.Right} // shift+tab (PrevPane) is in a group since the help lists it
	for _, g := range k.Groups() {
		bindings = append(bindings, g.Bindings...)
	}
	owner := map[string]string{}
	for _, b := range bindings {
		for _, name := range b.Keys() {
			if strings.HasPrefix(name, ":") && len(name) > 1 {
				continue
			}
			if prev, ok := owner[name]; ok {
				t.Errorf("%q is both %q and %q", name, prev, b.Help().Desc)
			}
			owner[name] = b.Help().Desc
		}
	}
	// The marks are a file manager's keys; A and C keep their pages.
	for name, want := range map[string]string{"space": k.Mark.Help().Desc, "+": k.MarkShown.Help().Desc, "-": k.UnmarkAll.Help().Desc,
		"*": k.InvertMarks.Help().Desc, "K": k.SpotCheck.Help().Desc, "A": k.Archives.Help().Desc, "C": k.Coverage.Help().Desc} {
		if owner[name] != want {
			t.Errorf("%q is %q, want %q", name, owner[name], want)
		}
	}
}

// TestStylesPerTheme: light and dark styles differ in colour only, and the
// pre-rendered paints match the styles they stand for.
func TestStylesPerTheme(t *testing.T) {
	dark, light := NewStyles(true), NewStyles(false)
	if dark.URL.Render("x") == light.URL.Render("x") {
		t.Error("the URL style is the same on dark and light terminals")
	}
	for _, st := range []*Styles{dark, light} {
		if got, want := st.Paint.URL.Apply("x"), st.URL.Render("x"); got != want {
			t.Errorf("paint %q, style %q", got, want)
		}
		if lipgloss.Width(st.BarHTTPStatus(503).Render("HTTP 503")) != 8 {
			t.Error("a status on the bar is not drawn as is")
		}
	}
}
