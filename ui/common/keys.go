package common

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
)

// KeyMap holds every key binding of the explorer, for every page. The help
// screen (?) and the footers are generated from it, so that they cannot
// drift from behaviour: code matches keys with key.Matches(msg, k.X), never
// with string literals.
type KeyMap struct {
	// Moving in a list or a text. Every page moves through one switch
	// (components.StepOf), so that these keys mean the same everywhere.
	Up, Down           key.Binding
	PageUp, PageDown   key.Binding
	HalfUp, HalfDown   key.Binding
	Top, Bottom        key.Binding
	JumpTo             key.Binding // prompt for an entry (or line) number
	Count              key.Binding // the digits of "N g"
	Left, Right        key.Binding // scroll sideways where a page allows it
	NextPane, PrevPane key.Binding // move focus between the panes of a page

	// Navigating between documents.
	Open      key.Binding // open the selected entry
	Back      key.Binding // clear the filter, cancel a load, close a page, or go back
	UpLink    key.Binding // follow the document's up link
	IndexLink key.Binding // follow the document's index link
	Archives  key.Binding // follow the document's archives link (ResourceSync Archives)
	HistBack  key.Binding
	HistFwd   key.Binding
	OpenURL   key.Binding // prompt for any URL
	LoadAll   key.Binding // open every part of an index as one list
	DocInfo   key.Binding // detail pane: the document's own metadata and links
	Manifest  key.Binding // a dump package's manifest copy (its contents link)

	// Finding.
	Filter      key.Binding
	SortNext    key.Binding
	SortReverse key.Binding
	NextProblem key.Binding // the next entry that has a problem
	PrevProblem key.Binding // the previous one

	// Acting on the selection.
	Copy    key.Binding // copy the selected URL (OSC 52)
	Browser key.Binding // open the selected URL in a browser
	Retry   key.Binding // retry a failed load, reload a document

	// Marking entries (for a sync, an audit, a spot check). +, - and * are
	// a file manager's (Midnight Commander's), which archivists know, and
	// leave A and C to the archives link and the coverage.
	Mark        key.Binding // mark or unmark the selected entry, and move to the next
	MarkShown   key.Binding // mark every entry shown (after a filter: those it keeps)
	UnmarkAll   key.Binding // clear the marks
	InvertMarks key.Binding // invert the marks of the entries shown
	SpotCheck   key.Binding // spot-check the marked (or shown) entries' claims

	// The commands typed at the ":" prompt for a local copy. They are
	// listed on the help screen; the prompt reads them (never a key press).
	SyncCmd  key.Binding // :sync DIR
	AuditCmd key.Binding // :audit DIR
	DestCmd  key.Binding // :dest DIR
	FleetCmd key.Binding // :fleet FILE

	// Pages opened over the document.
	Raw      key.Binding // raw XML
	HTTP     key.Binding // HTTP exchange
	Problems key.Binding // conformance problems
	// EntryProblems: the problems page, on the selected entry's first problem.
	EntryProblems key.Binding
	Discovery     key.Binding // how the Source was discovered
	Versions      key.Binding // the selected resource's versions (Memento)
	Coverage      key.Binding // the periods a Change List (Index) and its archive cover
	Notify        key.Binding // the Source's notifications, live

	// Keys of one page each (listed in that page's help group).
	NextMatch      key.Binding // raw: next search match
	PrevMatch      key.Binding // raw: previous search match
	Mirrors        key.Binding // resource: fetch and compare every mirror
	ToggleErrors   key.Binding // problems: show or hide errors
	ToggleWarnings key.Binding // problems: show or hide warnings
	ShowLine       key.Binding // problems: show the problem's line in the raw XML
	Pretty         key.Binding // raw: pretty-printed or as received
	Compare        key.Binding // versions: diff a version against the current resource
	TimeGate       key.Binding // versions: ask the TimeGate for a datetime
	DeleteToggle   key.Binding // sync plan: apply the deletions or only remember them
	ConfirmStop    key.Binding // sync progress: yes, stop the sync
	SyncDiffs      key.Binding // audit: sync what differs (through the plan page)
	FleetSync      key.Binding // fleet: sync the selected Source (through the plan page)
	FleetRuns      key.Binding // fleet: the selected Source's runs, or back to the Sources

	// A text input (filter, prompt, search) that has the keyboard.
	Submit key.Binding
	Cancel key.Binding
	// At the ":" prompt: earlier and later entries, completion.
	PromptPrev, PromptNext, Complete key.Binding
	PromptKeys                       key.Binding // the three in the help

	// Program.
	Help key.Binding
	Quit key.Binding
	// QuitCmd is ":q" or ":quit" typed at the ":" prompt (help only).
	QuitCmd key.Binding
	Force   key.Binding // ctrl+c: quit from anywhere, even inside an input
}

