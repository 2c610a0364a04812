package ui

import (
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// This file holds what the inspector views (raw, HTTP, problems, resource,
// discovery) need beyond Common: a few styles derived from the shared
// palette, the keys only they use, and small rendering helpers. The shared
// Styles and KeyMap stay the single source; nothing here invents colours.

// viewStyles are the inspector views' extra styles, derived from the shared
// palette each time a view renders (so a palette rebuilt for a light
// terminal is followed at once).
type viewStyles struct {
	*Styles

	// XML syntax classes of the raw view.
	XMLTag, XMLAttr, XMLValue, XMLComment, XMLPreproc, XMLEntity, XMLText lipgloss.Style

	Match        lipgloss.Style // a search match
	MatchCurrent lipgloss.Style // the current search match
	Gutter       lipgloss.Style // line numbers
	GutterTarget lipgloss.Style // the line a jump landed on
	Section      lipgloss.Style // a section heading inside a view

	// Comparison marks: ✓ match, ✗ mismatch, – not declared, ? cannot compare.
	MarkOK, MarkBad, MarkNone, MarkUnknown lipgloss.Style

	ProgressDone, ProgressTodo lipgloss.Style
}

func newViewStyles(s *Styles) viewStyles {
	if s == nil {
		s = NewStyles(true)
	}
	ld := lipgloss.LightDark(s.IsDark)
	matchBg := ld(lipgloss.Color("#FDE68A"), lipgloss.Color("#6B5B10"))
	return viewStyles{
		Styles:       s,
		XMLTag:       lipgloss.NewStyle().Foreground(s.Accent),
		XMLAttr:      lipgloss.NewStyle().Foreground(s.Info),
		XMLValue:     lipgloss.NewStyle().Foreground(s.Good),
		XMLComment:   lipgloss.NewStyle().Italic(true).Foreground(s.Muted),
		XMLPreproc:   lipgloss.NewStyle().Foreground(s.Muted),
		XMLEntity:    lipgloss.NewStyle().Foreground(s.Warn),
		XMLText:      s.Code,
		Match:        lipgloss.NewStyle().Background(matchBg),
		MatchCurrent: lipgloss.NewStyle().Bold(true).Reverse(true).Foreground(s.Warn),
		Gutter:       s.RowNumber,
		GutterTarget: lipgloss.NewStyle().Bold(true).Foreground(s.Accent),
		Section:      lipgloss.NewStyle().Bold(true).Foreground(s.Accent),
		MarkOK:       s.OK,
		MarkBad:      s.Error.Bold(true),
		MarkNone:     s.Dim,
		MarkUnknown:  s.Warning,
		ProgressDone: lipgloss.NewStyle().Foreground(s.Accent),
		ProgressTodo: lipgloss.NewStyle().Foreground(s.Subtle),
	}
}

// inspectKeys are the bindings only the inspector views use; the shared ones
// (moving, opening, filtering) come from Common.Keys.
type inspectKeys struct {
	NextMatch      key.Binding // raw: next search match
	PrevMatch      key.Binding // raw: previous search match
	Mirrors        key.Binding // resource: fetch and compare every mirror
	ToggleErrors   key.Binding // problems: show or hide errors
	ToggleWarnings key.Binding // problems: show or hide warnings
	ShowLine       key.Binding // problems: show the problem's line in the raw XML
}

func defaultInspectKeys() inspectKeys {
	return inspectKeys{
		NextMatch:      key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next match")),
		PrevMatch:      key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous match")),
		Mirrors:        key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "fetch and compare mirrors")),
		ToggleErrors:   key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "show/hide errors")),
		ToggleWarnings: key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "show/hide warnings")),
		ShowLine:       key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "show the line in the raw XML")),
	}
}

// ivKeys returns the shared key map of c, or the default one.
func ivKeys(c *Common) KeyMap {
	if c == nil {
		return DefaultKeyMap()
	}
	return c.Keys
}

func ivStyles(c *Common) viewStyles {
	if c == nil {
		return newViewStyles(nil)
	}
	return newViewStyles(c.Styles)
}

