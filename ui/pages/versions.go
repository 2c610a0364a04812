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

// Versions shows the versions of a resource through Memento (section 14
// of the specification, RFC 7089): its TimeMap read as a table of versions
// with their datetimes. enter opens a version's resource view, c compares a
// version with the resource as it is now, and t asks the TimeGate
// (Accept-Datetime) for the version in effect at a datetime the user types.
// Without a TimeMap link, the TimeGate is asked for now and its Link header
// leads to the TimeMap; without either, the entry's memento links are the
// versions.
type Versions struct {
	c       *common.Common
	b       ResourceBackend
	refs    VersionRefs
	origin  string // the document the versions' entry came from (NewVersions)
	session *versionsSession

	tm      *memento.TimeMap
	tmURL   string
	rows    []memento.Memento
	loading bool
	err     error
	cancel  context.CancelFunc

	tbl components.Table

	input    components.Input
	asking   bool // the datetime input has the keyboard
	gate     *session.TimeGateAnswer
	gateErr  error
	gateBusy bool

	width, height int
}

// versionsSession identifies one versions page for its results. It must
// not be zero-sized: pointers to distinct zero-size values may compare
// equal.
type versionsSession struct{ _ byte }

// versionsMapMsg carries the TimeMap of a versions page, and the TimeGate's
// answer when it was asked to find the TimeMap.
type versionsMapMsg struct {
	session *versionsSession
	url     string
	tm      *memento.TimeMap
	gate    *session.TimeGateAnswer
	err     error
}

// versionsGateMsg carries the TimeGate's answer for a datetime.
type versionsGateMsg struct {
	session *versionsSession
	answer  session.TimeGateAnswer
	err     error
}

// NewVersions returns the versions page of refs; Init reads the
// TimeMap. origin is the document whose entry refs come from (as
// NewResource's).
func NewVersions(c *common.Common, b ResourceBackend, origin string, refs VersionRefs) *Versions {
	v := &Versions{c: c, b: b, origin: origin, refs: refs, session: &versionsSession{}, tbl: components.NewTable(c),
		input: components.NewInput(c.Styles, "at: ")}
	v.tbl.SetColumns(v.columns())
	if refs.TimeMap == "" && refs.TimeGate == "" {
		// Only the document's memento links: they are the versions known.
		for _, l := range refs.Mementos {
			m := memento.Memento{URL: l.Href, Rels: strings.Fields(l.Rel), Type: l.Type, DatetimeRaw: l.Modified.Raw}
			if l.Modified.OK {
				m.Datetime = l.Modified.Time
			}
			v.rows = append(v.rows, m)
		}
		v.tbl.SetCount(len(v.rows))
	}
	return v
}

// columns of the versions table: datetime, memento and what is known of it.
func (v *Versions) columns() []components.Column {
	c := v.c
	return []components.Column{
		{Title: "datetime", Min: 20, Max: 20, Value: func(i int) string {
			if t := v.rows[i].Datetime; !t.IsZero() {
				return model.FormatDatetime(t)
			}
			if raw := v.rows[i].DatetimeRaw; raw != "" {
				return "? " + raw
			}
			return "? none"
		}, Paint: func(int) common.Paint { return c.Styles.Paint.Dim }},
		{Title: "memento", Min: 24, Flex: 4, Trunc: components.TruncMiddle, Value: func(i int) string {
			return components.Escape(v.rows[i].URL)
		}, Paint: func(int) common.Paint { return c.Styles.Paint.URL }},
		{Title: "notes", Min: 12, Flex: 1, Value: func(i int) string { return v.notes(i) }},
	}
}

// notes say what is known of version i: first, last, the one the document
// declares, the one the TimeGate answered.
func (v *Versions) notes(i int) string {
	m := v.rows[i]
	var out []string
	if m.IsFirst() {
		out = append(out, "first")
	}
	if m.IsLast() {
		out = append(out, "last")
	}
	for _, l := range v.refs.Mementos {
		if l.Href == m.URL {
			out = append(out, "in the document")
			break
		}
	}
	if v.gate != nil && v.gate.Memento == m.URL {
		out = append(out, "◆ TimeGate")
	}
	return strings.Join(out, ", ")
}

