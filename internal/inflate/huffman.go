package inflate

import "math/bits"

// Decode tables. One lookup of the low bits of the bit buffer in a primary
// table gives an entry (uint32) that says everything about the symbol:
//
//	bits  0-4   bits to drop for the whole symbol: code length plus, for a
//	            length or distance, its extra bits; for a pair of literals
//	            both their code lengths
//	bits  8-11  code length alone (where the extra bits start); for
//	            literals, how many the entry holds (1 or 2)
//	bits 12-15  flags (below)
//	bits 16-31  the literal byte (two for a pair, the first in 16-23), the
//	            length or distance base, or, for a subtable link, the
//	            subtable's offset in the table
//
// The low byte is exactly the bits to drop, so that the decoder may
// subtract a whole entry from its bit count and use only the low byte.
//
// An entry of the litlen primary table whose literal leaves room in the
// index bits for a second literal's whole code holds both literals: runs of
// literals decode two at a time.
//
// A code longer than the primary table's bits is found through a link entry,
// whose bits 8-11 give the subtable's own index bits; the subtable's entries
// carry the full code length, so a symbol is dropped in one shift either way.
const (
	flagLit     = 1 << 15 // a literal byte
	flagSub     = 1 << 14 // a link to a subtable
	flagEOB     = 1 << 13 // end of block
	flagInvalid = 1 << 12 // no symbol has this code, or the symbol is not allowed

	litBits    = 10 // primary litlen table index bits
	distBits   = 8  // primary distance table index bits
	clenBits   = 7  // code-length code table index bits (its codes are at most 7 bits)
	maxCodeLen = 15

	numLitLen = 288
	numDist   = 32

	// Table sizes: a primary table, then the subtables. Only complete codes
	// have subtables (the incomplete ones accepted have one code of one
	// bit). A subtable of 2^k entries serves the codes behind one prefix,
	// k bits longer at most: a complete subtree of depth k, which has at
	// least k+1 leaves. So the subtables hold at most 2^k/(k+1) entries per
	// symbol, greatest for the largest k (15 minus the primary bits):
	// 32/6 for litlen, 128/8 for distances (30 symbols at most have
	// codes of more than 5 bits).
	litTableSize  = 1<<litBits + numLitLen*(1<<(maxCodeLen-litBits))/(maxCodeLen-litBits+1)
	distTableSize = 1<<distBits + 30*(1<<(maxCodeLen-distBits))/(maxCodeLen-distBits+1)
	clenTableSize = 1 << clenBits
)

// Base values and extra bits of the length symbols 257-285 and the distance
// symbols 0-29 (RFC 1951, 3.2.5).
var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
)

// litLenEntry is the entry, without its code length, of litlen symbol sym.
func litLenEntry(sym int) uint32 {
	switch {
	case sym < 256:
		return flagLit | uint32(sym)<<16 | 1<<8
	case sym == 256:
		return flagEOB
	case sym <= 285:
		i := sym - 257
		return uint32(lengthBase[i])<<16 | uint32(lengthExtra[i])
	default: // 286 and 287 have fixed codes but no meaning
		return flagInvalid
	}
}

// distEntry is the entry, without its code length, of distance symbol sym.
func distEntry(sym int) uint32 {
	if sym < 30 {
		return uint32(distBase[sym])<<16 | uint32(distExtra[sym])
	}
	return flagInvalid // 30 and 31 have fixed codes but no meaning
}

// The entries without code lengths of the litlen, distance and code-length
// symbols, for build.
var (
	litLenEntries = entryTable(numLitLen, litLenEntry)
	distEntries   = entryTable(numDist, distEntry)
	clenEntries   = entryTable(19, func(sym int) uint32 { return uint32(sym) << 16 })
)

func entryTable(n int, entry func(int) uint32) []uint32 {
	t := make([]uint32, n)
	for s := range t {
		t[s] = entry(s)
	}
	return t
}

// tableBuilder holds the scratch space of building one table.
type tableBuilder struct {
	count  [maxCodeLen + 1]uint16
	offs   [maxCodeLen + 1]uint16
	sorted [numLitLen]uint16
	subMax [1 << litBits]uint8
}

