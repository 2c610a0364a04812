package demo

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"rsx/model"
)

func TestTopicAdvertisesHubAndSelf(t *testing.T) {
	s := New(Options{})
	for _, p := range []string{"/channels/dataset1/change", "/channels/dataset1/framework", "/channels/dataset2/change", "/channels/dataset2/framework"} {
		rec := get(t, s.Handler(), p)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d", p, rec.Code)
		}
		want := `<` + testBase + `/websub/hub>; rel="hub", <` + testBase + p + `>; rel="self"`
		if got := rec.Header().Get("Link"); got != want {
			t.Errorf("%s: Link %q, want %q", p, got, want)
		}
		kind := model.CapChangeNotification
		if strings.HasSuffix(p, "framework") {
			kind = model.CapFrameworkNotification
		}
		d, ps := model.ParseNotification(rec.Body, model.NotificationOptions{Kind: kind, CapabilityList: testBase + p[len("/channels"):strings.LastIndexByte(p, '/')] + "/capabilitylist.xml"}, model.DecoderOptions{})
		if d == nil {
			t.Fatalf("%s: %v", p, ps)
		}
		for _, pr := range ps {
			// Dataset 2 has a single Change List: no framework notification yet.
			if !(p == "/channels/dataset2/framework" && pr.Rule == model.RuleNotificationEmpty) {
				t.Errorf("%s: %s", p, model.DescribeProblem(pr))
			}
		}
	}
}

// callbackServer is a WebSub subscriber's callback for tests: it echoes the
// challenge when told to, and records deliveries.
type callbackServer struct {
	*httptest.Server
	mu       sync.Mutex
	echo     bool
	verified []url.Values
	posts    []*http.Request
	bodies   [][]byte
	got      chan struct{}
}

func newCallback(t *testing.T) *callbackServer {
	c := &callbackServer{echo: true, got: make(chan struct{}, 1000)}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		defer c.mu.Unlock()
		defer func() { c.got <- struct{}{} }()
		switch r.Method {
		case http.MethodGet:
			q := r.URL.Query()
			c.verified = append(c.verified, q)
			if !c.echo {
				http.NotFound(w, r)
				return
			}
			io.WriteString(w, q.Get("hub.challenge"))
		case http.MethodPost:
			b, _ := io.ReadAll(r.Body)
			c.posts = append(c.posts, r)
			c.bodies = append(c.bodies, b)
		}
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *callbackServer) wait(t *testing.T, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		select {
		case <-c.got:
		case <-time.After(5 * time.Second):
			t.Fatalf("waited for %d callback requests, got %d", n, i)
		}
	}
}

