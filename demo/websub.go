package demo

// The demo Source is also a WebSub publisher and hub (W3C WebSub, 2018),
// the transport that ResourceSync Change Notification 1.0 (2017) chose after
// the draft's WebSockets:
//
//	GET /channels/datasetN/{change,framework}   (no WebSocket upgrade) the topic:
//	    Link: <…/websub/hub>; rel="hub", <…/channels/…>; rel="self" (WebSub 4),
//	    and the channel's latest notification as the body
//	POST /websub/hub   subscription requests (WebSub 5.1): hub.mode, hub.topic,
//	    hub.callback, hub.lease_seconds, hub.secret; answered 202, then the
//	    hub verifies intent with a GET of the callback carrying hub.challenge
//	    (5.3) and, when it is echoed, activates (or ends) the subscription
//
// Content distribution (WebSub 7): each notification the WebSocket
// subscribers of the channel get is POSTed to the callback as
// application/xml with the hub and self Link headers, and X-Hub-Signature
// (sha256) when the subscription has a secret; a failed delivery is tried
// three times in all. A subscription lasts its lease (60 s to 24 h, default
// 1 h) unless renewed. A subscription the Source drops (POST /demo/disconnect,
// shutdown) is denied with a GET of the callback, hub.mode=denied (5.2). Policy: callbacks must be on a loopback address (the
// demo calls nothing else), and topics must be this Source's channels.

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Lease bounds of the demo hub, in seconds.
const (
	webSubLeaseMin     = 60
	webSubLeaseMax     = 24 * 3600
	webSubLeaseDefault = 3600
)

// webSubHub is the hub's state.
type webSubHub struct {
	mu     sync.Mutex
	subs   map[webSubKey]*webSubState
	client *http.Client
}

// webSubKey identifies a subscription (WebSub 1: topic and callback).
type webSubKey struct{ topic, callback string }

// webSubState is an active subscription.
type webSubState struct {
	sub     *subscription
	base    string // the Source's base URL as the subscriber knows it
	hubURL  string
	secret  string    // under webSubHub.mu
	expires time.Time // under webSubHub.mu
}

