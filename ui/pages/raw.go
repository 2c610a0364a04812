package pages

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"

	"rsx/display"
	"rsx/ui/common"
	"rsx/ui/components"
	"rsx/ui/nav"
)

// The raw page shows a document's XML as it was received: line numbers,
// syntax colours, scrolling, search and jumps to a line. It must stay fast on
// a 50 MB document, so:
//
//   - the text is kept once (at most rawMaxBytes) and indexed by line in a
//     tea.Cmd, never in Update;
//   - colours are computed lazily, rawChunkLines lines at a time, only for
//     chunks that come into view, and cached (at most rawCacheChunks);
//   - a line is coloured over its first rawLexLineBytes bytes; further right
//     the visible segment alone is coloured, so one 50 MB line costs no more
//     than a short one;
//   - search runs in a tea.Cmd over the bytes and keeps at most
//     rawMaxMatches match offsets.
const (
	rawMaxBytes     = 64 << 20
	rawChunkLines   = 64
	rawCacheChunks  = 64
	rawLexLineBytes = 1024
	rawMaxMatches   = 100000
	rawTabWidth     = 4
	rawWheelLines   = 3
	rawSideStep     = 8
)

type rawInputMode uint8

const (
	rawInputNone rawInputMode = iota
	rawInputSearch
	rawInputLine
)

// Raw shows a document's XML as it was received.
type Raw struct {
	c     *common.Common
	title string

	session *rawSession
	load    tea.Cmd  // the loading command, given out once by Init
	text    *rawText // the text shown: orig, or the pretty one
	orig    *rawText // the text as received
	err     error

	pretty     *prettyText // made the first time it is asked for
	prettyOn   bool        // the pretty text is shown
	prettyBusy bool
	// place is a place to show once the text is there: a line of the text
	// as received, or an entry's start tag (entry >= 0).
	place struct {
		line, entry int
		set         bool
	}

	width, height int
	scroll        components.List // the first visible line
	xoff          int             // bytes hidden on the left of every line
	target        int             // line a jump landed on, 0-based; -1 when none
	targetOff     int             // offset (in the text as received) a problem's place is at; -1 when none

	input     components.Input
	inputMode rawInputMode

	query     string
	searchGen int
	searching bool
	matches   []int // byte offsets of matches, ascending
	capped    bool
	current   int // index into matches; -1 when none
	notice    string
}

// NewRaw returns a raw page of data, a document already fetched. Only
// the first 64 MiB are kept; the page says so when it cut. Init returns the
// command that indexes the lines.
func NewRaw(c *common.Common, title string, data []byte) *Raw {
	size := int64(len(data))
	truncated := false
	if len(data) > rawMaxBytes {
		data, truncated = data[:rawMaxBytes], true
	}
	v := newRawPageBase(c, title)
	text := &rawText{data: data, truncated: truncated, size: size}
	v.load = indexRawCmd(v.session, text)
	return v
}

// NewRawReader returns a raw page that reads its text from r (closed
// afterwards when it is an io.Closer), keeping at most 64 MiB. size is the
// document's size when known, else -1.
func NewRawReader(c *common.Common, title string, r io.Reader, size int64) *Raw {
	v := newRawPageBase(c, title)
	ctx, cancel := context.WithCancel(context.Background())
	v.session.cancel = cancel
	v.load = readRawCmd(ctx, v.session, r, size)
	return v
}

func newRawPageBase(c *common.Common, title string) *Raw {
	return &Raw{
		c:         c,
		title:     title,
		session:   &rawSession{},
		scroll:    components.NewList(components.Scroll),
		input:     components.NewInput(c.Styles, "/"),
		target:    -1,
		targetOff: -1,
		current:   -1,
	}
}

// Init returns the command that loads and indexes the text.
func (v *Raw) Init() tea.Cmd { return v.load }

// Close stops a load in progress.
func (v *Raw) Close() {
	if v.session != nil && v.session.cancel != nil {
		v.session.cancel()
	}
}

