package ui

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/display"
	"rsx/model"
	"rsx/notify"
	"rsx/ui/common"
	"rsx/ui/components"
	"rsx/ui/pages"
)

// notificationsPage shows the notifications of the open Source as they
// arrive, newest first: a line for each resource (change notifications) or
// document (framework notifications) that one names, with its channel, kind
// and change, marked when the notification has problems. Above them the
// channels and their connections; under them the selected notification
// whole. enter opens a resource's view, or a document. The subscription is
// the root's (notifications.go): it goes on when the page is closed.
type notificationsPage struct {
	c    *common.Common
	b    pages.ResourceBackend
	feed *notifyFeed
	hint string // said under the waiting line while no notification has come (Options.NotificationsHint)

	list          components.List // over the rows, newest first
	seen          int             // rows (received in all) when last drawn: new ones push the cursor down
	width, height int
}

// openNotificationsPage subscribes to the notifications of the document's
// Source, unless the root does already, and shows them.
func openNotificationsPage(pc pageContext) (Page, tea.Cmd, error) {
	if pc.doc == nil || pc.notes == nil {
		return nil, nil, errors.New("nothing is open")
	}
	cmd := pc.notes.start(pc.backend, sourceOf(pc.doc))
	v := newNotificationsPage(pc.c, pc.backend, pc.notes)
	v.hint = pc.notesHint
	return v, cmd, nil
}

func newNotificationsPage(c *common.Common, b pages.ResourceBackend, f *notifyFeed) *notificationsPage {
	v := &notificationsPage{c: c, b: b, feed: f, list: components.NewList(components.Select)}
	v.seen = v.received()
	return v
}

// received counts the rows the feed has had, dropped ones included.
func (v *notificationsPage) received() int { return len(v.feed.rows) + v.feed.dropped }

// row is the row shown at position i, newest first.
func (v *notificationsPage) row(i int) (noteRow, bool) {
	rows := v.feed.rows
	if i < 0 || i >= len(rows) {
		return noteRow{}, false
	}
	return rows[len(rows)-1-i], true
}

func (v *notificationsPage) Init() tea.Cmd         { return nil }
func (v *notificationsPage) Title() string         { return "Notifications" }
func (v *notificationsPage) InputActive() bool     { return false }
func (v *notificationsPage) Busy() bool            { return false }
func (v *notificationsPage) Back() (bool, tea.Cmd) { return false, nil }

// Close leaves the subscription running: it is the root's.
func (v *notificationsPage) Close() {}

// KeyBindings are the page's own keys.
func (v *notificationsPage) KeyBindings() []key.Binding {
	k := &v.c.Keys
	return []key.Binding{k.Up, k.Down, common.Short(k.Open, "open the resource or document"), k.Copy, k.Browser}
}

// SetSize lays the page out for w×h cells.
func (v *notificationsPage) SetSize(w, h int) {
	v.width, v.height = w, h
	v.layout()
}

// The page's lines: title, the channels (at most maxChannelLines), a blank
// and the table's header above the rows; the selected notification
// (detailLines) under them.
const (
	maxChannelLines = 4
	detailLines     = 8
)

func (v *notificationsPage) channelLines() int {
	return max(min(len(v.feed.channels), maxChannelLines), 1)
}

func (v *notificationsPage) layout() {
	v.list.SetHeight(max(v.height-3-v.channelLines()-detailLines, 1))
	v.list.SetLen(len(v.feed.rows))
}

// follow keeps the cursor on the row it was on as new rows arrive on top,
// unless it is on the newest, which it then follows.
func (v *notificationsPage) follow() {
	n := v.received()
	if added := n - v.seen; added > 0 {
		v.list.SetLen(len(v.feed.rows))
		if v.list.Cursor() > 0 {
			v.list.Select(v.list.Cursor() + added)
		}
		v.seen = n
	}
}

// Update handles keys and the wheel; the feed's events are the root's.
func (v *notificationsPage) Update(msg tea.Msg) (Page, tea.Cmd) {
	v.follow()
	k := &v.c.Keys
	if m, ok := msg.(tea.KeyPressMsg); ok {
		r, ok := v.row(v.list.Cursor())
		it, hasItem := r.Item()
		switch {
		case !ok || !hasItem:
		case key.Matches(m, k.Open):
			return v, v.open(r, it)
		case key.Matches(m, k.Copy):
			return v, msgCmd(copyMsg{Text: it.URL, What: "URL"})
		case key.Matches(m, k.Browser):
			return v, msgCmd(openBrowserMsg{URL: it.URL})
		}
	}
	v.list.Update(msg, k)
	return v, nil
}

