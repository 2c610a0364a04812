package ui

import (
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/dump"
	"rsx/internal/suggest"
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
	a.promptPos, a.promptDraft, a.promptNote = len(a.promptHist), "", ""
}

// promptKey edits the prompt; enter acts on it, esc closes it.
func (a *App) promptKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &a.c.Keys
	a.promptNote = ""
	switch {
	case key.Matches(msg, k.Cancel):
		a.promptKind = promptNone
		a.prompt.Stop()
		return nil
	case key.Matches(msg, k.Submit):
		kind, val := a.promptKind, strings.TrimSpace(a.prompt.Value())
		a.promptKind = promptNone
		a.prompt.Stop()
		if kind == promptURL && val != "" && (len(a.promptHist) == 0 || a.promptHist[len(a.promptHist)-1] != val) {
			a.promptHist = append(a.promptHist, val)
		}
		return a.promptDone(kind, val)
	case a.promptKind == promptURL && key.Matches(msg, k.PromptPrev):
		a.recall(-1)
		return nil
	case a.promptKind == promptURL && key.Matches(msg, k.PromptNext):
		a.recall(+1)
		return nil
	case a.promptKind == promptURL && key.Matches(msg, k.Complete):
		return a.complete()
	}
	a.prompt.Update(msg)
	return nil
}

// recall shows the entry of the prompt's history step away from the one
// shown (-1: earlier), as a shell's ↑ and ↓ do; past the newest it gives
// back the line that was being typed.
func (a *App) recall(step int) {
	pos := a.promptPos + step
	if pos < 0 || pos > len(a.promptHist) {
		return
	}
	if a.promptPos == len(a.promptHist) {
		a.promptDraft = a.prompt.Value()
	}
	a.promptPos = pos
	if pos == len(a.promptHist) {
		a.prompt.Start(a.promptDraft)
		return
	}
	a.prompt.Start(a.promptHist[pos])
}

// completionMsg carries the completions of the prompt's text typed.
type completionMsg struct {
	typed string   // the prompt's whole text when tab was pressed
	head  string   // the part of it kept (a command and its space)
	found []string // the completions of the rest
	urls  bool     // found are URLs, not paths
}

// complete starts the completion of the path (or of the argument of a
// command, :sync DIR) typed at the prompt: local paths through the
// backend, URLs from those entered or visited this session.
func (a *App) complete() tea.Cmd {
	typed := a.prompt.Value()
	head, part := "", typed
	if word, arg, ok := strings.Cut(typed, " "); ok {
		switch word {
		case "sync", "audit", "dest", "fleet":
			head, part = word+" ", strings.TrimLeft(arg, " ")
			head += arg[:len(arg)-len(part)]
		}
	}
	if strings.Contains(part, "://") || strings.HasPrefix(part, "http") {
		return msgCmd(completionMsg{typed: typed, head: head, found: a.knownURLs(part), urls: true})
	}
	b := a.backend
	return func() tea.Msg {
		return completionMsg{typed: typed, head: head, found: b.CompletePath(part)}
	}
}

