// Package display writes text for people, the same on the command line and in the explorer: what a Source wrote made safe to show on a terminal (one escaping rule), counts and byte sizes (one form of each).
//
// A document, a header, a ZIP member name or an error message quoting any of
// them can carry characters that a terminal acts on instead of showing: C0
// controls (ESC starts a sequence that can move the cursor, rewrite the
// title or the clipboard), DEL, the C1 controls U+0080–U+009F (U+009B is a
// one-character CSI, U+009D an OSC on terminals that take 8-bit controls), and
// the bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069),
// which reorder what follows them so that a URL reads as another. Escape
// writes each of them as a visible escape; everything else, backslash
// included, is left as it is.
package display

import (
	"strconv"
	"unicode/utf8"
)

// Unsafe tells whether r is a character that Escape rewrites: a C0 control,
// DEL, a C1 control, a bidirectional mark, embedding, override or isolate
// (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), or a line or
// paragraph separator (U+2028, U+2029), which some terminals take for a
// line break.
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r == 0x2028, r == 0x2029:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// Escape returns s with every Unsafe character written as an escape that
// shows what it was: \t, \n and \r for those, \xNN for the other C0
// controls and DEL, \uNNNN for the rest; a byte that is not part of valid
// UTF-8 becomes \xNN too. The result is valid UTF-8, holds no Unsafe
// character, and is s itself when s has none and is valid UTF-8.
func Escape(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		if c < 0x80 {
			break
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || Unsafe(r) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	b = append(b, s[:i]...)
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			b = append(b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = appendByteEscape(b, c)
		case r == '\t':
			b = append(b, `\t`...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r < 0x20 || r == 0x7f:
			b = appendByteEscape(b, byte(r))
		case Unsafe(r):
			b = appendRuneEscape(b, r)
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}

// EscapeJSON rewrites, inside an encoded JSON text, the Unsafe characters
// that encoding/json leaves as they are (DEL, the C1 controls and the
// bidirectional ones) as \uNNNN escapes. Outside strings JSON is ASCII, so
// the result decodes to the same values; it is b itself when there is
// nothing to rewrite.
func EscapeJSON(b []byte) []byte {
	i := 0
	for i < len(b) {
		c := b[i]
		if c < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if Unsafe(r) {
			break
		}
		i += n
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		c := b[i]
		if c < 0x7f {
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if Unsafe(r) {
			out = appendRuneEscape(out, r)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

const hexDigits = "0123456789abcdef"

func appendByteEscape(b []byte, c byte) []byte {
	return append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
}

func appendRuneEscape(b []byte, r rune) []byte {
	s := strconv.FormatInt(int64(r), 16)
	b = append(b, '\\', 'u')
	for k := len(s); k < 4; k++ {
		b = append(b, '0')
	}
	return append(b, s...)
}