// DefaultKeyMap returns the bindings of the explorer.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup/ctrl+b", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+f"), key.WithHelp("pgdn/ctrl+f", "page down")),
		HalfUp:   key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "half page up")),
		HalfDown: key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "half page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "first entry (N g: entry N)")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "last entry (N G: entry N)")),
		JumpTo:   key.NewBinding(key.WithKeys("#"), key.WithHelp("#", "jump to entry number")),
		Count:    key.NewBinding(key.WithKeys("0", "1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("N", "count for g, G")),
		Left:     key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "scroll left")),
		Right:    key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "scroll right")),
		NextPane: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
		PrevPane: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous pane")),

		Open:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Back:      key.NewBinding(key.WithKeys("esc", "backspace"), key.WithHelp("esc", "clear filter, cancel, back")),
		UpLink:    key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "follow up link")),
		IndexLink: key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "follow index link")),
		Archives:  key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "follow archives link")),
		HistBack:  key.NewBinding(key.WithKeys("["), key.WithHelp("[", "history back")),
		HistFwd:   key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "history forward")),
		OpenURL:   key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "open a URL or a file")),
		LoadAll:   key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "all parts of an index")),
		DocInfo:   key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "detail: entry / document")),
		Manifest:  key.NewBinding(key.WithKeys("M"), key.WithHelp("M", "a package's manifest copy")),

		Filter:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		SortNext:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort by next column")),
		SortReverse: key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "reverse sort")),
		NextProblem: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next entry with a problem")),
		PrevProblem: key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous such entry")),

		Copy:    key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy URL")),
		Browser: key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open in browser")),
		Retry:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "retry / reload")),

		Mark:        key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "mark ■ / unmark, then next")),
		MarkShown:   key.NewBinding(key.WithKeys("+"), key.WithHelp("+", "mark every entry shown")),
		UnmarkAll:   key.NewBinding(key.WithKeys("-"), key.WithHelp("-", "clear the marks")),
		InvertMarks: key.NewBinding(key.WithKeys("*"), key.WithHelp("*", "invert the marks shown")),
		SpotCheck:   key.NewBinding(key.WithKeys("K"), key.WithHelp("K", "spot-check marked or shown")),
		SyncCmd:     key.NewBinding(key.WithKeys(":sync"), key.WithHelp(":sync DIR", "sync marked/shown into DIR")),
		AuditCmd:    key.NewBinding(key.WithKeys(":audit"), key.WithHelp(":audit DIR", "compare the copy in DIR")),
		DestCmd:     key.NewBinding(key.WithKeys(":dest"), key.WithHelp(":dest DIR", "each entry's state in DIR")),
		FleetCmd:    key.NewBinding(key.WithKeys(":fleet"), key.WithHelp(":fleet FILE", "the fleet page of the Sources in FILE")),

		Raw:           key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "raw XML")),
		HTTP:          key.NewBinding(key.WithKeys("h"), key.WithHelp("h", "HTTP exchange")),
		Problems:      key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "problems")),
		EntryProblems: key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "problems of this entry")),
		Discovery:     key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "discovery")),
		Versions:      key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "versions (Memento)")),
		Coverage:      key.NewBinding(key.WithKeys("C"), key.WithHelp("C", "change list coverage")),
		Notify:        key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "live notifications (● live)")),

		NextMatch:      key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next match")),
		PrevMatch:      key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous match")),
		Mirrors:        key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "fetch and compare mirrors")),
		ToggleErrors:   key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "show/hide errors")),
		ToggleWarnings: key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "show/hide warnings")),
		ShowLine:       key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "its line in the raw XML")),
		Pretty:         key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "pretty-print / as received")),
		Compare:        key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "diff with the resource now")),
		TimeGate:       key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "version at a datetime")),
		DeleteToggle:   key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "apply deletions: on / off")),
		ConfirmStop:    key.NewBinding(key.WithKeys("y", "enter"), key.WithHelp("y/enter", "yes, stop")),
		SyncDiffs:      key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "plan a sync of the diffs")),
		FleetSync:      key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "plan a sync of the Source")),
		FleetRuns:      key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "its runs / the Sources")),

		Submit:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply")),
		Cancel:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		PromptPrev: key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "earlier")),
		PromptNext: key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "later")),
		Complete:   key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete")),
		PromptKeys: key.NewBinding(key.WithKeys(":↑"), key.WithHelp(": ↑/↓ tab", "earlier entries, complete")),

		Help:    key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:    key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		Force:   key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		QuitCmd: key.NewBinding(key.WithKeys(":q"), key.WithHelp(":q/:quit", "quit")),
	}
}

