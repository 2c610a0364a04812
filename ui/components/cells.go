package components

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Cells measures, cuts, pads and wraps text in terminal cells by one width
// method, the one the terminal counts with. bubbletea's renderer places
// every cluster by wcwidth (each code point's width, summed) unless the
// terminal declared grapheme clustering (mode 2027), and then by grapheme
// cluster; lipgloss always measures by grapheme cluster. The two disagree
// on emoji sequences (👨‍👩‍👧 is 6 cells by wcwidth, 2 as a cluster; 👍🏽 4
// and 2; ⚠️ 1 and 2): a table padded by the one and drawn by the other
// shifts every row holding one. The root model learns the method from the
// terminal (common.Common.WidthMethod) and the table, the detail pane and
// the page around them measure with it.
type Cells struct{ m ansi.Method }

// CellsOf measures by method m (ansi.WcWidth or ansi.GraphemeWidth).
func CellsOf(m ansi.Method) Cells { return Cells{m: m} }

// Graphemes measures by grapheme cluster, as lipgloss does: the free
// functions of this package (Width, Fit, Pad, …) use it.
var Graphemes = Cells{m: ansi.GraphemeWidth}

// Method is the width method.
func (c Cells) Method() ansi.Method { return c.m }

// Width is the display width of s, which may hold escape sequences.
func (c Cells) Width(s string) int {
	if IsASCII(s) {
		return len(s)
	}
	return c.m.StringWidth(s)
}

// Fit cuts an (optionally styled) line to at most w cells, with an ellipsis
// when it cut.
func (c Cells) Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if c.Width(s) <= w {
		return s
	}
	return c.m.Truncate(s, w, "…")
}

// Pad fits s to w cells and pads it with spaces to exactly w.
func (c Cells) Pad(s string, w int) string {
	s = c.Fit(s, w)
	if n := w - c.Width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// PadLeft right-aligns s in w cells (it is not cut).
func (c Cells) PadLeft(s string, w int) string {
	if n := w - c.Width(s); n > 0 {
		return strings.Repeat(" ", n) + s
	}
	return s
}

// PadRight left-aligns s in w cells (it is not cut).
func (c Cells) PadRight(s string, w int) string {
	if n := w - c.Width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// Cell escapes plain text (Escape) and pads or truncates it to exactly w
// cells, right-aligned when right, cut as trunc says.
func (c Cells) Cell(s string, w int, right bool, trunc int) string {
	if w <= 0 {
		return ""
	}
	s = Escape(s)
	sw := c.Width(s)
	if sw > w {
		s = c.Truncate(s, w, trunc)
		sw = c.Width(s)
	}
	if sw < w {
		if right {
			return strings.Repeat(" ", w-sw) + s
		}
		out := s + strings.Repeat(" ", w-sw)
		if !IsASCII(s) {
			// A prepended mark (U+0600–U+0605, …) joins the space after it
			// into one cluster: pad until the cell measures its width.
			for n := c.Width(out); n < w; n++ {
				out += " "
			}
		}
		return out
	}
	return s
}

// Truncate shortens plain text to at most w cells with an ellipsis, at the
// end or, for TruncMiddle and a column of 12 cells or more, in the middle.
// It cuts between grapheme clusters only: an emoji sequence is kept whole
// or dropped whole.
func (c Cells) Truncate(s string, w int, trunc int) string {
	if w <= 0 {
		return ""
	}
	if c.Width(s) <= w {
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
		return c.prefix(s, head) + "…" + c.suffix(s, tail)
	}
	if ascii {
		return s[:w-1] + "…"
	}
	return c.prefix(s, w-1) + "…"
}

// prefix is the longest run of whole clusters from the start of plain text
// s that fits in w cells.
func (c Cells) prefix(s string, w int) string {
	end, used := 0, 0
	for rest := s; rest != ""; {
		cl, cw := ansi.FirstGraphemeCluster(rest, c.m)
		if used+cw > w {
			break
		}
		used += cw
		end += len(cl)
		rest = rest[len(cl):]
	}
	return s[:end]
}

// suffix is the longest run of whole clusters at the end of plain text s
// that fits in w cells.
func (c Cells) suffix(s string, w int) string {
	var starts, widths []int
	for i := 0; i < len(s); {
		cl, cw := ansi.FirstGraphemeCluster(s[i:], c.m)
		starts, widths = append(starts, i), append(widths, cw)
		i += len(cl)
	}
	start, used := len(s), 0
	for k := len(starts) - 1; k >= 0 && used+widths[k] <= w; k-- {
		used += widths[k]
		start = starts[k]
	}
	return s[start:]
}

// Wrap breaks s into lines of at most w cells at spaces; a word longer than
// w keeps a line of its own.
//
// ansi.Wordwrap also breaks after every hyphen, which would cut dates
// ("2013-" "01") and names ("OAI-" "ORE"): hyphens wrap as non-breaking
// hyphens (U+2011, as wide) and are given back afterwards.
func (c Cells) Wrap(s string, w int) []string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return nil
	}
	const nbHyphen = "\u2011"
	hyphens := strings.Contains(s, "-") && !strings.Contains(s, nbHyphen)
	if hyphens {
		s = strings.ReplaceAll(s, "-", nbHyphen)
	}
	out := c.m.Wordwrap(s, max(w, 1), "")
	if hyphens {
		out = strings.ReplaceAll(out, nbHyphen, "-")
	}
	return strings.Split(out, "\n")
}