// open shows what a row names: the document a framework notification says
// changed, or the view of a resource that a change notification names,
// held to what the notification declares of it.
func (v *notificationsPage) open(r noteRow, it notify.Item) tea.Cmd {
	origin := r.event.Channel.CapabilityList
	u := resolveAgainst(origin, it.URL)
	if r.event.Kind() == notify.KindFramework {
		return msgCmd(openURLMsg{URL: u, From: origin})
	}
	e := it.Entry
	e.Loc, e.Index = u, -1
	p := pages.NewResource(v.c, v.b, origin, e)
	p.SetVia("change notification")
	return pushPage(p)
}

// View draws the page.
func (v *notificationsPage) View() string {
	v.follow()
	st := v.c.Styles
	f := v.feed
	w := max(v.width, 1)
	var out []string
	add := func(s string) { out = append(out, components.Fit(s, w)) }

	head := st.Title.Render("Notifications") + "  " + st.Dim.Render("of ") + st.URL.Render(components.Escape(f.target))
	if full, _ := f.statusSegment(st); full != "" {
		head += "  " + full
	}
	add(head)
	for _, l := range v.channelText() {
		add("  " + l)
	}
	add("")

	// The table: received, kind, change, what changed, channel.
	const timeW, kindW, changeW = 8, 9, 8
	chanW := min(max(w/5, 18), 28)
	urlW := max(w-2-timeW-1-kindW-1-changeW-1-chanW-1, 12)
	add(st.Header.Render("  " + components.Pad("received", timeW) + " " + components.Pad("kind", kindW) + " " +
		components.Pad("change", changeW) + " " + components.Pad("resource or document", urlW) + " " + components.Pad("channel", chanW)))
	top := v.list.Offset()
	var waiting []string
	if len(v.feed.rows) == 0 {
		waiting = []string{v.waitingText()}
		if v.hint != "" && v.feed.err == nil && !v.feed.finding {
			waiting = append(waiting, strings.Split(v.hint, "\n")...)
		}
	}
	for i := top; i < top+v.list.Height(); i++ {
		r, ok := v.row(i)
		if !ok {
			if i < len(waiting) {
				add(st.Dim.Render("  " + waiting[i]))
			} else {
				add("")
			}
			continue
		}
		add(v.rowLine(r, i == v.list.Cursor(), timeW, kindW, changeW, urlW, chanW))
	}
	out = append(out, v.detail(w)...)
	return strings.Join(out, "\n")
}

// waitingText is the table's line while no notification has come.
func (v *notificationsPage) waitingText() string {
	f := v.feed
	switch {
	case f.err != nil:
		return "No notification will come: the Source advertises no channel that could be reached."
	case f.finding:
		return "Looking for the Source's notification channels in its Capability Lists…"
	}
	return "No notification yet: they arrive here as the Source changes, newest first."
}

// channelText is a line for each channel: its kind, URL and connection.
func (v *notificationsPage) channelText() []string {
	st := v.c.Styles
	f := v.feed
	if f.err != nil {
		return []string{st.Error.Render("✗ " + components.Escape(f.err.Error()))}
	}
	if len(f.channels) == 0 {
		return []string{st.Dim.Render("no channel yet")}
	}
	var out []string
	for i, cs := range f.channels {
		if i == maxChannelLines-1 && len(f.channels) > maxChannelLines {
			out = append(out, st.Dim.Render(fmt.Sprintf("… and %d more channels", len(f.channels)-i)))
			break
		}
		var state string
		switch {
		case cs.live:
			state = st.OK.Render("● live") + st.Dim.Render(" since "+cs.since.UTC().Format("15:04:05"))
		case cs.lastErr != nil:
			state = st.Error.Render("○ dropped") + st.Dim.Render(fmt.Sprintf(" at %s, next attempt (%d) at %s: %s", cs.since.UTC().Format("15:04:05"), cs.attempt+1,
				cs.retryAt.UTC().Format("15:04:05"), components.Escape(cs.lastErr.Error())))
		default:
			state = st.Dim.Render("◌ connecting")
		}
		counts := st.Dim.Render(" · " + display.Plural(cs.notes, "notification", "notifications"))
		if cs.withError > 0 {
			counts += st.Error.Render(fmt.Sprintf(", %d with errors", cs.withError))
		}
		out = append(out, st.Rel.Render(components.Pad(string(cs.ch.Kind), 9))+" "+st.URL.Render(components.Escape(cs.ch.URL))+"  "+state+counts)
	}
	return out
}