func hubRequest(t *testing.T, srv *Server, form url.Values) *http.Response {
	t.Helper()
	resp, err := http.PostForm(srv.URL+"/websub/hub", form)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func webSubCount(s *Source) int {
	s.websub.mu.Lock()
	defer s.websub.mu.Unlock()
	return len(s.websub.subs)
}

func TestWebSubSubscribeDeliverUnsubscribe(t *testing.T) {
	srv := startDemo(t, Options{Resources: 600})
	cb := newCallback(t)
	topic := srv.URL + "/channels/dataset1/change"
	form := url.Values{"hub.mode": {"subscribe"}, "hub.topic": {topic}, "hub.callback": {cb.URL + "/cb?x=1"},
		"hub.lease_seconds": {"120"}, "hub.secret": {"s3cret"}}
	if resp := hubRequest(t, srv, form); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("subscribe: %s", resp.Status)
	}
	cb.wait(t, 1)
	cb.mu.Lock()
	v := cb.verified[0]
	cb.mu.Unlock()
	if v.Get("hub.mode") != "subscribe" || v.Get("hub.topic") != topic || v.Get("hub.lease_seconds") != "120" || len(v.Get("hub.challenge")) < 16 || v.Get("x") != "1" {
		t.Fatalf("verification request %v", v)
	}
	waitFor(t, func() bool { return webSubCount(srv.Source()) == 1 })

	// Renewal: the same subscription goes on.
	if resp := hubRequest(t, srv, form); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("renew: %s", resp.Status)
	}
	cb.wait(t, 1)
	time.Sleep(50 * time.Millisecond)
	if n := webSubCount(srv.Source()); n != 1 {
		t.Fatalf("%d subscriptions after a renewal", n)
	}

	srv.Source().Advance(2)
	cb.wait(t, 2)
	cb.mu.Lock()
	for i, r := range cb.posts {
		if r.Header.Get("Content-Type") != "application/xml" ||
			r.Header.Get("Link") != "<"+srv.URL+"/websub/hub>; rel=\"hub\", <"+topic+">; rel=\"self\"" || r.URL.Query().Get("x") != "1" {
			t.Errorf("delivery %d: headers %v, URL %s", i, r.Header, r.URL)
		}
		m := hmac.New(sha256.New, []byte("s3cret"))
		m.Write(cb.bodies[i])
		if r.Header.Get("X-Hub-Signature") != "sha256="+hex.EncodeToString(m.Sum(nil)) {
			t.Errorf("delivery %d: signature %q", i, r.Header.Get("X-Hub-Signature"))
		}
		d, ps := model.ParseNotification(strings.NewReader(string(cb.bodies[i])), model.NotificationOptions{Kind: model.CapChangeNotification, CapabilityList: srv.URL + "/dataset1/capabilitylist.xml"}, model.DecoderOptions{})
		if d == nil || len(ps) != 0 || len(d.Entries) == 0 {
			t.Errorf("delivery %d: %v", i, ps)
		}
	}
	cb.mu.Unlock()

	// Dropped by the Source: the subscriber is told (WebSub 5.2), then
	// subscribes again.
	if n := srv.Source().DropSubscribers("disconnected on request"); n != 1 {
		t.Fatalf("dropped %d", n)
	}
	cb.wait(t, 1)
	cb.mu.Lock()
	if v := cb.verified[len(cb.verified)-1]; v.Get("hub.mode") != "denied" || v.Get("hub.topic") != topic || v.Get("hub.reason") != "disconnected on request" {
		t.Errorf("denial %v", v)
	}
	cb.mu.Unlock()
	waitFor(t, func() bool { return webSubCount(srv.Source()) == 0 })
	form.Set("hub.mode", "subscribe")
	if resp := hubRequest(t, srv, form); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("subscribe again: %s", resp.Status)
	}
	cb.wait(t, 1)
	waitFor(t, func() bool { return webSubCount(srv.Source()) == 1 })

	form.Set("hub.mode", "unsubscribe")
	if resp := hubRequest(t, srv, form); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("unsubscribe: %s", resp.Status)
	}
	cb.wait(t, 1)
	waitFor(t, func() bool { return webSubCount(srv.Source()) == 0 && srv.Source().notify.count() == 0 })
	srv.Source().Advance(1)
	time.Sleep(100 * time.Millisecond)
	cb.mu.Lock()
	if len(cb.posts) != 2 {
		t.Errorf("%d deliveries after unsubscribing, want 2", len(cb.posts))
	}
	cb.mu.Unlock()
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestWebSubVerificationRefused(t *testing.T) {
	srv := startDemo(t, Options{Resources: 100})
	cb := newCallback(t)
	cb.mu.Lock()
	cb.echo = false
	cb.mu.Unlock()
	form := url.Values{"hub.mode": {"subscribe"}, "hub.topic": {srv.URL + "/channels/dataset2/change"}, "hub.callback": {cb.URL}}
	if resp := hubRequest(t, srv, form); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("subscribe: %s", resp.Status)
	}
	cb.wait(t, 1)
	time.Sleep(50 * time.Millisecond)
	if webSubCount(srv.Source()) != 0 || srv.Source().notify.count() != 0 {
		t.Error("a subscription whose intent was not verified is active")
	}
}

func TestWebSubHubRefusesBadRequests(t *testing.T) {
	srv := startDemo(t, Options{Resources: 100})
	topic := srv.URL + "/channels/dataset1/change"
	ok := url.Values{"hub.mode": {"subscribe"}, "hub.topic": {topic}, "hub.callback": {"http://127.0.0.1:9/cb"}}
	with := func(k, v string) url.Values {
		f := url.Values{}
		for kk, vv := range ok {
			f[kk] = vv
		}
		f.Set(k, v)
		return f
	}
	for _, tc := range []struct {
		form url.Values
		want int
	}{
		{with("hub.mode", "publish"), http.StatusBadRequest},
		{with("hub.topic", srv.URL+"/dataset1/changelist.xml"), http.StatusBadRequest},
		{with("hub.topic", "http://example.org/channels/dataset1/change"), http.StatusBadRequest},
		{with("hub.callback", "http://example.org/cb"), http.StatusForbidden},
		{with("hub.callback", "/relative"), http.StatusBadRequest},
		{with("hub.secret", strings.Repeat("x", 200)), http.StatusBadRequest},
	} {
		if resp := hubRequest(t, srv, tc.form); resp.StatusCode != tc.want {
			t.Errorf("%v: %s, want %d", tc.form, resp.Status, tc.want)
		}
	}
	resp, err := http.Post(srv.URL+"/websub/hub", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("JSON request: %s", resp.Status)
	}
	resp, err = http.Get(srv.URL + "/websub/hub")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %s", resp.Status)
	}
}
