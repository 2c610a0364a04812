package pages

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"rsx/dest/engine"
	"rsx/dest/plan"
	"rsx/display"
	"rsx/model"
	"rsx/session"
	"rsx/ui/common"
	"rsx/ui/components"
	"rsx/ui/nav"
)

// The sync page (:sync DIR): the plan — what will be created, updated,
// deleted (only with the delete toggle: off, unless the request asks, as a
// fleet entry's delete = true does), left unchanged, the bytes, the
// destination, any gap in the Change Lists — with nothing written
// until enter; then the run's progress — an overall bar, counts, bytes,
// rate, time left, the resources in flight and the failures as they happen
// (esc asks, then stops cleanly); then the result — created, updated,
// deleted, failed with reasons, enter opening a resource's view and r
// retrying the failed ones. One page through the three stages, so that the
// destination's lock is held from the plan to the result and released when
// the page closes.

// SyncJob is what the page drives; *session.Sync is one.
type SyncJob interface {
	Request() session.SyncRequest
	Updates() <-chan session.SyncUpdate
	Plan(ctx context.Context, delete bool) (*session.SyncPlan, error)
	Run(ctx context.Context) (*engine.Result, error)
	Retry(ctx context.Context) (*engine.Result, error)
	CanRetry() bool
	Close() error
}

// syncStage is where the sync page is.
type syncStage uint8

const (
	syncPlanning syncStage = iota // reading the Source
	syncPlanned                   // the plan is shown: enter runs it
	syncRunning                   // the run goes on
	syncDone                      // the run ended: the result
	syncFailed                    // no plan could be made (err)
)

// maxFailuresShown bounds the failures kept while a run goes on (the
// result lists the engine's, which are bounded too).
const maxFailuresShown = 10000

// Sync is the sync page.
type Sync struct {
	c    *common.Common
	job  SyncJob
	what string                   // the entries chosen, in words
	of   string                   // the document synced from, when not the one open ("" when it is)
	open func(uri string) tea.Cmd // shows a resource's page over this one

	stage    syncStage
	gen      int
	cancel   context.CancelFunc
	confirm  bool // esc was pressed during the run: stop?
	stopping bool // stop confirmed: the run is winding down
	err      error
	retrying bool // the run is a retry of the failures
	noteMax  int  // lines per note of the summary (head)

	delete   bool
	plan     *session.SyncPlan
	prog     engine.Progress
	reading  engine.Progress // the last report while planning
	failures []engine.Failure
	failN    int
	result   *engine.Result

	rows []syncRow // the list under the summary
	list components.List

	width, height int
	headH         int // lines above the list in the last layout
}

// syncRow is a line of the list: a resource (uri) and how it is drawn.
type syncRow struct {
	uri  string
	draw func(w int) string
}

// NewSync returns the page of job; Init plans.
func NewSync(c *common.Common, job SyncJob, what string, open ResourceOpener) *Sync {
	// The delete toggle starts as the request asks (a fleet entry's delete
	// = true).
	return &Sync{c: c, job: job, what: what, open: open.orNone(), list: components.NewList(components.Select), delete: job.Request().Delete}
}

// Messages of the page's commands; each carries the page and the
// generation of the work, so that late results are dropped.
type (
	syncPlannedMsg struct {
		page *Sync
		gen  int
		plan *session.SyncPlan
		err  error
	}
	syncUpdateMsg struct {
		page *Sync
		gen  int
		u    session.SyncUpdate
		next tea.Cmd
	}
	syncRanMsg struct {
		page *Sync
		gen  int
		res  *engine.Result
		err  error
	}
)

func (v *Sync) Init() tea.Cmd { return v.startPlan() }

func (v *Sync) Title() string {
	switch v.stage {
	case syncRunning:
		return "Syncing"
	case syncDone:
		return "Sync result"
	}
	return "Sync plan"
}

func (v *Sync) InputActive() bool { return false }
func (v *Sync) Busy() bool        { return v.stage == syncPlanning || v.stage == syncRunning }

// LeaveGuard keeps the root from navigating away while the run goes on.
func (v *Sync) LeaveGuard() string {
	if v.stage == syncRunning {
		return "a sync into " + v.job.Request().Dest + " is running: esc stops it (it asks first)"
	}
	return ""
}

// Back is esc: during the run it asks whether to stop (and again, goes
// on); otherwise the page closes (a plan being made is cancelled).
func (v *Sync) Back() (bool, tea.Cmd) {
	if v.stage != syncRunning {
		return false, nil
	}
	if v.stopping {
		return true, nil
	}
	v.confirm = !v.confirm
	v.layout()
	return true, nil
}

