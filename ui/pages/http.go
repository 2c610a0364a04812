package pages

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"rsx/display"
	"rsx/fetch"
	"rsx/session"
	"rsx/ui/common"
	"rsx/ui/components"
	"rsx/ui/nav"
)

// HTTP shows the HTTP exchanges the client recorded: a list on top, the
// selected exchange in detail below (request line and headers as recorded,
// credentials already redacted by fetch; the redirect chain; the response
// status and headers; timings, bytes, tries, cache use and the error). j/k
// select an exchange, the page keys scroll its detail.
type HTTP struct {
	c         *common.Common
	source    ExchangeSource // asked again while loads run; nil: a fixed list
	exchanges []*fetch.Exchange

	width, height int
	list          components.List // the selected exchange
	detail        []string        // the selected exchange, one string per line
	detailScroll  components.List
}

// ExchangeSource gives the exchanges made so far.
type ExchangeSource interface {
	Exchanges() []*fetch.Exchange
}

// SetSource makes the page ask s again for the exchanges made since, while
// loads run.
func (v *HTTP) SetSource(s ExchangeSource) { v.source = s }

// NewHTTP returns a page of exchanges (oldest first); the newest is
// selected.
func NewHTTP(c *common.Common, exchanges []*fetch.Exchange) *HTTP {
	v := &HTTP{c: c, list: components.NewList(components.Select), detailScroll: components.NewList(components.Scroll)}
	v.SetExchanges(exchanges)
	v.Select(len(v.exchanges) - 1)
	return v
}

// SetExchanges replaces the list (with the exchanges made since), keeping
// the selection on the same position, or on the newest exchange when the
// newest was selected.
func (v *HTTP) SetExchanges(exchanges []*fetch.Exchange) {
	sel := v.list.Cursor()
	followNewest := len(v.exchanges) > 0 && sel == len(v.exchanges)-1
	v.exchanges = v.exchanges[:0:0]
	for _, e := range exchanges {
		if e != nil {
			v.exchanges = append(v.exchanges, e)
		}
	}
	if followNewest {
		sel = len(v.exchanges) - 1
	}
	v.list.SetLen(len(v.exchanges))
	v.Select(sel)
}

// Selected returns the selected exchange, nil when there is none.
func (v *HTTP) Selected() *fetch.Exchange {
	i := v.list.Cursor()
	if i < 0 || i >= len(v.exchanges) {
		return nil
	}
	return v.exchanges[i]
}

// SetSize sets the size the page draws in.
func (v *HTTP) SetSize(w, h int) {
	v.width, v.height = w, h
	v.list.SetHeight(v.listHeight())
	v.detail = nil // laid out again for this width and theme
	v.Select(v.list.Cursor())
}

func (v *HTTP) Init() tea.Cmd         { return nil }
func (v *HTTP) Title() string         { return "HTTP" }
func (v *HTTP) InputActive() bool     { return false }
func (v *HTTP) Busy() bool            { return false }
func (v *HTTP) Back() (bool, tea.Cmd) { return false, nil }
func (v *HTTP) Close()                {}
func (v *HTTP) KeyBindings() []key.Binding {
	k := &v.c.Keys
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Copy}
}

// HelpBindings are the page's keys that work just now (nav.KeyHelper):
// lines and ends choose among the exchanges, pages scroll the one chosen.
func (v *HTTP) HelpBindings() []key.Binding {
	k := &v.c.Keys
	many, long := len(v.exchanges) > 1, v.detailScroll.Len() > v.detailScroll.Height()
	return []key.Binding{common.When(many, k.Up), common.When(many, k.Down), common.When(long, k.PageUp), common.When(long, k.PageDown),
		common.When(long, k.HalfUp), common.When(long, k.HalfDown), common.When(many, k.Top), common.When(many, k.Bottom), common.When(v.Selected() != nil, k.Copy)}
}

// listHeight is the number of exchange rows shown (the list takes at most a
// third of the page).
func (v *HTTP) listHeight() int {
	return components.Clamp(len(v.exchanges), 1, max(v.height/3, 3))
}

// detailHeight: title, column header, list, separator, detail.
func (v *HTTP) detailHeight() int { return max(v.height-3-v.listHeight(), 1) }

