package ui

import (
	"context"
	"fmt"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"rsx/dest/engine"
	"rsx/session"
	"rsx/ui/common"
	"rsx/ui/components"
)

// The local copy attached (rsx --dest DIR, :dest DIR): a column of each
// entry's state in the copy — same, changed at the Source, missing,
// modified locally, outside the copy's selection — computed in the background from the copy's state and
// its files (session.LocalStates) and shown batch by batch as it arrives.

// localCopy is the state of a document's entries in the copy attached.
type localCopy struct {
	dest   string
	gen    int
	states []atomic.Uint32 // session.LocalState per entry; read by background sorts too
	counts [session.LocalOutside + 1]int
	done   int
	err    error
	cancel context.CancelFunc
	// noCopy is set when the copy holds other Sources, not this document's:
	// its entries have no state there, and no column shows.
	noCopy *engine.NoCopyError
}

// shown tells that the copy's column and counts show: the copy is of the
// document's Source (or of none yet).
func (l *localCopy) shown() bool { return l != nil && l.noCopy == nil }

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
	case session.LocalOutside:
		return "outside" // the copy's selection, as :audit says
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
	for _, s := range []session.LocalState{session.LocalSame, session.LocalChanged, session.LocalMissing, session.LocalModified, session.LocalGone, session.LocalOutside} {
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