// Close cancels the work and releases the destination.
func (v *Sync) Close() {
	v.gen++
	if v.cancel != nil {
		v.cancel()
		v.cancel = nil
	}
	v.job.Close()
}

func (v *Sync) SetSize(w, h int) {
	v.width, v.height = w, h
	v.layout()
}

// KeyBindings are the page's keys; those of other stages are disabled
// (the help lists them all, the footer only those that work now).
func (v *Sync) KeyBindings() []key.Binding {
	k := &v.c.Keys
	run := common.Short(k.Open, "run the sync")
	del := k.DeleteToggle
	stop := common.Short(k.ConfirmStop, "stop the sync")
	goOn := common.Short(k.Cancel, "go on")
	askStop := common.Short(k.Cancel, "stop the sync (asks first)")
	open := common.Short(k.Open, "open the resource")
	retry := common.Short(k.Retry, "retry the failed ones")
	replan := common.Short(k.Retry, "plan again")
	for _, b := range []*key.Binding{&run, &del, &stop, &goOn, &askStop, &open, &retry, &replan} {
		b.SetEnabled(false)
	}
	switch {
	case v.stage == syncPlanned:
		run.SetEnabled(v.plan != nil && v.plan.Gap == nil)
		del.SetEnabled(true)
	case v.stage == syncRunning && v.confirm:
		stop.SetEnabled(true)
		goOn.SetEnabled(true)
	case v.stage == syncRunning:
		askStop.SetEnabled(true)
	case v.stage == syncDone:
		open.SetEnabled(len(v.rows) > 0)
		retry.SetEnabled(v.job.CanRetry())
	case v.stage == syncFailed:
		replan.SetEnabled(true)
	}
	return []key.Binding{run, del, askStop, stop, goOn, open, retry, replan, k.Up, k.Down}
}

// HelpBindings are the page's keys that work just now (nav.KeyHelper):
// the footer's, and moving when the list has rows to move through.
func (v *Sync) HelpBindings() []key.Binding {
	bs := v.KeyBindings()
	return append(bs[:len(bs)-2], v.c.Keys.MoveKeys(len(v.rows) > 1)...)
}

// startPlan plans (again) in a command.
func (v *Sync) startPlan() tea.Cmd {
	v.gen++
	gen := v.gen
	ctx, cancel := context.WithCancel(context.Background())
	v.cancel = cancel
	v.stage, v.err, v.plan, v.reading = syncPlanning, nil, nil, engine.Progress{}
	v.rows = nil
	v.layout()
	job, del := v.job, v.delete
	done := make(chan struct{})
	plan := func() tea.Msg {
		defer close(done)
		p, err := job.Plan(ctx, del)
		return syncPlannedMsg{page: v, gen: gen, plan: p, err: err}
	}
	return tea.Batch(plan, v.waitUpdates(gen, done))
}

// startRun runs the plan (retry: the failures of the last run) in a
// command.
func (v *Sync) startRun(retry bool) tea.Cmd {
	v.drainUpdates()
	v.gen++
	gen := v.gen
	ctx, cancel := context.WithCancel(context.Background())
	v.cancel = cancel
	v.stage, v.confirm, v.stopping, v.retrying, v.err = syncRunning, false, false, retry, nil
	v.failures, v.failN = nil, 0
	v.prog = engine.Progress{Phase: engine.PhaseSyncing}
	if retry && v.result != nil {
		v.prog.Total = len(v.result.Failed)
	} else if v.plan != nil {
		v.prog.Total, v.prog.TotalBytes = v.plan.Summary.Work(), v.plan.Summary.Bytes
	}
	v.result = nil
	v.rows = nil
	v.layout()
	job := v.job
	done := make(chan struct{})
	run := func() tea.Msg {
		defer close(done)
		var res *engine.Result
		var err error
		if retry {
			res, err = job.Retry(ctx)
		} else {
			res, err = job.Run(ctx)
		}
		return syncRanMsg{page: v, gen: gen, res: res, err: err}
	}
	return tea.Batch(run, v.waitUpdates(gen, done))
}

// waitUpdates listens for the job's progress until done is closed; it is
// armed again after each report.
func (v *Sync) waitUpdates(gen int, done <-chan struct{}) tea.Cmd {
	ch := v.job.Updates()
	var wait tea.Cmd
	wait = func() tea.Msg {
		select {
		case u := <-ch:
			return syncUpdateMsg{page: v, gen: gen, u: u, next: wait}
		case <-done:
			select {
			case u := <-ch: // the last report, with the last failures
				return syncUpdateMsg{page: v, gen: gen, u: u}
			default:
				return nil
			}
		}
	}
	return wait
}

