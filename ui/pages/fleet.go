package pages

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/dustin/go-humanize"

	"rsx/dest/state"
	"rsx/display"
	"rsx/session"
	"rsx/ui/common"
	"rsx/ui/components"
	"rsx/ui/nav"
)

// Fleet is the page of an aggregator's Sources (rsx --sources FILE, or
// :fleet FILE): one row per Source with its copy's last run and result, how
// far the copy's point is behind the Source's newest change, its resources
// and bytes, and its open problems. enter opens the Source's Capability List
// with its copy attached, s plans a sync of it (the sync pages), l shows its
// runs.
type Fleet struct {
	c    *common.Common
	b    FleetBackend
	file string

	rows    []session.FleetSource
	gen     int
	cancel  context.CancelFunc
	loading bool
	err     error

	// The runs of one Source (l), over the rows.
	runsOf   int // the row whose runs are shown; -1: the Sources
	runs     []state.Run
	runsErr  error
	runsBusy bool

	// marked are the Sources s syncs, one after the other: syncing is the
	// one whose sync pages are open (-1: none), queue those after it.
	marked  map[int]bool
	syncing int
	queue   []int

	list          components.List
	runList       components.List
	width, height int
	now           func() time.Time
}

// FleetBackend is what the fleet page asks of the backend (rsx/session's
// Session has it).
type FleetBackend interface {
	FleetStatus(ctx context.Context, sources []session.FleetSource) []session.FleetSource
	FleetRuns(ctx context.Context, f session.FleetSource, limit int) ([]state.Run, error)
}

type fleetMsg struct {
	page *Fleet
	gen  int
	rows []session.FleetSource
}

type fleetRunsMsg struct {
	page *Fleet
	gen  int
	row  int
	runs []state.Run
	err  error
}

// fleetRunsShown is how many runs l lists.
const fleetRunsShown = 200

// NewFleet returns the fleet page of sources (read from file); Init reads
// each copy's state and each Source's newest change.
func NewFleet(c *common.Common, b FleetBackend, file string, sources []session.FleetSource, now func() time.Time) *Fleet {
	if now == nil {
		now = time.Now
	}
	f := &Fleet{c: c, b: b, file: file, rows: sources, runsOf: -1, now: now, marked: map[int]bool{}, syncing: -1,
		list: components.NewList(components.Select), runList: components.NewList(components.Select)}
	f.list.SetLen(len(sources))
	return f
}

// Init loads the Sources' status (or the runs shown). The page is a place
// of the history (nav.Place): Init runs again each time it is shown again,
// its selection and scroll as they were; a sync of the marked Sources
// whose pages were closed when it was left goes no further.
func (f *Fleet) Init() tea.Cmd {
	f.syncing, f.queue = -1, f.queue[:0]
	if f.runsOf >= 0 && f.runsOf < len(f.rows) {
		return f.loadRuns(f.runsOf)
	}
	f.runsOf = -1
	return f.load()
}

// PlaceKey names the page's place in the history: its file.
func (f *Fleet) PlaceKey() string { return "fleet " + f.file }

func (f *Fleet) load() tea.Cmd {
	if f.cancel != nil {
		f.cancel()
	}
	f.gen++
	f.loading = true
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	gen, b := f.gen, f.b
	rows := make([]session.FleetSource, len(f.rows))
	for i, r := range f.rows {
		rows[i] = session.FleetSource{Name: r.Name, URL: r.URL, Dest: r.Dest, Request: r.Request}
	}
	return func() tea.Msg {
		out := b.FleetStatus(ctx, rows)
		if ctx.Err() != nil {
			return nil
		}
		return fleetMsg{page: f, gen: gen, rows: out}
	}
}

func (f *Fleet) loadRuns(row int) tea.Cmd {
	if f.cancel != nil {
		f.cancel()
	}
	f.gen++
	f.runsOf, f.runs, f.runsErr, f.runsBusy = row, nil, nil, true
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	gen, b, src := f.gen, f.b, f.rows[row]
	return func() tea.Msg {
		runs, err := b.FleetRuns(ctx, src, fleetRunsShown)
		if ctx.Err() != nil {
			return nil
		}
		return fleetRunsMsg{page: f, gen: gen, row: row, runs: runs, err: err}
	}
}

