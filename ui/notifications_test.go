package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"rsx/model"
	"rsx/notify"
	"rsx/session"
	"rsx/ui/pages"
)

// exNotifyBackend is a live session over the fixtures whose notifications
// come from the test, and which counts the loads of each document.
type exNotifyBackend struct {
	*session.Session
	events chan session.NotificationEvent

	mu      sync.Mutex
	targets []string
	loads   map[string]int
}

func newExNotifyBackend(docs map[string]string) *exNotifyBackend {
	return &exNotifyBackend{
		Session: session.NewWithGetter(&exGetter{docs: docs, fail: map[string]error{}}, session.Options{BatchSize: 16}),
		events:  make(chan session.NotificationEvent, 64),
		loads:   map[string]int{},
	}
}

func (b *exNotifyBackend) Subscribe(target string) *session.Subscription {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.targets = append(b.targets, target)
	return session.NewSubscription(b.events, nil)
}

func (b *exNotifyBackend) LoadDocument(ctx context.Context, url string, sink session.DocSink) error {
	b.mu.Lock()
	b.loads[strings.TrimPrefix(url, exHost)]++
	b.mu.Unlock()
	return b.Session.LoadDocument(ctx, url, sink)
}

func (b *exNotifyBackend) loadsOf(path string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.loads[path]
}

// exNotifyChannels are the channels of dataset1 in the fixtures.
func exNotifyChannels() (change, framework notify.Channel) {
	cl := exHost + "/dataset1/capabilitylist.xml"
	return notify.Channel{URL: "ws://example.org/channels/dataset1/change", Kind: notify.KindChange, CapabilityList: cl},
		notify.Channel{URL: "ws://example.org/channels/dataset1/framework", Kind: notify.KindFramework, CapabilityList: cl}
}

// exNotifyEvents are what a subscription to the fixtures' Source reports:
// both channels found and connected, a change notification of three
// resources, a framework notification that Resource List part 2 (and so its
// index) changed, a notification cut short, and the framework channel
// dropped.
func exNotifyEvents() []session.NotificationEvent {
	change, framework := exNotifyChannels()
	at := func(s int) time.Time { return exTime.Add(time.Duration(s) * time.Second) }
	item := func(path string, ch model.Change, when string, capb model.Capability, index string) notify.Item {
		dt, _ := model.ParseDatetime(when)
		e := model.Entry{Index: 0, HasLoc: true, Loc: exHost + path}
		e.MD.Present, e.MD.Change, e.MD.Datetime, e.MD.Capability = true, ch, dt, capb
		if capb == "" {
			e.MD.Type, e.MD.Length, e.MD.LengthRaw, e.MD.LengthOK = "text/html", 1200, "1200", true
		}
		it := notify.Item{URL: exHost + path, Change: ch, Datetime: dt, Capability: capb, Entry: e}
		if index != "" {
			it.Index = exHost + index
		}
		return it
	}
	ev := func(e notify.Event) session.NotificationEvent { return session.NotificationEvent{Event: &e} }
	return []session.NotificationEvent{
		{Found: &notify.Found{CapabilityLists: []string{change.CapabilityList}, Channels: []notify.Channel{change, framework}}},
		ev(notify.Event{Type: notify.EventConnected, Channel: change, Time: at(0)}),
		ev(notify.Event{Type: notify.EventConnected, Channel: framework, Time: at(0)}),
		ev(notify.Event{Type: notify.EventNotification, Channel: change, Time: at(5), Raw: make([]byte, 912), Items: []notify.Item{
			item("/res/001.html", model.ChangeUpdated, "2013-01-03T10:00:00Z", "", ""),
			item("/res/007.html", model.ChangeDeleted, "2013-01-03T10:00:05Z", "", ""),
			item("/res/042.html", model.ChangeCreated, "2013-01-03T10:00:09Z", "", ""),
		}}),
		ev(notify.Event{Type: notify.EventNotification, Channel: framework, Time: at(9), Raw: make([]byte, 640), Items: []notify.Item{
			item("/dataset1/resourcelist-2.xml", model.ChangeUpdated, "2013-01-03T10:15:00Z", model.CapResourceList, "/dataset1/resourcelist-index.xml"),
		}}),
		ev(notify.Event{Type: notify.EventNotification, Channel: change, Time: at(12), Raw: make([]byte, 200), Problems: []model.Problem{
			{Severity: model.SeverityError, Rule: "xml-malformed", Section: "7", Entry: -1, Message: "XML syntax error on line 9: unexpected EOF"},
		}}),
		ev(notify.Event{Type: notify.EventDisconnected, Channel: framework, Time: at(15), Err: errors.New("websocket: status 1001 going away"), Attempt: 1, Retry: 2 * time.Second}),
	}
}

// exNotifyApp opens target with the notifications backend, its events
// queued for the subscription w starts.
func exNotifyApp(t *testing.T, target string, w, h int) (*App, *exDriver, *exNotifyBackend) {
	t.Helper()
	b := newExNotifyBackend(exSite())
	for _, e := range exNotifyEvents() {
		b.events <- e
	}
	a, d := exAppOn(t, b, exHost+target, w, h)
	d.idle = 50 * time.Millisecond // the subscription's Cmd waits for ever
	t.Cleanup(func() { a.quit() })
	return a, d, b
}