// Init reads the TimeMap (through the TimeGate when it is the only link).
func (v *Versions) Init() tea.Cmd { return v.load() }

// load fetches the TimeMap in a Cmd.
func (v *Versions) load() tea.Cmd {
	if v.refs.TimeMap == "" && v.refs.TimeGate == "" {
		return nil
	}
	if v.cancel != nil {
		v.cancel()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	v.cancel, v.loading, v.err = cancel, true, nil
	b, s, refs := v.b, v.session, v.refs
	return func() tea.Msg {
		defer cancel()
		msg := versionsMapMsg{session: s, url: refs.TimeMap}
		if msg.url == "" {
			// Only a TimeGate: its answer links to the TimeMap.
			a, err := b.TimeGate(ctx, refs.TimeGate, time.Now())
			msg.gate = &a
			if err != nil {
				msg.err = err
				return msg
			}
			if a.TimeMap == "" {
				msg.err = fmt.Errorf("the TimeGate %s links to no TimeMap", refs.TimeGate)
				return msg
			}
			msg.url = a.TimeMap
		}
		msg.tm, _, msg.err = b.TimeMap(ctx, msg.url)
		return msg
	}
}

// askGate asks the TimeGate for the version in effect at t.
func (v *Versions) askGate(t time.Time) tea.Cmd {
	gate := v.refs.TimeGate
	if gate == "" && v.tm != nil {
		gate = v.tm.TimeGate
	}
	if gate == "" {
		return nav.Flash("no TimeGate is known for this resource", true)
	}
	v.gateBusy, v.gateErr = true, nil
	b, s := v.b, v.session
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		a, err := b.TimeGate(ctx, gate, t)
		return versionsGateMsg{session: s, answer: a, err: err}
	}
}

func (v *Versions) Title() string     { return "Versions" }
func (v *Versions) InputActive() bool { return v.asking }
func (v *Versions) Busy() bool        { return v.loading || v.gateBusy }

// Back closes the datetime input, or cancels the TimeMap's load; then esc
// leaves.
func (v *Versions) Back() (bool, tea.Cmd) {
	switch {
	case v.asking:
		v.asking = false
		v.input.Stop()
		return true, nil
	case v.loading && v.cancel != nil:
		v.cancel()
		v.loading, v.err = false, context.Canceled
		return true, nil
	}
	return false, nil
}

// Close stops the TimeMap's load.
func (v *Versions) Close() {
	if v.cancel != nil {
		v.cancel()
	}
}

// KeyBindings are the page's own bindings, for the help screen and footer.
func (v *Versions) KeyBindings() []key.Binding {
	k := &v.c.Keys
	_, ok := v.selected() // none when the TimeMap failed and no link gave a version
	return []key.Binding{common.When(ok, common.Short(k.Open, "open the version")), common.When(ok, k.Compare), k.TimeGate,
		common.Short(k.Retry, "reload"), common.When(ok, k.Copy), common.When(ok, k.Browser)}
}

// HelpBindings are the page's keys (nav.KeyHelper): the footer's, with
// every movement key where there is somewhere to move.
func (v *Versions) HelpBindings() []key.Binding {
	return withMoves(v.c.Keys, v.KeyBindings(), v.tbl.Len() > 1)
}

