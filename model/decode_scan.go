package model

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf8"
)

// The lexical layer: markup items scanned in place in the window — start and
// end tags, text runs, comments, CDATA sections, processing instructions,
// DOCTYPE — and the byte classes they are scanned with.

// consume advances pos to i, counting lines and feeding a capture's inner XML.
func (d *Decoder) consume(i int) {
	if d.capInnerOpen() {
		seg := d.buf[d.pos:i]
		if room := decMaxInner - len(d.capInner); room > 0 {
			if len(seg) > room {
				seg = seg[:room]
			}
			d.capInner = append(d.capInner, seg...)
		}
	}
	d.pos = i
}

// capInnerOpen reports whether consumed bytes are inside the captured element
// (the element's own start and end tags are not).
func (d *Decoder) capInnerOpen() bool {
	return d.capDepth >= 0 && len(d.stack) > d.capDepth
}

func decIsSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

func isAllSpace(b []byte) bool {
	for _, c := range b {
		if !decIsSpace(c) {
			return false
		}
	}
	return true
}

// textRun handles character data up to the next '<' (or the end of the window).
func (d *Decoder) textRun() error {
	b := d.buf[d.pos:d.end]
	n := bytes.IndexByte(b, '<')
	if n < 0 {
		n = len(b)
	}
	seg := b[:n]
	switch d.state {
	case stProlog, stEpilog:
		if !isAllSpace(seg) {
			i := 0
			for i < len(seg) && decIsSpace(seg[i]) {
				i++
			}
			if n == len(b) && len(seg)-i < 24 && !d.srcEOF {
				return d.needMore() // the message quotes 24 bytes
			}
			line := d.lineAt(d.pos + i)
			if d.state == stProlog {
				return d.syntaxErr(line, "not an XML document: text %q before the root element", clip(seg[i:], 24))
			}
			return d.syntaxErr(line, "text %q after the end of the root element", clip(seg[i:], 24))
		}
	default:
		top := &d.stack[len(d.stack)-1]
		switch top.kind {
		case kLoc, kLastmod, kChangefreq, kCapture:
			tgt := d.textTarget()
			if len(*tgt)-d.textStart+len(d.rawText)+len(seg) > d.maxToken {
				return d.syntaxErr(d.curLine(), "text of <%s> exceeds %d bytes", d.names[top.qname], d.maxToken)
			}
			if n < len(b) && len(d.rawText) == 0 {
				// The run is whole: decode it in place.
				var err error
				if *tgt, err = d.appendDecoded(*tgt, seg, false, -1); err != nil {
					return err
				}
			} else {
				// A run cut by the window's end: decoded when it ends (at
				// the next markup), so that its errors come at the same
				// point and line as for a run read whole.
				if len(d.rawText) == 0 {
					d.rawLine = d.curLine()
				}
				d.rawText = append(d.rawText, seg...)
			}
		}
	}
	d.consume(d.pos + n)
	return nil
}

// textTarget returns the buffer the collecting element's text goes to.
func (d *Decoder) textTarget() *[]byte {
	if d.toEntry {
		return &d.entryText
	}
	return &d.text
}

// flushText decodes the collected raw character data into the text target.
func (d *Decoder) flushText() error {
	if len(d.rawText) == 0 {
		return nil
	}
	tgt := d.textTarget()
	var err error
	*tgt, err = d.appendDecoded(*tgt, d.rawText, false, d.rawLine)
	d.rawText = d.rawText[:0]
	return err
}

// markup dispatches on the item at pos (buf[pos] == '<').
func (d *Decoder) markup() error {
	if len(d.rawText) != 0 {
		if err := d.flushText(); err != nil {
			return err
		}
	}
	b := d.buf[d.pos:d.end]
	if len(b) < 2 {
		return d.needMore()
	}
	switch b[1] {
	case '/':
		return d.endTag()
	case '?':
		return d.procInst()
	case '!':
		return d.bang()
	}
	return d.startTag()
}

func (d *Decoder) needMore() error {
	if d.srcEOF && d.readErr == nil {
		return d.syntaxErr(d.curLine(), "unexpected end of input inside %s", d.describeItem())
	}
	return errNeedMore
}

func (d *Decoder) procInst() error {
	b := d.buf[d.pos:d.end]
	i := bytes.Index(b[2:], []byte("?>"))
	if i < 0 {
		if len(b) > d.maxToken {
			return d.syntaxErr(d.curLine(), "processing instruction exceeds %d bytes", d.maxToken)
		}
		return d.needMore()
	}
	d.consume(d.pos + 2 + i + 2)
	return nil
}

