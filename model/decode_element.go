package model

import (
	"bytes"
	"strconv"
	"strings"
)

// Elements: namespaces, names, the open-element stack, and what each
// element of a Sitemap means where it stands (root, entry, loc, rs:md …).

// lookupNS resolves a prefix ("" for the default namespace).
func (d *Decoder) lookupNS(prefix []byte) (string, uint8, bool) {
	for k := len(d.ns) - 1; k >= 0; k-- {
		if d.ns[k].prefix == string(prefix) {
			return d.ns[k].uri, d.ns[k].kind, true
		}
	}
	if len(prefix) == 0 {
		return "", nsNone, true
	}
	if string(prefix) == "xml" {
		return NSXML, nsXML, true
	}
	return "", nsNone, false
}

func nsKindOf(uri string) uint8 {
	switch uri {
	case "":
		return nsNone
	case NSSitemap:
		return nsSitemap
	case NSRS:
		return nsRS
	case NSRSLegacy:
		return nsRSLegacy
	case NSXML:
		return nsXML
	}
	return nsOther
}

// internBytes returns b as a string, sharing one copy for repeated short values.
func (d *Decoder) internBytes(b []byte) string {
	if len(b) > decMaxInternLen {
		return string(b)
	}
	if s, ok := d.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	if d.intern == nil {
		d.intern = make(map[string]string, 64)
	}
	if len(d.intern) < decMaxInterned {
		d.intern[s] = s
	}
	return s
}

// qname returns the index in d.names of an element name as written.
func (d *Decoder) qname(b []byte) (int32, error) {
	h := (len(b)*7 + int(b[0])*3 + int(b[len(b)-1])) & (len(d.qslots) - 1)
	if q := d.qslots[h] - 1; q >= 0 && d.names[q] == string(b) {
		return q, nil
	}
	q, ok := d.nameIDs[string(b)]
	if !ok {
		if len(d.names) >= 1<<16 {
			return 0, d.syntaxErr(d.curLine(), "more than %d distinct element names", 1<<16)
		}
		if d.nameIDs == nil {
			d.nameIDs = make(map[string]int32)
		}
		q = int32(len(d.names))
		name := string(b)
		d.names = append(d.names, name)
		d.nameIDs[name] = q
	}
	d.qslots[h] = q + 1
	return q, nil
}

// element processes a complete start tag b[0:end] (relative to pos).
func (d *Decoder) element(b []byte, nameEnd, colon, end int, selfClose bool) error {
	nsMark := len(d.ns)
	depth := len(d.stack)
	if depth >= d.maxDepth {
		return d.syntaxErr(d.curLine(), "elements nested more than %d deep", d.maxDepth)
	}
	// Namespace declarations first: they apply to the element's own name.
	nsAttrs := len(d.attrs) > 0 && d.namespaceAttrs(b)
	if nsAttrs {
		if err := d.declareNamespaces(b, depth); err != nil {
			return err
		}
	}
	t := startTag{b: b, local: b[1:nameEnd]}
	if colon >= 0 {
		t.prefix, t.local = b[1:colon], b[colon+1:nameEnd]
	}
	uri, nsk, ok := d.lookupNS(t.prefix)
	if !ok {
		return d.undeclaredElementPrefix(&t, depth, b[1:nameEnd])
	}
	if nsAttrs {
		if err := d.checkAttributePrefixes(b, nameEnd); err != nil {
			return err
		}
	}
	qname, err := d.qname(b[1:nameEnd])
	if err != nil {
		return err
	}
	t.uri = uri
	t.sm = nsk == nsSitemap || nsk == nsNone || (nsk == nsOther && uri == d.altSitemapNS)
	t.rs = nsk == nsRS || nsk == nsRSLegacy
	if depth == 0 && nsk == nsOther && strings.Contains(strings.ToLower(uri), "sitemap") {
		// A variant Sitemap namespace (Google's early ones, a trailing slash …):
		// read the document, RootSpace tells the checker.
		d.altSitemapNS, t.sm = uri, true
	}
	// Lines are counted only for the elements that record one: counting costs.
	if depth < 2 || (depth == 2 && d.capDepth < 0 && d.stack[1].kind == kEntry && !(t.sm && isLeafName(t.local))) {
		t.line = d.curLine()
	}
	kind := kIgnore
	switch {
	case depth == 0:
		if !d.rootElement(&t) {
			d.consume(d.pos + end)
			return nil
		}
		kind = kRoot
	case d.capDepth >= 0:
		kind = kInner
	case depth == 1:
		kind, err = d.rootChild(&t, qname)
	case depth == 2 && d.stack[1].kind == kEntry:
		kind, err = d.entryChild(&t)
	}
	if err != nil {
		return err
	}
	d.startText(kind)
	d.consume(d.pos + end)
	d.stack = append(d.stack, openElem{qname: qname, kind: kind, nsMark: int32(nsMark), line: t.line})
	if selfClose {
		return d.closeElement()
	}
	if kind == kLoc || kind == kLastmod || kind == kChangefreq {
		return d.leafText(qname)
	}
	return nil
}

