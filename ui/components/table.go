package components

import (
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"rsx/ui/common"
)

// MarkedGlyph marks an entry the user marked (for a sync, an audit or a spot
// check), in the table, the status bar and the detail pane. It is a square:
// the circles (● ◐ ○ ◌) are the notification channels' states.
const MarkedGlyph = "■"

// Column describes one column of a virtual table. Cells are computed on
// demand from the row's index in the underlying data, so the table costs the
// same for ten rows and ten million.
type Column struct {
	Title string
	Min   int // narrowest width
	Max   int // widest useful width (0: as wide as there is room)
	Flex  int // share of the room left once every column has its Min
	Right bool
	Trunc int // TruncEnd or TruncMiddle

	// Value is the cell text of underlying row i.
	Value func(i int) string
	// Paint, when set, colours the cell of underlying row i (not on the
	// selected row, which has one style throughout).
	Paint func(i int) common.Paint
}

// Table is a virtual table: it draws only the rows in view. Its rows are the
// underlying data's indexes in the order given by a permutation (filtered
// and sorted), or 0..count-1 without one, so that sorting and filtering
// never move data.
type Table struct {
	c      *common.Common
	cols   []Column
	widths []int
	// seen is each column's widest content (title included) among the rows
	// drawn since the columns were set: the columns are sized by what they
	// hold, and do not shrink back when a wide row scrolls out of view.
	seen   []int
	seenBy Cells // the count seen was measured by

	count int     // underlying rows when perm is nil
	perm  []int32 // visible order of underlying rows; nil: identity over count

	list List // cursor and offset over the visible positions

	width, height int // height includes the header line

	// Focused draws the selected row in the focused style.
	Focused bool
	// Numbers shows the entry number column.
	Numbers bool
	// Mark, when set, draws a one-cell column after the numbers: the text
	// (one cell, or "" for none) and paint of underlying row i's mark.
	Mark func(i int) (string, common.Paint)
	// Picked, when set and ShowPicked, draws a one-cell column before the
	// Mark column: MarkedGlyph for the rows the user picked (marked for a sync).
	// Call Relayout after changing ShowPicked.
	Picked     func(i int) bool
	ShowPicked bool
	// SortCol is the column whose title carries the sort arrow, -1 none;
	// SortDesc points it down.
	SortCol  int
	SortDesc bool
}

// NewTable returns an empty table, focused, with entry numbers.
func NewTable(c *common.Common) Table {
	return Table{c: c, list: NewList(Select), Focused: true, Numbers: true, SortCol: -1}
}

// SetSize sets the table's width and height (header included).
func (t *Table) SetSize(w, h int) {
	t.width, t.height = max(w, 0), max(h, 0)
	t.list.SetHeight(t.bodyHeight())
	t.layout()
}

// Height is the table's height, header included.
func (t *Table) Height() int { return t.height }

// Columns are the table's columns.
func (t *Table) Columns() []Column { return t.cols }

// SetColumns replaces the columns.
func (t *Table) SetColumns(cols []Column) {
	t.cols = cols
	t.seen = nil
	t.layout()
}

// SetCount sets the number of underlying rows shown when no permutation is set.
func (t *Table) SetCount(n int) {
	t.count = n
	t.layout()
	t.list.SetLen(t.Len())
}

// SetPerm sets the visible order (nil: all rows in document order). The
// cursor stays on the same underlying row when it is still visible.
func (t *Table) SetPerm(p []int32) {
	sel := t.Selected()
	t.perm = p
	t.list.SetLen(t.Len())
	t.SelectRow(sel)
}

// Len is the number of visible rows.
func (t *Table) Len() int {
	if t.perm != nil {
		return len(t.perm)
	}
	return t.count
}

// Row maps a visible position to the underlying row.
func (t *Table) Row(pos int) int {
	if t.perm != nil {
		return int(t.perm[pos])
	}
	return pos
}

// Selected is the underlying row under the cursor, -1 when the table is empty.
func (t *Table) Selected() int {
	c := t.list.Cursor()
	if c < 0 || c >= t.Len() {
		return -1
	}
	return t.Row(c)
}

