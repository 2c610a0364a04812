package model

import (
	"bufio"
	"encoding/hex"
	"io"
	"strconv"
	"unicode/utf8"
)

// The Writer lays documents out as the specification's examples do: two-space
// indentation, the first attribute on the element's line and every further one on
// a line of its own, aligned under the first. Each entry is serialised into a
// scratch buffer first and copied out only when complete, so a refused value
// (a control character, invalid UTF-8) leaves the output well-formed and the
// Writer usable. Attribute values are written as held in the *Raw fields when
// set, else in canonical form from the parsed values (FormatDatetime, decimal
// length and pri, HashList.String).

// WriteError tells which value of which element could not be written.
type WriteError struct {
	Entry  int    // 0-based index of the entry among those written, -1 for the header
	Field  string // e.g. "loc", "rs:md hash", "rs:ln href"
	Reason string
}

func (e *WriteError) Error() string {
	where := "header"
	if e.Entry >= 0 {
		where = "entry " + strconv.Itoa(e.Entry)
	}
	return "write " + where + " " + e.Field + ": " + e.Reason
}

// Writer streams a document: NewWriter writes everything up to the first entry,
// WriteEntry one entry, Close the end of the root element.
type Writer struct {
	out    *bufio.Writer
	root   RootKind
	entry  string      // "url" or "sitemap"
	ns     []Namespace // bindings declared on the root element ("xml" implied)
	buf    []byte      // the element being built
	col    int         // column of the attributes of the open start tag
	nattr  int         // attributes written on the open start tag
	names  [24]string  // names of the first attributes of the open start tag
	n      int         // entries written
	err    error       // sticky I/O error
	closed bool
	elem   string // element being written, for errors
	field  string // attribute being written, "" for the element's text
	index  int    // entry being written, -1 for the header
	bad    *WriteError
}

const writerBufferSize = 64 << 10

// NewWriter starts a document with header h: the XML declaration, the root
// element (urlset or sitemapindex, per h.Root) with the Sitemap namespace as
// default, the ResourceSync namespace bound to "rs" and every other namespace of
// h.Namespaces or needed by the header's extra attributes and elements, then the
// document-level rs:ln elements, the rs:md element and the other children.
func NewWriter(w io.Writer, h *Header) (*Writer, error) {
	wr := &Writer{
		out:   bufio.NewWriterSize(w, writerBufferSize),
		buf:   make([]byte, 0, 1024),
		index: -1,
	}
	switch h.Root {
	case RootURLSet:
		wr.entry = "url"
	case RootSitemapIndex:
		wr.entry = "sitemap"
	default:
		return nil, &WriteError{Entry: -1, Field: "root", Reason: "the root must be urlset or sitemapindex"}
	}
	wr.root = h.Root
	wr.ns = append(wr.ns, Namespace{Prefix: "", URI: NSSitemap}, Namespace{Prefix: "rs", URI: NSRS})
	for _, ns := range h.Namespaces {
		wr.bindRoot(ns.Prefix, ns.URI)
	}
	// Spaces used by the header's extras are declared on the root, keeping the
	// elements themselves tidy.
	for _, a := range h.MD.Extra {
		wr.bindRoot(a.Prefix, a.Space)
	}
	for i := range h.Links {
		for _, a := range h.Links[i].Extra {
			wr.bindRoot(a.Prefix, a.Space)
		}
	}
	for i := range h.Extra {
		wr.bindRoot(h.Extra[i].Prefix, h.Extra[i].Space)
		for _, a := range h.Extra[i].Attrs {
			wr.bindRoot(a.Prefix, a.Space)
		}
	}

	b := append(wr.buf[:0], `<?xml version="1.0" encoding="UTF-8"?>`+"\n"...)
	wr.buf = b
	rootName := "urlset"
	if h.Root == RootSitemapIndex {
		rootName = "sitemapindex"
	}
	wr.open(0, rootName)
	for _, ns := range wr.ns {
		if ns.Prefix == "" {
			wr.attr("xmlns", ns.URI)
		} else {
			wr.attrQ("xmlns", ns.Prefix, ns.URI)
		}
	}
	wr.buf = append(wr.buf, ">\n"...)
	for i := range h.Links {
		wr.link(2, &h.Links[i])
	}
	if !h.MD.empty() {
		wr.metadata(2, &h.MD)
	}
	for i := range h.Extra {
		wr.element(2, &h.Extra[i])
	}
	if wr.bad != nil {
		return nil, wr.bad
	}
	if _, err := wr.out.Write(wr.buf); err != nil {
		return nil, err
	}
	return wr, nil
}

