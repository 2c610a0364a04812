// Package components holds the explorer's shared widgets: the list state that
// every page moves with, the virtual table, the text input, the progress bar,
// the footers drawn by bubbles/help, and text helpers. They read the key map
// and styles of package common and know nothing of ResourceSync.
package components

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/ui/common"
)

// StepKind is a kind of movement.
type StepKind uint8

const (
	StepLine   StepKind = iota + 1 // N lines (or items)
	StepPage                       // N pages
	StepHalf                       // N half pages
	StepTop                        // to the first
	StepBottom                     // to the last
	StepWheel                      // N lines of the mouse wheel: scrolls, never selects
)

// wheelLines is how far one notch of the wheel scrolls.
const wheelLines = 3

// Step is a movement asked for by a key or the mouse wheel. N is signed:
// negative moves up.
type Step struct {
	Kind StepKind
	N    int
}

// StepOf reads the movement msg asks for: the one place where movement
// keys are matched, so that they mean the same on every page.
func StepOf(msg tea.Msg, k *common.KeyMap) (Step, bool) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, k.Down):
			return Step{StepLine, 1}, true
		case key.Matches(msg, k.Up):
			return Step{StepLine, -1}, true
		case key.Matches(msg, k.PageDown):
			return Step{StepPage, 1}, true
		case key.Matches(msg, k.PageUp):
			return Step{StepPage, -1}, true
		case key.Matches(msg, k.HalfDown):
			return Step{StepHalf, 1}, true
		case key.Matches(msg, k.HalfUp):
			return Step{StepHalf, -1}, true
		case key.Matches(msg, k.Top):
			return Step{StepTop, -1}, true
		case key.Matches(msg, k.Bottom):
			return Step{StepBottom, 1}, true
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelDown:
			return Step{StepWheel, wheelLines}, true
		case tea.MouseWheelUp:
			return Step{StepWheel, -wheelLines}, true
		}
	}
	return Step{}, false
}

// ListMode is how a List answers movement.
type ListMode uint8

const (
	// Select: a list of items with a cursor that leads (tables, the HTTP
	// exchanges, problems): every step moves the cursor and the window
	// follows it; the wheel scrolls and pushes the cursor along.
	Select ListMode = iota
	// Scroll: a text without a selection (raw XML, help, detail panes):
	// every step scrolls.
	Scroll
	// Links: a text with some selectable lines (discovery, resource): lines
	// and top/bottom select the previous or next item and bring it into
	// view; pages, half pages and the wheel scroll the text.
	Links
)

// List is the selection and scroll state of whatever a page draws as lines:
// a cursor (an item) and an offset (the first line shown) over Len lines, of
// which Height are shown. Its memory does not depend on the length, so it
// suits ten items and ten million.
type List struct {
	mode   ListMode
	n      int   // lines
	height int   // lines shown
	cursor int   // Select: the line; Links: the item
	offset int   // first line shown
	items  []int // Links: the line of each item, ascending

	// Skip, in Select mode, tells lines the cursor passes over (section
	// headings).
	Skip func(i int) bool
}

// NewList returns an empty list in mode m.
func NewList(m ListMode) List { return List{mode: m, height: 1} }

// Len is the number of lines; Height the lines shown.
func (l *List) Len() int    { return l.n }
func (l *List) Height() int { return l.height }

// Cursor is the selected line (Select) or item (Links).
func (l *List) Cursor() int { return l.cursor }

// Offset is the first line shown.
func (l *List) Offset() int { return l.offset }

// SetLen sets the number of lines, keeping the cursor and offset in range.
func (l *List) SetLen(n int) {
	l.n = max(n, 0)
	l.clamp()
}

// SetHeight sets the lines shown.
func (l *List) SetHeight(h int) {
	l.height = max(h, 1)
	l.clamp()
}

// SetItems sets, in Links mode, the lines the items are on (ascending) and
// the total number of lines.
func (l *List) SetItems(lines []int, n int) {
	l.items = lines
	l.n = max(n, 0)
	l.clamp()
}

// SetOffset scrolls so that line off is the first shown (clamped).
func (l *List) SetOffset(off int) {
	l.offset = off
	l.clampOffset()
}

// Update applies the movement msg asks for; it reports whether msg was one.
func (l *List) Update(msg tea.Msg, k *common.KeyMap) bool {
	s, ok := StepOf(msg, k)
	if ok {
		l.Apply(s)
	}
	return ok
}

