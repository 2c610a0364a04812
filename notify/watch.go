package notify

import (
	"context"
	"math/rand/v2"
	"net/http"
	"sort"
	"sync"
	"time"

	"rsx/model"
)

// EventType says what an Event reports.
type EventType string

const (
	// EventConnected: a channel's connection is up (again, when Reconnect).
	EventConnected EventType = "connected"
	// EventNotification: a notification arrived (Items, Problems, Raw).
	EventNotification EventType = "notification"
	// EventDisconnected: a connection dropped or an attempt to connect
	// failed (Err); the next attempt is in Retry.
	EventDisconnected EventType = "disconnected"
)

// Item is one entry of a notification: a resource that changed (change
// notifications) or a document that changed (framework notifications).
type Item struct {
	URL    string
	Change model.Change // created, updated, deleted; "" when the entry has none
	// Datetime is when the change happened: the entry's datetime attribute,
	// or its <lastmod> as in the draft's examples; zero (not OK) when neither.
	Datetime model.Datetime
	// Capability is, in framework notifications, the changed document's.
	Capability model.Capability
	// Index is, in framework notifications, the index the changed document
	// resides under (its rel="index" link), "" when none.
	Index string
	Entry model.Entry // the whole entry as decoded
}

// Event is something that happened on a channel.
type Event struct {
	Type    EventType
	Channel Channel
	Time    time.Time // when it happened here

	// EventNotification: the notification's entries, its problems (never
	// nil-checked by the caller: a malformed message has one problem and no
	// items) and the message as received.
	Items    []Item
	Problems []model.Problem
	Raw      []byte
	// From and Until are the notification's document-level <rs:md from
	// until>, when it gives them (the draft's examples do not): the period
	// whose changes it carries, as a Change List's. A notification whose
	// From is after the Until of the one before shows that one was missed.
	From, Until model.Datetime

	// EventDisconnected: why, the attempt that failed (1 for the first
	// failure after a connection was up) and how long until the next one.
	Err     error
	Attempt int
	Retry   time.Duration

	// EventConnected: true when an earlier connection of this channel had
	// dropped.
	Reconnect bool
}

// Kind is the kind of the channel the event is about.
func (e *Event) Kind() Kind { return e.Channel.Kind }

// Errors counts the error problems of a notification.
func (e *Event) Errors() int {
	n, _ := model.CountProblems(e.Problems)
	return n
}

// Defaults of Options.
const (
	DefaultMaxMessageBytes = 4 << 20
	DefaultMinBackoff      = 500 * time.Millisecond
	DefaultMaxBackoff      = 30 * time.Second
	DefaultBuffer          = 64
	DefaultDialTimeout     = 30 * time.Second
)

// Options configure Watch. The zero value gives the defaults.
type Options struct {
	// MaxMessageBytes bounds one notification; a larger one drops the
	// connection (it is reported, and the channel reconnects). Default 4 MiB.
	MaxMessageBytes int64
	// MinBackoff and MaxBackoff bound the wait before reconnecting: it
	// doubles with each failed attempt, from MinBackoff up to MaxBackoff,
	// and is jittered (between half and all of it). Defaults 0.5s and 30s.
	MinBackoff, MaxBackoff time.Duration
	// DialTimeout bounds one attempt to connect; default 30s.
	DialTimeout time.Duration
	// HTTPClient makes the WebSocket handshakes (and WebSub requests); nil
	// uses a client of its own.
	HTTPClient *http.Client
	// Header, when set, gives extra request headers for a channel URL (a
	// User-Agent, credentials bound to that host).
	Header func(channelURL string) http.Header
	// Buffer is the capacity of the event channel; default 64. Watch waits
	// for the receiver when it is full.
	Buffer int
	// UseWebSub subscribes to ws(s):// channels through WebSub, at the
	// http(s) form of their URL, instead of opening WebSockets.
	UseWebSub bool
	// WebSub configures the WebSub transport (websub.go); nil gives the
	// defaults.
	WebSub *WebSubOptions
	// Jitter returns a number in [0, 1) for the back-off jitter; nil uses
	// math/rand/v2. Tests make it fixed.
	Jitter func() float64
	// CheckDocuments, when set, fetches the documents a framework
	// notification names and checks the notification against them
	// (FrameworkTargetProblems). Off when nil: a notification is then
	// judged by itself.
	CheckDocuments HeaderFetcher
}

func (o Options) withDefaults() Options {
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = DefaultMinBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = o.MinBackoff
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	if o.Buffer <= 0 {
		o.Buffer = DefaultBuffer
	}
	if o.Jitter == nil {
		o.Jitter = rand.Float64
	}
	return o
}

// backoff is the wait before attempt n (1-based) after a failure: MinBackoff
// doubled n-1 times, capped at MaxBackoff, then jittered to between half and
// all of it, so that many subscribers dropped at once do not return at once.
func (o *Options) backoff(n int) time.Duration {
	d := o.MinBackoff
	for i := 1; i < n && d < o.MaxBackoff; i++ {
		d *= 2
	}
	if d > o.MaxBackoff {
		d = o.MaxBackoff
	}
	return d/2 + time.Duration(o.Jitter()*float64(d/2))
}

