package pages

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/dest/engine"
	"rsx/display"
	"rsx/session"
	"rsx/ui/common"
	"rsx/ui/components"
	"rsx/ui/nav"
)

// The audit page (:audit DIR): the copy in DIR against the open document's
// resources — same, missing, changed, extra, unannounced — each a list that
// / filters; enter opens a resource's view, and s plans a sync of what
// differs (the sync page, over this one), with the stray files the audit
// found: the plan moves them to the trash only once its delete toggle is
// on, and only when enter runs it.

// AuditBackend is what the page asks: the comparison.
type AuditBackend interface {
	AuditCopy(ctx context.Context, req session.AuditRequest) (*engine.AuditReport, error)
}

// auditCat is one of the report's lists.
type auditCat struct {
	name string
	uris []string
	note string // what it means
}

// Audit is the audit page.
type Audit struct {
	c    *common.Common
	b    AuditBackend
	req  session.AuditRequest
	what string
	open func(uri string) tea.Cmd // shows a resource's page over this one

	gen     int
	cancel  context.CancelFunc
	running bool
	started time.Time
	rep     *engine.AuditReport
	err     error
	// stale is set when a sync ran into the copy since the comparison
	// shown (s repairs, over this page): shown again (nav.Returner), the
	// page compares again.
	stale   bool
	noteMax int // lines per problem or warning of the summary (head)

	cats    []auditCat
	cat     int
	damaged map[string]bool
	unann   map[string]bool

	filterInput components.Input
	filtering   bool
	query       string
	shown       []int // indexes into the category's uris that the filter keeps

	list          components.List
	width, height int
}

// NewAudit returns the page; Init runs the comparison.
func NewAudit(c *common.Common, b AuditBackend, req session.AuditRequest, what string, open ResourceOpener) *Audit {
	return &Audit{c: c, b: b, req: req, what: what, open: open.orNone(), list: components.NewList(components.Select),
		filterInput: components.NewInput(c.Styles, "/ ")}
}

type auditedMsg struct {
	page *Audit
	gen  int
	rep  *engine.AuditReport
	err  error
}

func (v *Audit) Init() tea.Cmd { return v.start() }

// start runs the comparison (again) in a command.
func (v *Audit) start() tea.Cmd {
	if v.cancel != nil {
		v.cancel()
	}
	v.gen++
	gen := v.gen
	ctx, cancel := context.WithCancel(context.Background())
	v.cancel, v.running, v.err, v.started, v.stale = cancel, true, nil, v.c.Clock(), false
	b, req := v.b, v.req
	return func() tea.Msg {
		rep, err := b.AuditCopy(ctx, req)
		return auditedMsg{page: v, gen: gen, rep: rep, err: err}
	}
}

func (v *Audit) Title() string     { return "Audit" }
func (v *Audit) InputActive() bool { return v.filtering }
func (v *Audit) Busy() bool        { return v.running }

func (v *Audit) Close() {
	v.gen++
	if v.cancel != nil {
		v.cancel()
		v.cancel = nil
	}
}

// Returned compares again when the copy changed while a page over this
// one was shown (nav.Returner): the repair s planned ran.
func (v *Audit) Returned() tea.Cmd {
	if !v.stale || v.running {
		return nil
	}
	return v.start()
}

// Back clears the filter, or closes the page (cancelling a comparison).
func (v *Audit) Back() (bool, tea.Cmd) {
	if v.filtering || v.query != "" {
		v.filtering = false
		v.filterInput.Stop()
		v.setQuery("")
		return true, nil
	}
	return false, nil
}

func (v *Audit) SetSize(w, h int) {
	v.width, v.height = w, h
	v.filterInput.SetStyles(v.c.Styles)
	v.filterInput.SetWidth(max(w-20, 10))
	v.layout()
}

func (v *Audit) KeyBindings() []key.Binding {
	k := &v.c.Keys
	return []key.Binding{k.SyncDiffs, common.Pair(k.NextPane, k.PrevPane, "lists"), common.Short(k.Open, "open"),
		common.Short(k.Filter, "filter"), common.Short(k.Retry, "compare again"), k.Up, k.Down}
}

