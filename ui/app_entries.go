package ui

import (
	"cmp"
	"context"
	"slices"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/model"
)

// A document's table keeps of each entry only what it shows and sorts on
// (a lean model.EntryTable): an entry's links, unknown attributes and extra
// elements are read back from its document — the part it came from, in a
// view of all parts — when the entry is selected, in a Cmd, a few dozen
// entries around it at a time. The detail pane and the pages opened on the
// entry (resource, versions, package) read the entry whole through
// wholeEntry.

// How many entries before and after the selected one a read-back asks for:
// moving through the table reads again once every readAfter entries.
const readBefore, readAfter = 32, 96

// entryWindow is a run of entries of one document read back whole.
type entryWindow struct {
	part     int // the part in a view of all parts; -1: the document itself
	from, to int // the Entry.Index range asked
	entries  []model.Entry
	err      error
}

// covers tells whether w was asked for entry index of part.
func (w *entryWindow) covers(part, index int) bool {
	return w != nil && w.part == part && index >= w.from && index < w.to
}

// entryReadMsg carries a window read back.
type entryReadMsg struct {
	doc *document
	w   *entryWindow
}

// wholeState is how much of an entry wholeEntry could give.
type wholeState uint8

const (
	entryWhole   wholeState = iota
	entryReading            // read back, not in yet
	entryChanged            // the document no longer has this entry there
	entryFailed             // it could not be read back
)

// locate is where entry i of d is in a document: the URL, the part (-1
// for d itself) and its index there.
func (d *document) locate(i int) (url string, part, index int) {
	index = d.entries.Index(i)
	if p := d.partOf(i); p >= 0 {
		return d.parts[p], p, index
	}
	return d.base(), -1, index
}

// wholeEntry is entry i with everything its document gives it, when the
// table has it all or it was read back; otherwise what the table has, and
// why not more (err when it could not be read).
func (d *document) wholeEntry(i int) (model.Entry, wholeState, error) {
	e := d.entries.Entry(i)
	if !d.entries.Partial(i) {
		return e, entryWhole, nil
	}
	_, part, index := d.locate(i)
	w := d.full
	if !w.covers(part, index) {
		return e, entryReading, nil
	}
	if full, ok := w.entry(index); ok {
		if full.Loc == e.Loc {
			return full, entryWhole, nil
		}
		return e, entryChanged, nil
	}
	if w.err != nil {
		return e, entryFailed, w.err
	}
	return e, entryChanged, nil
}

// entry is the entry of w whose Index is index.
func (w *entryWindow) entry(index int) (model.Entry, bool) {
	k, ok := slices.BinarySearchFunc(w.entries, index, func(e model.Entry, index int) int { return cmp.Compare(e.Index, index) })
	if !ok {
		return model.Entry{}, false
	}
	return w.entries[k], true
}

// indexRange is from..to-1.
func indexRange(from, to int) []int {
	out := make([]int, 0, max(to-from, 0))
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// readSelected reads back the entry under the cursor when the table does
// not hold it whole and it is not read or being read already.
func (a *App) readSelected() tea.Cmd {
	if a.dv == nil || a.doc == nil || a.dv.doc != a.doc {
		return nil
	}
	d := a.doc
	i := a.dv.Selected()
	if i < 0 || i >= d.entries.Len() || d.loading || !d.entries.Partial(i) {
		return nil
	}
	url, part, index := d.locate(i)
	if d.full.covers(part, index) || d.reading.covers(part, index) {
		return nil
	}
	w := &entryWindow{part: part, from: max(index-readBefore, 0), to: index + readAfter}
	d.reading = w
	var raw []byte
	if part < 0 {
		raw = d.raw
	}
	b := a.backend
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		w.entries, w.err = b.ReadEntries(ctx, url, raw, indexRange(w.from, w.to))
		return entryReadMsg{doc: d, w: w}
	}
}

// entryRead keeps a window read back; the detail pane shows it at once,
// and a key that waited for the entry acts now.
func (a *App) entryRead(m entryReadMsg) tea.Cmd {
	d := m.doc
	if d.reading == m.w {
		d.reading = nil
	}
	d.full = m.w
	if k := a.afterRead; k != nil && d.reading == nil {
		a.afterRead = nil
		a.flash = ""
		_, cmd := a.update(*k)
		return cmd
	}
	return nil
}

// waitForEntry holds back a key that opens a page on the selected entry
// (enter, v, M) while the entry is being read back whole: the key acts
// once it is in (entryRead), so that the page has the entry's links.
func (a *App) waitForEntry(msg tea.KeyPressMsg) bool {
	k := &a.c.Keys
	if !a.onDocument() || a.dv.InputActive() || a.promptKind != promptNone || a.doc.reading == nil ||
		!(key.Matches(msg, k.Open) || key.Matches(msg, k.Versions) || key.Matches(msg, k.Manifest)) {
		return false
	}
	i := a.dv.Selected()
	if i < 0 {
		return false
	}
	if _, state, _ := a.doc.wholeEntry(i); state != entryReading {
		return false
	}
	a.afterRead = &msg
	a.flashInfo("reading the entry from its document…")
	return true
}

// showBuiltPageMsg asks the root to show the page build makes (on the UI
// goroutine), in place of any other page.
type showBuiltPageMsg struct{ build func() Page }

// wholeEntriesCmd reads back rows of d whole, grouped by the document each
// comes from, and hands them to then, whose page the root shows. Rows the
// table holds whole are not read; a row that cannot be read back keeps
// what the table has (the read's error goes to then). d must have loaded:
// the Cmd reads nothing that changes.
func wholeEntriesCmd(b Documents, d *document, rows []int32, then func([]model.Entry, error) func() Page) tea.Cmd {
	entries := make([]model.Entry, len(rows))
	type source struct {
		url     string
		raw     []byte
		indexes []int
		at      map[int][]int // index → positions in entries
	}
	var order []string
	sources := map[string]*source{}
	for k, i := range rows {
		e, state, _ := d.wholeEntry(int(i))
		entries[k] = e
		if state == entryWhole {
			continue
		}
		url, part, index := d.locate(int(i))
		src := sources[url]
		if src == nil {
			src = &source{url: url, at: map[int][]int{}}
			if part < 0 {
				src.raw = d.raw
			}
			sources[url] = src
			order = append(order, url)
		}
		if src.at[index] == nil {
			src.indexes = append(src.indexes, index)
		}
		src.at[index] = append(src.at[index], k)
	}
	if len(order) == 0 {
		return func() tea.Msg { return showBuiltPageMsg{then(entries, nil)} }
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var firstErr error
		for _, url := range order {
			src := sources[url]
			slices.Sort(src.indexes)
			got, err := b.ReadEntries(ctx, url, src.raw, src.indexes)
			if err != nil && firstErr == nil {
				firstErr = err
			}
			for _, e := range got {
				for _, k := range src.at[e.Index] {
					if e.Loc == entries[k].Loc {
						entries[k] = e
					}
				}
			}
		}
		return showBuiltPageMsg{then(entries, firstErr)}
	}
}
