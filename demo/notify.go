package demo

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"rsx/model"
)

// Notifications (ResourceSync Notification draft, 0.8): each Capability List
// advertises a Change Notification channel and a Framework Notification
// channel (section 3), served as WebSockets at
//
//	/channels/datasetN/change      change notifications (section 4)
//	/channels/datasetN/framework   framework notifications (section 5)
//
// On every clock step the change channel of a dataset carries one change
// notification with the changes of that step, as its Change Lists then show
// them (URIs, change types, datetimes, hashes, lengths, types). The framework
// channel of dataset 1 carries one framework notification each time its open
// Change List closes and the next one opens (dataset 2 has a single Change
// List, which never closes). A subscriber receives the steps taken after it
// subscribed.
//
// Broken mode, on the dataset 1 channels: after the notification of every
// step ≡ 1 (mod 6), a malformed one (cut in the middle); for steps ≡ 3, the
// changes in reverse chronological order; after the notification of steps ≡ 5,
// the previous step's notification again (out of order across notifications);
// a framework notification with a <sitemapindex> root when an even-numbered
// Change List closes. Notifications carry the true datetimes: the Change List
// faults of broken mode (a datetime before from, swapped entries) are not
// repeated in them.

// notifKind is a kind of notification channel.
type notifKind uint8

const (
	notifChange notifKind = iota
	notifFramework
)

func (k notifKind) name() string {
	if k == notifFramework {
		return "framework"
	}
	return "change"
}

func (k notifKind) capability() model.Capability {
	if k == notifFramework {
		return model.CapFrameworkNotification
	}
	return model.CapChangeNotification
}

// notifyQueue is how many clock advances may wait for one subscriber. An
// advance is one call of Advance, however many steps it takes, so a single
// POST /demo/advance?steps=10000 is one item; a subscriber that lets this many
// pile up is dropped.
const notifyQueue = 64

// notifyWriteTimeout bounds the writing of one notification to a subscriber.
const notifyWriteTimeout = 10 * time.Second

// channelPath is the path of a notification channel of dataset i.
func (s *Source) channelPath(i int, k notifKind) string {
	return "/channels" + s.sets[i].prefix() + "/" + k.name()
}

// parseChannel recognises a channel path.
func (s *Source) parseChannel(p string) (int, notifKind, bool) {
	rest, ok := strings.CutPrefix(p, "/channels")
	if !ok {
		return 0, 0, false
	}
	i, name, ok := s.splitDataset(rest)
	if !ok {
		return 0, 0, false
	}
	switch name {
	case "/change":
		return i, notifChange, true
	case "/framework":
		return i, notifFramework, true
	}
	return 0, 0, false
}

// wsBase turns the http(s) base URL of a request into the ws(s) one.
func wsBase(base string) string {
	if rest, ok := strings.CutPrefix(base, "https://"); ok {
		return "wss://" + rest
	}
	return "ws://" + strings.TrimPrefix(base, "http://")
}

// advance is what one call of Advance did: steps [from, until), and the
// change log after them (append-only, so the copy stays valid).
type advance struct {
	from, until int
	logs        [2]changeLog
}

// subscription is one subscriber of one channel.
type subscription struct {
	dataset int
	kind    notifKind
	queue   chan advance
	// keep: when the queue is full, the advance is skipped and the
	// subscription kept (WebSub keeps a subscription to the end of its
	// lease); otherwise the subscriber is dropped.
	keep    bool
	skipped int           // advances skipped so (under notifier.mu)
	done    chan struct{} // closed when the Source drops the subscription
	once    sync.Once
	code    websocket.StatusCode // why it was dropped, set before done is closed
	reason  string
}

func (sub *subscription) drop(code websocket.StatusCode, reason string) {
	sub.once.Do(func() {
		sub.code, sub.reason = code, reason
		close(sub.done)
	})
}

// notifier fans clock advances out to the subscribers. Publishing never
// blocks: each subscriber has a bounded queue, and one that is full is dropped.
type notifier struct {
	mu     sync.Mutex
	subs   map[*subscription]struct{}
	closed bool
	wg     sync.WaitGroup // subscriber connections being served
}

func (n *notifier) add(sub *subscription) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return false
	}
	if n.subs == nil {
		n.subs = make(map[*subscription]struct{})
	}
	n.subs[sub] = struct{}{}
	n.wg.Add(1)
	return true
}

// remove forgets a subscription whose connection has ended.
func (n *notifier) remove(sub *subscription) {
	n.mu.Lock()
	_, ok := n.subs[sub]
	delete(n.subs, sub)
	n.mu.Unlock()
	if ok {
		n.wg.Done()
	}
}

// publish queues an advance for every subscriber, dropping those whose queue
// is full. It is called with Source.mu held, so advances are queued in order.
func (n *notifier) publish(a advance) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for sub := range n.subs {
		select {
		case <-sub.done:
			continue // dropped: its connection closes, it never sees a
		default:
		}
		select {
		case sub.queue <- a:
		default:
			if sub.keep {
				sub.skipped++
				continue
			}
			sub.drop(websocket.StatusPolicyViolation, "too slow: notifications of 64 clock advances not yet taken")
		}
	}
}

func (n *notifier) count() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.subs)
}

// goTracked runs f in a goroutine that CloseNotifications waits for; it
// reports false, and does not run f, once the channels are closed.
func (n *notifier) goTracked(f func()) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return false
	}
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		f()
	}()
	return true
}

