package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
)

// helpView is the help screen, generated from the key map (and the current
// page's own bindings), so it cannot drift from what the keys do.
type helpView struct {
	c      *Common
	extra  KeyGroup // the current page's own bindings, if any
	scroll int
	width  int
	height int
}

func newHelpView(c *Common, extra KeyGroup) helpView {
	return helpView{c: c, extra: extra}
}

func (h *helpView) SetSize(w, ht int) { h.width, h.height = w, ht }

// groups are the key map's groups plus the page's own.
func (h helpView) groups() []KeyGroup {
	gs := h.c.Keys.Groups()
	if len(h.extra.Bindings) > 0 {
		gs = append(gs, h.extra)
	}
	return gs
}

// blocks renders each group as a block of lines.
func (h helpView) blocks(keyW int) [][]string {
	st := h.c.Styles
	var out [][]string
	for _, g := range h.groups() {
		lines := []string{st.HelpGroup.Render(g.Title)}
		for _, b := range g.Bindings {
			if !b.Enabled() {
				continue
			}
			hp := b.Help()
			lines = append(lines, st.HelpKey.Render(padRight(hp.Key, keyW))+" "+st.HelpDesc.Render(hp.Desc))
		}
		out = append(out, append(lines, ""))
	}
	return out
}

// lines lays the groups out in as many columns as fit.
func (h helpView) lines() []string {
	st := h.c.Styles
	keyW := 0
	descW := 0
	for _, g := range h.groups() {
		for _, b := range g.Bindings {
			keyW = max(keyW, textWidth(b.Help().Key))
			descW = max(descW, textWidth(b.Help().Desc))
		}
	}
	keyW = min(keyW, 14)
	colW := keyW + 1 + descW + 3
	cols := max(min(h.width/max(colW, 1), 3), 1)
	blocks := h.blocks(keyW)
	total := 0
	for _, b := range blocks {
		total += len(b)
	}
	// Two narrower columns (descriptions cut) beat one that needs scrolling.
	if cols == 1 && total+3 > h.height && h.width >= 2*(keyW+16) {
		cols, colW = 2, h.width/2
	}

	// Fill columns in order, each about the same height.
	target := (total + cols - 1) / cols
	columns := make([][]string, 0, cols)
	var cur []string
	for _, b := range blocks {
		if len(cur) > 0 && len(cur)+len(b) > target && len(columns) < cols-1 {
			columns = append(columns, cur)
			cur = nil
		}
		cur = append(cur, b...)
	}
	columns = append(columns, cur)
	rendered := make([]string, len(columns))
	for i, c := range columns {
		for j, l := range c {
			c[j] = ivFit(l, min(colW, h.width)-1)
		}
		rendered[i] = lipgloss.NewStyle().Width(min(colW, h.width)).Render(strings.Join(c, "\n"))
	}
	body := lipgloss.JoinHorizontal(lipgloss.Top, rendered...)
	head := []string{st.HelpTitle.Render("rsx — keys") + st.Dim.Render("   (esc or ? closes · j/k scroll)")}
	for _, l := range wrapText("Jump to entry N: N g, :N or # N. Filter: text, a date (2013-01), or column:text (type:pdf). "+
		"Mouse: wheel scrolls, click selects, click again opens, click a title sorts.", max(h.width-1, 20)) {
		head = append(head, st.Dim.Render(l))
	}
	head = append(head, "")
	return append(head, strings.Split(body, "\n")...)
}

// View draws the visible part of the help.
func (h helpView) View() string {
	lines := h.lines()
	maxScroll := max(len(lines)-h.height, 0)
	s := min(h.scroll, maxScroll)
	end := min(s+h.height, len(lines))
	out := make([]string, 0, h.height)
	for _, l := range lines[s:end] {
		out = append(out, ivFit(l, h.width))
	}
	for len(out) < h.height {
		out = append(out, "")
	}
	return strings.Join(out, "\n")
}

// Scroll moves the help by n lines.
func (h *helpView) Scroll(n int) {
	h.scroll = max(h.scroll+n, 0)
	if m := max(len(h.lines())-h.height, 0); h.scroll > m {
		h.scroll = m
	}
}

// pageKeys builds a KeyGroup from a page's own bindings.
func pageKeys(title string, bs []key.Binding) KeyGroup {
	return KeyGroup{Title: title, Bindings: bs}
}
