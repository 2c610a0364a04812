package model

import (
	"strings"
)

// Fields: the attribute values and texts of an element made into the
// model's fields (metadata, links, captured elements, the entry's strings),
// carved out of the arenas (decode_arena.go).

// elementStrings decodes the values of the non-namespace attributes of the current
// start tag into one string (one allocation per element, none when a, the
// entry's arena, is given) and returns it with the
// offsets of each value: value k is s[offs[2k]:offs[2k+1]].
func (d *Decoder) elementStrings(b []byte, a *arena) (string, []int, error) {
	d.strs = d.strs[:0]
	d.offs = d.offs[:0]
	for k := range d.attrs {
		a := &d.attrs[k]
		start := len(d.strs)
		if !isNSDecl(b, a) {
			v, err := d.attrValue(b, a)
			if err != nil {
				return "", nil, err
			}
			d.strs = append(d.strs, v...)
		}
		d.offs = append(d.offs, start, len(d.strs))
	}
	if a != nil {
		return a.str(d.strs), d.offs, nil
	}
	return string(d.strs), d.offs, nil
}

func isNSDecl(b []byte, a *rawAttr) bool {
	if a.colon >= 0 {
		return string(b[a.name:a.colon]) == "xmlns"
	}
	return string(b[a.name:a.nameEnd]) == "xmlns"
}

// extraAttr builds the verbatim record of attribute a.
func (d *Decoder) extraAttr(b []byte, a *rawAttr, value string) Attr {
	at := Attr{Value: value}
	if a.colon >= 0 {
		at.Prefix = d.internBytes(b[a.name:a.colon])
		at.Local = d.internBytes(b[a.colon+1 : a.nameEnd])
		at.Space, _, _ = d.lookupNS(b[a.name:a.colon])
	} else {
		at.Local = d.internBytes(b[a.name:a.nameEnd])
	}
	return at
}

func (d *Decoder) datetime(s string) Datetime {
	if s == "" {
		// Present but empty: keep a marker that the checker can see is invalid.
		return Datetime{}
	}
	dt, err := ParseDatetime(s)
	if err != nil {
		dt.OK = false
		if dt.Raw == "" {
			dt.Raw = s
		}
	}
	return dt
}

// parseLength reads a non-negative decimal integer (surrounding whitespace allowed).
func parseLength(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 19 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if n < 0 {
		return 0, false
	}
	return n, true
}

func capabilityOf(v string) Capability {
	switch Capability(v) {
	case CapDescription:
		return CapDescription
	case CapCapabilityList:
		return CapCapabilityList
	case CapResourceList:
		return CapResourceList
	case CapResourceDump:
		return CapResourceDump
	case CapResourceDumpManifest:
		return CapResourceDumpManifest
	case CapChangeList:
		return CapChangeList
	case CapChangeDump:
		return CapChangeDump
	case CapChangeDumpManifest:
		return CapChangeDumpManifest
	case CapChangeNotification:
		return CapChangeNotification
	case CapFrameworkNotification:
		return CapFrameworkNotification
	}
	return Capability(v)
}

func changeOf(v string) Change {
	switch Change(v) {
	case ChangeCreated:
		return ChangeCreated
	case ChangeUpdated:
		return ChangeUpdated
	case ChangeDeleted:
		return ChangeDeleted
	}
	return Change(v)
}

// Metadata attributes, as classified by mdField.
const (
	mfExtra uint8 = iota
	mfCapability
	mfChange
	mfAt
	mfCompleted
	mfFrom
	mfUntil
	mfDatetime
	mfHash
	mfLength
	mfType
	mfEncoding
	mfPath
)

// mdField classifies an attribute of <rs:md> (mdFieldFast, which the fast
// path uses too); legacy ones are reported.
func (d *Decoder) mdField(b []byte, a *rawAttr) uint8 {
	if a.colon >= 0 {
		return mfExtra
	}
	name := b[a.name:a.nameEnd]
	field := mdFieldFast(name)
	if field == mfExtra && (string(name) == "modified" || string(name) == "etag") {
		d.legacy("attribute "+string(name), d.lineAt(d.pos+a.name))
	}
	return field
}

// setMDField sets one attribute of md; extra is the index in md.Extra of an
// extra attribute whose value is v.
func (d *Decoder) setMDField(md *Metadata, field uint8, v string, extra int, a *arena) {
	if v == "" && field >= mfCapability && field <= mfEncoding {
		md.Empty |= AttrCapability << (field - mfCapability)
	}
	switch field {
	case mfCapability:
		md.Capability = capabilityOf(v)
	case mfChange:
		md.Change = changeOf(v)
	case mfAt:
		md.At = d.datetime(v)
	case mfCompleted:
		md.Completed = d.datetime(v)
	case mfFrom:
		md.From = d.datetime(v)
	case mfUntil:
		md.Until = d.datetime(v)
	case mfDatetime:
		md.Datetime = d.datetime(v)
	case mfHash:
		md.HashRaw = v
		md.Hash = parseHashAttr(v, a)
	case mfLength:
		md.LengthRaw = v
		md.Length, md.LengthOK = parseLength(v)
	case mfType:
		md.Type = v
	case mfEncoding:
		md.Encoding = v
	case mfPath:
		md.Path = v
		md.HasPath = true
	case mfExtra:
		md.Extra[extra].Value = v
	}
}

// pendingMD is an attribute of an entry's <rs:md> whose value waits in
// entryText for the entry's one string.
type pendingMD struct {
	field uint8
	a, b  int
	extra int
}

