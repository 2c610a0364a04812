package model

import (
	"bytes"
	"unicode/utf8"
)

// Character data and attribute values: references expanded, XML
// normalisation, UTF-8 and character checks.

// attrValue returns the decoded value of a; the result is valid until the next
// call or window refill.
func (d *Decoder) attrValue(b []byte, a *rawAttr) ([]byte, error) {
	v := b[a.val:a.valEnd]
	if a.flags&^attrNonASCII == 0 {
		if a.flags != 0 && !utf8.Valid(v) {
			return nil, d.syntaxErr(d.lineAt(d.pos+a.val), "invalid UTF-8 in the value of attribute %s", b[a.name:a.nameEnd])
		}
		return v, nil
	}
	var err error
	d.scratch, err = d.appendDecoded(d.scratch[:0], v, true, d.lineAt(d.pos+a.val))
	return d.scratch, err
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// appendDecoded appends raw character data with references expanded; line is
// the line errors are reported on (-1: the current line, counted only then). In attribute
// values tab, newline and carriage return become spaces (XML attribute-value
// normalisation); in text, CR LF becomes LF.
func (d *Decoder) appendDecoded(dst, raw []byte, attr bool, line int) ([]byte, error) {
	clean := true
	for k := 0; k < len(raw); k += 8 {
		if anySpecial(raw[k:min(k+8, len(raw))]) {
			clean = false
			break
		}
	}
	if clean {
		return append(dst, raw...), nil
	}
	if line < 0 {
		line = d.curLine()
	}
	if !isASCII(raw) && !utf8.Valid(raw) {
		return dst, d.syntaxErr(line, "invalid UTF-8 in character data")
	}
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '&':
			j := bytes.IndexByte(raw[i:], ';')
			if j < 0 || j > 12 {
				return dst, d.syntaxErr(line, "'&' not followed by an entity or character reference (write &amp;)")
			}
			ref := raw[i+1 : i+j]
			var ok bool
			dst, ok = appendRef(dst, ref)
			if !ok {
				if len(ref) > 0 && ref[0] == '#' {
					return dst, d.syntaxErr(line, "invalid character reference &%s;", ref)
				}
				return dst, d.syntaxErr(line, "undefined entity &%s; (only &lt; &gt; &amp; &apos; &quot; are defined)", ref)
			}
			i += j + 1
		case c == '\r':
			if attr {
				dst = append(dst, ' ')
			} else {
				dst = append(dst, '\n')
			}
			if i+1 < len(raw) && raw[i+1] == '\n' {
				i++
			}
			i++
		case attr && (c == '\n' || c == '\t'):
			dst = append(dst, ' ')
			i++
		case c < 0x20 && c != '\n' && c != '\t':
			return dst, d.syntaxErr(line, "invalid character U+%04X", c)
		default:
			j := i + 1
			for j < len(raw) && raw[j] != '&' && raw[j] >= 0x20 {
				j++
			}
			dst = append(dst, raw[i:j]...)
			i = j
		}
	}
	return dst, nil
}

// appendRef expands a predefined entity or a character reference (without & and ;).
func appendRef(dst, ref []byte) ([]byte, bool) {
	switch string(ref) {
	case "lt":
		return append(dst, '<'), true
	case "gt":
		return append(dst, '>'), true
	case "amp":
		return append(dst, '&'), true
	case "apos":
		return append(dst, '\''), true
	case "quot":
		return append(dst, '"'), true
	}
	if len(ref) < 2 || ref[0] != '#' {
		return dst, false
	}
	var r int64
	digits := ref[1:]
	base := 10
	if digits[0] == 'x' {
		base = 16
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 8 {
		return dst, false
	}
	for _, c := range digits {
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case base == 16 && c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case base == 16 && c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			return dst, false
		}
		r = r*int64(base) + int64(v)
	}
	if !xmlChar(r) {
		return dst, false
	}
	return utf8.AppendRune(dst, rune(r)), true
}

// xmlChar reports whether r is a Char of XML 1.0.
func xmlChar(r int64) bool {
	return r == 0x9 || r == 0xA || r == 0xD || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}
