package ui

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
	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"

	"rsx/fetch"
)

// The raw view shows a document's XML as it was received: line numbers,
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

// showRawLineMsg asks to show the raw view at a line (1-based), e.g. for a
// document-level problem. The root model switches to the raw view and
// forwards the message to it.
type showRawLineMsg struct {
	Line int
}

// rawText is a document's text once loaded: immutable, shared by copies of
// the view.
type rawText struct {
	data      []byte
	lines     []int32 // start offset of every line
	truncated bool    // data is the first rawMaxBytes of a longer document
	size      int64   // size of the whole document; -1 when unknown
}

// rawSession identifies one raw view for its asynchronous results (a late
// result for another view is dropped) and holds what its copies share.
type rawSession struct {
	cancel context.CancelFunc
	hl     rawHighlighter
}

// rawLoadedMsg carries the text and its line index.
type rawLoadedMsg struct {
	session *rawSession
	text    *rawText
	err     error
}

// rawSearchMsg carries the offsets of a search's matches.
type rawSearchMsg struct {
	session *rawSession
	gen     int
	query   string
	matches []int
	capped  bool
}

type rawInputMode uint8

const (
	rawInputNone rawInputMode = iota
	rawInputSearch
	rawInputLine
)

// rawView is the raw XML view.
type rawView struct {
	c     *Common
	keys  inspectKeys
	title string

	session *rawSession
	load    tea.Cmd // the loading command, given out once by Init
	text    *rawText
	err     error

	width, height int
	top           int // first visible line, 0-based
	xoff          int // bytes hidden on the left of every line
	target        int // line a jump landed on, 0-based; -1 when none

	input     ivInput
	inputMode rawInputMode

	query     string
	searchGen int
	searching bool
	matches   []int // byte offsets of matches, ascending
	capped    bool
	current   int // index into matches; -1 when none
	notice    string
}

// newRawView returns a raw view of data, a document already fetched. Only
// the first 64 MiB are kept; the view says so when it cut. Init returns the
// command that indexes the lines.
func newRawView(c *Common, title string, data []byte) rawView {
	size := int64(len(data))
	truncated := false
	if len(data) > rawMaxBytes {
		data, truncated = data[:rawMaxBytes], true
	}
	v := newRawViewBase(c, title)
	text := &rawText{data: data, truncated: truncated, size: size}
	v.load = indexRawCmd(v.session, text)
	return v
}

// newRawViewReader returns a raw view that reads its text from r (closed
// afterwards when it is an io.Closer), keeping at most 64 MiB. size is the
// document's size when known, else -1.
func newRawViewReader(c *Common, title string, r io.Reader, size int64) rawView {
	v := newRawViewBase(c, title)
	ctx, cancel := context.WithCancel(context.Background())
	v.session.cancel = cancel
	v.load = readRawCmd(ctx, v.session, r, size)
	return v
}

func newRawViewBase(c *Common, title string) rawView {
	return rawView{
		c:       c,
		keys:    defaultInspectKeys(),
		title:   title,
		session: &rawSession{},
		target:  -1,
		current: -1,
	}
}

// Init returns the command that loads and indexes the text.
func (v rawView) Init() tea.Cmd { return v.load }

// Close stops a load in progress.
func (v rawView) Close() {
	if v.session != nil && v.session.cancel != nil {
		v.session.cancel()
	}
}

// InputActive reports whether the view is reading a line of input (search,
// line number): the root model must then pass every key to it.
func (v rawView) InputActive() bool { return v.input.active }

// Loaded reports whether the text is there.
func (v rawView) Loaded() bool { return v.text != nil }

// SetSize sets the size the view draws in.
func (v *rawView) SetSize(w, h int) {
	v.width, v.height = w, h
	v.top = v.clampTop(v.top)
	v.colourVisible()
}

