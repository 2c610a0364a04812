package pages

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/display"
	"rsx/model"
	"rsx/ui/common"
	"rsx/ui/components"
	"rsx/ui/nav"
)

// Problems lists the conformance problems of the document shown, those
// its load found and those found across documents, grouped by rule with
// their counts, errors first. A group expands (enter, →) to its problems;
// e and w show or hide errors and warnings, / keeps the rules (or messages)
// that contain a text. Enter on a problem shows its entry in the document
// page, and esc there comes back to the same place in this list
// (nav.JumpToEntryMsg.Return); a document-level problem, and L for any, shows
// its place in the raw XML, over this page. The detail pane under the list
// shows the selected problem (or rule) whole.
//
// The problems are the document's own (validity.go): the status bar, the
// table's marks and this page count the same ones.
type Problems struct {
	c   *common.Common
	src ProblemSource // the document whose problems these are; nil for a page of given problems

	doc, cross  []model.Problem
	errs, warns int  // exact counts (beyond the problems stored)
	storedAll   bool // every problem counted is listed
	checking    bool // the cross-document checks run
	crossErr    error

	hideErrors bool
	hideWarns  bool
	query      string // keeps the rules and messages that contain it
	input      components.Input
	filtering  bool

	groups   []*problemGroup
	expanded map[string]bool // by group key; set once sized, when nil
	rows     []problemRow    // what the filters let through

	width, height int
	list          components.List // the selected row and the first shown

	// focusEntry is the entry whose first problem is selected when the page
	// is first sized (P on the document page), -1 for none.
	focusEntry int
}

// problemGroup is the problems of one rule and severity, from the document
// or across documents.
type problemGroup struct {
	key      string
	rule     string
	section  string
	severity model.Severity
	cross    bool
	all      int              // problems of the group, before the filters
	shown    []*model.Problem // those the filters let through, by entry and line
}

// problemRow is a line of the list: a group, or one of its problems when
// the group is expanded.
type problemRow struct {
	g *problemGroup
	p *model.Problem // nil for the group's own row
}

// ProblemSource is the document whose problems a page lists, as the root
// holds it (rsx/ui's document): its problems change as the cross-document
// checks end, which the root tells with ProblemsChangedMsg.
type ProblemSource interface {
	// Problems are the document's own problems, those its load found, and
	// those found across documents. The page copies them.
	Problems() (doc, cross []model.Problem)
	// Counts are the exact counts of errors and warnings, beyond the
	// problems stored; StoredAll tells that every problem counted is
	// stored.
	Counts() (errs, warns int)
	StoredAll() bool
	// Checking tells that the cross-document checks run; CrossErr is why
	// they failed.
	Checking() bool
	CrossErr() error
	// HasRaw tells that the document's XML is kept, so that an entry's
	// place in it is known.
	HasRaw() bool
	// EntryURL is the absolute URL of entry i, ok false when there is none.
	EntryURL(i int) (url string, ok bool)
}

// ProblemsChangedMsg tells the open pages that the problems of Source
// changed (the cross-document checks ended). Source is compared with ==.
type ProblemsChangedMsg struct{ Source ProblemSource }

// NewSourceProblems returns the page of src's problems, on the first
// problem of entry focusEntry when it is >= 0 (P on the document page); it
// follows them as the cross-document checks end (ProblemsChangedMsg).
func NewSourceProblems(c *common.Common, src ProblemSource, focusEntry int) *Problems {
	v := NewProblems(c, nil, nil)
	v.src = src
	v.focusEntry = focusEntry
	v.fromDocument()
	return v
}

// NewProblems returns a page of the given problems of a document and
// those across documents.
func NewProblems(c *common.Common, doc, cross []model.Problem) *Problems {
	v := &Problems{c: c, list: components.NewList(components.Select), input: components.NewInput(c.Styles, "/ "), focusEntry: -1}
	v.SetProblems(doc, cross)
	return v
}

// fromDocument reads the problems of the page's document.
func (v *Problems) fromDocument() {
	d := v.src
	v.checking = d.Checking()
	v.crossErr = d.CrossErr()
	v.setProblems(d.Problems())
	v.errs, v.warns = d.Counts()
	v.storedAll = d.StoredAll()
	v.rebuild()
}

