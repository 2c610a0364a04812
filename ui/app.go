package ui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"rsx/dump"
	"rsx/ui/common"
	"rsx/ui/components"
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
	// PartConcurrency bounds the index parts loaded at once by "all parts";
	// default 4.
	PartConcurrency int
	// Dest is a local copy to attach (rsx --dest DIR): the table shows each
	// entry's state in it. "" attaches none (:dest DIR attaches one later).
	Dest string
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
	count      string // digits typed before g/G

	flash    string
	flashErr bool

	ticking bool // a spinner tick is scheduled
	noTick  bool // tests: no spinner ticks, so that commands settle

	width, height int

	discoverCancel context.CancelFunc // discovery in flight, nil when none

	// notes is the subscription to the open Source's notifications
	// (notifications.go); stale are the documents (docKey) that a
	// framework notification said changed since they were loaded.
	notes *notifyFeed
	stale map[string]bool

	dest string // the local copy attached (local.go), "" when none
}

// errCancelled is the error of a load the user cancelled.
var errCancelled = errors.New("cancelled (r reloads)")

// pageChrome is the lines the root draws around a page shown over the
// document: the tab line on top and the footer at the bottom.
const pageChrome = 2

// New returns the explorer, ready to be run by tea.NewProgram.
func New(opts Options) *App {
	c := common.New(opts.Dark, opts.Now)
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
	case looksLikePackage(a.opts.Target):
		// A .zip is a dump package: it opens in the package page.
		cmds = append(cmds, a.openPackage(dump.PackageRef{URL: a.opts.Target}, false))
	case a.opts.Target != "":
		cmds = append(cmds, a.open(place{url: a.opts.Target, selected: -1}, true))
	}
	return tea.Batch(cmds...)
}

// ---------------------------------------------------------------------------
// Pages

// active is the page that has the keyboard: the top of the stack, else the
// document page; nil when nothing is open.
func (a *App) active() Page {
	if n := len(a.pages); n > 0 {
		return a.pages[n-1]
	}
	if a.dv != nil {
		return a.dv
	}
	return nil
}

// onDocument tells that the document page is the active page.
func (a *App) onDocument() bool { return len(a.pages) == 0 && a.dv != nil }

// pushPage shows p over the active page.
func (a *App) pushPage(p Page) tea.Cmd {
	p.SetSize(a.width, max(a.height-pageChrome, 1))
	a.pages = append(a.pages, p)
	return tea.Batch(p.Init(), a.tick())
}

// showPage shows p over the document page, in place of any other page.
func (a *App) showPage(p Page) tea.Cmd {
	a.closePages()
	return a.pushPage(p)
}

// popPage closes the active page over the document.
func (a *App) popPage() {
	if n := len(a.pages); n > 0 {
		a.pages[n-1].Close()
		a.pages[n-1] = nil
		a.pages = a.pages[:n-1]
	}
}

// closePages closes every page over the document, and those set aside.
func (a *App) closePages() {
	for len(a.pages) > 0 {
		a.popPage()
	}
	a.dropParked()
}

// park sets the pages over the document aside (the document page shows
// the way back to them).
func (a *App) park() {
	a.dropParked()
	a.parked, a.pages = a.pages, nil
	if a.dv != nil && len(a.parked) > 0 {
		a.dv.returnTo = a.parked[len(a.parked)-1].Title()
	}
}

// unpark shows the pages set aside again, as they were.
func (a *App) unpark() {
	a.pages, a.parked = a.parked, nil
	if a.dv != nil {
		a.dv.returnTo = ""
	}
	for _, p := range a.pages {
		p.SetSize(a.width, max(a.height-pageChrome, 1))
	}
}

// dropParked closes the pages set aside: the way back to them is gone.
func (a *App) dropParked() {
	for _, p := range a.parked {
		p.Close()
	}
	a.parked = nil
	if a.dv != nil {
		a.dv.returnTo = ""
	}
}

// pageTitle names the pages over the document ("Package › Resource").
func (a *App) pageTitle() string {
	titles := make([]string, len(a.pages))
	for i, p := range a.pages {
		titles[i] = p.Title()
	}
	return strings.Join(titles, crumbSep)
}

// context is what a page opener may read.
func (a *App) context() pageContext {
	pc := pageContext{c: a.c, backend: a.backend, doc: a.doc, view: a.dv, selected: -1, notes: a.notes, notesHint: a.opts.NotificationsHint}
	if a.dv != nil {
		pc.selected = a.dv.Selected()
	}
	return pc
}

// openWith opens the page of an opener over the document.
func (a *App) openWith(o pageOpener) tea.Cmd {
	p, cmd, err := o.open(a.context())
	if err != nil {
		a.flashError(err.Error())
		return nil
	}
	if p == nil {
		return cmd
	}
	return tea.Batch(a.showPage(p), cmd)
}