// GotoLine scrolls to line (1-based) and marks it.
func (v *rawView) GotoLine(line int) {
	if v.text == nil {
		v.target = line - 1
		return
	}
	line = ivClamp(line-1, 0, len(v.text.lines)-1)
	v.target = line
	v.top = v.clampTop(line - v.bodyHeight()/3)
	v.xoff = 0
	v.colourVisible()
}

// KeyBindings are the view's own bindings, for the help screen.
func (v rawView) KeyBindings() []key.Binding {
	k := ivKeys(v.c)
	search := key.NewBinding(key.WithKeys(k.Filter.Keys()...), key.WithHelp(k.Filter.Help().Key, "search"))
	line := key.NewBinding(key.WithKeys(k.JumpTo.Keys()...), key.WithHelp(k.JumpTo.Help().Key, "go to line"))
	return []key.Binding{search, v.keys.NextMatch, v.keys.PrevMatch, line, k.Left, k.Right}
}

func (v rawView) bodyHeight() int { return max(v.height-2, 1) }

func (v rawView) lineCount() int {
	if v.text == nil {
		return 0
	}
	return len(v.text.lines)
}

func (v rawView) clampTop(top int) int {
	return ivClamp(top, 0, v.lineCount()-v.bodyHeight())
}

// Update handles keys, mouse wheel and the view's own results.
func (v rawView) Update(msg tea.Msg) (rawView, tea.Cmd) {
	switch msg := msg.(type) {
	case rawLoadedMsg:
		if msg.session != v.session {
			return v, nil
		}
		v.text, v.err = msg.text, msg.err
		if v.text != nil && v.target >= 0 {
			v.GotoLine(v.target + 1)
		}
		v.colourVisible()
		return v, nil
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
			from = int(v.text.lines[v.top])
		}
		v.current = sort.SearchInts(v.matches, from) % len(v.matches)
		v.showMatch()
		return v, nil
	case showRawLineMsg:
		v.GotoLine(msg.Line)
		return v, nil
	case tea.PasteMsg:
		if v.input.active {
			v.input.update(msg)
		}
		return v, nil
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			v.scroll(-rawWheelLines)
		case tea.MouseWheelDown:
			v.scroll(rawWheelLines)
		case tea.MouseWheelLeft:
			v.xoff = max(v.xoff-rawSideStep, 0)
		case tea.MouseWheelRight:
			v.xoff += rawSideStep
		}
		return v, nil
	case tea.KeyPressMsg:
		if v.input.active {
			return v.updateInput(msg)
		}
		return v.updateKey(msg)
	}
	return v, nil
}

func (v rawView) updateInput(msg tea.KeyPressMsg) (rawView, tea.Cmd) {
	switch v.input.update(msg) {
	case ivCancelled:
		v.inputMode = rawInputNone
	case ivSubmitted:
		mode := v.inputMode
		v.inputMode = rawInputNone
		value := strings.TrimSpace(v.input.String())
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
				return v, nil
			}
			v.GotoLine(n)
		}
	}
	return v, nil
}

func (v rawView) updateKey(msg tea.KeyPressMsg) (rawView, tea.Cmd) {
	k := ivKeys(v.c)
	page := v.bodyHeight()
	switch {
	case key.Matches(msg, k.Down):
		v.scroll(1)
	case key.Matches(msg, k.Up):
		v.scroll(-1)
	case key.Matches(msg, k.PageDown):
		v.scroll(page)
	case key.Matches(msg, k.PageUp):
		v.scroll(-page)
	case key.Matches(msg, k.HalfDown):
		v.scroll(page / 2)
	case key.Matches(msg, k.HalfUp):
		v.scroll(-page / 2)
	case key.Matches(msg, k.Top):
		v.top = 0
		v.colourVisible()
	case key.Matches(msg, k.Bottom):
		v.top = v.clampTop(v.lineCount())
		v.colourVisible()
	case key.Matches(msg, k.Left):
		v.xoff = max(v.xoff-rawSideStep, 0)
	case key.Matches(msg, k.Right):
		v.xoff += rawSideStep
	case key.Matches(msg, k.Filter):
		v.inputMode = rawInputSearch
		v.input.start("/", "")
		v.notice = ""
	case key.Matches(msg, k.JumpTo):
		v.inputMode = rawInputLine
		v.input.start("line: ", "")
		v.notice = ""
	case key.Matches(msg, v.keys.NextMatch):
		v.stepMatch(1)
	case key.Matches(msg, v.keys.PrevMatch):
		v.stepMatch(-1)
	}
	return v, nil
}