// drainUpdates drops a report left from the work before.
func (v *Sync) drainUpdates() {
	select {
	case <-v.job.Updates():
	default:
	}
}

func (v *Sync) Update(msg tea.Msg) (nav.Page, tea.Cmd) {
	switch msg := msg.(type) {
	case syncPlannedMsg:
		if msg.page != v || msg.gen != v.gen {
			return v, nil
		}
		v.cancel = nil
		if msg.err != nil {
			v.stage, v.err = syncFailed, msg.err
		} else {
			v.stage, v.plan = syncPlanned, msg.plan
			v.planRows()
		}
		v.layout()
		return v, nil
	case syncUpdateMsg:
		if msg.page != v || msg.gen != v.gen {
			return v, nil
		}
		v.progressed(msg.u)
		return v, msg.next
	case syncRanMsg:
		if msg.page != v || msg.gen != v.gen {
			return v, nil
		}
		v.cancel = nil
		v.stage, v.confirm, v.stopping = syncDone, false, false
		v.result, v.err = msg.res, msg.err
		v.resultRows()
		v.layout()
		return v, nav.Cmd(nav.CopyChangedMsg{Dest: v.job.Request().Dest})
	case tea.KeyPressMsg:
		return v, v.key(msg)
	case tea.MouseWheelMsg:
		v.list.Update(msg, &v.c.Keys)
	}
	return v, nil
}

// progressed takes a report of the job.
func (v *Sync) progressed(u session.SyncUpdate) {
	switch v.stage {
	case syncPlanning:
		if u.Progress.Phase == engine.PhaseReading {
			v.reading = u.Progress
		}
		return
	case syncRunning:
	default:
		return
	}
	if u.Progress.Phase != engine.PhaseReading {
		v.prog = u.Progress
	}
	for _, f := range u.Failures {
		v.failN++
		if len(v.failures) < maxFailuresShown {
			v.failures = append(v.failures, f)
		}
	}
	v.runRows()
	v.layout()
}

func (v *Sync) key(msg tea.KeyPressMsg) tea.Cmd {
	k := &v.c.Keys
	switch v.stage {
	case syncPlanned:
		switch {
		case key.Matches(msg, k.Open):
			if v.plan == nil {
				return nil
			}
			if v.plan.Gap != nil {
				return nav.Flash("a gap in the Change Lists: nothing can be applied (rsx sync --mode baseline makes a new baseline)", true)
			}
			return v.startRun(false)
		case key.Matches(msg, k.DeleteToggle):
			v.delete = !v.delete
			return v.startPlan()
		}
	case syncRunning:
		if v.confirm && key.Matches(msg, k.ConfirmStop) {
			v.confirm, v.stopping = false, true
			if v.cancel != nil {
				v.cancel()
			}
			v.layout()
			return nil
		}
		if v.confirm && msg.String() == "n" {
			v.confirm = false
			v.layout()
			return nil
		}
	case syncDone:
		switch {
		case key.Matches(msg, k.Open):
			if c := v.list.Cursor(); c >= 0 && c < len(v.rows) {
				return v.open(v.rows[c].uri)
			}
			return nil
		case key.Matches(msg, k.Retry):
			if !v.job.CanRetry() {
				return nav.Flash("nothing to retry: no failure can be fetched again (a stopped sync continues when planned again)", false)
			}
			return v.startRun(true)
		}
	case syncFailed:
		if key.Matches(msg, k.Retry) {
			return v.startPlan()
		}
	}
	v.list.Update(msg, &v.c.Keys)
	return nil
}

// ---------------------------------------------------------------------------
// Rows of the list

// shortURI shows a resource from its path when it is on the Source's host.
func (v *Sync) shortURI(uri string) string {
	origin := ""
	if v.plan != nil {
		origin = components.OriginOf(v.plan.Source)
	}
	return components.Escape(components.DisplayLoc(origin, uri))
}

// actionCell is a decision in a few cells, coloured.
func actionCell(cells components.Cells, st *common.Styles, a plan.Action) string {
	switch a {
	case plan.Create:
		return st.Created.Render("create ")
	case plan.Update:
		return st.Updated.Render("update ")
	case plan.Delete:
		return st.Deleted.Render("delete ")
	case plan.PendingDelete:
		return st.Dim.Render("pending")
	}
	return st.Dim.Render(cells.Pad(a.String(), 7))
}

// itemSize is the declared length of an item to fetch.
func itemSize(it *engine.Item) string {
	if it.Action != plan.Create && it.Action != plan.Update {
		return ""
	}
	if it.Entry.Length < 0 {
		return "?"
	}
	return display.Size(it.Entry.Length)
}

