package ui

import (
	"context"
	"time"
	"unicode"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"rsx/display"
	"rsx/dump"
	"rsx/ui/common"
	"rsx/ui/components"
	"rsx/ui/nav"
	"rsx/ui/pages"
)

// Options configure the explorer.
type Options struct {
	// Target is the URL or local file opened first.
	Target string
	// Backend does every I/O; required.
	Backend Backend
	// Now is the clock (tests fix it); default time.Now.
	Now func() time.Time
	// Dark chooses the initial styles until the terminal tells its
	// background colour.
	Dark bool
	// FixedTheme keeps Dark whatever background the terminal tells (the
	// configuration file's theme = "dark" or "light").
	FixedTheme bool
	// Keys rebinds actions of common.KeyMap (the configuration file's
	// [keys]): an action in snake_case and its keys. CheckKeys tells whether
	// New takes them.
	Keys map[string][]string
	// PartConcurrency bounds the index parts loaded at once by "all parts";
	// default 4.
	PartConcurrency int
	// Dest is a local copy to attach (rsx --dest DIR): the table shows each
	// entry's state in it. "" attaches none (:dest DIR attaches one later).
	Dest string
	// Fleet reads fleet files and the status of their Sources (the fleet
	// page: rsx --sources FILE, :fleet FILE); nil: no fleet page.
	Fleet FleetBackend
	// FleetFile is a fleet file to open the fleet page on at the start; its
	// Sources without a destination get Dest.
	FleetFile string
	// NotificationsHint is said on the Notifications page while no
	// notification has come, one line per line of it: for the built-in demo,
	// whose clock stands still, how to move it. "" says nothing more.
	NotificationsHint string
}

// App is the root model: it owns the documents, the history and the stack
// of pages over the document page, routes messages (global keys first, then
// the active page) and runs every load as a tea.Cmd.
type App struct {
	c       *common.Common
	backend Backend
	opts    Options

	gen   int // last load generation handed out
	doc   *document
	dv    *docPage // the page of doc; nil when nothing is open
	cache docCache
	hist  history

	pages []Page // shown over the document page; the last one is active
	// parked are the pages set aside by a jump to an entry (from the
	// problems page): esc on the document page brings them back.
	parked []Page
	// left are the pages a document was opened from (M on the package
	// page, enter on the coverage page): going back to the place they were
	// over shows them again. Only the last such stack is kept.
	left *leftPages
	help *helpScreen // open when not nil

	prompt     components.Input
	promptKind promptKind
	// promptHist is what was entered at the ":" prompt this session,
	// oldest first; promptPos is the entry ↑/↓ recalled (len: the line
	// being typed, kept in promptDraft). promptNote lists the completions
	// of the last tab, until the next key.
	promptHist  []string
	promptPos   int
	promptDraft string
	promptNote  string
	count       string // digits typed before g/G

	flash    string
	flashErr bool

	ticking bool // a spinner tick is scheduled
	noTick  bool // tests: no spinner ticks, so that commands settle
	// afterRead is a key that waits for the selected entry to be read
	// back whole (app_entries.go).
	afterRead *tea.KeyPressMsg
	// wholeTables: documents keep every entry whole (model.NewEntryTable),
	// as before the tables were lean: the benchmarks' point of comparison.
	wholeTables bool

	width, height int

	discoverCancel context.CancelFunc // discovery in flight, nil when none

	// notes is the subscription to the open Source's notifications
	// (notifications.go); stale are the documents (docKey) that a
	// framework notification said changed since they were loaded.
	notes *notifyFeed
	stale map[string]bool

	dest string // the local copy attached (app_local.go), "" when none
	// fleetFile is the fleet file last opened (app_fleet.go), for :fleet.
	fleetFile string
	// noCopyTold are the Sources the copy attached was said to hold no
	// copy of (app_local.go), each said once.
	noCopyTold map[string]bool
}

// errCancelled is the error of a load the user cancelled.
var errCancelled = nav.ErrCancelled

// pageChrome is the lines the root draws around a page shown over the
// document: the tab line on top and the footer at the bottom.
const pageChrome = 2