// HelpBindings are the page's keys that work just now (nav.KeyHelper):
// those of the report once it is there, compare again once it is done.
func (v *Audit) HelpBindings() []key.Binding {
	k := &v.c.Keys
	done := v.rep != nil
	n := len(v.shown)
	return append([]key.Binding{common.When(done, k.SyncDiffs), common.When(done, common.Pair(k.NextPane, k.PrevPane, "lists")),
		common.When(done && n > 0, common.Short(k.Open, "open")), common.When(done, common.Short(k.Filter, "filter")),
		common.When(!v.running, common.Short(k.Retry, "compare again"))}, k.MoveKeys(n > 1)...)
}

// headLines is how many lines the summary above the list takes.
func (v *Audit) headLines() int { return len(v.head(max(v.width, 1))) }

func (v *Audit) layout() {
	v.list.SetHeight(max(v.height-v.headLines(), 1))
	v.list.SetLen(len(v.shown))
}

func (v *Audit) Update(msg tea.Msg) (nav.Page, tea.Cmd) {
	switch msg := msg.(type) {
	case auditedMsg:
		if msg.page != v || msg.gen != v.gen {
			return v, nil
		}
		v.cancel, v.running = nil, false
		v.rep, v.err = msg.rep, msg.err
		if msg.rep != nil {
			v.fill()
		}
		v.layout()
		return v, nil
	case nav.CopyChangedMsg:
		if msg.Dest == v.req.Dest {
			v.stale = true
		}
		return v, nil
	case tea.KeyPressMsg:
		return v, v.key(msg)
	case tea.PasteMsg:
		if v.filtering && v.filterInput.Update(msg) {
			v.setQuery(v.filterInput.Value())
		}
	case tea.MouseWheelMsg:
		v.list.Update(msg, &v.c.Keys)
	}
	return v, nil
}

// fill makes the lists of the report.
func (v *Audit) fill() {
	r := v.rep
	v.damaged, v.unann = map[string]bool{}, map[string]bool{}
	for _, u := range r.Damaged {
		v.damaged[u] = true
	}
	for _, u := range r.Unannounced {
		v.unann[u] = true
	}
	v.cats = []auditCat{
		{"same", r.SameURIs, "the copy holds what the Source declares"},
		{"missing", r.Missing, "the copy lacks them: new at the Source, not copied yet, or the file is gone"},
		{"changed", r.Changed, "the copy differs from what the Source declares (changed at the Source, or damaged in the copy)"},
		{"extra", r.Extra, "in the copy, not at the Source any more, and stray files (in the Source's folders, owned by no resource)"},
		{"unannounced", r.Unannounced, "they differ, and no Change List since the copy's point announced a change"},
	}
	if r.Point.IsZero() {
		v.cats[len(v.cats)-1].note = "none without a point: what the copy missed may be older than the Change Lists read"
	}
	// The first list with something in it that differs, else same.
	v.cat = 0
	for i := 1; i < len(v.cats); i++ {
		if len(v.cats[i].uris) > 0 {
			v.cat = i
			break
		}
	}
	v.setQuery(v.query)
}

// setQuery filters the category's list by a text.
func (v *Audit) setQuery(q string) {
	v.query = q
	v.shown = v.shown[:0]
	lq := strings.ToLower(q)
	if v.cat < len(v.cats) {
		for i, u := range v.cats[v.cat].uris {
			if q == "" || strings.Contains(strings.ToLower(u), lq) {
				v.shown = append(v.shown, i)
			}
		}
	}
	v.list.SetLen(len(v.shown))
	v.list.Select(0)
}