func (v *Sync) planRows() {
	st := v.c.Styles
	v.rows = v.rows[:0]
	if v.plan == nil {
		return
	}
	for i := range v.plan.Items {
		it := &v.plan.Items[i]
		v.rows = append(v.rows, syncRow{uri: it.Entry.URI, draw: func(w int) string {
			size := cellsOf(v.c).PadLeft(itemSize(it), 9)
			uriW := max(w-7-1-9-2-24, 20)
			return actionCell(cellsOf(v.c), st, it.Action) + " " + st.URL.Render(cellsOf(v.c).Cell(v.shortURI(it.Entry.URI), uriW, false, components.TruncMiddle)) +
				" " + st.Value.Render(size) + "  " + st.Dim.Render(components.Escape(it.Reason))
		}})
	}
	if v.plan.StrayLooked && v.plan.DeletesHeld == 0 {
		for _, path := range v.plan.Strays {
			v.rows = append(v.rows, syncRow{draw: func(w int) string {
				return st.Deleted.Render("trash  ") + " " + st.URL.Render(cellsOf(v.c).Cell(components.Escape(path), max(w-8, 20), false, components.TruncMiddle))
			}})
		}
	}
	v.list.SetLen(len(v.rows))
	v.list.Select(0)
}

// trashLine says what the plan does with stray files: those it moves to
// the trash (deletions applied), or those an audit found that stay until
// deletions are turned on.
func (v *Sync) trashLine() string {
	st, p := v.c.Styles, v.plan
	label := "  " + st.Label.Render("trash     ")
	switch n := p.Summary.Trash; {
	case p.StrayLooked && p.DeletesHeld > 0:
		return label + st.Error.Render(fmt.Sprintf("held: %s would go", display.Plural(p.DeletesHeld, "deletion", "deletions")))
	case p.StrayLooked && n > 0:
		return label + st.Deleted.Render(display.Plural(n, "stray file", "stray files")+" move to DEST/.rsx/trash") + st.Dim.Render(" when enter runs the plan (d: keep them)")
	case p.StrayLooked && len(v.job.Request().Strays) > 0:
		return label + st.Dim.Render("none of the stray files the audit found is stray any more")
	case !p.Delete && len(v.job.Request().Strays) > 0:
		return label + st.Value.Render("off") + st.Dim.Render(": "+display.Plural(len(v.job.Request().Strays), "stray file", "stray files")+" the audit found stay (d moves them to the trash)")
	}
	return ""
}

func (v *Sync) runRows() {
	st := v.c.Styles
	v.rows = v.rows[:0]
	for i := range v.failures {
		f := &v.failures[i]
		v.rows = append(v.rows, syncRow{uri: f.URL, draw: func(int) string { return v.failureLine(f) }})
	}
	for _, u := range v.prog.InFlight {
		v.rows = append(v.rows, syncRow{uri: u, draw: func(int) string {
			return st.Dim.Render("↓ ") + st.URL.Render(v.shortURI(u))
		}})
	}
	v.list.SetLen(len(v.rows))
}

func (v *Sync) failureLine(f *engine.Failure) string {
	st := v.c.Styles
	// The reason, without the URL it often begins with (it is on the line).
	why := strings.TrimPrefix(f.Error(), f.URL+": ")
	return st.Error.Render("✗ ") + st.URL.Render(v.shortURI(f.URL)) + st.Dim.Render("  "+string(f.Kind)+"  ") + st.Error.Render(components.Escape(why))
}

func (v *Sync) resultRows() {
	st := v.c.Styles
	v.rows = v.rows[:0]
	failed := map[string]bool{}
	if r := v.result; r != nil {
		for i := range r.Failed {
			f := &r.Failed[i]
			failed[f.URL] = true
			v.rows = append(v.rows, syncRow{uri: f.URL, draw: func(int) string { return v.failureLine(f) }})
		}
	}
	if v.plan != nil && !v.retrying && v.result != nil && v.result.Stopped == "" {
		for i := range v.plan.Items {
			it := &v.plan.Items[i]
			if failed[it.Entry.URI] {
				continue
			}
			v.rows = append(v.rows, syncRow{uri: it.Entry.URI, draw: func(w int) string {
				return st.OK.Render("✓ ") + actionCell(cellsOf(v.c), st, it.Action) + " " + st.URL.Render(v.shortURI(it.Entry.URI)) + "  " + st.Dim.Render(itemSize(it))
			}})
		}
	}
	v.list.SetLen(len(v.rows))
	v.list.Select(0)
}

// ---------------------------------------------------------------------------
// View