// CheckKeys reports whether keys (Options.Keys) can be bound: an error
// names every problem KeyProblems finds.
func CheckKeys(keys map[string][]string) error {
	km := common.DefaultKeyMap()
	return km.Rebind(keys)
}

// KeyProblems are what is wrong with keys (Options.Keys, the configuration
// file's [keys]), each on its own: an unknown action, one that cannot be
// rebound, a key name no key press is reported as.
func KeyProblems(keys map[string][]string) []string { return common.KeyProblems(keys) }

// New returns the explorer, ready to be run by tea.NewProgram.
func New(opts Options) *App {
	c := common.New(opts.Dark, opts.Now)
	// The keys were checked (CheckKeys) by the caller: an unknown action
	// leaves the default keys.
	_ = c.Keys.Rebind(opts.Keys)
	if opts.PartConcurrency <= 0 {
		opts.PartConcurrency = 4
	}
	b := opts.Backend
	if b == nil {
		b = NopBackend{}
	}
	return &App{
		c:       c,
		backend: b,
		opts:    opts,
		cache:   newDocCache(),
		hist:    newHistory(),
		prompt:  components.NewInput(c.Styles, ": "),
		width:   80,
		height:  24,
		notes:   &notifyFeed{},
		stale:   map[string]bool{},
		dest:    opts.Dest,
	}
}

// Init requests the terminal's background colour and opens the target.
func (a *App) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	if a.opts.Target != "" {
		a.backend.UserOpened(a.opts.Target) // the user's own: a local file allows local files
	}
	switch {
	case pages.LooksLikePackage(a.opts.Target):
		// A .zip is a dump package: it opens in the package page.
		cmds = append(cmds, a.openPackage(dump.PackageRef{URL: a.opts.Target}, false))
	case a.opts.Target != "":
		cmds = append(cmds, a.open(place{url: a.opts.Target, selected: -1}, true))
	}
	if a.opts.FleetFile != "" {
		cmds = append(cmds, a.readFleet(a.opts.FleetFile))
	}
	return tea.Batch(cmds...)
}

// broadcast gives msg, the result of some background work, to every open
// page; each drops what is not its own.
func (a *App) broadcast(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	if a.dv != nil {
		_, cmd := a.dv.Update(msg)
		cmds = append(cmds, cmd)
	}
	msg = forPages(msg)
	for i, p := range a.pages {
		var cmd tea.Cmd
		a.pages[i], cmd = p.Update(msg)
		cmds = append(cmds, cmd)
	}
	for i, p := range a.parked {
		var cmd tea.Cmd
		a.parked[i], cmd = p.Update(msg)
		cmds = append(cmds, cmd)
	}
	if a.left != nil { // a download they started goes on while away
		for i, p := range a.left.pages {
			var cmd tea.Cmd
			a.left.pages[i], cmd = p.Update(msg)
			cmds = append(cmds, cmd)
		}
	}
	return tea.Batch(cmds...)
}

// tick schedules a spinner frame unless one is scheduled already.
func (a *App) tick() tea.Cmd {
	if a.ticking || a.noTick {
		return nil
	}
	a.ticking = true
	sp := a.c.Spinner
	return tea.Tick(sp.Spinner.FPS, func(time.Time) tea.Msg { return sp.Tick() })
}

// busy tells whether anything is loading (the spinner turns).
func (a *App) busy() bool {
	if (a.doc != nil && (a.doc.loading || a.doc.crossChecking())) || a.discoverCancel != nil {
		return true
	}
	if a.dv != nil && a.dv.Busy() {
		return true
	}
	for _, p := range a.pages {
		if p.Busy() {
			return true
		}
	}
	return false
}

func (a *App) flashInfo(s string)  { a.flash, a.flashErr = s, false }
func (a *App) flashError(s string) { a.flash, a.flashErr = s, true }

// ---------------------------------------------------------------------------
// Update

