// Package ui is the bubbletea program of rsx: the explorer that walks a
// ResourceSync Source and the inspector views beside it.
//
// It does no I/O and holds no protocol logic of its own: it reads its live
// data (package session) and the judgement of resources (package claims)
// through the small interfaces of backend.go, and runs every blocking call in
// a tea.Cmd, so that Update never waits.
package ui

import (
	"time"
)

// Common is what every page and component shares: the size it may draw in,
// the styles, the key bindings, the clock and the backend. The root model owns
// one Common and hands a pointer to each view; a view never changes it except
// through SetSize on itself.
type Common struct {
	// Width and Height of the whole terminal, set by the root model on
	// tea.WindowSizeMsg. A view gets its own size through SetSize.
	Width, Height int

	// Styles are the colours and borders, rebuilt by the root model when the
	// terminal's background colour is known (light or dark).
	Styles *Styles

	// Keys are all key bindings; help is generated from them.
	Keys KeyMap

	// Now is the clock. Tests inject a fixed one so that screens are stable.
	Now func() time.Time

	// Backend does every I/O. Views call it only from inside a tea.Cmd.
	// It may be nil in tests of views that do no I/O.
	Backend Backend
}

// NewCommon returns a Common with default styles (dark background), the
// default key map and the real clock.
func NewCommon(b Backend) *Common {
	return &Common{
		Styles:  NewStyles(true),
		Keys:    DefaultKeyMap(),
		Now:     time.Now,
		Backend: b,
	}
}

// now returns c.Now() or time.Now when no clock was set.
func (c *Common) now() time.Time {
	if c == nil || c.Now == nil {
		return time.Now()
	}
	return c.Now()
}
