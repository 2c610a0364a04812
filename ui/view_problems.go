package ui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"rsx/model"
)

// problemsView lists the conformance problems of the current document and
// those found across documents, errors first, then by entry. e and w show
// or hide errors and warnings; Enter shows the problem's entry in the
// document view (jumpToEntryMsg) or, for a document-level problem, its line
// in the raw view (showRawLineMsg); L shows any problem's line in the raw view.
type problemsView struct {
	c    *Common
	keys inspectKeys

	doc, cross []model.Problem // sorted
	hideErrors bool
	hideWarns  bool
	rows       []problemRow // what the filters let through, with section headings

	width, height int
	sel           int // index into rows; always a problem row when there is one
	top           int
}

// problemRow is a line of the list: a section heading or a problem.
type problemRow struct {
	heading string
	p       *model.Problem
	cross   bool
}

// problemsDetailLines is the height of the detail under the list.
const problemsDetailLines = 3

// newProblemsView returns a view of a document's problems and the
// cross-document ones.
func newProblemsView(c *Common, doc, cross []model.Problem) problemsView {
	v := problemsView{c: c, keys: defaultInspectKeys()}
	v.SetProblems(doc, cross)
	return v
}

// SetProblems replaces the problems (e.g. when a cross-document check
// finishes), keeping the filters.
func (v *problemsView) SetProblems(doc, cross []model.Problem) {
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

func (v *problemsView) shown(p *model.Problem) bool {
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
func (v *problemsView) rebuild() {
	var keep *model.Problem
	if v.sel >= 0 && v.sel < len(v.rows) {
		keep = v.rows[v.sel].p
	}
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
	v.sel = -1
	for i, r := range v.rows {
		if r.p != nil && (v.sel < 0 || r.p == keep) {
			v.sel = i
		}
	}
	v.scrollToSel()
}

// Selected returns the selected problem, nil when none.
func (v problemsView) Selected() *model.Problem {
	if v.sel < 0 || v.sel >= len(v.rows) {
		return nil
	}
	return v.rows[v.sel].p
}

// SetSize sets the size the view draws in.
func (v *problemsView) SetSize(w, h int) {
	v.width, v.height = w, h
	v.scrollToSel()
}

// InputActive is always false: the view has no text input.
func (v problemsView) InputActive() bool { return false }

// KeyBindings are the view's own bindings, for the help screen.
func (v problemsView) KeyBindings() []key.Binding {
	k := ivKeys(v.c)
	open := key.NewBinding(key.WithKeys(k.Open.Keys()...), key.WithHelp(k.Open.Help().Key, "show the entry (or line)"))
	return []key.Binding{open, v.keys.ShowLine, v.keys.ToggleErrors, v.keys.ToggleWarnings}
}

// listHeight: the view less the counts line, the separator and the detail.
func (v problemsView) listHeight() int { return max(v.height-2-problemsDetailLines, 1) }

func (v *problemsView) scrollToSel() {
	h := v.listHeight()
	top := v.top
	if v.sel >= 0 {
		top = ivScrollTo(top, v.sel, h)
		// Keep the heading above the first problem of a section visible.
		if v.sel > 0 && v.rows[v.sel-1].p == nil && top == v.sel {
			top--
		}
	}
	v.top = ivClamp(top, 0, len(v.rows)-h)
}

// move selects the problem d problem rows away (skipping headings).
func (v *problemsView) move(d int) {
	if v.sel < 0 {
		return
	}
	step := 1
	if d < 0 {
		step, d = -1, -d
	}
	i := v.sel
	for ; d > 0; d-- {
		j := i + step
		for j >= 0 && j < len(v.rows) && v.rows[j].p == nil {
			j += step
		}
		if j < 0 || j >= len(v.rows) {
			break
		}
		i = j
	}
	v.sel = i
	v.scrollToSel()
}

// Update handles keys and the mouse wheel.
func (v problemsView) Update(msg tea.Msg) (problemsView, tea.Cmd) {
	k := ivKeys(v.c)
	switch msg := msg.(type) {
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			v.move(-3)
		case tea.MouseWheelDown:
			v.move(3)
		}
	case tea.KeyPressMsg:
		page := v.listHeight()
		switch {
		case key.Matches(msg, k.Down):
			v.move(1)
		case key.Matches(msg, k.Up):
			v.move(-1)
		case key.Matches(msg, k.PageDown):
			v.move(page)
		case key.Matches(msg, k.PageUp):
			v.move(-page)
		case key.Matches(msg, k.HalfDown):
			v.move(page / 2)
		case key.Matches(msg, k.HalfUp):
			v.move(-page / 2)
		case key.Matches(msg, k.Top):
			v.move(-len(v.rows))
		case key.Matches(msg, k.Bottom):
			v.move(len(v.rows))
		case key.Matches(msg, v.keys.ToggleErrors):
			v.hideErrors = !v.hideErrors
			v.rebuild()
		case key.Matches(msg, v.keys.ToggleWarnings):
			v.hideWarns = !v.hideWarns
			v.rebuild()
		case key.Matches(msg, k.Open):
			return v, v.open(false)
		case key.Matches(msg, v.keys.ShowLine):
			return v, v.open(true)
		}
	}
	return v, nil
}

// open returns the command that shows the selected problem: its entry in the
// document view, or its line in the raw view (always when byLine).
func (v problemsView) open(byLine bool) tea.Cmd {
	p := v.Selected()
	switch {
	case p == nil:
		return nil
	case !byLine && p.Entry >= 0:
		return ivCmd(jumpToEntryMsg{Index: p.Entry})
	case p.Line > 0:
		return ivCmd(showRawLineMsg{Line: p.Line})
	case byLine && p.Entry >= 0:
		return ivCmd(flashMsg{Text: "this problem has no line number: enter shows its entry"})
	}
	return ivCmd(flashMsg{Text: "this problem concerns the whole document: it has no entry or line"})
}

// View draws the counts, the visible rows and the selected problem's detail.
func (v problemsView) View() string {
	st := ivStyles(v.c)
	w := max(v.width, 1)
	lines := make([]string, 0, max(v.height, 1))
	lines = append(lines, ivFit(v.countsLine(st), w))

	h := v.listHeight()
	switch {
	case len(v.doc)+len(v.cross) == 0:
		lines = append(lines, st.OK.Render("✓ no problems found"))
	case v.sel < 0:
		lines = append(lines, st.Dim.Render("every problem is hidden: e shows errors, w warnings"))
	}
	ruleW, secW := v.columnWidths()
	for i := v.top; i < v.top+h && i < len(v.rows); i++ {
		r := v.rows[i]
		if r.p == nil {
			lines = append(lines, ivFit(st.Section.Render(r.heading), w))
			continue
		}
		lines = append(lines, v.problemLine(st, r.p, i == v.sel, ruleW, secW, w))
	}
	lines = ivWindow(lines, 0, 1+h)
	lines = append(lines, st.Dim.Render(strings.Repeat("─", w)))
	lines = append(lines, v.detail(st, w)...)
	return strings.Join(ivWindow(lines, 0, max(v.height, 1)), "\n")
}

func (v problemsView) countsLine(st viewStyles) string {
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
	errText := st.Error.Render(fmt.Sprintf("✗ %s", ivPlural(errs, "error", "errors")))
	warnText := st.Warning.Render(fmt.Sprintf("! %s", ivPlural(warns, "warning", "warnings")))
	if v.hideErrors {
		errText = st.Dim.Render(fmt.Sprintf("✗ %s (hidden)", ivPlural(errs, "error", "errors")))
	}
	if v.hideWarns {
		warnText = st.Dim.Render(fmt.Sprintf("! %s (hidden)", ivPlural(warns, "warning", "warnings")))
	}
	return st.Title.Render("Problems") + "  " + errText + "  " + warnText +
		st.Dim.Render("   e/w show or hide · enter go to entry · L raw line")
}

// columnWidths sizes the rule and section columns to the widest value on
// screen, within bounds, so that the cost does not grow with the list.
func (v problemsView) columnWidths() (int, int) {
	ruleW, secW := 4, 2
	for i := v.top; i < v.top+v.listHeight() && i < len(v.rows); i++ {
		if p := v.rows[i].p; p != nil {
			ruleW = max(ruleW, len(p.Rule))
			secW = max(secW, len(p.Section)+1)
		}
	}
	return min(ruleW, 30), min(secW, 6)
}

// problemWhere is the entry (1-based, as the document view numbers them) or
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

func severityMark(st viewStyles, s model.Severity) (string, string) {
	switch s {
	case model.SeverityError:
		return "✗", st.Error.Render("✗")
	case model.SeverityWarning:
		return "!", st.Warning.Render("!")
	}
	return "?", st.Dim.Render("?")
}

func (v problemsView) problemLine(st viewStyles, p *model.Problem, selected bool, ruleW, secW, w int) string {
	plainMark, mark := severityMark(st, p.Severity)
	where := fmt.Sprintf("%-11s", problemWhere(p))
	rule := ivPad(ivSanitize(p.Rule), ruleW)
	sec := ivPad("§"+ivSanitize(p.Section), secW)
	msg := ivSanitize(strings.Join(strings.Fields(p.Message), " "))
	if selected {
		return st.Selected.Render(ivPad("▸ "+plainMark+" "+where+" "+rule+" "+sec+" "+msg, w))
	}
	return ivFit("  "+mark+" "+st.Label.Render(where)+" "+st.Rel.Render(rule)+" "+st.Dim.Render(sec)+" "+st.Value.Render(msg), w)
}

// detail describes the selected problem: its rule and its whole message.
func (v problemsView) detail(st viewStyles, w int) []string {
	p := v.Selected()
	if p == nil {
		return nil
	}
	head := st.Rel.Render(ivSanitize(p.Rule)) + st.Dim.Render(fmt.Sprintf(" (§%s, %s)", ivSanitize(p.Section), p.Severity))
	if r, ok := model.RuleByID(p.Rule); ok && r.Summary != "" {
		head += " " + st.Explain.Render(ivSanitize(r.Summary))
	}
	if p.Line > 0 {
		head += st.Dim.Render(fmt.Sprintf(" · line %d", p.Line))
	}
	out := []string{ivFit(head, w)}
	msg := ivSanitize(strings.Join(strings.Fields(p.Message), " "))
	wrapped := strings.Split(ansi.Wrap(msg, max(w, 10), " /"), "\n")
	for i, l := range wrapped {
		if i == problemsDetailLines-2 && len(wrapped) > problemsDetailLines-1 {
			out = append(out, ivFit(st.Value.Render(l)+"…", w))
			break
		}
		out = append(out, ivFit(st.Value.Render(l), w))
	}
	return out
}