// Select selects exchange i and lays its detail out.
func (v *HTTP) Select(i int) {
	old := v.list.Cursor()
	v.list.SetHeight(v.listHeight())
	v.list.Select(i)
	if old != v.list.Cursor() || v.detail == nil {
		v.detailScroll.SetOffset(0)
	}
	v.detail = httpDetailLines(v.c.Styles, v.Selected(), v.width)
	v.detailScroll.SetHeight(v.detailHeight())
	v.detailScroll.SetLen(len(v.detail))
}

// Update handles keys and the mouse wheel: lines and ends select an
// exchange, pages and the wheel scroll its detail.
func (v *HTTP) Update(msg tea.Msg) (nav.Page, tea.Cmd) {
	k := &v.c.Keys
	switch msg := msg.(type) {
	case spinner.TickMsg:
		// Loads run: show the exchanges made since.
		if v.source != nil {
			if ex := v.source.Exchanges(); len(ex) > 0 {
				v.SetExchanges(ex)
			}
		}
	case tea.KeyPressMsg, tea.MouseWheelMsg:
		if step, ok := components.StepOf(msg, k); ok {
			switch step.Kind {
			case components.StepLine, components.StepTop, components.StepBottom:
				v.list.Apply(step)
				v.Select(v.list.Cursor())
			default:
				v.detailScroll.Apply(step)
			}
			return v, nil
		}
		if km, ok := msg.(tea.KeyPressMsg); ok && key.Matches(km, k.Copy) {
			if e := v.Selected(); e != nil {
				return v, nav.Cmd(nav.CopyMsg{Text: e.URL, What: "URL"})
			}
		}
	}
	return v, nil
}

// View draws the list and the selected exchange.
func (v *HTTP) View() string {
	st := v.c.Styles
	w := max(v.width, 1)
	lines := make([]string, 0, v.height)
	title := st.Title.Render("HTTP") + "  " + st.Dim.Render(display.Plural(len(v.exchanges), "exchange", "exchanges"))
	lines = append(lines, cellsOf(v.c).Fit(title, w))
	if len(v.exchanges) == 0 {
		lines = append(lines, st.Dim.Render("no HTTP request made yet"))
		return strings.Join(components.Window(lines, 0, max(v.height, 1)), "\n")
	}

	numW := len(fmt.Sprint(len(v.exchanges)))
	cols := fmt.Sprintf("  %*s  %-6s %-6s %8s %10s  ", numW, "#", "Method", "Status", "Time", "Bytes")
	lines = append(lines, cellsOf(v.c).Fit(st.Header.Render(cols+"URL"), w))
	lh := v.listHeight()
	top := v.list.Offset()
	for i := top; i < top+lh; i++ {
		if i >= len(v.exchanges) {
			lines = append(lines, "")
			continue
		}
		lines = append(lines, v.listRow(st, i, numW, w))
	}
	sep := "── exchange " + fmt.Sprint(v.list.Cursor()+1) + " "
	lines = append(lines, st.Dim.Render(cellsOf(v.c).Fit(sep+strings.Repeat("─", max(w-len([]rune(sep)), 0)), w)))
	for _, l := range components.Window(v.detail, v.detailScroll.Offset(), v.detailHeight()) {
		lines = append(lines, cellsOf(v.c).Fit(l, w))
	}
	return strings.Join(components.Window(lines, 0, max(v.height, 1)), "\n")
}

func (v *HTTP) listRow(st *common.Styles, i, numW, w int) string {
	e := v.exchanges[i]
	status := httpStatusCell(e)
	cells := fmt.Sprintf("%*d  %-6s ", numW, i+1, components.Escape(e.Method))
	statusCell := fmt.Sprintf("%-6s", status)
	rest := fmt.Sprintf(" %8s %10s  ", httpDuration(e.Duration), httpBytes(e))
	url := components.Escape(e.URL)
	if e.FinalURL != "" && e.FinalURL != e.URL {
		url += " → " + components.Escape(e.FinalURL)
	}
	if e.FromCache {
		url += "  (cache)"
	}
	if i == v.list.Cursor() {
		return st.Selected.Render(cellsOf(v.c).Pad("▸ "+cells+statusCell+rest+url, w))
	}
	style := st.HTTPStatus(e.Status)
	if e.Err != "" && e.Status == 0 {
		style = st.Error
	}
	return cellsOf(v.c).Fit("  "+cells+style.Render(statusCell)+rest+st.URL.Render(url), w)
}

