package pages

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/claims"
	"rsx/display"
	"rsx/session"
	"rsx/spotcheck"
	"rsx/ui/common"
	"rsx/ui/components"
	"rsx/ui/nav"
)

// The spot check page (K): the marked (or shown) entries' resources
// fetched and held to what each entry declares — status, length, type,
// lastmod, every digest, and the mirrors — as rsx audit does; per
// resource each claim checked, the failures first. enter opens the
// resource's view.

// SpotBackend is what the page asks: the check.
type SpotBackend interface {
	SpotCheck(ctx context.Context, req session.SpotRequest, progress func(spotcheck.Progress)) (*spotcheck.Report, error)
}

// Spot is the spot check page.
type Spot struct {
	c    *common.Common
	b    SpotBackend
	req  session.SpotRequest
	what string
	open func(uri string) tea.Cmd // shows a resource's page over this one

	gen     int
	cancel  context.CancelFunc
	running bool
	prog    spotcheck.Progress
	rep     *spotcheck.Report
	err     error

	list          components.List // Links: the resources are the items
	width, height int
	drawn         []string // the report drawn for width, none selected (layout)
	items         []int    // the line of drawn each resource begins on
}

// NewSpot returns the page of the spot check req asks; Init runs it.
// what names the entries chosen, in words; open shows a checked resource's
// page over this one.
func NewSpot(c *common.Common, b SpotBackend, req session.SpotRequest, what string, open ResourceOpener) *Spot {
	return &Spot{c: c, b: b, req: req, what: what, open: open.orNone(), list: components.NewList(components.Links)}
}

type (
	spotProgressMsg struct {
		page *Spot
		gen  int
		p    spotcheck.Progress
		next tea.Cmd
	}
	spotDoneMsg struct {
		page *Spot
		gen  int
		rep  *spotcheck.Report
		err  error
	}
)

func (v *Spot) Init() tea.Cmd { return v.start() }

// start runs the check (again), its progress relayed through a channel
// that a re-armed command listens on.
func (v *Spot) start() tea.Cmd {
	if v.cancel != nil {
		v.cancel()
	}
	v.gen++
	gen := v.gen
	ctx, cancel := context.WithCancel(context.Background())
	v.cancel, v.running, v.err, v.rep, v.prog = cancel, true, nil, nil, spotcheck.Progress{Total: -1}
	v.layout()
	reports := make(chan spotcheck.Progress, 1)
	done := make(chan struct{})
	b, req := v.b, v.req
	run := func() tea.Msg {
		defer close(done)
		rep, err := b.SpotCheck(ctx, req, func(p spotcheck.Progress) {
			select { // the latest report wins
			case <-reports:
			default:
			}
			select {
			case reports <- p:
			default:
			}
		})
		return spotDoneMsg{page: v, gen: gen, rep: rep, err: err}
	}
	var wait tea.Cmd
	wait = func() tea.Msg {
		select {
		case p := <-reports:
			return spotProgressMsg{page: v, gen: gen, p: p, next: wait}
		case <-done:
			return nil
		}
	}
	return tea.Batch(run, wait)
}

func (v *Spot) Title() string     { return "Spot check" }
func (v *Spot) InputActive() bool { return false }
func (v *Spot) Busy() bool        { return v.running }

// Back closes the page, cancelling a check under way.
func (v *Spot) Back() (bool, tea.Cmd) { return false, nil }

func (v *Spot) Close() {
	v.gen++
	if v.cancel != nil {
		v.cancel()
		v.cancel = nil
	}
}

func (v *Spot) SetSize(w, h int) {
	v.width, v.height = w, h
	v.layout()
}

func (v *Spot) KeyBindings() []key.Binding {
	k := &v.c.Keys
	return []key.Binding{common.Short(k.Open, "open the resource"), common.Short(k.Retry, "check again"), k.Up, k.Down}
}

// HelpBindings are the page's keys that work just now (nav.KeyHelper).
func (v *Spot) HelpBindings() []key.Binding {
	k := &v.c.Keys
	n := 0
	if v.rep != nil {
		n = len(v.rep.Resources)
	}
	return append([]key.Binding{common.When(n > 0, common.Short(k.Open, "open the resource")), common.When(!v.running, common.Short(k.Retry, "check again"))},
		k.MoveKeys(n > 1)...)
}

// layout draws the report for the page's width, once: a check of thousands
// of marked entries is tens of thousands of lines, which View only windows.
func (v *Spot) layout() {
	v.drawn, v.items = v.lines(max(v.width, 1))
	v.list.SetHeight(max(v.height, 1))
	v.list.SetItems(v.items, len(v.drawn))
}

func (v *Spot) Update(msg tea.Msg) (nav.Page, tea.Cmd) {
	switch msg := msg.(type) {
	case spotProgressMsg:
		if msg.page != v || msg.gen != v.gen {
			return v, nil
		}
		v.prog = msg.p
		return v, msg.next
	case spotDoneMsg:
		if msg.page != v || msg.gen != v.gen {
			return v, nil
		}
		v.cancel, v.running = nil, false
		v.rep, v.err = msg.rep, msg.err
		v.layout()
		v.list.Select(0)
		return v, nil
	case tea.KeyPressMsg:
		k := &v.c.Keys
		switch {
		case key.Matches(msg, k.Open):
			if v.rep != nil {
				if i := v.list.Cursor(); i >= 0 && i < len(v.rep.Resources) {
					return v, v.open(v.rep.Resources[i].URL)
				}
			}
			return v, nil
		case key.Matches(msg, k.Retry):
			if !v.running {
				return v, v.start()
			}
			return v, nil
		}
		v.list.Update(msg, k)
	case tea.MouseWheelMsg:
		v.list.Update(msg, &v.c.Keys)
	}
	return v, nil
}

