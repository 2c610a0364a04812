package model

import "encoding/binary"

// fastHashList parses the common form of a hash attribute — lower-case known
// algorithms with hex digests of the right length, separated by single spaces —
// giving exactly what ParseHashList gives for it, several times faster. It
// reports false for anything else, which the caller hands to ParseHashList.
//
// The list and its digests are stored in blk (allocated when nil).
func fastHashList(s string, blk *hashBlock) (HashList, bool) {
	var algs [2]string
	var starts, ends [2]int
	n, total := 0, 0
	for i := 0; i < len(s); n++ {
		if n == len(algs) {
			return nil, false
		}
		alg, size := fastHashAlg(s[i:])
		if alg == "" || (n == 1 && algs[0] == alg) {
			return nil, false
		}
		v := i + len(alg) + 1
		end := v + 2*size
		if end > len(s) || (end < len(s) && (s[end] != ' ' || end == len(s)-1)) {
			return nil, false
		}
		algs[n], starts[n], ends[n] = alg, v, end
		total += size
		i = end + 1
	}
	if n == 0 || total > 64 {
		return nil, false
	}
	// One block holds the list and its digests.
	if blk == nil {
		blk = new(hashBlock)
	}
	list := blk.h[:n:n]
	at := 0
	for k := 0; k < n; k++ {
		v := s[starts[k]:ends[k]]
		d := blk.d[at : at+len(v)/2 : at+len(v)/2]
		v = v[:2*len(d)]
		// Every digest size of fastHashAlg is a multiple of 4 bytes.
		for o := 0; o < len(d); o += 4 {
			x, ok := decodeHex8(v[2*o : 2*o+8])
			if !ok {
				return nil, false
			}
			binary.LittleEndian.PutUint32(d[o:], x)
		}
		at += len(d)
		list[k] = Hash{Alg: algs[k], AlgRaw: s[starts[k]-len(algs[k])-1 : starts[k]-1], Value: v, Digest: d, Encoding: HashHex}
	}
	return list, true
}

// decodeHex8 decodes 8 hex digits (either case) into 4 bytes, in the order
// written, all at once; ok is false when one of them is not a hex digit.
func decodeHex8(s string) (x uint32, ok bool) {
	_ = s[7]
	w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	const ones, high = 0x0101010101010101, 0x8080808080808080
	if w&high != 0 {
		return 0, false
	}
	// A byte's high bit set when it is in [lo, hi] (for bytes below 0x80).
	in := func(w uint64, lo, hi byte) uint64 {
		return (w + ones*uint64(0x80-lo)) &^ (w + ones*uint64(0x7f-hi)) & high
	}
	digit := in(w, '0', '9')
	letter := in(w|ones*0x20, 'a', 'f')
	if digit|letter != high {
		return 0, false
	}
	v := w&(ones*0x0f) + (letter>>7)*9 // each byte's value, 0 to 15
	t := (v<<4 | v>>8) & 0x00ff00ff00ff00ff
	t = (t | t>>8) & 0x0000ffff0000ffff
	t = (t | t>>16) & 0xffffffff
	return uint32(t), true
}

// hashBlock is the storage of a short hash list: up to two hashes and 64 bytes of
// digests (md5 + sha-256 takes 48).
type hashBlock struct {
	h [2]Hash
	d [64]byte
}

// fastHashAlg recognises a normalised algorithm token followed by ':'.
func fastHashAlg(s string) (string, int) {
	switch {
	case len(s) > 4 && s[:4] == "md5:":
		return "md5", 16
	case len(s) > 8 && s[:8] == "sha-256:":
		return "sha-256", 32
	case len(s) > 6 && s[:6] == "sha-1:":
		return "sha-1", 20
	case len(s) > 8 && s[:8] == "sha-512:":
		return "sha-512", 64
	case len(s) > 8 && s[:8] == "sha-384:":
		return "sha-384", 48
	}
	return "", 0
}

// parseHashAttr parses a hash attribute value, taking the fast path when it
// can. The list is stored in a (allocated when a is nil).
func parseHashAttr(s string, a *arena) HashList {
	var blk *hashBlock
	if a != nil {
		blk = a.block()
	}
	if h, ok := fastHashList(s, blk); ok {
		if a != nil {
			a.take()
		}
		return h
	}
	h, _ := ParseHashList(s)
	return h
}