// httpStatusCell is the short status of an exchange in the list.
func httpStatusCell(e *fetch.Exchange) string {
	switch {
	case e.Status != 0:
		s := fmt.Sprint(e.Status)
		return s
	case e.Err != "":
		return "error"
	case !e.Done:
		return "…"
	}
	return "–"
}

func httpBytes(e *fetch.Exchange) string {
	if e.Bytes == 0 && !e.Done {
		return ""
	}
	return display.Size(e.Bytes)
}

// httpDuration rounds a duration for display: ms below a minute.
func httpDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "–"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Minute:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// httpDetailLines renders one exchange in full. Long errors are wrapped to width.
func httpDetailLines(st *common.Styles, e *fetch.Exchange, width int) []string {
	if e == nil {
		return nil
	}
	var out []string
	add := func(s string) { out = append(out, s) }
	label := func(s string) string { return st.Section.Render(fmt.Sprintf("%-10s", s)) }

	add(label("Request") + st.Value.Render(components.Escape(e.Method)+" ") + st.URL.Render(components.Escape(e.URL)))
	out = append(out, httpHeaderLines(st, e.RequestHeader)...)

	if len(e.Redirects) > 0 {
		add(label("Redirects") + st.Dim.Render(display.Plural(len(e.Redirects), "hop", "hops")))
		for i, r := range e.Redirects {
			line := fmt.Sprintf("  %d. ", i+1) + st.HTTPStatus(r.Status).Render(fmt.Sprintf("%d %s", r.Status, session.StatusText(r.Status))) +
				"  " + st.URL.Render(components.Escape(r.URL))
			add(line)
			loc := "     " + st.Label.Render("Location: ") + st.Value.Render(components.Escape(r.Location))
			if r.To != "" && r.To != r.Location {
				loc += st.Dim.Render("  → " + components.Escape(r.To))
			}
			add(loc)
		}
	}

	switch {
	case e.Status != 0:
		text := e.StatusText
		if text == "" {
			text = session.StatusText(e.Status)
		}
		line := label("Response") + st.HTTPStatus(e.Status).Render(fmt.Sprintf("%d %s", e.Status, components.Escape(text)))
		if e.FinalURL != "" && e.FinalURL != e.URL {
			line += st.Dim.Render("  from ") + st.URL.Render(components.Escape(e.FinalURL))
		}
		add(line)
		out = append(out, httpHeaderLines(st, e.ResponseHeader)...)
	case !e.Done && e.Err == "":
		add(label("Response") + st.Dim.Render("waiting…"))
	default:
		add(label("Response") + st.Dim.Render("none"))
	}

	timing := "TTFB " + httpDuration(e.TTFB) + " · total " + httpDuration(e.Duration)
	if !e.Started.IsZero() {
		timing += " · started " + e.Started.UTC().Format("2006-01-02 15:04:05.000Z")
	}
	if !e.Done && e.Err == "" {
		timing += " · in progress"
	}
	add(label("Timing") + st.Value.Render(timing))

	transfer := []string{display.Size(e.Bytes), display.Plural(max(e.Tries, 1), "try", "tries")}
	if e.FromCache {
		transfer = append(transfer, "from cache")
	}
	if e.Revalidated {
		transfer = append(transfer, "revalidated (304 Not Modified)")
	}
	add(label("Transfer") + st.Value.Render(strings.Join(transfer, " · ")))
	if e.Err != "" {
		wrapped := strings.Split(ansi.Wrap(components.Escape(e.Err), max(width-10, 20), " /"), "\n")
		for i, l := range wrapped {
			lead := label("Error")
			if i > 0 {
				lead = strings.Repeat(" ", 10)
			}
			add(lead + st.Error.Render(l))
		}
	}
	return out
}

// httpHeaderLines lists headers sorted by name, one value per line.
func httpHeaderLines(st *common.Styles, h map[string][]string) []string {
	if len(h) == 0 {
		return []string{"  " + st.Dim.Render("(no headers)")}
	}
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []string
	for _, name := range names {
		for _, val := range h[name] {
			out = append(out, "  "+st.Label.Render(components.Escape(name)+": ")+st.Value.Render(components.Escape(val)))
		}
	}
	return out
}
