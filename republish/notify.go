package republish

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"rsx/dest/state"
	"rsx/model"
)

// Change notifications (ResourceSync Notification draft 0.8, as the demo
// Source sends them): each Capability List advertises a change channel, a
// WebSocket; each generation that brings changes of a Source sends them on
// its channel, as Change List entries dated as its Change Lists date them,
// in notifications of at most notifyEntries that say the period they carry
// (a document-level <rs:md capability="changelist" from until>, as a Change
// List's): the first from the generation before,
// the last until this one's. A subscriber that follows the copy can so tell
// a notification it missed (its from is after what it holds) and read the
// Change Lists. A generation of more than notifyMost changes of a Source
// (a baseline, a long run) is not sent: the next notification's from shows
// the gap, and the Change Lists hold it.

const (
	notifyEntries = 1000
	notifyMost    = 20000
	// notifyQueue is how many notifications may wait for one subscriber; one
	// that lets more pile up is dropped (it reconnects, and catches up from
	// the Change Lists).
	notifyQueue        = 256
	notifyWriteTimeout = 10 * time.Second
)

type subscriber struct {
	source int64
	queue  chan []byte
	done   chan struct{}
	once   sync.Once
	reason string
}

func (sub *subscriber) drop(reason string) {
	sub.once.Do(func() {
		sub.reason = reason
		close(sub.done)
	})
}

type notifier struct {
	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	closed bool
	wg     sync.WaitGroup
}

func newNotifier() *notifier { return &notifier{subs: map[*subscriber]struct{}{}} }

func (n *notifier) add(sub *subscriber) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return false
	}
	n.subs[sub] = struct{}{}
	n.wg.Add(1)
	return true
}

func (n *notifier) remove(sub *subscriber) {
	n.mu.Lock()
	_, ok := n.subs[sub]
	delete(n.subs, sub)
	n.mu.Unlock()
	if ok {
		n.wg.Done()
	}
}

// wants tells whether a Source has a subscriber.
func (n *notifier) wants(source int64) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for sub := range n.subs {
		if sub.source == source {
			return true
		}
	}
	return false
}

// publish queues messages for the subscribers of a Source, never waiting.
func (n *notifier) publish(source int64, msgs [][]byte) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for sub := range n.subs {
		if sub.source != source {
			continue
		}
		for _, m := range msgs {
			select {
			case sub.queue <- m:
			default:
				sub.drop("too slow: notifications not taken")
			}
		}
	}
}

// close drops every subscriber, refuses new ones, and waits a little for
// their connections to end.
func (n *notifier) close() {
	n.mu.Lock()
	n.closed = true
	for sub := range n.subs {
		sub.drop("the Source is shutting down")
	}
	n.mu.Unlock()
	done := make(chan struct{})
	go func() { n.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
}

// serveChannel serves a Source's change channel: a WebSocket on which the
// Source sends and the subscriber only listens.
func (s *Server) serveChannel(w http.ResponseWriter, r *http.Request, ss *servedSource) {
	if !isUpgrade(r) {
		http.Error(w, "a change notification channel: connect with a WebSocket", http.StatusUpgradeRequired)
		return
	}
	sub := &subscriber{source: ss.row.ID, queue: make(chan []byte, notifyQueue), done: make(chan struct{})}
	if !s.notify.add(sub) {
		http.Error(w, "the Source is shutting down", http.StatusServiceUnavailable)
		return
	}
	defer s.notify.remove(sub)
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return // Accept has answered
	}
	gone := c.CloseRead(context.Background())
	defer c.CloseNow()
	for {
		select {
		case m := <-sub.queue:
			ctx, cancel := context.WithTimeout(gone, notifyWriteTimeout)
			err := c.Write(ctx, websocket.MessageText, m)
			cancel()
			if err != nil {
				return
			}
		case <-sub.done:
			c.Close(websocket.StatusGoingAway, sub.reason)
			return
		case <-gone.Done():
			return
		}
	}
}

func isUpgrade(r *http.Request) bool {
	for _, v := range r.Header.Values("Connection") {
		for _, tok := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), "upgrade") {
				return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
			}
		}
	}
	return false
}

// notifyChanges sends the changes generation g brings after prev, for each
// Source that has a subscriber.
func (s *Server) notifyChanges(ctx context.Context, prev, g *generation) {
	if !s.opts.Channels {
		return
	}
	for _, ss := range g.sources {
		if !s.notify.wants(ss.row.ID) {
			continue
		}
		var runs []*runSpan
		total := 0
		for _, sp := range ss.runs {
			if sp.id > prev.lastRun && sp.changes > 0 {
				runs = append(runs, sp)
				total += sp.changes
			}
		}
		if len(runs) == 0 || total > notifyMost {
			continue
		}
		msgs, err := s.changeNotifications(ctx, g, ss, runs, prev.until)
		if err != nil {
			s.note("the change notifications could not be made: " + err.Error())
			continue
		}
		s.notify.publish(ss.row.ID, msgs)
	}
}

// changeNotifications are the notifications of the changes of runs, from
// from to the generation's until.
func (s *Server) changeNotifications(ctx context.Context, g *generation, ss *servedSource, runs []*runSpan, from time.Time) ([][]byte, error) {
	var (
		msgs  [][]byte
		batch []model.Entry
		last  = from
	)
	flush := func(until time.Time) error {
		var out bytes.Buffer
		d, err := model.NewWriter(&out, &model.Header{Root: model.RootURLSet, MD: model.Metadata{Capability: model.CapChangeList, From: dt(from), Until: dt(until)},
			Links: []model.Link{link("up", s.capURL(ss))}})
		if err != nil {
			return err
		}
		for i := range batch {
			if err := d.WriteEntry(&batch[i]); err != nil {
				return err
			}
		}
		if err := d.Close(); err != nil {
			return err
		}
		msgs = append(msgs, out.Bytes())
		batch, from = batch[:0], until
		return nil
	}
	for _, sp := range runs {
		span, err := s.cache.fileSpan(ctx, g.view.f, sp.id)
		if err != nil {
			return nil, err
		}
		if span[1] == 0 {
			continue
		}
		err = g.view.f.EachChange(ctx, span[0], span[1]+1, func(ch *state.Change) error {
			if ch.RunID != sp.id || ch.Path == "" {
				return nil
			}
			last = nextTime(last, sp.changeTime(ch.At))
			var e model.Entry
			if s.changeEntry(&e, nil, ch, last) {
				batch = append(batch, e)
			}
			if len(batch) == notifyEntries {
				return flush(last)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(batch) > 0 || len(msgs) == 0 {
		if err := flush(g.until); err != nil {
			return nil, err
		}
	}
	return msgs, nil
}