// headerLines is the height of the lines above the table.
func (v *Versions) headerLines() []string {
	st := v.c.Styles
	w := max(v.width, 1)
	label := func(s string) string { return st.Section.Render(fmt.Sprintf("%-9s", s)) + " " }
	orig := v.refs.Original
	if v.tm != nil && v.tm.Original != "" {
		orig = v.tm.Original
	}
	out := []string{st.Title.Render("Versions") + "  " + st.URL.Render(components.Escape(orig))}
	switch {
	case v.loading:
		out = append(out, label("TimeMap")+st.Dim.Render(v.c.Spinner.View()+" reading "+components.Escape(orEmpty(v.refs.TimeMap, "the TimeGate's links"))+" …"))
	case v.err != nil:
		out = append(out, label("TimeMap")+st.Error.Render(components.Escape(v.err.Error()))+st.Dim.Render(" · r tries again"))
	case v.tm != nil:
		s := st.URL.Render(components.Escape(v.tmURL)) + st.Dim.Render(" · ") + st.Value.Render(display.Plural(len(v.rows), "memento", "mementos"))
		if n := len(v.rows); n > 0 && !v.rows[0].Datetime.IsZero() && !v.rows[n-1].Datetime.IsZero() {
			s += st.Dim.Render(" from " + model.FormatDatetime(v.rows[0].Datetime) + " to " + model.FormatDatetime(v.rows[n-1].Datetime))
		}
		out = append(out, label("TimeMap")+s)
	default:
		out = append(out, label("TimeMap")+st.Dim.Render("none linked: the document's memento links are the versions known"))
	}
	gate := v.refs.TimeGate
	if gate == "" && v.tm != nil {
		gate = v.tm.TimeGate
	}
	if gate != "" {
		out = append(out, label("TimeGate")+st.URL.Render(components.Escape(gate))+st.Dim.Render(" · t asks it for a datetime"))
	}
	switch {
	case v.gateBusy:
		out = append(out, label("")+st.Dim.Render(v.c.Spinner.View()+" asking the TimeGate …"))
	case v.gateErr != nil:
		out = append(out, label("")+st.Error.Render(components.Escape(v.gateErr.Error())))
	case v.gate != nil:
		a := v.gate
		s := st.Dim.Render("asked for "+model.FormatDatetime(a.Asked)+" → ") + st.URL.Render(components.Escape(a.Memento))
		if !a.Datetime.IsZero() {
			s += st.Dim.Render(" of " + model.FormatDatetime(a.Datetime))
		}
		if v.tm != nil && v.tm.Index(a.Memento) < 0 {
			s += st.Warning.Render(" (not in the TimeMap)")
		}
		out = append(out, label("")+s)
	}
	if v.tm != nil {
		for i, p := range v.tm.Problems {
			if i == 2 {
				out = append(out, label("")+st.Warning.Render(fmt.Sprintf("… %s more problems", display.Count(len(v.tm.Problems)-i))))
				break
			}
			out = append(out, label("")+st.Warning.Render("! "+components.Escape(p)))
		}
	}
	for i, l := range out {
		out[i] = cellsOf(v.c).Fit(l, w)
	}
	return append(out, "")
}

// detailLines describe the selected version.
func (v *Versions) detailLines() []string {
	st := v.c.Styles
	i := v.tbl.Selected()
	if i < 0 || i >= len(v.rows) {
		return nil
	}
	m := v.rows[i]
	line := st.Label.Render("version ") + st.URL.Render(components.Escape(m.URL))
	info := []string{"datetime " + orEmpty(m.DatetimeRaw, "none given"), "rel " + strings.Join(m.Rels, " ")}
	if m.Type != "" {
		info = append(info, "type "+m.Type)
	}
	return []string{line, st.Dim.Render(components.Escape(strings.Join(info, " · ")))}
}