func (d *Decoder) bang() error {
	b := d.buf[d.pos:d.end]
	switch {
	case len(b) >= 4 && string(b[:4]) == "<!--":
		i := bytes.Index(b[4:], []byte("-->"))
		if i < 0 {
			if len(b) > d.maxToken {
				return d.syntaxErr(d.curLine(), "comment exceeds %d bytes", d.maxToken)
			}
			return d.needMore()
		}
		d.consume(d.pos + 4 + i + 3)
		return nil
	case len(b) >= 9 && string(b[:9]) == "<![CDATA[":
		i := bytes.Index(b[9:], []byte("]]>"))
		if i < 0 {
			if len(b) > d.maxToken {
				return d.syntaxErr(d.curLine(), "CDATA section exceeds %d bytes", d.maxToken)
			}
			return d.needMore()
		}
		if d.state != stRoot {
			return d.syntaxErr(d.curLine(), "CDATA section outside the root element")
		}
		switch top := &d.stack[len(d.stack)-1]; top.kind {
		case kLoc, kLastmod, kChangefreq, kCapture:
			if err := d.flushText(); err != nil {
				return err
			}
			content := b[9 : 9+i]
			tgt := d.textTarget()
			if len(*tgt)-d.textStart+len(content) > d.maxToken {
				return d.syntaxErr(d.curLine(), "text of <%s> exceeds %d bytes", d.names[top.qname], d.maxToken)
			}
			if !utf8.Valid(content) {
				return d.syntaxErr(d.curLine(), "invalid UTF-8 in a CDATA section")
			}
			*tgt = append(*tgt, content...)
		}
		d.consume(d.pos + 9 + i + 3)
		return nil
	case len(b) >= 9 && strings.EqualFold(string(b[:9]), "<!DOCTYPE"):
		return d.doctype()
	case len(b) < 9 && (bytes.HasPrefix([]byte("<![CDATA["), b) || bytes.HasPrefix([]byte("<!DOCTYPE"), bytes.ToUpper(b)) || bytes.HasPrefix([]byte("<!--"), b)):
		return d.needMore()
	}
	if len(b) < 12 && !d.srcEOF {
		return d.needMore() // the message quotes 12 bytes
	}
	return d.syntaxErr(d.curLine(), "invalid markup %q", clip(b, 12))
}

func clip(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

// doctype skips a document type declaration. Entity declarations are refused: the
// decoder expands only the five predefined entities and character references.
func (d *Decoder) doctype() error {
	if d.state != stProlog {
		return d.syntaxErr(d.curLine(), "DOCTYPE declaration after the root element started")
	}
	b := d.buf[d.pos:d.end]
	var quote byte
	depth := 0
	for i := 9; i < len(b); i++ {
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
		case c == '<' && depth > 0 && bytes.HasPrefix(b[i:], []byte("<!ENTITY")):
			return d.syntaxErr(d.lineAt(d.pos+i), "DOCTYPE declares entities; entity declarations are not supported (possible entity-expansion attack)")
		case c == '>' && depth <= 0:
			d.consume(d.pos + i + 1)
			return nil
		}
	}
	if len(b) > d.maxToken {
		return d.syntaxErr(d.curLine(), "DOCTYPE declaration exceeds %d bytes", d.maxToken)
	}
	return d.needMore()
}

// attrSpecial marks the bytes of an attribute value that need a closer look:
// control characters, '&', '<' and the bytes of non-ASCII characters.
const attrSpecial = "" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01"

// anySpecial reports whether b (at most 8 bytes) may hold a byte that attrSpecial
// marks, testing 8 bytes at once; a true answer can be wrong, a false one cannot.
func anySpecial(b []byte) bool {
	if len(b) < 8 {
		for _, c := range b {
			if attrSpecial[c] != 0 {
				return true
			}
		}
		return false
	}
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	w := binary.LittleEndian.Uint64(b)
	amp, lt := w^(lo*'&'), w^(lo*'<')
	return (w|(w-lo*0x20)&^w|(amp-lo)&^amp|(lt-lo)&^lt)&hi != 0
}

// nameChars marks the bytes that can be part of an XML name (bytes >= 0x80 are
// accepted as parts of non-ASCII name characters).
const nameChars = "" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x01\x00\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x00\x00\x00\x00\x00" +
	"\x00\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x00\x00\x00\x00\x01" +
	"\x00\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x00\x00\x00\x00\x00" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01"

// nameByte reports whether c can be part of an XML name.
func nameByte(c byte) bool { return nameChars[c] != 0 }

func nameStartByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