// knownURLs are the URLs entered at the prompt or visited this session
// that begin with prefix, sorted, each once.
func (a *App) knownURLs(prefix string) []string {
	var out []string
	add := func(u string) {
		if strings.HasPrefix(u, prefix) && !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	for _, u := range a.promptHist {
		add(u)
	}
	for _, p := range a.hist.places {
		add(p.url)
	}
	slices.Sort(out)
	return out
}

// completed applies completions: one replaces what was typed; several
// extend it to what they share and are listed after the prompt.
func (a *App) completed(msg completionMsg) {
	if a.promptKind != promptURL || a.prompt.Value() != msg.typed {
		return // the prompt was closed, or typed on, meanwhile
	}
	part := strings.TrimPrefix(msg.typed, msg.head)
	switch len(msg.found) {
	case 0:
		what := "no file or folder begins with "
		if msg.urls {
			what = "no URL opened this session begins with "
		}
		a.promptNote = what + part
		return
	case 1:
		a.prompt.Start(msg.head + msg.found[0])
		return
	}
	common := msg.found[0]
	for _, f := range msg.found[1:] {
		common = commonPrefix(common, f)
	}
	if len(common) > len(part) {
		a.prompt.Start(msg.head + common)
	}
	names := make([]string, len(msg.found))
	for i, f := range msg.found {
		names[i] = f
		if !msg.urls {
			names[i] = lastPart(f)
		}
	}
	a.promptNote = strings.Join(names, "  ")
}

// commonPrefix is the longest prefix of a and b, whole runes.
func commonPrefix(a, b string) string {
	n := 0
	for i, r := range a {
		if !strings.HasPrefix(b[min(i, len(b)):], string(r)) {
			break
		}
		n = i + len(string(r))
	}
	return a[:n]
}

// lastPart is a path's last name, a folder's with its separator.
func lastPart(p string) string {
	trimmed := strings.TrimRight(p, `/\`)
	i := strings.LastIndexAny(trimmed, `/\`)
	return p[i+1:]
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
		if word := commandWord(val); word != "" {
			// A word that names no command: a file of that name is opened,
			// anything else is a mistyped command (found in a Cmd: the
			// backend reads the folder).
			b := a.backend
			return func() tea.Msg { return typedMsg{val: val, word: word, isFile: isPath(b.CompletePath(val), val)} }
		}
		return a.openTyped(val)
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

// openTyped opens what was typed at the prompt: a URL, a file or a folder.
func (a *App) openTyped(val string) tea.Cmd {
	// Typed by the user: a local path allows local files from now on
	// (a session started on a URL reads none until then).
	a.backend.UserOpened(val)
	if pages.LooksLikePackage(val) {
		// A .zip is a dump package: open it in the package page.
		return a.openPackage(dump.PackageRef{URL: val}, false)
	}
	return a.open(place{url: val, selected: -1}, true)
}

// promptCommands are the commands typed at the ":" prompt (promptCommand),
// each as it is typed, as "did you mean" offers them.
func promptCommands() (names, usage []string) {
	return []string{"sync", "audit", "dest", "fleet", "q", "quit"},
		[]string{":sync DIR", ":audit DIR", ":dest DIR", ":fleet FILE", ":q", ":quit"}
}

// commandWord is the first word of val when val may be a mistyped command
// (":sycn ./copy", ":help", ":wq"): letters, digits, - and _, not a URL
// nor a path (no dot, no separator); "" otherwise.
func commandWord(val string) string {
	word, _, _ := strings.Cut(val, " ")
	if word == "" || strings.Contains(val, "://") {
		return ""
	}
	for i, r := range word {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '-' || r == '_'):
		default:
			return ""
		}
	}
	return word
}

// isPath tells whether found, the completions of val, hold val itself (a
// file, or a folder).
func isPath(found []string, val string) bool {
	for _, f := range found {
		if strings.TrimRight(f, `/\`) == strings.TrimRight(val, `/\`) {
			return true
		}
	}
	return false
}

// typedMsg tells whether a word typed at the prompt that names no command
// is a file.
type typedMsg struct {
	val, word string
	isFile    bool
}

// typed opens the file typed, or says that the word is no command: the
// prompt opens again on what was typed, to be mended (esc leaves it, where
// the user was), and nothing is added to the history.
func (a *App) typed(msg typedMsg) tea.Cmd {
	if msg.isFile {
		return a.openTyped(msg.val)
	}
	note := "unknown command :" + msg.word + " (nor a file or URL)"
	names, usage := promptCommands()
	if s := suggest.Nearest(strings.ToLower(msg.word), names); s != "" {
		note += ", did you mean " + usage[slices.Index(names, s)] + "?"
	} else {
		note += "; commands: :" + strings.Join(names[:5], " :") + "; ? lists the keys"
	}
	if a.promptKind != promptNone {
		a.flashError(note) // (another prompt opened meanwhile)
		return nil
	}
	a.startPrompt(promptURL, ":")
	a.prompt.Start(msg.val)
	a.promptNote = note
	return nil
}

// promptLine is the prompt and what enter does.
func (a *App) promptLine() string {
	k := &a.c.Keys
	what := "open"
	if a.promptKind == promptJump {
		what = "jump"
	}
	if a.promptNote != "" {
		return cellsOf(a.c).Fit(a.prompt.View()+"  "+a.c.Styles.Dim.Render(components.Escape(a.promptNote)), a.width)
	}
	bindings := []key.Binding{common.Short(k.Submit, what), common.Short(k.Cancel, "cancel")}
	if a.promptKind == promptURL {
		bindings = append(bindings, common.Short(k.PromptPrev, "earlier"), common.Short(k.Complete, "complete"))
	}
	hints := components.ShortHelp(a.c.Styles, bindings, " · ", 0)
	return cellsOf(a.c).Fit(a.prompt.View()+"  "+hints, a.width)
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