func (v *Audit) key(msg tea.KeyPressMsg) tea.Cmd {
	k := &v.c.Keys
	if v.filtering {
		switch {
		case key.Matches(msg, k.Submit):
			v.filtering = false
			v.filterInput.Stop()
		case key.Matches(msg, k.Cancel):
			v.filtering = false
			v.filterInput.Stop()
			v.setQuery("")
		default:
			if v.filterInput.Update(msg) {
				v.setQuery(v.filterInput.Value())
			}
		}
		v.layout()
		return nil
	}
	switch {
	case key.Matches(msg, k.NextPane), key.Matches(msg, k.Right):
		v.switchCat(1)
		return nil
	case key.Matches(msg, k.PrevPane), key.Matches(msg, k.Left):
		v.switchCat(-1)
		return nil
	case key.Matches(msg, k.Filter):
		if v.rep != nil {
			v.filtering = true
			v.filterInput.Start(v.query)
			v.layout()
		}
		return nil
	case key.Matches(msg, k.Retry):
		if !v.running {
			return v.start()
		}
		return nil
	case key.Matches(msg, k.SyncDiffs):
		return v.syncDiffs()
	case key.Matches(msg, k.Open):
		u := v.selected()
		switch {
		case u == "":
			return nil
		case !strings.Contains(u, "://"):
			return nav.Flash(u+" is a file of the copy that no resource owns: there is no resource to open", false)
		}
		return v.open(u)
	}
	v.list.Update(msg, &v.c.Keys)
	return nil
}

// switchCat shows the next (dir 1) or previous list.
func (v *Audit) switchCat(dir int) {
	if len(v.cats) == 0 {
		return
	}
	v.cat = (v.cat + dir + len(v.cats)) % len(v.cats)
	v.setQuery(v.query)
	v.layout()
}

// selected is the resource (or file) under the cursor.
func (v *Audit) selected() string {
	c := v.list.Cursor()
	if v.cat >= len(v.cats) || c < 0 || c >= len(v.shown) {
		return ""
	}
	return v.cats[v.cat].uris[v.shown[c]]
}

// syncDiffs asks for a plan of a sync of what differs: the missing,
// changed and extra resources.
func (v *Audit) syncDiffs() tea.Cmd {
	r := v.rep
	if r == nil {
		return nil
	}
	only := []string{} // none: the plan only moves stray files
	for _, l := range [][]string{r.Missing, r.Changed, r.Extra} {
		for _, u := range l {
			if strings.Contains(u, "://") { // not a file no resource owns
				only = append(only, u)
			}
		}
	}
	slices.Sort(only)
	only = slices.Compact(only)
	strays := slices.Clone(r.Stray)
	if len(only) == 0 && len(strays) == 0 {
		return nav.Flash("nothing differs that a sync could change", false)
	}
	var what []string
	if len(only) > 0 {
		what = append(what, fmt.Sprintf("the %s the audit found different", display.Plural(len(only), "resource", "resources")))
	}
	if len(strays) > 0 {
		what = append(what, fmt.Sprintf("the %s it found (to the trash with deletions applied: d)", display.Plural(len(strays), "stray file", "stray files")))
	}
	return nav.Cmd(nav.SyncDiffsMsg{Req: session.SyncRequest{Dest: v.req.Dest, Target: v.req.Target, Only: only, Strays: strays}, What: strings.Join(what, ", and ")})
}

// ---------------------------------------------------------------------------
// View

// pointText says the copy's point: the datetime up to which every change
// was applied.
func (v *Audit) pointText(point time.Time) string {
	st := v.c.Styles
	if point.IsZero() {
		return st.Dim.Render("no point yet: no sync of this Source has finished")
	}
	return st.Dim.Render("every change applied up to ") + st.Value.Render(datetimeOr(point, ""))
}

// head is the summary above the lists: its problems and warnings wrapped,
// or one line each when wrapped they would leave the lists no room.
func (v *Audit) head(w int) []string {
	v.noteMax = maxNoteLines
	lines := v.summary(w)
	if v.height > 0 && len(lines) > v.height-minListRows {
		v.noteMax = 1
		lines = v.summary(w)
	}
	return lines
}

