package ui

import (
	tea "charm.land/bubbletea/v2"

	"rsx/session"
	"rsx/ui/pages"
)

// FleetBackend reads a fleet file and the status of its Sources: the fleet
// page's data (rsx/session's Session has it).
type FleetBackend interface {
	pages.FleetBackend
	ReadFleet(path, defaultDest string) ([]session.FleetSource, error)
}

// fleetReadMsg carries a fleet file read.
type fleetReadMsg struct {
	file    string
	sources []session.FleetSource
	err     error
}

// readFleet reads a fleet file in a Cmd; the fleet page opens when it is
// read (fleetReadMsg).
func (a *App) readFleet(file string) tea.Cmd {
	b := a.opts.Fleet
	if b == nil {
		a.flashError(":fleet: this explorer has no fleet backend")
		return nil
	}
	dest := a.opts.Dest
	return func() tea.Msg {
		rows, err := b.ReadFleet(file, dest)
		return fleetReadMsg{file: file, sources: rows, err: err}
	}
}

// fleetRead opens the fleet page on the Sources read.
func (a *App) fleetRead(msg fleetReadMsg) tea.Cmd {
	if msg.err != nil {
		a.flashError(":fleet: " + msg.err.Error())
		return nil
	}
	a.fleetFile = msg.file
	return a.showPlace(pages.NewFleet(a.c, a.opts.Fleet, msg.file, msg.sources, a.opts.Now))
}

// Checked at build time: the session is a fleet backend.
var _ FleetBackend = (*session.Session)(nil)
