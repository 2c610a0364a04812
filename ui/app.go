package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"rsx/crawl"
	"rsx/dump"
	"rsx/fetch"
	"rsx/model"
	"rsx/session"
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
}

// page is what fills the screen under the global chrome.
type page uint8

const (
	pageDoc page = iota
	pageInspector
)

// promptKind is what the one-line prompt asks for.
type promptKind uint8

const (
	promptNone promptKind = iota
	promptURL
	promptJump
)

// App is the root model: it owns the documents, the history and the pages,
// routes messages (global keys first, then the active page) and runs every
// load as a tea.Cmd.
type App struct {
	c    *Common
	opts Options

	gen   int // last load generation handed out
	doc   *document
	dv    docView
	cache docCache
	hist  history

	page     page
	insp     inspector // the inspector page shown over the document, nil when none
	helpOpen bool
	help     helpView

	prompt     lineInput
	promptKind promptKind
	count      string // digits typed before g/G

	flash    string
	flashErr bool

	frame   int  // spinner frame
	ticking bool // a spinner tick is scheduled

	width, height int
	noTick        bool // tests: no spinner ticks, so that commands settle

	discoverCancel context.CancelFunc // discovery in flight, nil when none
}

// errCancelled is the error of a load the user cancelled.
var errCancelled = errors.New("cancelled (r reloads)")

// New returns the explorer, ready to be run by tea.NewProgram.
func New(opts Options) *App {
	c := NewCommon(opts.Backend)
	c.Styles = NewStyles(opts.Dark)
	if opts.Now != nil {
		c.Now = opts.Now
	}
	if opts.PartConcurrency <= 0 {
		opts.PartConcurrency = 4
	}
	a := &App{
		c:      c,
		opts:   opts,
		cache:  newDocCache(),
		hist:   newHistory(),
		prompt: newLineInput(c, ": "),
		width:  80,
		height: 24,
	}
	a.help = newHelpView(c, KeyGroup{})
	return a
}

// Init requests the terminal's background colour and opens the target.
func (a *App) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	switch {
	case looksLikePackage(a.opts.Target):
		// A .zip is a dump package: it opens in the package view.
		cmds = append(cmds, a.openPackage(dump.PackageRef{URL: a.opts.Target}, false))
	case a.opts.Target != "":
		cmds = append(cmds, a.open(place{url: a.opts.Target, selected: -1}, true))
	}
	return tea.Batch(cmds...)
}

// ---------------------------------------------------------------------------
// Loading

// loadMsg is one event of a document load, sent from the backend's
// goroutine through a channel; next listens for the following one.
type loadMsg struct {
	doc  *document
	gen  int
	part int // index part for a combined view, -1 otherwise

	started  *loadStarted
	header   *model.Header
	batch    []model.Entry
	progress int64 // bytes read, -1 when not a progress event
	done     *session.LoadResult

	next tea.Cmd
}

type loadStarted struct {
	final string
	total int64
}

// chanSink forwards a load's events to the program through ch.
type chanSink struct {
	ctx  context.Context
	ch   chan<- loadMsg
	doc  *document
	gen  int
	part int
}

func (s *chanSink) send(m loadMsg) {
	m.doc, m.gen, m.part = s.doc, s.gen, s.part
	select {
	case s.ch <- m:
	case <-s.ctx.Done():
	}
}

func (s *chanSink) Started(final string, total int64, _ *fetch.Exchange) {
	s.send(loadMsg{started: &loadStarted{final: final, total: total}, progress: -1})
}
func (s *chanSink) Header(h model.Header) { s.send(loadMsg{header: &h, progress: -1}) }
func (s *chanSink) Entries(b []model.Entry) {
	s.send(loadMsg{batch: b, progress: -1})
}
func (s *chanSink) Progress(done int64)       { s.send(loadMsg{progress: max(done, 0)}) }
func (s *chanSink) Done(r session.LoadResult) { s.send(loadMsg{done: &r, progress: -1}) }

// listen waits for the next event of a load.
func listen(ctx context.Context, ch <-chan loadMsg) tea.Cmd {
	var self tea.Cmd
	self = func() tea.Msg {
		select {
		case m := <-ch:
			m.next = self
			return m
		case <-ctx.Done():
			return nil
		}
	}
	return self
}

// startLoad begins loading d (a single document).
func (a *App) startLoad(d *document) tea.Cmd {
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel, d.loading, d.started = cancel, true, a.c.now()
	ch := make(chan loadMsg, 4)
	sink := &chanSink{ctx: ctx, ch: ch, doc: d, gen: d.gen, part: -1}
	b, url := a.c.Backend, d.url
	run := func() tea.Msg {
		_ = b.LoadDocument(ctx, url, sink)
		return nil
	}
	return tea.Batch(run, listen(ctx, ch), a.tick())
}

// startCombinedLoad loads every part of an index into d, a few at a time.
func (a *App) startCombinedLoad(d *document) tea.Cmd {
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel, d.loading, d.started = cancel, true, a.c.now()
	ch := make(chan loadMsg, 8)
	b, parts, workers := a.c.Backend, d.parts, a.opts.PartConcurrency
	gen := d.gen
	run := func() tea.Msg {
		next := make(chan int)
		var wg sync.WaitGroup
		for range min(workers, len(parts)) {
			wg.Go(func() {
				for p := range next {
					sink := &chanSink{ctx: ctx, ch: ch, doc: d, gen: gen, part: p}
					_ = b.LoadDocument(ctx, parts[p], sink)
				}
			})
		}
		for p := range parts {
			select {
			case next <- p:
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				break
			}
		}
		close(next)
		wg.Wait()
		return nil
	}
	return tea.Batch(run, listen(ctx, ch), a.tick())
}

