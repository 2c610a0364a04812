package ui

import (
	"errors"
	"math/bits"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/display"
	"rsx/ui/components"
)

// Marks: the entries an archivist picks (space, +, -, *) for a sync, an
// audit or a spot check. They belong to the document, not to the page, so
// that they survive filtering, sorting and moving through the history (the
// document stays in the cache), and cost a bit per entry: a document of a
// million entries holds 122 KiB of marks, and a count and the total
// declared size are kept as marks change, never recounted.

// pickSet is the marked entries of a document. Only the UI goroutine
// changes it.
type pickSet struct {
	bits    []uint64
	n       int   // entries marked
	bytes   int64 // their declared lengths
	unknown int   // marked entries that declare no length
}

// has reports whether entry i is marked.
func (p *pickSet) has(i int) bool {
	w := i >> 6
	return p != nil && w < len(p.bits) && p.bits[w]&(1<<(uint(i)&63)) != 0
}

// set marks (on) or unmarks entry i of d; it reports whether that changed
// anything.
func (p *pickSet) set(d *document, i int, on bool) bool {
	w := i >> 6
	if w >= len(p.bits) {
		if !on {
			return false
		}
		grown := make([]uint64, max(w+1, (d.entries.Len()+63)>>6))
		copy(grown, p.bits)
		p.bits = grown
	}
	bit := uint64(1) << (uint(i) & 63)
	if (p.bits[w]&bit != 0) == on {
		return false
	}
	p.bits[w] ^= bit
	sign := 1
	if !on {
		sign = -1
	}
	p.n += sign
	if n, ok := d.entries.Length(i); ok {
		p.bytes += int64(sign) * n
	} else {
		p.unknown += sign
	}
	return true
}

// clear unmarks every entry.
func (p *pickSet) clear() {
	clear(p.bits)
	p.n, p.bytes, p.unknown = 0, 0, 0
}

// rows lists the marked entries in document order.
func (p *pickSet) rows() []int32 {
	out := make([]int32, 0, p.n)
	for w, word := range p.bits {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			out = append(out, int32(w<<6+b))
			word &= word - 1
		}
	}
	return out
}

// picks returns the document's marks, made when first needed.
func (d *document) picks() *pickSet {
	if d.picked == nil {
		d.picked = &pickSet{}
	}
	return d.picked
}

// marked is how many entries are marked.
func (d *document) marked() int {
	if d.picked == nil {
		return 0
	}
	return d.picked.n
}

// marksText is the status bar's count of the marks: "3 marked · 12.1 KB".
func (d *document) marksText() (full, short string) {
	p := d.picked
	if p == nil || p.n == 0 {
		return "", ""
	}
	short = components.Count(p.n) + " marked"
	full = short + " · " + display.Size(p.bytes)
	if p.unknown > 0 {
		full += " + " + components.Count(p.unknown) + " of unknown length"
	}
	return full, short
}

// markKey acts on a marking key of the document page; ok is false for any
// other key.
func (v *docPage) markKey(msg tea.KeyPressMsg) (cmd tea.Cmd, ok bool) {
	k := &v.c.Keys
	d := v.doc
	switch {
	case key.Matches(msg, k.Mark):
		i := v.tbl.Selected()
		if i < 0 {
			return nil, true
		}
		p := d.picks()
		p.set(d, i, !p.has(i))
		v.tbl.MoveTo(v.tbl.Cursor() + 1)
		v.detail.SetOffset(0)
	case (key.Matches(msg, k.MarkShown) || key.Matches(msg, k.InvertMarks)) && v.filterBusy:
		return flashCmd(errFilterRunning.Error(), true), true
	case key.Matches(msg, k.MarkShown):
		p := d.picks()
		for pos, n := 0, v.tbl.Len(); pos < n; pos++ {
			p.set(d, v.tbl.Row(pos), true)
		}
	case key.Matches(msg, k.UnmarkAll):
		if d.picked != nil {
			d.picked.clear()
		}
	case key.Matches(msg, k.InvertMarks):
		p := d.picks()
		for pos, n := 0, v.tbl.Len(); pos < n; pos++ {
			i := v.tbl.Row(pos)
			p.set(d, i, !p.has(i))
		}
	default:
		return nil, false
	}
	v.showPicks()
	return nil, true
}

// showPicks shows the table's mark column while any entry is marked.
func (v *docPage) showPicks() {
	if show := v.doc.marked() > 0; show != v.tbl.ShowPicked {
		v.tbl.ShowPicked = show
		v.tbl.Relayout()
	}
}

// chosenRows are the entries a sync, an audit of the marks or a spot check
// acts on: the marked ones (marked true), else those shown, in the order
// shown (all: every entry, in document order, with rows nil). Without
// marks it fails while a filter is still scanning in the background: the
// rows shown are then those of the query before.
func (v *docPage) chosenRows() (rows []int32, marked, all bool, err error) {
	if p := v.doc.picked; p != nil && p.n > 0 {
		return p.rows(), true, false, nil
	}
	if v.filterBusy {
		return nil, false, false, errFilterRunning
	}
	if v.filtered != nil {
		return append([]int32(nil), v.filtered...), false, false, nil
	}
	return nil, false, true, nil
}

// errFilterRunning is what the keys that act on the entries shown say
// while a filter is still scanning.
var errFilterRunning = errors.New("the filter is still running: wait for the entries it shows")

// carriedMarks are the marks of a document that is loaded again (r), by
// entry loc: each entry of the new load whose loc was marked is marked
// again as it arrives, and the marks whose entries are gone are dropped.
type carriedMarks struct {
	found map[string]bool // marked loc → an entry of the new load has it
	kept  int             // the locs found so far
}

// carryMarks remembers the marks of old for d, the same document loaded
// again; nothing when old has none.
func (d *document) carryMarks(old *document) {
	c := &carriedMarks{found: map[string]bool{}}
	if p := old.picked; p != nil {
		for _, i := range p.rows() {
			c.found[old.entries.Loc(int(i))] = false
		}
	}
	if oc := old.carried; oc != nil { // reloaded again before its entries came
		for loc := range oc.found {
			c.found[loc] = false
		}
	}
	if len(c.found) > 0 {
		d.carried = c
	}
}

// markCarried marks the entries from row from on whose loc was marked
// before the reload.
func (d *document) markCarried(from int) {
	c := d.carried
	if c == nil {
		return
	}
	p := d.picks()
	for i, n := from, d.entries.Len(); i < n; i++ {
		loc := d.entries.Loc(i)
		found, marked := c.found[loc]
		if !marked {
			continue
		}
		p.set(d, i, true)
		if !found {
			c.found[loc] = true
			c.kept++
		}
	}
}

// carriedText ends the carrying of the marks at the end of the load and
// says what became of them ("" when there were none): "reloaded: 3 marks
// kept, 1 dropped (its entry is gone)".
func (d *document) carriedText() string {
	c := d.carried
	if c == nil {
		return ""
	}
	d.carried = nil
	dropped := len(c.found) - c.kept
	s := "reloaded: " + display.Plural(c.kept, "mark", "marks") + " kept"
	switch {
	case dropped == 0:
		return s
	case d.err != nil:
		return s + ", " + components.Count(dropped) + " dropped (the load ended before their entries came)"
	case dropped == 1:
		return s + ", 1 dropped (its entry is gone)"
	}
	return s + ", " + components.Count(dropped) + " dropped (their entries are gone)"
}