// Problems are the problems the page lists: the document's own and those
// across documents, each sorted as listed (errors first).
func (v *Problems) Problems() (doc, cross []model.Problem) { return v.doc, v.cross }

// SetProblems replaces the problems, keeping the filters and the expanded
// groups.
func (v *Problems) SetProblems(doc, cross []model.Problem) {
	v.setProblems(doc, cross)
	v.errs, v.warns = model.CountProblems(doc)
	e, w := model.CountProblems(cross)
	v.errs += e
	v.warns += w
	v.storedAll = true
	v.rebuild()
}

func (v *Problems) setProblems(doc, cross []model.Problem) {
	v.doc = sortedProblems(doc)
	v.cross = sortedProblems(cross)
}

// sortedProblems returns a copy of ps by severity (errors first), then entry
// (document-level first), line and rule.
func sortedProblems(ps []model.Problem) []model.Problem {
	out := append([]model.Problem(nil), ps...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if sa, sb := SeverityRank(a.Severity), SeverityRank(b.Severity); sa != sb {
			return sa < sb
		}
		if a.Entry != b.Entry {
			return a.Entry < b.Entry
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Rule < b.Rule
	})
	return out
}

// SeverityRank orders severities: errors first, then warnings, then the
// rest.
func SeverityRank(s model.Severity) int {
	switch s {
	case model.SeverityError:
		return 0
	case model.SeverityWarning:
		return 1
	}
	return 2
}

// passes tells whether the filters let p through.
func (v *Problems) passes(p *model.Problem) bool {
	switch p.Severity {
	case model.SeverityError:
		if v.hideErrors {
			return false
		}
	case model.SeverityWarning:
		if v.hideWarns {
			return false
		}
	}
	if v.query == "" {
		return true
	}
	q := strings.ToLower(v.query)
	return strings.Contains(strings.ToLower(p.Rule), q) || strings.Contains(strings.ToLower(p.Message), q)
}

// rebuild groups the problems the filters let through and lays out the
// rows, keeping the selected group or problem when it is still shown.
func (v *Problems) rebuild() {
	keepG, keepP := v.selectedRow()
	byKey := map[string]*problemGroup{}
	v.groups = v.groups[:0:0]
	add := func(ps []model.Problem, cross bool) {
		for i := range ps {
			p := &ps[i]
			k := fmt.Sprintf("%d %s %t", p.Severity, p.Rule, cross)
			g := byKey[k]
			if g == nil {
				g = &problemGroup{key: k, rule: p.Rule, section: p.Section, severity: p.Severity, cross: cross}
				byKey[k] = g
				v.groups = append(v.groups, g)
			}
			g.all++
			if v.passes(p) {
				g.shown = append(g.shown, p)
			}
		}
	}
	add(v.doc, false)
	add(v.cross, true)
	// Errors first, then the largest groups, then by rule.
	sort.SliceStable(v.groups, func(i, j int) bool {
		a, b := v.groups[i], v.groups[j]
		if sa, sb := SeverityRank(a.severity), SeverityRank(b.severity); sa != sb {
			return sa < sb
		}
		if len(a.shown) != len(b.shown) {
			return len(a.shown) > len(b.shown)
		}
		if a.rule != b.rule {
			return a.rule < b.rule
		}
		return !a.cross && b.cross
	})
	v.layoutRows()
	// The problems may be new copies (the cross-document checks ended):
	// the selected one is found again by value.
	same := func(a, b *model.Problem) bool { return a == b || a != nil && b != nil && *a == *b }
	sel := 0
	for i, r := range v.rows {
		if r.g.key == keepG && (same(r.p, keepP) || (keepP != nil && r.p == nil && !v.expanded[r.g.key])) {
			sel = i
			if same(r.p, keepP) {
				break
			}
		}
	}
	v.list.SetLen(len(v.rows))
	v.list.Select(sel)
}

// layoutRows lists the groups that have problems shown and, under each
// expanded one, its problems.
func (v *Problems) layoutRows() {
	v.rows = v.rows[:0]
	for _, g := range v.groups {
		if len(g.shown) == 0 {
			continue
		}
		v.rows = append(v.rows, problemRow{g: g})
		if v.expanded[g.key] {
			for _, p := range g.shown {
				v.rows = append(v.rows, problemRow{g: g, p: p})
			}
		}
	}
}