// handleLoad applies one load event to its document.
func (a *App) handleLoad(m loadMsg) tea.Cmd {
	d := m.doc
	if d == nil || d.gen != m.gen || !d.loading {
		return nil
	}
	current := d == a.doc
	var cmds []tea.Cmd
	switch {
	case m.started != nil:
		if m.part < 0 {
			d.final = m.started.final
			d.total = m.started.total
		}
	case m.header != nil:
		if m.part >= 0 {
			break
		}
		d.header = m.header
		if current {
			a.dv.refreshColumns()
		}
		if !d.isResourceSync() && d.header.Root == model.RootUnknown {
			// Not a Sitemap at all (HTML, a resource …): look for ResourceSync
			// from it instead.
			d.cancelLoad()
			d.loading = false
			d.err = fmt.Errorf("%s is not a ResourceSync document (its root element is <%s>)", d.base(), d.header.RootLocal)
			if !isLocal(d.url) {
				return a.discover(d.url)
			}
			return nil
		}
		if current && d.crumbs == nil {
			cmds = append(cmds, a.findAncestors(d))
		}
	case m.batch != nil:
		from := d.entries.Len()
		for i := range m.batch {
			d.entries.Append(&m.batch[i])
			if m.part >= 0 {
				d.partOf = append(d.partOf, int32(m.part))
			}
		}
		if current {
			a.dv.entriesChanged(from)
		}
	case m.progress >= 0 && m.done == nil:
		if m.part < 0 {
			d.bytes = m.progress
		}
	case m.done != nil:
		r := m.done
		if m.part >= 0 {
			d.partsDone++
			d.bytes += r.Bytes
			d.nErrors += r.Errors
			d.nWarns += r.Warnings
			if r.Err != nil {
				d.partErrs = append(d.partErrs, fmt.Sprintf("part %d: %v", m.part+1, r.Err))
			}
			if d.partsDone < len(d.parts) {
				return m.next
			}
			if len(d.partErrs) > 0 {
				d.err = fmt.Errorf("%d of %d parts failed: %s", len(d.partErrs), len(d.parts), d.partErrs[0])
			}
		} else {
			d.final = r.FinalURL
			if r.Header != nil {
				d.header = r.Header
			}
			d.bytes = r.Bytes
			d.raw = r.Raw
			d.exchange = r.Exchange
			d.problems = r.Problems
			d.nErrors, d.nWarns = r.Errors, r.Warnings
			d.err = r.Err
		}
		d.loading = false
		d.cancelLoad()
		if current {
			cmds = append(cmds, a.dv.loadDone())
			if d.header != nil && d.crumbs == nil && d.parts == nil {
				cmds = append(cmds, a.findAncestors(d))
			}
		}
		return tea.Batch(cmds...)
	}
	cmds = append(cmds, m.next)
	return tea.Batch(cmds...)
}

// crumbsMsg carries the ancestors of a document.
type crumbsMsg struct {
	doc    *document
	crumbs []Crumb
	err    error
}

// findAncestors looks for the document's path from the Source Description.
func (a *App) findAncestors(d *document) tea.Cmd {
	if d.header == nil || d.crumbs != nil {
		return nil
	}
	d.crumbs = []Crumb{} // looked for: not again
	b, base, h := a.c.Backend, d.base(), d.header
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cs, err := b.Ancestors(ctx, base, h)
		return crumbsMsg{doc: d, crumbs: cs, err: err}
	}
}

// discoveryMsg carries the outcome of discovery from a URL.
type discoveryMsg struct {
	input string
	disc  *crawl.Discovery
	err   error
}