// startTag is what element has read of a start tag, for the functions that
// give the element its meaning where it stands.
type startTag struct {
	b             []byte // the tag (relative to pos), for its attributes
	prefix, local []byte
	uri           string
	sm, rs        bool // in the Sitemap (or no) namespace; in ResourceSync's
	line          int  // 0 where the element records no line
}

// isLeafName reports whether a Sitemap element of an entry is one of the
// text leaves element reads without a line number (their entry has one).
func isLeafName(local []byte) bool {
	return string(local) == "loc" || string(local) == "lastmod" || string(local) == "changefreq"
}

// namespaceAttrs reports whether an attribute of the tag b declares a
// namespace or has a prefix: most have neither (<rs:md hash=… length=…>),
// and then declareNamespaces and checkAttributePrefixes are not called.
func (d *Decoder) namespaceAttrs(b []byte) bool {
	for k := range d.attrs {
		if a := &d.attrs[k]; a.colon >= 0 || string(b[a.name:a.nameEnd]) == "xmlns" {
			return true
		}
	}
	return false
}

// declareNamespaces pushes the namespace declarations among the
// attributes of a start tag; those of the root go into the header too.
func (d *Decoder) declareNamespaces(b []byte, depth int) error {
	for k := range d.attrs {
		a := &d.attrs[k]
		name := b[a.name:a.nameEnd]
		var prefix string
		switch {
		case string(name) == "xmlns":
		case a.colon >= 0 && string(b[a.name:a.colon]) == "xmlns":
			prefix = d.internBytes(b[a.colon+1 : a.nameEnd])
		default:
			continue
		}
		v, err := d.attrValue(b, a)
		if err != nil {
			return err
		}
		uri := d.internBytes(bytes.TrimSpace(v))
		if prefix != "" && uri == "" {
			return d.syntaxErr(d.lineAt(d.pos+a.name), "namespace prefix %s bound to an empty URI", prefix)
		}
		if prefix == "xmlns" || (prefix == "xml") != (uri == NSXML) {
			return d.syntaxErr(d.lineAt(d.pos+a.name), "reserved namespace prefix or URI misused in xmlns:%s=%q", prefix, uri)
		}
		kind := nsKindOf(uri)
		d.ns = append(d.ns, nsBinding{prefix: prefix, uri: uri, kind: kind})
		if depth == 0 {
			d.hdr.Namespaces = append(d.hdr.Namespaces, Namespace{Prefix: prefix, URI: uri})
		}
		if kind == nsRSLegacy {
			d.legacy("namespace "+NSRSLegacy, d.lineAt(d.pos+a.name))
		}
	}
	return nil
}

// undeclaredElementPrefix handles an element whose prefix no declaration
// binds: a root so named is not a Sitemap (the checker says so), anything
// deeper is an error of the XML.
func (d *Decoder) undeclaredElementPrefix(t *startTag, depth int, name []byte) error {
	if depth == 0 {
		d.hdr.Root = RootUnknown
		d.hdr.RootLocal = string(t.local)
		d.state = stDone
		return nil
	}
	return d.syntaxErr(d.curLine(), "undeclared namespace prefix %q in <%s>", t.prefix, name)
}

