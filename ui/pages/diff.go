package pages

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/display"
	"rsx/memento"
	"rsx/model"
	"rsx/session"
	"rsx/ui/common"
	"rsx/ui/components"
	"rsx/ui/nav"
)

// Diff compares a version of a resource (a memento) with the resource
// as it is now: status, size, media type and every digest side by side,
// then, for texts of a readable size, a unified diff.
type Diff struct {
	c       *common.Common
	b       Mementos
	version memento.Memento
	current string
	session *diffSession

	busy   bool
	cancel context.CancelFunc
	res    *session.VersionDiff

	width, height int
	scroll        components.List
	drawn         []string // the comparison drawn for width (lines), once it is in
}

// diffSession identifies one diff page for its result (not zero-sized).
type diffSession struct{ _ byte }

// diffDoneMsg carries a comparison.
type diffDoneMsg struct {
	session *diffSession
	res     session.VersionDiff
}

// NewDiff returns the page comparing version with the resource at
// current; Init fetches both.
func NewDiff(c *common.Common, b Mementos, version memento.Memento, current string) *Diff {
	return &Diff{c: c, b: b, version: version, current: current, session: &diffSession{}, scroll: components.NewList(components.Scroll)}
}

// Init fetches and compares.
func (v *Diff) Init() tea.Cmd { return v.start() }

