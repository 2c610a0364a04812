package components

import (
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"rsx/ui/common"
)

// Input is a one-line text input (filter, prompts, search): bubbles'
// textinput with the explorer's styles and a cursor that does not blink, so
// that screens are deterministic. Enter and esc are its owner's to handle.
type Input struct {
	m textinput.Model
}

// NewInput returns an input showing prompt before the text.
func NewInput(st *common.Styles, prompt string) Input {
	m := textinput.New()
	m.Prompt = prompt
	// ctrl+v would read the system clipboard from a command; a terminal
	// paste arrives as tea.PasteMsg, which the input takes.
	m.KeyMap.Paste.SetEnabled(false)
	in := Input{m: m}
	in.SetStyles(st)
	return in
}

// SetStyles follows a change of theme.
func (in *Input) SetStyles(st *common.Styles) {
	s := textinput.Styles{
		Focused: textinput.StyleState{Prompt: st.Prompt, Text: st.Input, Placeholder: st.Dim, Suggestion: st.Dim},
		Blurred: textinput.StyleState{Prompt: st.Prompt, Text: st.Input, Placeholder: st.Dim, Suggestion: st.Dim},
		Cursor:  textinput.CursorStyle{Color: st.Foreground, Blink: false},
	}
	in.m.SetStyles(s)
}

// SetPrompt changes the text before the input.
func (in *Input) SetPrompt(p string) { in.m.Prompt = p }

// Start focuses the input with value, the cursor at its end.
func (in *Input) Start(value string) {
	in.m.SetValue(value)
	in.m.CursorEnd()
	in.m.Focus() // a static cursor: no blink command
}

// Stop takes the keyboard from the input.
func (in *Input) Stop() { in.m.Blur() }

// Focused reports whether the input has the keyboard.
func (in *Input) Focused() bool { return in.m.Focused() }

// Value is the text typed.
func (in *Input) Value() string { return in.m.Value() }

// SetValue replaces the text.
func (in *Input) SetValue(s string) { in.m.SetValue(s) }

// SetWidth sets the cells the text may take; a longer text scrolls
// sideways to keep the cursor in view.
func (in *Input) SetWidth(w int) { in.m.SetWidth(max(w, 1)) }

// Update edits the text: typing, paste, cursor movement and deletion.
// It reports whether the text changed.
func (in *Input) Update(msg tea.Msg) bool {
	old := in.m.Value()
	in.m, _ = in.m.Update(msg)
	return in.m.Value() != old
}

// View draws the prompt, the text and the cursor. A text narrower than the
// input is drawn as it is (not padded), so that hints can follow it.
func (in Input) View() string {
	m := in.m
	if lipgloss.Width(m.Value()) < m.Width() {
		m.SetWidth(0)
	}
	return m.View()
}
