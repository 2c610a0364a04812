package ui

import (
	"context"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/model"
	"rsx/ui/common"
	"rsx/ui/components"
)

// docFocus is which pane of the document page has the keyboard.
type docFocus uint8

const (
	focusTable docFocus = iota
	focusDetail
)

// docPage shows one document: breadcrumbs, the entries table, the selected
// entry's detail pane, the status bar and the footer. The root model loads
// the document and tells the page what arrived (entriesChanged, loadDone);
// the page sorts and filters, and asks the root to navigate by messages.
type docPage struct {
	c   *common.Common
	doc *document

	kinds []colKind
	tbl   components.Table

	// Sort: order is the sorted permutation of the first orderN rows; rows
	// that arrived later follow in document order until the next sort.
	sortCol     int // index in kinds, -1: document order
	sortDesc    bool
	order       []int32
	sortGen     int
	sortRunning bool

	// Filter.
	filterInput  components.Input
	typingKeys   common.KeyMap // the keys that still move the table while the filter is typed
	filtering    bool          // the input line has the keyboard
	query        filterQuery
	filtered     []int32 // rows that match; nil: no filter
	filteredN    int     // rows 0..filteredN-1 of the (possibly sorted) order were scanned
	filterGen    int
	filterBusy   bool
	filterCancel context.CancelFunc

	focus       docFocus
	detail      components.List // scroll of the detail pane
	showDocInfo bool            // the detail pane shows the document's own metadata and links

	width, height int
	tableTop      int // screen line of the table's header inside the page
	detailRight   bool
	detailW       int
	detailH       int

	lastClick    time.Time
	lastClickPos int

	// returnTo names the page esc goes back to, set aside by a jump to an
	// entry (App.park); "" when esc goes back in the history.
	returnTo string
	// path is the way down from the Source Description to the document's
	// parent, for the breadcrumbs (App.setTrail).
	path []trailCrumb
	// selfLabel names the document at the end of the path when its place
	// there says more than its type ("part 3"); "" for its type.
	selfLabel string
	// throttle says which host's politeness holds fetching back just now
	// (App.checkThrottle), full and short; "" when none does.
	throttle, throttleShort string
	// keys is the key map as it works on the page just now (App.keysNow),
	// which the footer and the error's hints are drawn from, as the help
	// is; nil: the key map as it is.
	keys func() common.KeyMap
	// notes is the root's subscription to the Source's notifications, for
	// the status bar's indicator (nil: none).
	notes *notifyFeed
}

func newDocPage(c *common.Common, d *document) *docPage {
	v := &docPage{
		c: c, doc: d, tbl: components.NewTable(c), sortCol: -1,
		filterInput: components.NewInput(c.Styles, "/ "),
		typingKeys:  c.Keys.WhileTyping(),
		detail:      components.NewList(components.Scroll),
	}
	v.tbl.Mark = func(i int) (string, common.Paint) {
		switch d.markOf(i) {
		case markHasError:
			return "✗", c.Styles.Paint.Error
		case markHasWarning:
			return "!", c.Styles.Paint.Warning
		}
		return "", common.Paint{}
	}
	v.tbl.Picked = func(i int) bool { return d.picked.has(i) }
	v.tbl.ShowPicked = d.marked() > 0
	v.refreshColumns()
	return v
}

