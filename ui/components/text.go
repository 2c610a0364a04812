package components

import (
	"strings"
	"unicode/utf8"

	"rsx/display"
)

// Text helpers shared by every page: width, truncation and wrapping go
// through charmbracelet/x/ansi (which knows escape sequences and wide
// characters); the plain-ASCII fast paths keep a large table's frame cheap.

// Truncation of a cell that does not fit its column.
const (
	TruncEnd    = iota // "http://example.com/very/lo…"
	TruncMiddle        // "http://example.com/…/file.xml": keeps what tells URLs apart
)

// IsASCII reports whether s has only single-byte printable characters.
func IsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// Width is the display width of s, which may hold escape sequences, by
// grapheme cluster (Graphemes; a table or a pane measures with the
// terminal's Cells).
func Width(s string) int { return Graphemes.Width(s) }

// Escape makes text that a Source wrote, or that quotes it (a URL, a
// header, a member name, an error message), safe to draw: display.Escape,
// the one escaper of rsx, writes C0 and C1 controls, DEL, the
// bidirectional controls and bytes that are not UTF-8 as visible escapes
// (\x1b, \u202e, \xff), so that the user sees what was there and the
// terminal acts on none of it. Escapes are plain ASCII: Width measures
// them like any text. Every page draws Source text through Escape (or
// EscapeLine), and Cell does for every table cell. The password of a URL's
// userinfo is drawn as "xxxxx" (display.Redact): no secret is shown.
func Escape(s string) string { return display.Escape(display.Redact(s)) }

// TabWidth is the tab stop of EscapeLine.
const TabWidth = 4

// EscapeLine is Escape for one line of a text body (a preview, a diff, an
// XML document): its tabs are whitespace of the text and expand to spaces
// up to the next tab stop, where Escape would write \t.
func EscapeLine(s string) string {
	s = display.Redact(s)
	if strings.IndexByte(s, '\t') < 0 {
		return display.Escape(s)
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	col := 0
	for i, seg := range strings.Split(s, "\t") {
		if i > 0 {
			n := TabWidth - col%TabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
		}
		e := display.Escape(seg)
		b.WriteString(e)
		col += Width(e)
	}
	return b.String()
}

// Fit cuts an (optionally styled) line to at most w cells, with an ellipsis
// when it cut (Graphemes.Fit).
func Fit(s string, w int) string { return Graphemes.Fit(s, w) }

// Count writes n with thousands separators: "1,000,000" (display.Count,
// as the command line writes counts).
func Count(n int) string { return display.Count(n) }

// Clamp returns v limited to [lo, hi] (lo when hi < lo).
func Clamp(v, lo, hi int) int {
	return max(min(v, hi), lo)
}

// Window returns lines[top:top+h], padded with empty lines to exactly h.
func Window(lines []string, top, h int) []string {
	out := make([]string, 0, max(h, 0))
	for i := top; i < top+h; i++ {
		if i >= 0 && i < len(lines) {
			out = append(out, lines[i])
		} else {
			out = append(out, "")
		}
	}
	return out
}

// Scrolled is the view of a page drawn whole and scrolled: the h lines of
// lines from top (kept in range), each fitted to w cells as c counts.
func (c Cells) Scrolled(lines []string, top, w, h int) string {
	w, h = max(w, 1), max(h, 1)
	out := Window(lines, Clamp(top, 0, len(lines)-h), h)
	for i, l := range out {
		out[i] = c.Fit(l, w)
	}
	return strings.Join(out, "\n")
}

// PlaceCenter centres s in a w×h block, its lines measured as c counts:
// each line of the block is w cells wide by c (lipgloss.Place pads by
// grapheme cluster, which a terminal counting by code point draws wider).
func (c Cells) PlaceCenter(w, h int, s string) string {
	lines := strings.Split(s, "\n")
	bw := 0
	for _, l := range lines {
		bw = max(bw, c.Width(l))
	}
	bw = min(bw, max(w, 0))
	top := max(h-len(lines), 0) / 2
	left := max(w-bw, 0) / 2
	blank := strings.Repeat(" ", max(w, 0))
	out := make([]string, 0, max(h, len(lines)))
	for range top {
		out = append(out, blank)
	}
	for _, l := range lines {
		in := max(bw-c.Width(l), 0) / 2 // each line centred in the block too
		out = append(out, c.Pad(strings.Repeat(" ", left+in)+l, w))
	}
	for len(out) < h {
		out = append(out, blank)
	}
	return strings.Join(out, "\n")
}

// JoinColumns puts two blocks side by side, line by line; the left one's
// lines are all of the same width.
func JoinColumns(left, right string) string {
	ll := strings.Split(left, "\n")
	rl := strings.Split(right, "\n")
	n := max(len(ll), len(rl))
	var b strings.Builder
	b.Grow(len(left) + len(right) + n)
	for i := range n {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i < len(ll) {
			b.WriteString(ll[i])
		}
		if i < len(rl) {
			b.WriteString(rl[i])
		}
	}
	return b.String()
}

// ShortURL drops the scheme of a URL for display.
func ShortURL(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		return u[i+3:]
	}
	return u
}

// DisplayLoc shortens a loc for a table: on the document's own host (origin,
// as OriginOf gives it) it is shown from its path (the host is in the title
// line), so that the part that tells entries apart fits; a loc on another
// host stays whole.
func DisplayLoc(origin, loc string) string {
	if origin == "" || len(loc) <= len(origin) || !strings.HasPrefix(loc, origin) || loc[len(origin)] != '/' {
		return loc
	}
	return loc[len(origin):]
}

// OriginOf is "scheme://host[:port]" of an absolute URL, "" otherwise.
func OriginOf(u string) string {
	i := strings.Index(u, "://")
	if i <= 0 {
		return ""
	}
	j := strings.IndexByte(u[i+3:], '/')
	if j < 0 {
		return u
	}
	return u[:i+3+j]
}