// Cursor is the cursor's visible position; Offset the first one shown.
func (t *Table) Cursor() int { return t.list.Cursor() }
func (t *Table) Offset() int { return t.list.Offset() }

// SelectRow moves the cursor to underlying row i when it is visible and
// reports whether it is.
func (t *Table) SelectRow(i int) bool {
	if i < 0 {
		return false
	}
	if t.perm == nil {
		if i >= t.count {
			return false
		}
		t.MoveTo(i)
		return true
	}
	for pos, r := range t.perm {
		if int(r) == i {
			t.MoveTo(pos)
			return true
		}
	}
	return false
}

// MoveTo puts the cursor on visible position pos (clamped) and scrolls it
// into view.
func (t *Table) MoveTo(pos int) { t.list.Select(pos) }

// Update applies a movement key or the mouse wheel (keys from k); it
// reports whether msg was one.
func (t *Table) Update(msg tea.Msg, k *common.KeyMap) bool { return t.list.Update(msg, k) }

func (t *Table) bodyHeight() int { return max(t.height-1, 1) }

// numberWidth is the width of the entry number column.
func (t *Table) numberWidth() int {
	if !t.Numbers {
		return 0
	}
	return len(strconv.Itoa(max(t.count, 1)))
}

// MinWidth is the width the table needs to show every column at its
// floor: a column's Min, or less when the rows in view hold less (a length
// column of four-digit numbers needs its title's six cells, not nine).
func (t *Table) MinWidth() int {
	t.measure()
	w := t.leadWidth()
	for i, c := range t.cols {
		if i > 0 {
			w++
		}
		w += columnFloor(c, t.seen[i])
	}
	return w
}

// WholeWidth is the width at which no column is cut but those cut in the
// middle (URLs and paths, which keep their ends), and those only to their
// floor: every other column shows the rows in view whole, up to its Max.
// Below it a table beside a pane would cut a digest or a media type while
// its URL column keeps cells to spare.
func (t *Table) WholeWidth() int {
	t.measure()
	w := t.leadWidth()
	for i, c := range t.cols {
		if i > 0 {
			w++
		}
		cw := columnFloor(c, t.seen[i])
		if c.Trunc != TruncMiddle {
			cw = max(cw, t.seen[i])
			if c.Max > 0 {
				cw = max(min(cw, c.Max), columnFloor(c, t.seen[i]))
			}
		}
		w += cw
	}
	return w
}

// leadWidth is the width of the number and mark columns with their
// separators.
func (t *Table) leadWidth() int {
	w := 0
	if t.Numbers {
		w = t.numberWidth() + 1
	}
	if t.Mark != nil {
		w += 2
	}
	if t.showPicked() {
		w += 2
	}
	return w
}

func (t *Table) showPicked() bool { return t.Picked != nil && t.ShowPicked }

// Relayout computes the column widths again (after ShowPicked changed).
func (t *Table) Relayout() { t.layout() }

// layout computes column widths from the table width and the content of
// the rows in view.
func (t *Table) layout() {
	t.measure()
	t.widths = FitColumns(t.cols, t.seen, t.width-t.leadWidth())
}

// cells measures as the terminal does (common.Common.WidthMethod).
func (t *Table) cells() Cells {
	if t.c == nil {
		return Graphemes
	}
	return CellsOf(t.c.WidthMethod)
}

// measure widens seen to the content of the rows in view and the titles
// (the sort arrow included); it reports whether a column grew.
func (t *Table) measure() bool {
	cells := t.cells()
	grew := false
	if len(t.seen) != len(t.cols) || t.seenBy != cells {
		t.seenBy = cells
		t.seen = make([]int, len(t.cols))
		grew = true
	}
	widen := func(ci, w int) {
		if w > t.seen[ci] {
			t.seen[ci] = w
			grew = true
		}
	}
	for ci, c := range t.cols {
		tw := cells.Width(c.Title)
		if ci == t.SortCol {
			tw++
		}
		widen(ci, tw)
	}
	end := min(t.list.Offset()+t.bodyHeight(), t.Len())
	for pos := max(t.list.Offset(), 0); pos < end; pos++ {
		i := t.Row(pos)
		for ci, c := range t.cols {
			if c.Value != nil {
				widen(ci, cells.Width(Escape(c.Value(i))))
			}
		}
	}
	return grew
}