// build fills table for the canonical Huffman code whose code lengths are
// lens (0: the symbol has no code; none is over 15), with primary index
// bits tb; ents[s] is symbol s's entry without its code length. Unused
// codes get an invalid entry whose code length is the shortest code's, or
// minLen if that is longer. It reports false for a code that is
// over-subscribed, or incomplete other than the two kinds RFC 1951
// decoders accept (no codes at all, or a single code of one bit): the same
// codes the standard library's compress/flate refuses.
func (b *tableBuilder) build(table []uint32, lens []uint8, tb uint, ents []uint32, minLen uint) bool {
	// Two counts, so that runs of one length make two chains of increments
	// through memory, each half as long.
	var c0, c1 [maxCodeLen + 1]uint16
	n := len(lens) &^ 1
	for i := 0; i < n; i += 2 {
		c0[lens[i]&15]++
		c1[lens[i+1]&15]++
	}
	if n < len(lens) {
		c0[lens[n]&15]++
	}
	for l := range c0 {
		b.count[l] = c0[l] + c1[l]
	}
	ncodes := 0
	b.count[0] = 0
	left := 1
	for l := 1; l <= maxCodeLen; l++ {
		left = left<<1 - int(b.count[l])
		ncodes += int(b.count[l])
		if left < 0 {
			return false
		}
	}
	if left > 0 && ncodes != 0 && !(ncodes == 1 && b.count[1] == 1) {
		return false
	}

	for l := uint(1); l <= maxCodeLen; l++ {
		if b.count[l] != 0 {
			minLen = max(minLen, l)
			break
		}
	}
	invalid := uint32(flagInvalid) | uint32(minLen)<<8 | uint32(minLen)
	primary := table[:1<<tb]
	if ncodes == 0 {
		for i := range primary {
			primary[i] = invalid
		}
		return true
	}

	// Symbols in canonical order: by code length, then by symbol.
	b.offs[1] = 0
	for l := 1; l < maxCodeLen; l++ {
		b.offs[l+1] = b.offs[l] + b.count[l]
	}
	for s, l := range lens {
		if l != 0 {
			b.sorted[b.offs[l]] = uint16(s)
			b.offs[l]++
		}
	}
	sorted := b.sorted[:ncodes]

	// The codes of at most tb bits, by length: those of length l go in the
	// table's first 2^l entries, which are then copied after themselves to
	// make the first 2^(l+1), the entries of the codes l bits long being
	// those whose low l bits are the code. Entries no code reaches (an
	// incomplete code, or prefixes of longer codes) stay invalid.
	primary[0] = invalid
	code := uint32(0) // canonical: the next code of the current length
	si := 0
	for l := uint(1); l <= tb; l++ {
		half := primary[: 1<<(l-1) : 1<<(l-1)]
		copy(primary[len(half):2*len(half)], half)
		n := int(b.count[l])
		for _, s := range sorted[si : si+n] {
			e := ents[s] + uint32(l)
			if e&flagLit == 0 {
				e += uint32(l) << 8
			}
			primary[(uint32(bits.Reverse16(uint16(code)))>>(16-l))&(1<<tb-1)] = e
			code++
		}
		si += n
		code <<= 1
	}
	long := sorted[si:]
	if len(long) == 0 {
		return true
	}

	// The longer codes. First pass: the longest code behind each primary
	// prefix decides that prefix's subtable size.
	mask := uint32(1)<<tb - 1
	b.subMax = [1 << litBits]uint8{}
	firstLong := code
	l := uint8(tb + 1)
	for _, s := range long {
		sl := lens[s]
		code <<= sl - l
		l = sl
		rev := uint32(bits.Reverse16(uint16(code))) >> (16 - sl)
		p := rev & mask
		if sl > b.subMax[p] {
			b.subMax[p] = sl
		}
		code++
	}

	next := uint32(1) << tb // where the next subtable starts
	curPrefix := ^uint32(0) // the prefix whose subtable is being filled
	code, l = firstLong, uint8(tb+1)
	for _, s := range long {
		sl := lens[s]
		code <<= sl - l
		l = sl
		rev := uint32(bits.Reverse16(uint16(code))) >> (16 - sl)
		code++
		e := ents[s] + uint32(sl)
		if e&flagLit == 0 {
			e += uint32(sl) << 8
		}
		p := rev & mask
		link := primary[p]
		if p != curPrefix { // first code behind this prefix (they come together): make its subtable
			curPrefix = p
			sb := uint(b.subMax[p]) - tb
			link = flagSub | next<<16 | uint32(sb)<<8 | uint32(tb)
			primary[p] = link
			sub := table[next : next+1<<sb]
			for i := range sub {
				sub[i] = invalid
			}
			next += 1 << sb
		}
		off := link >> 16
		sb := (link >> 8) & 15
		for i := rev >> tb; i < 1<<sb; i += 1 << (uint(sl) - tb) {
			table[off+i] = e
		}
	}
	return true
}

// pairLiterals makes the entries of the primary litlen table primary whose
// literal leaves room for a second literal's code hold both. It goes from
// the top down: the second literal's entry, at a lower index, is still a
// single literal when it is read.
func pairLiterals(primary *[1 << litBits]uint32) {
	for i := len(primary) - 1; i >= 0; i-- {
		e1 := primary[i]
		if e1&flagLit == 0 {
			continue
		}
		l1 := e1 & 31
		e2 := primary[(uint32(i)>>l1)&(1<<litBits-1)]
		if e2&flagLit == 0 || (e2&31)+l1 > litBits {
			continue
		}
		primary[i] = flagLit | e1&0xff0000 | (e2>>16&0xff)<<24 | 2<<8 | (l1 + e2&31)
	}
}