// Title names the page.
func (f *Fleet) Title() string { return "Fleet" }

// InputActive is false: the page has no text input.
func (f *Fleet) InputActive() bool { return false }

// Busy tells that a status or the runs are loading.
func (f *Fleet) Busy() bool { return f.loading || f.runsBusy }

// Back cancels a load; then leaves the runs for the Sources; then the
// root goes back in the history, as from a document (the page is a place).
func (f *Fleet) Back() (bool, tea.Cmd) {
	switch {
	case f.loading || f.runsBusy:
		f.Close()
		f.loading, f.runsBusy = false, false
		f.err = nav.ErrCancelled
		return true, nil
	case f.runsOf >= 0:
		f.runsOf = -1
		return true, nil
	}
	return false, nil
}

// Close stops a load in flight (the page is left: Init starts it again
// when it is shown again).
func (f *Fleet) Close() {
	if f.cancel != nil {
		f.cancel()
		f.cancel = nil
	}
	f.gen++ // a result on its way is dropped
	f.loading, f.runsBusy = false, false
}

// KeyBindings are the page's own keys.
func (f *Fleet) KeyBindings() []key.Binding {
	k := &f.c.Keys
	return []key.Binding{k.Up, k.Down, common.Short(k.Open, "open the Source with its copy"), common.Short(k.Mark, "mark a Source for s"),
		common.Short(k.FleetSync, "plan a sync of the marked Sources (or this one), one after the other"), k.FleetRuns,
		common.Short(k.Retry, "read the copies and Sources again"), k.Copy}
}

// HelpBindings are the page's keys (nav.KeyHelper): the footer's, with
// every movement key where there is somewhere to move.
func (f *Fleet) HelpBindings() []key.Binding {
	return withMoves(f.c.Keys, f.KeyBindings(), f.moveLen() > 1)
}

// SetSize lays the page out for w×h cells.
func (f *Fleet) SetSize(w, h int) {
	f.width, f.height = w, h
	f.list.SetHeight(max(h-6, 1))
	f.runList.SetHeight(max(h-6, 1))
}

// Rows are the Sources as last read.
func (f *Fleet) Rows() []session.FleetSource { return f.rows }

// Update handles the loads' results and the keys.
func (f *Fleet) Update(msg tea.Msg) (nav.Page, tea.Cmd) {
	k := &f.c.Keys
	switch msg := msg.(type) {
	case fleetMsg:
		if msg.page == f && msg.gen == f.gen {
			f.rows, f.loading, f.err = msg.rows, false, nil
			f.list.SetLen(len(f.rows))
		}
		return f, nil
	case fleetRunsMsg:
		if msg.page == f && msg.gen == f.gen {
			f.runs, f.runsErr, f.runsBusy = msg.runs, msg.err, false
			f.runList.SetLen(len(f.runs))
		}
		return f, nil
	case nav.CopyChangedMsg:
		// A sync this page asked for ran: on to the next marked Source,
		// and the rows read again.
		if f.syncing >= 0 && f.syncing < len(f.rows) && f.rows[f.syncing].Dest == msg.Dest {
			delete(f.marked, f.syncing)
			f.syncing = -1
			return f, tea.Batch(f.nextSync(), f.load())
		}
		return f, nil
	case tea.KeyPressMsg:
		i := f.list.Cursor()
		switch {
		case key.Matches(msg, k.Retry):
			if f.runsOf >= 0 {
				return f, f.loadRuns(f.runsOf)
			}
			return f, f.load()
		case key.Matches(msg, k.FleetRuns):
			if f.runsOf >= 0 {
				f.runsOf = -1
				return f, nil
			}
			if i >= 0 && i < len(f.rows) {
				return f, f.loadRuns(i)
			}
		case i >= 0 && i < len(f.rows) && key.Matches(msg, k.Open):
			r := f.rows[i]
			return f, nav.Cmd(nav.OpenSourceMsg{URL: r.URL, Dest: r.Dest})
		case f.runsOf < 0 && i >= 0 && i < len(f.rows) && key.Matches(msg, k.Mark):
			f.marked[i] = !f.marked[i]
			if !f.marked[i] {
				delete(f.marked, i)
			}
			f.list.Move(1)
			return f, nil
		case i >= 0 && i < len(f.rows) && key.Matches(msg, k.FleetSync):
			f.queue = f.queue[:0]
			for j := range f.rows {
				if f.marked[j] {
					f.queue = append(f.queue, j)
				}
			}
			if len(f.queue) == 0 {
				f.queue = append(f.queue, i)
			}
			return f, f.nextSync()
		case i >= 0 && i < len(f.rows) && key.Matches(msg, k.Copy):
			return f, nav.Cmd(nav.CopyMsg{Text: f.rows[i].URL, What: "Capability List URL"})
		}
	}
	if f.runsOf >= 0 {
		f.runList.Update(msg, k)
	} else {
		f.list.Update(msg, k)
	}
	return f, nil
}

