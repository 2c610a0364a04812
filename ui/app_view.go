package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"rsx/ui/components"
)

// Drawing the screen: the help, or the active page between the tab line and
// the bottom line (its footer, or the prompt, a flash message or a count).

// View draws the screen.
func (a *App) View() tea.View {
	v := tea.NewView(a.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	title := "rsx"
	if a.doc != nil {
		title += " · " + a.doc.title() + " · " + shortURL(a.doc.base())
	}
	v.WindowTitle = components.Escape(title)
	return v
}

// render draws the screen's content: the help, a page over the document
// between the tab line and its footer, or the document page.
func (a *App) render() string {
	w, h := a.width, a.height
	st := a.c.Styles
	if w < 40 || h < 10 {
		msg := fmt.Sprintf("rsx needs at least 40×10 (this is %d×%d)", w, h)
		lines := cellsOf(a.c).Wrap(msg, max(w, 1))
		for i, l := range lines {
			lines[i] = cellsOf(a.c).PlaceCenter(max(w, 1), 1, l)
		}
		return cellsOf(a.c).FitBlock(cellsOf(a.c).PlaceCenter(w, h, st.Warning.Render(strings.Join(lines, "\n"))), w, h)
	}
	if a.help != nil {
		return a.help.View()
	}
	var out string
	switch n := len(a.pages); {
	case n > 0:
		footer := components.Footer(st, a.footerBindings(), 2, " · ", w)
		out = a.tabLine() + "\n" + components.CellsOf(a.c.WidthMethod).FitBlock(a.pages[n-1].View(), w, h-pageChrome) + "\n" + a.bottomLine(footer)
	case a.dv == nil:
		out = cellsOf(a.c).PlaceCenter(w, h-1, st.Dim.Render("Nothing open. Press : to open a URL or a file.")) + "\n" + a.bottomLine("")
	default:
		out = a.dv.View()
		if b := a.bottomOverride(); b != "" {
			if i := strings.LastIndexByte(out, '\n'); i >= 0 {
				out = out[:i+1] + b
			}
		}
	}
	// Cut as the renderer counts, or a line it finds too wide loses cells.
	return components.CellsOf(a.c.WidthMethod).FitBlock(out, w, h)
}

// bottomOverride is what replaces the footer: the prompt, a flash message
// or a count being typed.
func (a *App) bottomOverride() string {
	st := a.c.Styles
	switch {
	case a.promptKind != promptNone:
		return a.promptLine()
	case a.flash != "":
		s := st.Flash
		if a.flashErr {
			s = st.Error
		}
		return cellsOf(a.c).Fit(s.Render(components.Escape(a.flash)), a.width)
	case a.count != "":
		return cellsOf(a.c).Fit(st.Prompt.Render(a.count)+st.Dim.Render("  g or G jumps to this entry"), a.width)
	}
	return ""
}

// bottomLine is the last line under a page: footer, unless overridden.
func (a *App) bottomLine(footer string) string {
	if b := a.bottomOverride(); b != "" {
		return b
	}
	return cellsOf(a.c).Fit(footer, a.width)
}

// tabLine is the top line of a page over the document: where it belongs
// and what it is.
func (a *App) tabLine() string {
	st := a.c.Styles
	docTitle := "rsx"
	if a.doc != nil {
		docTitle = a.doc.title()
	}
	s := st.Breadcrumb.Render(components.Escape(docTitle)) + st.BreadSep.Render(crumbSep) + st.BreadActive.Render(a.pageTitle())
	if a.busy() {
		s += " " + a.c.Spinner.View()
	}
	if full, short := a.throttleText(); full != "" {
		// On the right, as space allows: a page's own work (a sync, an
		// audit) is held back by it too.
		for _, t := range []string{full, short} {
			if gap := a.width - cellsOf(a.c).Width(s) - cellsOf(a.c).Width(t); gap >= 2 {
				return s + strings.Repeat(" ", gap) + st.Warning.Render(t)
			}
		}
	}
	return cellsOf(a.c).Fit(s, a.width)
}
