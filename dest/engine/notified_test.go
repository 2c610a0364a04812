package engine

import (
	"strings"
	"testing"
	"time"

	"rsx/model"
	"rsx/notify"
)

// judgeNotified applies notifications alone only when they can be trusted
// to be all that changed.
func TestJudgeNotified(t *testing.T) {
	const cl = "http://example.org/cl.xml"
	t0 := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	dt := func(s int) model.Datetime { return model.Datetime{Time: at(s), OK: true} }
	change := notify.Channel{URL: "ws://example.org/change", Kind: notify.KindChange, CapabilityList: cl}
	item := func(s int) notify.Item {
		return notify.Item{URL: "http://example.org/r", Change: model.ChangeUpdated, Datetime: dt(s)}
	}
	note := func(from, until int, items ...notify.Item) notify.Event {
		e := notify.Event{Type: notify.EventNotification, Channel: change, Items: items}
		if from >= 0 {
			e.From, e.Until = dt(from), dt(until)
		}
		return e
	}
	for _, tt := range []struct {
		name    string
		evs     []notify.Event
		covered int
		want    string // "" : applied
		until   int    // the covered point after, when applied
		apply   int
	}{
		{name: "no period", evs: []notify.Event{note(-1, -1, item(5))}, covered: 0, until: 0, apply: 1},
		{name: "contiguous periods", evs: []notify.Event{note(0, 5, item(5)), note(5, 8, item(8))}, covered: 0, until: 8, apply: 2},
		{name: "overlapping period", evs: []notify.Event{note(2, 9, item(9))}, covered: 4, until: 9, apply: 1},
		{name: "gap", evs: []notify.Event{note(0, 5, item(5)), note(6, 8, item(8))}, covered: 0, want: "a gap"},
		{name: "gap at once", evs: []notify.Event{note(3, 8, item(8))}, covered: 2, want: "a notification was missed"},
		{name: "errors", evs: []notify.Event{{Type: notify.EventNotification, Channel: change,
			Problems: []model.Problem{{Severity: model.SeverityError, Rule: "xml-malformed", Message: "unexpected EOF"}}}}, want: "with errors"},
		{name: "out of order", evs: []notify.Event{func() notify.Event {
			e := note(-1, -1, item(1))
			e.Problems = []model.Problem{{Severity: model.SeverityWarning, Rule: model.RuleNotificationOrder, Message: "dated before"}}
			return e
		}()}, want: "out of order"},
		{name: "framework", evs: []notify.Event{{Type: notify.EventNotification, Channel: notify.Channel{URL: "ws://example.org/fw", Kind: notify.KindFramework, CapabilityList: cl},
			Items: []notify.Item{{URL: "http://example.org/changelist2.xml", Change: model.ChangeCreated, Capability: model.CapChangeList}}}}, want: "framework"},
		{name: "no datetime", evs: []notify.Event{note(-1, -1, notify.Item{URL: "http://example.org/r", Change: model.ChangeUpdated})}, want: "no change type or no datetime"},
		{name: "no change type", evs: []notify.Event{note(-1, -1, notify.Item{URL: "http://example.org/r", Datetime: dt(1)})}, want: "no change type"},
		{name: "another Capability List", evs: []notify.Event{func() notify.Event {
			e := note(-1, -1, item(1))
			e.Channel.CapabilityList = "http://example.org/other/cl.xml"
			return e
		}()}, want: "not by the Capability List"},
		{name: "nothing", evs: []notify.Event{{Type: notify.EventConnected, Channel: change}}, want: "no change notified"},
		{name: "too many", evs: make([]notify.Event, maxNoticeBatch+1), want: "at once"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			until, apply, why := judgeNotified(tt.evs, cl, at(tt.covered))
			if tt.want != "" {
				if !strings.Contains(why, tt.want) || apply != nil {
					t.Errorf("why %q (%d to apply), want %q", why, len(apply), tt.want)
				}
				return
			}
			if why != "" || len(apply) != tt.apply || !until.Equal(at(tt.until)) {
				t.Errorf("why %q, %d to apply, until %v; want %d, until %v", why, len(apply), until, tt.apply, at(tt.until))
			}
		})
	}
}