// nextSync opens the sync pages of the next Source in the queue (one
// without a destination is skipped, and said).
func (f *Fleet) nextSync() tea.Cmd {
	for len(f.queue) > 0 {
		j := f.queue[0]
		f.queue = f.queue[1:]
		r := f.rows[j]
		if r.Dest == "" {
			delete(f.marked, j)
			if len(f.queue) == 0 {
				return nav.Flash(fleetName(r)+" has no destination: give dest in "+f.file+", or --dest", true)
			}
			continue
		}
		f.syncing = j
		what := "every resource of " + fleetName(r)
		if n := len(f.queue); n > 0 {
			what += fmt.Sprintf(" (then %s marked)", display.Plural(n, "more Source", "more Sources"))
		}
		// The Source's entry in the file: its selection, mode, checksum,
		// delete, allow_other_hosts, rate and concurrency apply.
		req := r.Request
		req.Dest, req.Target = r.Dest, r.URL
		return nav.Cmd(nav.SyncDiffsMsg{Req: req, What: what})
	}
	return nil
}

func fleetName(r session.FleetSource) string {
	if r.Name != "" {
		return r.Name
	}
	return r.URL
}

// View draws the page.
func (f *Fleet) View() string {
	st := f.c.Styles
	w, h := max(f.width, 1), max(f.height, 1)
	var out []string
	add := func(s string) { out = append(out, cellsOf(f.c).Fit(s, w)) }
	add(st.Title.Render("Fleet") + "  " + st.Dim.Render("the Sources of ") + st.URL.Render(components.Escape(f.file)))
	if f.runsOf >= 0 && f.runsOf < len(f.rows) {
		f.viewRuns(add, w)
	} else {
		f.viewSources(add, w)
	}
	for len(out) < h {
		add("")
	}
	return strings.Join(out[:h], "\n")
}

// The columns of the Sources' table.
const (
	fleetColLast   = 20
	fleetColBehind = 12
	fleetColRes    = 11
	fleetColBytes  = 10
)

