package ui

import tea "charm.land/bubbletea/v2"

// The root's side of the subscription to the open Source's notifications
// (notifications.go): applying its events, and marking stale the documents a
// framework notification says changed.

// notified applies an event of the feed and waits for the next one; a
// framework notification marks the documents it names stale.
func (a *App) notified(m notifyMsg) tea.Cmd {
	f := a.notes
	if m.feed != f || m.gen != f.gen || f.sub == nil {
		return nil
	}
	if changed := f.apply(m.ev, a.c.Clock()); len(changed) > 0 {
		a.markStale(changed)
	}
	if m.ev.Err != nil {
		f.ended = true
		return nil
	}
	return f.listen()
}

// notifyEnded records that the feed's subscription has ended.
func (a *App) notifyEnded(m notifyEndedMsg) {
	if m.feed == a.notes && m.gen == a.notes.gen {
		a.notes.ended = true
	}
}

// markStale marks the documents at urls (and their "all parts" views) stale
// in the history, in the cache and, when one is shown, in the status bar.
func (a *App) markStale(urls []string) {
	for _, u := range urls {
		for _, combined := range []bool{false, true} {
			k := docKey(u, combined)
			a.stale[k] = true
			if d := a.cache.docs[k]; d != nil {
				d.stale = true
			}
		}
	}
	a.setTrail()
}
