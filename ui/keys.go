package ui

import "charm.land/bubbles/v2/key"

// KeyMap holds every key binding of the program. The help screen (?) and the
// short help line are generated from it, so help cannot drift from behaviour:
// handle keys with key.Matches(msg, c.Keys.X), never with string literals.
type KeyMap struct {
	// Moving in a list or text.
	Up, Down           key.Binding
	PageUp, PageDown   key.Binding
	HalfUp, HalfDown   key.Binding
	Top, Bottom        key.Binding
	JumpTo             key.Binding // prompt for an entry number
	Left, Right        key.Binding // scroll sideways where a view allows it
	NextPane, PrevPane key.Binding // move focus between panes of a page

	// Navigating between documents.
	Open      key.Binding // open the selected entry
	Back      key.Binding // clear the filter, cancel a load, or go back
	UpLink    key.Binding // follow the document's up link
	IndexLink key.Binding // follow the document's index link
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

	// Acting on the selection.
	Copy    key.Binding // copy the selected URL (OSC 52)
	Browser key.Binding // open the selected URL in a browser
	Retry   key.Binding // retry a failed load, reload a document

	// Inspector pages.
	Raw       key.Binding // raw XML
	HTTP      key.Binding // HTTP exchange
	Problems  key.Binding // conformance problems
	Discovery key.Binding // how the Source was discovered

	// Program.
	Help  key.Binding
	Quit  key.Binding
	Force key.Binding // ctrl+c: quit from anywhere, even inside an input
}

// DefaultKeyMap returns the bindings of the program.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup/ctrl+b", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+f", "space"), key.WithHelp("pgdn/ctrl+f", "page down")),
		HalfUp:   key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "half page up")),
		HalfDown: key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "half page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "first entry (N g: entry N)")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "last entry (N G: entry N)")),
		JumpTo:   key.NewBinding(key.WithKeys("#"), key.WithHelp("#", "jump to entry number")),
		Left:     key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "scroll left")),
		Right:    key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "scroll right")),
		NextPane: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
		PrevPane: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous pane")),

		Open:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Back:      key.NewBinding(key.WithKeys("esc", "backspace"), key.WithHelp("esc", "clear filter / cancel / back")),
		UpLink:    key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "follow up link")),
		IndexLink: key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "follow index link")),
		HistBack:  key.NewBinding(key.WithKeys("["), key.WithHelp("[", "history back")),
		HistFwd:   key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "history forward")),
		OpenURL:   key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "open a URL or file (:N entry N)")),
		LoadAll:   key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "index: all parts as one list")),
		DocInfo:   key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "detail: entry / document")),
		Manifest:  key.NewBinding(key.WithKeys("M"), key.WithHelp("M", "dump package: manifest copy")),

		Filter:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		SortNext:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort by next column")),
		SortReverse: key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "reverse sort")),

		Copy:    key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy URL")),
		Browser: key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open in browser")),
		Retry:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "retry / reload")),

		Raw:       key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "raw XML")),
		HTTP:      key.NewBinding(key.WithKeys("h"), key.WithHelp("h", "HTTP exchange")),
		Problems:  key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "problems")),
		Discovery: key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "discovery")),

		Help:  key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:  key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		Force: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
	}
}

// KeyGroup is a titled group of bindings on the help screen.
type KeyGroup struct {
	Title    string
	Bindings []key.Binding
}

// Groups returns the bindings grouped for the help screen. Disabled bindings
// are left out when the help is drawn.
func (k KeyMap) Groups() []KeyGroup {
	return []KeyGroup{
		{"Move", []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, k.Top, k.Bottom, k.JumpTo, k.NextPane}},
		{"Navigate", []key.Binding{k.Open, k.Back, k.UpLink, k.IndexLink, k.HistBack, k.HistFwd, k.OpenURL, k.LoadAll, k.DocInfo, k.Manifest}},
		{"Find", []key.Binding{k.Filter, k.SortNext, k.SortReverse}},
		{"Act", []key.Binding{k.Copy, k.Browser, k.Retry}},
		{"Inspect", []key.Binding{k.Raw, k.HTTP, k.Problems, k.Discovery}},
		{"Program", []key.Binding{k.Help, k.Quit, k.Force}},
	}
}

// ShortHelp is the one-line help of the document view.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Open, k.Back, k.Filter, k.SortNext, k.OpenURL, k.Help, k.Quit}
}

// FullHelp is KeyMap's help in columns (for bubbles/help users).
func (k KeyMap) FullHelp() [][]key.Binding {
	groups := k.Groups()
	out := make([][]key.Binding, len(groups))
	for i, g := range groups {
		out[i] = g.Bindings
	}
	return out
}
