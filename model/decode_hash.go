package model

// fastHashList parses the common form of a hash attribute — lower-case known
// algorithms with hex digests of the right length, separated by single spaces —
// giving exactly what ParseHashList gives for it, several times faster. It
// reports false for anything else, which the caller hands to ParseHashList.
func fastHashList(s string) (HashList, bool) {
	n := 1
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			n++
		}
	}
	if n > 4 || len(s) == 0 {
		return nil, false
	}
	var algs [4]string
	var starts, ends [4]int
	total := 0
	for k, i := 0, 0; k < n; k++ {
		alg, size := fastHashAlg(s[i:])
		if alg == "" {
			return nil, false
		}
		for _, prev := range algs[:k] {
			if prev == alg {
				return nil, false
			}
		}
		v := i + len(alg) + 1
		end := v + 2*size
		if end > len(s) || (end < len(s) && s[end] != ' ') || (end == len(s)) != (k == n-1) {
			return nil, false
		}
		algs[k], starts[k], ends[k] = alg, v, end
		total += size
		i = end + 1
	}
	list := make(HashList, n)
	buf := make([]byte, total)
	at := 0
	for k := 0; k < n; k++ {
		v := s[starts[k]:ends[k]]
		d := buf[at : at+len(v)/2 : at+len(v)/2]
		for j := 0; j < len(v); j += 2 {
			hi, lo := unhex(v[j]), unhex(v[j+1])
			if hi|lo > 0xf {
				return nil, false
			}
			d[j/2] = hi<<4 | lo
		}
		at += len(d)
		list[k] = Hash{Alg: algs[k], AlgRaw: s[starts[k]-len(algs[k])-1 : starts[k]-1], Value: v, Digest: d, Encoding: HashHex}
	}
	return list, true
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

// unhex returns the value of a hex digit, or 0xff.
func unhex(c byte) byte { return hexValues[c] }

// parseHashAttr parses a hash attribute value, taking the fast path when it can.
func parseHashAttr(s string) HashList {
	if h, ok := fastHashList(s); ok {
		return h
	}
	h, _ := ParseHashList(s)
	return h
}