// bindRoot declares prefix for space on the root unless the space is already
// bound to a prefix or the prefix to another space.
func (w *Writer) bindRoot(prefix, space string) {
	if space == "" || space == NSXML || prefix == "xml" || prefix == "xmlns" {
		return
	}
	for _, ns := range w.ns {
		if ns.Prefix == prefix || (ns.URI == space && ns.Prefix != "") {
			return
		}
	}
	if prefix == "" || !validNCName(prefix) {
		prefix = w.freshPrefix(nil)
	}
	w.ns = append(w.ns, Namespace{Prefix: prefix, URI: space})
}

// freshPrefix returns a prefix bound neither on the root nor in local.
func (w *Writer) freshPrefix(local []Namespace) string {
	for i := 1; ; i++ {
		p := "ns" + strconv.Itoa(i)
		if !bound(w.ns, p) && !bound(local, p) {
			return p
		}
	}
}

func bound(list []Namespace, prefix string) bool {
	for _, ns := range list {
		if ns.Prefix == prefix {
			return true
		}
	}
	return false
}

// prefixFor finds the prefix to write a name of namespace space with, preferring
// want (the prefix it was read with). When the space is not bound on the root a
// declaration is added to local, to be written on the element.
func (w *Writer) prefixFor(space, want string, element bool, local *[]Namespace) string {
	switch space {
	case "":
		return ""
	case NSXML:
		return "xml"
	}
	for _, list := range [2][]Namespace{*local, w.ns} {
		for _, ns := range list {
			if ns.URI == space && ns.Prefix == want && (want != "" || element) {
				return want
			}
		}
	}
	for _, list := range [2][]Namespace{*local, w.ns} {
		for _, ns := range list {
			if ns.URI == space && (ns.Prefix != "" || element) {
				return ns.Prefix
			}
		}
	}
	p := want
	if p == "" || p == "xml" || p == "xmlns" || !validNCName(p) || bound(w.ns, p) || bound(*local, p) {
		p = w.freshPrefix(*local)
	}
	*local = append(*local, Namespace{Prefix: p, URI: space})
	return p
}

// WriteEntry writes e as a <url> (or <sitemap>) element: loc, lastmod,
// changefreq, rs:md, the rs:ln elements and the other children. A value that
// cannot be written in XML is refused with a *WriteError and nothing of the entry
// is written.
func (w *Writer) WriteEntry(e *Entry) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return &WriteError{Entry: w.n, Field: w.entry, Reason: "the writer is closed"}
	}
	w.index = w.n
	w.bad = nil
	w.buf = w.buf[:0]
	w.buf = append(w.buf, "  <"...)
	w.buf = append(w.buf, w.entry...)
	w.buf = append(w.buf, ">\n"...)
	if loc := e.loc(); loc != "" || e.HasLoc {
		w.elem, w.field = "loc", ""
		w.buf = append(w.buf, "    <loc>"...)
		w.text(loc)
		w.buf = append(w.buf, "</loc>\n"...)
	}
	if e.Lastmod.Raw != "" || !e.Lastmod.Time.IsZero() {
		w.elem, w.field = "lastmod", ""
		w.buf = append(w.buf, "    <lastmod>"...)
		w.datetime(e.Lastmod)
		w.buf = append(w.buf, "</lastmod>\n"...)
	}
	if e.Changefreq != "" {
		w.elem, w.field = "changefreq", ""
		w.buf = append(w.buf, "    <changefreq>"...)
		w.text(e.Changefreq)
		w.buf = append(w.buf, "</changefreq>\n"...)
	}
	if !e.MD.empty() {
		w.metadata(4, &e.MD)
	}
	for i := range e.Links {
		w.link(4, &e.Links[i])
	}
	for i := range e.Extra {
		w.element(4, &e.Extra[i])
	}
	w.buf = append(w.buf, "  </"...)
	w.buf = append(w.buf, w.entry...)
	w.buf = append(w.buf, ">\n"...)
	if w.bad != nil {
		return w.bad
	}
	if _, err := w.out.Write(w.buf); err != nil {
		w.err = err
		return err
	}
	w.n++
	if cap(w.buf) > 1<<20 {
		w.buf = make([]byte, 0, 1024) // do not keep one huge entry's buffer
	}
	return nil
}

