package pages

import (
	"bytes"
	"sort"

	tea "charm.land/bubbletea/v2"
)

// The raw page's pretty-printed view: the XML as received, one element per
// line, indented by depth, an element holding only text kept on one line.
// Every line of it remembers the byte offset in the text as received where
// its first token starts, so that a place (a problem's entry, a search
// match, the top of the screen) is the same in both views, and a document
// written on one long line can be read and still located by offset.

// prettyIndent is one level of indentation.
const prettyIndent = "  "

// prettyMaxBytes bounds the pretty-printed text: indentation makes it longer
// than the text as received.
const prettyMaxBytes = 2 * rawMaxBytes

// prettyText is a pretty-printed text and where its lines come from.
type prettyText struct {
	text *rawText
	src  []int // offset in the text as received of each line's first token
}

// rawPrettyMsg carries the pretty-printed text of a raw page.
type rawPrettyMsg struct {
	session *rawSession
	pretty  *prettyText
}

// prettyRawCmd pretty-prints t in the background.
func prettyRawCmd(s *rawSession, t *rawText) tea.Cmd {
	return func() tea.Msg {
		return rawPrettyMsg{session: s, pretty: prettyXML(t.data)}
	}
}

// lineAt is the line of the pretty text that shows offset off of the text
// as received: the last line starting at or before it.
func (p *prettyText) lineAt(off int) int {
	i := sort.Search(len(p.src), func(i int) bool { return p.src[i] > off })
	return max(i-1, 0)
}

// xmlTokKind is the kind of an XML token.
type xmlTokKind uint8

const (
	tokText   xmlTokKind = iota
	tokStart             // <a …>
	tokEnd               // </a>
	tokEmpty             // <a …/>
	tokOther             // <?…?>, <!--…-->, <![CDATA[…]]>, <!DOCTYPE …>
	tokBroken            // a '<' whose markup never ends: the rest of the text
)

// xmlTok is one token: its kind and byte range.
type xmlTok struct {
	kind       xmlTokKind
	start, end int
}

// xmlScanner cuts XML into tokens without checking it: broken markup ends
// as a tokBroken token, so that any text can be shown.
type xmlScanner struct {
	data []byte
	pos  int
}

// next returns the next token; ok is false at the end of the text.
func (s *xmlScanner) next() (xmlTok, bool) {
	d, p := s.data, s.pos
	if p >= len(d) {
		return xmlTok{}, false
	}
	if d[p] != '<' {
		end := bytes.IndexByte(d[p:], '<')
		if end < 0 {
			end = len(d) - p
		}
		s.pos = p + end
		return xmlTok{kind: tokText, start: p, end: s.pos}, true
	}
	end, kind := -1, tokOther
	rest := d[p:]
	switch {
	case bytes.HasPrefix(rest, []byte("<?")):
		end = indexAfter(rest, "?>")
	case bytes.HasPrefix(rest, []byte("<!--")):
		end = indexAfter(rest, "-->")
	case bytes.HasPrefix(rest, []byte("<![CDATA[")):
		end = indexAfter(rest, "]]>")
	case bytes.HasPrefix(rest, []byte("<!")):
		end = doctypeEnd(rest)
	default:
		end = tagEnd(rest)
		switch {
		case end < 0:
		case len(rest) > 1 && rest[1] == '/':
			kind = tokEnd
		case rest[end-2] == '/':
			kind = tokEmpty
		default:
			kind = tokStart
		}
	}
	if end < 0 {
		s.pos = len(d)
		return xmlTok{kind: tokBroken, start: p, end: len(d)}, true
	}
	s.pos = p + end
	return xmlTok{kind: kind, start: p, end: s.pos}, true
}

// indexAfter is the offset just after the first sep in b, -1 without one.
func indexAfter(b []byte, sep string) int {
	i := bytes.Index(b, []byte(sep))
	if i < 0 {
		return -1
	}
	return i + len(sep)
}

// tagEnd is the offset just after the '>' that ends the tag b starts with,
// quoted attribute values skipped; -1 when it does not end.
func tagEnd(b []byte) int {
	var quote byte
	for i := 1; i < len(b); i++ {
		c := b[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return i + 1
		case c == '<':
			return -1 // a tag does not hold '<': the markup is broken here
		}
	}
	return -1
}

