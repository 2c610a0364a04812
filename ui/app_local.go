package ui

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"rsx/dest/engine"
	"rsx/session"
)

// The root's side of the local copy attached (--dest DIR, :dest DIR): the
// state of each entry of the document shown in it, computed off the UI
// goroutine and computed again when a sync changed the copy.

// startLocal computes the states of d's entries in the copy attached,
// unless they are known (or being computed) already.
func (a *App) startLocal(d *document) tea.Cmd {
	if a.dest == "" || d == nil || !d.wantsLocal() {
		return nil
	}
	if l := d.local; l != nil && l.dest == a.dest && (l.running() || l.noCopy != nil || (l.err == nil && l.done == d.entries.Len())) {
		if d == a.doc {
			a.tellNoCopy(l) // (found while another document was shown)
		}
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
	var noCopy *engine.NoCopyError
	if errors.As(m.err, &noCopy) {
		// The copy of other Sources: no column, said once per Source.
		l.noCopy = noCopy
		if m.doc == a.doc {
			if a.dv != nil {
				a.dv.refreshColumns()
			}
			a.tellNoCopy(l)
		}
		return nil
	}
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
	a.noCopyTold = nil
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

// tellNoCopy says, once per Source, that the copy attached holds other
// Sources, not the one of the document shown.
func (a *App) tellNoCopy(l *localCopy) {
	e := l.noCopy
	if e == nil || a.noCopyTold[e.Source] {
		return
	}
	if a.noCopyTold == nil {
		a.noCopyTold = map[string]bool{}
	}
	a.noCopyTold[e.Source] = true
	a.flashInfo(l.dest + " holds no copy of this Source; it holds: " + strings.Join(e.Holds, ", "))
}