func (v *Spot) View() string {
	if v.rep == nil {
		lines, _ := v.lines(max(v.width, 1)) // a few lines; the spinner turns
		return cellsOf(v.c).Scrolled(lines, v.list.Offset(), v.width, v.height)
	}
	// The drawn lines, windowed, with the selected resource's line drawn
	// selected when it is in the window.
	w, h := max(v.width, 1), max(v.height, 1)
	top := components.Clamp(v.list.Offset(), 0, len(v.drawn)-h)
	out := components.Window(v.drawn, top, h)
	if i := v.list.Cursor(); i >= 0 && i < len(v.items) && v.items[i] >= top && v.items[i] < top+h {
		out[v.items[i]-top] = v.selectedLine(i, w)
	}
	for i, l := range out {
		out[i] = cellsOf(v.c).Fit(l, w)
	}
	return strings.Join(out, "\n")
}

// selectedLine is the first line of resource i when it is selected.
func (v *Spot) selectedLine(i, w int) string {
	res := &v.rep.Resources[i]
	name := components.Escape(components.DisplayLoc(components.OriginOf(v.req.From), res.URL))
	return v.c.Styles.Selected.Render(cellsOf(v.c).Pad("▸ "+res.Verdict.String()+" "+name, w))
}

// verdictMark is a verdict's mark and style.
func verdictMark(st *common.Styles, v claims.Verdict) string {
	switch v {
	case claims.OK:
		return st.MarkOK.Render("✓")
	case claims.Mismatch:
		return st.MarkBad.Render("✗")
	case claims.Warning:
		return st.MarkUnknown.Render("!")
	case claims.Unchecked:
		return st.MarkUnknown.Render("?")
	}
	return st.MarkNone.Render("–")
}

// lines renders the report and says on which line each resource begins.
func (v *Spot) lines(w int) ([]string, []int) {
	st := v.c.Styles
	var out []string
	var items []int
	add := func(s string) { out = append(out, s) }
	head := st.Title.Render("Spot check") + st.Dim.Render("  of ") + st.Value.Render(components.Escape(v.what))
	switch {
	case v.running:
		p := v.prog
		add(head + "  " + v.c.Spinner.View())
		add("")
		total := "…"
		if p.Total >= 0 {
			total = components.Count(p.Total)
		}
		add("  " + st.Value.Render(fmt.Sprintf("%s of %s checked", components.Count(p.Checked), total)) +
			st.Dim.Render(" · ") + st.Error.Render(fmt.Sprintf("%s failed", components.Count(p.Failed))) +
			st.Dim.Render(" · "+display.Size(p.Bytes)+" read · esc cancels"))
		return out, items
	case v.err != nil:
		add(head)
		add("")
		add(st.ErrorTitle.Render("  The entries could not be checked"))
		for _, l := range cellsOf(v.c).Wrap(components.Escape(v.err.Error()), max(w-4, 20)) {
			add("  " + st.Error.Render(l))
		}
		return out, items
	case v.rep == nil:
		add(head)
		return out, items
	}
	r := v.rep
	verdict := st.OK.Render("✓ every claim holds")
	if r.Wrong() {
		verdict = st.Error.Render(fmt.Sprintf("✗ %s with a false claim", display.Plural(r.Failed, "resource", "resources")))
	}
	add(head + "  " + verdict)
	add("  " + st.Dim.Render(fmt.Sprintf("%s checked · %s ok · %s failed · %s unverifiable · %s warned · %s read in %s",
		components.Count(r.Checked), components.Count(r.OK), components.Count(r.Failed), components.Count(r.Unverifiable),
		components.Count(r.Warned), display.Size(r.Bytes), r.Elapsed.Round(time.Millisecond))))
	if r.Stopped != "" {
		add("  " + st.Warning.Render("stopped: "+string(r.Stopped)))
	}
	add("")
	origin := components.OriginOf(v.req.From)
	for _, res := range r.Resources {
		items = append(items, len(out))
		name := components.Escape(components.DisplayLoc(origin, res.URL))
		line := verdictMark(st, res.Verdict) + " " + st.URL.Render(name)
		if res.Gone {
			line += st.Dim.Render("  deleted: must be gone")
		} else if res.Changed {
			line += st.Dim.Render("  a change's claims")
		}
		add(line)
		if res.Unfetchable != "" {
			add("    " + st.MarkUnknown.Render("? ") + st.Dim.Render(components.Escape(res.Unfetchable)))
			continue
		}
		for _, tr := range res.Result.Results {
			indent := "    "
			if tr.Target.Mirror > 0 {
				add("    " + verdictMark(st, tr.Verdict()) + st.Label.Render(" mirror ") + st.URL.Render(components.Escape(tr.Target.URL)))
				indent = "      "
			}
			for _, c := range tr.Checks {
				if c.Verdict == claims.NotDeclared {
					continue
				}
				text := fmt.Sprintf("%-8s", c.Field)
				if c.Declared != "" {
					text += " " + c.Declared
				}
				if c.Verdict != claims.OK && c.Actual != "" {
					text += " → " + c.Actual
				}
				if c.Reason != "" && c.Verdict != claims.OK {
					text += " (" + c.Reason + ")"
				}
				add(cellsOf(v.c).Fit(indent+verdictMark(st, c.Verdict)+" "+st.Value.Render(components.Escape(text)), w))
			}
		}
	}
	if len(r.Resources) == 0 {
		add("  " + st.Dim.Render("no resource was checked"))
	}
	return out, items
}
