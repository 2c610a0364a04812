package ui

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Truncation of a cell that does not fit its column.
const (
	truncEnd    = iota // "http://example.com/very/lo…"
	truncMiddle        // "http://example.com/…/file.xml": keeps what tells URLs apart
)

// tableColumn describes one column of a virtual table. Cells are computed
// on demand from the row's index in the underlying data, so the table costs
// the same for ten rows and ten million.
type tableColumn struct {
	Title string
	Min   int // narrowest width
	Max   int // widest useful width (0: as wide as there is room)
	Flex  int // share of the room left once every column has its Min
	Right bool
	Trunc int

	// Value is the cell text of underlying row i.
	Value func(i int) string
	// Paint, when set, colours the cell of underlying row i (not on the
	// selected row, which has one style throughout).
	Paint func(i int) Paint
}

// table is a virtual table: it draws only the rows in view. Its rows are the
// underlying data's indexes in the order given by perm (filtered and sorted),
// or 0..count-1 when perm is nil, so sorting and filtering never move data.
type table struct {
	c      *Common
	cols   []tableColumn
	widths []int

	count int     // underlying rows when perm is nil
	perm  []int32 // visible order of underlying rows; nil: identity over count

	cursor int // position in the visible order
	offset int // first visible position

	width, height int // height includes the header line
	focused       bool
	numbers       bool // show the entry number column

	sortCol  int // -1: document order
	sortDesc bool
}

func newTable(c *Common) table {
	return table{c: c, focused: true, numbers: true, sortCol: -1}
}

// SetSize sets the table's width and height (header included).
func (t *table) SetSize(w, h int) {
	t.width, t.height = max(w, 0), max(h, 0)
	t.layout()
	t.clamp()
}

// SetColumns replaces the columns.
func (t *table) SetColumns(cols []tableColumn) {
	t.cols = cols
	t.layout()
}

// SetCount sets the number of underlying rows shown when no perm is set.
func (t *table) SetCount(n int) {
	t.count = n
	t.layout()
	t.clamp()
}

// SetPerm sets the visible order (nil: all rows in document order). The
// cursor stays on the same underlying row when it is still visible.
func (t *table) SetPerm(p []int32) {
	sel := t.Selected()
	t.perm = p
	t.SelectRow(sel)
	t.clamp()
}

// Len is the number of visible rows.
func (t *table) Len() int {
	if t.perm != nil {
		return len(t.perm)
	}
	return t.count
}

// row maps a visible position to the underlying row.
func (t *table) row(pos int) int {
	if t.perm != nil {
		return int(t.perm[pos])
	}
	return pos
}

// Selected is the underlying row under the cursor, -1 when the table is empty.
func (t *table) Selected() int {
	if t.cursor < 0 || t.cursor >= t.Len() {
		return -1
	}
	return t.row(t.cursor)
}

// Cursor is the cursor's visible position.
func (t *table) Cursor() int { return t.cursor }

