package ui

import (
	"slices"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"rsx/model"
	"rsx/session"
)

// exStreamingApp is the explorer showing a Resource List still loading, with
// the first n of src's entries in.
func exStreamingApp(t testing.TB, src *document, n int) (*App, *document) {
	a := New(Options{Backend: NopBackend{}, Now: func() time.Time { return exTime }, Dark: true})
	a.noTick = true
	a.resize(120, 40)
	d := newDocument(exHost+"/streaming.xml", 7)
	d.header = src.header
	d.loading = true
	a.cache.put(docKey(d.url, false), d)
	a.show(d, -1)
	exAppendRows(a, d, src, 0, n)
	return a, d
}

// exAppendRows delivers src's entries from..to as load batches.
func exAppendRows(a *App, d *document, src *document, from, to int) {
	for lo := from; lo < to; lo += 2048 {
		batch := make([]model.Entry, 0, 2048)
		for i := lo; i < min(lo+2048, to); i++ {
			batch = append(batch, src.entries.Entry(i))
		}
		a.handleLoad(loadMsg{doc: d, gen: d.gen, part: -1, batch: batch, progress: -1})
	}
}

// TestStreamingSortFilterInCmds sorts and filters a document while it loads:
// the key press returns at once with a Cmd, which reads the rows in so far
// while more arrive (run with -race, it shows that the Cmd shares nothing
// the UI goroutine writes); rows that arrived meanwhile follow, and the end
// of the load sorts and filters all of them.
func TestStreamingSortFilterInCmds(t *testing.T) {
	src := exBigDocument(t, 60000)
	a, d := exStreamingApp(t, src, 30000)
	v := a.dv

	// A filter keystroke: the scan runs in a Cmd while batches arrive.
	cmd := v.startFilter("pdf")
	if cmd == nil || !v.filterBusy {
		t.Fatal("a filter over 30,000 rows still loading ran on the UI goroutine")
	}
	v.Update(exRunWhileAppending(a, d, src, cmd, 30000, 40000))
	if v.filterBusy {
		t.Fatal("the filter's result was not taken")
	}
	want := filterRowsSync(d, "pdf", v.kinds)
	if !slices.Equal(v.filtered, want) {
		t.Fatalf("after the scan and the rows that arrived meanwhile: %d matches, want %d", len(v.filtered), len(want))
	}
	v.Back() // clear the filter

	// Sort by lastmod: in a Cmd over the rows in so far.
	v.sortCol = slices.Index(v.kinds, colLastmod)
	cmd = v.startSort()
	if cmd == nil || !v.sortRunning {
		t.Fatal("a sort of 40,000 rows still loading ran on the UI goroutine")
	}
	v.Update(exRunWhileAppending(a, d, src, cmd, 40000, 50000))
	if v.sortRunning {
		t.Fatal("the sort's result was not taken")
	}
	sorted := sortPerm(d, 40000, colLastmod, false, false)
	for i := 40000; i < 50000; i++ {
		sorted = append(sorted, int32(i)) // arrived during the sort: in document order
	}
	if !slices.Equal(v.order, sorted) {
		t.Fatal("the order is not the rows in at the sort, sorted, then those that arrived after")
	}

	// The end of the load sorts every row.
	exAppendRows(a, d, src, 50000, 60000)
	cmd = a.handleLoad(loadMsg{doc: d, gen: d.gen, part: -1, done: &session.LoadResult{FinalURL: d.url}, progress: -1})
	for _, m := range ivRunCmd(cmd) {
		v.Update(m)
	}
	if !slices.Equal(v.order, sortPerm(d, 60000, colLastmod, false, true)) {
		t.Fatal("after the load, the order is not every row sorted")
	}
}

// exRunWhileAppending runs cmd on a goroutine of its own while src's rows
// from..to arrive, a few at a time so that they arrive while it runs, and
// returns its message once they all have.
func exRunWhileAppending(a *App, d, src *document, cmd tea.Cmd, from, to int) tea.Msg {
	msgs := make(chan tea.Msg, 1)
	go func() { msgs <- cmd() }()
	for ; from < to; from += 64 {
		exAppendRows(a, d, src, from, min(from+64, to))
	}
	return <-msgs
}

// filterRowsSync is the filter over every row, on this goroutine.
func filterRowsSync(d *document, q string, kinds []colKind) []int32 {
	var out []int32
	m := newMatcher(d, parseFilter(q, kinds), kinds, keysNone)
	for i := range d.entries.Len() {
		if m.match(i) {
			out = append(out, int32(i))
		}
	}
	return out
}
