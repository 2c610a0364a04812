package pages

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"rsx/display"
	"rsx/model"
	"rsx/notify"
	"rsx/ui/common"
	"rsx/ui/components"
	"rsx/ui/nav"
)

// Notifications shows the notifications of the open Source as they
// arrive, newest first: a line for each resource (change notifications) or
// document (framework notifications) that one names, with its channel, kind
// and change, marked when the notification has problems. Above them the
// channels and their connections; under them the selected notification
// whole. enter opens a resource's view, or a document. The subscription is
// the root's (notifications.go): it goes on when the page is closed.
type Notifications struct {
	c    *common.Common
	b    ResourceBackend
	feed NotificationFeed
	hint string // said under the waiting line while no notification has come (rsx/ui's Options.NotificationsHint)

	list          components.List // over the rows, newest first
	seen          int             // rows (received in all) when last drawn: new ones push the cursor down
	width, height int
}

// NotificationFeed is what the notifications page reads of the root's
// subscription to the Source's notifications (rsx/ui's notifications.go),
// which outlives the page. The page only reads it, from View and Update.
type NotificationFeed interface {
	// Target is what the channels were looked for from ("" before any).
	Target() string
	// Finding tells that the channels are being looked for; Err that
	// finding them failed.
	Finding() bool
	Err() error
	// Channels are the channels' connections, in the order found.
	Channels() []NotifyChannel
	// Rows are the rows kept, oldest first, not to be changed; Received
	// counts the rows had, dropped ones included.
	Rows() []NoteRow
	Received() int
	// StatusSegment is the status bar's indicator of the channels, in
	// full and short ("" when there is no subscription).
	StatusSegment(st *common.Styles) (full, short string)
}

// NotifyChannel is what is known of one channel's connection.
type NotifyChannel struct {
	Channel   notify.Channel
	Live      bool
	Since     time.Time // connected, or dropped, at
	LastErr   error
	RetryAt   time.Time // the next attempt, while dropped
	Attempt   int
	Notes     int // notifications received
	WithError int // of which with errors
}

// NoteRow is a line of the notifications page: an item of a notification
// (a resource or a document that changed), or a notification without items
// (malformed).
type NoteRow struct {
	Event *notify.Event // shared by the rows of one notification
	Index int           // of the item in Event.Items, -1 for none
}

// Item is the row's item; ok is false for a notification without items.
func (r NoteRow) Item() (notify.Item, bool) {
	if r.Event == nil || r.Index < 0 || r.Index >= len(r.Event.Items) {
		return notify.Item{}, false
	}
	return r.Event.Items[r.Index], true
}

// Problems counts the errors and warnings of the row's item, and of the
// notification as a whole.
func (r NoteRow) Problems() (errs, warns int) {
	for _, p := range r.Event.Problems {
		if p.Entry >= 0 && p.Entry != r.Index {
			continue
		}
		switch p.Severity {
		case model.SeverityError:
			errs++
		case model.SeverityWarning:
			warns++
		}
	}
	return errs, warns
}

// ResolveAgainst resolves a URL a notification gives against its
// Capability List (notification locs are absolute; a relative one is read
// so).
func ResolveAgainst(base, u string) string {
	if base == "" {
		return u
	}
	return model.ResolveHref(base, u)
}

// NewNotifications returns the page of the notifications feed f brings;
// enter opens a resource's page through b. hint is said under the waiting
// line while no notification has come.
func NewNotifications(c *common.Common, b ResourceBackend, f NotificationFeed, hint string) *Notifications {
	v := &Notifications{c: c, b: b, feed: f, hint: hint, list: components.NewList(components.Select)}
	v.seen = v.received()
	return v
}

// received counts the rows the feed has had, dropped ones included.
func (v *Notifications) received() int { return v.feed.Received() }

// row is the row shown at position i, newest first.
func (v *Notifications) row(i int) (NoteRow, bool) {
	rows := v.feed.Rows()
	if i < 0 || i >= len(rows) {
		return NoteRow{}, false
	}
	return rows[len(rows)-1-i], true
}

func (v *Notifications) Init() tea.Cmd         { return nil }
func (v *Notifications) Title() string         { return "Notifications" }
func (v *Notifications) InputActive() bool     { return false }
func (v *Notifications) Busy() bool            { return false }
func (v *Notifications) Back() (bool, tea.Cmd) { return false, nil }