// refreshColumns chooses the columns once the header is known.
func (v *docPage) refreshColumns() {
	d := v.doc
	kinds := columnsFor(d.capability(), d.root(), d.parts != nil)
	if d.local.shown() {
		kinds = withCopyColumn(kinds)
	}
	if slices.Equal(kinds, v.kinds) {
		return
	}
	v.kinds = kinds
	cols := make([]components.Column, len(kinds))
	c := v.c // styles are read at draw time: they change with the terminal's background
	for ci, k := range kinds {
		minW, maxW, flex, right, trunc := colLayout(k)
		cols[ci] = components.Column{
			Title: k.name(), Min: minW, Max: maxW, Flex: flex, Right: right, Trunc: trunc,
			Value: func(i int) string { return colText(d, k, i) },
		}
		if k == colLoc || k == colPackage {
			cols[ci].Value = func(i int) string { return displayLoc(d.displayOrigin(), d.entries.Loc(i)) }
		}
		switch k {
		case colChange:
			cols[ci].Paint = func(i int) common.Paint { return c.Styles.ChangePaint(string(d.entries.Change(i))) }
		case colLoc, colPackage:
			cols[ci].Paint = func(int) common.Paint { return c.Styles.Paint.URL }
		case colLastmod, colDatetime, colAt, colFrom, colUntil, colHash, colPart, colLinks:
			cols[ci].Paint = func(int) common.Paint { return c.Styles.Paint.Dim }
		case colCopy:
			cols[ci].Paint = func(i int) common.Paint { return localPaint(c.Styles, d.local.state(i)) }
		}
	}
	v.tbl.SetColumns(cols)
	v.tbl.SortCol = v.sortCol
	if v.width > 0 {
		v.layout() // the columns decide where the detail pane goes
	}
}

// SetSize lays out the table and the detail pane; the filter input follows
// the theme.
func (v *docPage) SetSize(w, h int) {
	v.width, v.height = w, h
	v.filterInput.SetStyles(v.c.Styles)
	v.layout()
}

// The fixed lines of the page: breadcrumbs, title, status bar, footer.
const docChromeLines = 4

// paneGutter is the blank column between the table and the detail pane
// beside it.
const paneGutter = 1

// cells measures text as the terminal does (common.Common.WidthMethod):
// the table, the detail pane and the page around them count alike.
func (v *docPage) cells() components.Cells { return components.CellsOf(v.c.WidthMethod) }

func (v *docPage) layout() {
	w, h := v.width, v.height
	body := max(h-docChromeLines, 3)
	// The detail pane goes to the right when the table keeps room for all
	// its columns, below it otherwise.
	// The table must show every column whole there (URLs and paths may be
	// cut in the middle), with a blank column between it and the pane's
	// border so that no title or value runs into it.
	rightW := min(max(w*2/5, 40), 64)
	v.detailRight = w >= 100 && w-rightW-paneGutter >= v.tbl.WholeWidth()
	if v.detailRight {
		v.detailW = rightW
		v.detailH = body
		v.tbl.SetSize(w-v.detailW-paneGutter, body)
	} else {
		// Below the table: a third of the height, or all that a short
		// document leaves.
		v.detailW = w
		detail := min(max(body*2/5, 5), 14)
		n := 0
		if v.doc != nil {
			n = v.doc.entries.Len()
		}
		tableH := min(max(n+1, 4), body-detail)
		if tableH < 4 {
			tableH = min(4, body)
		}
		v.detailH = max(body-tableH, 0)
		v.tbl.SetSize(w, tableH)
	}
	v.detail.SetHeight(v.detailH - 3) // border (2) and title
	v.tableTop = 2
	v.filterInput.SetWidth(max(w-20, 10))
}

// Init starts nothing: the root model loads documents.
func (v *docPage) Init() tea.Cmd { return nil }

// Title is the document's type in words.
func (v *docPage) Title() string { return v.doc.title() }

// KeyBindings are none of its own: the key map's groups are the document
// page's keys.
func (v *docPage) KeyBindings() []key.Binding { return nil }

// InputActive tells that the filter input has the keyboard.
func (v *docPage) InputActive() bool { return v.filtering }

// Busy tells that a sort or a filter runs in the background.
func (v *docPage) Busy() bool { return v.sortRunning || v.filterBusy }

// Close stops a filter scan; the document's load is the root's.
func (v *docPage) Close() {
	if v.filterCancel != nil {
		v.filterCancel()
		v.filterCancel = nil
	}
}

// Back clears an active filter; it reports whether there was one.
func (v *docPage) Back() (bool, tea.Cmd) {
	if v.query.raw == "" && !v.filtering {
		return false, nil
	}
	v.filtering = false
	v.filterInput.Stop()
	v.filterInput.SetValue("")
	return true, v.startFilter("")
}

// Selected is the entry under the cursor, -1 when none.
func (v *docPage) Selected() int { return v.tbl.Selected() }