// selectedRow is the key of the selected group and the selected problem
// (nil on a group's row).
func (v *Problems) selectedRow() (string, *model.Problem) {
	i := v.list.Cursor()
	if i < 0 || i >= len(v.rows) {
		return "", nil
	}
	return v.rows[i].g.key, v.rows[i].p
}

// Selected returns the selected problem: the one under the cursor, or the
// only problem of a selected group; nil otherwise.
func (v *Problems) Selected() *model.Problem {
	i := v.list.Cursor()
	if i < 0 || i >= len(v.rows) {
		return nil
	}
	r := v.rows[i]
	if r.p == nil && len(r.g.shown) == 1 {
		return r.g.shown[0]
	}
	return r.p
}

// selectedGroup is the group of the selected row, nil when none.
func (v *Problems) selectedGroup() *problemGroup {
	i := v.list.Cursor()
	if i < 0 || i >= len(v.rows) {
		return nil
	}
	return v.rows[i].g
}

// SetSize sets the size the page draws in. The first time, every group is
// expanded when all problems fit on the screen, else none.
func (v *Problems) SetSize(w, h int) {
	v.width, v.height = w, h
	v.input.SetWidth(max(w-4, 10))
	v.input.SetStyles(v.c.Styles)
	if v.expanded == nil {
		v.expanded = map[string]bool{}
		n := 0
		for _, g := range v.groups {
			n += 1 + len(g.shown)
		}
		if n <= h-8 {
			for _, g := range v.groups {
				v.expanded[g.key] = true
			}
		}
		v.rebuild()
	}
	if v.focusEntry >= 0 {
		v.selectEntry(v.focusEntry)
		v.focusEntry = -1
	}
	v.list.SetHeight(v.listHeight())
	v.list.Select(v.list.Cursor())
}

// selectEntry selects entry i's first problem in the list order (the worst),
// expanding its group.
func (v *Problems) selectEntry(i int) {
	for _, g := range v.groups {
		for _, p := range g.shown {
			if p.Entry != i {
				continue
			}
			if !v.expanded[g.key] {
				v.expanded[g.key] = true
				v.layoutRows()
				v.list.SetLen(len(v.rows))
			}
			for n, r := range v.rows {
				if r.p == p {
					v.list.Select(n)
					return
				}
			}
			return
		}
	}
}

func (v *Problems) Title() string     { return "Problems" }
func (v *Problems) InputActive() bool { return v.filtering }
func (v *Problems) Busy() bool        { return v.checking }
func (v *Problems) Close()            {}

// Back closes the filter input, then clears the filter; then esc leaves.
func (v *Problems) Back() (bool, tea.Cmd) {
	if v.filtering || v.query != "" {
		v.filtering = false
		v.input.Stop()
		v.input.SetValue("")
		v.query = ""
		v.rebuild()
		return true, nil
	}
	return false, nil
}

// Init starts nothing: the root checks across documents.
func (v *Problems) Init() tea.Cmd { return nil }

// KeyBindings are the page's own bindings, for the help screen and footer.
func (v *Problems) KeyBindings() []key.Binding {
	k := &v.c.Keys
	return []key.Binding{common.Short(k.Open, "expand / go to entry"), common.Pair(k.Left, k.Right, "collapse/expand"),
		k.ToggleErrors, k.ToggleWarnings, common.Short(k.Filter, "filter rules"), k.ShowLine}
}

// HelpBindings are the page's keys (nav.KeyHelper): the footer's, with
// every movement key where there is somewhere to move.
func (v *Problems) HelpBindings() []key.Binding {
	return withMoves(v.c.Keys, v.KeyBindings(), v.list.Len() > 1)
}

// listHeight: the page less the counts line, the separator and the detail.
func (v *Problems) listHeight() int { return max(v.height-2-v.detailHeight(), 1) }

// detailHeight is the room of the detail pane: what the selected row needs,
// at most half the page (and at least three lines).
func (v *Problems) detailHeight() int {
	n := len(v.detailLines(v.c.Styles, max(v.width, 1)))
	return min(max(n, 3), max(v.height/2, 3))
}