// layout sizes the list below the summary.
func (v *Sync) layout() {
	v.headH = len(v.head(max(v.width, 1)))
	v.list.SetHeight(max(v.height-v.headH, 1))
	v.list.SetLen(len(v.rows))
}

func (v *Sync) View() string {
	w, h := max(v.width, 1), max(v.height, 1)
	lines := v.head(w)
	if len(lines) > h {
		lines = lines[:h]
	}
	room := h - len(lines)
	v.list.SetHeight(max(room, 1))
	off, cur := v.list.Offset(), v.list.Cursor()
	for y := 0; y < room; y++ {
		i := off + y
		if i >= len(v.rows) {
			break
		}
		line := cellsOf(v.c).Fit("  "+v.rows[i].draw(w-2), w)
		if i == cur && v.stage == syncDone {
			// One style for the whole row: the cells' own are taken off.
			line = v.c.Styles.Selected.Render(cellsOf(v.c).Pad(cellsOf(v.c).Fit("▸ "+ansi.Strip(v.rows[i].draw(w-2)), w), w))
		}
		lines = append(lines, line)
	}
	for i, l := range lines {
		lines[i] = cellsOf(v.c).Fit(l, w)
	}
	return strings.Join(lines, "\n")
}

// head is the summary above the list, by stage: its notes wrapped, or one
// line each when wrapped they would leave the list no room.
func (v *Sync) head(w int) []string {
	v.noteMax = maxNoteLines
	lines := v.stageHead(w)
	if v.height > 0 && len(lines) > v.height-minListRows {
		v.noteMax = 1
		lines = v.stageHead(w)
	}
	return lines
}

func (v *Sync) stageHead(w int) []string {
	switch v.stage {
	case syncPlanning:
		return v.planningHead()
	case syncFailed:
		return v.failedHead(w)
	case syncPlanned:
		return v.planHead(w)
	case syncRunning:
		return v.runHead(w)
	}
	return v.resultHead(w)
}

// Of names the document the sync copies from when it is not the one open
// (the Capability List selected in a Source Description): every stage's
// title names it.
func (v *Sync) Of(doc string) { v.of = doc }

// titleLine is the stage's title, what it syncs from (when not the
// document open) and the destination.
func (v *Sync) titleLine(title string) string {
	st := v.c.Styles
	if v.of != "" {
		title += " of " + v.of
	}
	return st.Title.Render(components.Escape(title)) + st.Dim.Render("  → ") + st.URL.Render(components.Escape(v.job.Request().Dest))
}

func (v *Sync) kv(label, value string) string {
	st := v.c.Styles
	return "  " + st.Label.Render(cellsOf(v.c).PadRight(label, 10)) + value
}

func (v *Sync) planningHead() []string {
	st := v.c.Styles
	r := v.reading
	lines := []string{v.titleLine("Sync plan"), "",
		v.kv("chosen", st.Value.Render(components.Escape(v.what))),
		v.kv("reading", v.c.Spinner.View()+" "+st.Value.Render(fmt.Sprintf("the Source's documents: %s read, %s entries",
			components.Count(r.Documents), components.Count(int(r.Entries))))),
		"", st.Dim.Render("  Nothing is written while the plan is made. esc cancels."),
	}
	return lines
}

func (v *Sync) failedHead(w int) []string {
	st := v.c.Styles
	lines := []string{v.titleLine("Sync plan"), "", v.kv("chosen", st.Value.Render(components.Escape(v.what))), ""}
	lines = append(lines, st.ErrorTitle.Render("  No plan could be made"))
	for _, l := range cellsOf(v.c).Wrap(components.Escape(v.err.Error()), max(w-4, 20)) {
		lines = append(lines, "  "+st.Error.Render(l))
	}
	lines = append(lines, "", st.Dim.Render("  r plans again · esc closes"))
	return lines
}

// describeRead says what the plan reads, in words.
func describeRead(p *engine.Plan) string {
	what := "the Resource List"
	if p.From == engine.FromDump {
		what = "the Resource Dump"
	}
	if p.Mode == engine.ModeIncremental {
		what = "the Change Lists"
		if p.From == engine.FromDump {
			what = "the Change Dump"
		}
		return fmt.Sprintf("an incremental sync: %s after %s", what, datetimeOr(p.Point, "the start"))
	}
	return fmt.Sprintf("a baseline: %s at %s", what, datetimeOr(p.At, "an unknown time"))
}

func datetimeOr(t time.Time, none string) string {
	if t.IsZero() {
		return none
	}
	return model.FormatDatetime(t)
}