// SelectRow moves the cursor to underlying row i when it is visible and
// reports whether it is.
func (t *table) SelectRow(i int) bool {
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
// into view, centring it when it jumps far.
func (t *table) MoveTo(pos int) {
	t.cursor = pos
	t.clamp()
	rows := t.bodyHeight()
	if t.cursor < t.offset || t.cursor >= t.offset+rows {
		if t.cursor < t.offset-1 || t.cursor > t.offset+rows {
			t.offset = t.cursor - rows/2
		} else if t.cursor < t.offset {
			t.offset = t.cursor
		} else {
			t.offset = t.cursor - rows + 1
		}
	}
	t.clamp()
}

// Move moves the cursor by delta rows.
func (t *table) Move(delta int) { t.MoveTo(t.cursor + delta) }

// Scroll moves the view by delta rows and keeps the cursor inside it.
func (t *table) Scroll(delta int) {
	rows := t.bodyHeight()
	t.offset = max(min(t.offset+delta, t.Len()-rows), 0)
	if t.cursor < t.offset {
		t.cursor = t.offset
	} else if t.cursor >= t.offset+rows {
		t.cursor = t.offset + rows - 1
	}
	t.clamp()
}

func (t *table) bodyHeight() int { return max(t.height-1, 1) }

func (t *table) clamp() {
	n := t.Len()
	if t.cursor >= n {
		t.cursor = n - 1
	}
	if t.cursor < 0 {
		t.cursor = 0
	}
	t.clampOffset()
}

func (t *table) clampOffset() {
	n, rows := t.Len(), t.bodyHeight()
	if t.offset > n-rows {
		t.offset = n - rows
	}
	if t.offset < 0 {
		t.offset = 0
	}
	if t.cursor < t.offset {
		t.offset = t.cursor
	}
	if t.cursor >= t.offset+rows && n > 0 {
		t.offset = t.cursor - rows + 1
	}
}

// numberWidth is the width of the entry number column.
func (t *table) numberWidth() int {
	if !t.numbers {
		return 0
	}
	n := max(t.count, 1)
	return max(len(strconv.Itoa(n)), 1)
}

// minWidth is the width the table needs to show every column at its Min.
func (t *table) minWidth() int {
	w := 0
	if t.numbers {
		w = t.numberWidth() + 1
	}
	for i, c := range t.cols {
		if i > 0 {
			w++
		}
		w += c.Min
	}
	return w
}

// layout computes column widths from the table width.
func (t *table) layout() {
	t.widths = layoutColumns(t.cols, t.width-t.numberWidth()-boolInt(t.numbers))
}

// layoutColumns gives each column its Min, then shares the rest by Flex up
// to each Max. Columns that do not fit even at Min get width 0 (hidden),
// from the right.
func layoutColumns(cols []tableColumn, width int) []int {
	w := make([]int, len(cols))
	room := width
	for i, c := range cols {
		need := c.Min
		if i > 0 {
			need++ // separator
		}
		if room < need {
			break
		}
		w[i] = c.Min
		room -= need
	}
	for room > 0 {
		flexTotal := 0
		for i, c := range cols {
			if w[i] > 0 && c.Flex > 0 && (c.Max == 0 || w[i] < c.Max) {
				flexTotal += c.Flex
			}
		}
		if flexTotal == 0 {
			break
		}
		given := 0
		for i, c := range cols {
			if w[i] == 0 || c.Flex == 0 || (c.Max > 0 && w[i] >= c.Max) {
				continue
			}
			share := max(room*c.Flex/flexTotal, 1)
			if c.Max > 0 && w[i]+share > c.Max {
				share = c.Max - w[i]
			}
			if share > room-given {
				share = room - given
			}
			w[i] += share
			given += share
		}
		if given == 0 {
			break
		}
		room -= given
	}
	// Give what is left over to the last visible column, so rows are full width.
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

// Update handles movement keys and the mouse wheel. It reports whether the
// message was used.
func (t *table) Update(msg tea.Msg) bool {
	k := &t.c.Keys
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		page := t.bodyHeight()
		switch {
		case key.Matches(msg, k.Up):
			t.Move(-1)
		case key.Matches(msg, k.Down):
			t.Move(1)
		case key.Matches(msg, k.PageUp):
			t.Move(-page)
		case key.Matches(msg, k.PageDown):
			t.Move(page)
		case key.Matches(msg, k.HalfUp):
			t.Move(-max(page/2, 1))
		case key.Matches(msg, k.HalfDown):
			t.Move(max(page/2, 1))
		case key.Matches(msg, k.Top):
			t.MoveTo(0)
		case key.Matches(msg, k.Bottom):
			t.MoveTo(t.Len() - 1)
		default:
			return false
		}
		return true
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			t.Scroll(-3)
		case tea.MouseWheelDown:
			t.Scroll(3)
		default:
			return false
		}
		return true
	}
	return false
}