// SelectedURL is the selected entry's loc resolved against the document.
func (v *docPage) SelectedURL() string {
	i := v.tbl.Selected()
	if i < 0 {
		return ""
	}
	return model.ResolveHref(v.doc.base(), v.doc.entries.Loc(i))
}

// selectEntry puts the cursor on entry i when it is shown.
func (v *docPage) selectEntry(i int) bool { return v.tbl.SelectRow(i) }

// entriesChanged is called after entries were appended (while loading).
func (v *docPage) entriesChanged(from int) {
	v.refreshColumns()
	n := v.doc.entries.Len()
	if v.order != nil {
		for i := len(v.order); i < n; i++ {
			v.order = append(v.order, int32(i))
		}
	}
	v.catchUpFilter()
	v.tbl.SetCount(n)
	if from < 16 {
		// A short document gives its room to the detail pane, and the
		// first rows tell whether the table fits beside it.
		v.layout()
	}
	v.applyPerm()
}

// applyPerm gives the table the filtered or sorted order.
func (v *docPage) applyPerm() {
	switch {
	case v.filtered != nil:
		v.tbl.SetPerm(v.filtered)
	case v.order != nil:
		v.tbl.SetPerm(v.order)
	default:
		v.tbl.SetPerm(nil)
	}
	v.tbl.SortCol = v.sortCol
	v.tbl.SortDesc = v.sortDesc
}

// loadDone is called when the document finished loading: a sort or filter
// that had to wait for all rows runs now.
func (v *docPage) loadDone() tea.Cmd {
	v.refreshColumns()
	var cmds []tea.Cmd
	if d := v.doc; d.entries.Len() >= 50000 && d.err == nil {
		// Build the filter's and sort's keys now, in the background, so that
		// the first keystroke is as quick as the next ones.
		kinds := v.kinds
		cmds = append(cmds, func() tea.Msg {
			d.upperBits(colLoc)
			if slices.Contains(kinds, colLoc) || slices.Contains(kinds, colPackage) {
				d.textKeys(colLoc)
			}
			for _, k := range kinds {
				switch {
				case isTimeCol(k):
					d.timeKeys(k)
				case isEnumCol(k):
					d.enum(k)
				}
			}
			return nil
		})
	}
	if v.sortCol >= 0 {
		cmds = append(cmds, v.startSort())
	} else if v.query.raw != "" {
		cmds = append(cmds, v.startFilter(v.query.raw))
	}
	return tea.Batch(cmds...)
}

// startSort sorts by the current column: in a Cmd, unless the document is
// small. A document still loading is sorted over a snapshot of the rows in
// so far (document.snapshot), and rows that arrive later follow in document
// order until the sort is run again (when the load ends).
func (v *docPage) startSort() tea.Cmd {
	if v.sortCol < 0 || v.sortCol >= len(v.kinds) {
		v.order = nil
		v.sortGen++
		v.sortRunning = false
		return v.refilter()
	}
	v.sortGen++
	gen, d, k, desc, col := v.sortGen, v.doc, v.kinds[v.sortCol], v.sortDesc, v.sortCol
	n := d.entries.Len()
	if n < 20000 {
		// Small: sort here, it takes less than a frame.
		v.order = sortPerm(d, n, k, desc, !d.loading)
		v.sortRunning = false
		return v.refilter()
	}
	v.sortRunning = true
	src, frozen := d, true
	if d.loading {
		src, frozen = d.snapshot(), false
	}
	return func() tea.Msg {
		return sortedMsg{doc: d, gen: gen, col: col, desc: desc, n: n, perm: sortPerm(src, n, k, desc, frozen)}
	}
}

// refilter runs the current filter again (after a sort changed the order).
func (v *docPage) refilter() tea.Cmd {
	v.applyPerm()
	if v.query.raw == "" {
		return nil
	}
	return v.runFilter(v.query.raw, false)
}

// startFilter filters by s: in a Cmd over a loaded document, here (it is
// quick) over rows still loading or a narrowing of the last result.
func (v *docPage) startFilter(s string) tea.Cmd { return v.runFilter(s, true) }

