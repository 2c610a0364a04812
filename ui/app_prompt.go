package ui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/dump"
	"rsx/ui/common"
	"rsx/ui/components"
	"rsx/ui/pages"
)

// The root's one-line prompt: a URL or a file to open (:), an entry to jump
// to, and the commands typed at it (:sync DIR, :audit DIR, :dest DIR, :fleet FILE).

// promptKind is what the root's one-line prompt asks for.
type promptKind uint8

const (
	promptNone promptKind = iota
	promptURL             // ":" a URL, a file or an entry number
	promptJump            // "#" an entry number
)

// startPrompt opens the prompt on the bottom line.
func (a *App) startPrompt(kind promptKind, prompt string) {
	a.promptKind = kind
	a.prompt.SetPrompt(prompt)
	a.prompt.Start("")
}

// promptKey edits the prompt; enter acts on it, esc closes it.
func (a *App) promptKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &a.c.Keys
	switch {
	case key.Matches(msg, k.Cancel):
		a.promptKind = promptNone
		a.prompt.Stop()
		return nil
	case key.Matches(msg, k.Submit):
		kind, val := a.promptKind, strings.TrimSpace(a.prompt.Value())
		a.promptKind = promptNone
		a.prompt.Stop()
		return a.promptDone(kind, val)
	}
	a.prompt.Update(msg)
	return nil
}

// promptDone acts on what was typed.
func (a *App) promptDone(kind promptKind, val string) tea.Cmd {
	switch kind {
	case promptURL:
		if val == "" {
			return nil
		}
		if n, err := strconv.Atoi(val); err == nil && a.onDocument() {
			// ":42" jumps to entry 42, as in vi.
			if n < 1 {
				a.flashError("entries are numbered from 1")
				return nil
			}
			return a.dv.JumpTo(n - 1)
		}
		if cmd, ok := a.promptCommand(val); ok {
			return cmd
		}
		// Typed by the user: a local path allows local files from now on
		// (a session started on a URL reads none until then).
		a.backend.UserOpened(val)
		if pages.LooksLikePackage(val) {
			// A .zip is a dump package: open it in the package page.
			return a.openPackage(dump.PackageRef{URL: val}, false)
		}
		return a.open(place{url: val, selected: -1}, true)
	case promptJump:
		n, err := strconv.Atoi(strings.TrimPrefix(val, "#"))
		if err != nil || n < 1 {
			a.flashError("not an entry number: " + val)
			return nil
		}
		if a.onDocument() {
			return a.dv.JumpTo(n - 1)
		}
	}
	return nil
}

// promptLine is the prompt and what enter does.
func (a *App) promptLine() string {
	k := &a.c.Keys
	what := "open"
	if a.promptKind == promptJump {
		what = "jump"
	}
	hints := components.ShortHelp(a.c.Styles, []key.Binding{common.Short(k.Submit, what), common.Short(k.Cancel, "cancel")}, " · ", 0)
	return components.Fit(a.prompt.View()+"  "+hints, a.width)
}

// promptCommand runs a command typed at the ":" prompt; ok is false when
// val is not one (then it is a URL or a file to open).
func (a *App) promptCommand(val string) (cmd tea.Cmd, ok bool) {
	word, arg, _ := strings.Cut(val, " ")
	arg = strings.TrimSpace(arg)
	switch word {
	case "q", "quit":
		// As in vi; a sync under way keeps the explorer open, as q does.
		if arg != "" {
			return nil, false
		}
		if why := a.leaveGuard(); why != "" {
			a.flashError(why)
			return nil, true
		}
		return a.quit(), true
	case "sync", "audit":
		if arg == "" {
			a.flashError(":" + word + " needs a destination: :" + word + " DIR (a folder, or s3://bucket/prefix)")
			return nil, true
		}
		if a.doc == nil || a.dv == nil {
			a.flashError("nothing is open to " + word)
			return nil, true
		}
		if word == "sync" {
			return a.openSync(arg), true
		}
		return a.openAudit(arg), true
	case "dest":
		return a.attachDest(arg), true
	case "fleet":
		if arg == "" {
			arg = a.fleetFile
		}
		if arg == "" {
			a.flashError(":fleet needs a file of Sources: :fleet FILE (docs/fleet.md)")
			return nil, true
		}
		return a.readFleet(arg), true
	}
	return nil, false
}