// discover runs discovery from url in a Cmd.
func (a *App) discover(url string) tea.Cmd {
	b := a.c.Backend
	a.flashInfo("looking for ResourceSync from " + url + " … (esc cancels)")
	if a.discoverCancel != nil {
		a.discoverCancel()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	a.discoverCancel = cancel
	return tea.Batch(func() tea.Msg {
		defer cancel()
		d, err := b.Discover(ctx, url)
		if ctx.Err() == context.Canceled {
			return nil // esc: nobody waits for it any more
		}
		return discoveryMsg{input: url, disc: d, err: err}
	}, a.tick())
}

// ---------------------------------------------------------------------------
// Navigation

// open shows the document of p: from the cache when it is there, else
// loading it. record adds it to the history.
func (a *App) open(p place, record bool) tea.Cmd {
	p.url = strings.TrimSpace(p.url)
	if p.url == "" {
		return nil
	}
	a.leavePage()
	if record {
		// (Moves in the history saved the selection before moving.)
		a.saveSelection()
		a.hist.visit(p)
	}
	key := p.key()
	if d := a.cache.get(key); d != nil && (d.loading || d.err == nil) {
		a.show(d, p.selected)
		if p.crumbs != nil && len(d.crumbs) == 0 {
			d.crumbs = p.crumbs
		}
		cmd := a.findAncestors(d)
		if d.loading {
			return tea.Batch(cmd, a.tick())
		}
		return cmd
	}
	return a.load(p)
}

// load fetches p's document afresh.
func (a *App) load(p place) tea.Cmd {
	a.gen++
	d := newDocument(p.url, a.gen)
	d.crumbs = p.crumbs
	if p.combined {
		idx := a.cache.get(docKey(p.url, false))
		if idx == nil || idx.header == nil {
			// The index is not at hand: open it first.
			p.combined = false
			return a.load(p)
		}
		d.header = idx.header
		d.final = idx.final
		d.exchange = idx.exchange
		d.crumbs = append(append([]Crumb(nil), idx.crumbs...), Crumb{URL: idx.base(), Capability: idx.capability(), Root: idx.root()})
		n := idx.entries.Len()
		d.parts = make([]string, n)
		for i := range n {
			d.parts[i] = resolveAgainst(idx.base(), idx.entries.Loc(i))
		}
		a.cache.put(p.key(), d)
		a.show(d, p.selected)
		return a.startCombinedLoad(d)
	}
	a.cache.put(p.key(), d)
	a.show(d, p.selected)
	return a.startLoad(d)
}

// show makes d the current document.
func (a *App) show(d *document, selected int) {
	a.doc = d
	a.dv = newDocView(a.c, d)
	a.dv.SetSize(a.width, a.height)
	a.dv.entriesChanged(0)
	if selected >= 0 {
		a.dv.tbl.SelectRow(selected)
		a.dv.tbl.MoveTo(a.dv.tbl.Cursor())
	}
	a.page = pageDoc
}

// saveSelection remembers where the cursor is in the current document.
func (a *App) saveSelection() {
	if a.doc != nil {
		a.hist.remember(a.dv.Selected())
	}
}

// reload loads the current document again, bypassing the document cache.
func (a *App) reload() tea.Cmd {
	if a.doc == nil {
		return nil
	}
	d := a.doc
	d.cancelLoad()
	p := place{url: d.url, combined: d.parts != nil, crumbs: d.crumbs, selected: a.dv.Selected()}
	if d.parts != nil {
		// Reload the parts, keeping the index.
		a.cache.remove(p.key())
		return a.load(p)
	}
	a.cache.remove(p.key())
	a.hist.visit(p)
	return a.load(p)
}

// goBack moves back in the history.
func (a *App) goBack() tea.Cmd {
	a.saveSelection()
	p, ok := a.hist.back()
	if !ok {
		a.flashInfo("at the start of the history")
		return nil
	}
	return a.open(p, false)
}

func (a *App) goForward() tea.Cmd {
	a.saveSelection()
	p, ok := a.hist.forward()
	if !ok {
		a.flashInfo("at the end of the history")
		return nil
	}
	return a.open(p, false)
}

// childCrumbs are the crumbs of a document opened from the current one.
func (a *App) childCrumbs() []Crumb {
	d := a.doc
	if d == nil {
		return nil
	}
	if d.parts != nil {
		return append([]Crumb(nil), d.crumbs...)
	}
	return append(append([]Crumb(nil), d.crumbs...), Crumb{URL: d.base(), Capability: d.capability(), Root: d.root()})
}

// followLink opens the document-level link rel of the current document,
// with the crumbs above it when it is one of the ancestors.
func (a *App) followLink(rel string) tea.Cmd {
	d := a.doc
	if d == nil || d.header == nil {
		return nil
	}
	u := d.link(rel)
	if u == "" {
		a.flashError("this document has no " + rel + " link")
		return nil
	}
	p := place{url: u, selected: -1}
	for i, c := range d.crumbs {
		if crawl.NormalizeURL(c.URL) == crawl.NormalizeURL(u) {
			p.crumbs = append([]Crumb{}, d.crumbs[:i]...)
			break
		}
	}
	return a.open(p, true)
}

// leavePage closes an inspector page.
func (a *App) leavePage() {
	if a.insp != nil {
		a.insp.close()
		a.insp = nil
	}
	a.page = pageDoc
}

// ---------------------------------------------------------------------------
// Update

// tickMsg advances the spinner.
type tickMsg struct{}

// tick schedules a spinner frame unless one is scheduled already.
func (a *App) tick() tea.Cmd {
	if a.ticking || a.noTick {
		return nil
	}
	a.ticking = true
	return tea.Tick(120*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{} })
}

// busy tells whether anything is loading (the spinner turns).
func (a *App) busy() bool {
	if (a.doc != nil && a.doc.loading) || a.discoverCancel != nil {
		return true
	}
	if a.dv.sortRunning || a.dv.filterBusy {
		return true
	}
	return a.insp != nil && a.insp.busy()
}

func (a *App) flashInfo(s string)  { a.flash, a.flashErr = s, false }
func (a *App) flashError(s string) { a.flash, a.flashErr = s, true }

// Update routes a message: results of background work, then window and
// colour changes, then keys (global ones first) and the mouse.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.resize(msg.Width, msg.Height)
		return a, nil
	case tea.BackgroundColorMsg:
		a.c.Styles = NewStyles(msg.IsDark())
		return a, nil
	case tickMsg:
		a.ticking = false
		a.frame++
		if hp, ok := a.insp.(*httpPage); ok && a.page == pageInspector {
			hp.refresh()
		}
		if a.busy() {
			return a, a.tick()
		}
		return a, nil
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
	case crossMsg:
		if pp, ok := a.insp.(*problemsPage); ok && pp.doc == msg.doc {
			pp.checking = false
			pp.v.SetProblems(msg.doc.problems, msg.problems)
			if msg.err != nil {
				a.flashError("cross-document checks: " + msg.err.Error())
			}
		}
		return a, nil
	case sortedMsg, filteredMsg:
		if a.doc == nil {
			return a, nil
		}
		var cmd tea.Cmd
		a.dv, cmd = a.dv.Update(msg)
		return a, cmd
	case openURLMsg:
		return a, a.open(place{url: msg.URL, crumbs: a.childCrumbsFor(msg.URL), selected: -1}, true)
	case openResourceMsg:
		return a, a.openResource(msg.URL, msg.Entry)
	case openPackageMsg:
		if a.doc == nil || !a.doc.entriesArePackages() {
			return a, nil
		}
		return a, a.openSelectedPackage()
	case jumpToEntryMsg:
		a.leavePage()
		if a.doc == nil {
			return a, nil
		}
		return a, a.dv.JumpTo(msg.Index)
	case showRawLineMsg:
		if a.doc == nil {
			return a, nil
		}
		p, read, ok := a.rawPageFor()
		if !ok {
			return a, nil
		}
		p.v.GotoLine(msg.Line)
		return a, tea.Batch(a.showPage(p), read)
	case closeViewMsg:
		a.leavePage()
		return a, nil
	case flashMsg:
		a.flash, a.flashErr = msg.Text, msg.Err
		return a, nil
	case copyMsg:
		a.flashInfo("copied " + msg.What + ": " + msg.Text)
		return a, tea.SetClipboard(msg.Text)
	case openBrowserMsg:
		return a, openBrowser(a.c.Backend, msg.URL)
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
			var cmd tea.Cmd
			a.prompt, cmd = a.prompt.Update(msg)
			return a, cmd
		}
	}
	// Anything else belongs to the active page.
	if a.page == pageInspector && a.insp != nil {
		var cmd tea.Cmd
		a.insp, cmd = a.insp.update(msg)
		return a, cmd
	}
	if a.doc == nil {
		return a, nil
	}
	var cmd tea.Cmd
	a.dv, cmd = a.dv.Update(msg)
	return a, cmd
}

