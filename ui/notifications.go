package ui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"rsx/display"
	"rsx/notify"
	"rsx/session"
	"rsx/ui/common"
	"rsx/ui/pages"
)

// The root's subscription to the notifications of the open Source (the
// ResourceSync Notification draft): started when the notifications page is
// first opened (w), kept while the explorer runs, so that the status bar can
// say while a channel is live and a framework notification can mark the
// documents it names stale, whichever page is shown. A re-armed tea.Cmd
// waits on the subscription's Next; a generation number drops the events of
// a subscription replaced by another.

// maxNoteRows bounds the notifications kept: the oldest go first.
const maxNoteRows = 5000

// notifyFeed is the subscription and what it brought.
type notifyFeed struct {
	gen    int
	target string // what the channels were looked for from ("" before any)
	sub    *session.Subscription
	ctx    context.Context // Next waits under it; cancelled by stop
	cancel context.CancelFunc

	finding  bool  // the channels are being looked for
	ended    bool  // the subscription has ended
	err      error // finding the channels failed
	capLists []string
	channels []*channelState // in the order found
	rows     []pages.NoteRow // oldest first
	dropped  int             // rows dropped for maxNoteRows
}

// channelState is what is known of one channel's connection: what the
// notifications page shows of it, and what the status bar needs besides.
type channelState struct {
	pages.NotifyChannel
	everUp bool // it was live once
	drops  int
}

// notifyMsg is an event of the feed's subscription; notifyEndedMsg says it
// has ended.
type notifyMsg struct {
	feed *notifyFeed
	gen  int
	ev   session.NotificationEvent
}

type notifyEndedMsg struct {
	feed *notifyFeed
	gen  int
}

// start subscribes to the notifications of target, unless the feed already
// does, and returns the command that waits for the first event.
func (f *notifyFeed) start(b Notifications, target string) tea.Cmd {
	if f.sub != nil && f.target == target && !f.ended {
		return nil
	}
	f.stop()
	*f = notifyFeed{gen: f.gen + 1, target: target, finding: true}
	f.ctx, f.cancel = context.WithCancel(context.Background())
	f.sub = b.Subscribe(target)
	return f.listen()
}

// stop ends the subscription, if any.
func (f *notifyFeed) stop() {
	if f.sub != nil {
		f.sub.Stop()
		f.cancel()
		f.sub = nil
	}
	f.ended = true
}

// listen waits for the subscription's next event.
func (f *notifyFeed) listen() tea.Cmd {
	sub, ctx, gen := f.sub, f.ctx, f.gen
	return func() tea.Msg {
		ev, ok := sub.Next(ctx)
		if !ok {
			return notifyEndedMsg{feed: f, gen: gen}
		}
		return notifyMsg{feed: f, gen: gen, ev: ev}
	}
}

// apply records an event and returns the documents that a framework
// notification says changed (their URLs, and those of their indexes).
func (f *notifyFeed) apply(ev session.NotificationEvent, now time.Time) (changed []string) {
	switch {
	case ev.Err != nil:
		f.finding, f.err = false, ev.Err
	case ev.Found != nil:
		f.finding = false
		f.capLists = ev.Found.CapabilityLists
		for _, ch := range ev.Found.Channels {
			f.channels = append(f.channels, &channelState{NotifyChannel: pages.NotifyChannel{Channel: ch}})
		}
	case ev.Event != nil:
		e := ev.Event
		if e.Time.IsZero() {
			e.Time = now
		}
		cs := f.channel(e.Channel)
		switch e.Type {
		case notify.EventConnected:
			cs.Live, cs.everUp, cs.Since, cs.LastErr, cs.RetryAt = true, true, e.Time, nil, time.Time{}
		case notify.EventDisconnected:
			if cs.Live {
				cs.drops++
			}
			cs.Live, cs.Since, cs.LastErr, cs.Attempt = false, e.Time, e.Err, e.Attempt
			cs.RetryAt = e.Time.Add(e.Retry)
		case notify.EventNotification:
			cs.Notes++
			if e.Errors() > 0 {
				cs.WithError++
			}
			if len(e.Items) == 0 {
				f.rows = append(f.rows, pages.NoteRow{Event: e, Index: -1})
			}
			for i, it := range e.Items {
				f.rows = append(f.rows, pages.NoteRow{Event: e, Index: i})
				if e.Kind() == notify.KindFramework {
					changed = append(changed, pages.ResolveAgainst(e.Channel.CapabilityList, it.URL))
					if it.Index != "" {
						changed = append(changed, pages.ResolveAgainst(e.Channel.CapabilityList, it.Index))
					}
				}
			}
			if n := len(f.rows) - maxNoteRows; n > 0 {
				f.rows = append(f.rows[:0:0], f.rows[n:]...)
				f.dropped += n
			}
		}
	}
	return changed
}