// columnFloor is the narrowest a column is drawn: its Min, or its content
// when that is narrower, and never narrower than its title.
func columnFloor(c Column, content int) int {
	floor := c.Min
	if content > 0 {
		floor = min(c.Min, content)
	}
	return max(floor, min(content, len(c.Title)))
}

// FitColumns sizes columns by their content (content[i]: the widest cell
// of column i in view, its title included; nil when unknown) in width
// cells, one between columns:
//
//  1. each column gets its floor (columnFloor), from the left; those that
//     do not fit are left out, from the right;
//  2. then what each needs to show its content whole (up to its Max):
//     first the fixed columns (Flex 0: dates, change, length, counts,
//     which say nothing cut), then the flexible ones, the one that needs
//     least first (a media type before a URL), so that a short column is
//     never cut to give a long one a few more cells; what cannot make a
//     column whole is shared by Flex;
//  3. what is left goes to the flexible columns by Flex up to their Max
//     (rows not yet in view may be longer), the rest to the last column
//     shown, so that every row is exactly width cells.
func FitColumns(cols []Column, content []int, width int) []int {
	w := make([]int, len(cols))
	want := make([]int, len(cols))
	room := width
	for i, c := range cols {
		floor, nat := c.Min, c.Max
		if content != nil {
			floor = columnFloor(c, content[i])
			nat = max(content[i], floor)
			if c.Max > 0 {
				nat = max(min(nat, c.Max), floor)
			}
		}
		need := floor
		if i > 0 {
			need++ // separator
		}
		if room < need {
			break
		}
		w[i], want[i] = floor, nat
		room -= need
	}
	// 2. Fixed columns, then the flexible ones, toward their content.
	for i, c := range cols {
		if w[i] > 0 && c.Flex == 0 && want[i] > w[i] {
			give := min(want[i]-w[i], room)
			w[i] += give
			room -= give
		}
	}
	room = fillSmallestFirst(cols, w, want, room)
	// 3. The slack, to the flexible columns up to their Max.
	if room > 0 {
		limit := make([]int, len(cols))
		for i, c := range cols {
			limit[i] = c.Max
			if limit[i] == 0 {
				limit[i] = w[i] + room
			}
		}
		room = shareByFlex(cols, w, limit, room)
	}
	if room > 0 {
		for i := len(w) - 1; i >= 0; i-- {
			if w[i] > 0 {
				w[i] += room
				break
			}
		}
	}
	return w
}

// fillSmallestFirst gives the flexible columns shown what they need to
// reach want, the one that needs least first, as long as room holds its
// whole need; the rest is shared by Flex (shareByFlex). It returns what
// is left.
func fillSmallestFirst(cols []Column, w, want []int, room int) int {
	var needy []int
	for i, c := range cols {
		if w[i] > 0 && c.Flex > 0 && want[i] > w[i] {
			needy = append(needy, i)
		}
	}
	slices.SortStableFunc(needy, func(a, b int) int { return (want[a] - w[a]) - (want[b] - w[b]) })
	for _, i := range needy {
		need := want[i] - w[i]
		if need > room {
			break
		}
		w[i] += need
		room -= need
	}
	return shareByFlex(cols, w, want, room)
}

// shareByFlex gives room to the columns shown with a Flex, in proportion
// to it, none beyond its limit (0: none); it returns what is left.
func shareByFlex(cols []Column, w, limit []int, room int) int {
	for room > 0 {
		flexTotal := 0
		for i, c := range cols {
			if w[i] > 0 && c.Flex > 0 && w[i] < limit[i] {
				flexTotal += c.Flex
			}
		}
		if flexTotal == 0 {
			break
		}
		given := 0
		for i, c := range cols {
			if w[i] == 0 || c.Flex == 0 || w[i] >= limit[i] {
				continue
			}
			share := min(max((room)*c.Flex/flexTotal, 1), limit[i]-w[i], room-given)
			w[i] += share
			given += share
		}
		if given == 0 {
			break
		}
		room -= given
	}
	return room
}

