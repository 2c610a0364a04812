package pages

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/crawl"
	"rsx/display"
	"rsx/model"
	"rsx/ui/common"
	"rsx/ui/components"
	"rsx/ui/nav"
)

// Coverage shows which periods a Source's change history covers: the
// Change Lists (or Change Dumps) of its live index and of its archive, each
// as a bar on one time axis, and under them the coverage of them all, with
// the holes (no list covers them: changes there may be lost to a copy) and
// the overlaps (several lists cover them). enter opens the selected list.
type Coverage struct {
	c    *common.Common
	b    Archives
	url  string // the document the page was opened on
	from string // its URL after redirects: the lists are its links

	gen     int
	cancel  context.CancelFunc
	loading bool
	err     error // no history; or, with one, what of the archive failed
	hist    *crawl.History

	periods []model.Period // the archived ones first, then the live ones
	order   []int          // positions in periods, in time order
	segs    []model.Segment
	start   time.Time // the time axis
	end     time.Time
	open    bool // a list is open: it goes on past the axis

	list          components.List // a row for each period, in order
	width, height int
}

// Archives is what the coverage page asks of the backend: the change
// history around a document (rsx/ui's Backend has it).
type Archives interface {
	// History loads the live change document around url and its archive;
	// with a History, the error says what of the archive could not be had.
	History(ctx context.Context, url string) (*crawl.History, error)
}

// coverageMsg carries the history a coverage page asked for.
type coverageMsg struct {
	page *Coverage
	gen  int
	hist *crawl.History
	err  error
}

// NewCoverage returns the coverage page of the change history around the
// document at url, whose lists link from from (its URL after redirects);
// Init loads the history.
func NewCoverage(c *common.Common, b Archives, url, from string) *Coverage {
	return &Coverage{c: c, b: b, url: url, from: from, list: components.NewList(components.Select)}
}

// Init loads the history.
func (v *Coverage) Init() tea.Cmd { return v.load() }

// load asks the backend for the history in a Cmd.
func (v *Coverage) load() tea.Cmd {
	if v.cancel != nil {
		v.cancel()
	}
	v.gen++
	v.loading = true
	ctx, cancel := context.WithCancel(context.Background())
	v.cancel = cancel
	gen, b, url := v.gen, v.b, v.url
	return func() tea.Msg {
		h, err := b.History(ctx, url)
		if ctx.Err() != nil {
			return nil // esc: nobody waits for it
		}
		return coverageMsg{page: v, gen: gen, hist: h, err: err}
	}
}

// setHistory lays out what the history covers.
func (v *Coverage) setHistory(h *crawl.History, err error) {
	v.hist, v.err, v.loading = h, err, false
	v.periods, v.segs, v.order = nil, nil, nil
	if h == nil {
		return
	}
	v.periods, v.segs = h.Coverage()
	v.order = make([]int, len(v.periods))
	for i := range v.order {
		v.order[i] = i
	}
	slices.SortStableFunc(v.order, func(a, b int) int {
		pa, pb := v.periods[a], v.periods[b]
		if c := pa.From.Compare(pb.From); c != 0 {
			return c
		}
		if pa.Archived != pb.Archived {
			if pa.Archived {
				return -1
			}
			return 1
		}
		return untilKey(pa).Compare(untilKey(pb))
	})
	v.start, v.end, v.open = time.Time{}, time.Time{}, false
	for _, p := range v.periods {
		if v.start.IsZero() || p.From.Before(v.start) {
			v.start = p.From
		}
		v.end = later(v.end, p.From)
		if p.Open() {
			v.open = true
		} else {
			v.end = later(v.end, p.Until)
		}
	}
	if v.open || !v.end.After(v.start) {
		// An open list goes on: leave it room past the last time known.
		v.end = v.end.Add(max(v.end.Sub(v.start)/8, time.Minute)).Truncate(time.Minute)
	}
	v.list.SetLen(len(v.order))
	v.layout()
}

