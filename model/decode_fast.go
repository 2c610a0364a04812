package model

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// The entry fast path of block decoders (decode_parallel.go): most entries of
// a large list have one shape,
//
//	<url>
//	    <loc>…</loc>
//	    <lastmod>…</lastmod>
//	    <rs:md hash="…" length="…" type="…"/>
//	</url>
//
// and the general scanner spends most of its time on what does not vary from
// one to the next: scanning and checking the names, resolving their
// namespaces, the open-element stack, one pass of the loop per item. fastEntry
// matches such an entry as bytes, with the names as the document's root
// declared them, and fills the Entry with the general path's own functions
// (startEntry, appendDecoded, finishEntryText). It takes only what the general
// path would read the same way with nothing to report: anything else — another
// child, an attribute it does not know, a second <loc>, a comment, a reference
// in an attribute value, the window's end — makes it report false having
// changed nothing the general path does not set again, and the general path
// decodes the entry. Only block decoders use it, so the sequential Decoder,
// which decodes any block whose result is not accepted, stays the reference
// the parallel tests compare the blocks' entries with.

// entryShape holds the tags of the common entry as this document writes them.
type entryShape struct {
	open, close      fastTag // "<url>", "</url>" (or <sitemap> in an index)
	loc, locEnd      fastTag // "<loc>", "</loc>"
	lastmod, lastEnd fastTag // "<lastmod>", "</lastmod>"
	md               fastTag // "<rs:md", with the prefix the root bound to ResourceSync's namespace
}

// fastTag is a tag the fast path looks for, with its bytes as two
// little-endian words and their masks when it has at most 16: where 16 bytes
// are left, one test of two words tells whether they start with it, instead
// of a call to bytes.HasPrefix (seven of them an entry were 3 % of the
// instructions of rsx validate).
type fastTag struct {
	b    []byte
	w, m [2]uint64
}

func newFastTag(s string) fastTag {
	t := fastTag{b: []byte(s)}
	for i := 0; i < len(s) && i < 16; i++ {
		t.w[i/8] |= uint64(s[i]) << (8 * (i % 8))
		t.m[i/8] |= 0xff << (8 * (i % 8))
	}
	return t
}

// at reports whether b starts with the tag.
func (t *fastTag) at(b []byte) bool {
	if len(b) >= 16 && len(t.b) <= 16 {
		x := binary.LittleEndian.Uint64(b)&t.m[0] ^ t.w[0]
		y := binary.LittleEndian.Uint64(b[8:])&t.m[1] ^ t.w[1]
		return x|y == 0
	}
	return bytes.HasPrefix(b, t.b)
}

// entryShapeOf returns the shape of the common entry for block decoders
// starting in the state d stands in (between two entries, only the root
// open), or nil when the fast path cannot be used: the Sitemap namespace is
// not the default one, no prefix names ResourceSync's, or MaxDepth leaves no
// room for an entry's children.
func (d *Decoder) entryShapeOf() *entryShape {
	if d.maxDepth <= 2 {
		return nil
	}
	var entry string
	switch d.hdr.Root {
	case RootURLSet:
		entry = "url"
	case RootSitemapIndex:
		entry = "sitemap"
	default:
		return nil
	}
	if _, k, _ := d.lookupNS(nil); k != nsSitemap {
		return nil
	}
	prefix := ""
	for k := len(d.ns) - 1; k >= 0 && prefix == ""; k-- {
		if p := d.ns[k].prefix; p != "" && d.ns[k].kind == nsRS {
			if _, kind, _ := d.lookupNS([]byte(p)); kind == nsRS {
				prefix = p
			}
		}
	}
	if prefix == "" {
		return nil
	}
	return &entryShape{
		open: newFastTag("<" + entry + ">"), close: newFastTag("</" + entry + ">"),
		loc: newFastTag("<loc>"), locEnd: newFastTag("</loc>"),
		lastmod: newFastTag("<lastmod>"), lastEnd: newFastTag("</lastmod>"),
		md: newFastTag("<" + prefix + ":md"),
	}
}