// scanName scans a name starting at b[i]; it returns the index after it and the
// index of its first colon (-1 if none).
func scanName(b []byte, i int) (int, int) {
	colon := -1
	for ; i < len(b); i++ {
		c := b[i]
		if !nameByte(c) {
			break
		}
		if c == ':' && colon < 0 {
			colon = i
		}
	}
	return i, colon
}

// nameOK validates a scanned qualified name b[start:end].
func nameOK(b []byte, start, end, colon int) bool {
	if start == end || !nameStartByte(b[start]) {
		return false
	}
	if colon >= 0 && (colon == start || colon == end-1 || !nameStartByte(b[colon+1]) || bytes.IndexByte(b[colon+1:end], ':') >= 0) {
		return false
	}
	return nameRunesOK(b[start:end])
}

// nameErr reports an invalid name b[start:end] found in what.
func (d *Decoder) nameErr(b []byte, start, end int, what string) error {
	if start == end {
		return d.syntaxErr(d.lineAt(d.pos+start), "expected a name in %s, found %q", what, clip(b[start:], 1))
	}
	if r, bad := badNameRune(b[start:end]); bad {
		if r == utf8.RuneError {
			return d.syntaxErr(d.lineAt(d.pos+start), "invalid name %q in %s: not UTF-8", b[start:end], what)
		}
		return d.syntaxErr(d.lineAt(d.pos+start), "invalid name %q in %s: character %U is not allowed in an XML name (inside a tag XML allows only space, tab, CR and LF between names)",
			b[start:end], what, r)
	}
	return d.syntaxErr(d.lineAt(d.pos+start), "invalid name %q in %s", b[start:end], what)
}

// startTag scans a start tag; the whole tag must be in the window.
func (d *Decoder) startTag() error {
	b := d.buf[d.pos:d.end]
	i, colon := scanName(b, 1)
	if i == len(b) {
		if i > d.maxToken {
			return d.syntaxErr(d.curLine(), "element name exceeds %d bytes", d.maxToken)
		}
		return d.needMore()
	}
	nameEnd := i
	if !nameOK(b, 1, nameEnd, colon) {
		if d.state == stProlog && i == 1 {
			return d.syntaxErr(d.curLine(), "not an XML document: invalid character %q after '<'", clip(b[1:], 1))
		}
		return d.nameErr(b, 1, nameEnd, "a start tag")
	}
	if d.state == stEpilog {
		return d.syntaxErr(d.curLine(), "second root element <%s> after the end of the first", b[1:nameEnd])
	}
	attrs := d.attrs[:0]
	selfClose := false
	for {
		ws := i
		for i < len(b) && decIsSpace(b[i]) {
			i++
		}
		if i == len(b) {
			d.attrs = attrs
			return d.needMore()
		}
		c := b[i]
		if c == '>' {
			i++
			break
		}
		if c == '/' {
			if i+1 == len(b) {
				d.attrs = attrs
				return d.needMore()
			}
			if b[i+1] != '>' {
				return d.tagErr(b, nameEnd, d.syntaxErr(d.lineAt(d.pos+i), "expected '>' after '/' in <%s>", b[1:nameEnd]))
			}
			selfClose = true
			i += 2
			break
		}
		if i == ws {
			return d.tagErr(b, nameEnd, d.syntaxErr(d.lineAt(d.pos+i), "expected whitespace, '>' or '/>' in <%s>, found %q", b[1:nameEnd], clip(b[i:], 1)))
		}
		a := rawAttr{name: i}
		i, a.colon = scanName(b, i)
		a.nameEnd = i
		if i == len(b) {
			if i-a.name > d.maxToken {
				return d.syntaxErr(d.curLine(), "attribute name exceeds %d bytes", d.maxToken)
			}
			d.attrs = attrs
			return d.needMore()
		}
		if !nameOK(b, a.name, a.nameEnd, a.colon) {
			return d.tagErr(b, nameEnd, d.nameErr(b, a.name, a.nameEnd, "an attribute of <"+string(b[1:nameEnd])+">"))
		}
		for i < len(b) && decIsSpace(b[i]) {
			i++
		}
		if i < len(b) && b[i] != '=' {
			return d.tagErr(b, nameEnd, d.syntaxErr(d.lineAt(d.pos+i), "attribute %s of <%s> has no value", b[a.name:a.nameEnd], b[1:nameEnd]))
		}
		i++
		for i < len(b) && decIsSpace(b[i]) {
			i++
		}
		if i >= len(b) {
			d.attrs = attrs
			return d.needMore()
		}
		q := b[i]
		if q != '"' && q != '\'' {
			return d.tagErr(b, nameEnd, d.syntaxErr(d.lineAt(d.pos+i), "value of attribute %s of <%s> is not quoted", b[a.name:a.nameEnd], b[1:nameEnd]))
		}
		i++
		a.val = i
		j := bytes.IndexByte(b[i:], q)
		if j < 0 {
			if len(b)-i > d.maxToken {
				return d.syntaxErr(d.curLine(), "attribute value exceeds %d bytes (attribute %s of <%s>)", d.maxToken, b[a.name:a.nameEnd], b[1:nameEnd])
			}
			d.attrs = attrs
			return d.needMore()
		}
		if j > d.maxToken {
			return d.syntaxErr(d.curLine(), "attribute value exceeds %d bytes (attribute %s of <%s>)", d.maxToken, b[a.name:a.nameEnd], b[1:nameEnd])
		}
		a.valEnd = i + j
		for k := a.val; k < a.valEnd; k += 8 {
			chunk := b[k:min(k+8, a.valEnd)]
			if !anySpecial(chunk) {
				continue
			}
			for m, c := range chunk {
				if attrSpecial[c] == 0 {
					continue
				}
				switch {
				case c == '&':
					a.flags |= attrAmp
				case c == '\t' || c == '\n' || c == '\r':
					a.flags |= attrWS
				case c >= 0x80:
					a.flags |= attrNonASCII
				case c == '<':
					return d.syntaxErr(d.lineAt(d.pos+k+m), "'<' in the value of attribute %s of <%s>", b[a.name:a.nameEnd], b[1:nameEnd])
				default:
					return d.syntaxErr(d.lineAt(d.pos+k+m), "invalid character U+%04X in the value of attribute %s of <%s>", c, b[a.name:a.nameEnd], b[1:nameEnd])
				}
			}
		}
		i = a.valEnd + 1
		for _, o := range attrs {
			if bytes.Equal(b[o.name:o.nameEnd], b[a.name:a.nameEnd]) {
				return d.syntaxErr(d.lineAt(d.pos+a.name), "attribute %s repeated in <%s>", b[a.name:a.nameEnd], b[1:nameEnd])
			}
		}
		if len(attrs) == decMaxAttrs {
			return d.syntaxErr(d.curLine(), "more than %d attributes in <%s>", decMaxAttrs, b[1:nameEnd])
		}
		attrs = append(attrs, a)
	}
	d.attrs = attrs
	return d.element(b, nameEnd, colon, i, selfClose)
}

