package notify

// The WebSub transport (W3C Recommendation, 23 January 2018), the successor
// of the draft's WebSockets in ResourceSync Change Notification 1.0 (2017):
//
//   - discovery (WebSub section 4): a GET of the topic URL; its Link headers
//     rel="hub" and rel="self" name the hub and the topic, or, without them,
//     <link> elements in the XML or HTML body;
//   - subscription (5.1): a POST to the hub of hub.callback, hub.mode,
//     hub.topic, hub.lease_seconds (and hub.secret over HTTPS or loopback),
//     as application/x-www-form-urlencoded; the hub answers 202;
//   - verification of intent (5.3): the hub GETs the callback with
//     hub.mode, hub.topic, hub.challenge and hub.lease_seconds; the
//     subscriber echoes hub.challenge for a subscription it is waiting for,
//     and answers 404 otherwise; a hub.mode=denied request ends it (5.2);
//   - content distribution (7): the hub POSTs the notification to the
//     callback; the subscriber answers 2xx at once, and ignores a message
//     whose X-Hub-Signature does not verify (7.1);
//   - the subscription is renewed before its lease ends, and unsubscribed
//     when the watch stops.
//
// Each subscription has its own unguessable callback path on one local
// callback server per Watch.

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/PuerkitoBio/goquery"

	"rsx/crawl"
	"rsx/model"
)

// Rules of problems found before a message could be checked.
const (
	RuleTooLarge        = "notification-too-large" // larger than Options.MaxMessageBytes
	RuleWebSubSignature = "websub-signature"       // X-Hub-Signature missing or wrong (WebSub 7.1)
)

// Defaults of WebSubOptions.
const (
	DefaultLeaseSeconds  = 3600
	DefaultVerifyTimeout = 30 * time.Second
)

// WebSubOptions configure the WebSub transport. The zero value gives the
// defaults.
type WebSubOptions struct {
	// CallbackAddr is the local address the callback server listens on;
	// default "127.0.0.1:0" (a free loopback port).
	CallbackAddr string
	// CallbackURL is the base URL at which hubs reach the callback server
	// (behind a proxy, say); default "http://" and the listening address.
	CallbackURL string
	// LeaseSeconds is the lease asked for; the hub decides. Default 3600.
	LeaseSeconds int
	// VerifyTimeout bounds the wait for the hub's verification of intent
	// after a subscription request; default 30s.
	VerifyTimeout time.Duration
	// Queue is how many deliveries may wait for the event channel; when it
	// is full the callback answers 503 and the hub retries. Default 64.
	Queue int
}

func (o WebSubOptions) withDefaults() WebSubOptions {
	if o.CallbackAddr == "" {
		o.CallbackAddr = "127.0.0.1:0"
	}
	if o.LeaseSeconds <= 0 {
		o.LeaseSeconds = DefaultLeaseSeconds
	}
	if o.VerifyTimeout <= 0 {
		o.VerifyTimeout = DefaultVerifyTimeout
	}
	if o.Queue <= 0 {
		o.Queue = 64
	}
	return o
}

// Endpoint says where Watch subscribes to ch: through WebSub at the topic
// URL (an http(s) channel, or a ws(s) one at the http(s) form of its URL
// when useWebSub is set, as Options.UseWebSub), else over a WebSocket at
// the channel's own URL.
func Endpoint(ch Channel, useWebSub bool) (url string, webSub bool) {
	if topic, ok := webSubTopic(ch.URL, useWebSub); ok {
		return topic, true
	}
	return ch.URL, false
}

// webSubTopic says whether a channel is subscribed through WebSub and at
// which topic URL: an http(s) channel is a topic; a ws(s) channel is one too,
// at the http(s) form of its URL, when useWebSub is set.
func webSubTopic(u string, useWebSub bool) (string, bool) {
	l := strings.ToLower(u)
	switch {
	case strings.HasPrefix(l, "http://"), strings.HasPrefix(l, "https://"):
		return u, true
	case useWebSub && strings.HasPrefix(l, "ws://"):
		return "http://" + u[len("ws://"):], true
	case useWebSub && strings.HasPrefix(l, "wss://"):
		return "https://" + u[len("wss://"):], true
	}
	return "", false
}