// Update routes a message: the window and the theme, the root's own
// results and the pages' requests, then keys (global ones first) and the
// mouse for the active page, and anything else to every open page.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := a.update(msg)
	a.checkThrottle()
	// Whatever moved the cursor, the entry under it is read whole.
	return a, tea.Batch(cmd, a.readSelected())
}

func (a *App) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.resize(msg.Width, msg.Height)
		return a, nil
	case tea.BackgroundColorMsg:
		if a.opts.FixedTheme {
			return a, nil
		}
		a.c.SetStyles(common.NewStyles(msg.IsDark()))
		a.prompt.SetStyles(a.c.Styles)
		a.resize(a.width, a.height) // pages lay out again for the new styles
		return a, nil
	case tea.ModeReportMsg:
		// bubbletea asks the terminal whether it clusters graphemes (mode
		// 2027) and, when it answers that it knows the mode, places the
		// screen by grapheme cluster from then on: measure as it does.
		if msg.Mode == ansi.ModeUnicodeCore && (msg.Value == ansi.ModeReset || msg.Value == ansi.ModeSet || msg.Value == ansi.ModePermanentlySet) &&
			a.c.WidthMethod != ansi.GraphemeWidth {
			a.c.WidthMethod = ansi.GraphemeWidth
			a.resize(a.width, a.height)
		}
		return a, nil
	case spinner.TickMsg:
		return a, a.spin(msg)
	case loadMsg:
		return a, a.handleLoad(msg)
	case entryReadMsg:
		return a, a.entryRead(msg)
	case showBuiltPageMsg:
		return a, a.showPage(msg.build())
	case crumbsMsg:
		if msg.err == nil || len(msg.crumbs) > 0 {
			msg.doc.crumbs = msg.crumbs
			a.hist.setCrumbs(docKey(msg.doc.url, msg.doc.parts != nil), msg.crumbs)
		}
		msg.doc.ancestorsDone, msg.doc.ancestorsErr = true, msg.err
		if msg.doc == a.doc {
			a.setTrail()
		}
		return a, a.crumbsArrived(msg.doc)
	case discoveryMsg:
		return a, a.discovered(msg)
	case crossCheckedMsg:
		return a, a.crossChecked(msg)
	case notifyMsg:
		return a, a.notified(msg)
	case notifyEndedMsg:
		a.notifyEnded(msg)
		return a, nil
	case localMsg:
		return a, a.localArrived(msg)
	case tea.KeyPressMsg:
		if a.waitForEntry(msg) {
			return a, nil
		}
		if msg.Mod.Contains(tea.ModAlt) {
			// No binding uses alt: this is esc typed just before a key,
			// which the terminal sends as one alt+key sequence.
			first := a.key(tea.KeyPressMsg{Code: tea.KeyEscape})
			msg.Mod &^= tea.ModAlt
			if msg.Text == "" && msg.Mod&^tea.ModShift == 0 && unicode.IsPrint(msg.Code) {
				msg.Text = string(msg.Code)
				if msg.ShiftedCode != 0 {
					msg.Text = string(msg.ShiftedCode)
				}
			}
			return a, tea.Batch(first, a.key(msg))
		}
		return a, a.key(msg)
	case tea.MouseClickMsg, tea.MouseWheelMsg:
		return a, a.mouse(msg)
	case tea.PasteMsg:
		if a.promptKind != promptNone {
			a.prompt.Update(msg)
			return a, nil
		}
		if p := a.active(); p != nil {
			_, cmd := p.Update(msg)
			return a, cmd
		}
		return a, nil
	}
	if cmd, ok := a.request(msg); ok {
		return a, cmd
	}
	return a, a.broadcast(msg)
}