func (f *Fleet) viewSources(add func(string), w int) {
	st := f.c.Styles
	ok, failed, behind := 0, 0, 0
	for _, r := range f.rows {
		switch {
		case r.HasRun && r.LastRun.ExitStatus == 0:
			ok++
		case r.HasRun:
			failed++
		}
		if r.Behind() > 0 {
			behind++
		}
	}
	summary := st.Value.Render(display.Plural(len(f.rows), "Source", "Sources")) + st.Dim.Render(" · ") +
		st.OK.Render(display.Count(ok)+" ok") + st.Dim.Render(" · ")
	if failed > 0 {
		summary += st.Error.Render(display.Count(failed) + " failed")
	} else {
		summary += st.Dim.Render("0 failed")
	}
	summary += st.Dim.Render(" · ") + st.Value.Render(display.Count(behind)+" behind")
	if n := len(f.marked); n > 0 {
		summary += st.Dim.Render(" · ") + st.Value.Render("■ "+display.Count(n)+" marked")
	}
	if f.loading {
		summary += "  " + f.c.Spinner.View() + st.Dim.Render(" reading the copies and the Sources … (esc cancels)")
	} else if f.err != nil {
		summary += "  " + st.Warning.Render(components.Escape(f.err.Error()))
	}
	add(summary)
	add("")
	// The names as wide as the longest (within a third of the width): the
	// problems get the rest.
	nameW := 16
	for _, r := range f.rows {
		nameW = max(nameW, cellsOf(f.c).Width(components.Escape(fleetName(r))))
	}
	nameW = min(nameW, max(w/3, 16))
	add(st.Header.Render("  " + cellsOf(f.c).Pad("Source", nameW) + " " + cellsOf(f.c).Pad("last run", fleetColLast) + " " +
		cellsOf(f.c).Pad("behind", fleetColBehind) + " " + cellsOf(f.c).PadLeft("resources", fleetColRes) + " " +
		cellsOf(f.c).PadLeft("bytes", fleetColBytes) + "  problems"))
	top := f.list.Offset()
	for r := top; r < min(top+f.list.Height(), len(f.rows)); r++ {
		add(f.sourceRow(r, f.rows[r], r == f.list.Cursor(), nameW))
	}
	if len(f.rows) == 0 {
		add(st.Dim.Render("  no Source in the file"))
	}
	if i := f.list.Cursor(); i >= 0 && i < len(f.rows) {
		r := f.rows[i]
		add("")
		add(st.Dim.Render("  ▸ ") + st.URL.Render(components.Escape(r.URL)) + st.Dim.Render(" → ") + st.Value.Render(components.Escape(orNone(r.Dest))))
		for _, p := range []string{r.SourceErr, r.StateErr} {
			if p != "" {
				for _, l := range cellsOf(f.c).Wrap(components.Escape(p), max(w-4, 10)) {
					add("    " + st.Error.Render(l))
				}
			}
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "(no destination)"
	}
	return s
}

func (f *Fleet) sourceRow(row int, r session.FleetSource, selected bool, nameW int) string {
	st := f.c.Styles
	name := cellsOf(f.c).Truncate(components.Escape(fleetName(r)), nameW, components.TruncMiddle)
	last := "never"
	lastStyle := st.Dim
	if r.HasRun {
		ago := humanize.RelTime(r.LastRun.Started, f.now(), "ago", "from now")
		switch {
		case r.LastRun.Ended.IsZero():
			last, lastStyle = "… "+ago, st.Warning
		case r.LastRun.ExitStatus == 0:
			last, lastStyle = "✓ "+ago, st.OK
		default:
			last, lastStyle = "✗ "+ago, st.Error
		}
	} else if r.HasCopy {
		last = "(no history)"
	}
	behind := "—"
	behindStyle := st.Dim
	switch {
	case !r.HasCopy:
		behind = "no copy"
	case r.Newest.IsZero():
		behind = "?"
	case r.Behind() == 0:
		behind, behindStyle = "in step", st.OK
	default:
		behind, behindStyle = shortDuration(r.Behind()), st.Warning
	}
	var probs []string
	if r.Damaged > 0 {
		probs = append(probs, display.Plural(r.Damaged, "damaged", "damaged"))
	}
	if r.HasRun && r.LastRun.Failed > 0 {
		probs = append(probs, display.Plural(r.LastRun.Failed, "failure", "failures"))
	}
	if r.Pending > 0 {
		probs = append(probs, display.Count(r.Pending)+" deletions waiting")
	}
	if r.SourceErr != "" {
		probs = append(probs, "Source: "+r.SourceErr)
	}
	if r.StateErr != "" {
		probs = append(probs, "copy: "+r.StateErr)
	}
	probText := st.Dim.Render("none")
	if len(probs) > 0 {
		probText = st.Error.Render(components.Escape(strings.Join(probs, "; ")))
	}
	res, bytes := "", ""
	if r.HasCopy {
		res, bytes = humanize.Comma(int64(r.Resources)), display.Size(r.Bytes)
	}
	cells := cellsOf(f.c).Pad(name, nameW) + " " + lastStyle.Render(cellsOf(f.c).Pad(last, fleetColLast)) + " " +
		behindStyle.Render(cellsOf(f.c).Pad(behind, fleetColBehind)) + " " + cellsOf(f.c).PadLeft(res, fleetColRes) + " " +
		cellsOf(f.c).PadLeft(bytes, fleetColBytes) + "  " + probText
	mark := " "
	if f.marked[row] {
		mark = "■"
	}
	if selected {
		return st.Selected.Render("▸"+mark) + cells
	}
	return " " + mark + cells
}

func (f *Fleet) viewRuns(add func(string), w int) {
	st := f.c.Styles
	r := f.rows[f.runsOf]
	head := st.Section.Render("Runs of ") + st.Value.Render(components.Escape(fleetName(r))) + st.Dim.Render(" in ") + st.Value.Render(components.Escape(orNone(r.Dest)))
	switch {
	case f.runsBusy:
		head += "  " + f.c.Spinner.View() + st.Dim.Render(" reading the history …")
	case f.runsErr != nil:
		head += "  " + st.Error.Render(components.Escape(f.runsErr.Error()))
	}
	add(head)
	add("")
	add(st.Header.Render("  " + cellsOf(f.c).Pad("#", 6) + " " + cellsOf(f.c).Pad("started", 20) + " " + cellsOf(f.c).Pad("mode", 11) + " " +
		cellsOf(f.c).Pad("+ ~ −", 20) + " " + cellsOf(f.c).PadLeft("bytes", 10) + "  result"))
	top := f.runList.Offset()
	for i := top; i < min(top+f.runList.Height(), len(f.runs)); i++ {
		run := f.runs[i]
		result := st.OK.Render("✓ exit 0")
		switch {
		case run.Ended.IsZero() && run.Stopped == state.StoppedNoEnd:
			result = st.Error.Render("✗ interrupted (no end recorded)")
		case run.Ended.IsZero():
			result = st.Warning.Render("no end recorded: going on, or killed")
		case run.ExitStatus != 0:
			result = st.Error.Render(fmt.Sprintf("✗ exit %d", run.ExitStatus))
			if run.Failed > 0 {
				result += st.Error.Render(", " + display.Plural(run.Failed, "failure", "failures"))
			}
			if run.Stopped != "" {
				result += st.Dim.Render(" · " + components.Escape(run.Stopped))
			}
		}
		counts := fmt.Sprintf("+%s ~%s −%s", display.Count(run.Created), display.Count(run.Updated), display.Count(run.Deleted))
		line := cellsOf(f.c).Pad(fmt.Sprintf("%d", run.ID), 6) + " " + cellsOf(f.c).Pad(run.Started.Local().Format("2006-01-02 15:04:05"), 20) + " " +
			cellsOf(f.c).Pad(run.Mode, 11) + " " + cellsOf(f.c).Pad(counts, 20) + " " + cellsOf(f.c).PadLeft(display.Size(run.Bytes), 10) + "  " + result
		if i == f.runList.Cursor() {
			add(st.Selected.Render("▸ ") + line)
		} else {
			add("  " + line)
		}
	}
	if !f.runsBusy && f.runsErr == nil && len(f.runs) == 0 {
		add(st.Dim.Render("  no run recorded yet"))
	}
	if i := f.runList.Cursor(); i >= 0 && i < len(f.runs) && f.runs[i].Why != "" {
		add("")
		add(st.Dim.Render("  why: " + components.Escape(f.runs[i].Why)))
	}
}

// moveLen is how many rows the list shown has: the runs, or the Sources.
func (f *Fleet) moveLen() int {
	if f.runsOf >= 0 {
		return f.runList.Len()
	}
	return f.list.Len()
}
