package ui

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// clipboardText is what y puts on the clipboard for s: s with every
// control character (C0, DEL, C1), bidirectional control and invalid
// UTF-8 byte percent-encoded, byte by byte, as a URL writes them (a line
// feed is %0A). A Source's loc holding "&#10;" would otherwise paste as two
// shell commands, and a U+202E would reorder what the user sees in the
// line pasted. n is how many characters were escaped.
func clipboardText(s string) (out string, n int) {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size <= 1) || unicode.IsControl(r) || isBidiControl(r) {
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
			n++
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	if n == 0 {
		return s, 0
	}
	return b.String(), n
}

// isBidiControl reports the characters that change the direction of the
// text around them (Unicode's Bidi_Control property).
func isBidiControl(r rune) bool {
	return unicode.Is(unicode.Bidi_Control, r)
}