// PosAt returns the visible position drawn at line y of the table (0 is the
// header), or -1.
func (t *table) PosAt(y int) int {
	if y < 1 || y >= t.height {
		return -1
	}
	pos := t.offset + y - 1
	if pos >= t.Len() {
		return -1
	}
	return pos
}

// ColumnAt returns the column drawn at x, -1 for none (or the number column).
func (t *table) ColumnAt(x int) int {
	col := 0
	if t.numbers {
		col = t.numberWidth() + 1
	}
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
func (t *table) View() string {
	if t.width <= 0 || t.height <= 0 {
		return ""
	}
	st := t.c.Styles
	var b strings.Builder
	b.Grow((t.width + 16) * t.height)

	// Header.
	var hdr strings.Builder
	nw := t.numberWidth()
	if t.numbers {
		hdr.WriteString(padLeft("#", nw))
		hdr.WriteByte(' ')
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
		if i == t.sortCol {
			if t.sortDesc {
				title += "↓"
			} else {
				title += "↑"
			}
		}
		hdr.WriteString(fit(title, w, c.Right, truncEnd))
	}
	b.WriteString(st.Header.Render(fit(hdr.String(), t.width, false, truncEnd)))

	rows := t.bodyHeight()
	n := t.Len()
	var line strings.Builder
	for y := 0; y < rows; y++ {
		b.WriteByte('\n')
		pos := t.offset + y
		if pos >= n {
			b.WriteString(strings.Repeat(" ", t.width))
			continue
		}
		i := t.row(pos)
		selected := pos == t.cursor
		line.Reset()
		if t.numbers {
			num := padLeft(strconv.Itoa(i+1), nw)
			if selected {
				line.WriteString(num)
			} else {
				line.WriteString(st.Paint.RowNumber.Apply(num))
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
			cell := fit(c.Value(i), w, c.Right, c.Trunc)
			if !selected && c.Paint != nil {
				cell = c.Paint(i).Apply(cell)
			}
			line.WriteString(cell)
		}
		switch {
		case selected && t.focused:
			b.WriteString(st.Selected.Render(line.String()))
		case selected:
			b.WriteString(st.SelectedBlur.Render(line.String()))
		default:
			b.WriteString(line.String())
		}
	}
	return b.String()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// isASCII reports whether s has only single-byte printable characters.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// textWidth is the display width of s.
func textWidth(s string) int {
	if isASCII(s) {
		return len(s)
	}
	return ansi.StringWidth(s)
}

// sanitize replaces control characters (a newline inside an attribute value
// would break the screen) with spaces.
func sanitize(s string) string {
	if isASCII(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) { // C0, DEL and C1 controls
			return ' '
		}
		return r
	}, s)
}

// fit pads or truncates s to exactly w cells.
func fit(s string, w int, right bool, trunc int) string {
	if w <= 0 {
		return ""
	}
	s = sanitize(s)
	sw := textWidth(s)
	if sw > w {
		s = truncate(s, w, trunc)
		sw = textWidth(s)
	}
	if sw < w {
		if right {
			return strings.Repeat(" ", w-sw) + s
		}
		return s + strings.Repeat(" ", w-sw)
	}
	return s
}

// truncate shortens s to at most w cells with an ellipsis.
func truncate(s string, w int, trunc int) string {
	if w <= 0 {
		return ""
	}
	if textWidth(s) <= w {
		return s
	}
	if w == 1 {
		return "…"
	}
	if trunc == truncMiddle && w >= 12 && isASCII(s) {
		tail := (w - 1) * 2 / 5
		head := w - 1 - tail
		return s[:head] + "…" + s[len(s)-tail:]
	}
	if isASCII(s) {
		return s[:w-1] + "…"
	}
	return ansi.Truncate(s, w, "…")
}

func padLeft(s string, w int) string {
	if n := w - textWidth(s); n > 0 {
		return strings.Repeat(" ", n) + s
	}
	return s
}

func padRight(s string, w int) string {
	if n := w - textWidth(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}
