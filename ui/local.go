package ui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"rsx/session"
	"rsx/ui/common"
	"rsx/ui/components"
)

// The local copy attached (rsx --dest DIR, :dest DIR): a column of each
// entry's state in the copy — same, changed at the Source, missing,
// modified locally — computed in the background from the copy's state and
// its files (session.LocalStates) and shown batch by batch as it arrives.

// localCopy is the state of a document's entries in the copy attached.
type localCopy struct {
	dest   string
	gen    int
	states []atomic.Uint32 // session.LocalState per entry; read by background sorts too
	counts [session.LocalGone + 1]int
	done   int
	err    error
	cancel context.CancelFunc
}

// state is entry i's state (LocalUnknown until computed).
func (l *localCopy) state(i int) session.LocalState {
	if l == nil || i < 0 || i >= len(l.states) {
		return session.LocalUnknown
	}
	return session.LocalState(l.states[i].Load())
}

// running tells that states are still being computed.
func (l *localCopy) running() bool { return l != nil && l.cancel != nil }

// stop cancels a computation in flight.
func (l *localCopy) stop() {
	if l != nil && l.cancel != nil {
		l.cancel()
		l.cancel = nil
	}
}

// localWord is a state in the table's few cells.
func localWord(s session.LocalState) string {
	switch s {
	case session.LocalSame:
		return "same"
	case session.LocalChanged:
		return "changed"
	case session.LocalMissing:
		return "missing"
	case session.LocalModified:
		return "modified"
	case session.LocalGone:
		return "gone"
	}
	return ""
}

// localPaint colours a state in the table.
func localPaint(st *common.Styles, s session.LocalState) common.Paint {
	switch s {
	case session.LocalSame:
		return st.Paint.MarkOK
	case session.LocalChanged:
		return st.Paint.MarkUnknown
	case session.LocalModified:
		return st.Paint.MarkBad
	}
	return st.Paint.Dim
}

// statusText sums the states up for the status bar.
func (l *localCopy) statusText(n int) (full, short string) {
	full = "copy"
	for _, s := range []session.LocalState{session.LocalSame, session.LocalChanged, session.LocalMissing, session.LocalModified, session.LocalGone} {
		if c := l.counts[s]; c > 0 {
			full += fmt.Sprintf(" · %s %s", components.Count(c), localWord(s))
		}
	}
	short = fmt.Sprintf("copy %s/%s same", components.Count(l.counts[session.LocalSame]), components.Count(n))
	switch {
	case l.err != nil:
		full += " · " + components.Escape(l.err.Error())
		short += " · failed"
	case l.running():
		pct := ""
		if n > 0 {
			pct = fmt.Sprintf(" %d%%", l.done*100/n)
		}
		full += " · reading" + pct
		short += pct
	}
	return full, short
}

// localMsg carries a batch of states, or the end of their computation.
type localMsg struct {
	doc   *document
	gen   int
	batch *session.LocalBatch
	done  bool
	err   error
	next  tea.Cmd
}

// wantsLocal tells whether d's entries can have a state in a copy: the
// resources of a loaded document.
func (d *document) wantsLocal() bool {
	return !d.loading && d.entries.Len() > 0 && d.header != nil && !d.entriesAreDocuments() && !d.entriesArePackages()
}

// startLocal computes the states of d's entries in the copy attached,
// unless they are known (or being computed) already.
func (a *App) startLocal(d *document) tea.Cmd {
	if a.dest == "" || d == nil || !d.wantsLocal() {
		return nil
	}
	if l := d.local; l != nil && l.dest == a.dest && (l.running() || (l.err == nil && l.done == d.entries.Len())) {
		return nil
	}
	return a.computeLocal(d)
}

// computeLocal (re)computes the states of d's entries in the copy attached.
func (a *App) computeLocal(d *document) tea.Cmd {
	if a.dest == "" || d == nil || !d.wantsLocal() {
		return nil
	}
	gen := 1
	if d.local != nil {
		d.local.stop()
		gen = d.local.gen + 1
	}
	n := d.entries.Len()
	ctx, cancel := context.WithCancel(context.Background())
	l := &localCopy{dest: a.dest, gen: gen, states: make([]atomic.Uint32, n), cancel: cancel}
	d.local = l
	if d == a.doc && a.dv != nil {
		a.dv.refreshColumns() // the copy's column
	}
	ch := make(chan localMsg, 2)
	req := session.LocalRequest{Dest: a.dest, Target: d.base(), Base: d.base(), Entries: d.entries}
	b := a.backend
	send := func(m localMsg) {
		m.doc, m.gen = d, gen
		select {
		case ch <- m:
		case <-ctx.Done():
		}
	}
	run := func() tea.Msg {
		go func() {
			err := b.LocalStates(ctx, req, func(batch session.LocalBatch) { send(localMsg{batch: &batch}) })
			send(localMsg{done: true, err: err})
		}()
		return nil
	}
	var wait tea.Cmd
	wait = func() tea.Msg {
		select {
		case m := <-ch:
			m.next = wait
			return m
		case <-ctx.Done():
			return nil
		}
	}
	return tea.Batch(run, wait, a.tick())
}

// localArrived records states computed.
func (a *App) localArrived(m localMsg) tea.Cmd {
	l := m.doc.local
	if l == nil || l.gen != m.gen || l.cancel == nil {
		return nil
	}
	if b := m.batch; b != nil {
		for i, s := range b.States {
			if j := b.From + i; j < len(l.states) {
				l.states[j].Store(uint32(s))
				l.counts[s]++
			}
		}
		l.done += len(b.States)
		return m.next
	}
	l.cancel()
	l.cancel = nil
	if m.err != nil && m.err != context.Canceled {
		l.err = m.err
		if m.doc == a.doc {
			if errors.Is(m.err, fs.ErrNotExist) {
				a.flashError("no copy in " + l.dest + ": the folder does not exist (:sync DIR makes one)")
			} else {
				a.flashError("the copy in " + l.dest + ": " + m.err.Error())
			}
		}
	}
	return nil
}

// attachDest attaches the local copy dest ("" detaches it) and computes
// the states of the document shown.
func (a *App) attachDest(dest string) tea.Cmd {
	for _, d := range a.cache.docs {
		if d.local != nil {
			d.local.stop()
			d.local = nil
		}
	}
	a.dest = dest
	if a.dv != nil {
		a.dv.refreshColumns()
	}
	if dest == "" {
		a.flashInfo("the local copy is detached")
		return nil
	}
	a.flashInfo("local copy: " + dest)
	return a.startLocal(a.doc)
}