// fastEntry decodes the entry at pos (buf[pos] == '<') when it has the
// common shape and reports true; the entry is then ready, as the general
// path leaves it at its end tag. It must be called only between two entries
// (the root the only open element).
func (d *Decoder) fastEntry() bool {
	s := d.shape
	b := d.buf[d.pos:d.end]
	if !s.open.at(b) {
		return false
	}
	// entryText and pendingMD are filled as the general path fills them;
	// should the entry turn out not to fit, the general path starts them
	// again at <url>.
	d.entryText, d.pendingMD = d.entryText[:0], d.pendingMD[:0]
	d.locA, d.lastmodA = -1, -1
	hasLoc, hasMD := false, false
	mdLine := 0
	line := d.curLine()
	nl := 0 // line feeds passed since <url>
	i := len(s.open.b)
	for {
		for i < len(b) && decIsSpace(b[i]) {
			if b[i] == '\n' {
				nl++
			}
			i++
		}
		if i == len(b) || b[i] != '<' {
			return false
		}
		rest := b[i:]
		switch {
		case s.close.at(rest):
			i += len(s.close.b)
			if i > d.maxToken {
				return false // the general path's bounds apply
			}
			d.fastCommit(line, hasLoc, hasMD, mdLine)
			d.pos += i
			d.lineN, d.linePos = line+nl, d.pos
			return true
		case !hasLoc && s.loc.at(rest):
			a := len(d.entryText)
			j, n, ok := d.fastText(b, i+len(s.loc.b), &s.locEnd)
			if !ok {
				return false
			}
			d.locA, d.locB = a, len(d.entryText)
			hasLoc, i, nl = true, j, nl+n
		case d.lastmodA < 0 && s.lastmod.at(rest):
			a := len(d.entryText)
			j, n, ok := d.fastText(b, i+len(s.lastmod.b), &s.lastEnd)
			if !ok {
				return false
			}
			d.lastmodA, d.lastmodB = a, len(d.entryText)
			i, nl = j, nl+n
		case !hasMD && s.md.at(rest):
			mdLine = line + nl
			j, n, ok := d.fastMD(b, i+len(s.md.b))
			if !ok {
				return false
			}
			hasMD, i, nl = true, j, nl+n
		default:
			return false
		}
	}
}

// fastText reads the character data of a leaf element whose start tag ends
// at b[i], up to its end tag end, into entryText as leafText does; it returns
// the index after the end tag and the line feeds in the text.
func (d *Decoder) fastText(b []byte, i int, end *fastTag) (int, int, bool) {
	j, clean := scanTo(b, i, '<')
	if j < 0 || !end.at(b[j:]) {
		return 0, 0, false
	}
	k := j - i
	text := b[i:j]
	if clean {
		d.entryText = append(d.entryText, text...)
		return i + k + len(end.b), 0, true
	}
	var err error
	if d.entryText, err = d.appendDecoded(d.entryText, text, false, -1); err != nil {
		return 0, 0, false
	}
	return i + k + len(end.b), countLines(text), true
}

// fastMD reads the attributes of an entry's <rs:md …/>, whose name ends at
// b[i], into entryText and pendingMD as fillMetadata does; it returns the index
// after the tag and the line feeds inside it. It takes only the attributes of
// rs:md the model has fields for, each once, unprefixed, written name="value"
// with nothing in the value to expand or check.
func (d *Decoder) fastMD(b []byte, i int) (int, int, bool) {
	nl := 0
	seen := 0
	for {
		ws := i
		for i < len(b) && decIsSpace(b[i]) {
			if b[i] == '\n' {
				nl++
			}
			i++
		}
		if i+1 < len(b) && b[i] == '/' && b[i+1] == '>' {
			return i + 2, nl, true
		}
		if i == ws {
			return 0, 0, false
		}
		field, name := mdNameFast(b[i:])
		if name == 0 {
			n := i
			for i < len(b) && b[i] >= 'a' && b[i] <= 'z' {
				i++
			}
			if i+1 >= len(b) || b[i] != '=' || (b[i+1] != '"' && b[i+1] != '\'') {
				return 0, 0, false
			}
			field = mdFieldFast(b[n:i])
		} else {
			i += name // at the '=', as the loop leaves it
		}
		if field == mfExtra || seen&(1<<field) != 0 {
			return 0, 0, false
		}
		seen |= 1 << field
		q := b[i+1]
		i += 2
		j, clean := scanTo(b, i, q)
		if j < 0 || !clean {
			return 0, 0, false
		}
		k := j - i
		p := pendingMD{field: field, a: len(d.entryText), extra: -1}
		d.entryText = append(d.entryText, b[i:i+k]...)
		p.b = len(d.entryText)
		d.pendingMD = append(d.pendingMD, p)
		i += k + 1
	}
}

