// Package common holds what every page and component of the explorer shares:
// the one key map, the one set of styles, and the size, clock and spinner the
// root model owns.
package common

import (
	"time"

	"charm.land/bubbles/v2/spinner"
	"github.com/charmbracelet/x/ansi"
)

// Common is what every page and component shares. The root model owns one
// and hands a pointer to each page; pages read it and never change it (a
// page's own size comes through its SetSize).
type Common struct {
	// Width and Height of the whole terminal, set by the root model on
	// tea.WindowSizeMsg.
	Width, Height int

	// Styles are the colours and borders, rebuilt by the root model when the
	// terminal tells its background colour (light or dark).
	Styles *Styles

	// Keys are all key bindings; help and footers are generated from them.
	Keys KeyMap

	// Now is the clock. Tests fix it so that screens are stable.
	Now func() time.Time

	// Spinner turns while anything is busy; the root model advances it.
	Spinner spinner.Model

	// WidthMethod is how the terminal counts the cells of a character:
	// ansi.WcWidth (each code point's width, summed) unless the terminal
	// declared grapheme clustering (mode 2027), then ansi.GraphemeWidth,
	// exactly as bubbletea's renderer counts when it places the screen.
	// The root model sets it from the terminal's report; a table or a pane
	// that pads by another count shifts its rows (components.CellsOf).
	WidthMethod ansi.Method
}

// explorerSpinner is the explorer's spinner: braille dots, a frame every
// 120 ms.
func explorerSpinner() spinner.Spinner {
	return spinner.Spinner{
		Frames: []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"},
		FPS:    120 * time.Millisecond,
	}
}

// New returns a Common with the styles of a dark (or light) terminal, the
// default key map, and now as the clock (time.Now when nil).
func New(dark bool, now func() time.Time) *Common {
	if now == nil {
		now = time.Now
	}
	st := NewStyles(dark)
	return &Common{
		Styles:  st,
		Keys:    DefaultKeyMap(),
		Now:     now,
		Spinner: spinner.New(spinner.WithSpinner(explorerSpinner()), spinner.WithStyle(st.Spinner)),
	}
}

// SetStyles replaces the styles (the terminal's background is known).
func (c *Common) SetStyles(st *Styles) {
	c.Styles = st
	c.Spinner.Style = st.Spinner
}

// Clock returns the time: c.Now(), or time.Now when no clock was set.
func (c *Common) Clock() time.Time {
	if c == nil || c.Now == nil {
		return time.Now()
	}
	return c.Now()
}