// Title names the page.
func (v *Raw) Title() string { return "Raw XML" }

// InputActive reports whether the page is reading a line of input (search,
// line number): the root model must then pass every key to it.
func (v *Raw) InputActive() bool { return v.inputMode != rawInputNone }

// Busy tells that the text is still loading.
func (v *Raw) Busy() bool { return !v.Loaded() }

// Back clears an active search (its query, matches and highlights); with
// none, esc closes the page.
func (v *Raw) Back() (bool, tea.Cmd) {
	if v.query == "" {
		return false, nil
	}
	// As in less and vi: esc first clears the search and its highlights;
	// a search still running is dropped (its result no longer applies).
	v.query, v.matches, v.current, v.capped = "", nil, -1, false
	v.searching = false
	v.searchGen++
	v.notice = ""
	return true, nil
}

// Loaded reports whether the text is there.
func (v *Raw) Loaded() bool { return v.text != nil }

// top is the first visible line, 0-based.
func (v *Raw) top() int { return v.scroll.Offset() }

// SetSize sets the size the page draws in.
func (v *Raw) SetSize(w, h int) {
	v.width, v.height = w, h
	v.input.SetStyles(v.c.Styles)
	v.input.SetWidth(max(w-10, 10))
	v.scroll.SetHeight(v.bodyHeight())
	v.colourVisible()
}

// GotoLine scrolls to line (1-based) and marks it.
func (v *Raw) GotoLine(line int) {
	if v.text == nil {
		v.target = line - 1
		return
	}
	line = components.Clamp(line-1, 0, len(v.text.lines)-1)
	v.target, v.targetOff = line, -1
	v.scroll.SetOffset(line - v.bodyHeight()/3)
	v.xoff = 0
	v.colourVisible()
}

// KeyBindings are the page's own bindings, for the help screen.
func (v *Raw) KeyBindings() []key.Binding {
	k := &v.c.Keys
	return []key.Binding{common.Short(k.Filter, "search"), k.NextMatch, k.PrevMatch, common.Short(k.JumpTo, "go to line"), k.Left, k.Right, k.Pretty}
}

// HelpBindings are the page's keys that work just now (nav.KeyHelper):
// moving when the text is taller than the page, the next match when a
// search found some.
func (v *Raw) HelpBindings() []key.Binding {
	k := &v.c.Keys
	found := len(v.matches) > 0
	out := append(k.MoveKeys(v.scroll.Len() > v.scroll.Height()), common.Short(k.Filter, "search"),
		common.When(found, k.NextMatch), common.When(found, k.PrevMatch), common.Short(k.JumpTo, "go to line"), k.Left, k.Right, k.Pretty)
	return out
}

func (v *Raw) bodyHeight() int { return max(v.height-2, 1) }

func (v *Raw) lineCount() int {
	if v.text == nil {
		return 0
	}
	return len(v.text.lines)
}