// KeyGroup is a titled group of bindings on the help screen.
type KeyGroup struct {
	Title    string
	Bindings []key.Binding
}

// Groups returns the bindings of the document page, grouped for the help
// screen; a page shown over the document adds its own group
// (Page.KeyBindings). Disabled bindings are left out when drawn.
func (k KeyMap) Groups() []KeyGroup {
	return []KeyGroup{
		{"Move", []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, k.Top, k.Bottom, k.JumpTo, k.NextPane, k.PrevPane}},
		{"Navigate", []key.Binding{k.Open, k.Back, k.UpLink, k.IndexLink, k.Archives, k.HistBack, k.HistFwd, k.OpenURL, k.PromptKeys, k.LoadAll, k.DocInfo, k.Manifest}},
		{"Find", []key.Binding{k.Filter, k.SortNext, k.SortReverse, k.NextProblem, k.PrevProblem}},
		{"Act", []key.Binding{k.Copy, k.Browser, k.Retry}},
		{"Mark", []key.Binding{k.Mark, k.MarkShown, k.UnmarkAll, k.InvertMarks, k.SpotCheck}},
		{"Local copy", []key.Binding{k.SyncCmd, k.AuditCmd, k.DestCmd, k.FleetCmd}},
		{"Inspect", []key.Binding{k.Raw, k.HTTP, k.Problems, k.EntryProblems, k.Discovery, k.Versions, k.Coverage, k.Notify}},
		{"Program", []key.Binding{k.Help, k.Quit, k.QuitCmd, k.Force}},
	}
}

// GlobalGroups are the bindings the root answers over every page (the
// document's and those shown over it): back, the history, the ":" prompt
// and its commands, help and quitting. Groups lists them too, among the
// document page's own.
func (k KeyMap) GlobalGroups() []KeyGroup {
	return []KeyGroup{
		{"Everywhere", []key.Binding{Short(k.Back, "back (a page clears or cancels first)"), k.HistBack, k.HistFwd, k.OpenURL, k.PromptKeys}},
		{"Local copy", []key.Binding{k.SyncCmd, k.AuditCmd, k.DestCmd, k.FleetCmd}},
		{"Program", []key.Binding{k.Help, k.Quit, k.QuitCmd, k.Force}},
	}
}

// PageHelp is the help of a page shown over the document: its own bindings
// under its title, then the global groups, less the global bindings whose
// keys the page gives another meaning just now (a running download's esc),
// so that no key is listed twice.
func (k KeyMap) PageHelp(title string, page []key.Binding) []KeyGroup {
	out := []KeyGroup{{Title: title, Bindings: page}}
	for _, g := range k.GlobalGroups() {
		kept := KeyGroup{Title: g.Title}
		for _, b := range g.Bindings {
			if !slices.ContainsFunc(b.Keys(), func(key string) bool { return bindsEnabled(page, key) }) {
				kept.Bindings = append(kept.Bindings, b)
			}
		}
		if len(kept.Bindings) > 0 {
			out = append(out, kept)
		}
	}
	return out
}

// ShortHelp is the document page's footer (bubbles/help's help.KeyMap).
func (k KeyMap) ShortHelp() []key.Binding { return k.DocumentFooter(false, false) }

// FullHelp is the help screen's groups as columns (bubbles/help's help.KeyMap).
func (k KeyMap) FullHelp() [][]key.Binding {
	groups := k.Groups()
	out := make([][]key.Binding, len(groups))
	for i, g := range groups {
		out[i] = g.Bindings
	}
	return out
}

// The footers below are the bindings of the key map under the short words a
// footer has room for: the keys shown are always the keys that work.

// DocumentFooter is the document page's footer; index: the document is an
// index, whose entries are parts; failed: it failed to load, and retrying
// comes first. The caller gives the key map in the document's state: the
// bindings it disabled are not drawn.
func (k KeyMap) DocumentFooter(index, failed bool) []key.Binding {
	var out []key.Binding
	if failed {
		out = append(out, Short(k.Retry, "retry"))
	}
	if index {
		out = append(out, Short(k.Open, "open part"), Short(k.LoadAll, "all parts"))
	} else {
		out = append(out, Short(k.Open, "open"))
	}
	return append(out, Short(k.Back, "back"), Short(k.Filter, "filter"), Short(k.SortNext, "sort"),
		Short(k.UpLink, "up"), Short(k.HistBack, "history"), Short(k.OpenURL, "open URL"), Short(k.Raw, "xml"), Short(k.Help, "help"), Short(k.Quit, "quit"))
}