// tagErr turns a malformed root start tag of something that is not a Sitemap (an
// HTML page, say) into an unknown root instead of an error.
func (d *Decoder) tagErr(b []byte, nameEnd int, err error) error {
	if d.state != stProlog {
		return err
	}
	name := b[1:nameEnd]
	if k := bytes.LastIndexByte(name, ':'); k >= 0 {
		name = name[k+1:]
	}
	if string(name) == "urlset" || string(name) == "sitemapindex" {
		return err
	}
	d.hdr.Root = RootUnknown
	d.hdr.RootLocal = string(name)
	d.state = stDone
	return nil
}

// endTag scans and processes an end tag.
func (d *Decoder) endTag() error {
	b := d.buf[d.pos:d.end]
	i, colon := scanName(b, 2)
	if i == len(b) {
		if i > d.maxToken {
			return d.syntaxErr(d.curLine(), "element name exceeds %d bytes", d.maxToken)
		}
		return d.needMore()
	}
	name := b[2:i]
	// A name equal to the open element's was checked in its start tag.
	if len(d.stack) == 0 || d.names[d.stack[len(d.stack)-1].qname] != string(name) {
		if !nameOK(b, 2, i, colon) {
			return d.nameErr(b, 2, i, "an end tag")
		}
	}
	for i < len(b) && decIsSpace(b[i]) {
		i++
	}
	if i == len(b) {
		return d.needMore()
	}
	if b[i] != '>' {
		return d.syntaxErr(d.lineAt(d.pos+i), "expected '>' to end </%s>", name)
	}
	if len(d.stack) == 0 {
		return d.syntaxErr(d.curLine(), "end tag </%s> without a matching start tag", name)
	}
	top := d.stack[len(d.stack)-1]
	if d.names[top.qname] != string(name) {
		return d.syntaxErr(d.curLine(), "end tag </%s> does not match <%s> %s", name, d.names[top.qname], d.openedOn(len(d.stack)-1))
	}
	if d.capDepth >= 0 && len(d.stack)-1 == d.capDepth {
		// The end tag of the captured element is not part of its inner XML.
		d.pos += i + 1
	} else {
		d.consume(d.pos + i + 1)
	}
	return d.closeElement()
}
