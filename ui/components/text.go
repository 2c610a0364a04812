package components

import (
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/dustin/go-humanize"

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

// Width is the display width of s, which may hold escape sequences.
func Width(s string) int {
	if IsASCII(s) {
		return len(s)
	}
	return ansi.StringWidth(s)
}

// Escape makes text that a Source wrote, or that quotes it (a URL, a
// header, a member name, an error message), safe to draw: display.Escape,
// the one escaper of rsx, writes C0 and C1 controls, DEL, the
// bidirectional controls and bytes that are not UTF-8 as visible escapes
// (\x1b, \u202e, \xff), so that the user sees what was there and the
// terminal acts on none of it. Escapes are plain ASCII: Width measures
// them like any text. Every page draws Source text through Escape (or
// EscapeLine), and Cell does for every table cell.
func Escape(s string) string { return display.Escape(s) }

// TabWidth is the tab stop of EscapeLine.
const TabWidth = 4

// EscapeLine is Escape for one line of a text body (a preview, a diff, an
// XML document): its tabs are whitespace of the text and expand to spaces
// up to the next tab stop, where Escape would write \t.
func EscapeLine(s string) string {
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
// when it cut.
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if Width(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// Pad fits s to w cells and pads it with spaces to exactly w.
func Pad(s string, w int) string {
	s = Fit(s, w)
	if n := w - Width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// PadLeft right-aligns s in w cells (it is not cut).
func PadLeft(s string, w int) string {
	if n := w - Width(s); n > 0 {
		return strings.Repeat(" ", n) + s
	}
	return s
}

// PadRight left-aligns s in w cells (it is not cut).
func PadRight(s string, w int) string {
	if n := w - Width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// Cell escapes plain text (Escape) and pads or truncates it to exactly w cells,
// right-aligned when right, cut as trunc says.
func Cell(s string, w int, right bool, trunc int) string {
	if w <= 0 {
		return ""
	}
	s = Escape(s)
	sw := Width(s)
	if sw > w {
		s = Truncate(s, w, trunc)
		sw = Width(s)
	}
	if sw < w {
		if right {
			return strings.Repeat(" ", w-sw) + s
		}
		out := s + strings.Repeat(" ", w-sw)
		if !IsASCII(s) {
			// A prepended mark (U+0600–U+0605, …) joins the space after it
			// into one cluster: pad until the cell measures its width.
			for n := Width(out); n < w; n++ {
				out += " "
			}
		}
		return out
	}
	return s
}

// Truncate shortens plain text to at most w cells with an ellipsis, at the
// end or, for TruncMiddle and a column of 12 cells or more, in the middle.
func Truncate(s string, w int, trunc int) string {
	if w <= 0 {
		return ""
	}
	if Width(s) <= w {
		return s
	}
	if w == 1 {
		return "…"
	}
	ascii := IsASCII(s)
	if trunc == TruncMiddle && w >= 12 {
		tail := (w - 1) * 2 / 5
		head := w - 1 - tail
		if ascii {
			return s[:head] + "…" + s[len(s)-tail:]
		}
		// A wide character across the cut is kept whole by TruncateLeft:
		// drop it (s is plain text), so that the tail keeps to its cells.
		end := ansi.TruncateLeft(s, Width(s)-tail, "")
		for end != "" && Width(end) > tail {
			_, n := utf8.DecodeRuneInString(end)
			end = end[n:]
		}
		return ansi.Truncate(s, head, "") + "…" + end
	}
	if ascii {
		return s[:w-1] + "…"
	}
	return ansi.Truncate(s, w, "…")
}

// Wrap breaks s into lines of at most w cells at spaces; a word longer than
// w keeps a line of its own.
//
// ansi.Wordwrap also breaks after every hyphen, which would cut dates
// ("2013-" "01") and names ("OAI-" "ORE"): hyphens wrap as non-breaking
// hyphens (U+2011, as wide) and are given back afterwards.
func Wrap(s string, w int) []string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return nil
	}
	const nbHyphen = "\u2011"
	hyphens := strings.Contains(s, "-") && !strings.Contains(s, nbHyphen)
	if hyphens {
		s = strings.ReplaceAll(s, "-", nbHyphen)
	}
	out := ansi.Wordwrap(s, max(w, 1), "")
	if hyphens {
		out = strings.ReplaceAll(out, nbHyphen, "-")
	}
	return strings.Split(out, "\n")
}

// HardWrap cuts s into pieces of at most w cells, wherever they fall.
func HardWrap(s string, w int) []string {
	if w <= 0 || Width(s) <= w {
		return []string{s}
	}
	if IsASCII(s) {
		var out []string
		for len(s) > w {
			out = append(out, s[:w])
			s = s[w:]
		}
		return append(out, s)
	}
	return strings.Split(ansi.Hardwrap(s, w, true), "\n")
}

// Count writes n with thousands separators: "1,000,000".
func Count(n int) string { return humanize.Comma(int64(n)) }

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
// lines from top (kept in range), each fitted to w cells.
func Scrolled(lines []string, top, w, h int) string {
	w, h = max(w, 1), max(h, 1)
	out := Window(lines, Clamp(top, 0, len(lines)-h), h)
	for i, l := range out {
		out[i] = Fit(l, w)
	}
	return strings.Join(out, "\n")
}

// FitBlock makes s exactly h lines, each at most w cells.
func FitBlock(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		// Most lines are plain or exact already: measure cheaply first.
		if len(l) > w && Width(l) > w {
			lines[i] = Fit(l, w)
		}
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// PlaceCenter centres s in a w×h block.
func PlaceCenter(w, h int, s string) string {
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, s)
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