// childCrumbsFor gives the crumbs for a URL opened from the current view:
// below the current document when it is one of its entries' targets.
func (a *App) childCrumbsFor(u string) []Crumb {
	if a.doc == nil || a.doc.header == nil {
		return nil
	}
	for i, c := range a.doc.crumbs {
		if crawl.NormalizeURL(c.URL) == crawl.NormalizeURL(u) {
			return append([]Crumb{}, a.doc.crumbs[:i]...)
		}
	}
	if a.page == pageDoc && (a.doc.entriesAreDocuments() || a.doc.entriesArePackages()) {
		return a.childCrumbs()
	}
	return nil
}

// resize lays every page out for a new terminal size.
func (a *App) resize(w, h int) {
	a.width, a.height = w, h
	a.c.Width, a.c.Height = w, h
	a.dv.SetSize(w, h)
	a.help.SetSize(w, h)
	if a.insp != nil {
		a.insp.setSize(w, max(h-inspChrome, 1))
	}
	a.prompt.SetWidth(max(w-4, 10))
}

// key handles a key press.
func (a *App) key(msg tea.KeyPressMsg) tea.Cmd {
	k := &a.c.Keys
	a.flash = ""
	if key.Matches(msg, k.Force) {
		return a.quit()
	}
	if a.promptKind != promptNone {
		return a.promptKey(msg)
	}
	if a.helpOpen {
		switch {
		case key.Matches(msg, k.Help), key.Matches(msg, k.Back), msg.String() == "q":
			a.helpOpen = false
		case key.Matches(msg, k.Down):
			a.help.Scroll(1)
		case key.Matches(msg, k.Up):
			a.help.Scroll(-1)
		case key.Matches(msg, k.PageDown), key.Matches(msg, k.HalfDown):
			a.help.Scroll(a.height / 2)
		case key.Matches(msg, k.PageUp), key.Matches(msg, k.HalfUp):
			a.help.Scroll(-a.height / 2)
		}
		return nil
	}
	// A page whose text input has the keyboard gets every key.
	if a.page == pageInspector && a.insp != nil && a.insp.inputActive() {
		var cmd tea.Cmd
		a.insp, cmd = a.insp.update(msg)
		return cmd
	}
	if a.page == pageDoc && a.dv.InputActive() {
		var cmd tea.Cmd
		a.dv, cmd = a.dv.Update(msg)
		return cmd
	}

	// Counts: "42g" jumps to entry 42.
	if a.page == pageDoc && a.doc != nil {
		if s := msg.String(); len(s) == 1 && s[0] >= '0' && s[0] <= '9' && (a.count != "" || s != "0") {
			if len(a.count) < 9 {
				a.count += s
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

	switch {
	case key.Matches(msg, k.Quit):
		return a.quit()
	case key.Matches(msg, k.Help):
		a.helpOpen = true
		a.help = newHelpView(a.c, a.pageKeyGroup())
		a.help.SetSize(a.width, a.height)
		return nil
	case key.Matches(msg, k.OpenURL):
		return a.startPrompt(promptURL, ": ", "")
	case key.Matches(msg, k.JumpTo) && a.page == pageDoc:
		return a.startPrompt(promptJump, "entry # ", "")
	case key.Matches(msg, k.HistBack):
		return a.goBack()
	case key.Matches(msg, k.HistFwd):
		return a.goForward()
	case key.Matches(msg, k.Back):
		return a.back()
	}

	if a.page == pageInspector && a.insp != nil {
		var cmd tea.Cmd
		a.insp, cmd = a.insp.update(msg)
		return cmd
	}
	return a.docKey(msg)
}

// back is esc: cancel a page's work or close it, clear a filter, cancel a
// load, or go back.
func (a *App) back() tea.Cmd {
	if a.discoverCancel != nil {
		a.discoverCancel()
		a.discoverCancel = nil
		a.flashInfo("discovery cancelled")
		return nil
	}
	if a.page == pageInspector {
		// A page with steps of its own (the package view: cancel its
		// download or verification, close the view it shows over itself)
		// takes esc first; the page is left once it has nothing left to do.
		if ep, ok := a.insp.(escPage); ok {
			if handled, cmd := ep.esc(); handled {
				return cmd
			}
		}
		if rp, ok := a.insp.(*resourcePage); ok && rp.busy() {
			// The resource view cancels its downloads on esc.
			var cmd tea.Cmd
			a.insp, cmd = a.insp.update(tea.KeyPressMsg{Code: tea.KeyEscape})
			return cmd
		}
		a.leavePage()
		return nil
	}
	if ok, cmd := a.dv.ClearFilter(); ok {
		return cmd
	}
	if a.doc != nil && a.doc.loading {
		a.doc.cancelLoad()
		a.doc.loading = false
		if a.doc.parts != nil {
			a.doc.err = fmt.Errorf("%w after %d of %d parts", errCancelled, a.doc.partsDone, len(a.doc.parts))
		} else {
			a.doc.err = errCancelled
		}
		a.flashInfo("load cancelled — r reloads")
		return nil
	}
	if !a.hist.canBack() {
		a.flashInfo("at the start of the history — q quits")
		return nil
	}
	return a.goBack()
}

// docKey handles keys of the document page.
func (a *App) docKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &a.c.Keys
	d := a.doc
	if d == nil {
		return nil
	}
	switch {
	case key.Matches(msg, k.Retry):
		return a.reload()
	case key.Matches(msg, k.UpLink):
		return a.followLink("up")
	case key.Matches(msg, k.IndexLink):
		return a.followLink("index")
	case key.Matches(msg, k.LoadAll):
		if !d.isIndex() {
			a.flashError("a loads all parts of an index; this is a " + d.title())
			return nil
		}
		if d.loading {
			a.flashError("wait for the index to load")
			return nil
		}
		return a.open(place{url: d.url, combined: true, selected: -1}, true)
	case key.Matches(msg, k.Copy):
		u := a.dv.SelectedURL()
		what := "entry URL"
		if u == "" {
			u, what = d.base(), "document URL"
		}
		a.flashInfo("copied " + what + ": " + u)
		return tea.SetClipboard(u)
	case key.Matches(msg, k.Browser):
		u := a.dv.SelectedURL()
		if u == "" {
			u = d.base()
		}
		a.flashInfo("opening " + u)
		return openBrowser(a.c.Backend, u)
	case key.Matches(msg, k.Raw), key.Matches(msg, k.HTTP), key.Matches(msg, k.Problems), key.Matches(msg, k.Discovery):
		return a.openInspector(msg)
	case key.Matches(msg, k.Open) && d.entriesArePackages() && !a.dv.InputActive():
		// Enter on a Resource Dump or Change Dump entry opens the package
		// itself (view_package.go); M still opens its manifest copy.
		return a.openSelectedPackage()
	case key.Matches(msg, k.Manifest) && d.entriesArePackages():
		return a.openSelectedManifestCopy()
	}
	var cmd tea.Cmd
	a.dv, cmd = a.dv.Update(msg)
	return cmd
}

// startPrompt opens the one-line prompt.
func (a *App) startPrompt(kind promptKind, prompt, value string) tea.Cmd {
	a.promptKind = kind
	a.prompt.Prompt = prompt
	a.prompt.SetValue(value)
	a.prompt.CursorEnd()
	return a.prompt.Focus()
}

// promptKey edits the prompt; enter acts on it, esc closes it.
func (a *App) promptKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		a.promptKind = promptNone
		a.prompt.Blur()
		return nil
	case "enter":
		kind, val := a.promptKind, strings.TrimSpace(a.prompt.Value())
		a.promptKind = promptNone
		a.prompt.Blur()
		switch kind {
		case promptURL:
			if val == "" {
				return nil
			}
			if n, err := strconv.Atoi(val); err == nil && a.page == pageDoc && a.doc != nil {
				// ":42" jumps to entry 42, as in vi.
				if n < 1 {
					a.flashError("entries are numbered from 1")
					return nil
				}
				return a.dv.JumpTo(n - 1)
			}
			if looksLikePackage(val) {
				// A .zip is a dump package: open it in the package view.
				return a.openPackage(dump.PackageRef{URL: val}, false)
			}
			return a.open(place{url: val, selected: -1}, true)
		case promptJump:
			n, err := strconv.Atoi(strings.TrimPrefix(val, "#"))
			if err != nil || n < 1 {
				a.flashError("not an entry number: " + val)
				return nil
			}
			return a.dv.JumpTo(n - 1)
		}
		return nil
	}
	var cmd tea.Cmd
	a.prompt, cmd = a.prompt.Update(msg)
	return cmd
}