func (h *webSubHub) httpClient() *http.Client {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.client == nil {
		h.client = &http.Client{
			Timeout: 5 * time.Second,
			// A redirect is a failed verification or delivery (WebSub 5.3.1, 7).
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	return h.client
}

// serveTopic answers a plain GET or HEAD of a channel URL: the WebSub topic.
func (s *Source) serveTopic(w http.ResponseWriter, r *http.Request, i int, k notifKind, base string) {
	h := w.Header()
	h.Set("Link", "<"+base+"/websub/hub>; rel=\"hub\", <"+base+s.channelPath(i, k)+">; rel=\"self\"")
	h.Set("Content-Type", xmlType)
	h.Set("Cache-Control", "no-cache")
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return
	}
	w.Write(s.latestNotification(i, k, base))
}

// latestNotification is the channel's most recent notification: the full
// contents of the topic (WebSub 7).
func (s *Source) latestNotification(i int, k notifKind, base string) []byte {
	sn := s.snapshot()
	if k == notifFramework {
		if s.hasChangeIndex(i) && sn.steps >= stepsPerList {
			return s.frameworkNotification(base, i, sn.steps/stepsPerList, false)
		}
		return s.changeNotification(base, i, nil)
	}
	for step := sn.steps - 1; step >= 0; step-- {
		if changes := stepRange(sn.logs[i].changes, step, step+1); len(changes) > 0 {
			return s.changeNotification(base, i, changes)
		}
	}
	return s.changeNotification(base, i, nil)
}

// serveHub takes a subscription request (WebSub 5.1).
func (s *Source) serveHub(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "the WebSub hub takes subscription requests: POST hub.mode, hub.topic and hub.callback", http.StatusMethodNotAllowed)
		return
	}
	if !plainHost(r.Host) {
		http.Error(w, "bad Host", http.StatusBadRequest)
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		http.Error(w, "a subscription request is application/x-www-form-urlencoded", http.StatusUnsupportedMediaType)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "could not read the form: "+err.Error(), http.StatusBadRequest)
		return
	}
	base := "http://" + r.Host
	mode, topic, callback := r.PostForm.Get("hub.mode"), r.PostForm.Get("hub.topic"), r.PostForm.Get("hub.callback")
	secret := r.PostForm.Get("hub.secret")
	if mode != "subscribe" && mode != "unsubscribe" {
		http.Error(w, `hub.mode must be "subscribe" or "unsubscribe"`, http.StatusBadRequest)
		return
	}
	i, k, ok := s.topicOf(topic, base)
	if !ok {
		http.Error(w, "hub.topic "+strconv.Quote(topic)+" is not a topic of this hub: the topics are the notification channels, "+base+"/channels/datasetN/change and …/framework", http.StatusBadRequest)
		return
	}
	cb, err := url.Parse(callback)
	if err != nil || (cb.Scheme != "http" && cb.Scheme != "https") || cb.Host == "" {
		http.Error(w, "hub.callback must be an absolute http(s) URL", http.StatusBadRequest)
		return
	}
	if !isLoopback(cb.Hostname()) {
		http.Error(w, "this demo hub calls back loopback addresses only", http.StatusForbidden)
		return
	}
	if len(secret) >= 200 {
		http.Error(w, "hub.secret must be shorter than 200 bytes", http.StatusBadRequest)
		return
	}
	lease := webSubLeaseDefault
	if v := r.PostForm.Get("hub.lease_seconds"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			lease = min(max(n, webSubLeaseMin), webSubLeaseMax)
		}
	}
	req := webSubRequest{mode: mode, topic: topic, callback: callback, secret: secret, lease: lease, base: base, dataset: i, kind: k}
	if !s.notify.goTracked(func() { s.verifyIntent(req) }) {
		http.Error(w, "the demo Source is shutting down", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusAccepted)
	io.WriteString(w, "accepted: the hub will verify the intent at the callback\n")
}

// topicOf recognises a topic URL of this Source.
func (s *Source) topicOf(topic, base string) (int, notifKind, bool) {
	p, ok := strings.CutPrefix(topic, base)
	if !ok {
		return 0, 0, false
	}
	return s.parseChannel(p)
}

type webSubRequest struct {
	mode, topic, callback, secret string
	lease                         int
	base                          string
	dataset                       int
	kind                          notifKind
}

// verifyIntent GETs the callback with a challenge (WebSub 5.3) and, when the
// subscriber echoes it, carries out the request.
func (s *Source) verifyIntent(req webSubRequest) {
	challenge := randomHex(16)
	q := url.Values{}
	q.Set("hub.mode", req.mode)
	q.Set("hub.topic", req.topic)
	q.Set("hub.challenge", challenge)
	if req.mode == "subscribe" {
		q.Set("hub.lease_seconds", strconv.Itoa(req.lease))
	}
	u := req.callback
	if strings.Contains(u, "?") {
		u += "&" + q.Encode() // the callback's own query is kept (5.1.1)
	} else {
		u += "?" + q.Encode()
	}
	resp, err := s.websub.httpClient().Get(u)
	if err != nil {
		return
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, int64(len(challenge))+1))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 || string(body) != challenge {
		return // not verified: the subscription state stays as it was
	}
	key := webSubKey{req.topic, req.callback}
	h := &s.websub
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs == nil {
		h.subs = make(map[webSubKey]*webSubState)
	}
	st := h.subs[key]
	if req.mode == "unsubscribe" {
		if st != nil {
			delete(h.subs, key)
			st.sub.drop(0, reasonUnsubscribed)
		}
		return
	}
	expires := time.Now().Add(time.Duration(req.lease) * time.Second)
	if st != nil { // a renewal: the same subscription goes on
		st.secret, st.expires = req.secret, expires
		return
	}
	sub, ok := s.subscribeWith(&subscription{dataset: req.dataset, kind: req.kind, keep: true,
		queue: make(chan advance, notifyQueue), done: make(chan struct{})})
	if !ok {
		return
	}
	st = &webSubState{sub: sub, base: req.base, hubURL: req.base + "/websub/hub", secret: req.secret, expires: expires}
	h.subs[key] = st
	// The subscription counts as a connection of the notifier: the delivery
	// goroutine ends with it (add has counted it in notifier.wg).
	go s.distribute(key, st)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// distribute POSTs the subscription's notifications to its callback until it