// dropAll drops every subscription and returns how many there were.
func (n *notifier) dropAll(code websocket.StatusCode, reason string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	for sub := range n.subs {
		sub.drop(code, reason)
	}
	return len(n.subs)
}

// subscribe registers a subscriber of a channel; it receives the advances
// taken from now on. It reports false once the Source has closed its channels.
func (s *Source) subscribe(i int, k notifKind) (*subscription, bool) {
	return s.subscribeWith(&subscription{dataset: i, kind: k, queue: make(chan advance, notifyQueue), done: make(chan struct{})})
}

func (s *Source) subscribeWith(sub *subscription) (*subscription, bool) {
	s.mu.Lock() // Advance publishes under s.mu: no advance is half seen
	defer s.mu.Unlock()
	return sub, s.notify.add(sub)
}

// DropSubscribers closes every notification connection with a close reason
// (a subscriber is expected to reconnect) and returns how many there were.
func (s *Source) DropSubscribers(reason string) int {
	return s.notify.dropAll(websocket.StatusServiceRestart, reason)
}

// DropSubscribersAndAdvance drops every notification connection and then
// advances the clock n steps before any subscriber can connect again: the
// changes of those steps reach nobody by notification (a subscriber finds
// them only by reading the Change Lists), whatever the timing of its
// reconnection. It returns how many connections were dropped.
func (s *Source) DropSubscribersAndAdvance(reason string, n int) int {
	s.mu.Lock() // subscribeWith waits for it: no reconnection in between
	defer s.mu.Unlock()
	dropped := s.notify.dropAll(websocket.StatusServiceRestart, reason)
	s.advanceLocked(n)
	return dropped
}

// CloseNotifications drops every notification connection, refuses new ones,
// and waits up to wait for the connections to end.
func (s *Source) CloseNotifications(wait time.Duration) {
	s.notify.mu.Lock()
	s.notify.closed = true
	s.notify.mu.Unlock()
	s.notify.dropAll(websocket.StatusGoingAway, "the demo Source is shutting down")
	done := make(chan struct{})
	go func() {
		s.notify.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(wait):
	}
}

// notifications are the messages of one channel for one clock step, in the
// order they are sent.
func (s *Source) notifications(logs *[2]changeLog, i int, k notifKind, step int, base string) [][]byte {
	broken := s.opts.Broken && i == 0
	if k == notifFramework {
		if !s.hasChangeIndex(i) || (step+1)%stepsPerList != 0 {
			return nil
		}
		closed := (step + 1) / stepsPerList
		return [][]byte{s.frameworkNotification(base, i, closed, broken && closed%2 == 0)}
	}
	changes := stepRange(logs[i].changes, step, step+1)
	if len(changes) == 0 {
		return nil
	}
	if !broken {
		return [][]byte{s.changeNotification(base, i, changes)}
	}
	switch step % 6 {
	case 1:
		msg := s.changeNotification(base, i, changes)
		return [][]byte{msg, msg[:len(msg)/2]}
	case 3:
		rev := slices.Clone(changes)
		slices.Reverse(rev)
		return [][]byte{s.changeNotification(base, i, rev)}
	case 5:
		out := [][]byte{s.changeNotification(base, i, changes)}
		if prev := stepRange(logs[i].changes, step-1, step); len(prev) > 0 {
			out = append(out, s.changeNotification(base, i, prev))
		}
		return out
	}
	return [][]byte{s.changeNotification(base, i, changes)}
}

// changeNotification is a change notification (section 4): a <urlset> with
// an up link to the Capability List and the changes as Change List entries.
func (s *Source) changeNotification(base string, i int, changes []change) []byte {
	var out bytes.Buffer
	h := &model.Header{Root: model.RootURLSet, Links: []model.Link{s.upLink(base, i)}}
	w := s.newWriter(&out, h)
	var b entryBuf
	ds := s.sets[i].num
	for j := range changes {
		c := &changes[j]
		s.fillResource(&b, base, ds, c.id, c.version, c.at, c, useChangeList)
		if err := w.WriteEntry(&b.e); err != nil {
			return out.Bytes() // cannot happen with generated entries; a cut message is what a subscriber would see
		}
	}
	w.Close()
	return out.Bytes()
}

// frameworkNotification is a framework notification (section 5): Change List
// k of dataset i closed (updated: it has until now) and Change List k+1
// opened (created). Both reside under the Change List Index: each entry has
// the index link the draft requires.
func (s *Source) frameworkNotification(base string, i, k int, asIndex bool) []byte {
	var out bytes.Buffer
	h := &model.Header{Root: model.RootURLSet, Links: []model.Link{s.upLink(base, i)}}
	if asIndex {
		h.Root = model.RootSitemapIndex
	}
	w := s.newWriter(&out, h)
	at := dt(s.stepStart(k * stepsPerList))
	index := link("index", base+s.changeListPath(i))
	for _, d := range []struct {
		n      int
		change model.Change
	}{{k, model.ChangeUpdated}, {k + 1, model.ChangeCreated}} {
		e := model.Entry{Loc: base + s.changeListPartPath(i, d.n), HasLoc: true}
		e.MD = model.Metadata{Present: true, Capability: model.CapChangeList, Change: d.change, Datetime: at}
		e.Links = []model.Link{index}
		if err := w.WriteEntry(&e); err != nil {
			return out.Bytes()
		}
	}
	w.Close()
	return out.Bytes()
}