// PageFooter is the footer of a page shown over the document: back, the
// page's own bindings, help and quit.
func (k KeyMap) PageFooter(page []key.Binding) []key.Binding {
	out := make([]key.Binding, 0, len(page)+3)
	// esc is "back" unless the page gives it another meaning just now (a
	// running sync: stop; its question: go on), which is listed instead:
	// never "esc back" beside "esc go on".
	if !bindsEnabled(page, k.Back.Keys()[0]) {
		out = append(out, Short(k.Back, "back"))
	}
	out = append(out, page...)
	return append(out, Short(k.Help, "help"), Short(k.Quit, "quit"))
}

// Within is bs with each binding disabled unless every key of it answers to
// an enabled binding of working: a footer (a page's choice of its keys)
// drawn within its help (every key that works just now) lists no key that
// the help leaves out.
func Within(bs, working []key.Binding) []key.Binding {
	out := make([]key.Binding, len(bs))
	for i, b := range bs {
		works := len(b.Keys()) > 0
		for _, k := range b.Keys() {
			works = works && bindsEnabled(working, k)
		}
		out[i] = When(works, b)
	}
	return out
}

// bindsEnabled tells whether an enabled binding of bs answers to key.
func bindsEnabled(bs []key.Binding, k string) bool {
	for _, b := range bs {
		if b.Enabled() && slices.Contains(b.Keys(), k) {
			return true
		}
	}
	return false
}

// LoadErrorHints are the keys offered under a document that failed to load;
// local: the document is a file, which discovery cannot start from.
func (k KeyMap) LoadErrorHints(local bool) []key.Binding {
	hs := []key.Binding{Short(k.Retry, "retry"), Short(k.Back, "back"), Short(k.HTTP, "HTTP exchange"), Short(k.OpenURL, "open another URL")}
	if !local {
		hs = append(hs, Short(k.Discovery, "look for ResourceSync from this URL"))
	}
	return hs
}

// Short returns b under another description: the same keys, the same help
// key and the same enabled state.
func Short(b key.Binding, desc string) key.Binding {
	out := key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, desc))
	out.SetEnabled(b.Enabled())
	return out
}

// When is b, disabled unless on: a help lists only the keys that work just
// now (a disabled binding is left out).
func When(on bool, b key.Binding) key.Binding {
	b.SetEnabled(on && b.Enabled())
	return b
}

// MoveKeys are the keys that move in a list or a text, enabled when there
// is somewhere to move (on).
func (k KeyMap) MoveKeys(on bool) []key.Binding {
	// The counts of "N g" are the document page's: not said here.
	bs := []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, Short(k.Top, "first"), Short(k.Bottom, "last")}
	for i := range bs {
		bs[i] = When(on, bs[i])
	}
	return bs
}

// Pair joins two bindings under one description ("←/→ scroll sideways").
func Pair(a, b key.Binding, desc string) key.Binding {
	keys := append(append([]string(nil), a.Keys()...), b.Keys()...)
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(a.Help().Key+"/"+b.Help().Key, desc))
}

// WhileTyping is the key map of a list under a text input that has the
// keyboard: only the movement keys that cannot be typed (arrows and page
// keys) still move the list; every other binding is left as it is.
func (k KeyMap) WhileTyping() KeyMap {
	t := k
	t.Up = keepKeys(k.Up, "up")
	t.Down = keepKeys(k.Down, "down")
	t.PageUp = keepKeys(k.PageUp, "pgup")
	t.PageDown = keepKeys(k.PageDown, "pgdown")
	t.HalfUp = keepKeys(k.HalfUp)
	t.HalfDown = keepKeys(k.HalfDown)
	t.Top = keepKeys(k.Top)
	t.Bottom = keepKeys(k.Bottom)
	return t
}

// keepKeys is b with only those of its keys that are among allowed; it is
// disabled when none is.
func keepKeys(b key.Binding, allowed ...string) key.Binding {
	var keys []string
	for _, k := range b.Keys() {
		for _, a := range allowed {
			if k == a {
				keys = append(keys, k)
			}
		}
	}
	out := key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.Join(keys, "/"), b.Help().Desc))
	if len(keys) == 0 {
		out.SetEnabled(false)
	}
	return out
}
