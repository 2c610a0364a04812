package ui

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"rsx/model"
	"rsx/ui/common"
	"rsx/ui/components"
)

// problemsPage lists the conformance problems of the current document and
// those found across documents, errors first, then by entry. e and w show
// or hide errors and warnings; Enter shows the problem's entry in the
// document page (jumpToEntryMsg) or, for a document-level problem, its line
// in the raw page (showRawLineMsg); L shows any problem's line in the raw
// page. Over a document that lists others, the cross-document checks run
// in the background when the page opens.
type problemsPage struct {
	c *common.Common

	doc, cross []model.Problem // sorted
	hideErrors bool
	hideWarns  bool
	rows       []problemRow // what the filters let through, with section headings

	width, height int
	list          components.List // the selected row (never a heading) and the first shown

	check    func() tea.Cmd // starts the cross-document checks; nil when none
	checking bool
}

// crossChecker checks the documents a document lists against it.
type crossChecker interface {
	CrossCheck(ctx context.Context, url string) ([]model.Problem, error)
}

// crossMsg carries the cross-document problems found for a problems page.
type crossMsg struct {
	page     *problemsPage
	problems []model.Problem
	err      error
}

// openProblemsPage opens the problems of the document shown.
func openProblemsPage(pc pageContext) (Page, tea.Cmd, error) {
	d := pc.doc
	switch {
	case d == nil:
		return nil, nil, errors.New("nothing is open")
	case d.loading:
		return nil, nil, errors.New("the problems are known once the document has loaded")
	case d.parts != nil:
		return nil, nil, errors.New("open a part to see its problems")
	}
	p := newProblemsPage(pc.c, d.problems, nil)
	if d.entriesAreDocuments() && !model.IsLocal(d.url) {
		p.crossCheck(pc.backend, d.base())
	}
	return p, nil, nil
}

// newProblemsPage returns a page of a document's problems and the
// cross-document ones.
func newProblemsPage(c *common.Common, doc, cross []model.Problem) *problemsPage {
	v := &problemsPage{c: c, list: components.NewList(components.Select)}
	v.list.Skip = func(i int) bool { return i < len(v.rows) && v.rows[i].p == nil }
	v.SetProblems(doc, cross)
	return v
}

// crossCheck has Init check the documents url lists against it through cc.
func (v *problemsPage) crossCheck(cc crossChecker, url string) {
	v.checking = true
	v.check = func() tea.Cmd {
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			ps, err := cc.CrossCheck(ctx, url)
			return crossMsg{page: v, problems: ps, err: err}
		}
	}
}

// problemRow is a line of the list: a section heading or a problem.
type problemRow struct {
	heading string
	p       *model.Problem
	cross   bool
}

// problemsDetailLines is the height of the detail under the list.
const problemsDetailLines = 3

// SetProblems replaces the problems (e.g. when a cross-document check
// finishes), keeping the filters.
func (v *problemsPage) SetProblems(doc, cross []model.Problem) {
	v.doc = sortedProblems(doc)
	v.cross = sortedProblems(cross)
	v.rebuild()
}