// PosAt returns the visible position drawn at line y of the table (0 is the
// header), or -1.
func (t *Table) PosAt(y int) int {
	if y < 1 || y >= t.height {
		return -1
	}
	pos := t.list.Offset() + y - 1
	if pos >= t.Len() {
		return -1
	}
	return pos
}

// ColumnAt returns the column drawn at x, -1 for none (or the number column).
func (t *Table) ColumnAt(x int) int {
	col := t.leadWidth()
	for i, w := range t.widths {
		if w == 0 {
			continue
		}
		if x >= col && x < col+w {
			return i
		}
		col += w + 1
	}
	return -1
}

// View draws the header and the rows in view.
func (t *Table) View() string {
	if t.width <= 0 || t.height <= 0 {
		return ""
	}
	st := t.c.Styles
	cells := t.cells()
	if t.measure() {
		t.widths = FitColumns(t.cols, t.seen, t.width-t.leadWidth())
	}
	var b strings.Builder
	b.Grow((t.width + 16) * t.height)

	var hdr strings.Builder
	nw := t.numberWidth()
	if t.Numbers {
		hdr.WriteString(cells.PadLeft("#", nw))
		hdr.WriteByte(' ')
	}
	if t.showPicked() {
		hdr.WriteString("  ")
	}
	if t.Mark != nil {
		hdr.WriteString("  ")
	}
	for i, c := range t.cols {
		w := t.widths[i]
		if w == 0 {
			continue
		}
		if i > 0 {
			hdr.WriteByte(' ')
		}
		title := c.Title
		if i == t.SortCol {
			if t.SortDesc {
				title += "↓"
			} else {
				title += "↑"
			}
		}
		hdr.WriteString(cells.Cell(title, w, c.Right, TruncEnd))
	}
	b.WriteString(st.Header.Render(cells.Cell(hdr.String(), t.width, false, TruncEnd)))

	rows := t.bodyHeight()
	n := t.Len()
	cursor, offset := t.list.Cursor(), t.list.Offset()
	var line strings.Builder
	for y := 0; y < rows; y++ {
		b.WriteByte('\n')
		pos := offset + y
		if pos >= n {
			b.WriteString(strings.Repeat(" ", t.width))
			continue
		}
		i := t.Row(pos)
		selected := pos == cursor
		line.Reset()
		if t.Numbers {
			num := cells.PadLeft(strconv.Itoa(i+1), nw)
			if selected {
				line.WriteString(num)
			} else {
				line.WriteString(st.Paint.RowNumber.Apply(num))
			}
			line.WriteByte(' ')
		}
		if t.showPicked() {
			switch {
			case !t.Picked(i):
				line.WriteByte(' ')
			case selected:
				line.WriteString(MarkedGlyph)
			default:
				line.WriteString(st.Paint.Picked.Apply(MarkedGlyph))
			}
			line.WriteByte(' ')
		}
		if t.Mark != nil {
			m, paint := t.Mark(i)
			switch {
			case m == "":
				line.WriteByte(' ')
			case selected:
				line.WriteString(m)
			default:
				line.WriteString(paint.Apply(m))
			}
			line.WriteByte(' ')
		}
		for ci, c := range t.cols {
			w := t.widths[ci]
			if w == 0 {
				continue
			}
			if ci > 0 {
				line.WriteByte(' ')
			}
			cell := cells.Cell(c.Value(i), w, c.Right, c.Trunc)
			if !selected && c.Paint != nil {
				cell = c.Paint(i).Apply(cell)
			}
			line.WriteString(cell)
		}
		switch {
		case selected && t.Focused:
			b.WriteString(st.Selected.Render(line.String()))
		case selected:
			b.WriteString(st.SelectedBlur.Render(line.String()))
		default:
			b.WriteString(line.String())
		}
	}
	return b.String()
}