func (v *Audit) summary(w int) []string {
	st := v.c.Styles
	title := st.Title.Render("Audit") + "  " + st.URL.Render(components.Escape(v.req.Dest))
	lines := []string{title}
	kv := func(label, value string) string {
		return "  " + st.Label.Render(cellsOf(v.c).PadRight(label, 10)) + value
	}
	switch {
	case v.running || (v.rep == nil && v.err == nil):
		lines[0] += "  " + v.c.Spinner.View() + st.Dim.Render(" comparing: reading the Source, hashing the local copies…")
		lines = append(lines, "", kv("compares", st.Value.Render(components.Escape(v.what)))+st.Dim.Render("   esc cancels"))
		return lines
	case v.err != nil:
		lines = append(lines, "", kv("compares", st.Value.Render(components.Escape(v.what))), "", st.ErrorTitle.Render("  The copy could not be compared"))
		for _, l := range cellsOf(v.c).Wrap(components.Escape(v.err.Error()), max(w-4, 20)) {
			lines = append(lines, "  "+st.Error.Render(l))
		}
		if errors.Is(v.err, fs.ErrNotExist) {
			lines = append(lines, "", "  "+st.Value.Render("There is no copy there: :sync "+components.Escape(v.req.Dest)+" makes one."))
		}
		lines = append(lines, "", st.Dim.Render("  r compares again · esc closes"))
		return lines
	}
	r := v.rep
	differs := r.Differences() > 0
	switch {
	case v.stale:
		// Said before what it found: the copy changed since.
		lines[0] += "  " + st.Warning.Render("⟳ stale: a sync changed the copy since this comparison (r compares again)")
	case r.InSync():
		lines[0] += "  " + st.OK.Render("✓ in sync")
	case !r.Complete() && !differs:
		lines[0] += "  " + st.Warning.Render("! incomplete: not known to be in sync")
	case !r.Complete():
		lines[0] += "  " + st.Error.Render("✗ not in sync, and incomplete")
	default:
		lines[0] += "  " + st.Error.Render("✗ not in sync")
	}
	lines = append(lines, "",
		kv("Source", st.URL.Render(components.Escape(r.Source))),
		kv("compares", st.Value.Render(components.Escape(v.what))))
	if v.req.Only == nil && r.NotChosen == 0 && r.Complete() {
		// The whole Source: how many resources it has now, as rsx audit
		// --dest counts them, whatever the view the audit was asked from
		// lists (a Change List Index's changes are not its resources).
		// Not known when a document could not be read.
		n := r.Same + r.Len(engine.ListMissing) + r.Len(engine.ListChanged) + r.OutOfSelection()
		lines = append(lines, kv("", st.Value.Render(display.Plural(n, "resource", "resources"))+
			st.Dim.Render(" of the Source now: same, missing, changed or out of the copy's selection")))
	}
	lines = append(lines,
		// Three lines, not one cut at the edge before the copy's point.
		kv("against", st.Value.Render(components.Escape(r.Document))),
		kv("", st.Dim.Render("at ")+st.Value.Render(datetimeOr(r.At, "(none)"))+st.Dim.Render(", with the changes since")),
		kv("copy", v.pointText(r.Point)),
		kv("hashed", st.Value.Render(fmt.Sprintf("%s local copies (%s) in %s", components.Count(r.Hashed), display.Size(r.HashedBytes), r.Elapsed.Round(time.Millisecond)))))
	var notes []string
	if r.NotChosen > 0 {
		notes = append(notes, components.Count(r.NotChosen)+" other resources of the Source not compared")
	}
	if n := r.OutOfSelection(); n > 0 {
		notes = append(notes, components.Count(n)+" out of the copy's selection, not compared")
	}
	if r.PendingDeletes > 0 {
		notes = append(notes, components.Count(r.PendingDeletes)+" extra deleted at the Source, kept on purpose (a sync without --delete): not a difference")
	}
	if len(r.Damaged) > 0 {
		notes = append(notes, st.Error.Render(components.Count(len(r.Damaged))+" damaged in the copy"))
	}
	if len(notes) > 0 {
		lines = append(lines, "  "+st.Dim.Render(strings.Join(notes, " · ")))
	}
	if differs {
		// How to put it right: a sync of what differs reconciles those
		// resources with the Source (damaged and missing copies fetched
		// again), as rsx sync --mode baseline does for the whole copy.
		how := "s repairs: what is missing, damaged or changed is fetched again"
		if n := r.Len(engine.ListStray); n > 0 {
			how += "; " + display.Plural(n, "stray file goes", "stray files go") + " to the trash (DEST/.rsx/trash) when you turn deletions on (d) and run the plan"
		}
		lines = append(lines, noteLines(cellsOf(v.c), st.Dim, "·", how, w, v.noteMax)...)
	}
	if r.Protected > 0 {
		lines = append(lines, "  "+st.Dim.Render(display.Plural(r.Protected, "file", "files")+" kept by the protect list .rsxignore"))
	}
	if !r.Complete() {
		what := display.Plural(len(r.Problems), "document", "documents") + " of the Source could not be read: the audit is incomplete, and the lists hold for the documents read only"
		if r.NotCompared > 0 {
			what += "; " + display.Plural(r.NotCompared, "resource", "resources") + " of the copy that no document read lists are not compared (not called extra)"
		}
		lines = append(lines, noteLines(cellsOf(v.c), st.Error, "✗", what, w, v.noteMax)...)
	}
	for _, p := range r.Problems {
		msg := p.Error()
		if !strings.Contains(msg, p.URL) {
			msg = p.URL + ": " + msg
		}
		lines = append(lines, noteLines(cellsOf(v.c), st.Error, " ", components.Escape(msg), w, v.noteMax)...)
	}
	for _, wn := range r.Warnings {
		lines = append(lines, noteLines(cellsOf(v.c), st.Warning, "!", components.Escape(wn), w, v.noteMax)...)
	}
	// The lists, as tabs.
	var tabs []string
	for i, c := range v.cats {
		n := len(c.uris)
		if c.name == "same" {
			n = r.Same
		}
		label := fmt.Sprintf(" %s %s ", c.name, components.Count(n))
		switch {
		case i == v.cat:
			tabs = append(tabs, st.Selected.Render(label))
		case n == 0:
			tabs = append(tabs, st.Dim.Render(label))
		case c.name == "same":
			tabs = append(tabs, st.OK.Render(label))
		default:
			tabs = append(tabs, st.Error.Render(label))
		}
	}
	lines = append(lines, "", strings.Join(tabs, st.Dim.Render("│")))
	if v.cat < len(v.cats) {
		lines = append(lines, cellsOf(v.c).Fit("  "+st.Explain.Render(v.cats[v.cat].note), w))
	}
	switch {
	case v.filtering:
		lines = append(lines, v.filterInput.View()+st.Dim.Render(fmt.Sprintf("  %s of %s", components.Count(len(v.shown)), components.Count(len(v.cats[v.cat].uris)))))
	case v.query != "":
		lines = append(lines, "  "+st.StatusKey.Render(components.Escape(fmt.Sprintf("filter %q: %s of %s", v.query, components.Count(len(v.shown)), components.Count(len(v.cats[v.cat].uris)))))+st.Dim.Render("  esc clears"))
	}
	return lines
}