// HardWrap cuts s into pieces of at most w cells, wherever they fall.
func (c Cells) HardWrap(s string, w int) []string {
	if w <= 0 || c.Width(s) <= w {
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
	return strings.Split(c.m.Hardwrap(s, w, true), "\n")
}

// FitBlock makes s exactly h lines, each at most w cells.
func (c Cells) FitBlock(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		// Most lines are plain or exact already: measure cheaply first.
		if len(l) > w && c.Width(l) > w {
			lines[i] = c.Fit(l, w)
		}
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// ContinuationMark ends a line of a value that WrapValue cut where no
// URL-friendly break point was: the value goes on on the next line.
const ContinuationMark = "↩"

// ValueLine is a line of a value broken by WrapValue. Cut tells that the
// line ends inside a token with no break point near: the caller draws
// ContinuationMark after it (Text leaves a cell for it).
type ValueLine struct {
	Text string
	Cut  bool
}

// WrapValue breaks a value (plain, escaped text: a URL, a digest, a media
// type, a date) into lines of at most w cells. Words wrap at spaces; a
// token wider than w (a long URL, a sha-256 digest) starts a line of its
// own and is broken after a '/', '?', '&' or '=' when one falls on the
// line, else cut with room for ContinuationMark. Joining the lines' Text
// with the spaces they were wrapped at gives the value back.
func (c Cells) WrapValue(s string, w int) []ValueLine {
	w = max(w, 2)
	if c.Width(s) <= w {
		return []ValueLine{{Text: s}}
	}
	var out []ValueLine
	line, lineW := "", -1 // lineW -1: no line open
	flush := func() {
		if lineW >= 0 {
			out = append(out, ValueLine{Text: line})
		}
		line, lineW = "", -1
	}
	for _, word := range strings.Split(s, " ") {
		ww := c.Width(word)
		switch {
		case ww > w:
			flush()
			out = append(out, c.breakToken(word, w)...)
		case lineW >= 0 && lineW+1+ww <= w:
			line += " " + word
			lineW += 1 + ww
		default:
			flush()
			line, lineW = word, ww
		}
	}
	flush()
	return out
}

// breakToken breaks a token wider than w into lines (see WrapValue).
func (c Cells) breakToken(tok string, w int) []ValueLine {
	var out []ValueLine
	for c.Width(tok) > w {
		// The last break point that leaves the line within w cells, and
		// where a cut line (one cell kept for the mark) would end.
		brk, cut, used := 0, 0, 0
		for i := 0; i < len(tok); {
			cl, cw := ansi.FirstGraphemeCluster(tok[i:], c.m)
			if used+cw > w {
				break
			}
			used += cw
			i += len(cl)
			if used <= w-1 {
				cut = i
			}
			// A break point so early that most of the line would stay
			// empty ("text/" of a long media type) is no better than a cut.
			if strings.ContainsAny(cl, "/?&=") && i < len(tok) && used*3 >= w {
				brk = i
			}
		}
		switch {
		case brk > 0:
			out = append(out, ValueLine{Text: tok[:brk]})
			tok = tok[brk:]
		case cut > 0:
			out = append(out, ValueLine{Text: tok[:cut], Cut: true})
			tok = tok[cut:]
		default:
			// One cluster wider than the line: it goes on a line of its own.
			cl, _ := ansi.FirstGraphemeCluster(tok, c.m)
			out = append(out, ValueLine{Text: cl, Cut: len(cl) < len(tok)})
			tok = tok[len(cl):]
		}
	}
	if tok != "" {
		out = append(out, ValueLine{Text: tok})
	}
	return out
}
