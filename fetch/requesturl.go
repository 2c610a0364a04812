package fetch

import (
	"net/url"
	"strings"
)

// RequestURL returns the URL to request for raw as a browser would send it.
// A URL that net/url parses is returned as it is (trimmed). One it refuses
// for characters a URI may not hold — a "%" that starts no escape
// (http://h/100%.txt, written so by Source software for a file of that
// name), a space, raw non-ASCII, a control character, or one of " < > \ ^ `
// { | } — has each of them percent-encoded (the "%" as %25, the others as
// the %XX of their UTF-8 bytes), as the WHATWG URL Standard's parser does in
// the path and query; the scheme, host and valid escapes are left alone.
// The result is what servers see from a browser given the same link, so a
// resource the Source's web server serves is fetched although its loc is
// not strictly a URI (validation still reports that as the Source's error).
func RequestURL(raw string) string {
	raw = strings.TrimSpace(raw)
	if _, err := url.Parse(raw); err == nil {
		return raw
	}
	// The authority ends at the first "/", "?" or "#" after "//"; only what
	// follows it is escaped.
	start := 0
	if i := strings.Index(raw, "//"); i >= 0 {
		start = i + 2
		if j := strings.IndexAny(raw[start:], "/?#"); j >= 0 {
			start += j
		} else {
			start = len(raw)
		}
	}
	var b strings.Builder
	b.Grow(len(raw) + 16)
	b.WriteString(raw[:start])
	fragment := false
	for i := start; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '#' && !fragment:
			fragment = true
			b.WriteByte(c)
		case c == '%':
			if i+2 < len(raw) && ishex(raw[i+1]) && ishex(raw[i+2]) {
				b.WriteByte(c)
			} else {
				b.WriteString("%25")
			}
		case c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0:
			const hexdigits = "0123456789ABCDEF"
			b.WriteByte('%')
			b.WriteByte(hexdigits[c>>4])
			b.WriteByte(hexdigits[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