// Update handles keys, the mouse wheel and the page's own results.
func (v *Raw) Update(msg tea.Msg) (nav.Page, tea.Cmd) {
	switch msg := msg.(type) {
	case rawLoadedMsg:
		if msg.session != v.session {
			return v, nil
		}
		v.text, v.orig, v.err = msg.text, msg.text, msg.err
		v.scroll.SetLen(v.lineCount())
		switch {
		case v.text != nil && v.place.set:
			v.GotoPlace(v.place.line, v.place.entry)
		case v.text != nil && v.target >= 0:
			v.GotoLine(v.target + 1)
		}
		v.colourVisible()
		return v, nil
	case rawPrettyMsg:
		if msg.session != v.session {
			return v, nil
		}
		v.prettyBusy = false
		v.pretty = msg.pretty
		return v, v.showPretty(true)
	case rawSearchMsg:
		if msg.session != v.session || msg.gen != v.searchGen {
			return v, nil
		}
		v.searching = false
		v.matches, v.capped = msg.matches, msg.capped
		v.current = -1
		if len(v.matches) == 0 {
			v.notice = fmt.Sprintf("%q not found", msg.query)
			return v, nil
		}
		// The first match at or after the top of the screen.
		from := 0
		if v.text != nil {
			from = int(v.text.lines[v.top()])
		}
		v.current = sort.SearchInts(v.matches, from) % len(v.matches)
		v.showMatch()
		return v, nil
	case nav.ShowRawLineMsg:
		v.GotoPlace(msg.Line, msg.Entry)
		return v, nil
	case tea.PasteMsg:
		if v.InputActive() {
			v.input.Update(msg)
		}
		return v, nil
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelLeft:
			v.xoff = max(v.xoff-rawSideStep, 0)
		case tea.MouseWheelRight:
			v.xoff += rawSideStep
		default:
			v.scroll.Update(msg, &v.c.Keys)
			v.colourVisible()
		}
		return v, nil
	case tea.KeyPressMsg:
		if v.InputActive() {
			return v, v.inputKey(msg)
		}
		return v, v.key(msg)
	}
	return v, nil
}

// inputKey edits the search or line prompt; enter acts on it, esc closes it.
func (v *Raw) inputKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &v.c.Keys
	switch {
	case key.Matches(msg, k.Cancel):
		v.inputMode = rawInputNone
		v.input.Stop()
	case key.Matches(msg, k.Submit):
		mode := v.inputMode
		v.inputMode = rawInputNone
		v.input.Stop()
		value := strings.TrimSpace(v.input.Value())
		switch mode {
		case rawInputSearch:
			if value == "" { // as in less and vi: search again
				value = v.query
			}
			return v.startSearch(value)
		case rawInputLine:
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 {
				v.notice = fmt.Sprintf("not a line number: %q", value)
				return nil
			}
			v.GotoLine(n)
		}
	default:
		v.input.Update(msg)
	}
	return nil
}

// key handles a key press: movement, sideways scrolling, search and jumps.
func (v *Raw) key(msg tea.KeyPressMsg) tea.Cmd {
	k := &v.c.Keys
	if v.scroll.Update(msg, k) {
		v.colourVisible()
		return nil
	}
	switch {
	case key.Matches(msg, k.Left):
		v.xoff = max(v.xoff-rawSideStep, 0)
	case key.Matches(msg, k.Right):
		v.xoff += rawSideStep
	case key.Matches(msg, k.Filter):
		v.inputMode = rawInputSearch
		v.input.SetPrompt("/")
		v.input.Start("")
		v.notice = ""
	case key.Matches(msg, k.JumpTo):
		v.inputMode = rawInputLine
		v.input.SetPrompt("line: ")
		v.input.Start("")
		v.notice = ""
	case key.Matches(msg, k.NextMatch):
		v.stepMatch(1)
	case key.Matches(msg, k.PrevMatch):
		v.stepMatch(-1)
	case key.Matches(msg, k.Pretty):
		return v.togglePretty()
	}
	return nil
}

// hl is the colour cache of the text shown.
func (v *Raw) hl() *rawHighlighter {
	if v.prettyOn {
		return &v.session.phl
	}
	return &v.session.hl
}

// togglePretty switches between the text as received and the pretty one,
// which is made (in a Cmd) the first time.
func (v *Raw) togglePretty() tea.Cmd {
	switch {
	case v.orig == nil || v.prettyBusy:
		return nil
	case v.prettyOn:
		return v.showPretty(false)
	case v.pretty == nil:
		v.prettyBusy = true
		v.notice = ""
		return prettyRawCmd(v.session, v.orig)
	}
	return v.showPretty(true)
}