// TestNotificationsScreens draws the notifications page, newest first, at
// both sizes, and with the framework notification selected.
func TestNotificationsScreens(t *testing.T) {
	for _, sz := range exSizes {
		name := fmt.Sprintf("notifications_%dx%d", sz.w, sz.h)
		t.Run(name, func(t *testing.T) {
			_, d, _ := exNotifyApp(t, "/dataset1/resourcelist-index.xml", sz.w, sz.h)
			d.keys("w j")
			exGolden(t, d, name)
		})
	}
}

// TestNotificationsPage: what the page lists and what enter opens.
func TestNotificationsPage(t *testing.T) {
	a, d, b := exNotifyApp(t, "/dataset1/resourcelist-index.xml", 120, 40)
	d.keys("w")
	if len(b.targets) != 1 || b.targets[0] != exHost+"/.well-known/resourcesync" {
		t.Fatalf("subscribed to %v, want the Source Description above the document", b.targets)
	}
	if _, ok := a.active().(*pages.Notifications); !ok {
		t.Fatalf("w opened %T", a.active())
	}
	// The page lists the feed's rows newest first.
	rows := a.notes.Rows()
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5", len(rows))
	}
	var got []string
	for i := range 5 {
		r := rows[len(rows)-1-i]
		it, ok := r.Item()
		errs, _ := r.Problems()
		got = append(got, fmt.Sprintf("%s %s %v %d", r.Event.Kind(), strings.TrimPrefix(it.URL, exHost), ok, errs))
	}
	want := "change  false 1|framework /dataset1/resourcelist-2.xml true 0|change /res/042.html true 0|change /res/007.html true 0|change /res/001.html true 0"
	if s := strings.Join(got, "|"); s != want {
		t.Errorf("rows, newest first:\n%s\nwant\n%s", s, want)
	}
	screen := d.screen()
	for _, w := range []string{"◐ 1 of 2 channels live", "○ dropped", "xml-malformed", "✗"} {
		if !strings.Contains(screen, w) {
			t.Errorf("the page does not show %q:\n%s", w, screen)
		}
	}
	// enter on a change: the resource's view, held to what the
	// notification declares.
	d.keys("j j enter")
	rp, ok := a.active().(*pages.Resource)
	if !ok || rp.Entry().Loc != exHost+"/res/042.html" || rp.Title() != "Resource (change notification)" {
		t.Fatalf("enter on a change opened %T %+v", a.active(), a.active())
	}
	if n, ok := rp.Entry().MD.Length, rp.Entry().MD.LengthOK; n != 1200 || !ok {
		t.Errorf("the resource view is not held to the notification's length: %d %v", n, ok)
	}
	// enter on a framework notification: the document.
	d.keys("esc up enter")
	if a.doc.base() != exHost+"/dataset1/resourcelist-2.xml" || len(a.pages) != 0 {
		t.Errorf("enter on a framework notification opened %s (%d pages over it)", a.doc.base(), len(a.pages))
	}
	// The subscription goes on without the page: w again shows the same.
	d.keys("w")
	if len(b.targets) != 1 {
		t.Errorf("w subscribed again: %v", b.targets)
	}
	if _, ok := a.active().(*pages.Notifications); !ok {
		t.Errorf("w opened %T", a.active())
	}
}

// TestFrameworkNotificationMarksStale: a framework notification marks the
// documents it names stale, in the history and in the status bar of the one
// shown; r loads it again and the mark goes.
func TestFrameworkNotificationMarksStale(t *testing.T) {
	a, d, b := exNotifyApp(t, "/dataset1/resourcelist-index.xml", 120, 40)
	d.keys("enter") // part 1: the index is in the history
	if a.doc.base() != exHost+"/dataset1/resourcelist-1.xml" {
		t.Fatalf("enter opened %s", a.doc.base())
	}
	d.keys("w esc")
	crumbs := strings.SplitN(d.screen(), "\n", 2)[0]
	if !strings.Contains(crumbs, "Resource List Index"+staleMark) || strings.Contains(crumbs, "Resource List"+staleMark+" ") {
		t.Errorf("breadcrumbs %q: the index is not marked stale, or part 1 is", crumbs)
	}
	if strings.Contains(d.screen(), "⟳ stale") {
		t.Errorf("part 1, which did not change, is called stale:\n%s", d.screen())
	}
	if status := exStatusLine(d); !strings.Contains(status, "◐ 1 of 2 channels live") && !strings.Contains(status, "◐ 1/2 live") {
		t.Errorf("the status bar does not show the channels:\n%s", d.screen())
	}
	loads := b.loadsOf("/dataset1/resourcelist-index.xml")
	d.keys("[") // back to the index, from the cache
	if a.doc.base() != exHost+"/dataset1/resourcelist-index.xml" || b.loadsOf("/dataset1/resourcelist-index.xml") != loads {
		t.Fatalf("[ went to %s, loading it %d times", a.doc.base(), b.loadsOf("/dataset1/resourcelist-index.xml")-loads)
	}
	if !strings.Contains(exStatusLine(d), "⟳ stale") {
		t.Errorf("the stale index does not say so:\n%s", d.screen())
	}
	d.keys("r")
	if b.loadsOf("/dataset1/resourcelist-index.xml") != loads+1 {
		t.Errorf("r did not load the index again")
	}
	if a.doc.stale || strings.Contains(d.screen(), "⟳") {
		t.Errorf("the index is still stale after r:\n%s", d.screen())
	}
}