// webSubSubscriber is the callback server and the subscriptions it serves.
type webSubSubscriber struct {
	w    *watcher
	opts WebSubOptions

	once     sync.Once
	startErr error
	srv      *http.Server
	base     string // callback base URL, no trailing slash
	done     sync.WaitGroup

	mu   sync.Mutex
	subs map[string]*webSubSub // by callback token
}

func newWebSubSubscriber(w *watcher) *webSubSubscriber {
	o := WebSubOptions{}
	if w.opts.WebSub != nil {
		o = *w.opts.WebSub
	}
	return &webSubSubscriber{w: w, opts: o.withDefaults(), subs: make(map[string]*webSubSub)}
}

// start listens on the callback address, once.
func (s *webSubSubscriber) start() error {
	s.once.Do(func() {
		ln, err := net.Listen("tcp", s.opts.CallbackAddr)
		if err != nil {
			s.startErr = fmt.Errorf("websub: listen for callbacks on %s: %w", s.opts.CallbackAddr, err)
			return
		}
		s.base = strings.TrimSuffix(s.opts.CallbackURL, "/")
		if s.base == "" {
			s.base = "http://" + ln.Addr().String()
		}
		s.srv = &http.Server{Handler: http.HandlerFunc(s.callback), ReadHeaderTimeout: 10 * time.Second}
		s.done.Add(1)
		go func() {
			defer s.done.Done()
			s.srv.Serve(ln)
		}()
	})
	return s.startErr
}

func (s *webSubSubscriber) close() {
	if s.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if s.srv.Shutdown(ctx) != nil {
			s.srv.Close()
		}
		s.done.Wait()
	}
}

// webSubSub is one subscription: a topic at a hub, with its callback.
type webSubSub struct {
	topic, hub string
	callback   string
	secret     string

	mu      sync.Mutex
	pending string // the mode awaiting verification: "subscribe", "unsubscribe" or ""

	verified chan verification // the hub's verification requests and denials
	msgs     chan delivery
}

type verification struct {
	mode   string // subscribe, unsubscribe, denied
	lease  time.Duration
	reason string // hub.reason of a denial
}

type delivery struct {
	raw       []byte
	rule, why string // set when the message is refused
}

func (sub *webSubSub) setPending(mode string) {
	sub.mu.Lock()
	sub.pending = mode
	sub.mu.Unlock()
}

func (sub *webSubSub) isPending(mode string) bool {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	return sub.pending == mode
}