// Entries returns the number of entries written.
func (w *Writer) Entries() int { return w.n }

// Close ends the root element and flushes; it does not close the underlying
// io.Writer. Closing twice does nothing.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return nil
	}
	w.closed = true
	if w.root == RootSitemapIndex {
		w.out.WriteString("</sitemapindex>\n")
	} else {
		w.out.WriteString("</urlset>\n")
	}
	if err := w.out.Flush(); err != nil {
		w.err = err
		return err
	}
	return nil
}

// WriteTo writes the document with a Writer and returns the bytes written.
func (d *Document) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	wr, err := NewWriter(cw, &d.Header)
	if err != nil {
		return cw.n, err
	}
	for i := range d.Entries {
		if err := wr.WriteEntry(&d.Entries[i]); err != nil {
			return cw.n, err
		}
	}
	err = wr.Close()
	return cw.n, err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (e *Entry) loc() string {
	if e.LocRaw != "" {
		return e.LocRaw
	}
	return e.Loc
}

func (m *Metadata) empty() bool {
	return !m.Present && m.Capability == "" && m.Change == "" &&
		!m.At.set() && !m.Completed.set() && !m.From.set() && !m.Until.set() && !m.Datetime.set() &&
		m.HashRaw == "" && len(m.Hash) == 0 && m.LengthRaw == "" && !m.LengthOK && m.Length == 0 &&
		m.Type == "" && m.Encoding == "" && m.Path == "" && !m.HasPath && len(m.Extra) == 0
}

func (d *Datetime) set() bool { return d.Raw != "" || !d.Time.IsZero() }

// metadata writes an rs:md element.
func (w *Writer) metadata(indent int, m *Metadata) {
	local := w.localDecls(m.Extra, nil)
	w.open(indent, "rs:md")
	w.declare(local)
	w.attrIf("capability", string(m.Capability))
	w.attrIf("change", string(m.Change))
	w.attrDatetime("datetime", &m.Datetime)
	w.attrDatetime("at", &m.At)
	w.attrDatetime("completed", &m.Completed)
	w.attrDatetime("from", &m.From)
	w.attrDatetime("until", &m.Until)
	w.attrHash(m.HashRaw, m.Hash)
	w.attrLength(m.LengthRaw, m.Length, m.LengthOK)
	w.attrIf("type", m.Type)
	w.attrIf("encoding", m.Encoding)
	if m.HasPath || m.Path != "" {
		w.attr("path", m.Path)
	}
	w.extraAttrs(m.Extra, &local)
	w.buf = append(w.buf, "/>\n"...)
}

// link writes an rs:ln element.
func (w *Writer) link(indent int, l *Link) {
	local := w.localDecls(l.Extra, nil)
	w.open(indent, "rs:ln")
	w.declare(local)
	if l.HasRel || l.Rel != "" {
		w.attr("rel", l.Rel)
	}
	switch {
	case l.PriRaw != "":
		w.attr("pri", l.PriRaw)
	case l.PriOK || l.Pri != 0:
		w.attrInt("pri", int64(l.Pri))
	}
	if l.HasHref || l.Href != "" {
		w.attr("href", l.Href)
	}
	w.attrDatetime("modified", &l.Modified)
	w.attrHash(l.HashRaw, l.Hash)
	w.attrLength(l.LengthRaw, l.Length, l.LengthOK)
	w.attrIf("type", l.Type)
	w.attrIf("encoding", l.Encoding)
	if l.HasPath || l.Path != "" {
		w.attr("path", l.Path)
	}
	w.extraAttrs(l.Extra, &local)
	w.buf = append(w.buf, "/>\n"...)
}

