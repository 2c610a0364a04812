package model

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
		bad := byte(0)
		for o := range d {
			hi, lo := hexValues[v[2*o]], hexValues[v[2*o+1]]
			bad |= hi | lo
			d[o] = hi<<4 | lo
		}
		if bad > 0xf {
			return nil, false
		}
		at += len(d)
		list[k] = Hash{Alg: algs[k], AlgRaw: s[starts[k]-len(algs[k])-1 : starts[k]-1], Value: v, Digest: d, Encoding: HashHex}
	}
	return list, true
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

// hexValues maps a byte to its value as a hex digit, 0xff when it is not one.
const hexValues = "" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\xff\xff\xff\xff\xff\xff" +
	"\xff\x0a\x0b\x0c\x0d\x0e\x0f\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\x0a\x0b\x0c\x0d\x0e\x0f\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"

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
