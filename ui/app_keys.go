package ui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/display"
)

// Input: keys (ctrl+c, the prompt, the help, then the global keys, then the
// active page), esc, the mouse, and quitting.

// key handles a key press: ctrl+c, the prompt, the help, a page's text
// input, then the global keys, then the active page.
func (a *App) key(msg tea.KeyPressMsg) tea.Cmd {
	k := &a.c.Keys
	a.flash = ""
	if key.Matches(msg, k.Force) {
		return a.quit()
	}
	if a.promptKind != promptNone {
		return a.promptKey(msg)
	}
	if a.help != nil {
		if key.Matches(msg, k.Help) || key.Matches(msg, k.Back) || key.Matches(msg, k.Quit) {
			a.help = nil
			return nil
		}
		a.help.Update(msg)
		return nil
	}
	// A page whose text input has the keyboard gets every key.
	if p := a.active(); p != nil && p.InputActive() {
		_, cmd := p.Update(msg)
		return cmd
	}

	// Counts: "42g" jumps to entry 42.
	if a.onDocument() {
		if key.Matches(msg, k.Count) {
			if n, err := strconv.Atoi(a.count + msg.Text); err == nil && n > 0 && len(a.count) < 9 {
				a.count += msg.Text
			}
			return nil
		}
		if a.count != "" {
			n, _ := strconv.Atoi(a.count)
			a.count = ""
			if key.Matches(msg, k.Top) || key.Matches(msg, k.Bottom) {
				return a.dv.JumpTo(n - 1)
			}
		}
	}

	if key.Matches(msg, k.Quit) || key.Matches(msg, k.OpenURL) || key.Matches(msg, k.HistBack) || key.Matches(msg, k.HistFwd) {
		if why := a.leaveGuard(); why != "" {
			a.flashError(why)
			return nil
		}
	}
	switch {
	case key.Matches(msg, k.Quit):
		return a.quit()
	case key.Matches(msg, k.Help):
		a.help = newHelpScreen(a.c, a.helpGroups(), a.onDocument(), a.width, a.height)
		return nil
	case key.Matches(msg, k.OpenURL):
		a.startPrompt(promptURL, ": ")
		return nil
	case key.Matches(msg, k.JumpTo) && a.onDocument():
		a.startPrompt(promptJump, "entry # ")
		return nil
	case key.Matches(msg, k.HistBack):
		return a.goBack()
	case key.Matches(msg, k.HistFwd):
		return a.goForward()
	case key.Matches(msg, k.Back):
		return a.back()
	}

	if n := len(a.pages); n > 0 {
		var cmd tea.Cmd
		a.pages[n-1], cmd = a.pages[n-1].Update(msg)
		return cmd
	}
	if a.dv == nil {
		return nil
	}
	for _, o := range a.pageOpeners() {
		if key.Matches(msg, o.key) {
			return a.openWith(o)
		}
	}
	_, cmd := a.dv.Update(msg)
	return cmd
}

// back is esc: cancel discovery; let the active page cancel its work or
// close it; clear the filter; cancel the load; or go back in the history.
func (a *App) back() tea.Cmd {
	if a.discoverCancel != nil {
		a.discoverCancel()
		a.discoverCancel = nil
		a.flashInfo("discovery cancelled")
		return nil
	}
	if n := len(a.pages); n > 0 {
		if handled, cmd := a.pages[n-1].Back(); handled {
			return cmd
		}
		return a.popOrLeave()
	}
	if a.dv != nil {
		if handled, cmd := a.dv.Back(); handled {
			return cmd
		}
	}
	if len(a.parked) > 0 {
		a.unpark()
		return nil
	}
	if d := a.doc; d != nil && d.loading {
		d.cancelLoad()
		d.loading, d.wait = false, retryWait{}
		if d.parts != nil {
			d.err = fmt.Errorf("%w after %s of %s parts", errCancelled, display.Count(d.partsDone), display.Count(len(d.parts)))
		} else {
			d.err = errCancelled
		}
		text := "load cancelled — r reloads"
		if marks := d.carriedText(); marks != "" {
			text += " · " + strings.TrimPrefix(marks, "reloaded: ")
		}
		a.flashInfo(text)
		return nil
	}
	if !a.hist.canBack() {
		a.flashInfo("at the start of the history — q quits")
		return nil
	}
	return a.goBack()
}

// mouse routes clicks and the wheel to the page under them.
func (a *App) mouse(msg tea.Msg) tea.Cmd {
	a.flash = ""
	if a.help != nil {
		a.help.Update(msg)
		return nil
	}
	if n := len(a.pages); n > 0 {
		// The page sits below the tab line.
		switch m := msg.(type) {
		case tea.MouseClickMsg:
			if m.Y == 0 {
				a.clickTab(m.X)
				return nil
			}
			m.Y--
			msg = m
		case tea.MouseWheelMsg:
			m.Y--
			msg = m
		}
		var cmd tea.Cmd
		a.pages[n-1], cmd = a.pages[n-1].Update(msg)
		return cmd
	}
	if a.dv == nil {
		return nil
	}
	_, cmd := a.dv.Update(msg)
	return cmd
}

// clickTab handles a click on the tab line: the document's name goes back
// to it.
func (a *App) clickTab(x int) {
	if a.doc != nil && x < cellsOf(a.c).Width(a.doc.title()) && a.leaveGuard() == "" {
		a.closeOverPlace()
	}
}

// quit cancels every load and ends the program.
func (a *App) quit() tea.Cmd {
	for _, d := range a.cache.docs {
		d.cancelLoad()
		d.stopCrossCheck()
	}
	if a.doc != nil {
		a.doc.cancelLoad()
	}
	if a.discoverCancel != nil {
		a.discoverCancel()
	}
	a.notes.stop()
	a.closePages()
	a.dropLeft()
	if a.dv != nil {
		a.dv.Close()
	}
	return tea.Quit
}
