package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"rsx/ui/common"
	"rsx/ui/components"
)

// helpScreen is the help (?), drawn over everything from the active page's
// groups of bindings (App.helpGroups: the key map's, enabled as they work
// there), so that it cannot drift from what the keys do. Its lines are laid
// out once per size and theme.
type helpScreen struct {
	c      *common.Common
	gs     []common.KeyGroup
	doc    bool // over the document page: its jumps, filter and mouse are told too
	lines  []string
	scroll components.List
	width  int
}

func newHelpScreen(c *common.Common, groups []common.KeyGroup, doc bool, w, h int) *helpScreen {
	hs := &helpScreen{c: c, gs: groups, doc: doc, scroll: components.NewList(components.Scroll)}
	hs.SetSize(w, h)
	return hs
}

// SetSize lays the help out for w×h cells (and the current theme).
func (h *helpScreen) SetSize(w, ht int) {
	h.width = w
	h.lines = h.layout(w, ht)
	h.scroll.SetHeight(ht)
	h.scroll.SetLen(len(h.lines))
}

// Update scrolls with the movement keys and the wheel.
func (h *helpScreen) Update(msg tea.Msg) { h.scroll.Update(msg, &h.c.Keys) }

// groups are the groups shown: over a page, its own keys first (on a small
// terminal they are the ones in view when the help opens), then the global
// ones.
func (h *helpScreen) groups() []common.KeyGroup { return h.gs }

// blocks renders each group as a block of lines.
func (h *helpScreen) blocks(keyW int) [][]string {
	st := h.c.Styles
	var out [][]string
	for _, g := range h.groups() {
		lines := []string{st.HelpGroup.Render(g.Title)}
		for _, b := range g.Bindings {
			if !b.Enabled() {
				continue
			}
			hp := b.Help()
			lines = append(lines, st.HelpKey.Render(cellsOf(h.c).PadRight(hp.Key, keyW))+" "+st.HelpDesc.Render(hp.Desc))
		}
		if len(lines) == 1 {
			continue // nothing of the group works here
		}
		out = append(out, append(lines, ""))
	}
	return out
}

// layout lays the groups out in as many columns as fit w×height.
func (h *helpScreen) layout(w, height int) []string {
	st := h.c.Styles
	keyW := 0
	descW := 0
	for _, g := range h.groups() {
		for _, b := range g.Bindings {
			if !b.Enabled() {
				continue
			}
			keyW = max(keyW, cellsOf(h.c).Width(b.Help().Key))
			descW = max(descW, cellsOf(h.c).Width(b.Help().Desc))
		}
	}
	keyW = min(keyW, 14)
	colW := keyW + 1 + descW + 3
	cols := max(min(w/max(colW, 1), 3), 1)
	blocks := h.blocks(keyW)
	total := 0
	for _, b := range blocks {
		total += len(b)
	}
	// Two narrower columns (descriptions cut) beat one that needs scrolling.
	if cols == 1 && total+3 > height && w >= 2*(keyW+16) {
		cols, colW = 2, w/2
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
	cw := min(colW, w)
	cells := cellsOf(h.c)
	for _, c := range columns {
		for j, l := range c {
			c[j] = cells.PadRight(cells.Fit(l, cw-1), cw)
		}
	}
	// Side by side, each column padded to cw cells as the terminal counts
	// (lipgloss.JoinHorizontal would pad again by grapheme cluster).
	rows := 0
	for _, c := range columns {
		rows = max(rows, len(c))
	}
	blank := strings.Repeat(" ", cw)
	joined := make([]string, rows)
	for r := range rows {
		var b strings.Builder
		for _, c := range columns {
			if r < len(c) {
				b.WriteString(c[r])
			} else {
				b.WriteString(blank)
			}
		}
		joined[r] = b.String()
	}
	body := strings.Join(joined, "\n")
	k := &h.c.Keys
	head := []string{st.HelpTitle.Render("rsx — keys") + st.Dim.Render("   ("+k.Back.Help().Key+" or "+k.Help.Help().Key+" closes · j/k scroll)")}
	if h.doc {
		for _, l := range cellsOf(h.c).Wrap("Jump to entry N: N g, :N or # N. Filter: text, a date (2013-01), or column:text (type:pdf). "+
			"Mouse: wheel scrolls, click selects, click again opens, click a title sorts.", max(w-1, 20)) {
			head = append(head, st.Dim.Render(l))
		}
	}
	head = append(head, h.signsLine(w), "")
	return append(head, strings.Split(body, "\n")...)
}

// View draws the visible part of the help.
func (h *helpScreen) View() string {
	height := h.scroll.Height()
	out := components.Window(h.lines, h.scroll.Offset(), height)
	for i, l := range out {
		out[i] = cellsOf(h.c).Fit(l, h.width)
	}
	return strings.Join(out, "\n")
}

// signsLine explains the signs of the table and the status bar, each drawn
// as it is drawn there: a marked entry's square and the notifications'
// circles are told apart here once (by shape, not only by colour: ○ is
// dropped, – no channel at all).
func (h *helpScreen) signsLine(w int) string {
	st := h.c.Styles
	signs := []string{
		st.Marked.Render(components.MarkedGlyph) + st.Dim.Render(" marked entry"),
		st.OK.Render("●") + st.Dim.Render(" notifications live ") + st.Warning.Render("◐") + st.Dim.Render(" some ") +
			st.Error.Render("○") + st.Dim.Render(" dropped ") + st.Dim.Render("◌ connecting ") + st.Warning.Render("–") + st.Dim.Render(" none"),
		st.Error.Render("✗") + st.Dim.Render(" error ") + st.Warning.Render("!") + st.Dim.Render(" warning"),
		st.Dim.Render("⟳ stale"),
	}
	return cellsOf(h.c).Fit(st.Dim.Render("Signs: ")+strings.Join(signs, st.Dim.Render(" · ")), max(w-1, 20))
}