func (v *Sync) planHead(w int) []string {
	st := v.c.Styles
	p := v.plan
	s := p.Summary
	lines := []string{v.titleLine("Sync plan") + st.Dim.Render("  nothing is written until enter"), "",
		v.kv("Source", st.URL.Render(components.Escape(p.Source))),
		v.kv("reads", st.Value.Render(components.Escape(describeRead(p.Plan)))),
		v.kv("", st.URL.Render(components.Escape(p.Document))),
		v.kv("chosen", st.Value.Render(components.Escape(v.what))),
		v.kv("into", st.URL.Render(components.Escape(p.Dest))),
		"",
	}
	bytes := display.Size(s.Bytes)
	if s.UnknownBytes > 0 {
		bytes += " + " + display.Plural(s.UnknownBytes, "of unknown length", "of unknown length")
	}
	counts := "  " + st.Created.Render(fmt.Sprintf("+ %s create", components.Count(s.Create))) + "  " +
		st.Updated.Render(fmt.Sprintf("~ %s update", components.Count(s.Update))) + "  " +
		st.Deleted.Render(fmt.Sprintf("− %s delete", components.Count(s.Delete))) + "  " +
		st.Dim.Render(fmt.Sprintf("= %s unchanged", components.Count(s.Unchanged))) + st.Dim.Render("  · ") +
		st.Value.Render(bytes+" to fetch")
	lines = append(lines, counts)
	del := "  " + st.Label.Render("deletions ")
	if p.Delete {
		del += st.Deleted.Render("applied") + st.Dim.Render(" (d: only remember them)")
	} else {
		del += st.Value.Render("off")
		if s.PendingDelete > 0 {
			del += st.Dim.Render(fmt.Sprintf(": %s remembered, not applied", components.Count(s.PendingDelete)))
		}
		del += st.Dim.Render(" (d applies them)")
	}
	lines = append(lines, del)
	if l := v.trashLine(); l != "" {
		lines = append(lines, l)
	}
	if p.Reconcile {
		// The copy's files were checked, not only the state.
		rc := "  " + st.Label.Render("reconcile ") + st.Value.Render(display.Plural(s.Checked, "file", "files")+" of the copy checked")
		if s.Hashed > 0 {
			rc += st.Dim.Render(fmt.Sprintf(" (%s hashed, %s)", components.Count(s.Hashed), display.Size(s.HashedBytes)))
		}
		if s.Repair > 0 {
			rc += st.Dim.Render(", ") + st.Warning.Render(components.Count(s.Repair)+" missing or damaged") + st.Dim.Render(": fetched again")
		} else {
			rc += st.Dim.Render(", all as recorded")
		}
		lines = append(lines, rc)
	}
	var left []string
	if s.NotChosen > 0 {
		left = append(left, components.Count(s.NotChosen)+" not chosen")
	}
	if s.Excluded > 0 {
		left = append(left, components.Count(s.Excluded)+" left out by the copy's selection")
	}
	if s.Refused > 0 {
		left = append(left, components.Count(s.Refused)+" refused")
	}
	if s.Vanished > 0 {
		left = append(left, components.Count(s.Vanished)+" created and deleted since")
	}
	if len(left) > 0 {
		lines = append(lines, "  "+st.Dim.Render(strings.Join(left, " · ")))
	}
	if p.Gap != nil {
		lines = append(lines, noteLines(cellsOf(v.c), st.Error, "✗", "gap: "+components.Escape(p.Gap.String())+": nothing is applied; a new baseline is needed", w, v.noteMax)...)
	}
	for _, pr := range p.Problems {
		lines = append(lines, noteLines(cellsOf(v.c), st.Error, "✗", components.Escape(pr.Error()), w, v.noteMax)...)
	}
	for _, wn := range p.Warnings {
		lines = append(lines, noteLines(cellsOf(v.c), st.Warning, "!", components.Escape(wn), w, v.noteMax)...)
	}
	for _, n := range p.Notes {
		lines = append(lines, noteLines(cellsOf(v.c), st.Dim, "·", components.Escape(n), w, v.noteMax)...)
	}
	trash := 0
	if p.StrayLooked && p.DeletesHeld == 0 {
		trash = s.Trash
	}
	title := fmt.Sprintf("What will change (%s)", components.Count(len(p.Items)+p.More+trash))
	if p.More > 0 {
		title += fmt.Sprintf(", the first %s", components.Count(len(p.Items)))
	}
	if len(p.Items) == 0 && trash == 0 {
		title = "Nothing to change"
	}
	lines = append(lines, "", st.Section.Render(title))
	return lines
}

// maxNoteLines bounds the lines of one problem, warning or note in the
// summary of the sync and audit pages; minListRows is the room the summary
// leaves for the list under it: when the wrapped notes would take it, each
// note gets one line (cut at the edge) instead.
const (
	maxNoteLines = 3
	minListRows  = 6
)

