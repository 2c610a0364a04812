package ui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"rsx/fetch"
	"rsx/session"
)

// httpView shows the HTTP exchanges the client recorded: a list on top, the
// selected exchange in detail below (request line and headers as recorded,
// credentials already redacted by fetch; the redirect chain; the response
// status and headers; timings, bytes, tries, cache use and the error).
type httpView struct {
	c         *Common
	exchanges []*fetch.Exchange

	width, height int
	sel           int
	listTop       int
	detail        []string // the selected exchange, one string per line
	detailTop     int
}

// newHTTPView returns a view of exchanges (oldest first); the newest is
// selected.
func newHTTPView(c *Common, exchanges []*fetch.Exchange) httpView {
	v := httpView{c: c}
	v.SetExchanges(exchanges)
	v.selectIndex(len(v.exchanges) - 1)
	return v
}

// SetExchanges replaces the list (e.g. with Backend.Exchanges() after more
// requests), keeping the selection on the same position, or on the newest
// exchange when the newest was selected.
func (v *httpView) SetExchanges(exchanges []*fetch.Exchange) {
	followNewest := len(v.exchanges) > 0 && v.sel == len(v.exchanges)-1
	v.exchanges = v.exchanges[:0:0]
	for _, e := range exchanges {
		if e != nil {
			v.exchanges = append(v.exchanges, e)
		}
	}
	if followNewest {
		v.sel = len(v.exchanges) - 1
	}
	v.selectIndex(v.sel)
}

// Selected returns the selected exchange, nil when there is none.
func (v httpView) Selected() *fetch.Exchange {
	if v.sel < 0 || v.sel >= len(v.exchanges) {
		return nil
	}
	return v.exchanges[v.sel]
}

// SetSize sets the size the view draws in.
func (v *httpView) SetSize(w, h int) {
	v.width, v.height = w, h
	v.selectIndex(v.sel)
}

// KeyBindings are the bindings the view answers to, for the help screen.
func (v httpView) KeyBindings() []key.Binding {
	k := ivKeys(v.c)
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Copy}
}

// listHeight is the number of exchange rows shown (the list takes at most a
// third of the view).
func (v httpView) listHeight() int {
	return ivClamp(len(v.exchanges), 1, max(v.height/3, 3))
}

// detailHeight: title, column header, list, separator, detail.
func (v httpView) detailHeight() int { return max(v.height-3-v.listHeight(), 1) }

func (v *httpView) selectIndex(i int) {
	old := v.sel
	v.sel = ivClamp(i, 0, len(v.exchanges)-1)
	v.listTop = ivClamp(ivScrollTo(v.listTop, v.sel, v.listHeight()), 0, max(len(v.exchanges)-v.listHeight(), 0))
	if old != v.sel || v.detail == nil {
		v.detailTop = 0
	}
	v.detail = httpDetailLines(ivStyles(v.c), v.Selected(), v.width)
	v.detailTop = ivClamp(v.detailTop, 0, len(v.detail)-v.detailHeight())
}

func (v *httpView) scrollDetail(n int) {
	v.detailTop = ivClamp(v.detailTop+n, 0, len(v.detail)-v.detailHeight())
}

// Update handles keys and the mouse wheel.
func (v httpView) Update(msg tea.Msg) (httpView, tea.Cmd) {
	k := ivKeys(v.c)
	switch msg := msg.(type) {
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			v.scrollDetail(-3)
		case tea.MouseWheelDown:
			v.scrollDetail(3)
		}
	case tea.KeyPressMsg:
		page := v.detailHeight()
		switch {
		case key.Matches(msg, k.Down):
			v.selectIndex(v.sel + 1)
		case key.Matches(msg, k.Up):
			v.selectIndex(v.sel - 1)
		case key.Matches(msg, k.Top):
			v.selectIndex(0)
		case key.Matches(msg, k.Bottom):
			v.selectIndex(len(v.exchanges) - 1)
		case key.Matches(msg, k.PageDown):
			v.scrollDetail(page)
		case key.Matches(msg, k.PageUp):
			v.scrollDetail(-page)
		case key.Matches(msg, k.HalfDown):
			v.scrollDetail(page / 2)
		case key.Matches(msg, k.HalfUp):
			v.scrollDetail(-page / 2)
		case key.Matches(msg, k.Copy):
			if e := v.Selected(); e != nil {
				return v, ivCmd(copyMsg{Text: e.URL, What: "URL"})
			}
		}
	}
	return v, nil
}