// untilKey orders an open period after every closed one.
func untilKey(p model.Period) time.Time {
	if p.Open() {
		return time.Unix(1<<62, 0)
	}
	return p.Until
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Title names the page.
func (v *Coverage) Title() string { return "Coverage" }

// InputActive is false: the page has no text input.
func (v *Coverage) InputActive() bool { return false }

// Busy tells that the history is loading.
func (v *Coverage) Busy() bool { return v.loading }

// Back cancels a load in flight; otherwise the page closes.
func (v *Coverage) Back() (bool, tea.Cmd) {
	if v.loading {
		v.Close()
		v.loading = false
		v.err = nav.ErrCancelled
		return true, nil
	}
	return false, nil
}

// Close stops a load in flight.
func (v *Coverage) Close() {
	if v.cancel != nil {
		v.cancel()
		v.cancel = nil
	}
}

// KeyBindings are the page's own keys.
func (v *Coverage) KeyBindings() []key.Binding {
	k := &v.c.Keys
	return []key.Binding{k.Up, k.Down, common.Short(k.Open, "open the list"), common.Short(k.Retry, "reload"), k.Copy, k.Browser}
}

// HelpBindings are the page's keys that work just now (nav.KeyHelper).
func (v *Coverage) HelpBindings() []key.Binding {
	k := &v.c.Keys
	sel := v.selected() >= 0
	return append(k.MoveKeys(v.list.Len() > 1), common.When(sel, common.Short(k.Open, "open the list")), common.Short(k.Retry, "reload"),
		common.When(sel, k.Copy), common.When(sel, k.Browser))
}

// SetSize lays the page out for w×h cells.
func (v *Coverage) SetSize(w, h int) {
	v.width, v.height = w, h
	v.layout()
}

// The lines around the rows of the lists: title, summary, note, axis above;
// coverage, selection, blank, issues heading and legend below.
const coverageChrome = 9

// issueLines is how many holes and overlaps are listed under the rows.
func (v *Coverage) issueLines() int {
	n := 0
	for _, s := range v.segs {
		if s.Hole() || s.Overlap() {
			n++
		}
	}
	return min(max(n, 1), max(v.height/5, 2))
}

func (v *Coverage) layout() {
	v.list.SetHeight(max(v.height-coverageChrome-v.issueLines(), 1))
}

// selected is the period under the cursor, -1 when none.
func (v *Coverage) selected() int {
	if i := v.list.Cursor(); i >= 0 && i < len(v.order) {
		return v.order[i]
	}
	return -1
}

// Periods are the lists of the history, in time order.
func (v *Coverage) Periods() []model.Period {
	out := make([]model.Period, 0, len(v.order))
	for _, i := range v.order {
		out = append(out, v.periods[i])
	}
	return out
}

// Segments are the history's coverage, in time order: each span with the
// lists that cover it (none: a hole; several: an overlap).
func (v *Coverage) Segments() []model.Segment { return v.segs }

// Update handles the history's arrival, keys and the wheel.
func (v *Coverage) Update(msg tea.Msg) (nav.Page, tea.Cmd) {
	k := &v.c.Keys
	switch msg := msg.(type) {
	case coverageMsg:
		if msg.page == v && msg.gen == v.gen {
			v.setHistory(msg.hist, msg.err)
		}
		return v, nil
	case tea.KeyPressMsg:
		if key.Matches(msg, k.Retry) {
			return v, v.load()
		}
		if p := v.selected(); p >= 0 {
			u := v.periods[p].URL
			switch {
			case key.Matches(msg, k.Open):
				return v, nav.Cmd(nav.OpenURLMsg{URL: u, From: v.from})
			case key.Matches(msg, k.Copy):
				return v, nav.Cmd(nav.CopyMsg{Text: u, What: "list URL"})
			case key.Matches(msg, k.Browser):
				return v, nav.Cmd(nav.OpenBrowserMsg{URL: u})
			}
		}
	}
	v.list.Update(msg, k)
	return v, nil
}

// View draws the page.
func (v *Coverage) View() string {
	st := v.c.Styles
	w, h := max(v.width, 1), max(v.height, 1)
	var out []string
	add := func(s string) { out = append(out, cellsOf(v.c).Fit(s, w)) }
	title := st.Title.Render("Coverage") + "  " + st.Dim.Render("of the change lists, live and archived, around ") + st.URL.Render(components.Escape(v.url))
	add(title)
	switch {
	case v.loading:
		add("")
		add(v.c.Spinner.View() + st.Dim.Render(" loading the live lists and the archive … (esc cancels)"))
		return strings.Join(out, "\n")
	case v.hist == nil && v.err != nil:
		add("")
		for _, l := range cellsOf(v.c).Wrap(components.Escape(v.err.Error()), w) {
			add(st.Error.Render(l))
		}
		add("")
		add(st.Dim.Render("r tries again"))
		return strings.Join(out, "\n")
	case len(v.periods) == 0:
		add("")
		add(st.Dim.Render("The lists declare no period (no from attribute): there is nothing to draw."))
		return strings.Join(out, "\n")
	}
	add(v.summaryLine())
	if v.err != nil {
		add(st.Warning.Render("! " + components.Escape(v.err.Error())))
	} else {
		add("")
	}

	labelW := min(max(w/4, 24), 40)
	barW := max(w-labelW-2, 8)
	layout := timeLayout(v.periods)
	// The axis: where it starts and ends, over the bars.
	left, right := formatAxisTime(v.start), formatAxisTime(v.end)
	if v.open {
		right += " →"
	}
	axis := left + strings.Repeat(" ", max(barW-cellsOf(v.c).Width(left)-cellsOf(v.c).Width(right), 1)) + right
	add(st.Header.Render(cellsOf(v.c).Pad("  list", labelW)) + "  " + st.Header.Render(cellsOf(v.c).Fit(axis, barW)))

	top := v.list.Offset()
	for r := top; r < min(top+v.list.Height(), len(v.order)); r++ {
		add(v.periodRow(v.periods[v.order[r]], r == v.list.Cursor(), labelW, barW))
	}
	add(st.Section.Render(cellsOf(v.c).Pad("  coverage", labelW)) + "  " + v.coverageBar(barW))
	if i := v.selected(); i >= 0 {
		p := v.periods[i]
		span := p.From.UTC().Format(layout) + " – "
		if p.Open() {
			span += "open"
		} else {
			span += p.Until.UTC().Format(layout)
		}
		add(st.Dim.Render("  ▸ ") + st.Value.Render(span) + st.Dim.Render(v.listedBy(p)+": ") + st.URL.Render(components.Escape(p.URL)))
	}
	add("")
	add(st.Section.Render("Holes and overlaps"))
	for _, l := range v.issueText(v.issueLines(), layout) {
		add("  " + l)
	}
	for len(out) < h-1 {
		add("")
	}
	legend := st.Dim.Render(glyphArchived+" ") + st.Label.Render("archived") + st.URL.Render("  "+glyphLive+" ") + st.Label.Render("live") +
		st.OK.Render("  "+glyphCovered+" ") + st.Label.Render("covered") + st.Error.Render("  "+glyphHole+" ") + st.Label.Render("hole") +
		st.Warning.Render("  "+glyphOverlap+" ") + st.Label.Render("overlap")
	add(legend)
	return strings.Join(out, "\n")
}

// summaryLine counts the lists, the time they cover, the holes and overlaps.
func (v *Coverage) summaryLine() string {
	st := v.c.Styles
	archived := 0
	for _, p := range v.periods {
		if p.Archived {
			archived++
		}
	}
	holes, overlaps := 0, 0
	for _, s := range v.segs {
		switch {
		case s.Hole():
			holes++
		case s.Overlap():
			overlaps++
		}
	}
	s := st.Value.Render(fmt.Sprintf("%s: %s archived, %s live", display.Plural(len(v.periods), "list", "lists"), display.Count(archived), display.Count(len(v.periods)-archived)))
	span := formatAxisTime(v.start) + " – "
	if v.open {
		span += "open"
	} else {
		span += formatAxisTime(v.end)
	}
	s += st.Dim.Render(" · ") + st.Value.Render(span)
	if holes == 0 {
		s += st.Dim.Render(" · ") + st.OK.Render("✓ no hole")
	} else {
		s += st.Dim.Render(" · ") + st.Error.Render(fmt.Sprintf("✗ %s", display.Plural(holes, "hole", "holes")))
	}
	if overlaps > 0 {
		s += st.Dim.Render(" · ") + st.Warning.Render(fmt.Sprintf("! %s", display.Plural(overlaps, "overlap", "overlaps")))
	} else {
		s += st.Dim.Render(" · ") + st.OK.Render("no overlap")
	}
	return s
}

// The signs of the bars differ by shape, not only by colour: a terminal
// without colours, or eyes that do not tell them apart, still read them.
const (
	glyphLive     = "█" // a live list's period
	glyphArchived = "▄" // an archived list's: half height
	glyphCovered  = "━" // the coverage line where one list covers the time
	glyphHole     = "░" // where none does
	glyphOverlap  = "▒" // where several do
)

// periodRow draws a list: where it comes from, its name, and its bar on
// the axis (the selection line under the bars gives its period).
func (v *Coverage) periodRow(p model.Period, selected bool, labelW, barW int) string {
	st := v.c.Styles
	kind, paint := "live   ", st.URL
	if p.Archived {
		kind, paint = "archive", st.Dim
	}
	name := components.Escape(shortName(p.URL))
	if p.Open() {
		name += " (open)"
	}
	label := cellsOf(v.c).Truncate(kind+" "+name, labelW-2, components.TruncMiddle)
	glyph := glyphLive
	if p.Archived {
		glyph = glyphArchived
	}
	bar := v.periodBar(p, barW, glyph)
	if selected {
		return st.Selected.Render(cellsOf(v.c).Pad("▸ "+label, labelW)) + "  " + paint.Render(bar)
	}
	return "  " + st.Label.Render(cellsOf(v.c).Pad(label, labelW-2)) + "  " + paint.Render(bar)
}

// cell is the stretch of time of cell i of a bar n cells wide.
func (v *Coverage) cell(i, n int) (time.Time, time.Time) {
	span := v.end.Sub(v.start)
	return v.start.Add(span * time.Duration(i) / time.Duration(n)), v.start.Add(span * time.Duration(i+1) / time.Duration(n))
}

// periodBar draws a period as a bar: a cell for each stretch of the axis
// it covers some of.
func (v *Coverage) periodBar(p model.Period, n int, glyph string) string {
	var b strings.Builder
	for i := range n {
		lo, hi := v.cell(i, n)
		if p.From.Before(hi) && (p.Open() || p.Until.After(lo)) {
			b.WriteString(glyph)
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// coverageBar draws what covers each stretch of the axis: a hole anywhere in
// a cell shows (however short), then an overlap, then coverage. Runs of one
// kind are drawn in one piece.
func (v *Coverage) coverageBar(n int) string {
	st := v.c.Styles
	kinds := make([]byte, n) // ' ' nothing, 'h' hole, 'o' overlap, 'c' covered
	for i := range n {
		lo, hi := v.cell(i, n)
		kinds[i] = ' '
		for _, s := range v.segs {
			if !s.From.Before(hi) || (!s.Until.IsZero() && !s.Until.After(lo)) {
				continue
			}
			switch k := kinds[i]; {
			case s.Hole():
				kinds[i] = 'h'
			case s.Overlap() && k != 'h':
				kinds[i] = 'o'
			case k == ' ':
				kinds[i] = 'c'
			}
		}
	}
	var b strings.Builder
	for i := 0; i < n; {
		j := i
		for j < n && kinds[j] == kinds[i] {
			j++
		}
		switch kinds[i] {
		case 'h':
			b.WriteString(st.Error.Render(strings.Repeat(glyphHole, j-i)))
		case 'o':
			b.WriteString(st.Warning.Render(strings.Repeat(glyphOverlap, j-i)))
		case 'c':
			b.WriteString(st.OK.Render(strings.Repeat(glyphCovered, j-i)))
		default:
			b.WriteString(strings.Repeat(" ", j-i))
		}
		i = j
	}
	return b.String()
}

// listedBy says which document lists a period, and as which entry.
func (v *Coverage) listedBy(p model.Period) string {
	where := "the live index"
	if p.Archived {
		where = "the archive"
	}
	if p.Entry < 0 {
		return " · its own from and until"
	}
	return fmt.Sprintf(" · entry %d of %s", p.Entry+1, where)
}

// issueText lists the holes and overlaps, at most n lines.
func (v *Coverage) issueText(n int, layout string) []string {
	st := v.c.Styles
	var out []string
	total := 0
	name := func(i int) string { return components.Escape(shortName(v.periods[i].URL)) }
	for _, s := range v.segs {
		if !s.Hole() && !s.Overlap() {
			continue
		}
		total++
		if len(out) >= n {
			continue
		}
		when := s.From.UTC().Format(layout) + " – "
		if s.Until.IsZero() {
			when += "open"
		} else {
			when += s.Until.UTC().Format(layout) + " (" + shortDuration(s.Until.Sub(s.From)) + ")"
		}
		if s.Hole() {
			var before, after []string
			for i, p := range v.periods {
				if !p.Open() && p.Until.Equal(s.From) {
					before = append(before, name(i))
				}
				if p.From.Equal(s.Until) {
					after = append(after, name(i))
				}
			}
			why := "no list covers it"
			if len(before) > 0 && len(after) > 0 {
				why = "between " + strings.Join(before, ", ") + " and " + strings.Join(after, ", ")
			}
			out = append(out, st.Error.Render("✗ hole     ")+st.Value.Render(when)+st.Dim.Render("  "+why))
			continue
		}
		names := make([]string, len(s.Covers))
		for j, i := range s.Covers {
			names[j] = name(i)
		}
		out = append(out, st.Warning.Render("! overlap  ")+st.Value.Render(when)+st.Dim.Render("  "+strings.Join(names, ", ")))
	}
	if total == 0 {
		out = append(out, st.OK.Render("✓ none: every moment from the first from on is covered by exactly one list"))
	}
	if total > len(out) && len(out) > 0 {
		out[len(out)-1] = st.Dim.Render(fmt.Sprintf("… and %s more", display.Count(total-len(out)+1)))
	}
	return out
}

// shortName is the last part of a URL's path: the list's file name.
func shortName(u string) string {
	u = strings.TrimRight(u, "/")
	if i := strings.LastIndexByte(u, '/'); i >= 0 && i < len(u)-1 {
		return u[i+1:]
	}
	return u
}

// timeLayout chooses how the lists' times are written: the time of day when
// they all fall on one day, with seconds only when one has some.
func timeLayout(ps []model.Period) string {
	seconds, oneDay := false, true
	var day string
	for _, p := range ps {
		for _, t := range []time.Time{p.From, p.Until} {
			if t.IsZero() {
				continue
			}
			t = t.UTC()
			seconds = seconds || t.Second() != 0 || t.Nanosecond() != 0
			if d := t.Format("2006-01-02"); day == "" {
				day = d
			} else if d != day {
				oneDay = false
			}
		}
	}
	clock := "15:04"
	if seconds {
		clock = "15:04:05"
	}
	if oneDay {
		return clock
	}
	return "01-02 " + clock
}

// formatAxisTime writes an end of the axis in full, to the minute.
func formatAxisTime(t time.Time) string {
	t = t.UTC()
	if t.Second() != 0 {
		return t.Format("2006-01-02T15:04:05Z")
	}
	return t.Format("2006-01-02T15:04Z")
}

// shortDuration writes a duration in its largest units ("1d 2h", "30m").
func shortDuration(d time.Duration) string {
	switch {
	case d >= 24*time.Hour:
		s := fmt.Sprintf("%dd", d/(24*time.Hour))
		if h := (d % (24 * time.Hour)) / time.Hour; h > 0 {
			s += fmt.Sprintf(" %dh", h)
		}
		return s
	case d >= time.Hour:
		s := fmt.Sprintf("%dh", d/time.Hour)
		if m := (d % time.Hour) / time.Minute; m > 0 {
			s += fmt.Sprintf(" %dm", m)
		}
		return s
	case d >= time.Minute:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.Round(time.Second).String()
}