// noteLines renders a problem, warning or note of a summary as "  ✗ text",
// wrapped to w cells under its text (not cut at the edge of an 80-column
// terminal, where the reason was lost), in at most maxLines lines, the
// last one ending with … when the text goes on.
func noteLines(cells components.Cells, style lipgloss.Style, mark, text string, w, maxLines int) []string {
	const indent = "    "
	maxLines = max(maxLines, 1)
	wrapped := cells.Wrap(text, max(w-len(indent), 10))
	if len(wrapped) > maxLines {
		rest := strings.Join(wrapped[maxLines-1:], " ")
		wrapped = append(wrapped[:maxLines-1], cells.Fit(rest, max(w-len(indent), 10)))
		if !strings.HasSuffix(wrapped[len(wrapped)-1], "…") {
			wrapped[len(wrapped)-1] += "…"
		}
	}
	out := make([]string, len(wrapped))
	for i, l := range wrapped {
		lead := indent
		if i == 0 {
			lead = "  " + mark + " "
		}
		out[i] = cells.Fit(style.Render(lead+l), w)
	}
	return out
}

// rate writes a rate per second.
func rate(n float64, unit string) string {
	if n <= 0 {
		return "–"
	}
	if unit == "B" {
		return display.Size(int64(n)) + "/s"
	}
	if n < 10 {
		return fmt.Sprintf("%.1f %s/s", n, unit)
	}
	return fmt.Sprintf("%.0f %s/s", n, unit)
}

func (v *Sync) runHead(w int) []string {
	st := v.c.Styles
	p := v.prog
	title := "Syncing"
	if v.retrying {
		title = "Syncing again the failed ones"
	}
	lines := []string{v.titleLine(title), "", v.kv("chosen", st.Value.Render(components.Escape(v.what))), ""}
	frac := 0.0
	if p.Total > 0 {
		frac = float64(p.Done) / float64(p.Total)
	}
	pct := fmt.Sprintf(" %3d%%", int(frac*100))
	lines = append(lines, "  "+components.Bar(st, frac, max(w-4-len(pct), 10))+st.Value.Render(pct))
	counts := st.Value.Render(fmt.Sprintf("%s of %s resources", components.Count(p.Done), components.Count(p.Total)))
	if p.Failed > 0 {
		counts += st.Dim.Render(" · ") + st.Error.Render(components.Count(p.Failed)+" failed")
	}
	lines = append(lines, "  "+counts)
	bytes := display.Size(p.Bytes)
	if p.TotalBytes > 0 {
		bytes += " of " + display.Size(p.TotalBytes)
	}
	lines = append(lines, "  "+st.Value.Render(bytes)+st.Dim.Render(" · ")+st.Value.Render(rate(p.Rate, "resources"))+st.Dim.Render(" · ")+st.Value.Render(rate(p.ByteRate, "B")))
	left := "–"
	if p.Remaining > 0 {
		left = "about " + p.Remaining.Round(time.Second).String()
	}
	lines = append(lines, "  "+st.Label.Render("elapsed ")+st.Value.Render(p.Elapsed.Round(time.Second).String())+st.Dim.Render(" · ")+st.Label.Render("left ")+st.Value.Render(left))
	switch {
	case v.stopping:
		lines = append(lines, "", "  "+v.c.Spinner.View()+st.Warning.Render(" stopping: what is written is recorded; the next sync continues from there"))
	case v.confirm:
		lines = append(lines, "", "  "+st.Warning.Render("Stop the sync? ")+st.Value.Render("y/enter")+st.Dim.Render(" stops (what is done is kept, the next sync continues) · ")+
			st.Value.Render("n/esc")+st.Dim.Render(" goes on"))
	default:
		lines = append(lines, "", st.Dim.Render("  esc stops the sync (it asks first); the explorer stays where it is until then"))
	}
	lines = append(lines, "", st.Section.Render(fmt.Sprintf("Failures (%s)", components.Count(v.failN)))+st.Dim.Render(", then ")+
		st.Section.Render(fmt.Sprintf("in flight (%s)", display.Count(len(p.InFlight)))))
	return lines
}