// request acts on what a page asks of the root (msgs.go); ok is false for
// any other message.
func (a *App) request(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	if cmd, ok := a.destRequest(msg); ok {
		return cmd, true
	}
	switch msg := msg.(type) {
	case pushPageMsg:
		return a.pushPage(msg.Page), true
	case fleetReadMsg:
		return a.fleetRead(msg), true
	case nav.OpenSourceMsg:
		a.closePages()
		return tea.Batch(a.attachDest(msg.Dest), a.open(place{url: msg.URL, selected: -1}, true)), true
	case openURLMsg:
		if msg.From != "" && !a.mayFollow(msg.From, msg.URL) {
			return nil, true
		}
		return a.open(place{url: msg.URL, crumbs: a.childCrumbsFor(msg.URL), selected: -1}, true), true
	case openResourceMsg:
		return a.openResource(msg.URL, msg.Entry), true
	case openPackageMsg:
		if a.doc == nil || !a.doc.entriesArePackages() {
			return nil, true
		}
		return a.openSelectedPackage(), true
	case openManifestMsg:
		return a.openSelectedManifestCopy(), true
	case openAllPartsMsg:
		if a.doc == nil {
			return nil, true
		}
		return a.open(place{url: a.doc.url, combined: true, selected: -1}, true), true
	case followLinkMsg:
		return a.followLink(msg.Rel), true
	case reloadMsg:
		return a.reload(), true
	case discoverMsg:
		return a.discover(msg.URL), true
	case jumpToEntryMsg:
		if msg.Return && len(a.pages) > 0 {
			a.park()
		} else {
			a.closePages()
		}
		if a.dv == nil {
			return nil, true
		}
		return a.dv.JumpTo(msg.Index), true
	case showRawLineMsg:
		p, read, err := openRawPage(a.context())
		if err != nil {
			a.flashError(err.Error())
			return nil, true
		}
		p.GotoPlace(msg.Line, msg.Entry)
		return tea.Batch(a.pushPage(p), read), true
	case crumbGoMsg:
		return a.goToCrumb(msg.Index), true
	case closeViewMsg:
		return a.popOrLeave(), true
	case flashMsg:
		a.flash, a.flashErr = msg.Text, msg.Err
		return nil, true
	case completionMsg:
		a.completed(msg)
		return nil, true
	case typedMsg:
		return a.typed(msg), true
	case copyMsg:
		// Every copy passes here: none puts a control character on the clipboard.
		text, n := clipboardText(msg.Text)
		if n > 0 {
			a.flashInfo("copied " + msg.What + ", " + display.Plural(n, "control character", "control characters") + " escaped (%XX): " + text)
		} else {
			a.flashInfo("copied " + msg.What + ": " + text)
		}
		return tea.SetClipboard(text), true
	case openBrowserMsg:
		a.flashInfo("opening " + msg.URL)
		return openBrowser(a.backend, msg.URL), true
	}
	return nil, false
}

// mayFollow asks the backend whether the link to target found in from may
// be followed, and says why not in the status bar.
func (a *App) mayFollow(from, target string) bool {
	if err := a.backend.FollowLink(from, target); err != nil {
		a.flashError("not opened: " + err.Error())
		return false
	}
	return true
}

// spin advances the spinner while anything is busy; pages see the tick too
// (the HTTP page refreshes on it).
func (a *App) spin(msg spinner.TickMsg) tea.Cmd {
	a.ticking = false
	a.checkWait()
	var next tea.Cmd
	a.c.Spinner, next = a.c.Spinner.Update(msg)
	cmd := a.broadcast(msg)
	if !a.busy() || a.noTick {
		return cmd
	}
	if next == nil {
		return tea.Batch(cmd, a.tick())
	}
	a.ticking = true
	return tea.Batch(cmd, next)
}

// resize lays every page out for a new terminal size (or new styles).
func (a *App) resize(w, h int) {
	a.width, a.height = w, h
	a.c.Width, a.c.Height = w, h
	if a.dv != nil {
		a.dv.SetSize(w, h)
	}
	for _, p := range a.pages {
		p.SetSize(w, max(h-pageChrome, 1))
	}
	if a.help != nil {
		a.help.SetSize(w, h)
	}
	a.prompt.SetWidth(max(w-4, 10))
}

// openBrowser opens url in the user's browser, reporting failure in the UI.
func openBrowser(b Browser, url string) tea.Cmd {
	return func() tea.Msg {
		if err := b.OpenBrowser(url); err != nil {
			return flashMsg{Text: "could not open a browser: " + err.Error(), Err: true}
		}
		return nil
	}
}