// View draws the list and the selected exchange.
func (v httpView) View() string {
	st := ivStyles(v.c)
	w := max(v.width, 1)
	lines := make([]string, 0, v.height)
	title := st.Title.Render("HTTP") + "  " + st.Dim.Render(ivPlural(len(v.exchanges), "exchange", "exchanges"))
	lines = append(lines, ivFit(title, w))
	if len(v.exchanges) == 0 {
		lines = append(lines, st.Dim.Render("no HTTP request made yet"))
		return strings.Join(ivWindow(lines, 0, max(v.height, 1)), "\n")
	}

	numW := len(fmt.Sprint(len(v.exchanges)))
	cols := fmt.Sprintf("  %*s  %-6s %-6s %8s %10s  ", numW, "#", "Method", "Status", "Time", "Bytes")
	lines = append(lines, ivFit(st.Header.Render(cols+"URL"), w))
	lh := v.listHeight()
	for i := v.listTop; i < v.listTop+lh; i++ {
		if i >= len(v.exchanges) {
			lines = append(lines, "")
			continue
		}
		lines = append(lines, v.listRow(st, i, numW, w))
	}
	sep := "── exchange " + fmt.Sprint(v.sel+1) + " "
	lines = append(lines, st.Dim.Render(ivFit(sep+strings.Repeat("─", max(w-len([]rune(sep)), 0)), w)))
	for _, l := range ivWindow(v.detail, v.detailTop, v.detailHeight()) {
		lines = append(lines, ivFit(l, w))
	}
	return strings.Join(ivWindow(lines, 0, max(v.height, 1)), "\n")
}

func (v httpView) listRow(st viewStyles, i, numW, w int) string {
	e := v.exchanges[i]
	status := httpStatusCell(e)
	cells := fmt.Sprintf("%*d  %-6s ", numW, i+1, ivSanitize(e.Method))
	statusCell := fmt.Sprintf("%-6s", status)
	rest := fmt.Sprintf(" %8s %10s  ", httpDuration(e.Duration), httpBytes(e))
	url := ivSanitize(e.URL)
	if e.FinalURL != "" && e.FinalURL != e.URL {
		url += " → " + ivSanitize(e.FinalURL)
	}
	if e.FromCache {
		url += "  (cache)"
	}
	if i == v.sel {
		return st.Selected.Render(ivPad("▸ "+cells+statusCell+rest+url, w))
	}
	style := st.HTTPStatus(e.Status)
	if e.Err != "" && e.Status == 0 {
		style = st.Error
	}
	return ivFit("  "+cells+style.Render(statusCell)+rest+st.URL.Render(url), w)
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
	return fetch.FormatSize(e.Bytes)
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

func ivPlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// httpDetailLines renders one exchange in full. Long errors are wrapped to width.
func httpDetailLines(st viewStyles, e *fetch.Exchange, width int) []string {
	if e == nil {
		return nil
	}
	var out []string
	add := func(s string) { out = append(out, s) }
	label := func(s string) string { return st.Section.Render(fmt.Sprintf("%-10s", s)) }

	add(label("Request") + st.Value.Render(ivSanitize(e.Method)+" ") + st.URL.Render(ivSanitize(e.URL)))
	out = append(out, httpHeaderLines(st, e.RequestHeader)...)

	if len(e.Redirects) > 0 {
		add(label("Redirects") + st.Dim.Render(ivPlural(len(e.Redirects), "hop", "hops")))
		for i, r := range e.Redirects {
			line := fmt.Sprintf("  %d. ", i+1) + st.HTTPStatus(r.Status).Render(fmt.Sprintf("%d %s", r.Status, session.StatusText(r.Status))) +
				"  " + st.URL.Render(ivSanitize(r.URL))
			add(line)
			loc := "     " + st.Label.Render("Location: ") + st.Value.Render(ivSanitize(r.Location))
			if r.To != "" && r.To != r.Location {
				loc += st.Dim.Render("  → " + ivSanitize(r.To))
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
		line := label("Response") + st.HTTPStatus(e.Status).Render(fmt.Sprintf("%d %s", e.Status, ivSanitize(text)))
		if e.FinalURL != "" && e.FinalURL != e.URL {
			line += st.Dim.Render("  from ") + st.URL.Render(ivSanitize(e.FinalURL))
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

	transfer := []string{fetch.FormatSize(e.Bytes), ivPlural(max(e.Tries, 1), "try", "tries")}
	if e.FromCache {
		transfer = append(transfer, "from cache")
	}
	if e.Revalidated {
		transfer = append(transfer, "revalidated (304 Not Modified)")
	}
	add(label("Transfer") + st.Value.Render(strings.Join(transfer, " · ")))
	if e.Err != "" {
		wrapped := strings.Split(ansi.Wrap(ivSanitize(e.Err), max(width-10, 20), " /"), "\n")
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
func httpHeaderLines(st viewStyles, h map[string][]string) []string {
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
			out = append(out, "  "+st.Label.Render(ivSanitize(name)+": ")+st.Value.Render(ivSanitize(val)))
		}
	}
	return out
}