// localDecls returns the namespace declarations that attributes attrs need on
// their element beyond those of the root, added to local.
func (w *Writer) localDecls(attrs []Attr, local []Namespace) []Namespace {
	for _, a := range attrs {
		w.prefixFor(a.Space, a.Prefix, false, &local)
	}
	return local
}

func (w *Writer) declare(local []Namespace) {
	for _, ns := range local {
		if ns.Prefix == "" {
			w.attr("xmlns", ns.URI)
		} else {
			w.attrQ("xmlns", ns.Prefix, ns.URI)
		}
	}
}

func (w *Writer) extraAttrs(attrs []Attr, local *[]Namespace) {
	for _, a := range attrs {
		w.field = a.Local
		if !validNCName(a.Local) || (a.Space == "" && a.Local == "xmlns") {
			w.refuse("invalid attribute name " + strconv.Quote(a.Local))
			continue
		}
		p := w.prefixFor(a.Space, a.Prefix, false, local)
		for i := 0; i < w.nattr && i < len(w.names); i++ {
			if n := w.names[i]; (p == "" && n == a.Local) ||
				(p != "" && len(n) == len(p)+1+len(a.Local) && n[:len(p)] == p && n[len(p)] == ':' && n[len(p)+1:] == a.Local) {
				w.refuse("attribute " + n + " given twice")
			}
		}
		w.attrQ(p, a.Local, a.Value)
	}
}

// validNCName reports whether s can be written as a name without a prefix
// (an XML NCName; characters beyond ASCII are accepted when valid UTF-8).
func validNCName(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c >= 0x80:
		case i > 0 && (c >= '0' && c <= '9' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// element writes an element kept verbatim: its inner XML when it is complete and
// uses only declared prefixes, else its text.
func (w *Writer) element(indent int, el *Element) {
	var local []Namespace
	prefix := w.prefixFor(el.Space, el.Prefix, true, &local)
	if el.Space == "" {
		// A name in no namespace must undo the Sitemap default namespace.
		local = append(local, Namespace{Prefix: "", URI: ""})
	}
	local = w.localDecls(el.Attrs, local)
	if !validNCName(el.Local) {
		w.elem, w.field = el.Local, ""
		w.refuse("invalid element name " + strconv.Quote(el.Local))
		return
	}
	name := el.Local
	if prefix != "" {
		name = prefix + ":" + el.Local
	}
	w.open(indent, name)
	w.declare(local)
	w.extraAttrs(el.Attrs, &local)
	w.field = ""
	switch {
	case el.Inner != "" && w.innerWellFormed(el.Inner, local):
		w.buf = append(w.buf, '>')
		w.buf = append(w.buf, el.Inner...)
	case el.Text != "":
		w.buf = append(w.buf, '>')
		w.text(el.Text)
	default:
		w.buf = append(w.buf, "/>\n"...)
		return
	}
	w.buf = append(w.buf, "</"...)
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, ">\n"...)
}

// open starts a start tag at the given indentation.
func (w *Writer) open(indent int, name string) {
	for i := 0; i < indent; i++ {
		w.buf = append(w.buf, ' ')
	}
	w.buf = append(w.buf, '<')
	w.buf = append(w.buf, name...)
	w.col = indent + 1 + len(name) + 1
	w.nattr = 0
	w.elem, w.field = name, ""
}

func (w *Writer) attrSep() {
	if w.nattr < len(w.names) {
		w.names[w.nattr] = w.field
	}
	if w.nattr == 0 {
		w.buf = append(w.buf, ' ')
	} else {
		w.buf = append(w.buf, '\n')
		for i := 0; i < w.col; i++ {
			w.buf = append(w.buf, ' ')
		}
	}
	w.nattr++
}

func (w *Writer) attr(name, value string) {
	w.field = name
	w.attrSep()
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, '=', '"')
	w.escape(value, true)
	w.buf = append(w.buf, '"')
}