// Apply applies a step as the list's mode says.
func (l *List) Apply(s Step) {
	page := l.height
	half := max(page/2, 1)
	mode := l.mode
	if mode == Links && len(l.items) == 0 {
		mode = Scroll // nothing to select (discovery that found nothing): a text to read
	}
	switch mode {
	case Scroll:
		switch s.Kind {
		case StepLine, StepWheel:
			l.ScrollBy(s.N)
		case StepPage:
			l.ScrollBy(s.N * page)
		case StepHalf:
			l.ScrollBy(s.N * half)
		case StepTop:
			l.SetOffset(0)
		case StepBottom:
			l.SetOffset(l.n)
		}
	case Links:
		switch s.Kind {
		case StepLine:
			l.Select(l.cursor + s.N)
		case StepPage:
			l.ScrollBy(s.N * max(page-1, 1))
		case StepHalf:
			l.ScrollBy(s.N * half)
		case StepWheel:
			l.ScrollBy(s.N)
		case StepTop:
			l.SetOffset(0)
			l.Select(0)
		case StepBottom:
			l.SetOffset(l.n)
			l.Select(len(l.items) - 1)
		}
	default:
		switch s.Kind {
		case StepLine:
			l.Move(s.N)
		case StepPage:
			l.Move(s.N * page)
		case StepHalf:
			l.Move(s.N * half)
		case StepTop:
			l.offset = 0 // and a heading above the first item shows
			l.Select(0)
		case StepBottom:
			l.Select(l.n - 1)
		case StepWheel:
			l.ScrollBy(s.N)
		}
	}
}

// Move moves the cursor by delta lines (Select: over skipped lines, which
// do not count) or items (Links).
func (l *List) Move(delta int) {
	if l.mode != Select || l.Skip == nil {
		l.Select(l.cursor + delta)
		return
	}
	step := 1
	if delta < 0 {
		step, delta = -1, -delta
	}
	i := l.cursor
	for ; delta > 0; delta-- {
		j := i + step
		for j >= 0 && j < l.n && l.Skip(j) {
			j += step
		}
		if j < 0 || j >= l.n {
			break
		}
		i = j
	}
	l.Select(i)
}

// Select puts the cursor on line (Select) or item (Links) i, clamped, and
// scrolls it into view: a list moves as little as it must; a text with links
// centres a link that was out of view, so that the lines around it show.
func (l *List) Select(i int) {
	count := l.n
	if l.mode == Links {
		count = len(l.items)
	}
	l.cursor = Clamp(i, 0, count-1)
	if l.mode == Select && l.Skip != nil && count > 0 && l.Skip(l.cursor) {
		l.cursor = l.nearestItem(l.cursor)
	}
	line := l.cursorLine()
	if line < 0 {
		l.clampOffset()
		return
	}
	rows := l.height
	if line < l.offset || line >= l.offset+rows {
		switch {
		case l.mode == Links:
			l.offset = line - rows/2
		case line < l.offset:
			l.offset = line
		default:
			l.offset = line - rows + 1
		}
	}
	l.clamp()
}

// nearestItem is the first line at or after i that is not skipped, else the
// last one before it.
func (l *List) nearestItem(i int) int {
	for j := i; j < l.n; j++ {
		if !l.Skip(j) {
			return j
		}
	}
	for j := i - 1; j >= 0; j-- {
		if !l.Skip(j) {
			return j
		}
	}
	return i
}

// ScrollBy moves the window by delta lines. In Select mode the cursor is
// pushed along to stay in it.
func (l *List) ScrollBy(delta int) {
	l.offset += delta
	l.clampOffset()
	if l.mode == Select {
		if l.cursor < l.offset {
			l.cursor = l.offset
		} else if l.cursor >= l.offset+l.height {
			l.cursor = l.offset + l.height - 1
		}
		if l.Skip != nil && l.n > 0 && l.cursor < l.n && l.Skip(l.cursor) {
			l.cursor = l.nearestItem(l.cursor)
		}
		l.clamp()
	}
}

// cursorLine is the line of the cursor, -1 when there is none.
func (l *List) cursorLine() int {
	switch l.mode {
	case Scroll:
		return -1
	case Links:
		if l.cursor < 0 || l.cursor >= len(l.items) {
			return -1
		}
		return l.items[l.cursor]
	}
	if l.n == 0 {
		return -1
	}
	return l.cursor
}

func (l *List) clamp() {
	if l.mode == Select {
		l.cursor = Clamp(l.cursor, 0, l.n-1)
		l.clampOffset()
		// The cursor stays inside the window.
		if l.n > 0 {
			if l.cursor < l.offset {
				l.offset = l.cursor
			} else if l.cursor >= l.offset+l.height {
				l.offset = l.cursor - l.height + 1
			}
		}
		return
	}
	if l.mode == Links {
		l.cursor = Clamp(l.cursor, 0, len(l.items)-1)
	}
	l.clampOffset()
}

func (l *List) clampOffset() {
	l.offset = Clamp(l.offset, 0, l.n-l.height)
}