func orEmpty(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// SetSize lays the page out for w×h cells.
func (v *Versions) SetSize(w, h int) {
	v.width, v.height = w, h
	v.input.SetStyles(v.c.Styles)
	v.input.SetWidth(max(w-50, 20))
	v.layout()
}

// layout gives the table what the header, the detail and the input leave.
func (v *Versions) layout() {
	rest := v.height - len(v.headerLines()) - 3 // detail (2) and the input line
	v.tbl.SetSize(v.width, max(rest, 3))
}

// Update handles keys, the mouse wheel and the page's results.
func (v *Versions) Update(msg tea.Msg) (nav.Page, tea.Cmd) {
	cmd := v.update(msg)
	v.layout()
	return v, cmd
}

func (v *Versions) update(msg tea.Msg) tea.Cmd {
	k := &v.c.Keys
	switch msg := msg.(type) {
	case versionsMapMsg:
		if msg.session != v.session {
			return nil
		}
		v.loading, v.cancel = false, nil
		if msg.gate != nil && msg.err == nil {
			v.gate = msg.gate
		}
		v.err = msg.err
		if msg.tm != nil {
			v.tm, v.tmURL, v.rows = msg.tm, msg.url, msg.tm.Mementos
			v.tbl.SetCount(len(v.rows))
			if v.gate != nil {
				v.tbl.SelectRow(v.tm.Index(v.gate.Memento))
			} else {
				v.tbl.MoveTo(len(v.rows) - 1) // the latest version
			}
		}
	case versionsGateMsg:
		if msg.session != v.session {
			return nil
		}
		v.gateBusy = false
		if msg.err != nil {
			v.gateErr = msg.err
			return nil
		}
		a := msg.answer
		v.gate = &a
		i := -1
		for j, m := range v.rows {
			if m.URL == a.Memento {
				i = j
			}
		}
		if i >= 0 {
			v.tbl.SelectRow(i)
		}
	case tea.MouseWheelMsg:
		v.tbl.Update(msg, k)
	case tea.PasteMsg:
		if v.asking {
			v.input.Update(msg)
		}
	case tea.KeyPressMsg:
		if v.asking {
			return v.inputKey(msg)
		}
		if v.tbl.Update(msg, k) {
			return nil
		}
		m, ok := v.selected()
		switch {
		case key.Matches(msg, k.TimeGate):
			v.asking = true
			v.input.Start("")
			return nil
		case key.Matches(msg, k.Retry):
			return v.load()
		case !ok:
			return nil
		case key.Matches(msg, k.Open):
			return nav.Push(v.versionPage(m))
		case key.Matches(msg, k.Compare):
			return nav.Push(NewDiff(v.c, v.b, m, v.original()))
		case key.Matches(msg, k.Copy):
			return nav.Cmd(nav.CopyMsg{Text: m.URL, What: "URL"})
		case key.Matches(msg, k.Browser):
			return nav.Cmd(nav.OpenBrowserMsg{URL: m.URL})
		}
	}
	return nil
}

// inputKey edits the datetime; enter asks the TimeGate.
func (v *Versions) inputKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &v.c.Keys
	switch {
	case key.Matches(msg, k.Cancel):
		v.asking = false
		v.input.Stop()
	case key.Matches(msg, k.Submit):
		t, err := memento.ParseWhen(v.input.Value())
		if err != nil {
			v.gateErr = err
			return nil
		}
		v.asking = false
		v.input.Stop()
		return v.askGate(t)
	default:
		v.input.Update(msg)
	}
	return nil
}

// selected is the version under the cursor.
func (v *Versions) selected() (memento.Memento, bool) {
	i := v.tbl.Selected()
	if i < 0 || i >= len(v.rows) {
		return memento.Memento{}, false
	}
	return v.rows[i], true
}

// original is the resource as it is now.
func (v *Versions) original() string {
	if v.tm != nil && v.tm.Original != "" {
		return v.tm.Original
	}
	return v.refs.Original
}

// versionPage is the resource view of version m, held to what the
// document's memento link of it declares, if there is one.
func (v *Versions) versionPage(m memento.Memento) *Resource {
	l := model.Link{Rel: "memento"}
	for _, dl := range v.refs.Mementos {
		if dl.Href == m.URL {
			l = dl
		}
	}
	p := NewResource(v.c, v.b, v.origin, linkEntry(l, m.URL))
	when := orEmpty(m.DatetimeRaw, "no datetime")
	p.via = "memento link of " + components.ShortURL(v.original()) + " (" + when + ")"
	return p
}

// View draws the header, the table, the selected version and the input.
func (v *Versions) View() string {
	st := v.c.Styles
	w := max(v.width, 1)
	lines := v.headerLines()
	switch {
	case len(v.rows) == 0 && v.loading:
		lines = append(lines, st.Dim.Render("reading the TimeMap …"))
	case len(v.rows) == 0:
		lines = append(lines, st.Dim.Render("no versions"))
	default:
		lines = append(lines, strings.Split(v.tbl.View(), "\n")...)
	}
	for len(lines) < v.height-3 {
		lines = append(lines, "")
	}
	lines = components.Window(lines, 0, max(v.height-3, 0))
	det := v.detailLines()
	for len(det) < 2 {
		det = append(det, "")
	}
	lines = append(lines, det...)
	if v.asking {
		lines = append(lines, v.input.View()+st.Dim.Render("  2026-01-05, 2026-01-05T10:30Z or an HTTP-date · enter asks the TimeGate · esc cancels"))
	} else {
		lines = append(lines, "")
	}
	for i, l := range lines {
		lines[i] = cellsOf(v.c).Fit(l, w)
	}
	return strings.Join(components.Window(lines, 0, max(v.height, 1)), "\n")
}