func (w *Writer) attrQ(prefix, local, value string) {
	if prefix == "" {
		w.attr(local, value)
		return
	}
	w.field = prefix + ":" + local
	w.attrSep()
	w.buf = append(w.buf, prefix...)
	w.buf = append(w.buf, ':')
	w.buf = append(w.buf, local...)
	w.buf = append(w.buf, '=', '"')
	w.escape(value, true)
	w.buf = append(w.buf, '"')
}

func (w *Writer) attrIf(name, value string) {
	if value != "" {
		w.attr(name, value)
	}
}

func (w *Writer) attrInt(name string, v int64) {
	w.field = name
	w.attrSep()
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, '=', '"')
	w.buf = strconv.AppendInt(w.buf, v, 10)
	w.buf = append(w.buf, '"')
}

func (w *Writer) attrDatetime(name string, d *Datetime) {
	if !d.set() {
		return
	}
	w.field = name
	w.attrSep()
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, '=', '"')
	w.datetime(*d)
	w.buf = append(w.buf, '"')
}

func (w *Writer) datetime(d Datetime) {
	if d.Raw != "" {
		w.escape(d.Raw, true)
	} else {
		w.buf = AppendDatetime(w.buf, d.Time)
	}
}

func (w *Writer) attrHash(raw string, list HashList) {
	switch {
	case raw != "":
		w.attr("hash", raw)
	case len(list) > 0:
		w.field = "hash"
		w.attrSep()
		w.buf = append(w.buf, `hash="`...)
		for i := range list {
			h := &list[i]
			if i > 0 {
				w.buf = append(w.buf, ' ')
			}
			if h.Digest != nil {
				w.escape(h.Alg, true)
				w.buf = append(w.buf, ':')
				w.buf = hex.AppendEncode(w.buf, h.Digest)
				continue
			}
			// Tokens that did not decode are kept as written.
			alg := h.AlgRaw
			if alg == "" {
				alg = h.Alg
			}
			w.escape(alg, true)
			w.buf = append(w.buf, ':')
			w.escape(h.Value, true)
		}
		w.buf = append(w.buf, '"')
	}
}

func (w *Writer) attrLength(raw string, n int64, ok bool) {
	switch {
	case raw != "":
		w.attr("length", raw)
	case ok || n != 0:
		w.attrInt("length", n)
	}
}

func (w *Writer) text(s string) { w.escape(s, false) }

// escape appends s as XML character data (or an attribute value), refusing what
// XML cannot carry: control characters, U+FFFE, U+FFFF and invalid UTF-8.
func (w *Writer) escape(s string, attr bool) {
	last := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x80 {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				w.refuse("invalid UTF-8 at byte " + strconv.Itoa(i))
				return
			}
			if r == 0xFFFE || r == 0xFFFF {
				w.refuse("character " + runeName(r) + " is not allowed in XML")
				return
			}
			i += size
			continue
		}
		var esc string
		switch c {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '"':
			if attr {
				esc = "&quot;"
			}
		case '\t':
			if attr {
				esc = "&#9;"
			}
		case '\n':
			if attr {
				esc = "&#10;"
			}
		case '\r':
			esc = "&#13;"
		default:
			if c < 0x20 {
				w.refuse("control character " + runeName(rune(c)) + " is not allowed in XML")
				return
			}
		}
		if esc != "" {
			w.buf = append(w.buf, s[last:i]...)
			w.buf = append(w.buf, esc...)
			last = i + 1
		}
		i++
	}
	w.buf = append(w.buf, s[last:]...)
}

func runeName(r rune) string {
	const hexDigits = "0123456789ABCDEF"
	b := []byte("U+0000")
	for i := 5; i >= 2; i-- {
		b[i] = hexDigits[r&0xF]
		r >>= 4
	}
	return string(b)
}

func (w *Writer) refuse(reason string) {
	if w.bad == nil {
		field := w.elem
		if w.field != "" {
			field += " " + w.field
		}
		w.bad = &WriteError{Entry: w.index, Field: field, Reason: reason}
	}
}