// runFilter is startFilter; narrow allows scanning only the rows of the
// previous result (not after a sort: the result must follow the new order).
func (v *docPage) runFilter(s string, narrow bool) tea.Cmd {
	v.filterGen++
	if s == "" {
		v.query = filterQuery{}
		v.filtered = nil
		v.filterBusy = false
		v.applyPerm()
		return nil
	}
	q := parseFilter(s, v.kinds)
	d := v.doc
	n := d.entries.Len()
	if v.filterCancel != nil {
		v.filterCancel() // a scan for an older keystroke is not wanted any more
		v.filterCancel = nil
	}
	// Narrowing: the new query contains the old one and means the same kind
	// of thing, so only rows that matched the old one can match: scan those.
	old := v.query
	order := v.order
	if narrow && v.filtered != nil && !v.filterBusy && old.raw != "" && v.filteredN == n &&
		q.hasCol == old.hasCol && q.col == old.col && q.fold == old.fold &&
		q.isHex == old.isHex && q.isDate == old.isDate && (!q.isDate || (q.lo >= old.lo && q.hi <= old.hi)) &&
		strings.Contains(q.text, old.text) {
		order = v.filtered
	}
	scan := n
	if order != nil {
		scan = len(order)
	}
	if scan < 20000 || (!d.loading && scan < 50000) {
		// Small, or a loaded document whose keys make the scan quick: here.
		v.query = q
		use := keysPeek
		if d.loading {
			use = keysNone
		} else if n < 50000 {
			use = keysBuild // small: building is quick
		}
		v.filtered = filterRows(context.Background(), newMatcher(d, q, v.kinds, use), n, order)
		v.filteredN = n
		v.filterBusy = false
		v.applyPerm()
		return nil
	}
	// Large: scan in a Cmd, typing goes on meanwhile. A document still
	// loading is scanned over a snapshot of the rows in so far; the rows that
	// arrive meanwhile are scanned when the result comes (catchUpFilter).
	v.query = q
	v.filterBusy = true
	gen, kinds := v.filterGen, v.kinds
	src, use := d, keysBuild
	if d.loading {
		src, use = d.snapshot(), keysNone
	}
	ctx, cancel := context.WithCancel(context.Background())
	v.filterCancel = cancel
	return func() tea.Msg {
		rows := filterRows(ctx, newMatcher(src, q, kinds, use), n, order)
		if ctx.Err() != nil {
			return nil
		}
		return filteredMsg{doc: d, gen: gen, query: s, n: n, rows: rows}
	}
}

// catchUpFilter scans the rows that arrived since the filter last looked:
// a batch while loading, or those that arrived during a scan in a Cmd.
func (v *docPage) catchUpFilter() {
	n := v.doc.entries.Len()
	if v.filtered == nil || v.filterBusy || v.filteredN >= n {
		return
	}
	m := newMatcher(v.doc, v.query, v.kinds, keysNone)
	for i := v.filteredN; i < n; i++ {
		if m.match(i) {
			v.filtered = append(v.filtered, int32(i))
		}
	}
	v.filteredN = n
}

// Update handles the page's keys, mouse and background results.
func (v *docPage) Update(msg tea.Msg) (Page, tea.Cmd) {
	switch msg := msg.(type) {
	case sortedMsg:
		if msg.doc != v.doc || msg.gen != v.sortGen {
			return v, nil
		}
		v.sortRunning = false
		order := msg.perm
		for i := msg.n; i < v.doc.entries.Len(); i++ {
			order = append(order, int32(i))
		}
		v.order = order
		return v, v.refilter()
	case filteredMsg:
		if msg.doc != v.doc || msg.gen != v.filterGen {
			return v, nil
		}
		v.filterBusy = false
		v.filtered = msg.rows
		v.filteredN = msg.n
		v.catchUpFilter()
		v.applyPerm()
		return v, nil
	case tea.KeyPressMsg:
		return v, v.key(msg)
	case tea.MouseWheelMsg:
		if v.mouseInDetail(msg.X, msg.Y) {
			v.scrollDetail(msg)
			return v, nil
		}
		if v.tbl.Update(msg, &v.c.Keys) {
			v.detail.SetOffset(0)
		}
		return v, nil
	case tea.MouseClickMsg:
		return v, v.click(msg)
	case tea.PasteMsg:
		if v.filtering && v.filterInput.Update(msg) {
			return v, v.startFilter(v.filterInput.Value())
		}
	}
	return v, nil
}

