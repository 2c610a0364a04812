package model

import (
	"encoding/binary"
	"unicode/utf8"
)

// XML names (XML 1.0, fifth edition, section 2.3): which characters may
// start a name and which may continue one. The decoder checks ASCII bytes
// with its tables; these decide the characters beyond ASCII, so that, for
// example, a no-break space inside a tag (where XML allows only its own
// white space) is malformed XML rather than part of an element's name.

// xmlNameStartRune tells whether r (not ASCII) may start an XML name.
func xmlNameStartRune(r rune) bool {
	switch {
	case r >= 0xC0 && r <= 0xD6, r >= 0xD8 && r <= 0xF6, r >= 0xF8 && r <= 0x2FF,
		r >= 0x370 && r <= 0x37D, r >= 0x37F && r <= 0x1FFF, r >= 0x200C && r <= 0x200D,
		r >= 0x2070 && r <= 0x218F, r >= 0x2C00 && r <= 0x2FEF, r >= 0x3001 && r <= 0xD7FF,
		r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFFD, r >= 0x10000 && r <= 0xEFFFF:
		return true
	}
	return false
}

// xmlNameRune tells whether r (not ASCII) may continue an XML name.
func xmlNameRune(r rune) bool {
	return xmlNameStartRune(r) || r == 0xB7 || r >= 0x300 && r <= 0x36F || r >= 0x203F && r <= 0x2040
}

// badNameRune returns the first character of a scanned name that XML does
// not allow where it stands (the first of the name, or of its local part
// after a colon, must be a start character); ok is false when there is
// none. Invalid UTF-8 is reported as utf8.RuneError.
func badNameRune(name []byte) (r rune, ok bool) {
	start := true
	for i := 0; i < len(name); {
		c := name[i]
		if c < 0x80 {
			start = c == ':'
			i++
			continue
		}
		r, n := utf8.DecodeRune(name[i:])
		if r == utf8.RuneError && n <= 1 {
			return r, true
		}
		if start && !xmlNameStartRune(r) || !start && !xmlNameRune(r) {
			return r, true
		}
		start = false
		i += n
	}
	return 0, false
}

// nameRunesOK tells whether the characters of a scanned name beyond ASCII
// are allowed where they stand; most names are ASCII, which is checked
// eight bytes at a time.
func nameRunesOK(name []byte) bool {
	b := name
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			_, bad := badNameRune(name)
			return !bad
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= 0x80 {
			_, bad := badNameRune(name)
			return !bad
		}
	}
	return true
}
