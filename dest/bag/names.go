package bag

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"rsx/display"
)

// A bag names its payload files its own way, so that every validator reads
// its manifests alike. RFC 8493 (2.1.3) has a manifest write "%" as %25 and
// CR and LF as %0D and %0A, and a reader decode them; the Library of
// Congress's bagit-python (1.9) and bagit-java decode neither and look for a
// file named "%25" (bagit-spec issue 46, bagit-python issue 157). A copy's
// paths hold "%" wherever its path rule escaped a character (a query's "?",
// "*", a tab, a device name's first letter, a "%" of the URI). So a bag's
// names hold no "%" at all, and the manifests list them as they are, which
// both readings take alike.
//
// PayloadName spells a path of the copy with "^" where the path has "%":
//
//	%XX (two hex digits)  ^XX   the path's escape, kept: p%3Fx=1 is p^3Fx=1
//	%   (anything else)   ^_
//	^                     ^^
//
// and writes as ^XX each byte (in UTF-8) of a character a manifest line
// must not hold: a control character (C0, DEL, C1: a tab, CR, LF, NEL), a
// line or paragraph separator (U+2028, U+2029), a bidirectional control
// (display.Unsafe), a byte that is not UTF-8, and white space at the end of
// a name (bagit-python splits its lines at the separators and strips the
// white space that ends them). CopyPath reads a name back: ^^ is "^", ^_ is
// "%", ^XX is %XX. For the paths rsx's path rule makes (which escape those
// characters themselves) it gives the path exactly; for an older copy's path
// that holds one of them, the path with that character percent-encoded.
// resourcesync-uris.txt keeps every path exactly, beside its URI.

const nameEscape = '^'

// PayloadName is the name under data/ of the file at path p of the copy.
func PayloadName(p string) string {
	if !needsRenaming(p) {
		return p
	}
	var b strings.Builder
	b.Grow(len(p) + 8)
	for i, seg := range strings.Split(p, "/") {
		if i > 0 {
			b.WriteByte('/')
		}
		writeName(&b, seg)
	}
	return b.String()
}

// needsRenaming reports whether PayloadName has anything to change in p.
func needsRenaming(p string) bool {
	prev := rune(0)
	for i, r := range p {
		switch {
		case r == '%' || r == nameEscape || display.Unsafe(r):
			return true
		case r == utf8.RuneError && !strings.HasPrefix(p[i:], "\uFFFD"):
			return true
		case r == '/' && unicode.IsSpace(prev):
			return true
		}
		prev = r
	}
	return unicode.IsSpace(prev)
}

// writeName writes one name (a segment of the path) as PayloadName spells
// it.
func writeName(b *strings.Builder, seg string) {
	end := len(seg) // where the white space that ends the name starts
	for end > 0 {
		r, n := utf8.DecodeLastRuneInString(seg[:end])
		if !unicode.IsSpace(r) {
			break
		}
		end -= n
	}
	for i := 0; i < len(seg); {
		c := seg[i]
		switch {
		case c == '%' && i+2 < len(seg) && isHexDigit(seg[i+1]) && isHexDigit(seg[i+2]):
			b.WriteByte(nameEscape)
			b.WriteString(seg[i+1 : i+3])
			i += 3
			continue
		case c == '%':
			b.WriteString("^_")
			i++
			continue
		case c == nameEscape:
			b.WriteString("^^")
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(seg[i:])
		if (r == utf8.RuneError && n == 1) || display.Unsafe(r) || i >= end {
			for _, x := range []byte(seg[i : i+n]) {
				b.WriteByte(nameEscape)
				b.WriteByte(upperHex[x>>4])
				b.WriteByte(upperHex[x&15])
			}
		} else {
			b.WriteString(seg[i : i+n])
		}
		i += n
	}
}

const upperHex = "0123456789ABCDEF"

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// CopyPath reads a payload name back into the copy's path (see
// PayloadName).
func CopyPath(name string) (string, error) {
	if !strings.ContainsAny(name, "^%") {
		return name, nil
	}
	var b strings.Builder
	b.Grow(len(name))
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '%':
			return "", errors.New("bag name " + name + ": holds a %, which no name rsx gives does")
		case c != nameEscape:
			b.WriteByte(c)
		case i+1 < len(name) && name[i+1] == nameEscape:
			b.WriteByte(nameEscape)
			i++
		case i+1 < len(name) && name[i+1] == '_':
			b.WriteByte('%')
			i++
		case i+2 < len(name) && isHexDigit(name[i+1]) && isHexDigit(name[i+2]):
			b.WriteByte('%')
			b.WriteString(name[i+1 : i+3])
			i += 2
		default:
			return "", errors.New("bag name " + name + ": a ^ that is not ^^, ^_ or ^ and two hex digits")
		}
	}
	return b.String(), nil
}