// rowLine draws a row of the table.
func (v *notificationsPage) rowLine(r noteRow, selected bool, timeW, kindW, changeW, urlW, chanW int) string {
	st := v.c.Styles
	mark, markStyle := " ", st.Dim
	switch errs, warns := r.problems(); {
	case errs > 0:
		mark, markStyle = "✗", st.Error
	case warns > 0:
		mark, markStyle = "!", st.Warning
	}
	it, ok := r.Item()
	what, change := "(no entries: see its problems)", ""
	if ok {
		what, change = components.Escape(displayLoc(originOf(v.feed.target), it.URL)), string(it.Change)
	}
	cells := []string{
		components.Pad(r.event.Time.UTC().Format("15:04:05"), timeW),
		components.Pad(string(r.event.Kind()), kindW),
		components.Pad(components.Escape(change), changeW),
		components.Cell(what, urlW, false, components.TruncMiddle),
		components.Cell(components.Escape(channelName(r.event.Channel.URL)), chanW, false, components.TruncMiddle),
	}
	if selected {
		return st.Selected.Render(components.Pad(mark+" "+strings.Join(cells, " "), v.width))
	}
	changeStyle := st.ChangePaint(change)
	return markStyle.Render(mark) + " " + st.Dim.Render(cells[0]) + " " + st.Rel.Render(cells[1]) + " " +
		changeStyle.Apply(cells[2]) + " " + st.URL.Render(cells[3]) + " " + st.Dim.Render(cells[4])
}

// channelName shortens a channel URL for the table: the last two parts of
// its path ("dataset1/change"), which tell a Source's channels apart.
func channelName(u string) string {
	u = strings.TrimRight(u, "/")
	if i := strings.LastIndexByte(u, '/'); i > 0 {
		if j := strings.LastIndexByte(u[:i], '/'); j >= 0 && !strings.HasSuffix(u[:j], ":/") {
			return u[j+1:]
		}
		return u[i+1:]
	}
	return u
}

// detail describes the selected row's notification: where it came from,
// what it says of the item and its problems.
func (v *notificationsPage) detail(w int) []string {
	st := v.c.Styles
	out := []string{st.Section.Render(components.Pad("Notification", w))}
	label := func(s string) string { return st.Label.Render(fmt.Sprintf("  %-10s ", s)) }
	r, ok := v.row(v.list.Cursor())
	if !ok {
		for len(out) < detailLines {
			out = append(out, "")
		}
		return out
	}
	e := r.event
	out = append(out, label("channel")+st.Rel.Render(string(e.Kind()))+"  "+st.URL.Render(components.Escape(e.Channel.URL)))
	out = append(out, label("received")+st.Value.Render(e.Time.UTC().Format("2006-01-02T15:04:05Z"))+st.Dim.Render(" · "+display.Size(int64(len(e.Raw)))+
		" · from the Capability List ")+st.URL.Render(components.Escape(e.Channel.CapabilityList)))
	if it, ok := r.Item(); ok {
		line := label("item") + st.Value.Render(fmt.Sprintf("%d of %d", r.item+1, len(e.Items)))
		if it.Change != "" {
			line += st.Dim.Render(" · ") + st.ChangePaint(string(it.Change)).Apply(components.Escape(string(it.Change)))
		}
		if it.Datetime.Raw != "" {
			line += st.Dim.Render(" at ") + st.Value.Render(components.Escape(it.Datetime.Raw))
		}
		if it.Capability != "" {
			line += st.Dim.Render(" · a ") + st.Value.Render(components.Escape(model.DocumentTitle(it.Capability, model.RootURLSet)))
		}
		out = append(out, line)
		if it.Index != "" {
			out = append(out, label("index")+st.URL.Render(components.Escape(it.Index))+st.Dim.Render("  (stale too: it lists the document)"))
		}
	}
	var probs []model.Problem
	for _, p := range e.Problems {
		if p.Entry < 0 || p.Entry == r.item {
			probs = append(probs, p)
		}
	}
	if len(probs) == 0 {
		out = append(out, label("problems")+st.OK.Render("✓ none"))
	}
	for _, p := range probs {
		if len(out) >= detailLines {
			break
		}
		sev, style := "warning", st.Warning
		if p.Severity == model.SeverityError {
			sev, style = "error", st.Error
		}
		where := ""
		if p.Entry >= 0 {
			where = " entry " + model.EntryNumber(p.Entry)
		}
		out = append(out, label(sev)+st.Rel.Render(p.Rule)+st.Dim.Render(where+" ")+style.Render(components.Escape(p.Message)))
	}
	for len(out) < detailLines {
		out = append(out, "")
	}
	return out[:detailLines]
}