// Close leaves the subscription running: it is the root's.
func (v *Notifications) Close() {}

// KeyBindings are the page's own keys.
func (v *Notifications) KeyBindings() []key.Binding {
	k := &v.c.Keys
	return []key.Binding{k.Up, k.Down, common.Short(k.Open, "open the resource or document"), k.Copy, k.Browser}
}

// HelpBindings are the page's keys that work just now (nav.KeyHelper):
// those of a notification once one has come.
func (v *Notifications) HelpBindings() []key.Binding {
	k := &v.c.Keys
	r, ok := v.row(v.list.Cursor())
	_, item := r.Item()
	item = ok && item
	return append(k.MoveKeys(len(v.feed.Rows()) > 1), common.When(item, common.Short(k.Open, "open the resource or document")),
		common.When(item, k.Copy), common.When(item, k.Browser))
}

// SetSize lays the page out for w×h cells.
func (v *Notifications) SetSize(w, h int) {
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

func (v *Notifications) channelLines() int {
	return max(min(len(v.feed.Channels()), maxChannelLines), 1)
}

func (v *Notifications) layout() {
	v.list.SetHeight(max(v.height-3-v.channelLines()-detailLines, 1))
	v.list.SetLen(len(v.feed.Rows()))
}

// follow keeps the cursor on the row it was on as new rows arrive on top,
// unless it is on the newest, which it then follows.
func (v *Notifications) follow() {
	n := v.received()
	if added := n - v.seen; added > 0 {
		v.list.SetLen(len(v.feed.Rows()))
		if v.list.Cursor() > 0 {
			v.list.Select(v.list.Cursor() + added)
		}
		v.seen = n
	}
}

// Update handles keys and the wheel; the feed's events are the root's.
func (v *Notifications) Update(msg tea.Msg) (nav.Page, tea.Cmd) {
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
			return v, nav.Cmd(nav.CopyMsg{Text: it.URL, What: "URL"})
		case key.Matches(m, k.Browser):
			return v, nav.Cmd(nav.OpenBrowserMsg{URL: it.URL})
		}
	}
	v.list.Update(msg, k)
	return v, nil
}

// open shows what a row names: the document a framework notification says
// changed, or the view of a resource that a change notification names,
// held to what the notification declares of it.
func (v *Notifications) open(r NoteRow, it notify.Item) tea.Cmd {
	origin := r.Event.Channel.CapabilityList
	u := ResolveAgainst(origin, it.URL)
	if r.Event.Kind() == notify.KindFramework {
		return nav.Cmd(nav.OpenURLMsg{URL: u, From: origin})
	}
	e := it.Entry
	e.Loc, e.Index = u, -1
	p := NewResource(v.c, v.b, origin, e)
	p.SetVia("change notification")
	return nav.Push(p)
}