// sortedProblems returns a copy of ps by severity (errors first), then entry
// (document-level first), line and rule.
func sortedProblems(ps []model.Problem) []model.Problem {
	out := append([]model.Problem(nil), ps...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if sa, sb := severityRank(a.Severity), severityRank(b.Severity); sa != sb {
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

func severityRank(s model.Severity) int {
	switch s {
	case model.SeverityError:
		return 0
	case model.SeverityWarning:
		return 1
	}
	return 2
}

func (v *problemsPage) shown(p *model.Problem) bool {
	switch p.Severity {
	case model.SeverityError:
		return !v.hideErrors
	case model.SeverityWarning:
		return !v.hideWarns
	}
	return true
}

// rebuild recomputes the rows after a change of problems or filters, keeping
// the selected problem when it is still shown.
func (v *problemsPage) rebuild() {
	keep := v.Selected()
	v.rows = v.rows[:0:0]
	add := func(title string, ps []model.Problem, cross bool) {
		n := 0
		for i := range ps {
			if v.shown(&ps[i]) {
				n++
			}
		}
		if len(ps) == 0 {
			return
		}
		v.rows = append(v.rows, problemRow{heading: fmt.Sprintf("%s (%d of %d shown)", title, n, len(ps))})
		for i := range ps {
			if v.shown(&ps[i]) {
				v.rows = append(v.rows, problemRow{p: &ps[i], cross: cross})
			}
		}
	}
	add("This document", v.doc, false)
	add("Across documents", v.cross, true)
	sel := 0
	for i, r := range v.rows {
		if r.p != nil && r.p == keep {
			sel = i
		}
	}
	v.list.SetLen(len(v.rows))
	v.selectRow(sel)
}

// Selected returns the selected problem, nil when none.
func (v *problemsPage) Selected() *model.Problem {
	i := v.list.Cursor()
	if i < 0 || i >= len(v.rows) {
		return nil
	}
	return v.rows[i].p
}

// SetSize sets the size the page draws in.
func (v *problemsPage) SetSize(w, h int) {
	v.width, v.height = w, h
	v.list.SetHeight(v.listHeight())
	v.selectRow(v.list.Cursor())
}

func (v *problemsPage) Title() string         { return "Problems" }
func (v *problemsPage) InputActive() bool     { return false }
func (v *problemsPage) Busy() bool            { return v.checking }
func (v *problemsPage) Back() (bool, tea.Cmd) { return false, nil }
func (v *problemsPage) Close()                {}

// Init starts the cross-document checks, if any.
func (v *problemsPage) Init() tea.Cmd {
	if v.check == nil {
		return nil
	}
	return v.check()
}

// KeyBindings are the page's own bindings, for the help screen.
func (v *problemsPage) KeyBindings() []key.Binding {
	k := &v.c.Keys
	return []key.Binding{common.Short(k.Open, "show the entry (or line)"), k.ShowLine, k.ToggleErrors, k.ToggleWarnings}
}

// listHeight: the page less the counts line, the separator and the detail.
func (v *problemsPage) listHeight() int { return max(v.height-2-problemsDetailLines, 1) }

// selectRow selects row i (the nearest problem when it is a heading) and
// keeps the heading above the first problem of a section in view.
func (v *problemsPage) selectRow(i int) {
	v.list.Select(i)
	v.headingInView()
}

func (v *problemsPage) headingInView() {
	if sel := v.list.Cursor(); sel > 0 && sel < len(v.rows) && v.rows[sel-1].p == nil && v.list.Offset() == sel {
		v.list.SetOffset(sel - 1)
	}
}

// Update handles keys, the mouse wheel and the cross-document checks.
func (v *problemsPage) Update(msg tea.Msg) (Page, tea.Cmd) {
	k := &v.c.Keys
	switch msg := msg.(type) {
	case crossMsg:
		if msg.page != v {
			return v, nil
		}
		v.checking = false
		v.SetProblems(v.doc, msg.problems)
		if msg.err != nil {
			return v, flashCmd("cross-document checks: "+msg.err.Error(), true)
		}
	case tea.MouseWheelMsg:
		if v.list.Update(msg, k) {
			v.headingInView()
		}
	case tea.KeyPressMsg:
		if v.list.Update(msg, k) {
			v.headingInView()
			return v, nil
		}
		switch {
		case key.Matches(msg, k.ToggleErrors):
			v.hideErrors = !v.hideErrors
			v.rebuild()
		case key.Matches(msg, k.ToggleWarnings):
			v.hideWarns = !v.hideWarns
			v.rebuild()
		case key.Matches(msg, k.Open):
			return v, v.open(false)
		case key.Matches(msg, k.ShowLine):
			return v, v.open(true)
		}
	}
	return v, nil
}

// open returns the command that shows the selected problem: its entry in the
// document page, or its line in the raw page (always when byLine).
func (v *problemsPage) open(byLine bool) tea.Cmd {
	p := v.Selected()
	switch {
	case p == nil:
		return nil
	case !byLine && p.Entry >= 0:
		return msgCmd(jumpToEntryMsg{Index: p.Entry})
	case p.Line > 0:
		return msgCmd(showRawLineMsg{Line: p.Line})
	case byLine && p.Entry >= 0:
		return msgCmd(flashMsg{Text: "this problem has no line number: enter shows its entry"})
	}
	return msgCmd(flashMsg{Text: "this problem concerns the whole document: it has no entry or line"})
}

// View draws the counts, the visible rows and the selected problem's detail.
func (v *problemsPage) View() string {
	st := v.c.Styles
	w := max(v.width, 1)
	lines := make([]string, 0, max(v.height, 1))
	lines = append(lines, components.Fit(v.countsLine(st), w))

	h := v.listHeight()
	switch {
	case len(v.doc)+len(v.cross) == 0:
		lines = append(lines, st.OK.Render("✓ no problems found"))
	case v.Selected() == nil:
		lines = append(lines, st.Dim.Render("every problem is hidden: e shows errors, w warnings"))
	}
	ruleW, secW := v.columnWidths()
	top, sel := v.list.Offset(), v.list.Cursor()
	for i := top; i < top+h && i < len(v.rows); i++ {
		r := v.rows[i]
		if r.p == nil {
			lines = append(lines, components.Fit(st.Section.Render(r.heading), w))
			continue
		}
		lines = append(lines, v.problemLine(st, r.p, i == sel, ruleW, secW, w))
	}
	lines = components.Window(lines, 0, 1+h)
	lines = append(lines, st.Dim.Render(strings.Repeat("─", w)))
	lines = append(lines, v.detail(st, w)...)
	return strings.Join(components.Window(lines, 0, max(v.height, 1)), "\n")
}

func (v *problemsPage) countsLine(st *common.Styles) string {
	var errs, warns int
	for _, ps := range [][]model.Problem{v.doc, v.cross} {
		for _, p := range ps {
			switch p.Severity {
			case model.SeverityError:
				errs++
			case model.SeverityWarning:
				warns++
			}
		}
	}
	errText := st.Error.Render(fmt.Sprintf("✗ %s", components.Plural(errs, "error", "errors")))
	warnText := st.Warning.Render(fmt.Sprintf("! %s", components.Plural(warns, "warning", "warnings")))
	if v.hideErrors {
		errText = st.Dim.Render(fmt.Sprintf("✗ %s (hidden)", components.Plural(errs, "error", "errors")))
	}
	if v.hideWarns {
		warnText = st.Dim.Render(fmt.Sprintf("! %s (hidden)", components.Plural(warns, "warning", "warnings")))
	}
	return st.Title.Render("Problems") + "  " + errText + "  " + warnText +
		st.Dim.Render("   e/w show or hide · enter go to entry · L raw line")
}

// columnWidths sizes the rule and section columns to the widest value on
// screen, within bounds, so that the cost does not grow with the list.
func (v *problemsPage) columnWidths() (int, int) {
	ruleW, secW := 4, 2
	top := v.list.Offset()
	for i := top; i < top+v.listHeight() && i < len(v.rows); i++ {
		if p := v.rows[i].p; p != nil {
			ruleW = max(ruleW, len(p.Rule))
			secW = max(secW, len(p.Section)+1)
		}
	}
	return min(ruleW, 30), min(secW, 6)
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

func severityMark(st *common.Styles, s model.Severity) (string, string) {
	switch s {
	case model.SeverityError:
		return "✗", st.Error.Render("✗")
	case model.SeverityWarning:
		return "!", st.Warning.Render("!")
	}
	return "?", st.Dim.Render("?")
}

func (v *problemsPage) problemLine(st *common.Styles, p *model.Problem, selected bool, ruleW, secW, w int) string {
	plainMark, mark := severityMark(st, p.Severity)
	where := fmt.Sprintf("%-11s", problemWhere(p))
	rule := components.Pad(components.Printable(p.Rule), ruleW)
	sec := components.Pad("§"+components.Printable(p.Section), secW)
	msg := components.Printable(strings.Join(strings.Fields(p.Message), " "))
	if selected {
		return st.Selected.Render(components.Pad("▸ "+plainMark+" "+where+" "+rule+" "+sec+" "+msg, w))
	}
	return components.Fit("  "+mark+" "+st.Label.Render(where)+" "+st.Rel.Render(rule)+" "+st.Dim.Render(sec)+" "+st.Value.Render(msg), w)
}

// detail describes the selected problem: its rule and its whole message.
func (v *problemsPage) detail(st *common.Styles, w int) []string {
	p := v.Selected()
	if p == nil {
		return nil
	}
	head := st.Rel.Render(components.Printable(p.Rule)) + st.Dim.Render(fmt.Sprintf(" (§%s, %s)", components.Printable(p.Section), p.Severity))
	if r, ok := model.RuleByID(p.Rule); ok && r.Summary != "" {
		head += " " + st.Explain.Render(components.Printable(r.Summary))
	}
	if p.Line > 0 {
		head += st.Dim.Render(fmt.Sprintf(" · line %d", p.Line))
	}
	out := []string{components.Fit(head, w)}
	msg := components.Printable(strings.Join(strings.Fields(p.Message), " "))
	wrapped := strings.Split(ansi.Wrap(msg, max(w, 10), " /"), "\n")
	for i, l := range wrapped {
		if i == problemsDetailLines-2 && len(wrapped) > problemsDetailLines-1 {
			out = append(out, components.Fit(st.Value.Render(l)+"…", w))
			break
		}
		out = append(out, components.Fit(st.Value.Render(l), w))
	}
	return out
}