// Update handles keys, the mouse wheel and the document's problems.
func (v *Problems) Update(msg tea.Msg) (nav.Page, tea.Cmd) {
	k := &v.c.Keys
	switch msg := msg.(type) {
	case ProblemsChangedMsg:
		if v.src != nil && msg.Source == v.src {
			v.fromDocument()
			v.list.SetHeight(v.listHeight())
			if v.crossErr != nil {
				return v, nav.Flash("cross-document checks: "+v.crossErr.Error(), true)
			}
		}
	case tea.MouseWheelMsg:
		v.list.Update(msg, k)
	case tea.PasteMsg:
		if v.filtering && v.input.Update(msg) {
			v.setQuery(v.input.Value())
		}
	case tea.KeyPressMsg:
		if v.filtering {
			return v, v.filterKey(msg)
		}
		if v.list.Update(msg, k) {
			v.list.SetHeight(v.listHeight())
			return v, nil
		}
		switch {
		case key.Matches(msg, k.ToggleErrors):
			v.hideErrors = !v.hideErrors
			v.rebuild()
		case key.Matches(msg, k.ToggleWarnings):
			v.hideWarns = !v.hideWarns
			v.rebuild()
		case key.Matches(msg, k.Filter):
			v.filtering = true
			v.input.Start(v.query)
		case key.Matches(msg, k.Right):
			v.expand(true)
		case key.Matches(msg, k.Left):
			v.expand(false)
		case key.Matches(msg, k.Open):
			i := v.list.Cursor()
			if i >= 0 && i < len(v.rows) && v.rows[i].p == nil && len(v.rows[i].g.shown) > 1 {
				v.expand(!v.expanded[v.rows[i].g.key])
				return v, nil
			}
			return v, v.open(false)
		case key.Matches(msg, k.ShowLine):
			return v, v.open(true)
		}
		v.list.SetHeight(v.listHeight())
	}
	return v, nil
}

// filterKey edits the rule filter: every change filters, enter keeps it.
func (v *Problems) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &v.c.Keys
	switch {
	case key.Matches(msg, k.Submit):
		v.filtering = false
		v.input.Stop()
		return nil
	case key.Matches(msg, k.Cancel):
		v.Back()
		return nil
	}
	if v.input.Update(msg) {
		v.setQuery(v.input.Value())
	}
	return nil
}

func (v *Problems) setQuery(q string) {
	v.query = q
	v.rebuild()
	v.list.SetHeight(v.listHeight())
}

// expand opens or closes the selected group; on a problem, closing selects
// its group.
func (v *Problems) expand(open bool) {
	g := v.selectedGroup()
	if g == nil || v.expanded[g.key] == open {
		if g != nil && !open {
			v.selectGroupRow(g)
		}
		return
	}
	v.expanded[g.key] = open
	v.layoutRows()
	v.list.SetLen(len(v.rows))
	v.selectGroupRow(g)
}

func (v *Problems) selectGroupRow(g *problemGroup) {
	for i, r := range v.rows {
		if r.g == g && r.p == nil {
			v.list.Select(i)
			return
		}
	}
}

// open returns the command that shows the selected problem: its entry in the
// document page (esc there comes back here), or its place in the raw XML
// (always when byLine).
func (v *Problems) open(byLine bool) tea.Cmd {
	p := v.Selected()
	if g := v.selectedGroup(); p == nil && byLine && g != nil && len(g.shown) > 0 {
		p = g.shown[0] // a group's place is its first problem's
	}
	switch {
	case p == nil:
		return nil
	case !byLine && p.Entry >= 0:
		return nav.Cmd(nav.JumpToEntryMsg{Index: p.Entry, Return: true})
	case p.Line > 0 || (byLine && p.Entry >= 0 && v.src != nil && v.src.HasRaw()):
		return nav.Cmd(nav.ShowRawLineMsg{Line: p.Line, Entry: p.Entry})
	case byLine && p.Entry >= 0:
		return nav.Cmd(nav.FlashMsg{Text: "this problem has no line number: enter shows its entry"})
	}
	return nav.Cmd(nav.FlashMsg{Text: "this problem concerns the whole document: it has no entry or line"})
}