// innerWellFormed reports whether the verbatim inner XML of a kept element can be
// written as is: its tags balance (it was not cut short by the decoder's bound),
// its references are complete, and every prefix it uses is declared on the root,
// on the element (local) or inside it.
func (w *Writer) innerWellFormed(s string, local []Namespace) bool {
	var stack []string
	var inner []string // prefixes declared inside
	known := func(name string) bool {
		for i := 0; i < len(name); i++ {
			if name[i] == ':' {
				p := name[:i]
				if p == "xml" || p == "xmlns" || bound(w.ns, p) || bound(local, p) {
					return true
				}
				for _, q := range inner {
					if q == p {
						return true
					}
				}
				return false
			}
		}
		return true
	}
	find := func(i int, end string) int {
		for j := i; j+len(end) <= len(s); j++ {
			if s[j:j+len(end)] == end {
				return j + len(end)
			}
		}
		return -1
	}
	for i := 0; i < len(s); {
		switch s[i] {
		case '&':
			j := i + 1
			for j < len(s) && j-i < 12 && s[j] != ';' {
				j++
			}
			if j >= len(s) || s[j] != ';' || !validRef(s[i+1:j]) {
				return false
			}
			i = j + 1
		case '<':
			var j int
			switch {
			case hasPrefixAt(s, i, "<!--"):
				j = find(i+4, "-->")
			case hasPrefixAt(s, i, "<![CDATA["):
				j = find(i+9, "]]>")
			case hasPrefixAt(s, i, "<?"):
				j = find(i+2, "?>")
			case hasPrefixAt(s, i, "</"):
				k := find(i+2, ">")
				if k < 0 || len(stack) == 0 {
					return false
				}
				name := trimASCIISpace(s[i+2 : k-1])
				if stack[len(stack)-1] != name {
					return false
				}
				stack = stack[:len(stack)-1]
				j = k
			default:
				// A start tag: find its end outside quoted values.
				var quote byte
				j = -1
				for k := i + 1; k < len(s); k++ {
					c := s[k]
					if quote != 0 {
						if c == quote {
							quote = 0
						}
						continue
					}
					if c == '"' || c == '\'' {
						quote = c
					} else if c == '>' {
						j = k + 1
						break
					}
				}
				if j < 0 {
					return false
				}
				tag := s[i+1 : j-1]
				self := len(tag) > 0 && tag[len(tag)-1] == '/'
				if self {
					tag = tag[:len(tag)-1]
				}
				k := 0
				for k < len(tag) && !isASCIISpace(tag[k]) {
					k++
				}
				name := tag[:k]
				if name == "" {
					return false
				}
				// Names of attributes: declarations first, then prefixes.
				var names []string
				rest := tag[k:]
				for {
					rest = trimASCIISpace(rest)
					eq := indexByte(rest, '=')
					if eq < 0 {
						break
					}
					an := trimASCIISpace(rest[:eq])
					rest = trimASCIISpace(rest[eq+1:])
					if rest == "" || (rest[0] != '"' && rest[0] != '\'') {
						return false
					}
					end := indexByte(rest[1:], rest[0])
					if end < 0 {
						return false
					}
					rest = rest[end+2:]
					if hasPrefixAt(an, 0, "xmlns:") {
						inner = append(inner, an[6:])
					}
					names = append(names, an)
				}
				if !known(name) {
					return false
				}
				for _, an := range names {
					if !known(an) {
						return false
					}
				}
				if !self {
					stack = append(stack, name)
				}
			}
			if j < 0 {
				return false
			}
			i = j
		default:
			i++
		}
	}
	return len(stack) == 0
}

func hasPrefixAt(s string, i int, p string) bool {
	return len(s)-i >= len(p) && s[i:i+len(p)] == p
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

func validRef(name string) bool {
	switch name {
	case "amp", "lt", "gt", "quot", "apos":
		return true
	}
	if len(name) < 2 || name[0] != '#' {
		return false
	}
	digits := name[1:]
	hexRef := digits[0] == 'x'
	if hexRef {
		digits = digits[1:]
	}
	if digits == "" {
		return false
	}
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if !(isDigit(c) || hexRef && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')) {
			return false
		}
	}
	return true
}