func (v *docPage) mouseInDetail(x, y int) bool {
	if v.detailRight {
		return x >= v.width-v.detailW
	}
	return y >= v.tableTop+v.tbl.Height()
}

// click selects the row under the mouse; a second click on the selected
// row (or a double click) opens it. A click on a breadcrumb opens that
// document, a click on a column title sorts by it.
func (v *docPage) click(msg tea.MouseClickMsg) tea.Cmd {
	if msg.Button != tea.MouseLeft {
		return nil
	}
	if v.mouseInDetail(msg.X, msg.Y) {
		v.setFocus(focusDetail)
		return nil
	}
	if msg.Y == 0 {
		if pos := v.crumbAt(msg.X); pos >= 0 {
			return msgCmd(crumbGoMsg{Index: pos})
		}
		return nil
	}
	if msg.Y == v.tableTop && v.doc.entries.Len() > 0 {
		// A click on a column title sorts by it; again, in reverse.
		ci := v.tbl.ColumnAt(msg.X)
		if ci < 0 {
			return nil
		}
		if ci == v.sortCol {
			v.sortDesc = !v.sortDesc
		} else {
			v.sortCol, v.sortDesc = ci, false
		}
		return v.startSort()
	}
	pos := v.tbl.PosAt(msg.Y - v.tableTop)
	if pos < 0 {
		return nil
	}
	v.setFocus(focusTable)
	now := v.c.Clock()
	again := pos == v.tbl.Cursor()
	v.tbl.MoveTo(pos)
	v.detail.SetOffset(0)
	if again || (pos == v.lastClickPos && now.Sub(v.lastClick) < 400*time.Millisecond) {
		v.lastClick = time.Time{}
		return v.openSelected()
	}
	v.lastClick, v.lastClickPos = now, pos
	return nil
}

func (v *docPage) setFocus(f docFocus) {
	v.focus = f
	v.tbl.Focused = f == focusTable
}

// key handles a key press.
func (v *docPage) key(msg tea.KeyPressMsg) tea.Cmd {
	k := &v.c.Keys
	if v.filtering {
		return v.filterKey(msg)
	}
	d := v.doc
	if cmd, ok := v.markKey(msg); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, k.Filter):
		v.filtering = true
		v.filterInput.Start(v.query.raw)
		return nil
	case key.Matches(msg, k.SortNext):
		v.sortCol++
		if v.sortCol >= len(v.kinds) {
			v.sortCol = -1
		}
		v.sortDesc = false
		return v.startSort()
	case key.Matches(msg, k.SortReverse):
		if v.sortCol < 0 {
			v.sortCol = 0
			v.sortDesc = false
		} else {
			v.sortDesc = !v.sortDesc
		}
		return v.startSort()
	case key.Matches(msg, k.NextPane), key.Matches(msg, k.PrevPane):
		if v.focus == focusTable {
			v.setFocus(focusDetail)
		} else {
			v.setFocus(focusTable)
		}
		return nil
	case key.Matches(msg, k.DocInfo):
		v.showDocInfo = !v.showDocInfo
		v.detail.SetOffset(0)
		return nil
	case key.Matches(msg, k.Open):
		return v.openSelected()
	case key.Matches(msg, k.Retry):
		return msgCmd(reloadMsg{})
	case key.Matches(msg, k.UpLink):
		return msgCmd(followLinkMsg{Rel: "up"})
	case key.Matches(msg, k.IndexLink):
		return msgCmd(followLinkMsg{Rel: "index"})
	case key.Matches(msg, k.Archives):
		return msgCmd(followLinkMsg{Rel: model.RelArchives})
	case key.Matches(msg, k.LoadAll):
		switch {
		case !d.isIndex():
			return flashCmd("a loads all parts of an index; this is a "+d.title(), true)
		case d.loading:
			return flashCmd("wait for the index to load", true)
		}
		return msgCmd(openAllPartsMsg{})
	case key.Matches(msg, k.Copy):
		u, what := v.SelectedURL(), "entry URL"
		if u == "" {
			u, what = d.base(), "document URL"
		}
		return msgCmd(copyMsg{Text: u, What: what})
	case key.Matches(msg, k.Browser):
		u := v.SelectedURL()
		if u == "" {
			u = d.base()
		}
		return msgCmd(openBrowserMsg{URL: u})
	case key.Matches(msg, k.Manifest) && d.entriesArePackages():
		return msgCmd(openManifestMsg{})
	case key.Matches(msg, k.NextProblem):
		return v.stepProblem(1)
	case key.Matches(msg, k.PrevProblem):
		return v.stepProblem(-1)
	}
	if v.focus == focusDetail {
		v.scrollDetail(msg)
		return nil
	}
	if v.tbl.Update(msg, k) {
		v.detail.SetOffset(0)
	}
	return nil
}