func (v *Diff) start() tea.Cmd {
	if v.cancel != nil {
		v.cancel()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	v.cancel, v.busy, v.res = cancel, true, nil
	b, s, ver, cur := v.b, v.session, v.version.URL, v.current
	return func() tea.Msg {
		defer cancel()
		return diffDoneMsg{session: s, res: b.CompareVersions(ctx, ver, cur)}
	}
}

func (v *Diff) Title() string     { return "Diff" }
func (v *Diff) InputActive() bool { return false }
func (v *Diff) Busy() bool        { return v.busy }

// Back cancels a comparison in flight; then esc leaves.
func (v *Diff) Back() (bool, tea.Cmd) {
	if v.busy && v.cancel != nil {
		v.cancel()
		return true, nil
	}
	return false, nil
}

// Close stops the comparison.
func (v *Diff) Close() {
	if v.cancel != nil {
		v.cancel()
	}
}

// KeyBindings are the page's own bindings.
func (v *Diff) KeyBindings() []key.Binding {
	k := &v.c.Keys
	return []key.Binding{k.Up, k.Down, common.Short(k.Retry, "compare again")}
}

// HelpBindings are the page's keys (nav.KeyHelper): the footer's, with
// every movement key where there is somewhere to move.
func (v *Diff) HelpBindings() []key.Binding {
	return withMoves(v.c.Keys, v.KeyBindings(), v.scroll.Len() > v.scroll.Height())
}

// SetSize lays the page out for w×h cells.
func (v *Diff) SetSize(w, h int) {
	v.width, v.height = w, h
	v.scroll.SetHeight(max(h, 1))
	v.relayout()
}

// relayout draws the comparison for the page's width, once: a diff of two
// texts of megabytes is tens of thousands of lines, which View only windows.
func (v *Diff) relayout() {
	v.drawn = v.lines()
	v.scroll.SetLen(len(v.drawn))
}

// Update handles the comparison's end and scrolling.
func (v *Diff) Update(msg tea.Msg) (nav.Page, tea.Cmd) {
	switch msg := msg.(type) {
	case diffDoneMsg:
		if msg.session != v.session {
			return v, nil
		}
		v.busy, v.cancel = false, nil
		res := msg.res
		v.res = &res
		v.relayout()
	case tea.MouseWheelMsg:
		v.scroll.Update(msg, &v.c.Keys)
	case tea.KeyPressMsg:
		if v.scroll.Update(msg, &v.c.Keys) {
			return v, nil
		}
		if key.Matches(msg, v.c.Keys.Retry) {
			return v, v.start()
		}
	}
	return v, nil
}

// lines draws the whole comparison.
func (v *Diff) lines() []string {
	st := v.c.Styles
	w := max(v.width, 1)
	when := orEmpty(v.version.DatetimeRaw, "no datetime")
	if !v.version.Datetime.IsZero() {
		when = model.FormatDatetime(v.version.Datetime)
	}
	out := []string{
		st.Title.Render("Diff") + st.Dim.Render("  the version of "+when+" against the resource now"),
		"  " + st.Label.Render("version  ") + st.URL.Render(components.Escape(v.version.URL)),
		"  " + st.Label.Render("current  ") + st.URL.Render(components.Escape(v.current)),
		"",
	}
	r := v.res
	if r == nil {
		msg := v.c.Spinner.View() + " fetching both …"
		if !v.busy {
			msg = "cancelled · r compares again"
		}
		return append(out, st.Dim.Render(msg))
	}
	colW := max(min((w-16)/2, 66), 12)
	row := func(field, a, b string, same bool) string {
		m := MarkMatch
		if !same {
			m = MarkMismatch
		}
		return " " + m.Render(st) + " " + st.Label.Render(fmt.Sprintf("%-8s", field)) + " " +
			st.Value.Render(cellsOf(v.c).Pad(cellsOf(v.c).Truncate(components.Escape(a), colW, components.TruncMiddle), colW)) + " " +
			st.Value.Render(cellsOf(v.c).Truncate(components.Escape(b), colW, components.TruncMiddle))
	}
	out = append(out, st.Header.Render(fmt.Sprintf("   %-8s %-*s %s", "", colW, "version", "current")))
	a, b := r.Version, r.Current
	bodyErr := func(x session.Body) string {
		if x.Err != nil {
			return x.Err.Error()
		}
		return ""
	}
	if a.Err != nil || b.Err != nil {
		out = append(out, row("fetch", orEmpty(bodyErr(a), "ok"), orEmpty(bodyErr(b), "ok"), false))
	}
	status := func(x session.Body) string {
		if x.Status == 0 {
			return "–"
		}
		return fmt.Sprintf("%d %s", x.Status, session.StatusText(x.Status))
	}
	out = append(out,
		row("status", status(a), status(b), a.Status == b.Status),
		row("length", fmt.Sprintf("%d (%s)", a.Bytes, display.Size(a.Bytes)), fmt.Sprintf("%d (%s)", b.Bytes, display.Size(b.Bytes)), a.Bytes == b.Bytes),
		row("type", orEmpty(a.MediaType, "none"), orEmpty(b.MediaType, "none"), a.MediaType == b.MediaType))
	for i := range a.Digests {
		if i < len(b.Digests) {
			out = append(out, row(a.Digests[i].Alg, a.Digests[i].Hex, b.Digests[i].Hex, a.Digests[i] == b.Digests[i]))
		}
	}
	out = append(out, "")
	switch {
	case a.Err != nil || b.Err != nil:
		out = append(out, st.Error.Render("✗ not compared: "+components.Escape(orEmpty(bodyErr(a), bodyErr(b)))))
	case r.Same:
		out = append(out, st.OK.Render("✓ the same bytes: this version is the resource as it is now"))
	default:
		added, removed := diffCounts(r.Diff)
		s := st.MarkBad.Render("✗ they differ")
		if r.Diff != "" {
			s += st.Dim.Render(fmt.Sprintf(" · %s added, %s removed", display.Plural(added, "line", "lines"), display.Plural(removed, "line", "lines")))
		}
		out = append(out, s)
	}
	if r.Note != "" {
		out = append(out, st.Warning.Render(components.Escape(r.Note)))
	}
	if r.Diff != "" {
		out = append(out, "")
		for _, l := range strings.Split(strings.TrimRight(r.Diff, "\n"), "\n") {
			style := st.Dim
			switch {
			case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
				style = st.Label
			case strings.HasPrefix(l, "+"):
				style = st.Created
			case strings.HasPrefix(l, "-"):
				style = st.Deleted
			case strings.HasPrefix(l, "@@"):
				style = st.Rel
			}
			// Long lines wrap (a document on one line changes in one line):
			// the whole change is seen.
			for j, part := range cellsOf(v.c).HardWrap(components.EscapeLine(strings.TrimRight(l, "\r")), max(w-2, 10)) {
				if j > 0 {
					part = "↪" + part
				}
				out = append(out, style.Render(part))
			}
		}
	}
	return out
}

// diffCounts counts the lines a unified diff adds and removes.
func diffCounts(diff string) (added, removed int) {
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

// View draws the visible part of the comparison.
func (v *Diff) View() string {
	lines := v.drawn
	if v.res == nil {
		lines = v.lines() // the spinner turns
	}
	return cellsOf(v.c).Scrolled(lines, v.scroll.Offset(), v.width, v.height)
}