// checkAttributePrefixes: attribute prefixes must be declared too.
func (d *Decoder) checkAttributePrefixes(b []byte, nameEnd int) error {
	for k := range d.attrs {
		a := &d.attrs[k]
		if a.colon < 0 || string(b[a.name:a.colon]) == "xmlns" {
			continue
		}
		if _, _, ok := d.lookupNS(b[a.name:a.colon]); !ok {
			return d.syntaxErr(d.lineAt(d.pos+a.name), "undeclared namespace prefix %q in attribute %s of <%s>", b[a.name:a.colon], b[a.name:a.nameEnd], b[1:nameEnd])
		}
	}
	return nil
}

// rootElement records the root element in the header. It reports false
// when the root is neither <urlset> nor <sitemapindex>: the decoder reads
// no further.
func (d *Decoder) rootElement(t *startTag) bool {
	d.hdr.RootLocal = string(t.local)
	d.hdr.RootSpace = t.uri
	switch {
	case t.sm && string(t.local) == "urlset":
		d.hdr.Root = RootURLSet
	case t.sm && string(t.local) == "sitemapindex":
		d.hdr.Root = RootSitemapIndex
	default:
		d.hdr.Root = RootUnknown
		d.state = stDone
		return false
	}
	d.state = stRoot
	return true
}

// rootChild starts a child of the root: an entry (<url>, or <sitemap> in
// an index), the document's <rs:md> or an <rs:ln>, or an element of
// another kind, captured.
func (d *Decoder) rootChild(t *startTag, qname int32) (uint8, error) {
	entryName := "url"
	if d.hdr.Root == RootSitemapIndex {
		entryName = "sitemap"
	}
	switch {
	case t.sm && string(t.local) == entryName:
		d.entryQ = qname
		d.startEntry(t.line)
		d.entryText = d.entryText[:0]
		d.pendingMD = d.pendingMD[:0]
		d.locA, d.lastmodA = -1, -1
		d.entryOpen = true
		return kEntry, nil
	case t.rs && string(t.local) == "md":
		d.hdr.MDCount++
		if d.hdr.MDCount == 1 {
			return kMD, d.fillMetadata(&d.hdr.MD, t.b, t.line, false)
		}
		return kMD, nil
	case t.rs && string(t.local) == "ln":
		var ln Link
		err := d.fillLink(&ln, t.b, t.line, nil)
		d.hdr.Links = append(d.hdr.Links, ln)
		if len(d.hdr.Links) >= decMaxHeld && err == nil {
			err = d.handOver(nil)
		}
		return kLN, err
	}
	return kCapture, d.beginCapture(t.b, t.prefix, t.local, t.uri, t.line, false)
}

// entryChild starts a child of an entry: <loc>, <lastmod> and <changefreq>
// (the first of each is read), <rs:md>, <rs:ln>, or an element of another
// kind, captured.
func (d *Decoder) entryChild(t *startTag) (uint8, error) {
	e := d.e
	switch {
	case t.sm && string(t.local) == "loc":
		e.LocCount++
		e.HasLoc = true
		if e.LocCount == 1 {
			return kLoc, nil
		}
		return kIgnore, nil
	case t.sm && string(t.local) == "lastmod":
		if d.lastmodA < 0 {
			return kLastmod, nil
		}
		return kIgnore, nil
	case t.sm && string(t.local) == "changefreq":
		if e.Changefreq == "" {
			return kChangefreq, nil
		}
		return kIgnore, nil
	case t.rs && string(t.local) == "md":
		e.MDCount++
		if e.MDCount == 1 {
			return kMD, d.fillMetadata(&e.MD, t.b, t.line, true)
		}
		return kMD, nil
	case t.rs && string(t.local) == "ln":
		e.Links = append(e.Links, Link{})
		err := d.fillLink(&e.Links[len(e.Links)-1], t.b, t.line, d.lnk)
		if len(e.Links) >= decMaxHeld && err == nil {
			err = d.handOver(e)
		}
		return kLN, err
	}
	return kCapture, d.beginCapture(t.b, t.prefix, t.local, t.uri, t.line, true)
}