// filterKey edits the filter: enter keeps it, esc clears it, the arrows and
// page keys still move the table, and every change filters again.
func (v *docPage) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &v.c.Keys
	switch {
	case key.Matches(msg, k.Submit):
		v.filtering = false
		v.filterInput.Stop()
		return nil
	case key.Matches(msg, k.Cancel):
		v.filtering = false
		v.filterInput.Stop()
		v.filterInput.SetValue("")
		return v.startFilter("")
	}
	if v.tbl.Update(msg, &v.typingKeys) {
		return nil
	}
	if v.filterInput.Update(msg) {
		return v.startFilter(v.filterInput.Value())
	}
	return nil
}

// scrollDetail scrolls the detail pane as a movement key or the wheel asks.
func (v *docPage) scrollDetail(msg tea.Msg) {
	v.detail.SetLen(len(v.detailLines(v.detailW - 4)))
	v.detail.Update(msg, &v.c.Keys)
}

// JumpTo selects entry i (0-based), clearing a filter that hides it.
func (v *docPage) JumpTo(i int) tea.Cmd {
	n := v.doc.entries.Len()
	if n == 0 {
		return nil
	}
	i = max(min(i, n-1), 0)
	if v.tbl.SelectRow(i) {
		return nil
	}
	_, cmd := v.Back()
	v.tbl.SelectRow(i)
	return cmd
}

// openSelected asks the root to open the selected entry: a document, a
// dump package, or a resource.
func (v *docPage) openSelected() tea.Cmd {
	i := v.tbl.Selected()
	if i < 0 {
		return nil
	}
	d := v.doc
	loc := model.ResolveHref(d.base(), d.entries.Loc(i))
	switch {
	case d.entriesAreDocuments():
		return msgCmd(openURLMsg{URL: loc, From: d.base()})
	case d.entriesArePackages():
		return msgCmd(openPackageMsg{})
	}
	return msgCmd(openResourceMsg{URL: loc, Entry: i})
}

// stepProblem moves to the next (dir 1) or previous (-1) entry shown that
// has a problem, round the end of the table.
func (v *docPage) stepProblem(dir int) tea.Cmd {
	d := v.doc
	switch {
	case d.loading:
		return flashCmd("the problems are known once the document has loaded", false)
	case d.marks == nil && d.crossState == crossChecking:
		return flashCmd("no entry has a problem so far: the documents it lists are being checked", false)
	case d.marks == nil:
		return flashCmd("no entry has a problem", false)
	}
	n := v.tbl.Len()
	cur := v.tbl.Cursor()
	for step := 1; step <= n; step++ {
		pos := ((cur+dir*step)%n + n) % n
		if d.markOf(v.tbl.Row(pos)) != markNoProblem {
			v.tbl.MoveTo(pos)
			v.detail.SetOffset(0)
			if (dir > 0 && pos <= cur) || (dir < 0 && pos >= cur) {
				return flashCmd("wrapped round the table", false)
			}
			return nil
		}
	}
	return flashCmd("no entry shown has a problem (the filter hides them)", false)
}

// cellsOf measures as the terminal counts (common.Common.WidthMethod).
func cellsOf(c *common.Common) components.Cells { return components.CellsOf(c.WidthMethod) }