func (v *Sync) resultHead(w int) []string {
	st := v.c.Styles
	r := v.result
	if r == nil {
		msg := "the run could not start"
		if v.err != nil {
			msg += ": " + v.err.Error()
		}
		return []string{v.titleLine("Sync result"), "", "  " + st.Error.Render("✗ "+components.Escape(msg))}
	}
	var problems []engine.Failure
	var gap *plan.Gap
	if r.Plan != nil {
		problems, gap = r.Plan.Problems, r.Plan.Gap
	}
	verdict := st.OK.Render("✓ done")
	switch {
	case r.Stopped != "":
		verdict = st.Warning.Render("stopped: " + components.Escape(r.Stopped))
	case r.FailedCount > 0:
		verdict = st.Error.Render("✗ " + display.Plural(r.FailedCount, "failure", "failures"))
	case gap != nil:
		verdict = st.Error.Render("✗ a gap in the Change Lists")
	case len(problems) > 0:
		// Not "✗ 0 failures": every resource went well, but some of the
		// Source's documents could not be used.
		verdict = st.Error.Render("✗ " + display.Plural(len(problems), "document", "documents") + " of the Source could not be used")
	}
	lines := []string{v.titleLine("Sync result") + "  " + verdict, "", v.kv("chosen", st.Value.Render(components.Escape(v.what))), ""}
	counts := "  " + st.Created.Render(components.Count(r.Created)+" created") + st.Dim.Render(" · ") +
		st.Updated.Render(components.Count(r.Updated)+" updated") + st.Dim.Render(" · ") +
		st.Deleted.Render(components.Count(r.Deleted)+" deleted") + st.Dim.Render(" · ")
	if r.FailedCount > 0 {
		counts += st.Error.Render(components.Count(r.FailedCount) + " failed")
	} else {
		counts += st.Dim.Render("0 failed")
	}
	if r.Plan != nil {
		counts += st.Dim.Render(" · " + components.Count(r.Plan.Summary.Unchanged) + " unchanged")
	}
	lines = append(lines, counts)
	secs := r.Elapsed.Seconds()
	speed := ""
	if n := r.Created + r.Updated + r.Deleted; secs > 0 && n > 0 {
		speed = " (" + rate(float64(n)/secs, "resources") + ")"
	}
	lines = append(lines, "  "+st.Value.Render(display.Size(r.Bytes)+" written in "+r.Elapsed.Round(time.Millisecond).String())+st.Dim.Render(speed))
	var notes []string
	if r.Adopted > 0 {
		notes = append(notes, fmt.Sprintf("%s of the created were already in place, verified and kept", components.Count(r.Adopted)))
	}
	if r.Pending > 0 {
		notes = append(notes, display.Plural(r.Pending, "deletion remembered", "deletions remembered")+" (apply them with the delete toggle, d, on the plan)")
	}
	if r.Trashed > 0 {
		notes = append(notes, display.Plural(r.Trashed, "stray file", "stray files")+" moved to the trash, "+r.TrashFolder+" (rsx trash lists and empties it)")
	}
	if r.BackOffs > 0 {
		notes = append(notes, fmt.Sprintf("the Source pushed back %s: fewer resources were fetched at once", display.Plural(r.BackOffs, "time", "times")))
	}
	switch {
	case r.Finished:
		notes = append(notes, "the copy is current up to "+datetimeOr(r.SyncedUntil, "now"))
	case r.Stopped != "" || r.FailedCount > 0:
		notes = append(notes, "the copy is not finished: the next sync continues where this one stopped")
	case gap != nil || len(problems) > 0:
		notes = append(notes, "the copy is not finished: what could be read was applied; the next sync tries the rest again")
	}
	if r.Plan != nil && r.Plan.Limited > 0 {
		notes = append(notes, "a sync of chosen resources: the rest of the Source is left for a full sync")
	}
	if gap != nil {
		lines = append(lines, noteLines(cellsOf(v.c), st.Error, "✗", "gap: "+components.Escape(gap.String()), w, v.noteMax)...)
	}
	for _, pr := range problems {
		lines = append(lines, noteLines(cellsOf(v.c), st.Error, "✗", components.Escape(pr.Error()), w, v.noteMax)...)
	}
	for _, n := range notes {
		lines = append(lines, noteLines(cellsOf(v.c), st.Dim, "·", components.Escape(n), w, v.noteMax)...)
	}
	title := "Done"
	stopped := r.Stopped != "" // what a stopped run did is counted, not listed
	switch {
	case r.FailedCount > 0 && stopped:
		title = fmt.Sprintf("Failed (%s)", components.Count(r.FailedCount))
	case r.FailedCount > 0:
		title = fmt.Sprintf("Failed (%s) first, then done", components.Count(r.FailedCount))
	case stopped:
		title = "Stopped: what was done is counted above"
	case len(v.rows) == 0:
		title = "Nothing was changed"
	}
	hint := ""
	if len(v.rows) > 0 {
		hint = "  enter opens a resource"
	}
	lines = append(lines, "", st.Section.Render(title)+st.Dim.Render(hint))
	return lines
}