// ivCmd wraps a message in a command.
func ivCmd(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// ivSanitize makes text from the network safe to draw: control characters
// (which could move the cursor or change the terminal's state) become "·",
// invalid UTF-8 becomes "�" and tabs become a space.
func ivSanitize(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune('�')
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			b.WriteRune('·')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// fit truncates an (optionally styled) line to w cells with an ellipsis.
func ivFit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// ivPad pads a plain string with spaces to w cells, truncating it first.
func ivPad(s string, w int) string {
	s = ivFit(s, w)
	if n := w - ansi.StringWidth(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// ivClamp returns v limited to [lo, hi] (lo when hi < lo).
func ivClamp(v, lo, hi int) int {
	if v > hi {
		v = hi
	}
	if v < lo {
		v = lo
	}
	return v
}

// ivScrollTo returns the new first visible row so that row sel is visible
// in a window of h rows starting at top.
func ivScrollTo(top, sel, h int) int {
	if h <= 0 {
		return sel
	}
	if sel < top {
		return sel
	}
	if sel >= top+h {
		return sel - h + 1
	}
	return top
}

// window returns lines[top:top+h], padded with empty lines to exactly h.
func ivWindow(lines []string, top, h int) []string {
	out := make([]string, 0, h)
	for i := top; i < top+h; i++ {
		if i >= 0 && i < len(lines) {
			out = append(out, lines[i])
		} else {
			out = append(out, "")
		}
	}
	return out
}

// ivInput is a one-line prompt (search, jump to line). It is kept simple
// and without a blinking cursor so that screens are deterministic.
type ivInput struct {
	prompt string
	value  []rune
	active bool
}

type ivInputResult uint8

const (
	ivEditing ivInputResult = iota
	ivSubmitted
	ivCancelled
)

// update applies a key to the input and says whether it was submitted or
// cancelled.
func (in *ivInput) update(msg tea.Msg) ivInputResult {
	switch msg := msg.(type) {
	case tea.PasteMsg:
		in.value = append(in.value, []rune(strings.ReplaceAll(msg.Content, "\n", " "))...)
	case tea.KeyPressMsg:
		switch msg.String() {
		case "enter":
			in.active = false
			return ivSubmitted
		case "esc", "ctrl+c":
			in.active = false
			return ivCancelled
		case "backspace", "ctrl+h":
			if len(in.value) > 0 {
				in.value = in.value[:len(in.value)-1]
			}
		case "ctrl+u":
			in.value = in.value[:0]
		default:
			if msg.Text != "" {
				in.value = append(in.value, []rune(msg.Text)...)
			}
		}
	}
	return ivEditing
}

func (in *ivInput) start(prompt, value string) {
	in.prompt = prompt
	in.value = []rune(value)
	in.active = true
}

func (in ivInput) String() string { return string(in.value) }

func (in ivInput) view(st viewStyles, w int) string {
	return ivFit(st.Prompt.Render(in.prompt)+st.Input.Render(ivSanitize(string(in.value)))+"█", w)
}

// ivList is the selection and scroll state of a view that draws lines, some of
// which are selectable items (the discovery and resource views). layout
// reports the view's total line count and the line of the selected item (-1
// when it has none on screen), given the current selection.
type ivList struct {
	sel int // selected item
	top int // first line shown
}

// selectItem selects item i of count and scrolls it into view.
func (l *ivList) selectItem(i, count, height int, layout func() (total, selLine int)) {
	l.sel = ivClamp(i, 0, count-1)
	total, selLine := layout()
	h := max(height, 1)
	if selLine >= 0 && (selLine < l.top || selLine >= l.top+h) {
		l.top = selLine - h/2
	}
	l.top = ivClamp(l.top, 0, total-h)
}

// scrollBy moves the first line shown by n lines.
func (l *ivList) scrollBy(n, height int, layout func() (total, selLine int)) {
	total, _ := layout()
	l.top = ivClamp(l.top+n, 0, total-max(height, 1))
}

// navigate handles the mouse wheel and the shared movement keys; it reports
// whether msg was one of them.
func (l *ivList) navigate(msg tea.Msg, k KeyMap, count, height int, layout func() (total, selLine int)) bool {
	switch msg := msg.(type) {
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			l.scrollBy(-3, height, layout)
		case tea.MouseWheelDown:
			l.scrollBy(3, height, layout)
		default:
			return false
		}
		return true
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, k.Down):
			l.selectItem(l.sel+1, count, height, layout)
		case key.Matches(msg, k.Up):
			l.selectItem(l.sel-1, count, height, layout)
		case key.Matches(msg, k.Top):
			l.top = 0
			l.selectItem(0, count, height, layout)
		case key.Matches(msg, k.Bottom):
			l.scrollBy(1<<30, height, layout)
			l.selectItem(count-1, count, height, layout)
		case key.Matches(msg, k.PageDown):
			l.scrollBy(max(height-1, 1), height, layout)
		case key.Matches(msg, k.PageUp):
			l.scrollBy(-max(height-1, 1), height, layout)
		default:
			return false
		}
		return true
	}
	return false
}