// doctypeEnd is the end of a <!DOCTYPE …> declaration, internal subset
// included.
func doctypeEnd(b []byte) int {
	depth := 0
	var quote byte
	for i := 2; i < len(b); i++ {
		c := b[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[':
			depth++
		case c == ']':
			depth--
		case c == '>' && depth <= 0:
			return i + 1
		}
	}
	return -1
}

// prettyXML pretty-prints data: one token per line, indented by depth, an
// element holding only text on one line; white space between elements is
// dropped and other text is trimmed. Markup is copied as it is (a tag
// written over several lines keeps them). Past prettyMaxBytes the rest is
// left out and the text is marked truncated.
func prettyXML(data []byte) *prettyText {
	out := &bytes.Buffer{}
	out.Grow(len(data) + len(data)/4)
	p := &prettyText{text: &rawText{size: -1}}
	var lines []int32
	depth := 0
	newLine := func(src int) {
		if out.Len() > 0 {
			out.WriteByte('\n')
		}
		lines = append(lines, int32(out.Len()))
		p.src = append(p.src, src)
		for range depth {
			out.WriteString(prettyIndent)
		}
	}
	// write copies markup or text; its own line ends start new lines of the
	// pretty text that point back at where they are in data.
	write := func(b []byte, at int) {
		for {
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				out.Write(bytes.TrimRight(b, "\r"))
				return
			}
			out.Write(bytes.TrimRight(b[:i], "\r"))
			at += i + 1
			b = b[i+1:]
			lines = append(lines, int32(out.Len()+1))
			p.src = append(p.src, at)
			out.WriteByte('\n')
		}
	}
	s := &xmlScanner{data: data}
	var look []xmlTok // tokens read ahead
	next := func() (xmlTok, bool) {
		if len(look) > 0 {
			t := look[0]
			look = look[1:]
			return t, true
		}
		return s.next()
	}
	peek := func(n int) (xmlTok, bool) {
		for len(look) < n {
			t, ok := s.next()
			if !ok {
				return xmlTok{}, false
			}
			look = append(look, t)
		}
		return look[n-1], true
	}
	for out.Len() < prettyMaxBytes {
		t, ok := next()
		if !ok {
			break
		}
		b := data[t.start:t.end]
		switch t.kind {
		case tokText:
			trimmed := bytes.TrimSpace(b)
			if len(trimmed) == 0 {
				continue
			}
			at := t.start + bytes.Index(b, trimmed)
			newLine(at)
			write(trimmed, at)
		case tokEnd:
			depth = max(depth-1, 0)
			newLine(t.start)
			write(b, t.start)
		case tokStart:
			newLine(t.start)
			write(b, t.start)
			// <a>text</a> and <a></a> stay on one line.
			n1, ok1 := peek(1)
			if ok1 && n1.kind == tokEnd {
				next()
				write(data[n1.start:n1.end], n1.start)
				continue
			}
			if n2, ok2 := peek(2); ok1 && ok2 && n1.kind == tokText && n2.kind == tokEnd && bytes.IndexByte(data[n1.start:n1.end], '\n') < 0 {
				next()
				next()
				write(data[n1.start:n1.end], n1.start)
				write(data[n2.start:n2.end], n2.start)
				continue
			}
			depth++
		default:
			newLine(t.start)
			write(b, t.start)
		}
	}
	if _, more := next(); more {
		p.text.truncated = true
	}
	p.text.data = out.Bytes()
	if len(lines) == 0 {
		lines = []int32{0}
		p.src = []int{0}
	}
	p.text.lines = lines
	if !p.text.truncated {
		p.text.size = int64(out.Len())
	}
	return p
}

// entryOffset is the byte offset of entry i's start tag (the i-th <url> or
// <sitemap> child of the root, 0-based, as the decoder numbers entries) in
// data; ok is false when there is none.
func entryOffset(data []byte, i int) (int, bool) {
	if i < 0 {
		return 0, false
	}
	s := &xmlScanner{data: data}
	depth, n := 0, 0
	for {
		t, ok := s.next()
		if !ok {
			return 0, false
		}
		switch t.kind {
		case tokStart, tokEmpty:
			if depth == 1 && isEntryTag(data[t.start:t.end]) {
				if n == i {
					return t.start, true
				}
				n++
			}
			if t.kind == tokStart {
				depth++
			}
		case tokEnd:
			depth--
		case tokBroken:
			return 0, false
		}
	}
}

// isEntryTag tells whether a start tag is a <url> or <sitemap> element,
// whatever its prefix.
func isEntryTag(tag []byte) bool {
	name := tag[1:]
	if i := bytes.IndexAny(name, " \t\r\n/>"); i >= 0 {
		name = name[:i]
	}
	if i := bytes.IndexByte(name, ':'); i >= 0 {
		name = name[i+1:]
	}
	return string(name) == "url" || string(name) == "sitemap"
}