// broadcast gives msg, the result of some background work, to every open
// page; each drops what is not its own.
func (a *App) broadcast(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	if a.dv != nil {
		_, cmd := a.dv.Update(msg)
		cmds = append(cmds, cmd)
	}
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
	if (a.doc != nil && (a.doc.loading || a.doc.crossState == crossChecking)) || a.discoverCancel != nil {
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
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.resize(msg.Width, msg.Height)
		return a, nil
	case tea.BackgroundColorMsg:
		a.c.SetStyles(common.NewStyles(msg.IsDark()))
		a.prompt.SetStyles(a.c.Styles)
		a.resize(a.width, a.height) // pages lay out again for the new styles
		return a, nil
	case spinner.TickMsg:
		return a, a.spin(msg)
	case loadMsg:
		return a, a.handleLoad(msg)
	case crumbsMsg:
		if msg.err == nil || len(msg.crumbs) > 0 {
			msg.doc.crumbs = msg.crumbs
			a.hist.setCrumbs(docKey(msg.doc.url, msg.doc.parts != nil), msg.crumbs)
		}
		return a, nil
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
	case historyGoMsg:
		return a.goTo(msg.Pos), true
	case closeViewMsg:
		a.popPage()
		return nil, true
	case flashMsg:
		a.flash, a.flashErr = msg.Text, msg.Err
		return nil, true
	case copyMsg:
		a.flashInfo("copied " + msg.What + ": " + msg.Text)
		return tea.SetClipboard(msg.Text), true
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
		var extra common.KeyGroup
		if n := len(a.pages); n > 0 {
			extra = common.KeyGroup{Title: a.pageTitle(), Bindings: a.pages[n-1].KeyBindings()}
		}
		a.help = newHelpScreen(a.c, extra, a.width, a.height)
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
		a.popPage()
		return nil
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
			d.err = fmt.Errorf("%w after %d of %d parts", errCancelled, d.partsDone, len(d.parts))
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
	if a.doc != nil && x < components.Width(a.doc.title()) && a.leaveGuard() == "" {
		a.closePages()
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

// discovered shows the outcome of discovery.
func (a *App) discovered(m discoveryMsg) tea.Cmd {
	a.flash = ""
	a.discoverCancel = nil
	if m.err != nil {
		a.flashError("discovery from " + m.input + " failed: " + m.err.Error())
		return nil
	}
	p := newDiscoveryPage(a.c, m.disc)
	if d := a.doc; d != nil && d.url == m.input && !d.isResourceSync() {
		// Kept with the document, so that the history comes back to it.
		d.discoveryPage = p
		a.hist.setLabel(docKey(d.url, false), docLabel(d))
	}
	return a.showPage(p)
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

// ---------------------------------------------------------------------------
// View

// View draws the screen.
func (a *App) View() tea.View {
	v := tea.NewView(a.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	title := "rsx"
	if a.doc != nil {
		title += " · " + a.doc.title() + " · " + shortURL(a.doc.base())
	}
	v.WindowTitle = components.Escape(title)
	return v
}

// render draws the screen's content: the help, a page over the document
// between the tab line and its footer, or the document page.
func (a *App) render() string {
	w, h := a.width, a.height
	st := a.c.Styles
	if w < 40 || h < 10 {
		msg := fmt.Sprintf("rsx needs at least 40×10 (this is %d×%d)", w, h)
		lines := components.Wrap(msg, max(w, 1))
		for i, l := range lines {
			lines[i] = components.PlaceCenter(max(w, 1), 1, l)
		}
		return components.FitBlock(components.PlaceCenter(w, h, st.Warning.Render(strings.Join(lines, "\n"))), w, h)
	}
	if a.help != nil {
		return a.help.View()
	}
	var out string
	switch n := len(a.pages); {
	case n > 0:
		footer := components.Footer(st, a.c.Keys.PageFooter(a.pages[n-1].KeyBindings()), 2, " · ", w)
		out = a.tabLine() + "\n" + components.FitBlock(a.pages[n-1].View(), w, h-pageChrome) + "\n" + a.bottomLine(footer)
	case a.dv == nil:
		out = components.PlaceCenter(w, h-1, st.Dim.Render("Nothing open. Press : to open a URL or a file.")) + "\n" + a.bottomLine("")
	default:
		out = a.dv.View()
		if b := a.bottomOverride(); b != "" {
			if i := strings.LastIndexByte(out, '\n'); i >= 0 {
				out = out[:i+1] + b
			}
		}
	}
	return components.FitBlock(out, w, h)
}

// bottomOverride is what replaces the footer: the prompt, a flash message
// or a count being typed.
func (a *App) bottomOverride() string {
	st := a.c.Styles
	switch {
	case a.promptKind != promptNone:
		return a.promptLine()
	case a.flash != "":
		s := st.Flash
		if a.flashErr {
			s = st.Error
		}
		return components.Fit(s.Render(components.Escape(a.flash)), a.width)
	case a.count != "":
		return components.Fit(st.Prompt.Render(a.count)+st.Dim.Render("  g or G jumps to this entry"), a.width)
	}
	return ""
}

// bottomLine is the last line under a page: footer, unless overridden.
func (a *App) bottomLine(footer string) string {
	if b := a.bottomOverride(); b != "" {
		return b
	}
	return components.Fit(footer, a.width)
}

// tabLine is the top line of a page over the document: where it belongs
// and what it is.
func (a *App) tabLine() string {
	st := a.c.Styles
	docTitle := "rsx"
	if a.doc != nil {
		docTitle = a.doc.title()
	}
	s := st.Breadcrumb.Render(components.Escape(docTitle)) + st.BreadSep.Render(crumbSep) + st.BreadActive.Render(a.pageTitle())
	if a.busy() {
		s += " " + a.c.Spinner.View()
	}
	return components.Fit(s, a.width)
}
