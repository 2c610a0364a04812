package pages

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"

	"rsx/ui/common"
)

// The raw page's text: the bytes and their line index, built in a tea.Cmd;
// the search over them, in a tea.Cmd too; and the syntax colours, computed
// a chunk of lines at a time as they come into view.

// rawText is a document's text once loaded: immutable, shared by copies of
// the page.
type rawText struct {
	data      []byte
	lines     []int32 // start offset of every line
	truncated bool    // data is the first rawMaxBytes of a longer document
	size      int64   // size of the whole document; -1 when unknown
}

// rawSession identifies one raw page for its asynchronous results (a late
// result for another page is dropped) and holds its colour cache.
type rawSession struct {
	cancel context.CancelFunc
	hl     rawHighlighter // colours of the text as received
	phl    rawHighlighter // colours of the pretty-printed text
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

// indexRawCmd indexes the lines of an already fetched text.
func indexRawCmd(s *rawSession, t *rawText) tea.Cmd {
	return func() tea.Msg {
		t.lines = indexLines(t.data)
		return rawLoadedMsg{session: s, text: t}
	}
}

// readRawCmd reads at most rawMaxBytes of r, closes it when it can, and
// indexes the lines.
func readRawCmd(ctx context.Context, s *rawSession, r io.Reader, size int64) tea.Cmd {
	return func() tea.Msg {
		if c, ok := r.(io.Closer); ok {
			defer c.Close()
		}
		data, truncated, err := readBounded(ctx, r, rawMaxBytes)
		if err != nil {
			return rawLoadedMsg{session: s, err: fmt.Errorf("read the document: %w", err)}
		}
		if truncated && size <= int64(len(data)) {
			size = -1
		} else if !truncated {
			size = int64(len(data))
		}
		t := &rawText{data: data, truncated: truncated, size: size}
		t.lines = indexLines(data)
		return rawLoadedMsg{session: s, text: t}
	}
}

// readBounded reads r up to limit bytes, checking ctx between reads, and
// reports whether more was left.
func readBounded(ctx context.Context, r io.Reader, limit int) ([]byte, bool, error) {
	var buf bytes.Buffer
	chunk := make([]byte, 256<<10)
	for {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		n, err := r.Read(chunk)
		if n > 0 {
			if room := limit - buf.Len(); n > room {
				buf.Write(chunk[:room])
				return buf.Bytes(), true, nil
			}
			buf.Write(chunk[:n])
		}
		if errors.Is(err, io.EOF) {
			return buf.Bytes(), false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}

// indexLines returns the start offset of every line of data. A final line
// ending does not start another line.
func indexLines(data []byte) []int32 {
	lines := make([]int32, 1, bytes.Count(data, []byte{'\n'})+1)
	for off := 0; ; {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
		if off >= len(data) {
			break
		}
		lines = append(lines, int32(off))
	}
	return lines
}

// searchRawCmd finds every occurrence of query in data: case-insensitively
// (ASCII) when query has no upper-case letter, exactly otherwise.
func searchRawCmd(s *rawSession, gen int, data []byte, query string) tea.Cmd {
	return func() tea.Msg {
		matches, capped := findAll(data, query, rawMaxMatches)
		return rawSearchMsg{session: s, gen: gen, query: query, matches: matches, capped: capped}
	}
}

// findAll returns the offsets of the non-overlapping occurrences of query in
// data, at most limit of them, and whether there were more.
func findAll(data []byte, query string, limit int) ([]int, bool) {
	if query == "" {
		return nil, false
	}
	q := []byte(query)
	fold := !bytes.ContainsFunc(q, func(r rune) bool { return r >= 'A' && r <= 'Z' })
	var out []int
	if !fold {
		for off := 0; off <= len(data)-len(q); {
			i := bytes.Index(data[off:], q)
			if i < 0 {
				break
			}
			if len(out) == limit {
				return out, true
			}
			out = append(out, off+i)
			off += i + len(q)
		}
		return out, false
	}
	// Fold a window at a time into a buffer, overlapping by len(q)-1 bytes
	// so that a match across two windows is found.
	const win = 1 << 20
	buf := make([]byte, 0, win+len(q))
	next := 0 // matches before next were already reported
	for base := 0; base < len(data); base += win {
		end := min(base+win+len(q)-1, len(data))
		buf = buf[:0]
		for _, c := range data[base:end] {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf = append(buf, c)
		}
		for off := max(next-base, 0); off <= len(buf)-len(q); {
			i := bytes.Index(buf[off:], q)
			if i < 0 {
				break
			}
			if len(out) == limit {
				return out, true
			}
			out = append(out, base+off+i)
			off += i + len(q)
			next = base + off
		}
	}
	return out, false
}

// rawClass is a syntax class of the raw page.
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

func classStyle(st *common.Styles, c rawClass) lipgloss.Style {
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

const styleMatch = 100 // styleByIndex: 100 a match, 101 the current match

func styleByIndex(st *common.Styles, i int) lipgloss.Style {
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