// Watch subscribes to every channel and sends what happens on the returned
// channel until ctx is done; then it closes it. Each channel reconnects on
// its own after a drop. Channels with ws:// or wss:// URLs are WebSockets
// (unless Options.UseWebSub), those with http:// or https:// URLs WebSub
// topics.
func Watch(ctx context.Context, channels []Channel, opts Options) <-chan Event {
	opts = opts.withDefaults()
	out := make(chan Event, opts.Buffer)
	w := &watcher{opts: opts, out: out}
	var wg sync.WaitGroup
	var sub *webSubSubscriber
	for _, ch := range channels {
		wg.Add(1)
		if _, ok := webSubTopic(ch.URL, opts.UseWebSub); ok {
			if sub == nil {
				sub = newWebSubSubscriber(w)
			}
			go func() {
				defer wg.Done()
				w.run(ctx, ch, sub.session)
			}()
			continue
		}
		go func() {
			defer wg.Done()
			w.run(ctx, ch, w.webSocketSession)
		}()
	}
	go func() {
		wg.Wait()
		if sub != nil {
			sub.close()
		}
		close(out)
	}()
	return out
}

// watcher is what the channel goroutines share.
type watcher struct {
	opts Options
	out  chan<- Event
}

// emit sends an event unless ctx is done first.
func (w *watcher) emit(ctx context.Context, e Event) bool {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	select {
	case w.out <- e:
		return true
	case <-ctx.Done():
		return false
	}
}

// hooks are how a session reports: connected once it is up, deliver for each
// message, reject for a message refused before it could be checked (a WebSub
// delivery too large or wrongly signed).
type hooks struct {
	connected func()
	deliver   func(raw []byte)
	reject    func(raw []byte, rule, why string)
}

// session is one connection of a channel, from connecting to its end. It
// returns why it ended (nil when ctx was cancelled).
type session func(ctx context.Context, ch Channel, h hooks) error

// run keeps one channel connected until ctx is done.
func (w *watcher) run(ctx context.Context, ch Channel, connect session) {
	checker := model.NewNotificationChecker(model.NotificationOptions{Kind: ch.Kind.Capability(), CapabilityList: ch.CapabilityList})
	failures := 0
	everUp := false
	for ctx.Err() == nil {
		got := false
		err := connect(ctx, ch, hooks{
			connected: func() {
				w.emit(ctx, Event{Type: EventConnected, Channel: ch, Reconnect: everUp, Attempt: failures})
				everUp = true
			},
			deliver: func(raw []byte) {
				got = true
				w.emit(ctx, w.notification(ctx, ch, checker, raw))
			},
			reject: func(raw []byte, rule, why string) {
				got = true
				w.emit(ctx, Event{Type: EventNotification, Channel: ch, Raw: raw, Problems: []model.Problem{
					{Severity: model.SeverityError, Rule: rule, Section: "transport", Entry: -1, Message: why}}})
			},
		})
		if ctx.Err() != nil {
			return
		}
		// A connection that carried a message was a good one: the back-off
		// starts again. One that failed at once, or closed before saying
		// anything, keeps growing it.
		if got {
			failures = 0
		}
		failures++
		delay := w.opts.backoff(failures)
		if !w.emit(ctx, Event{Type: EventDisconnected, Channel: ch, Err: err, Attempt: failures, Retry: delay}) {
			return
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// notification checks one message and makes its event.
func (w *watcher) notification(ctx context.Context, ch Channel, c *model.NotificationChecker, raw []byte) Event {
	e := Event{Type: EventNotification, Channel: ch, Raw: raw}
	d, ps := c.Check(raw, model.DecoderOptions{MaxBytes: w.opts.MaxMessageBytes})
	e.Problems = ps
	if d == nil {
		return e
	}
	e.From, e.Until = d.MD.From, d.MD.Until
	if w.opts.CheckDocuments != nil && ch.Kind.Capability() == model.CapFrameworkNotification {
		if more := FrameworkTargetProblems(ctx, w.opts.CheckDocuments, d); len(more) > 0 {
			e.Problems = append(e.Problems, more...)
			sort.SliceStable(e.Problems, func(i, j int) bool { return e.Problems[i].Entry < e.Problems[j].Entry })
		}
	}
	e.Items = make([]Item, 0, len(d.Entries))
	for i := range d.Entries {
		en := &d.Entries[i]
		it := Item{URL: en.Loc, Change: en.MD.Change, Datetime: model.ChangeTime(en), Capability: en.MD.Capability, Entry: *en}
		for _, l := range en.Links {
			if model.HasRel(l.Rel, "index") {
				it.Index = l.Href
				break
			}
		}
		e.Items = append(e.Items, it)
	}
	return e
}
