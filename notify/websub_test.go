package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"rsx/demo"
)

const fakeNotification = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="http://example.com/cl.xml"/>
<url><loc>http://example.com/r</loc><rs:md change="created" datetime="2026-01-05T09:00:00Z"/></url></urlset>`

// fakeHub is a topic and a hub in one server. On each verified
// subscription it runs script with the subscription's callback and secret.
type fakeHub struct {
	*httptest.Server
	mu      sync.Mutex
	forms   []url.Values
	script  func(callback, secret string)
	noLinks bool
}

func newFakeHub(t *testing.T, script func(callback, secret string)) *fakeHub {
	h := &fakeHub{script: script}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/topic":
			if !h.noLinks {
				w.Header().Add("Link", `</hub>; rel="hub"`)
				w.Header().Add("Link", `<`+h.URL+`/topic>; rel="self"`)
			}
			w.Header().Set("Content-Type", "application/xml")
			io.WriteString(w, fakeNotification)
		case "/hub":
			r.ParseForm()
			h.mu.Lock()
			h.forms = append(h.forms, r.PostForm)
			h.mu.Unlock()
			w.WriteHeader(http.StatusAccepted)
			f := r.PostForm
			go func() {
				challenge := "c-" + f.Get("hub.mode")
				resp, err := http.Get(f.Get("hub.callback") + "?hub.mode=" + f.Get("hub.mode") + "&hub.topic=" + url.QueryEscape(f.Get("hub.topic")) +
					"&hub.challenge=" + challenge + "&hub.lease_seconds=600")
				if err != nil {
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(b) == challenge && f.Get("hub.mode") == "subscribe" {
					h.script(f.Get("hub.callback"), f.Get("hub.secret"))
				}
			}()
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(h.Close)
	return h
}

func post(callback, body, signature string) int {
	req, _ := http.NewRequest(http.MethodPost, callback, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/xml")
	if signature != "" {
		req.Header.Set("X-Hub-Signature", signature)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

func sign(secret, body string) string {
	m := hmac.New(sha256.New, []byte(secret))
	io.WriteString(m, body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

func TestWebSubSignaturesAndDenial(t *testing.T) {
	statuses := make(chan int, 4)
	var hub *fakeHub
	hub = newFakeHub(t, func(callback, secret string) {
		if secret == "" {
			statuses <- -1
			return
		}
		statuses <- post(callback, fakeNotification, sign(secret, fakeNotification))
		statuses <- post(callback, fakeNotification, sign("wrong", fakeNotification))
		statuses <- post(callback, fakeNotification, "")
		// Then the hub changes its mind (WebSub 5.2).
		resp, err := http.Get(callback + "?hub.mode=denied&hub.topic=" + url.QueryEscape(hub.URL+"/topic") + "&hub.reason=closed+for+the+night")
		if err == nil {
			resp.Body.Close()
			statuses <- resp.StatusCode
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := Watch(ctx, []Channel{{URL: hub.URL + "/topic", Kind: KindChange, CapabilityList: "http://example.com/cl.xml"}}, fastOptions())
	got := collect(t, events, 10*time.Second, func(es []Event) bool { return count(es, EventDisconnected, "") == 1 })
	var codes []int
	for range 4 {
		codes = append(codes, <-statuses)
	}
	if !slices.Equal(codes, []int{204, 204, 204, 200}) {
		t.Errorf("callback answers %v (a wrong signature is acknowledged and ignored, WebSub 7.1)", codes)
	}
	if len(got) != 5 || got[0].Type != EventConnected {
		t.Fatalf("events:%s", describe(got))
	}
	if e := got[1]; len(e.Problems) != 0 || len(e.Items) != 1 {
		t.Errorf("signed delivery: %+v", e)
	}
	for _, e := range got[2:4] {
		if len(e.Problems) != 1 || e.Problems[0].Rule != RuleWebSubSignature || len(e.Items) != 0 {
			t.Errorf("badly signed delivery: %+v", e)
		}
	}
	var de *DropError
	if e := got[4]; !errors.As(e.Err, &de) || !strings.Contains(de.Reason, "closed for the night") {
		t.Errorf("denial: %+v", e)
	}
	hub.mu.Lock()
	f := hub.forms[0]
	hub.mu.Unlock()
	if f.Get("hub.mode") != "subscribe" || f.Get("hub.topic") != hub.URL+"/topic" || f.Get("hub.lease_seconds") != "3600" || len(f.Get("hub.secret")) != 32 ||
		!strings.HasPrefix(f.Get("hub.callback"), "http://127.0.0.1:") {
		t.Errorf("subscription request %v", f)
	}
}

func TestWebSubDiscoveryFailures(t *testing.T) {
	hub := newFakeHub(t, func(string, string) {})
	hub.noLinks = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := Watch(ctx, []Channel{{URL: hub.URL + "/topic", Kind: KindChange}, {URL: hub.URL + "/missing", Kind: KindChange}}, fastOptions())
	got := collect(t, events, 5*time.Second, func(es []Event) bool { return count(es, EventDisconnected, "") >= 2 })
	var msgs []string
	for _, e := range got[:2] {
		msgs = append(msgs, e.Err.Error())
	}
	slices.Sort(msgs)
	if !strings.Contains(msgs[0], "404") || !strings.Contains(msgs[1], "no hub advertised") {
		t.Errorf("%q", msgs)
	}
}

func TestEmbeddedLinks(t *testing.T) {
	base, _ := url.Parse("http://example.com/feed")
	hubs, selfs := xmlLinks(strings.NewReader(`<feed xmlns="http://www.w3.org/2005/Atom"><link rel="hub" href="https://hub.example.com/"/><link rel="self" href="/feed.xml"/></feed>`), base)
	if !slices.Equal(hubs, []string{"https://hub.example.com/"}) || !slices.Equal(selfs, []string{"http://example.com/feed.xml"}) {
		t.Errorf("xml: %v %v", hubs, selfs)
	}
	hubs, selfs = htmlLinks(strings.NewReader(`<html><head><link rel="hub" href="/hub"><link rel="self" href="http://example.com/feed"></head><body><link rel="hub" href="/evil"></body></html>`), base)
	if !slices.Equal(hubs, []string{"http://example.com/hub"}) || !slices.Equal(selfs, []string{"http://example.com/feed"}) {
		t.Errorf("html: %v %v", hubs, selfs)
	}
}

func TestCheckSignature(t *testing.T) {
	body := []byte("<urlset/>")
	for _, tc := range []struct {
		header string
		ok     bool
	}{
		{sign("k", string(body)), true},
		{"SHA256=" + sign("k", string(body))[len("sha256="):], true},
		{sign("other", string(body)), false},
		{"", false},
		{"sha256", false},
		{"md5=00", false},
		{"sha256=zz", false},
	} {
		if why := checkSignature(tc.header, "k", body); (why == "") != tc.ok {
			t.Errorf("%q: %q", tc.header, why)
		}
	}
}

// TestWebSubUnsubscribesWhenDone: stopping the watch unsubscribes at the demo hub.
func TestWebSubUnsubscribesWhenDone(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 200})
	found, err := Find(context.Background(), testClient(t), srv.URL+"/dataset2/capabilitylist.xml")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	o := fastOptions()
	o.UseWebSub = true
	events := Watch(ctx, found.Channels, o)
	collect(t, events, 5*time.Second, func(es []Event) bool { return count(es, EventConnected, "") == 2 })
	// The hub activates a subscription once its challenge is echoed: just
	// after the subscriber saw the verification.
	waitSubscribers(t, srv, 2)
	cancel()
	for range events {
	}
	waitSubscribers(t, srv, 0)
}

func waitSubscribers(t *testing.T, srv *demo.Server, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for subscribers(t, srv) != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d subscriptions at the hub, want %d", subscribers(t, srv), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func subscribers(t *testing.T, srv *demo.Server) int {
	t.Helper()
	resp, err := http.Get(srv.URL + "/demo/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	i := strings.Index(string(b), `"notification_subscribers": `)
	if i < 0 {
		t.Fatalf("status: %s", b)
	}
	n := 0
	for _, c := range string(b)[i+len(`"notification_subscribers": `):] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

func TestEndpoint(t *testing.T) {
	tests := []struct {
		url       string
		useWebSub bool
		want      string
		webSub    bool
	}{
		{"ws://example.org/ch", false, "ws://example.org/ch", false},
		{"ws://example.org/ch", true, "http://example.org/ch", true},
		{"WSS://example.org/ch", true, "https://example.org/ch", true},
		{"wss://example.org/ch", false, "wss://example.org/ch", false},
		{"https://example.org/topic", false, "https://example.org/topic", true},
		{"http://example.org/topic", true, "http://example.org/topic", true},
	}
	for _, tt := range tests {
		got, webSub := Endpoint(Channel{URL: tt.url, Kind: KindChange}, tt.useWebSub)
		if got != tt.want || webSub != tt.webSub {
			t.Errorf("Endpoint(%s, %v) = %s, %v; want %s, %v", tt.url, tt.useWebSub, got, webSub, tt.want, tt.webSub)
		}
	}
}