// callback serves the hub's requests to the callback URLs.
func (s *webSubSubscriber) callback(w http.ResponseWriter, r *http.Request) {
	token, ok := strings.CutPrefix(r.URL.Path, "/websub/")
	s.mu.Lock()
	sub := s.subs[token]
	s.mu.Unlock()
	if !ok || sub == nil {
		http.NotFound(w, r)
		return
	}
	switch r.Method {
	case http.MethodGet:
		s.verify(w, r, sub)
	case http.MethodPost:
		s.receive(w, r, sub)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// verify answers a verification of intent (WebSub 5.3) or a denial (5.2).
func (s *webSubSubscriber) verify(w http.ResponseWriter, r *http.Request, sub *webSubSub) {
	q := r.URL.Query()
	mode, topic := q.Get("hub.mode"), q.Get("hub.topic")
	if topic != sub.topic {
		http.NotFound(w, r)
		return
	}
	switch mode {
	case "denied":
		send(sub.verified, verification{mode: mode, reason: q.Get("hub.reason")})
		w.WriteHeader(http.StatusOK)
	case "subscribe", "unsubscribe":
		challenge := q.Get("hub.challenge")
		if challenge == "" || !sub.isPending(mode) {
			http.NotFound(w, r) // not an action this subscriber wants
			return
		}
		v := verification{mode: mode}
		if n, err := strconv.Atoi(q.Get("hub.lease_seconds")); err == nil && n > 0 {
			v.lease = time.Duration(n) * time.Second
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, challenge)
		send(sub.verified, v)
	default:
		http.NotFound(w, r)
	}
}

// send passes a verification or denial on, unless a hub has sent so many
// that the subscriber has not taken them (it only needs the latest few).
func send(ch chan verification, v verification) {
	select {
	case ch <- v:
	default:
	}
}

// receive takes a content distribution request (WebSub 7).
func (s *webSubSubscriber) receive(w http.ResponseWriter, r *http.Request, sub *webSubSub) {
	limit := s.w.opts.MaxMessageBytes
	raw, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		http.Error(w, "could not read the body", http.StatusBadRequest)
		return
	}
	d := delivery{raw: raw}
	switch {
	case int64(len(raw)) > limit:
		d = delivery{raw: raw[:limit], rule: RuleTooLarge,
			why: fmt.Sprintf("a notification delivered to the WebSub callback is larger than %d bytes (the limit); it was refused", limit)}
	case sub.secret != "":
		if why := checkSignature(r.Header.Get("X-Hub-Signature"), sub.secret, raw); why != "" {
			// WebSub 7.1: ignored as invalid; acknowledged all the same.
			d.rule, d.why = RuleWebSubSignature, why+": the notification was ignored (WebSub 7.1)"
		}
	}
	select {
	case sub.msgs <- d:
	default:
		http.Error(w, "subscriber busy: try again", http.StatusServiceUnavailable)
		return
	}
	if d.rule == RuleTooLarge {
		http.Error(w, "notification too large", http.StatusRequestEntityTooLarge)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// checkSignature verifies X-Hub-Signature (method=hex HMAC of the body with
// the secret); it returns why it does not verify, "" when it does.
func checkSignature(header, secret string, body []byte) string {
	if header == "" {
		return "no X-Hub-Signature header although the subscription has a secret"
	}
	method, sig, ok := strings.Cut(header, "=")
	if !ok {
		return fmt.Sprintf("X-Hub-Signature %q is not method=signature", header)
	}
	var h func() hash.Hash
	switch strings.ToLower(method) {
	case "sha1":
		h = sha1.New
	case "sha256":
		h = sha256.New
	case "sha384":
		h = sha512.New384
	case "sha512":
		h = sha512.New
	default:
		return fmt.Sprintf("X-Hub-Signature method %q is not one of sha1, sha256, sha384, sha512", method)
	}
	want, err := hex.DecodeString(sig)
	if err != nil {
		return "X-Hub-Signature is not hexadecimal"
	}
	m := hmac.New(h, []byte(secret))
	m.Write(body)
	if !hmac.Equal(m.Sum(nil), want) {
		return "X-Hub-Signature does not match the body"
	}
	return ""
}

func randomToken() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// session subscribes to one channel's topic and delivers what the hub sends
// until ctx is done or the subscription fails.
func (s *webSubSubscriber) session(ctx context.Context, ch Channel, h hooks) error {
	topicURL, _ := webSubTopic(ch.URL, true)
	if err := s.start(); err != nil {
		return &DropError{URL: ch.URL, Err: err}
	}
	hub, self, err := s.discover(ctx, topicURL)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return &DropError{URL: ch.URL, Err: err}
	}
	token := randomToken()
	sub := &webSubSub{topic: self, hub: hub, callback: s.base + "/websub/" + token,
		verified: make(chan verification, 8), msgs: make(chan delivery, s.opts.Queue)}
	if secretSafe(hub) {
		sub.secret = randomToken()
	}
	s.mu.Lock()
	s.subs[token] = sub
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.subs, token)
		s.mu.Unlock()
	}()

	lease, err := s.subscribe(ctx, sub, h)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return &DropError{URL: ch.URL, Err: err}
	}
	h.connected()
	renew := time.NewTimer(renewAfter(lease))
	defer renew.Stop()
	for {
		select {
		case d := <-sub.msgs:
			deliverOne(h, d)
		case v := <-sub.verified:
			if v.mode == "denied" {
				// What was delivered before the denial still counts.
				for drained := false; !drained; {
					select {
					case d := <-sub.msgs:
						deliverOne(h, d)
					default:
						drained = true
					}
				}
				return &DropError{URL: ch.URL, Reason: "the hub denied the subscription: " + orNone(v.reason), Err: errDenied}
			}
		case <-renew.C:
			if lease, err = s.subscribe(ctx, sub, h); err != nil {
				if ctx.Err() != nil {
					s.unsubscribe(sub)
					return nil
				}
				return &DropError{URL: ch.URL, Err: fmt.Errorf("renew the subscription: %w", err)}
			}
			renew.Reset(renewAfter(lease))
		case <-ctx.Done():
			s.unsubscribe(sub)
			return nil
		}
	}
}