// startText readies the text buffers of an element that collects its text:
// <loc> and <lastmod> into the entry's text, the others into their own.
func (d *Decoder) startText(kind uint8) {
	switch kind {
	case kLoc, kLastmod:
		d.rawText = d.rawText[:0]
		d.toEntry, d.textStart = true, len(d.entryText)
	case kChangefreq, kCapture:
		d.rawText = d.rawText[:0]
		d.text = d.text[:0]
		d.toEntry, d.textStart = false, 0
	}
}

// collecting reports whether the innermost element collects its text.
func (d *Decoder) collecting() bool {
	if len(d.stack) == 0 {
		return false
	}
	switch d.stack[len(d.stack)-1].kind {
	case kLoc, kLastmod, kChangefreq, kCapture:
		return true
	}
	return false
}

// leafText is the fast path for <loc>text</loc> and the like: when the text and
// the end tag are in the window, they are handled at once. Anything else (a
// comment, CDATA, a child, the window's end) is left to the general loop.
func (d *Decoder) leafText(qname int32) error {
	rest := d.buf[d.pos:d.end]
	k := bytes.IndexByte(rest, '<')
	name := d.names[qname]
	if k < 0 || k > d.maxToken || len(rest) < k+3+len(name) || rest[k+1] != '/' || string(rest[k+2:k+2+len(name)]) != name || rest[k+2+len(name)] != '>' {
		return nil
	}
	tgt := d.textTarget()
	var err error
	if *tgt, err = d.appendDecoded(*tgt, rest[:k], false, -1); err != nil {
		return err
	}
	d.pos += k + 3 + len(name)
	return d.closeElement()
}

func (d *Decoder) legacy(what string, line int) {
	entry := -1
	if d.entryOpen {
		entry = d.e.Index
	}
	if d.nLegacy >= decMaxLegacy {
		return
	}
	d.nLegacy++
	d.hdr.Legacy = append(d.hdr.Legacy, LegacyTrace{What: what, Line: line, Entry: entry})
}

// openedOn describes where the open element k started, for error messages.
func (d *Decoder) openedOn(k int) string {
	if d.stack[k].line > 0 {
		return "opened on line " + strconv.Itoa(d.stack[k].line)
	}
	for j := k - 1; j >= 0; j-- {
		if d.stack[j].line > 0 {
			return "opened after line " + strconv.Itoa(d.stack[j].line)
		}
	}
	return "opened earlier"
}

// closeElement pops the innermost element and finishes what it carried.
func (d *Decoder) closeElement() error {
	top := d.stack[len(d.stack)-1]
	d.stack = d.stack[:len(d.stack)-1]
	d.ns = d.ns[:top.nsMark]
	switch top.kind {
	case kRoot:
		d.state = stEpilog
	case kEntry:
		d.finishEntryText()
		d.endEntry()
		d.entryOpen = false
		d.entryReady = true
		d.nEntries++
	case kLoc:
		if err := d.flushText(); err != nil {
			return err
		}
		d.locA, d.locB = d.textStart, len(d.entryText)
	case kLastmod:
		if err := d.flushText(); err != nil {
			return err
		}
		d.lastmodA, d.lastmodB = d.textStart, len(d.entryText)
	case kChangefreq:
		if err := d.flushText(); err != nil {
			return err
		}
		d.e.Changefreq = d.internBytes(bytes.TrimSpace(d.text))
		if d.e.Changefreq == "" {
			d.e.Empty |= ChildChangefreq
		}
	case kCapture:
		if err := d.flushText(); err != nil {
			return err
		}
		el := d.capElem
		el.Text = strings.TrimSpace(string(d.text))
		if len(d.capInner) > 0 {
			el.Inner = string(d.capInner)
		}
		d.capDepth = -1
		d.capElem = Element{}
		if d.capEntry {
			d.e.Extra = append(d.e.Extra, el)
			if len(d.e.Extra) >= decMaxHeld {
				return d.handOver(d.e)
			}
		} else {
			d.hdr.Extra = append(d.hdr.Extra, el)
			if len(d.hdr.Extra) >= decMaxHeld {
				return d.handOver(nil)
			}
		}
	}
	return nil
}