// mouse routes clicks and the wheel to the page under them.
func (a *App) mouse(msg tea.Msg) tea.Cmd {
	a.flash = ""
	if a.helpOpen {
		if w, ok := msg.(tea.MouseWheelMsg); ok {
			if w.Button == tea.MouseWheelUp {
				a.help.Scroll(-3)
			} else if w.Button == tea.MouseWheelDown {
				a.help.Scroll(3)
			}
		}
		return nil
	}
	if a.page == pageInspector && a.insp != nil {
		// The inspector page sits below the tab line.
		if c, ok := msg.(tea.MouseClickMsg); ok {
			if c.Y == 0 {
				return a.clickTab(c.X)
			}
			c.Y -= inspChrome - 1
			msg = c
		}
		if wm, ok := msg.(tea.MouseWheelMsg); ok {
			wm.Y -= inspChrome - 1
			msg = wm
		}
		var cmd tea.Cmd
		a.insp, cmd = a.insp.update(msg)
		return cmd
	}
	if a.doc == nil {
		return nil
	}
	var cmd tea.Cmd
	a.dv, cmd = a.dv.Update(msg)
	return cmd
}

// quit cancels every load and ends the program.
func (a *App) quit() tea.Cmd {
	for _, d := range a.cache.docs {
		d.cancelLoad()
	}
	if a.doc != nil {
		a.doc.cancelLoad()
	}
	if a.discoverCancel != nil {
		a.discoverCancel()
	}
	a.leavePage()
	return tea.Quit
}

// discovered acts on the outcome of discovery.
func (a *App) discovered(m discoveryMsg) tea.Cmd {
	a.flash = ""
	a.discoverCancel = nil
	if m.err != nil {
		a.flashError("discovery from " + m.input + " failed: " + m.err.Error())
		return nil
	}
	if v, ok := a.discoveryPage(m.disc); ok {
		a.insp = v
		a.insp.setSize(a.width, max(a.height-inspChrome, 1))
		a.page = pageInspector
		return a.insp.init()
	}
	// Without a discovery page: open what was found.
	switch {
	case m.disc.SourceDescription != "":
		a.flashInfo("found the Source Description from " + m.input)
		return a.open(place{url: m.disc.SourceDescription, selected: -1}, true)
	case len(m.disc.CapabilityLists) > 0:
		a.flashInfo("found a Capability List from " + m.input)
		return a.open(place{url: m.disc.CapabilityLists[0], selected: -1}, true)
	}
	a.flashError("no ResourceSync found from " + m.input)
	return nil
}

// openBrowser opens url in the user's browser, reporting failure in the UI.
func openBrowser(b Browser, url string) tea.Cmd {
	return func() tea.Msg {
		if b == nil {
			return flashMsg{Text: "could not open a browser: " + errNoBackend.Error(), Err: true}
		}
		if err := b.OpenBrowser(url); err != nil {
			return flashMsg{Text: "could not open a browser: " + err.Error(), Err: true}
		}
		return nil
	}
}

// ---------------------------------------------------------------------------
// View

var spinnerFrames = [...]string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (a *App) spinner() string {
	return a.c.Styles.Spinner.Render(spinnerFrames[a.frame%len(spinnerFrames)])
}

