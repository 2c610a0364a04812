package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// shown makes text a Source wrote safe to print on a terminal: C0 controls
// (tab and newline included), DEL, C1 controls, the bidirectional
// overrides, embeddings and isolates, and bytes that are not UTF-8 become
// visible escapes (\x1b, \u202e), so that a document or a server cannot
// move the cursor, recolour the screen or reorder what is shown. A
// backslash stays as it is: the output is for reading, not for parsing
// back.
func shown(s string) string {
	clean := true
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r, n) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && unsafeRune(r, n):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r, n):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unsafeRune reports whether r (n bytes long) must not reach a terminal as it is.
func unsafeRune(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n <= 1:
		return true
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