func (v *rawView) scroll(n int) {
	v.top = v.clampTop(v.top + n)
	v.colourVisible()
}

func (v rawView) startSearch(query string) (rawView, tea.Cmd) {
	v.query = query
	v.searchGen++
	v.matches, v.current, v.capped = nil, -1, false
	v.notice = ""
	if query == "" || v.text == nil {
		v.searching = false
		return v, nil
	}
	v.searching = true
	return v, searchRawCmd(v.session, v.searchGen, v.text.data, query)
}

func (v *rawView) stepMatch(d int) {
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
func (v *rawView) showMatch() {
	if v.text == nil || v.current < 0 {
		return
	}
	off := v.matches[v.current]
	line := v.lineOf(off)
	body := v.bodyHeight()
	if line < v.top || line >= v.top+body {
		v.top = v.clampTop(line - body/3)
	}
	col := off - int(v.text.lines[line])
	cw := v.contentWidth()
	if col < v.xoff || col+len(v.query) > v.xoff+cw {
		v.xoff = max(col-cw/3, 0)
	}
	v.colourVisible()
}

// lineOf returns the 0-based line holding byte offset off.
func (v rawView) lineOf(off int) int {
	lines := v.text.lines
	i := sort.Search(len(lines), func(i int) bool { return int(lines[i]) > off })
	return max(i-1, 0)
}

// lineBounds returns the byte range of line i without its line ending.
func (t *rawText) lineBounds(i int) (int, int) {
	start := int(t.lines[i])
	end := len(t.data)
	if i+1 < len(t.lines) {
		end = int(t.lines[i+1]) - 1
	} else if end > start && t.data[end-1] == '\n' {
		end--
	}
	if end > start && t.data[end-1] == '\r' {
		end--
	}
	return start, end
}

func (v rawView) gutterWidth() int {
	return len(strconv.Itoa(max(v.lineCount(), 1))) + 3
}

func (v rawView) contentWidth() int { return max(v.width-v.gutterWidth(), 1) }

// colourVisible makes sure the chunks on screen are coloured.
func (v *rawView) colourVisible() {
	if v.text == nil || v.session == nil {
		return
	}
	first := v.top / rawChunkLines
	last := min(v.top+v.bodyHeight(), len(v.text.lines)-1) / rawChunkLines
	for c := first; c <= last; c++ {
		v.session.hl.chunk(v.text, c)
	}
}

// View draws the header, the visible lines and the footer.
func (v rawView) View() string {
	st := ivStyles(v.c)
	w := max(v.width, 1)
	var b strings.Builder
	b.WriteString(v.header(st, w))
	body := v.bodyHeight()
	switch {
	case v.err != nil:
		b.WriteString("\n" + ivFit(st.Error.Render("cannot show the XML: "+ivSanitize(v.err.Error())), w))
		body--
	case v.text == nil:
		b.WriteString("\n" + st.Dim.Render("loading…"))
		body--
	default:
		cw := v.contentWidth()
		gw := v.gutterWidth() - 3
		n := min(body, len(v.text.lines)-v.top)
		for i := v.top; i < v.top+n; i++ {
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

func (v rawView) header(st viewStyles, w int) string {
	parts := []string{st.Title.Render("Raw XML")}
	if t := v.text; t != nil {
		info := fmt.Sprintf("%d lines · %s", len(t.lines), fetch.FormatSize(int64(len(t.data))))
		parts = append(parts, st.Dim.Render(info))
		if t.truncated {
			of := "a longer document"
			if t.size > 0 {
				of = fetch.FormatSize(t.size)
			}
			parts = append(parts, st.Warning.Render("showing the first "+fetch.FormatSize(rawMaxBytes)+" of "+of))
		}
	}
	if v.title != "" {
		parts = append(parts, st.URL.Render(ivSanitize(v.title)))
	}
	return ivFit(strings.Join(parts, "  "), w)
}

func (v rawView) footer(st viewStyles, w int) string {
	if v.input.active {
		return v.input.view(st, w)
	}
	var left string
	switch {
	case v.notice != "":
		left = st.Warning.Render(ivSanitize(v.notice))
	case v.searching:
		left = st.Dim.Render(fmt.Sprintf("searching %q…", v.query))
	case v.query != "" && len(v.matches) > 0:
		more := ""
		if v.capped {
			more = "+"
		}
		left = st.Flash.Render(fmt.Sprintf("%q %d/%d%s", v.query, v.current+1, len(v.matches), more)) +
			st.Dim.Render("  n/N next/previous")
	default:
		left = st.Dim.Render("/ search  # line  ←/→ scroll sideways")
	}
	right := ""
	if n := v.lineCount(); n > 0 {
		right = fmt.Sprintf("line %d–%d of %d", v.top+1, min(v.top+v.bodyHeight(), n), n)
		if v.xoff > 0 {
			right += fmt.Sprintf("  col +%d", v.xoff)
		}
	}
	gap := w - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		return ivFit(left, w)
	}
	return left + strings.Repeat(" ", gap) + st.Dim.Render(right)
}

// rawClass is a syntax class of the raw view.
type rawClass uint8

const (
	rawClassText rawClass = iota
	rawClassTag
	rawClassAttr
	rawClassValue
	rawClassComment
	rawClassPreproc
	rawClassEntity
)

// rawSpan colours bytes [start, end) of a line.
type rawSpan struct {
	start, end int32
	class      rawClass
}

func classStyle(st viewStyles, c rawClass) lipgloss.Style {
	switch c {
	case rawClassTag:
		return st.XMLTag
	case rawClassAttr:
		return st.XMLAttr
	case rawClassValue:
		return st.XMLValue
	case rawClassComment:
		return st.XMLComment
	case rawClassPreproc:
		return st.XMLPreproc
	case rawClassEntity:
		return st.XMLEntity
	}
	return st.XMLText
}

// renderLine draws the visible part of line i in cw cells.
func (v rawView) renderLine(st viewStyles, i, cw int) string {
	t := v.text
	start, end := t.lineBounds(i)
	line := t.data[start:end]
	from := min(v.xoff, len(line))
	for from < len(line) && from > 0 && !utf8.RuneStart(line[from]) {
		from++
	}
	// Bytes that can fill cw cells: a cell takes at most 4 bytes (tabs expand).
	to := min(len(line), from+4*cw)

	spans := v.session.hl.lineSpans(t, i)
	if to > rawLexLineBytes && to > from {
		spans = lexSegment(&v.session.hl, line[from:to], from)
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
		case r == utf8.RuneError && n == 1:
			text = "�"
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			text = "·"
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

const styleMatch = 100 // styleByIndex: 100 a match, 101 the current match

func styleByIndex(st viewStyles, i int) lipgloss.Style {
	switch i {
	case styleMatch:
		return st.Match
	case styleMatch + 1:
		return st.MatchCurrent
	}
	return classStyle(st, rawClass(i))
}

// rawHighlighter colours chunks of lines with chroma's XML lexer and keeps
// the latest rawCacheChunks of them.
type rawHighlighter struct {
	lexer  chroma.Lexer
	chunks map[int][][]rawSpan
	order  []int
}

func (h *rawHighlighter) xmlLexer() chroma.Lexer {
	if h.lexer == nil {
		h.lexer = newXMLLexer()
	}
	return h.lexer
}

// lineSpans returns the colours of line i (nil when not coloured yet).
func (h *rawHighlighter) lineSpans(t *rawText, i int) []rawSpan {
	spans := h.chunks[i/rawChunkLines]
	if j := i % rawChunkLines; j < len(spans) {
		return spans[j]
	}
	return nil
}

// chunk colours chunk c of t unless it is cached. A chunk is lexed as one
// text so that a tag or comment spanning lines is coloured right; each line
// contributes at most rawLexLineBytes bytes.
func (h *rawHighlighter) chunk(t *rawText, c int) {
	if _, ok := h.chunks[c]; ok {
		return
	}
	if h.chunks == nil {
		h.chunks = make(map[int][][]rawSpan)
	}
	first := c * rawChunkLines
	last := min(first+rawChunkLines, len(t.lines))
	if first >= last {
		return
	}
	var text strings.Builder
	starts := make([]int, 0, last-first)
	for i := first; i < last; i++ {
		s, e := t.lineBounds(i)
		if e-s > rawLexLineBytes {
			e = s + rawLexLineBytes
		}
		starts = append(starts, text.Len())
		text.Write(t.data[s:e])
		text.WriteByte('\n')
	}
	spans := make([][]rawSpan, last-first)
	h.lex(text.String(), func(pos, end int, class rawClass) {
		// Split the token at line ends.
		li := sort.Search(len(starts), func(k int) bool { return starts[k] > pos }) - 1
		for pos < end && li >= 0 && li < len(starts) {
			lineEnd := text.Len()
			if li+1 < len(starts) {
				lineEnd = starts[li+1] - 1
			}
			e := min(end, lineEnd)
			if e > pos && class != rawClassText {
				spans[li] = append(spans[li], rawSpan{int32(pos - starts[li]), int32(e - starts[li]), class})
			}
			pos = max(e, lineEnd+1)
			li++
		}
	})
	h.chunks[c] = spans
	h.order = append(h.order, c)
	if len(h.order) > rawCacheChunks {
		delete(h.chunks, h.order[0])
		h.order = h.order[1:]
	}
}

// lexSegment colours a segment of one long line, starting at byte offset
// base of the line, lexed on its own.
func lexSegment(h *rawHighlighter, seg []byte, base int) []rawSpan {
	var spans []rawSpan
	h.lex(string(seg), func(pos, end int, class rawClass) {
		if class != rawClassText {
			spans = append(spans, rawSpan{int32(base + pos), int32(base + end), class})
		}
	})
	return spans
}

// lex tokenises text and reports each token's byte range and class. Chroma
// reports lexer failures by panicking inside its iterator: the text is then
// left uncoloured.
func (h *rawHighlighter) lex(text string, emit func(pos, end int, class rawClass)) {
	lexer := h.xmlLexer()
	if lexer == nil {
		return
	}
	defer func() { _ = recover() }()
	it, err := lexer.Tokenise(&chroma.TokeniseOptions{State: "root"}, text)
	if err != nil {
		return
	}
	pos := 0
	for tok := it(); tok != chroma.EOF; tok = it() {
		end := pos + len(tok.Value)
		emit(pos, end, classOf(tok.Type))
		pos = end
	}
}

func classOf(t chroma.TokenType) rawClass {
	switch {
	case t == chroma.NameTag:
		return rawClassTag
	case t == chroma.NameAttribute:
		return rawClassAttr
	case t == chroma.NameEntity:
		return rawClassEntity
	case t == chroma.CommentPreproc:
		return rawClassPreproc
	case t.InCategory(chroma.Comment):
		return rawClassComment
	case t.InCategory(chroma.LiteralString):
		return rawClassValue
	}
	return rawClassText
}