// View draws the screen.
func (a *App) View() tea.View {
	v := tea.NewView(a.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	title := "rsx"
	if a.doc != nil {
		title += " · " + a.doc.title() + " · " + shortURL(a.doc.base())
	}
	v.WindowTitle = sanitize(title)
	return v
}

// render draws the screen's content.
func (a *App) render() string {
	w, h := a.width, a.height
	if w < 40 || h < 10 {
		msg := lipgloss.NewStyle().Width(max(w, 1)).Align(lipgloss.Center).Render(fmt.Sprintf("rsx needs at least 40×10 (this is %d×%d)", w, h))
		return fitBlock(placeCenter(w, h, a.c.Styles.Warning.Render(msg)), w, h)
	}
	if a.helpOpen {
		return a.help.View()
	}
	var out string
	switch {
	case a.page == pageInspector && a.insp != nil:
		out = a.tabLine() + "\n" + fitBlock(a.insp.view(), w, h-inspChrome) + "\n" + a.bottomLine(a.inspHints())
	case a.doc == nil:
		out = placeCenter(w, h-1, a.c.Styles.Dim.Render("Nothing open. Press : to open a URL or a file.")) + "\n" + a.bottomLine("")
	default:
		status := a.dv.statusLine(a.spinner())
		out = a.dv.View(status)
		lines := strings.Split(out, "\n")
		if len(lines) > 0 {
			if b := a.bottomOverride(); b != "" {
				lines[len(lines)-1] = b
			}
		}
		out = strings.Join(lines, "\n")
	}
	return fitBlock(out, w, h)
}

// bottomOverride is what replaces the key hints: the prompt, a flash
// message or a count being typed.
func (a *App) bottomOverride() string {
	st := a.c.Styles
	switch {
	case a.promptKind != promptNone:
		hint := "  enter open · esc cancel"
		if a.promptKind == promptJump {
			hint = "  enter jump · esc cancel"
		}
		return ivFit(a.prompt.View()+st.Dim.Render(hint), a.width)
	case a.flash != "":
		s := st.Flash
		if a.flashErr {
			s = st.Error
		}
		return ivFit(s.Render(sanitize(a.flash)), a.width)
	case a.count != "":
		return ivFit(st.Prompt.Render(a.count)+st.Dim.Render("  g or G jumps to this entry"), a.width)
	}
	return ""
}

// bottomLine is the last line of inspector pages.
func (a *App) bottomLine(hints string) string {
	if b := a.bottomOverride(); b != "" {
		return b
	}
	return ivFit(hints, a.width)
}

// fitBlock makes s exactly h lines, each at most w cells.
func fitBlock(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		// Most lines are plain or exact already: measure cheaply first.
		if len(l) > w && ansiWidth(l) > w {
			lines[i] = ivFit(l, w)
		}
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// ---------------------------------------------------------------------------
// Inspector pages (raw XML, HTTP, problems, resource, discovery)

// inspChrome is the lines an inspector page leaves to the app: the tab
// line on top and the key hints at the bottom.
const inspChrome = 2

// inspector is an inspector page as the root model drives it. Each of the
// inspector views has a small adapter below.
type inspector interface {
	init() tea.Cmd
	update(tea.Msg) (inspector, tea.Cmd)
	view() string
	setSize(w, h int)
	inputActive() bool // a text input has the keyboard
	busy() bool        // background work is running (the spinner turns)
	close()            // cancel its background work
	title() string
	keys() []key.Binding
}

// rawPage adapts the raw XML view.
type rawPage struct{ v rawView }

func (p *rawPage) init() tea.Cmd { return p.v.Init() }
func (p *rawPage) update(msg tea.Msg) (inspector, tea.Cmd) {
	var cmd tea.Cmd
	p.v, cmd = p.v.Update(msg)
	return p, cmd
}
func (p *rawPage) view() string        { return p.v.View() }
func (p *rawPage) setSize(w, h int)    { p.v.SetSize(w, h) }
func (p *rawPage) inputActive() bool   { return p.v.InputActive() }
func (p *rawPage) busy() bool          { return !p.v.Loaded() }
func (p *rawPage) close()              { p.v.Close() }
func (p *rawPage) title() string       { return "Raw XML" }
func (p *rawPage) keys() []key.Binding { return p.v.KeyBindings() }

// httpPage adapts the HTTP exchange view.
type httpPage struct {
	v httpView
	b Backend
}

func (p *httpPage) init() tea.Cmd { return nil }
func (p *httpPage) update(msg tea.Msg) (inspector, tea.Cmd) {
	var cmd tea.Cmd
	p.v, cmd = p.v.Update(msg)
	return p, cmd
}
func (p *httpPage) view() string        { return p.v.View() }
func (p *httpPage) setSize(w, h int)    { p.v.SetSize(w, h) }
func (p *httpPage) inputActive() bool   { return false }
func (p *httpPage) busy() bool          { return false }
func (p *httpPage) close()              {}
func (p *httpPage) title() string       { return "HTTP" }
func (p *httpPage) keys() []key.Binding { return p.v.KeyBindings() }

// refresh shows the exchanges made since the page opened.
func (p *httpPage) refresh() {
	if p.b != nil {
		if ex := p.b.Exchanges(); len(ex) > 0 {
			p.v.SetExchanges(ex)
		}
	}
}

// problemsPage adapts the problems view.
type problemsPage struct {
	v        problemsView
	doc      *document
	checking bool // cross-document checks are running
}

// crossMsg carries the cross-document problems of a document.
type crossMsg struct {
	doc      *document
	problems []model.Problem
	err      error
}

func (p *problemsPage) init() tea.Cmd { return nil }
func (p *problemsPage) update(msg tea.Msg) (inspector, tea.Cmd) {
	var cmd tea.Cmd
	p.v, cmd = p.v.Update(msg)
	return p, cmd
}
func (p *problemsPage) view() string        { return p.v.View() }
func (p *problemsPage) setSize(w, h int)    { p.v.SetSize(w, h) }
func (p *problemsPage) inputActive() bool   { return p.v.InputActive() }
func (p *problemsPage) busy() bool          { return p.checking }
func (p *problemsPage) close()              {}
func (p *problemsPage) title() string       { return "Problems" }
func (p *problemsPage) keys() []key.Binding { return p.v.KeyBindings() }

// resourcePage adapts the resource view.
type resourcePage struct{ v resourceView }

func (p *resourcePage) init() tea.Cmd { return p.v.Init() }
func (p *resourcePage) update(msg tea.Msg) (inspector, tea.Cmd) {
	var cmd tea.Cmd
	p.v, cmd = p.v.Update(msg)
	return p, cmd
}
func (p *resourcePage) view() string        { return p.v.View() }
func (p *resourcePage) setSize(w, h int)    { p.v.SetSize(w, h) }
func (p *resourcePage) inputActive() bool   { return p.v.InputActive() }
func (p *resourcePage) busy() bool          { return p.v.Busy() }
func (p *resourcePage) close()              { p.v.Close() }
func (p *resourcePage) title() string       { return "Resource" }
func (p *resourcePage) keys() []key.Binding { return p.v.KeyBindings() }

// discoveryPage adapts the discovery view.
type discoveryPage struct{ v discoveryView }

func (p *discoveryPage) init() tea.Cmd { return nil }
func (p *discoveryPage) update(msg tea.Msg) (inspector, tea.Cmd) {
	var cmd tea.Cmd
	p.v, cmd = p.v.Update(msg)
	return p, cmd
}
func (p *discoveryPage) view() string        { return p.v.View() }
func (p *discoveryPage) setSize(w, h int)    { p.v.SetSize(w, h) }
func (p *discoveryPage) inputActive() bool   { return p.v.InputActive() }
func (p *discoveryPage) busy() bool          { return false }
func (p *discoveryPage) close()              {}
func (p *discoveryPage) title() string       { return "Discovery" }
func (p *discoveryPage) keys() []key.Binding { return p.v.KeyBindings() }

// showPage makes p the page over the document.
func (a *App) showPage(p inspector) tea.Cmd {
	if a.insp != nil && a.insp != p {
		a.insp.close()
	}
	a.insp = p
	a.page = pageInspector
	a.insp.setSize(a.width, max(a.height-inspChrome, 1))
	return tea.Batch(a.insp.init(), a.tick())
}

// rawPageFor builds the raw XML page of the current document, or says why
// there is none. A document too large to have been kept is read again, in
// a Cmd, through a pipe the raw view reads from (the Cmd is returned).
func (a *App) rawPageFor() (*rawPage, tea.Cmd, bool) {
	d := a.doc
	title := sanitize(d.title() + " · " + shortURL(d.base()))
	switch {
	case d.loading:
		a.flashError("the raw XML is shown once the document has loaded")
		return nil, nil, false
	case d.raw == nil && d.parts != nil:
		a.flashError("a combined view has no XML of its own: open a part")
		return nil, nil, false
	case d.raw == nil && d.bytes == 0:
		a.flashError("no XML was received for this document")
		return nil, nil, false
	case d.raw == nil:
		pr, pw := io.Pipe()
		b, u := a.c.Backend, d.base()
		read := func() tea.Msg {
			rc, _, err := b.OpenRaw(context.Background(), u)
			if err != nil {
				pw.CloseWithError(err)
				return nil
			}
			defer rc.Close()
			_, err = io.Copy(pw, rc) // stops when the view closes its end
			pw.CloseWithError(err)
			return nil
		}
		return &rawPage{v: newRawViewReader(a.c, title, pr, d.bytes)}, read, true
	}
	p := &rawPage{v: newRawView(a.c, title, d.raw)}
	var se *model.SyntaxError
	if errors.As(d.err, &se) && se.Line > 0 {
		p.v.GotoLine(se.Line) // show where the document breaks
	}
	return p, nil, true
}

// openInspector opens the page a key asks for over the current document.
func (a *App) openInspector(msg tea.KeyPressMsg) tea.Cmd {
	k := &a.c.Keys
	d := a.doc
	switch {
	case key.Matches(msg, k.Raw):
		p, read, ok := a.rawPageFor()
		if !ok {
			return nil
		}
		return tea.Batch(a.showPage(p), read)
	case key.Matches(msg, k.HTTP):
		ex := a.c.Backend.Exchanges()
		if len(ex) == 0 && d.exchange != nil {
			ex = append(ex, d.exchange)
		}
		if len(ex) == 0 {
			a.flashError("no HTTP exchange yet (a local file has none)")
			return nil
		}
		hp := &httpPage{v: newHTTPView(a.c, ex), b: a.c.Backend}
		if d.exchange != nil {
			// Select this document's request rather than the newest one.
			for i := len(ex) - 1; i >= 0; i-- {
				if ex[i] != nil && ex[i].URL == d.exchange.URL && ex[i].Started.Equal(d.exchange.Started) {
					hp.v.selectIndex(i)
					break
				}
			}
		}
		return a.showPage(hp)
	case key.Matches(msg, k.Problems):
		if d.loading {
			a.flashError("the problems are known once the document has loaded")
			return nil
		}
		if d.parts != nil {
			a.flashError("open a part to see its problems")
			return nil
		}
		page := &problemsPage{v: newProblemsView(a.c, d.problems, nil), doc: d}
		if !d.entriesAreDocuments() || isLocal(d.url) {
			return a.showPage(page)
		}
		// The documents it lists are checked against it in the background.
		page.checking = true
		b, u := a.c.Backend, d.base()
		return tea.Batch(a.showPage(page), func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			ps, err := b.CrossCheck(ctx, u)
			return crossMsg{doc: d, problems: ps, err: err}
		})
	case key.Matches(msg, k.Discovery):
		u := d.url
		if isLocal(u) {
			a.flashError("discovery needs an http(s) URL")
			return nil
		}
		return a.discover(u)
	}
	return nil
}

// openResource shows the resource view for entry i of the current document
// (or a resource without an entry, i < 0).
func (a *App) openResource(url string, i int) tea.Cmd {
	var e model.Entry
	if d := a.doc; d != nil && i >= 0 && i < d.entries.Len() {
		e = d.entries.Entry(i)
	}
	e.Loc = url // resolved: relative links resolve against it
	return a.showPage(&resourcePage{v: newResourceView(a.c, nil, e)})
}

// discoveryPage builds the discovery view.
func (a *App) discoveryPage(d *crawl.Discovery) (inspector, bool) {
	return &discoveryPage{v: newDiscoveryView(a.c, d)}, true
}

// pageKeyGroup is the current inspector page's own bindings for the help.
func (a *App) pageKeyGroup() KeyGroup {
	if a.page == pageInspector && a.insp != nil {
		return pageKeys(a.insp.title(), a.insp.keys())
	}
	return KeyGroup{}
}

// tabLine is the top line of an inspector page: where it belongs and what
// it is.
func (a *App) tabLine() string {
	st := a.c.Styles
	docTitle := "rsx"
	if a.doc != nil {
		docTitle = a.doc.title()
	}
	s := st.Breadcrumb.Render(sanitize(docTitle)) + st.BreadSep.Render(crumbSep) + st.BreadActive.Render(a.insp.title())
	if a.busy() {
		s += " " + a.spinner()
	}
	return ivFit(s, a.width)
}

// clickTab handles a click on the tab line: the document's name goes back.
func (a *App) clickTab(x int) tea.Cmd {
	if a.doc != nil && x < textWidth(a.doc.title()) {
		a.leavePage()
	}
	return nil
}

// inspHints are the key hints of an inspector page.
func (a *App) inspHints() string {
	k := &a.c.Keys
	hs := []hint{{k.Back, "back"}}
	for _, b := range a.insp.keys() {
		hs = append(hs, hint{b, b.Help().Desc})
	}
	hs = append(hs, hint{k.Help, "help"}, hint{k.Quit, "quit"})
	return renderHints(a.c.Styles, hs)
}

// ---------------------------------------------------------------------------
// lineInput

// lineInput is a one-line text input: the prompts and the filter. It draws
// its cursor as a reversed cell that does not blink, so screens are
// deterministic, and it reads its styles from Common at draw time.
type lineInput struct {
	c      *Common
	Prompt string
	value  []rune
	pos    int
	focus  bool
	width  int
}

func newLineInput(c *Common, prompt string) lineInput {
	return lineInput{c: c, Prompt: prompt}
}

func (in *lineInput) SetValue(s string) {
	in.value = []rune(s)
	in.pos = len(in.value)
}
func (in lineInput) Value() string   { return string(in.value) }
func (in *lineInput) CursorEnd()     { in.pos = len(in.value) }
func (in *lineInput) Focus() tea.Cmd { in.focus = true; return nil }
func (in *lineInput) Blur()          { in.focus = false }
func (in *lineInput) SetWidth(w int) { in.width = w }
func (in lineInput) Focused() bool   { return in.focus }

// Update edits the text: typing, paste, ←/→, home/end (ctrl+a/e),
// backspace/delete, ctrl+w (word), ctrl+u/ctrl+k (to start/end).
func (in lineInput) Update(msg tea.Msg) (lineInput, tea.Cmd) {
	if !in.focus {
		return in, nil
	}
	insert := func(s string) {
		r := []rune(sanitize(strings.ReplaceAll(s, "\n", " ")))
		v := make([]rune, 0, len(in.value)+len(r))
		v = append(v, in.value[:in.pos]...)
		v = append(v, r...)
		v = append(v, in.value[in.pos:]...)
		in.value = v
		in.pos += len(r)
	}
	switch msg := msg.(type) {
	case tea.PasteMsg:
		insert(msg.Content)
	case tea.KeyPressMsg:
		switch msg.String() {
		case "left", "ctrl+b":
			in.pos = max(in.pos-1, 0)
		case "right", "ctrl+f":
			in.pos = min(in.pos+1, len(in.value))
		case "home", "ctrl+a":
			in.pos = 0
		case "end", "ctrl+e":
			in.pos = len(in.value)
		case "backspace", "ctrl+h":
			if in.pos > 0 {
				in.value = append(in.value[:in.pos-1], in.value[in.pos:]...)
				in.pos--
			}
		case "delete", "ctrl+d":
			if in.pos < len(in.value) {
				in.value = append(in.value[:in.pos], in.value[in.pos+1:]...)
			}
		case "ctrl+w", "alt+backspace":
			i := in.pos
			for i > 0 && in.value[i-1] == ' ' {
				i--
			}
			for i > 0 && in.value[i-1] != ' ' && in.value[i-1] != '/' {
				i--
			}
			if i == in.pos && i > 0 {
				i--
			}
			in.value = append(in.value[:i], in.value[in.pos:]...)
			in.pos = i
		case "ctrl+u":
			in.value = in.value[in.pos:]
			in.pos = 0
		case "ctrl+k":
			in.value = in.value[:in.pos]
		default:
			if msg.Text != "" {
				insert(msg.Text)
			}
		}
	}
	return in, nil
}

// View draws the prompt, the text and the cursor.
func (in lineInput) View() string {
	st := in.c.Styles
	before := string(in.value[:in.pos])
	cur := " "
	after := ""
	if in.pos < len(in.value) {
		cur = string(in.value[in.pos])
		after = string(in.value[in.pos+1:])
	}
	// Keep the cursor in view when the text is wider than the input.
	if room := in.width - textWidth(in.Prompt) - 1; room > 0 && textWidth(before) > room {
		r := []rune(before)
		before = "…" + string(r[len(r)-room+1:])
	}
	s := st.Prompt.Render(in.Prompt) + st.Input.Render(before)
	if in.focus {
		s += st.Input.Reverse(true).Render(cur)
	} else {
		s += st.Input.Render(cur)
	}
	return s + st.Input.Render(after)
}