var errDenied = errors.New("subscription denied")

func orNone(s string) string {
	if s == "" {
		return "no reason given"
	}
	return s
}

func deliverOne(h hooks, d delivery) {
	if d.rule != "" {
		h.reject(d.raw, d.rule, d.why)
		return
	}
	h.deliver(d.raw)
}

// renewAfter is when to renew a lease: at four fifths of it.
func renewAfter(lease time.Duration) time.Duration {
	d := lease * 4 / 5
	if d < time.Second {
		d = time.Second
	}
	return d
}

// secretSafe tells whether a hub.secret may be sent to hub: over HTTPS
// (WebSub 5.1 says it SHOULD only be then), or to a loopback hub, where it
// does not leave the machine.
func secretSafe(hub string) bool {
	u, err := url.Parse(hub)
	if err != nil {
		return false
	}
	if u.Scheme == "https" {
		return true
	}
	h := u.Hostname()
	ip := net.ParseIP(h)
	return h == "localhost" || (ip != nil && ip.IsLoopback())
}

// subscribe asks the hub for (or renews) the subscription and waits for the
// verification of intent, delivering messages meanwhile. It returns the lease
// the hub granted.
func (s *webSubSubscriber) subscribe(ctx context.Context, sub *webSubSub, h hooks) (time.Duration, error) {
	// A verification left from an earlier request must not count for this one.
	for drained := false; !drained; {
		select {
		case v := <-sub.verified:
			if v.mode == "denied" {
				return 0, fmt.Errorf("the hub %s denied the subscription to %s: %s", sub.hub, sub.topic, orNone(v.reason))
			}
		default:
			drained = true
		}
	}
	sub.setPending("subscribe")
	defer sub.setPending("")
	if err := s.request(ctx, sub, "subscribe"); err != nil {
		return 0, err
	}
	t := time.NewTimer(s.opts.VerifyTimeout)
	defer t.Stop()
	for {
		// The hub distributes only after the verification was answered: a
		// verification waiting is taken before any delivery.
		var v verification
		select {
		case v = <-sub.verified:
		default:
			select {
			case d := <-sub.msgs:
				deliverOne(h, d)
				continue
			case v = <-sub.verified:
			case <-t.C:
				return 0, fmt.Errorf("the hub %s did not verify the subscription to %s within %v", sub.hub, sub.topic, s.opts.VerifyTimeout)
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}
		switch v.mode {
		case "denied":
			return 0, fmt.Errorf("the hub %s denied the subscription to %s: %s", sub.hub, sub.topic, orNone(v.reason))
		case "subscribe":
			if v.lease <= 0 {
				v.lease = time.Duration(s.opts.LeaseSeconds) * time.Second
			}
			return v.lease, nil
		}
	}
}

// unsubscribe asks the hub to end the subscription and answers its
// verification, waiting a few seconds at most.
func (s *webSubSubscriber) unsubscribe(sub *webSubSub) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	sub.setPending("unsubscribe")
	if s.request(ctx, sub, "unsubscribe") != nil {
		return
	}
	for {
		select {
		case v := <-sub.verified:
			if v.mode == "unsubscribe" || v.mode == "denied" {
				return
			}
		case <-sub.msgs:
		case <-ctx.Done():
			return
		}
	}
}

// request POSTs a subscription request to the hub (WebSub 5.1).
func (s *webSubSubscriber) request(ctx context.Context, sub *webSubSub, mode string) error {
	form := url.Values{}
	form.Set("hub.callback", sub.callback)
	form.Set("hub.mode", mode)
	form.Set("hub.topic", sub.topic)
	if mode == "subscribe" {
		form.Set("hub.lease_seconds", strconv.Itoa(s.opts.LeaseSeconds))
		if sub.secret != "" {
			form.Set("hub.secret", sub.secret)
		}
	}
	rctx, cancel := context.WithTimeout(ctx, s.w.opts.DialTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, sub.hub, strings.NewReader(form.Encode()))
	if err != nil {
		return fmt.Errorf("%s request to the hub %s: %w", mode, sub.hub, err)
	}
	s.header(req, sub.hub)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	resp, err := s.w.opts.HTTPClient.Do(req) // follows a 307 or 308 to another hub (5.1.2)
	if err != nil {
		return fmt.Errorf("%s request to the hub %s: %w", mode, sub.hub, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(body))
		if msg != "" {
			msg = ": " + msg
		}
		return fmt.Errorf("%s request to the hub %s: %s%s", mode, sub.hub, resp.Status, msg)
	}
	return nil
}