// channel is the state of ch, added when the subscription did not say it.
func (f *notifyFeed) channel(ch notify.Channel) *channelState {
	for _, cs := range f.channels {
		if cs.Channel.URL == ch.URL && cs.Channel.Kind == ch.Kind {
			return cs
		}
	}
	cs := &channelState{NotifyChannel: pages.NotifyChannel{Channel: ch}}
	f.channels = append(f.channels, cs)
	return cs
}

// live counts the channels connected now.
func (f *notifyFeed) live() int {
	n := 0
	for _, cs := range f.channels {
		if cs.Live {
			n++
		}
	}
	return n
}

// statusSegment is the status bar's indicator: whether the channels are
// live, some dropped, or none could be found; full and short forms, "" when
// there is no subscription.
func (f *notifyFeed) statusSegment(st *common.Styles) (full, short string) {
	if f == nil || f.target == "" || (f.ended && f.err == nil) {
		return "", ""
	}
	n, live := len(f.channels), f.live()
	switch {
	case f.err != nil:
		return st.BarWarning.Render("– no notification channel"), st.BarWarning.Render("– no channel")
	case f.finding:
		return st.StatusValue.Render("◌ notifications: finding channels…"), st.StatusValue.Render("◌ channels…")
	case n > 0 && live == n:
		return st.BarOK.Render(fmt.Sprintf("● live (%s)", display.Plural(n, "channel", "channels"))), st.BarOK.Render("● live")
	case live > 0:
		return st.BarWarning.Render(fmt.Sprintf("◐ %d of %d channels live, reconnecting", live, n)), st.BarWarning.Render(fmt.Sprintf("◐ %d/%d live", live, n))
	case f.anyChannel(func(cs *channelState) bool { return cs.everUp }):
		return st.BarError.Render("○ notifications dropped, reconnecting"), st.BarError.Render("○ dropped")
	case f.anyChannel(func(cs *channelState) bool { return cs.LastErr != nil }):
		return st.BarError.Render("○ notification channels unreachable, retrying"), st.BarError.Render("○ unreachable")
	}
	return st.StatusValue.Render("◌ notifications: connecting…"), st.StatusValue.Render("◌ connecting")
}

// anyChannel tells whether some channel's state is as ok says.
func (f *notifyFeed) anyChannel(ok func(*channelState) bool) bool {
	for _, cs := range f.channels {
		if ok(cs) {
			return true
		}
	}
	return false
}

// The feed as the notifications page reads it (pages.NotificationFeed).

// Target is what the channels were looked for from.
func (f *notifyFeed) Target() string { return f.target }

// Finding tells that the channels are being looked for.
func (f *notifyFeed) Finding() bool { return f.finding }

// Err is why finding the channels failed.
func (f *notifyFeed) Err() error { return f.err }

// Rows are the rows kept, oldest first.
func (f *notifyFeed) Rows() []pages.NoteRow { return f.rows }

// Received counts the rows had, dropped ones included.
func (f *notifyFeed) Received() int { return len(f.rows) + f.dropped }

// Channels are the channels' connections, in the order found.
func (f *notifyFeed) Channels() []pages.NotifyChannel {
	out := make([]pages.NotifyChannel, len(f.channels))
	for i, cs := range f.channels {
		out[i] = cs.NotifyChannel
	}
	return out
}

// StatusSegment is statusSegment, for the page.
func (f *notifyFeed) StatusSegment(st *common.Styles) (full, short string) {
	return f.statusSegment(st)
}

// ---------------------------------------------------------------------------
// The root's part: starting the feed, its events, stale documents.

// sourceOf is what the notification channels of the document's Source are
// looked for from: the top of its path (the Source Description, or the
// Capability List when nothing is above it), else the document itself
// (a Capability List or Source Description, or discovery from it).
func sourceOf(d *document) string {
	if len(d.crumbs) > 0 {
		return d.crumbs[0].URL
	}
	return d.base()
}
