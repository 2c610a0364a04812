package model

import (
	"encoding/base64"
	"encoding/hex"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// EntryTable holds many entries (millions) compactly, column by column.
//
// Strings of an entry (loc, path, hash digests) live in an append-only byte
// arena; short repeated strings (type, change, capability, changefreq, encoding)
// are interned; datetimes are kept as Unix nanoseconds plus their precision and
// lengths as int64. Columns that no entry needs (md datetime in a Resource List,
// change in a Resource List …) are never allocated. What does not fit this mould
// — links, extra elements and attributes, values whose raw form cannot be rebuilt
// from the parsed one (an invalid datetime, a time zone offset, upper-case hex …)
// — is kept, as written, in a sparse side map, so Entry(i) gives back exactly
// what was appended.
//
// A lean table (NewLeanEntryTable) keeps less: what a list of entries shows
// and sorts on. See NewLeanEntryTable.
//
// An EntryTable is not safe for concurrent use; once filled, concurrent reads are
// safe as long as nothing appends. Snapshot gives a view of the entries appended
// so far that other goroutines may read while the table goes on appending.
type EntryTable struct {
	n int

	// Arena: chunks are never reallocated nor rewritten once bytes are appended,
	// so strings handed out by Loc and Path can point into them.
	chunks    [][]byte
	chunkSize int

	block   []uint64 // chunk<<32 | offset of the entry's bytes: loc, hash blob, path
	locLen  []uint32
	line    []int32
	flags   []uint8
	lastmod tableDatetime

	hashLen tableColumn[uint16] // bytes of the hash blob after loc
	pathLen tableColumn[uint16]
	length  tableColumn[int64]
	typ     tableColumn[uint16] // interned
	mdLine  tableColumn[uint8]  // md line - entry line + 1; 0 when no md
	index   tableColumn[int32]  // Entry.Index - table index
	change  tableColumn[uint16]
	capab   tableColumn[uint16]
	freq    tableColumn[uint16]
	enc     tableColumn[uint16]

	datetime, at, completed, from, until tableDatetime

	strs   []string // interned; strs[0] == ""
	strIdx map[string]uint16

	// lean: links, other child elements and unknown md attributes are not
	// kept (NewLeanEntryTable); linkN counts the links of each entry.
	lean  bool
	linkN tableColumn[uint16]

	// rare holds the side records of the entries that need one, in pages of
	// rarePage entries allocated only for pages that have one. Unlike a map,
	// pages are only ever written beyond what a Snapshot reads: a page's
	// slot is set once, when its entry is appended, and a page, once in
	// the list, is never replaced.
	rare      [][]*tableRare
	nRare     int
	rareBytes int64
}

// rarePage is the number of entries in a page of EntryTable.rare.
const rarePage = 64

// Entry flags.
const (
	tfHasLoc = 1 << iota
	tfMD
	tfHasPath
	tfLengthOK
	tfLength // a length attribute was present
	tfRare
	tfPartial // lean table: something of the entry was not kept
)

// tableColumn is a column that stays nil until a non-zero value is appended.
type tableColumn[T comparable] struct{ v []T }

func (c *tableColumn[T]) add(i int, x T) {
	var zero T
	if c.v == nil {
		if x == zero {
			return
		}
		c.v = make([]T, i, i+i/4+16)
	}
	c.v = append(c.v, x)
}

func (c *tableColumn[T]) get(i int) T {
	if i < len(c.v) {
		return c.v[i]
	}
	var zero T
	return zero
}

func (c *tableColumn[T]) bytes() int64 {
	var zero T
	return int64(cap(c.v)) * int64(unsafe.Sizeof(zero))
}

// tableDatetime stores datetimes whose Raw is the canonical UTC form of their
// instant and precision: Unix nanoseconds and a meta word.
type tableDatetime struct {
	ns   tableColumn[int64]
	meta tableColumn[uint16] // 0 = absent; precision | fraction digits<<4 | 1<<8 (present)
}

// Rare fields (tableRare.mask).
const (
	trLocRaw = 1 << iota
	trLocCount
	trMDCount
	trMDLine
	trLastmod
	trDatetime
	trAt
	trCompleted
	trFrom
	trUntil
	trHash
	trLength
	trCapability
	trChange
	trType
	trEncoding
	trChangefreq
	trPath
	trIndex
	trLine
	trEmpty
)

// tableRare keeps the fields of one entry that the columns cannot hold.
type tableRare struct {
	mask      uint32
	empty     AttrSet
	emptyKids ChildSet
	locRaw    string
	locCount  int
	mdCount   int
	mdLine    int
	index     int
	line      int
	dts       []tableRareDatetime
	hash      HashList
	hashRaw   string
	lengthRaw string
	length    int64
	lengthOK  bool
	strs      []tableRareString
	mdExtra   []Attr
	links     []Link
	extra     []Element
}

type tableRareDatetime struct {
	field uint32
	dt    Datetime
}

type tableRareString struct {
	field uint32
	s     string
}

// NewEntryTable returns an empty table.
func NewEntryTable() *EntryTable {
	return &EntryTable{strs: []string{""}, strIdx: map[string]uint16{"": 0}, chunkSize: 4 << 10}
}

// NewLeanEntryTable returns an empty table that keeps of each entry what a
// list of millions of entries shows, sorts and filters on: the loc, the md
// attributes the model has a field for, lastmod and changefreq, and how
// many rs:ln links the entry has. The links themselves, other child
// elements and unknown md attributes are left out (often most of an entry's
// bytes, and unbounded): such an entry is Partial, and Entry gives it back
// without them, to be read again from its document when it is wanted whole.
// Every string a lean table keeps is its own copy, so nothing of the
// decoder's buffers stays alive with it.
func NewLeanEntryTable() *EntryTable {
	t := NewEntryTable()
	t.lean = true
	return t
}

// Lean tells whether t was made by NewLeanEntryTable.
func (t *EntryTable) Lean() bool { return t.lean }

// Partial tells whether entry i lost something to a lean table: Entry(i)
// is not the whole entry (its links, unknown attributes or elements are
// missing).
func (t *EntryTable) Partial(i int) bool { return t.flags[i]&tfPartial != 0 }

// Index returns the entry's Entry.Index (its position in its document).
func (t *EntryTable) Index(i int) int {
	if r := t.rareOf(i); r != nil && r.mask&trIndex != 0 {
		return r.index
	}
	return i + int(t.index.get(i))
}

// Len returns the number of entries.
func (t *EntryTable) Len() int { return t.n }

// Append stores a copy of e and returns its index.
func (t *EntryTable) Append(e *Entry) int {
	i := t.n
	var r tableRare
	flags := uint8(0)
	if e.HasLoc {
		flags |= tfHasLoc
	}
	if e.MD.Present {
		flags |= tfMD
	}
	if e.MD.HasPath {
		flags |= tfHasPath
	}
	if e.LocRaw != "" {
		r.mask |= trLocRaw
		r.locRaw = e.LocRaw
	}
	if want := b2i(e.HasLoc); e.LocCount != want {
		r.mask |= trLocCount
		r.locCount = e.LocCount
	}
	if e.MD.Empty != 0 || e.Empty != 0 {
		r.mask |= trEmpty
		r.empty, r.emptyKids = e.MD.Empty, e.Empty
	}
	if want := b2i(e.MD.Present); e.MDCount != want {
		r.mask |= trMDCount
		r.mdCount = e.MDCount
	}
	if d := e.Index - i; d != 0 {
		if d >= math.MinInt32 && d <= math.MaxInt32 {
			t.index.add(i, int32(d))
		} else {
			t.index.add(i, 0) // every column keeps a slot per entry once it has one
			r.mask |= trIndex
			r.index = e.Index
		}
	} else {
		t.index.add(i, 0)
	}
	line := int32(e.Line)
	if int(line) != e.Line {
		line = 0
		r.mask |= trLine
		r.line = e.Line
	}
	mdl := uint8(0)
	if e.MD.Line != 0 {
		if d := e.MD.Line - e.Line; d >= 0 && d < 254 {
			mdl = uint8(d + 1)
		} else {
			r.mask |= trMDLine
			r.mdLine = e.MD.Line
		}
	}

	// Strings block: loc, hash blob, path.
	var hashBlob [160]byte
	blob, ok := encodeTableHash(hashBlob[:0], e.MD.Hash, e.MD.HashRaw)
	if !ok || len(blob) > math.MaxUint16 {
		blob = nil
		r.mask |= trHash
		r.hash, r.hashRaw = cloneHashList(e.MD.Hash), e.MD.HashRaw
	}
	path := e.MD.Path
	if len(path) > math.MaxUint16 {
		r.mask |= trPath
		r.strs = append(r.strs, tableRareString{trPath, path})
		path = ""
	}
	loc := e.Loc
	at := t.reserve(len(loc) + len(blob) + len(path))
	c := len(t.chunks) - 1
	t.chunks[c] = append(append(append(t.chunks[c], loc...), blob...), path...)
	t.block = append(t.block, uint64(c)<<32|uint64(at))
	t.locLen = append(t.locLen, uint32(len(loc)))
	t.hashLen.add(i, uint16(len(blob)))
	t.pathLen.add(i, uint16(len(path)))
	t.line = append(t.line, line)
	t.mdLine.add(i, mdl)

	// Length.
	switch {
	case e.MD.LengthRaw == "" && e.MD.Length == 0 && !e.MD.LengthOK:
		t.length.add(i, 0)
	case e.MD.LengthOK && e.MD.Length >= 0 && e.MD.LengthRaw == strconv.FormatInt(e.MD.Length, 10):
		flags |= tfLength | tfLengthOK
		t.length.add(i, e.MD.Length)
	default:
		t.length.add(i, 0)
		r.mask |= trLength
		r.lengthRaw, r.length, r.lengthOK = e.MD.LengthRaw, e.MD.Length, e.MD.LengthOK
	}

	// Interned strings.
	t.typ.add(i, t.internField(&r, trType, e.MD.Type))
	t.enc.add(i, t.internField(&r, trEncoding, e.MD.Encoding))
	t.change.add(i, t.internField(&r, trChange, string(e.MD.Change)))
	t.capab.add(i, t.internField(&r, trCapability, string(e.MD.Capability)))
	t.freq.add(i, t.internField(&r, trChangefreq, e.Changefreq))

	// Datetimes.
	t.lastmod.add(i, &r, trLastmod, e.Lastmod)
	t.datetime.add(i, &r, trDatetime, e.MD.Datetime)
	t.at.add(i, &r, trAt, e.MD.At)
	t.completed.add(i, &r, trCompleted, e.MD.Completed)
	t.from.add(i, &r, trFrom, e.MD.From)
	t.until.add(i, &r, trUntil, e.MD.Until)

	if t.lean {
		t.linkN.add(i, uint16(min(len(e.Links), math.MaxUint16)))
		if e.MD.Extra != nil || e.Links != nil || e.Extra != nil {
			flags |= tfPartial
		}
		r.ownStrings()
	} else {
		if len(e.MD.Extra) > 0 {
			r.mdExtra = cloneSlice(e.MD.Extra)
		}
		if len(e.Links) > 0 {
			r.links = cloneLinks(e.Links)
		}
		if len(e.Extra) > 0 {
			r.extra = cloneElements(e.Extra)
		}
	}
	if r.mask != 0 || r.mdExtra != nil || r.links != nil || r.extra != nil {
		flags |= tfRare
		rp := new(tableRare)
		*rp = r
		t.putRare(i, rp)
	}
	t.flags = append(t.flags, flags)
	t.n++
	return i
}

// putRare stores the side record of entry i, the last one appended.
func (t *EntryTable) putRare(i int, rp *tableRare) {
	pg := i / rarePage
	for len(t.rare) <= pg {
		t.rare = append(t.rare, nil)
	}
	if t.rare[pg] == nil {
		t.rare[pg] = make([]*tableRare, rarePage)
	}
	t.rare[pg][i%rarePage] = rp
	t.nRare++
	t.rareBytes += rareSize(rp)
}

// ownStrings replaces every string of r by a copy of its own: the decoder's
// strings share its buffers, which one string would keep alive whole.
func (r *tableRare) ownStrings() {
	r.locRaw = strings.Clone(r.locRaw)
	r.hashRaw = strings.Clone(r.hashRaw)
	r.lengthRaw = strings.Clone(r.lengthRaw)
	for k := range r.dts {
		d := &r.dts[k].dt
		d.Raw, d.Fraction = strings.Clone(d.Raw), strings.Clone(d.Fraction)
	}
	for k := range r.strs {
		r.strs[k].s = strings.Clone(r.strs[k].s)
	}
	r.hash = cloneHashList(r.hash)
	for k := range r.hash {
		h := &r.hash[k]
		h.Alg, h.AlgRaw, h.Value = strings.Clone(h.Alg), strings.Clone(h.AlgRaw), strings.Clone(h.Value)
	}
}

// AppendRows appends entries from..to-1 of src, as they are there (a lean
// table's partial entries stay partial; into a lean table, the links and
// extras of src's entries are counted, not kept). It copies columns rather
// than rebuilding entries: a table filled on one goroutine joins another
// at the cost of a copy. src may be a Snapshot, and must not be t.
func (t *EntryTable) AppendRows(src *EntryTable, from, to int) {
	for k := from; k < to; k++ {
		t.appendRow(src, k)
	}
}

func (t *EntryTable) appendRow(s *EntryTable, k int) {
	i := t.n
	blk, _, _, _ := s.entryBytes(k)
	at := t.reserve(len(blk))
	c := len(t.chunks) - 1
	t.chunks[c] = append(t.chunks[c], blk...)
	t.block = append(t.block, uint64(c)<<32|uint64(at))
	t.locLen = append(t.locLen, s.locLen[k])
	t.hashLen.add(i, s.hashLen.get(k))
	t.pathLen.add(i, s.pathLen.get(k))
	t.line = append(t.line, s.line[k])
	t.mdLine.add(i, s.mdLine.get(k))
	t.length.add(i, s.length.get(k))
	flags := s.flags[k]
	old := s.rareOf(k)
	var r tableRare // fields this table must keep aside that src did not
	reintern := func(c *tableColumn[uint16], sc *tableColumn[uint16], field uint32) {
		id := sc.get(k)
		if id != 0 {
			id = t.internField(&r, field, s.strs[id])
		}
		c.add(i, id)
	}
	reintern(&t.typ, &s.typ, trType)
	reintern(&t.enc, &s.enc, trEncoding)
	reintern(&t.change, &s.change, trChange)
	reintern(&t.capab, &s.capab, trCapability)
	reintern(&t.freq, &s.freq, trChangefreq)
	for _, p := range [...]struct{ d, sd *tableDatetime }{
		{&t.lastmod, &s.lastmod}, {&t.datetime, &s.datetime}, {&t.at, &s.at},
		{&t.completed, &s.completed}, {&t.from, &s.from}, {&t.until, &s.until},
	} {
		p.d.ns.add(i, p.sd.ns.get(k))
		p.d.meta.add(i, p.sd.meta.get(k))
	}
	if old == nil || old.mask&trIndex == 0 {
		d := int64(k) + int64(s.index.get(k)) - int64(i)
		if d >= math.MinInt32 && d <= math.MaxInt32 {
			t.index.add(i, int32(d))
		} else {
			t.index.add(i, 0)
			r.mask |= trIndex
			r.index = k + int(s.index.get(k))
		}
	} else {
		t.index.add(i, 0)
	}
	links := s.LinkCount(k)
	if t.lean {
		t.linkN.add(i, uint16(min(links, math.MaxUint16)))
	}
	rp := old
	if t.lean && old != nil && (old.links != nil || old.extra != nil || old.mdExtra != nil) {
		cp := *old
		cp.links, cp.extra, cp.mdExtra = nil, nil, nil
		cp.ownStrings()
		rp = &cp
		flags |= tfPartial
	}
	if r.mask != 0 {
		cp := tableRare{}
		if rp != nil {
			cp = *rp
		}
		cp.mask |= r.mask
		cp.strs = append(slices.Clip(cp.strs), r.strs...)
		if r.mask&trIndex != 0 {
			cp.index = r.index
		}
		rp = &cp
	}
	flags &^= tfRare
	if rp != nil && (rp.mask != 0 || rp.mdExtra != nil || rp.links != nil || rp.extra != nil) {
		flags |= tfRare
		t.putRare(i, rp)
	}
	t.flags = append(t.flags, flags)
	t.n++
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// reserve makes room for n bytes in the last chunk and returns their offset.
func (t *EntryTable) reserve(n int) int {
	if len(t.chunks) > 0 {
		c := t.chunks[len(t.chunks)-1]
		if cap(c)-len(c) >= n {
			return len(c)
		}
	}
	if t.chunkSize < 1<<20 && len(t.chunks) > 0 {
		t.chunkSize *= 2
	}
	size := max(t.chunkSize, n)
	t.chunks = append(t.chunks, make([]byte, 0, size))
	return 0
}

func (t *EntryTable) internField(r *tableRare, field uint32, s string) uint16 {
	if s == "" {
		return 0
	}
	if k, ok := t.strIdx[s]; ok {
		return k
	}
	if len(t.strs) > math.MaxUint16 || len(s) > 256 {
		r.mask |= field
		r.strs = append(r.strs, tableRareString{field, s})
		return 0
	}
	k := uint16(len(t.strs))
	s = strings.Clone(s) // not the decoder's buffer, which it would keep alive
	t.strs = append(t.strs, s)
	t.strIdx[s] = k
	return k
}

func (c *tableDatetime) add(i int, r *tableRare, field uint32, dt Datetime) {
	ns, meta, ok := compactDatetime(dt)
	if !ok {
		r.mask |= field
		r.dts = append(r.dts, tableRareDatetime{field, dt})
	}
	c.ns.add(i, ns)
	c.meta.add(i, meta)
}

func (c *tableDatetime) get(i int) Datetime {
	return expandDatetime(c.ns.get(i), c.meta.get(i))
}

func (c *tableDatetime) bytes() int64 { return c.ns.bytes() + c.meta.bytes() }

// compactDatetime returns the column form of dt, and false when dt cannot be
// rebuilt from it (it then goes to the side map).
func compactDatetime(dt Datetime) (int64, uint16, bool) {
	if dt == (Datetime{}) {
		return 0, 0, true
	}
	if !dt.OK || len(dt.Fraction) > 9 || dt.Time.Year() < 1678 || dt.Time.Year() > 2261 {
		return 0, 0, false
	}
	ns := dt.Time.UnixNano()
	meta := uint16(dt.Precision) | uint16(len(dt.Fraction))<<4 | 1<<8
	back := expandDatetime(ns, meta)
	if back.Raw != dt.Raw || back.Fraction != dt.Fraction || back.HasZone != dt.HasZone || back.UTC != dt.UTC || back.Precision != dt.Precision || !back.Time.Equal(dt.Time) || dt.Time.Location() != time.UTC {
		return 0, 0, false
	}
	return ns, meta, true
}

// expandDatetime rebuilds a datetime in canonical UTC form.
func expandDatetime(ns int64, meta uint16) Datetime {
	if meta == 0 {
		return Datetime{}
	}
	p := Precision(meta & 0xf)
	digits := int(meta>>4) & 0xf
	t := time.Unix(0, ns).UTC()
	var buf [40]byte
	b := buf[:0]
	y, mo, d := t.Date()
	b = appendN(b, y, 4)
	if p >= PrecisionMonth {
		b = appendN(append(b, '-'), int(mo), 2)
	}
	if p >= PrecisionDay {
		b = appendN(append(b, '-'), d, 2)
	}
	dt := Datetime{Time: t, Precision: p, OK: true}
	if p >= PrecisionMinute {
		h, m, s := t.Clock()
		b = appendN(append(b, 'T'), h, 2)
		b = appendN(append(b, ':'), m, 2)
		if p >= PrecisionSecond {
			b = appendN(append(b, ':'), s, 2)
		}
		if p == PrecisionFraction {
			b = append(b, '.')
			fs := len(b)
			b = appendN(b, t.Nanosecond(), 9)[:fs+digits]
		}
		b = append(b, 'Z')
		dt.HasZone, dt.UTC = true, true
	}
	dt.Raw = string(b)
	if p == PrecisionFraction {
		dt.Fraction = dt.Raw[len(dt.Raw)-1-digits : len(dt.Raw)-1]
	}
	return dt
}

// appendN appends v with at least width digits.
func appendN(b []byte, v, width int) []byte {
	var tmp [20]byte
	i := len(tmp)
	for v > 0 || i > len(tmp)-width {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
	}
	return append(b, tmp[i:]...)
}

// Hash blob: per hash, one byte (algorithm code | 0x80 for base64) then the digest.

// tableHashAlg returns the algorithm of a blob code.
func tableHashAlg(code byte) (string, int) {
	switch code {
	case 0:
		return "md5", 16
	case 1:
		return "sha-1", 20
	case 2:
		return "sha-256", 32
	case 3:
		return "sha-384", 48
	}
	return "sha-512", 64
}

func tableHashCode(alg string) (byte, int) {
	for c := byte(0); c < 5; c++ {
		if name, size := tableHashAlg(c); name == alg {
			return c, size
		}
	}
	return 0xff, 0
}

func encodeTableHash(dst []byte, h HashList, raw string) ([]byte, bool) {
	if h == nil {
		return dst, raw == ""
	}
	if len(h) == 0 || len(h) > 4 {
		return dst, false
	}
	n := 0
	for k, x := range h {
		code, size := tableHashCode(x.Alg)
		if code == 0xff || x.AlgRaw != x.Alg || len(x.Digest) != size || x.Digest == nil {
			return dst, false
		}
		switch x.Encoding {
		case HashHex:
			if x.Value != hex.EncodeToString(x.Digest) {
				return dst, false
			}
		case HashBase64:
			if x.Value != base64.StdEncoding.EncodeToString(x.Digest) {
				return dst, false
			}
			code |= 0x80
		default:
			return dst, false
		}
		// Raw must be the tokens joined by single spaces.
		tok := len(x.Alg) + 1 + len(x.Value)
		if k > 0 {
			if n >= len(raw) || raw[n] != ' ' {
				return dst, false
			}
			n++
		}
		if n+tok > len(raw) || raw[n:n+len(x.Alg)] != x.Alg || raw[n+len(x.Alg)] != ':' || raw[n+len(x.Alg)+1:n+tok] != x.Value {
			return dst, false
		}
		n += tok
		dst = append(dst, code)
		dst = append(dst, x.Digest...)
	}
	return dst, n == len(raw)
}

func decodeTableHash(blob []byte) (HashList, string) {
	if len(blob) == 0 {
		return nil, ""
	}
	// First pass: count hashes and the raw length.
	n, rawLen, digests := 0, 0, 0
	for p := 0; p < len(blob); n++ {
		name, size := tableHashAlg(blob[p] & 0x7f)
		if n > 0 {
			rawLen++
		}
		rawLen += len(name) + 1
		if blob[p]&0x80 != 0 {
			rawLen += base64.StdEncoding.EncodedLen(size)
		} else {
			rawLen += 2 * size
		}
		digests += size
		p += 1 + size
	}
	raw := make([]byte, 0, rawLen)
	list := make(HashList, n)
	dig := make([]byte, digests)
	type span struct{ alg, val, valEnd int }
	spans := make([]span, 0, 4)
	at := 0
	for p, k := 0, 0; p < len(blob); k++ {
		name, size := tableHashAlg(blob[p] & 0x7f)
		if k > 0 {
			raw = append(raw, ' ')
		}
		s := span{alg: len(raw)}
		raw = append(append(raw, name...), ':')
		s.val = len(raw)
		d := blob[p+1 : p+1+size]
		if blob[p]&0x80 != 0 {
			raw = base64.StdEncoding.AppendEncode(raw, d)
			list[k].Encoding = HashBase64
		} else {
			raw = hex.AppendEncode(raw, d)
			list[k].Encoding = HashHex
		}
		s.valEnd = len(raw)
		spans = append(spans, s)
		copy(dig[at:], d)
		list[k].Digest = dig[at : at+size : at+size]
		at += size
		p += 1 + size
	}
	rs := string(raw)
	for k, s := range spans {
		list[k].Alg = rs[s.alg : s.val-1]
		list[k].AlgRaw = list[k].Alg
		list[k].Value = rs[s.val:s.valEnd]
	}
	return list, rs
}

// cloneSlice copies s, keeping nil and empty apart.
func cloneSlice[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}

func cloneHashList(h HashList) HashList {
	out := cloneSlice(h)
	for k := range out {
		out[k].Digest = cloneSlice(out[k].Digest)
	}
	return out
}

func cloneLinks(ls []Link) []Link {
	out := cloneSlice(ls)
	for k := range out {
		out[k].Hash = cloneHashList(out[k].Hash)
		out[k].Extra = cloneSlice(out[k].Extra)
	}
	return out
}

func cloneElements(es []Element) []Element {
	out := cloneSlice(es)
	for k := range out {
		out[k].Attrs = cloneSlice(out[k].Attrs)
	}
	return out
}

func rareSize(r *tableRare) int64 {
	n := int64(unsafe.Sizeof(*r)) + 48 // map slot and pointer
	n += int64(len(r.locRaw) + len(r.hashRaw) + len(r.lengthRaw))
	n += int64(len(r.dts)) * int64(unsafe.Sizeof(tableRareDatetime{}))
	for _, s := range r.strs {
		n += int64(unsafe.Sizeof(s)) + int64(len(s.s))
	}
	for _, h := range r.hash {
		n += int64(unsafe.Sizeof(h)) + int64(len(h.Value)+len(h.Digest))
	}
	for _, a := range r.mdExtra {
		n += int64(unsafe.Sizeof(a)) + int64(len(a.Value))
	}
	for _, l := range r.links {
		n += int64(unsafe.Sizeof(l)) + int64(len(l.Href)+len(l.Rel)+len(l.HashRaw)+len(l.Type)+len(l.Path))
	}
	for _, e := range r.extra {
		n += int64(unsafe.Sizeof(e)) + int64(len(e.Text)+len(e.Inner)) + int64(len(e.Attrs))*int64(unsafe.Sizeof(Attr{}))
	}
	return n
}

func (t *EntryTable) rareOf(i int) *tableRare {
	if t.flags[i]&tfRare == 0 {
		return nil
	}
	return t.rare[i/rarePage][i%rarePage]
}

func (r *tableRare) datetime(field uint32) (Datetime, bool) {
	if r == nil || r.mask&field == 0 {
		return Datetime{}, false
	}
	for _, d := range r.dts {
		if d.field == field {
			return d.dt, true
		}
	}
	return Datetime{}, false
}

func (r *tableRare) str(field uint32) (string, bool) {
	if r == nil || r.mask&field == 0 {
		return "", false
	}
	for _, s := range r.strs {
		if s.field == field {
			return s.s, true
		}
	}
	return "", false
}

// entryBytes returns the entry's arena block and the lengths of its parts.
func (t *EntryTable) entryBytes(i int) (blk []byte, locN, hashN, pathN int) {
	b := t.block[i]
	c, off := int(b>>32), int(uint32(b))
	locN, hashN, pathN = int(t.locLen[i]), int(t.hashLen.get(i)), int(t.pathLen.get(i))
	return t.chunks[c][off : off+locN+hashN+pathN], locN, hashN, pathN
}

// arenaString returns a string sharing the arena's memory (never rewritten).
func arenaString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// Loc returns the entry's loc. It does not allocate.
func (t *EntryTable) Loc(i int) string {
	blk, n, _, _ := t.entryBytes(i)
	return arenaString(blk[:n])
}

// Path returns the md path attribute. It does not allocate.
func (t *EntryTable) Path(i int) string {
	if s, ok := t.rareOf(i).str(trPath); ok {
		return s
	}
	blk, l, h, _ := t.entryBytes(i)
	return arenaString(blk[l+h:])
}

// HashRaw returns the md hash attribute as written.
func (t *EntryTable) HashRaw(i int) string {
	if r := t.rareOf(i); r != nil && r.mask&trHash != 0 {
		return r.hashRaw
	}
	_, raw := t.hash(i)
	return raw
}

// Hash returns the parsed md hash attribute.
func (t *EntryTable) Hash(i int) HashList {
	if r := t.rareOf(i); r != nil && r.mask&trHash != 0 {
		return cloneHashList(r.hash)
	}
	h, _ := t.hash(i)
	return h
}

func (t *EntryTable) hash(i int) (HashList, string) {
	blk, l, h, _ := t.entryBytes(i)
	return decodeTableHash(blk[l : l+h])
}

func (t *EntryTable) datetimeField(i int, c *tableDatetime, field uint32) Datetime {
	if d, ok := t.rareOf(i).datetime(field); ok {
		return d
	}
	return c.get(i)
}

// Lastmod returns the entry's lastmod.
func (t *EntryTable) Lastmod(i int) Datetime { return t.datetimeField(i, &t.lastmod, trLastmod) }

// Datetime returns the md datetime attribute (the time of a change).
func (t *EntryTable) Datetime(i int) Datetime { return t.datetimeField(i, &t.datetime, trDatetime) }

// At returns the md at attribute (index and dump entries).
func (t *EntryTable) At(i int) Datetime { return t.datetimeField(i, &t.at, trAt) }

// Completed returns the md completed attribute.
func (t *EntryTable) Completed(i int) Datetime {
	return t.datetimeField(i, &t.completed, trCompleted)
}

// From returns the md from attribute.
func (t *EntryTable) From(i int) Datetime { return t.datetimeField(i, &t.from, trFrom) }

// Until returns the md until attribute.
func (t *EntryTable) Until(i int) Datetime { return t.datetimeField(i, &t.until, trUntil) }

// Length returns the md length and whether it is valid.
func (t *EntryTable) Length(i int) (int64, bool) {
	if r := t.rareOf(i); r != nil && r.mask&trLength != 0 {
		return r.length, r.lengthOK
	}
	return t.length.get(i), t.flags[i]&tfLengthOK != 0
}

func (t *EntryTable) interned(i int, c *tableColumn[uint16], field uint32) string {
	if s, ok := t.rareOf(i).str(field); ok {
		return s
	}
	return t.strs[c.get(i)]
}

// Type returns the md type attribute.
func (t *EntryTable) Type(i int) string { return t.interned(i, &t.typ, trType) }

// Change returns the md change attribute.
func (t *EntryTable) Change(i int) Change { return Change(t.interned(i, &t.change, trChange)) }

// Capability returns the md capability attribute.
func (t *EntryTable) Capability(i int) Capability {
	return Capability(t.interned(i, &t.capab, trCapability))
}

// LinkCount returns the number of rs:ln elements of the entry.
func (t *EntryTable) LinkCount(i int) int {
	if t.lean {
		return int(t.linkN.get(i))
	}
	if r := t.rareOf(i); r != nil {
		return len(r.links)
	}
	return 0
}

// Links returns the entry's rs:ln elements.
func (t *EntryTable) Links(i int) []Link {
	if r := t.rareOf(i); r != nil && r.links != nil {
		return cloneLinks(r.links)
	}
	return nil
}

// Entry returns a full copy of entry i, equal to what was appended.
func (t *EntryTable) Entry(i int) Entry {
	r := t.rareOf(i)
	blk, l, h, _ := t.entryBytes(i)
	flags := t.flags[i]
	e := Entry{
		Index:    i + int(t.index.get(i)),
		Line:     int(t.line[i]),
		Loc:      string(blk[:l]),
		HasLoc:   flags&tfHasLoc != 0,
		LocCount: b2i(flags&tfHasLoc != 0),
		MDCount:  b2i(flags&tfMD != 0),
	}
	e.Lastmod = t.Lastmod(i)
	e.Changefreq = t.interned(i, &t.freq, trChangefreq)
	md := &e.MD
	md.Present = flags&tfMD != 0
	if r != nil && r.mask&trLine != 0 {
		e.Line = r.line
	}
	if d := t.mdLine.get(i); d != 0 {
		md.Line = e.Line + int(d) - 1
	}
	md.Capability = t.Capability(i)
	md.Change = t.Change(i)
	md.At, md.Completed, md.From, md.Until, md.Datetime = t.At(i), t.Completed(i), t.From(i), t.Until(i), t.Datetime(i)
	md.Hash, md.HashRaw = decodeTableHash(blk[l : l+h])
	if flags&tfLength != 0 {
		md.Length, md.LengthOK = t.length.get(i), true
		md.LengthRaw = strconv.FormatInt(md.Length, 10)
	}
	md.Type = t.Type(i)
	md.Encoding = t.interned(i, &t.enc, trEncoding)
	md.HasPath = flags&tfHasPath != 0
	md.Path = strings.Clone(t.Path(i))
	if r != nil {
		if r.mask&trLocRaw != 0 {
			e.LocRaw = r.locRaw
		}
		if r.mask&trLocCount != 0 {
			e.LocCount = r.locCount
		}
		if r.mask&trMDCount != 0 {
			e.MDCount = r.mdCount
		}
		if r.mask&trEmpty != 0 {
			md.Empty, e.Empty = r.empty, r.emptyKids
		}
		if r.mask&trMDLine != 0 {
			md.Line = r.mdLine
		}
		if r.mask&trIndex != 0 {
			e.Index = r.index
		}
		if r.mask&trHash != 0 {
			md.Hash, md.HashRaw = cloneHashList(r.hash), r.hashRaw
		}
		if r.mask&trLength != 0 {
			md.LengthRaw, md.Length, md.LengthOK = r.lengthRaw, r.length, r.lengthOK
		}
		if r.mdExtra != nil {
			md.Extra = cloneSlice(r.mdExtra)
		}
		if r.links != nil {
			e.Links = cloneLinks(r.links)
		}
		if r.extra != nil {
			e.Extra = cloneElements(r.extra)
		}
	}
	return e
}

// Bytes returns the approximate memory the table holds.
func (t *EntryTable) Bytes() int64 {
	n := int64(unsafe.Sizeof(*t))
	for _, c := range t.chunks {
		n += int64(cap(c))
	}
	n += int64(cap(t.chunks)) * 24
	n += int64(cap(t.block))*8 + int64(cap(t.locLen))*4 + int64(cap(t.line))*4 + int64(cap(t.flags))
	n += t.lastmod.bytes() + t.datetime.bytes() + t.at.bytes() + t.completed.bytes() + t.from.bytes() + t.until.bytes()
	n += t.hashLen.bytes() + t.pathLen.bytes() + t.length.bytes() + t.typ.bytes() + t.mdLine.bytes() + t.index.bytes()
	n += t.change.bytes() + t.capab.bytes() + t.freq.bytes() + t.enc.bytes() + t.linkN.bytes()
	for _, s := range t.strs {
		n += 16 + int64(len(s)) + 32 // slice slot, bytes, map slot
	}
	n += int64(cap(t.rare)) * 24
	for _, pg := range t.rare {
		n += int64(cap(pg)) * 8
	}
	return n + t.rareBytes
}

// Snapshot returns a read-only view of the entries appended so far: other
// goroutines may read it (every accessor, for indexes below its Len) while t
// goes on appending, since Append only ever writes beyond what a view reads.
// The view must not be appended to.
func (t *EntryTable) Snapshot() *EntryTable {
	s := *t
	// Append rewrites the header of the last chunk (its length): the view
	// keeps copies of the headers. Every other slice is only appended to.
	s.chunks = slices.Clone(t.chunks)
	s.strIdx = nil // read by Append only
	return &s
}

// DatetimeField names a datetime of an entry, for UnixNano.
type DatetimeField uint8

// The datetimes of an entry.
const (
	FieldLastmod DatetimeField = iota
	FieldDatetime
	FieldAt
	FieldCompleted
	FieldFrom
	FieldUntil
)

// UnixNano returns the instant of datetime f of entry i as Unix nanoseconds,
// without writing its text as the Datetime accessors do (sort keys of
// millions of entries); ok is false when the entry has none or it is not a
// valid datetime.
func (t *EntryTable) UnixNano(f DatetimeField, i int) (ns int64, ok bool) {
	var c *tableDatetime
	var field uint32
	switch f {
	case FieldLastmod:
		c, field = &t.lastmod, trLastmod
	case FieldDatetime:
		c, field = &t.datetime, trDatetime
	case FieldAt:
		c, field = &t.at, trAt
	case FieldCompleted:
		c, field = &t.completed, trCompleted
	case FieldFrom:
		c, field = &t.from, trFrom
	case FieldUntil:
		c, field = &t.until, trUntil
	default:
		return 0, false
	}
	if d, ok := t.rareOf(i).datetime(field); ok {
		if !d.OK {
			return 0, false
		}
		return d.Time.UnixNano(), true
	}
	if c.meta.get(i) == 0 {
		return 0, false
	}
	return c.ns.get(i), true
}
