package components

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"

	"rsx/ui/common"
)

// ShortHelp draws bindings as one line of "key desc" joined by sep, with
// bubbles' help: the bindings that do not fit in w cells (0: no limit) are
// left out for an ellipsis.
func ShortHelp(st *common.Styles, bindings []key.Binding, sep string, w int) string {
	m := help.Model{ShortSeparator: sep, Ellipsis: "…", Styles: st.Help}
	m.SetWidth(w)
	return m.ShortHelpView(bindings)
}

// Footer draws a page's footer in w cells: bindings as ShortHelp does, but
// the last keep of them (help and quit) stay whatever the width: the
// bindings before them are left out, from the right, for an ellipsis.
func Footer(st *common.Styles, bindings []key.Binding, keep int, sep string, w int) string {
	m := help.Model{ShortSeparator: sep, Ellipsis: "…", Styles: st.Help}
	keep = min(max(keep, 0), len(bindings))
	if w <= 0 || Width(m.ShortHelpView(bindings)) <= w {
		return m.ShortHelpView(bindings)
	}
	head, tail := bindings[:len(bindings)-keep], bindings[len(bindings)-keep:]
	ellipsis := m.Styles.Ellipsis.Render("…")
	for n := len(head) - 1; n >= 0; n-- {
		line := m.ShortHelpView(head[:n])
		if n > 0 {
			line += m.Styles.ShortSeparator.Render(sep)
		}
		line += ellipsis + m.Styles.ShortSeparator.Render(sep) + m.ShortHelpView(tail)
		if Width(line) <= w || n == 0 {
			return Fit(line, w)
		}
	}
	return Fit(m.ShortHelpView(tail), w)
}