// fillMetadata reads the attributes of an <rs:md> start tag. In an entry
// (deferred), the values are set when the entry ends, sharing its one string.
func (d *Decoder) fillMetadata(md *Metadata, b []byte, line int, deferred bool) error {
	if deferred {
		// The entry was zeroed when it started.
		md.Present, md.Line = true, line
	} else {
		*md = Metadata{Present: true, Line: line}
	}
	var s string
	var offs []int
	if !deferred {
		var err error
		if s, offs, err = d.elementStrings(b, nil); err != nil {
			return err
		}
	}
	for k := range d.attrs {
		a := &d.attrs[k]
		if isNSDecl(b, a) {
			continue
		}
		field := d.mdField(b, a)
		extra := -1
		if field == mfExtra {
			extra = len(md.Extra)
			md.Extra = append(md.Extra, d.extraAttr(b, a, ""))
		}
		if !deferred {
			d.setMDField(md, field, s[offs[2*k]:offs[2*k+1]], extra, nil)
			continue
		}
		v, err := d.attrValue(b, a)
		if err != nil {
			return err
		}
		p := pendingMD{field: field, a: len(d.entryText), extra: extra}
		d.entryText = append(d.entryText, v...)
		p.b = len(d.entryText)
		d.pendingMD = append(d.pendingMD, p)
	}
	return nil
}

// fillLink reads the attributes of an <rs:ln> start tag. In an entry (ar is
// the entry's arena) its strings are carved out of ar.
func (d *Decoder) fillLink(ln *Link, b []byte, line int, ar *arena) error {
	*ln = Link{Line: line}
	s, offs, err := d.elementStrings(b, ar)
	if err != nil {
		return err
	}
	for k := range d.attrs {
		a := &d.attrs[k]
		if isNSDecl(b, a) {
			continue
		}
		v := s[offs[2*k]:offs[2*k+1]]
		if a.colon >= 0 {
			ln.Extra = append(ln.Extra, d.extraAttr(b, a, v))
			continue
		}
		if v == "" {
			switch string(b[a.name:a.nameEnd]) {
			case "pri":
				ln.Empty |= AttrPri
			case "type":
				ln.Empty |= AttrType
			case "encoding":
				ln.Empty |= AttrEncoding
			case "length":
				ln.Empty |= AttrLength
			case "hash":
				ln.Empty |= AttrHash
			case "modified":
				ln.Empty |= AttrModified
			}
		}
		switch string(b[a.name:a.nameEnd]) {
		case "rel":
			ln.Rel = v
			ln.HasRel = true
		case "href":
			ln.Href = strings.TrimSpace(v)
			ln.HasHref = true
		case "pri":
			ln.PriRaw = v
			if n, ok := parseLength(v); ok && n <= 1<<31-1 {
				ln.Pri, ln.PriOK = int(n), true
			}
		case "type":
			ln.Type = v
		case "encoding":
			ln.Encoding = v
		case "path":
			ln.Path = v
			ln.HasPath = true
		case "length":
			ln.LengthRaw = v
			ln.Length, ln.LengthOK = parseLength(v)
		case "hash":
			ln.HashRaw = v
			ln.Hash = parseHashAttr(v, ar)
		case "modified":
			ln.Modified = d.datetime(v)
		case "etag":
			ln.Extra = append(ln.Extra, d.extraAttr(b, a, v))
			d.legacy("attribute etag", d.lineAt(d.pos+a.name))
		default:
			ln.Extra = append(ln.Extra, d.extraAttr(b, a, v))
		}
	}
	return nil
}

// beginCapture starts keeping an element verbatim.
func (d *Decoder) beginCapture(b, prefix, local []byte, uri string, line int, inEntry bool) error {
	el := Element{Space: uri, Prefix: d.internBytes(prefix), Local: d.internBytes(local), Line: line}
	var ar *arena
	if inEntry {
		ar = d.lnk
	}
	s, offs, err := d.elementStrings(b, ar)
	if err != nil {
		return err
	}
	for k := range d.attrs {
		a := &d.attrs[k]
		if isNSDecl(b, a) {
			continue
		}
		el.Attrs = append(el.Attrs, d.extraAttr(b, a, s[offs[2*k]:offs[2*k+1]]))
	}
	if nsk := nsKindOf(uri); (nsk == nsRS || nsk == nsRSLegacy) && (el.Local == "fixity" || el.Local == "size") {
		d.legacy("element rs:"+el.Local, line)
	}
	d.capDepth = len(d.stack)
	d.capElem = el
	d.capInner = d.capInner[:0]
	d.capEntry = inEntry
	return nil
}

// finishEntryText sets the entry's fields that come from character data.
func (d *Decoder) finishEntryText() {
	if d.locA < 0 && d.lastmodA < 0 && len(d.pendingMD) == 0 {
		return
	}
	s := d.ent.str(d.entryText)
	if d.locA >= 0 {
		raw := s[d.locA:d.locB]
		d.e.Loc = strings.TrimSpace(raw)
		if len(d.e.Loc) != len(raw) {
			d.e.LocRaw = raw
		}
	}
	if d.lastmodA >= 0 {
		if raw := strings.TrimSpace(s[d.lastmodA:d.lastmodB]); raw != "" {
			d.e.Lastmod = d.datetime(raw)
		} else {
			d.e.Empty |= ChildLastmod
		}
	}
	for _, p := range d.pendingMD {
		d.setMDField(&d.e.MD, p.field, s[p.a:p.b], p.extra, d.ent)
	}
}