// View draws the page.
func (v *Notifications) View() string {
	v.follow()
	st := v.c.Styles
	f := v.feed
	w := max(v.width, 1)
	var out []string
	add := func(s string) { out = append(out, cellsOf(v.c).Fit(s, w)) }

	head := st.Title.Render("Notifications") + "  " + st.Dim.Render("of ") + st.URL.Render(components.Escape(f.Target()))
	if full, _ := f.StatusSegment(st); full != "" {
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
	add(st.Header.Render("  " + cellsOf(v.c).Pad("received", timeW) + " " + cellsOf(v.c).Pad("kind", kindW) + " " +
		cellsOf(v.c).Pad("change", changeW) + " " + cellsOf(v.c).Pad("resource or document", urlW) + " " + cellsOf(v.c).Pad("channel", chanW)))
	top := v.list.Offset()
	var waiting []string
	if len(v.feed.Rows()) == 0 {
		waiting = []string{v.waitingText()}
		if v.hint != "" && v.feed.Err() == nil && !v.feed.Finding() {
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
func (v *Notifications) waitingText() string {
	f := v.feed
	switch {
	case f.Err() != nil:
		return "No notification will come: the Source advertises no channel that could be reached."
	case f.Finding():
		return "Looking for the Source's notification channels in its Capability Lists…"
	}
	return "No notification yet: they arrive here as the Source changes, newest first."
}

// channelText is a line for each channel: its kind, URL and connection.
func (v *Notifications) channelText() []string {
	st := v.c.Styles
	f := v.feed
	if err := f.Err(); err != nil {
		return []string{st.Error.Render("✗ " + components.Escape(err.Error()))}
	}
	channels := f.Channels()
	if len(channels) == 0 {
		return []string{st.Dim.Render("no channel yet")}
	}
	var out []string
	for i, cs := range channels {
		if i == maxChannelLines-1 && len(channels) > maxChannelLines {
			out = append(out, st.Dim.Render(fmt.Sprintf("… and %s more channels", display.Count(len(channels)-i))))
			break
		}
		var state string
		switch {
		case cs.Live:
			state = st.OK.Render("● live") + st.Dim.Render(" since "+cs.Since.UTC().Format("15:04:05"))
		case cs.LastErr != nil:
			state = st.Error.Render("○ dropped") + st.Dim.Render(fmt.Sprintf(" at %s, next attempt (%d) at %s: %s", cs.Since.UTC().Format("15:04:05"), cs.Attempt+1,
				cs.RetryAt.UTC().Format("15:04:05"), components.Escape(cs.LastErr.Error())))
		default:
			state = st.Dim.Render("◌ connecting")
		}
		counts := st.Dim.Render(" · " + display.Plural(cs.Notes, "notification", "notifications"))
		if cs.WithError > 0 {
			counts += st.Error.Render(fmt.Sprintf(", %s with errors", display.Count(cs.WithError)))
		}
		out = append(out, st.Rel.Render(cellsOf(v.c).Pad(string(cs.Channel.Kind), 9))+" "+st.URL.Render(components.Escape(cs.Channel.URL))+"  "+state+counts)
	}
	return out
}

// rowLine draws a row of the table.
func (v *Notifications) rowLine(r NoteRow, selected bool, timeW, kindW, changeW, urlW, chanW int) string {
	st := v.c.Styles
	mark, markStyle := " ", st.Dim
	switch errs, warns := r.Problems(); {
	case errs > 0:
		mark, markStyle = "✗", st.Error
	case warns > 0:
		mark, markStyle = "!", st.Warning
	}
	it, ok := r.Item()
	what, change := "(no entries: see its problems)", ""
	if ok {
		what, change = components.Escape(components.DisplayLoc(components.OriginOf(v.feed.Target()), it.URL)), string(it.Change)
	}
	cells := []string{
		cellsOf(v.c).Pad(r.Event.Time.UTC().Format("15:04:05"), timeW),
		cellsOf(v.c).Pad(string(r.Event.Kind()), kindW),
		cellsOf(v.c).Pad(components.Escape(change), changeW),
		cellsOf(v.c).Cell(what, urlW, false, components.TruncMiddle),
		cellsOf(v.c).Cell(components.Escape(channelName(r.Event.Channel.URL)), chanW, false, components.TruncMiddle),
	}
	if selected {
		return st.Selected.Render(cellsOf(v.c).Pad(mark+" "+strings.Join(cells, " "), v.width))
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
func (v *Notifications) detail(w int) []string {
	st := v.c.Styles
	out := []string{st.Section.Render(cellsOf(v.c).Pad("Notification", w))}
	label := func(s string) string { return st.Label.Render(fmt.Sprintf("  %-10s ", s)) }
	r, ok := v.row(v.list.Cursor())
	if !ok {
		for len(out) < detailLines {
			out = append(out, "")
		}
		return out
	}
	e := r.Event
	out = append(out, label("channel")+st.Rel.Render(string(e.Kind()))+"  "+st.URL.Render(components.Escape(e.Channel.URL)))
	out = append(out, label("received")+st.Value.Render(e.Time.UTC().Format("2006-01-02T15:04:05Z"))+st.Dim.Render(" · "+display.Size(int64(len(e.Raw)))+
		" · from the Capability List ")+st.URL.Render(components.Escape(e.Channel.CapabilityList)))
	if it, ok := r.Item(); ok {
		line := label("item") + st.Value.Render(fmt.Sprintf("%d of %d", r.Index+1, len(e.Items)))
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
		if p.Entry < 0 || p.Entry == r.Index {
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