// is dropped, unsubscribed or its lease ends.
func (s *Source) distribute(key webSubKey, st *webSubState) {
	sub := st.sub
	defer s.notify.remove(sub)
	defer func() {
		s.websub.mu.Lock()
		if s.websub.subs[key] == st {
			delete(s.websub.subs, key)
		}
		s.websub.mu.Unlock()
	}()
	lease := time.NewTimer(time.Until(st.expiry(&s.websub)))
	defer lease.Stop()
	for {
		select {
		case a := <-sub.queue:
			for step := a.from; step < a.until; step++ {
				for _, msg := range s.notifications(&a.logs, sub.dataset, sub.kind, step, st.base) {
					if gone := s.deliver(key, st, msg); gone {
						select {
						case <-sub.done: // dropped while retrying
							if sub.reason != reasonUnsubscribed {
								s.deny(key, sub.reason)
							}
						default: // 410 Gone: the subscriber ended it
						}
						return
					}
				}
				select {
				case <-sub.done:
					if sub.reason != reasonUnsubscribed {
						s.deny(key, sub.reason)
					}
					return
				default:
				}
			}
		case <-lease.C:
			if left := time.Until(st.expiry(&s.websub)); left > 0 {
				lease.Reset(left) // renewed meanwhile
				continue
			}
			return
		case <-sub.done:
			if sub.reason != reasonUnsubscribed {
				s.deny(key, sub.reason)
			}
			return
		}
	}
}

// reasonUnsubscribed ends a subscription its subscriber ended.
const reasonUnsubscribed = "unsubscribed"

// deny tells the subscriber that the hub ended its subscription (WebSub 5.2):
// dropped on request, or the Source is shutting down.
func (s *Source) deny(key webSubKey, reason string) {
	q := url.Values{}
	q.Set("hub.mode", "denied")
	q.Set("hub.topic", key.topic)
	q.Set("hub.reason", reason)
	u := key.callback
	if strings.Contains(u, "?") {
		u += "&" + q.Encode()
	} else {
		u += "?" + q.Encode()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return
	}
	if resp, err := s.websub.httpClient().Do(req); err == nil {
		resp.Body.Close()
	}
}

func (st *webSubState) expiry(h *webSubHub) time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return st.expires
}

// deliver POSTs one notification (WebSub 7), trying three times in all. It
// reports true when the subscription is over: the subscriber answered 410
// Gone, or the subscription was dropped meanwhile.
func (s *Source) deliver(key webSubKey, st *webSubState, msg []byte) bool {
	s.websub.mu.Lock()
	secret := st.secret
	s.websub.mu.Unlock()
	wait := 500 * time.Millisecond
	for try := 0; try < 3; try++ {
		if try > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-st.sub.done:
				t.Stop()
				return true
			}
			wait *= 2
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, key.callback, strings.NewReader(string(msg)))
		if err != nil {
			cancel()
			return true
		}
		req.Header.Set("Content-Type", xmlType)
		req.Header.Set("Link", "<"+st.hubURL+">; rel=\"hub\", <"+key.topic+">; rel=\"self\"")
		if secret != "" {
			m := hmac.New(sha256.New, []byte(secret))
			m.Write(msg)
			req.Header.Set("X-Hub-Signature", "sha256="+hex.EncodeToString(m.Sum(nil)))
		}
		resp, err := s.websub.httpClient().Do(req)
		cancel()
		if err != nil {
			continue
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		switch {
		case resp.StatusCode/100 == 2:
			return false
		case resp.StatusCode == http.StatusGone:
			return true // the subscriber deleted the subscription (WebSub 7)
		}
	}
	return false // given up on this notification; the subscription goes on
}