// showPretty shows the pretty text (on) or the text as received, keeping
// the top line, the marked line and the search at the same offsets.
func (v *Raw) showPretty(on bool) tea.Cmd {
	if v.pretty == nil || v.orig == nil || v.prettyOn == on {
		return nil
	}
	top, target := v.offsetOf(v.top()), v.targetOff
	if target < 0 && v.target >= 0 {
		target = v.offsetOf(v.target)
	}
	v.prettyOn = on
	v.text = v.orig
	if on {
		v.text = v.pretty.text
	}
	v.scroll.SetLen(v.lineCount())
	v.scroll.SetOffset(v.lineAtOffset(top))
	v.target = -1
	if target >= 0 {
		v.target = v.lineAtOffset(target)
		if t := v.target; t < v.top() || t >= v.top()+v.bodyHeight() {
			v.scroll.SetOffset(t - v.bodyHeight()/3)
		}
	}
	v.xoff = 0
	v.colourVisible()
	if v.query != "" {
		return v.startSearch(v.query)
	}
	return nil
}

// offsetOf is the offset in the text as received where line i of the text
// shown starts.
func (v *Raw) offsetOf(i int) int {
	if v.prettyOn {
		return v.pretty.src[components.Clamp(i, 0, len(v.pretty.src)-1)]
	}
	return int(v.orig.lines[components.Clamp(i, 0, len(v.orig.lines)-1)])
}

// lineAtOffset is the line of the text shown that holds offset off of the
// text as received.
func (v *Raw) lineAtOffset(off int) int {
	if v.prettyOn {
		return v.pretty.lineAt(off)
	}
	return v.lineOf(off)
}

// GotoPlace shows a problem's place: entry's start tag when it is known
// (entry >= 0), by its byte offset, so that it is found in the pretty text
// and on a long line alike; else line (1-based) of the text as received.
// Before the text is there, the place waits for it.
func (v *Raw) GotoPlace(line, entry int) {
	if v.orig == nil {
		v.place.line, v.place.entry, v.place.set = line, entry, true
		v.target = line - 1
		return
	}
	v.place.set = false
	off, ok := entryOffset(v.orig.data, entry)
	if !ok {
		if line <= 0 {
			return
		}
		off = int(v.orig.lines[components.Clamp(line-1, 0, len(v.orig.lines)-1)])
	}
	l := v.lineAtOffset(off)
	v.target, v.targetOff = l, off
	v.scroll.SetOffset(l - v.bodyHeight()/3)
	v.xoff = 0
	if !v.prettyOn {
		// On a long line, scroll sideways to the place.
		if col := off - int(v.orig.lines[l]); col >= v.contentWidth() {
			v.xoff = max(col-v.contentWidth()/3, 0)
		}
	}
	v.colourVisible()
}

func (v *Raw) startSearch(query string) tea.Cmd {
	v.query = query
	v.searchGen++
	v.matches, v.current, v.capped = nil, -1, false
	v.notice = ""
	if query == "" || v.text == nil {
		v.searching = false
		return nil
	}
	v.searching = true
	return searchRawCmd(v.session, v.searchGen, v.text.data, query)
}

func (v *Raw) stepMatch(d int) {
	if len(v.matches) == 0 {
		if v.query != "" && !v.searching {
			v.notice = fmt.Sprintf("%q not found", v.query)
		}
		return
	}
	v.current = (v.current + d + len(v.matches)) % len(v.matches)
	v.showMatch()
}

// showMatch scrolls so that the current match is on screen.
func (v *Raw) showMatch() {
	if v.text == nil || v.current < 0 {
		return
	}
	off := v.matches[v.current]
	line := v.lineOf(off)
	body := v.bodyHeight()
	if top := v.top(); line < top || line >= top+body {
		v.scroll.SetOffset(line - body/3)
	}
	col := off - int(v.text.lines[line])
	cw := v.contentWidth()
	if col < v.xoff || col+len(v.query) > v.xoff+cw {
		v.xoff = max(col-cw/3, 0)
	}
	v.colourVisible()
}

// lineOf returns the 0-based line of the text shown holding its byte
// offset off.
func (v *Raw) lineOf(off int) int { return lineIn(v.text, off) }

