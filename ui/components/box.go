package components

import (
	"strings"

	"rsx/ui/common"
)

// Box draws a rounded box of exactly w×h cells: a title line inside (with
// note after it when it fits), then the lines, each cut to fit. It writes
// the escape sequences itself: lipgloss borders cost more than a whole
// table on every frame. It measures by c, so that its right border stays
// in its column whatever the lines hold.
func (c Cells) Box(st *common.Styles, focused bool, title, note string, lines []string, w, h int) string {
	border := st.Paint.Border
	if focused {
		border = st.Paint.BorderFocused
	}
	inner := w - 4
	var b strings.Builder
	b.Grow((w + 32) * h)
	b.WriteString(border.Apply("╭" + strings.Repeat("─", w-2) + "╮"))
	row := func(content string) {
		b.WriteByte('\n')
		b.WriteString(border.Apply("│"))
		b.WriteByte(' ')
		b.WriteString(content)
		if pad := inner - c.Width(content); pad > 0 {
			b.WriteString(strings.Repeat(" ", pad))
		}
		b.WriteByte(' ')
		b.WriteString(border.Apply("│"))
	}
	head := st.Paint.PaneHead.Apply(c.Truncate(title, inner, TruncEnd))
	if note != "" && c.Width(title)+2+c.Width(note) <= inner {
		head += "  " + st.Paint.Dim.Apply(note)
	}
	row(head)
	for i := 0; i < h-3; i++ {
		l := ""
		if i < len(lines) {
			l = lines[i]
			if c.Width(l) > inner {
				l = c.Fit(l, inner)
			}
		}
		row(l)
	}
	b.WriteByte('\n')
	b.WriteString(border.Apply("╰" + strings.Repeat("─", w-2) + "╯"))
	return b.String()
}