// exStatusLine is the document page's status bar, the line above the footer.
func exStatusLine(d *exDriver) string {
	lines := strings.Split(d.screen(), "\n")
	return lines[len(lines)-2]
}

// TestNotificationsWithoutChannels: a Source that advertises none says so
// on the page and in the status bar.
func TestNotificationsWithoutChannels(t *testing.T) {
	b := newExNotifyBackend(exSite())
	b.events <- session.NotificationEvent{Err: fmt.Errorf("subscribe to the notifications of %s: %w", exHost, notify.ErrNoChannels)}
	close(b.events)
	a, d := exAppOn(t, b, exHost+"/dataset1/changelist.xml", 120, 40)
	d.keys("w")
	if !strings.Contains(d.screen(), "no notification channel advertised") {
		t.Errorf("the page does not give the error:\n%s", d.screen())
	}
	d.keys("esc")
	if status := exStatusLine(d); !strings.Contains(status, "– no notification channel") && !strings.Contains(status, "– no channel") {
		t.Errorf("the status bar does not say there is none:\n%s", d.screen())
	}
	a.quit()
}

// TestNotifyFeedStatus: the status bar's indicator through a subscription's
// life, and the rows kept when more than maxNoteRows came.
func TestNotifyFeedStatus(t *testing.T) {
	st := ivTestCommon().Styles
	change, framework := exNotifyChannels()
	f := &notifyFeed{}
	status := func() string {
		full, _ := f.statusSegment(st)
		return ansi.Strip(full)
	}
	if s := status(); s != "" {
		t.Errorf("no subscription: %q", s)
	}
	steps := []struct {
		ev   session.NotificationEvent
		want string
	}{
		{session.NotificationEvent{}, "◌ notifications: finding channels…"},
		{session.NotificationEvent{Found: &notify.Found{Channels: []notify.Channel{change, framework}}}, "◌ notifications: connecting…"},
		{session.NotificationEvent{Event: &notify.Event{Type: notify.EventDisconnected, Channel: change, Err: errors.New("refused"), Attempt: 1}}, "○ notification channels unreachable, retrying"},
		{session.NotificationEvent{Event: &notify.Event{Type: notify.EventConnected, Channel: change}}, "◐ 1 of 2 channels live, reconnecting"},
		{session.NotificationEvent{Event: &notify.Event{Type: notify.EventConnected, Channel: framework}}, "● live (2 channels)"},
		{session.NotificationEvent{Event: &notify.Event{Type: notify.EventDisconnected, Channel: change, Err: errors.New("EOF"), Attempt: 1}}, "◐ 1 of 2 channels live, reconnecting"},
		{session.NotificationEvent{Event: &notify.Event{Type: notify.EventDisconnected, Channel: framework, Err: errors.New("EOF"), Attempt: 1}}, "○ notifications dropped, reconnecting"},
	}
	f.target, f.finding, f.sub = exHost, true, session.NewSubscription(nil, nil)
	for i, s := range steps {
		if i > 0 {
			f.apply(s.ev, exTime)
		}
		if got := status(); got != s.want {
			t.Errorf("step %d: %q, want %q", i, got, s.want)
		}
	}
	f.apply(session.NotificationEvent{Err: errors.New("no channel")}, exTime)
	if got := status(); got != "– no notification channel" {
		t.Errorf("after an error: %q", got)
	}

	// The oldest rows go first; a framework notification names its
	// document and index, resolved against the Capability List.
	f = &notifyFeed{}
	items := make([]notify.Item, maxNoteRows+10)
	for i := range items {
		items[i] = notify.Item{URL: fmt.Sprintf("%s/r/%d", exHost, i)}
	}
	f.apply(session.NotificationEvent{Event: &notify.Event{Type: notify.EventNotification, Channel: change, Items: items}}, exTime)
	if len(f.rows) != maxNoteRows || f.dropped != 10 || f.rows[0].Index != 10 {
		t.Errorf("%d rows kept, %d dropped, the first is item %d", len(f.rows), f.dropped, f.rows[0].Index)
	}
	changed := f.apply(session.NotificationEvent{Event: &notify.Event{Type: notify.EventNotification, Channel: framework,
		Items: []notify.Item{{URL: "changelist/0007.xml", Index: "changelist.xml"}}}}, exTime)
	if want := []string{exHost + "/dataset1/changelist/0007.xml", exHost + "/dataset1/changelist.xml"}; fmt.Sprint(changed) != fmt.Sprint(want) {
		t.Errorf("changed %v, want %v", changed, want)
	}
}