func (v *Audit) View() string {
	st := v.c.Styles
	w, h := max(v.width, 1), max(v.height, 1)
	lines := v.head(w)
	if len(lines) > h {
		lines = lines[:h]
	}
	if v.rep != nil && v.err == nil {
		room := h - len(lines)
		v.list.SetHeight(max(room, 1))
		origin := components.OriginOf(v.rep.Source)
		uris := v.cats[v.cat].uris
		if len(v.shown) == 0 {
			msg := "none"
			if v.query != "" {
				msg = "none matches the filter"
			}
			lines = append(lines, "  "+st.Dim.Render(msg))
		}
		off, cur := v.list.Offset(), v.list.Cursor()
		for y := 0; y < room && off+y < len(v.shown); y++ {
			pos := off + y
			u := uris[v.shown[pos]]
			text := components.Escape(components.DisplayLoc(origin, u))
			var tags []string
			if v.damaged[u] {
				tags = append(tags, "damaged in the copy")
			}
			if name := v.cats[v.cat].name; v.unann[u] && name != "unannounced" {
				tags = append(tags, "unannounced")
			}
			line := "  " + st.URL.Render(text)
			if len(tags) > 0 {
				line += "  " + st.Warning.Render(strings.Join(tags, ", "))
			}
			if pos == cur {
				plain := "▸ " + text
				if len(tags) > 0 {
					plain += "  " + strings.Join(tags, ", ")
				}
				line = st.Selected.Render(cellsOf(v.c).Pad(cellsOf(v.c).Fit(plain, w), w))
			}
			lines = append(lines, line)
		}
	}
	for i, l := range lines {
		lines[i] = cellsOf(v.c).Fit(l, w)
	}
	return strings.Join(lines, "\n")
}