// lineOfOrig returns the 0-based line of the text as received holding its
// byte offset off.
func (v *Raw) lineOfOrig(off int) int { return lineIn(v.orig, off) }

func lineIn(t *rawText, off int) int {
	lines := t.lines
	i := sort.Search(len(lines), func(i int) bool { return int(lines[i]) > off })
	return max(i-1, 0)
}

func (v *Raw) gutterWidth() int {
	return len(strconv.Itoa(max(v.lineCount(), 1))) + 3
}

func (v *Raw) contentWidth() int { return max(v.width-v.gutterWidth(), 1) }

// colourVisible makes sure the chunks on screen are coloured.
func (v *Raw) colourVisible() {
	if v.text == nil || v.session == nil {
		return
	}
	first := v.top() / rawChunkLines
	last := min(v.top()+v.bodyHeight(), len(v.text.lines)-1) / rawChunkLines
	for c := first; c <= last; c++ {
		v.hl().chunk(v.text, c)
	}
}

// View draws the header, the visible lines and the footer.
func (v *Raw) View() string {
	st := v.c.Styles
	w := max(v.width, 1)
	var b strings.Builder
	b.WriteString(v.header(st, w))
	body := v.bodyHeight()
	switch {
	case v.err != nil:
		b.WriteString("\n" + cellsOf(v.c).Fit(st.Error.Render("cannot show the XML: "+components.Escape(v.err.Error())), w))
		body--
	case v.text == nil:
		b.WriteString("\n" + st.Dim.Render("loading…"))
		body--
	default:
		cw := v.contentWidth()
		gw := v.gutterWidth() - 3
		top := v.top()
		n := min(body, len(v.text.lines)-top)
		for i := top; i < top+n; i++ {
			b.WriteByte('\n')
			num := fmt.Sprintf("%*d", gw, i+1)
			if i == v.target {
				b.WriteString(st.GutterTarget.Render(num + " ▶ "))
			} else {
				b.WriteString(st.Gutter.Render(num + " │ "))
			}
			// renderLine counts cells with runewidth; a terminal may count a
			// rare grapheme differently, so make sure of the width.
			line := v.renderLine(st, i, cw)
			if ansi.StringWidth(line) > cw {
				line = ansi.Truncate(line, cw, "")
			}
			b.WriteString(line)
		}
		body -= n
	}
	for ; body > 0; body-- {
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.WriteString(v.footer(st, w))
	return b.String()
}

func (v *Raw) header(st *common.Styles, w int) string {
	parts := []string{st.Title.Render("Raw XML")}
	switch {
	case v.prettyBusy:
		parts = append(parts, st.Dim.Render("pretty-printing…"))
	case v.prettyOn:
		parts = append(parts, st.Flash.Render("pretty-printed")+st.Dim.Render(" (f: as received)"))
	}
	if t := v.text; t != nil {
		info := fmt.Sprintf("%s lines · %s", display.Count(len(t.lines)), display.Size(int64(len(t.data))))
		parts = append(parts, st.Dim.Render(info))
		if t.truncated {
			of := "a longer document"
			if t.size > 0 {
				of = display.Size(t.size)
			}
			parts = append(parts, st.Warning.Render("showing the first "+display.Size(rawMaxBytes)+" of "+of))
		}
	}
	if v.title != "" {
		parts = append(parts, st.URL.Render(components.Escape(v.title)))
	}
	return cellsOf(v.c).Fit(strings.Join(parts, "  "), w)
}

func (v *Raw) footer(st *common.Styles, w int) string {
	if v.InputActive() {
		return cellsOf(v.c).Fit(v.input.View(), w)
	}
	var left string
	switch {
	case v.notice != "":
		left = st.Warning.Render(components.Escape(v.notice))
	case v.searching:
		left = st.Dim.Render(fmt.Sprintf("searching %q…", v.query))
	case v.query != "" && len(v.matches) > 0:
		more := ""
		if v.capped {
			more = "+"
		}
		left = st.Flash.Render(fmt.Sprintf("%q %d/%d%s", v.query, v.current+1, len(v.matches), more)) +
			st.Dim.Render("  n/N next/previous")
	case v.prettyOn:
		left = st.Dim.Render("/ search  # line  f as received")
	default:
		left = st.Dim.Render("/ search  # line  ←/→ scroll sideways  f pretty-print")
	}
	right := ""
	if n := v.lineCount(); n > 0 {
		right = fmt.Sprintf("line %d–%d of %s", v.top()+1, min(v.top()+v.bodyHeight(), n), display.Count(n))
		if v.prettyOn {
			off := v.offsetOf(v.top())
			right += fmt.Sprintf(" · byte %d, line %d as received", off, v.lineOfOrig(off)+1)
		}
		if v.xoff > 0 {
			right += fmt.Sprintf("  col +%d", v.xoff)
		}
	}
	gap := w - cellsOf(v.c).Width(left) - cellsOf(v.c).Width(right)
	if gap < 1 {
		return cellsOf(v.c).Fit(left, w)
	}
	return left + strings.Repeat(" ", gap) + st.Dim.Render(right)
}

// renderLine draws the visible part of line i in cw cells.
func (v *Raw) renderLine(st *common.Styles, i, cw int) string {
	t := v.text
	start, end := t.lineBounds(i)
	line := t.data[start:end]
	from := min(v.xoff, len(line))
	for from < len(line) && from > 0 && !utf8.RuneStart(line[from]) {
		from++
	}
	// Bytes that can fill cw cells: a cell takes at most 4 bytes (tabs expand).
	to := min(len(line), from+4*cw)

	spans := v.hl().lineSpans(t, i)
	if to > rawLexLineBytes && to > from {
		spans = lexSegment(v.hl(), line[from:to], from)
	}

	// Matches that touch the visible segment, as line-relative ranges.
	var marks [][3]int // start, end, current(0/1)
	if len(v.matches) > 0 && len(v.query) > 0 {
		lo := sort.SearchInts(v.matches, start+from-len(v.query)+1)
		for j := lo; j < len(v.matches) && v.matches[j] < start+to; j++ {
			cur := 0
			if j == v.current {
				cur = 1
			}
			marks = append(marks, [3]int{v.matches[j] - start, v.matches[j] - start + len(v.query), cur})
		}
	}

	var out, run strings.Builder
	runStyle := -1
	flush := func() {
		if run.Len() == 0 {
			return
		}
		out.WriteString(styleByIndex(st, runStyle).Render(run.String()))
		run.Reset()
	}
	col := 0
	si, mi := 0, 0
	for p := from; p < to && col < cw; {
		r, n := utf8.DecodeRune(line[p:])
		for si < len(spans) && int(spans[si].end) <= p {
			si++
		}
		for mi < len(marks) && marks[mi][1] <= p {
			mi++
		}
		style := int(rawClassText)
		if si < len(spans) && int(spans[si].start) <= p {
			style = int(spans[si].class)
		}
		if mi < len(marks) && marks[mi][0] <= p {
			style = styleMatch + marks[mi][2]
		}
		var text string
		width := 1
		switch {
		case r == '\t':
			width = rawTabWidth - col%rawTabWidth
			text = strings.Repeat(" ", width)
		case (r == utf8.RuneError && n == 1) || display.Unsafe(r):
			// Shown as what it is (\x1b, \u202e, \xff), as every page
			// shows Source text.
			text = components.Escape(string(line[p : p+n]))
			width = len(text)
		default:
			text = string(r)
			width = runewidth.RuneWidth(r)
		}
		if col+width > cw {
			break
		}
		if style != runStyle {
			flush()
			runStyle = style
		}
		run.WriteString(text)
		col += width
		p += n
	}
	flush()
	return out.String()
}
