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