// View draws the counts, the visible rows and the selected row's detail.
func (v *Problems) View() string {
	st := v.c.Styles
	w := max(v.width, 1)
	lines := make([]string, 0, max(v.height, 1))
	lines = append(lines, cellsOf(v.c).Fit(v.countsLine(st), w))

	h := v.listHeight()
	switch {
	case len(v.doc)+len(v.cross) == 0 && v.checking:
		lines = append(lines, st.Dim.Render("no problems in this document · checking the documents it lists…"))
	case len(v.doc)+len(v.cross) == 0:
		lines = append(lines, st.OK.Render("✓ no problems found"))
	case len(v.rows) == 0:
		lines = append(lines, st.Dim.Render("every problem is hidden: e shows errors, w warnings, esc clears the filter"))
	}
	top, sel := v.list.Offset(), v.list.Cursor()
	ruleW := 4
	for _, g := range v.groups {
		ruleW = max(ruleW, min(cellsOf(v.c).Width(g.rule), 34))
	}
	for i := top; i < top+h && i < len(v.rows); i++ {
		lines = append(lines, v.rowLine(st, v.rows[i], i == sel, ruleW, w))
	}
	lines = components.Window(lines, 0, 1+h)
	for len(lines) < 1+h {
		lines = append(lines, "")
	}
	lines = append(lines, st.Dim.Render(strings.Repeat("─", w)))
	lines = append(lines, components.Window(v.detailLines(st, w), 0, v.detailHeight())...)
	if v.filtering {
		lines = components.Window(lines, 0, max(v.height-1, 1))
		lines = append(lines, cellsOf(v.c).Fit(v.input.View()+st.Dim.Render("  rule or text · enter keeps · esc clears"), w))
	}
	return strings.Join(components.Window(lines, 0, max(v.height, 1)), "\n")
}

func (v *Problems) countsLine(st *common.Styles) string {
	errText := st.Error.Render("✗ " + display.Plural(v.errs, "error", "errors"))
	warnText := st.Warning.Render("! " + display.Plural(v.warns, "warning", "warnings"))
	if v.hideErrors {
		errText = st.Dim.Render(fmt.Sprintf("✗ %s (hidden)", display.Plural(v.errs, "error", "errors")))
	}
	if v.hideWarns {
		warnText = st.Dim.Render(fmt.Sprintf("! %s (hidden)", display.Plural(v.warns, "warning", "warnings")))
	}
	s := st.Title.Render("Problems") + "  " + errText + "  " + warnText
	s += st.Dim.Render("  " + display.Plural(v.shownGroups(), "rule", "rules"))
	if v.query != "" {
		s += "  " + st.StatusKey.Render(components.Escape(fmt.Sprintf("filter %q", v.query)))
	}
	switch {
	case v.checking:
		s += "  " + st.Dim.Render(v.c.Spinner.View()+" checking across documents…")
	case v.crossErr != nil:
		s += "  " + st.Warning.Render("? cross-document checks incomplete")
	}
	if !v.storedAll {
		s += "  " + st.Dim.Render(fmt.Sprintf("(the first %s are listed)", components.Count(len(v.doc))))
	}
	return s
}

func (v *Problems) shownGroups() int {
	n := 0
	for _, g := range v.groups {
		if len(g.shown) > 0 {
			n++
		}
	}
	return n
}

// problemWhere is the entry (1-based, as the document page numbers them) or
// the document.
func problemWhere(p *model.Problem) string {
	switch {
	case p.Entry >= 0:
		return fmt.Sprintf("entry %d", p.Entry+1)
	case p.Line > 0:
		return fmt.Sprintf("line %d", p.Line)
	}
	return "document"
}

// SeverityMark is the mark of a severity, plain and styled: ✗ an error, !
// a warning.
func SeverityMark(st *common.Styles, s model.Severity) (plain, styled string) {
	switch s {
	case model.SeverityError:
		return "✗", st.Error.Render("✗")
	case model.SeverityWarning:
		return "!", st.Warning.Render("!")
	}
	return "?", st.Dim.Render("?")
}

