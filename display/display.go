// Package display writes text for people, the same on the command line and in the explorer: what a Source wrote made safe to show on a terminal (one escaping rule), counts and byte sizes (one form of each).
//
// A document, a header, a ZIP member name or an error message quoting any of
// them can carry characters that a terminal acts on instead of showing: C0
// controls (ESC starts a sequence that can move the cursor, rewrite the
// title or the clipboard), DEL, the C1 controls U+0080–U+009F (U+009B is a
// one-character CSI, U+009D an OSC on terminals that take 8-bit controls), the
// line and paragraph separators, and the bidirectional overrides and
// isolates (U+202A–U+202E, U+2066–U+2069), which reorder what follows them so
// that a URL reads as another; or characters that show nothing, so that two
// names that read alike differ (the other format characters: zero width
// space and joiners, the byte order mark, the soft hyphen, tag characters),
// and noncharacters, which text formats refuse. Unsafe is that rule, the
// one rsx has: Escape writes each such character as a visible escape for a
// terminal, and dest/pathmap writes it as %XX in a file name.
package display

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Unsafe tells whether r is a character that Escape rewrites (and that a
// file name of a copy holds only as %XX): a C0 control, DEL, a C1 control,
// a line or paragraph separator (U+2028, U+2029: some terminals and text
// formats take them for a line break), a format character (Unicode's
// category Cf as of Unicode 15.0: the bidirectional marks, embeddings,
// overrides and isolates U+061C, U+200E, U+200F, U+202A–U+202E,
// U+2066–U+2069; the zero width space and joiners U+200B–U+200D; the byte
// order mark U+FEFF; the soft hyphen U+00AD; the invisible operators
// U+2060–U+2064; the tag characters U+E0001, U+E0020–U+E007F; and the
// others of formats), or a noncharacter (U+FDD0–U+FDEF, and U+FFFE and
// U+FFFF of every plane).
//
// The list is written out rather than taken from the unicode package's Cf
// table, which grows with Go's Unicode version: a copy's file names must
// not change with the Go that built rsx.
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r < 0xad:
		return false
	case r == 0x2028, r == 0x2029:
		return true
	case r >= 0xfdd0 && r <= 0xfdef, r&0xfffe == 0xfffe && r <= 0x10ffff:
		return true
	}
	for _, f := range formatChars {
		if r < f.lo {
			return false
		}
		if r <= f.hi {
			return true
		}
	}
	return false
}

// formatChars are the format characters (general category Cf) of Unicode
// 15.0, in order: TestFormatCharsAreUnicodeCf checks them against the
// unicode package's table.
var formatChars = [...]struct{ lo, hi rune }{
	{0x00ad, 0x00ad}, {0x0600, 0x0605}, {0x061c, 0x061c}, {0x06dd, 0x06dd},
	{0x070f, 0x070f}, {0x0890, 0x0891}, {0x08e2, 0x08e2}, {0x180e, 0x180e},
	{0x200b, 0x200f}, {0x202a, 0x202e}, {0x2060, 0x2064}, {0x2066, 0x206f},
	{0xfeff, 0xfeff}, {0xfff9, 0xfffb}, {0x110bd, 0x110bd}, {0x110cd, 0x110cd},
	{0x13430, 0x1343f}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a}, {0xe0001, 0xe0001},
	{0xe0020, 0xe007f},
}

// Escape returns s with every Unsafe character written as an escape that
// shows what it was: \t, \n and \r for those, \xNN for the other C0
// controls and DEL, \uNNNN for the rest (\UNNNNNNNN above U+FFFF, as Go
// writes them); a byte that is not part of valid
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
// that encoding/json leaves as they are (DEL, the C1 controls, the format
// characters and the rest) as \uNNNN escapes (a surrogate pair above
// U+FFFF, as JSON has it). Outside strings JSON is ASCII, so
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
			if r > 0xffff {
				hi, lo := utf16.EncodeRune(r)
				out = appendRuneEscape(appendRuneEscape(out, hi), lo)
			} else {
				out = appendRuneEscape(out, r)
			}
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

// appendRuneEscape writes \uNNNN, or \UNNNNNNNN above U+FFFF.
func appendRuneEscape(b []byte, r rune) []byte {
	s := strconv.FormatInt(int64(r), 16)
	width := 4
	if r > 0xffff {
		b = append(b, '\\', 'U')
		width = 8
	} else {
		b = append(b, '\\', 'u')
	}
	for k := len(s); k < width; k++ {
		b = append(b, '0')
	}
	return append(b, s...)
}