func (s *webSubSubscriber) header(req *http.Request, u string) {
	if s.w.opts.Header == nil {
		return
	}
	for k, vs := range s.w.opts.Header(u) {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
}

// discover finds the hub and the topic's self URL (WebSub 4): Link headers
// first, then <link> elements in an XML or HTML body.
func (s *webSubSubscriber) discover(ctx context.Context, topic string) (hub, self string, err error) {
	rctx, cancel := context.WithTimeout(ctx, s.w.opts.DialTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, topic, nil)
	if err != nil {
		return "", "", fmt.Errorf("websub discovery at %s: %w", topic, err)
	}
	s.header(req, topic)
	resp, err := s.w.opts.HTTPClient.Do(req)
	if err != nil {
		return "", "", fmt.Errorf("websub discovery at %s: %w", topic, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return "", "", fmt.Errorf("websub discovery at %s: %s", topic, resp.Status)
	}
	base := resp.Request.URL.String()
	var hubs, selfs []string
	for _, l := range crawl.ParseLinkHeader(resp.Header.Values("Link")) {
		target, err := l.Resolve(base)
		if err != nil {
			continue
		}
		if l.HasRel("hub") {
			hubs = append(hubs, target)
		}
		if l.HasRel("self") {
			selfs = append(selfs, target)
		}
	}
	if len(hubs) == 0 && len(selfs) == 0 {
		body := io.LimitReader(resp.Body, 1<<20)
		mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if mt == "text/html" {
			hubs, selfs = htmlLinks(body, resp.Request.URL)
		} else {
			hubs, selfs = xmlLinks(body, resp.Request.URL)
		}
	}
	if len(hubs) == 0 {
		return "", "", fmt.Errorf("websub discovery at %s: no hub advertised (no Link header or <link> element with rel=\"hub\")", topic)
	}
	if len(selfs) != 1 {
		return "", "", fmt.Errorf("websub discovery at %s: %d self links, want exactly one", topic, len(selfs))
	}
	return hubs[0], selfs[0], nil
}

// xmlLinks collects the hub and self targets of link elements in an XML
// document (Atom's atom:link, RFC 8288 Appendix B).
func xmlLinks(r io.Reader, base *url.URL) (hubs, selfs []string) {
	dec := xml.NewDecoder(r)
	for n := 0; n < 100000; n++ {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "link" {
			continue
		}
		var rel, href string
		for _, a := range se.Attr {
			switch a.Name.Local {
			case "rel":
				rel = a.Value
			case "href":
				href = a.Value
			}
		}
		hubs, selfs = addLink(hubs, selfs, rel, href, base)
	}
	return hubs, selfs
}

// htmlLinks collects the hub and self targets of <link> elements in the
// <head> of an HTML page (WebSub 8.1: the body is not trusted).
func htmlLinks(r io.Reader, base *url.URL) (hubs, selfs []string) {
	doc, err := goquery.NewDocumentFromReader(r)
	if err != nil {
		return nil, nil
	}
	doc.Find("head link[rel][href]").Each(func(_ int, sel *goquery.Selection) {
		rel, _ := sel.Attr("rel")
		href, _ := sel.Attr("href")
		hubs, selfs = addLink(hubs, selfs, rel, href, base)
	})
	return hubs, selfs
}

func addLink(hubs, selfs []string, rel, href string, base *url.URL) ([]string, []string) {
	if _, err := url.Parse(strings.TrimSpace(href)); err != nil || href == "" {
		return hubs, selfs
	}
	target := model.ResolveHref(base.String(), href)
	if model.HasRel(rel, "hub") {
		hubs = append(hubs, target)
	}
	if model.HasRel(rel, "self") {
		selfs = append(selfs, target)
	}
	return hubs, selfs
}