// rowLine draws a group (▸ closed, ▾ open) or one of its problems.
func (v *Problems) rowLine(st *common.Styles, r problemRow, selected bool, ruleW, w int) string {
	g := r.g
	if r.p == nil {
		fold := "▸"
		if v.expanded[g.key] {
			fold = "▾"
		}
		plainMark, mark := SeverityMark(st, g.severity)
		count := components.Count(len(g.shown))
		if len(g.shown) != g.all {
			count += " of " + components.Count(g.all)
		}
		rule := cellsOf(v.c).Pad(components.Escape(g.rule), ruleW)
		sec := "§" + components.Escape(g.section)
		where := ""
		if g.cross {
			where = " across documents"
		}
		summary := ""
		if rr, ok := model.RuleByID(g.rule); ok {
			summary = rr.Summary
		}
		if selected {
			return st.Selected.Render(cellsOf(v.c).Pad(fold+" "+plainMark+" "+rule+" "+cellsOf(v.c).PadLeft(count, 7)+"  "+sec+where+"  "+components.Escape(summary), w))
		}
		return cellsOf(v.c).Fit(fold+" "+mark+" "+st.Rel.Render(rule)+" "+st.Value.Render(cellsOf(v.c).PadLeft(count, 7))+"  "+
			st.Dim.Render(sec+where)+"  "+st.Explain.Render(components.Escape(summary)), w)
	}
	p := r.p
	where := fmt.Sprintf("%-12s", problemWhere(p))
	msg := components.Escape(strings.Join(strings.Fields(WithoutEntryPrefix(p)), " "))
	if selected {
		return st.Selected.Render(cellsOf(v.c).Pad("    "+where+" "+msg, w))
	}
	return cellsOf(v.c).Fit("    "+st.Label.Render(where)+" "+st.Value.Render(msg), w)
}

// detailLines describe the selected row whole: a problem with its rule,
// where it is and its message wrapped; a group with its rule's summary.
func (v *Problems) detailLines(st *common.Styles, w int) []string {
	i := v.list.Cursor()
	if i < 0 || i >= len(v.rows) {
		return nil
	}
	r := v.rows[i]
	g := r.g
	wrap := func(s string, style interface{ Render(...string) string }) []string {
		var out []string
		for _, wl := range cellsOf(v.c).Wrap(components.Escape(s), max(w, 10)) {
			for _, l := range cellsOf(v.c).HardWrap(wl, max(w, 10)) { // a long URL or path
				out = append(out, cellsOf(v.c).Fit(style.Render(l), w))
			}
		}
		return out
	}
	head := st.Rel.Render(components.Escape(g.rule)) + st.Dim.Render(fmt.Sprintf(" §%s, %s", components.Escape(g.section), g.severity))
	if g.cross {
		head += st.Dim.Render(", across documents")
	}
	out := []string{cellsOf(v.c).Fit(head, w)}
	rr, hasRule := model.RuleByID(g.rule)
	p := r.p
	if p == nil && len(g.shown) == 1 {
		p = g.shown[0]
	}
	if p == nil {
		if hasRule && rr.Summary != "" {
			out = append(out, wrap(rr.Summary, st.Explain)...)
		}
		out = append(out, st.Dim.Render(cellsOf(v.c).Fit(fmt.Sprintf("%s · enter or → lists them", display.Plural(len(g.shown), "problem", "problems")), w)))
		return out
	}
	where := problemWhere(p)
	if p.Entry >= 0 && p.Line > 0 {
		where += fmt.Sprintf(" · line %d", p.Line)
	}
	if v.src != nil && p.Entry >= 0 {
		if u, ok := v.src.EntryURL(p.Entry); ok {
			where += " · " + u
		}
	}
	out = append(out, wrap(where, st.Label)...)
	out = append(out, wrap(p.Message, st.Value)...)
	if hasRule && rr.Summary != "" {
		out = append(out, wrap(rr.Summary, st.Explain)...)
	}
	return out
}

// WithoutEntryPrefix is a problem's message without the "entry N (loc): "
// it starts with, which the row says already (the detail pane gives the
// message whole).
func WithoutEntryPrefix(p *model.Problem) string {
	if p.Entry < 0 {
		return p.Message
	}
	prefix := fmt.Sprintf("entry %d", p.Entry+1)
	rest, ok := strings.CutPrefix(p.Message, prefix)
	if !ok {
		return p.Message
	}
	if strings.HasPrefix(rest, " (") {
		// The loc in parentheses may hold ")" or ": ": cut at the "): "
		// that ends it.
		if i := strings.Index(rest, "): "); i >= 0 {
			return rest[i+3:]
		}
		return p.Message
	}
	if r, ok := strings.CutPrefix(rest, ": "); ok {
		return r
	}
	return p.Message
}
