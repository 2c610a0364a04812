package session

import (
	"context"
	"fmt"
	"sync"

	"rsx/display"
	"rsx/notify"
)

// NotificationEvent is what a Subscription reports, as a value: the channels
// found (first), that they could not be found (then nothing more), or what
// happened on a channel (connected, dropped, a notification).
type NotificationEvent struct {
	Found *notify.Found // the channels subscribed to
	Err   error         // finding the channels failed: the subscription has ended
	Event *notify.Event // a channel's event
}

// Subscription is a live subscription to a Source's notification channels,
// from Subscribe until Stop. Its events are read with Next, by one reader.
type Subscription struct {
	events <-chan NotificationEvent
	stop   func()
	once   sync.Once
}

// NewSubscription is a subscription whose events come from events, until it
// is closed; stop is called once by Stop. Subscribe makes its subscriptions
// with it; a backend that gets its events elsewhere (a test, a replay) may
// too.
func NewSubscription(events <-chan NotificationEvent, stop func()) *Subscription {
	return &Subscription{events: events, stop: stop}
}

// Next waits for the next event; false when the subscription has ended (it
// was stopped, or finding the channels failed and that was reported) or ctx
// is done.
func (s *Subscription) Next(ctx context.Context) (NotificationEvent, bool) {
	select {
	case e, ok := <-s.events:
		return e, ok
	case <-ctx.Done():
		return NotificationEvent{}, false
	}
}

// Stop ends the subscription: its connections close and Next reports the
// end. It may be called more than once.
func (s *Subscription) Stop() {
	s.once.Do(func() {
		if s.stop != nil {
			s.stop()
		}
	})
}

// Subscribe finds the notification channels that target advertises
// (notify.Find: a Capability List, a Source Description, or any URL from
// which discovery reaches them) and subscribes to each (notify.Watch, with
// Options.Notify), in the background, until Stop: each channel reconnects by
// itself after a drop. It returns at once.
func (s *Session) Subscribe(target string) *Subscription {
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan NotificationEvent, notify.DefaultBuffer)
	go func() {
		defer close(events)
		send := func(e NotificationEvent) bool {
			select {
			case events <- e:
				return true
			case <-ctx.Done():
				return false
			}
		}
		found, err := notify.Find(ctx, s.get, target)
		if err != nil {
			if ctx.Err() == nil {
				send(NotificationEvent{Err: fmt.Errorf("subscribe to the notifications of %s: %w", target, err)})
			}
			return
		}
		if !send(NotificationEvent{Found: found}) {
			return
		}
		for e := range notify.Watch(ctx, found.Channels, s.opts.Notify) {
			s.logEvent(target, e)
			if !send(NotificationEvent{Event: &e}) {
				return
			}
		}
	}()
	return NewSubscription(events, cancel)
}

// logEvent writes to the log file what a subscription decided on its own:
// a channel that dropped (or could not connect) and when it tries again.
func (s *Session) logEvent(target string, e notify.Event) {
	if s.opts.Log == nil || e.Type != notify.EventDisconnected {
		return
	}
	errText := ""
	if e.Err != nil {
		errText = display.Redact(e.Err.Error())
	}
	s.opts.Log.Warn("notification channel dropped", "source", display.RedactURL(target), "channel", display.RedactURL(e.Channel.URL),
		"error", errText, "attempt", e.Attempt, "retry", e.Retry.String())
}