// The words of hash=", length=" and type=" (low byte first) and their
// masks, for mdNameFast.
const (
	mdHashW   = 0x223d68736168 // hash="
	mdHashM   = 1<<48 - 1
	mdLengthW = 0x223d6874676e656c // length="
	mdTypeW   = 0x223d65707974     // type="
)

// mdNameFast recognises, where 8 bytes are left, the names of the attributes
// of rs:md in entries of the common shape, hash, length and type, with '='
// and a double quote after them as one word each: it returns the field and
// the length of the name, or name 0 when b does not start with one of them
// (fastMD then reads the name a byte at a time).
func mdNameFast(b []byte) (field uint8, name int) {
	if len(b) < 8 {
		return 0, 0
	}
	w := binary.LittleEndian.Uint64(b)
	switch {
	case w&mdHashM == mdHashW:
		return mfHash, 4
	case w == mdLengthW:
		return mfLength, 6
	case w&mdHashM == mdTypeW:
		return mfType, 4
	}
	return 0, 0
}

// mdFieldFast is the field of an attribute of rs:md named name, without a
// prefix: mfExtra for the attributes without a field of their own, legacy
// ones included (mdField reports those; the fast path leaves them to it).
func mdFieldFast(name []byte) uint8 {
	switch string(name) {
	case "hash":
		return mfHash
	case "length":
		return mfLength
	case "type":
		return mfType
	case "capability":
		return mfCapability
	case "change":
		return mfChange
	case "at":
		return mfAt
	case "completed":
		return mfCompleted
	case "from":
		return mfFrom
	case "until":
		return mfUntil
	case "datetime":
		return mfDatetime
	case "encoding":
		return mfEncoding
	case "path":
		return mfPath
	}
	return mfExtra
}

// scanTo returns the index of the first byte c in b from i on (-1 when
// there is none) and whether the bytes before it hold no byte attrSpecial
// marks: nothing to expand, normalise or check. c must be one of the bytes
// attrSpecial does not mark, or '<'. It reads eight bytes at a time: a word's
// test for c, x - 1 &^ x on x = w ^ c in each byte, flags the lowest byte equal
// to c exactly (a borrow runs only towards the higher bytes, and starts only
// at a byte equal to c), and so does the test for the marked bytes (below
// 0x20, '&', '<', from 0x80 on) for the lowest of those; a flag above the
// lowest of a word is then one of those bytes or a borrow from it. The bytes
// at c and after it are masked out.
func scanTo(b []byte, i int, c byte) (int, bool) {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	cc := lo * uint64(c)
	var acc uint64
	r := b[i:]
	for len(r) >= 16 {
		w, v := binary.LittleEndian.Uint64(r), binary.LittleEndian.Uint64(r[8:])
		x, y := w^cc, v^cc
		if z := ((x-lo)&^x | (y-lo)&^y) & hi; z != 0 {
			break // c is in one of them: the loop below finds it
		}
		acc |= w | (w - lo*0x20) | (w ^ lo*'&' - lo) | (w ^ lo*'<' - lo) |
			v | (v - lo*0x20) | (v ^ lo*'&' - lo) | (v ^ lo*'<' - lo)
		r = r[16:]
	}
	for len(r) >= 8 {
		w := binary.LittleEndian.Uint64(r)
		x := w ^ cc
		sp := w | (w - lo*0x20) | (w ^ lo*'&' - lo) | (w ^ lo*'<' - lo)
		if z := (x - lo) &^ x & hi; z != 0 {
			n := bits.TrailingZeros64(z) &^ 7 // bit index of the byte equal to c
			acc |= sp & (1<<n - 1)
			return len(b) - len(r) + n/8, acc&hi == 0
		}
		acc |= sp
		r = r[8:]
	}
	for k, x := range r {
		if x == c {
			return len(b) - len(r) + k, acc&hi == 0
		}
		if attrSpecial[x] != 0 {
			acc = hi
		}
	}
	return -1, false
}

// fastCommit starts and ends the entry fastEntry read, as rootChild,
// entryChild, fillMetadata and closeElement do for the general path.
func (d *Decoder) fastCommit(line int, hasLoc, hasMD bool, mdLine int) {
	d.startEntry(line)
	e := d.e
	if hasLoc {
		e.LocCount, e.HasLoc = 1, true
	}
	if hasMD {
		e.MDCount = 1
		e.MD.Present, e.MD.Line = true, mdLine
	}
	d.finishEntryText()
	d.endEntry()
	d.entryOpen = false
	d.entryReady = true
	d.nEntries++
	d.nFast++
}
