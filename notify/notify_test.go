package notify

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"rsx/demo"
	"rsx/fetch"
	"rsx/model"
)

func testClient(t *testing.T) *fetch.Client {
	t.Helper()
	o := fetch.DefaultOptions()
	o.NoCache = true
	o.Netrc = "-"
	o.Retries = 0
	o.PerHostRate = 0
	c, err := fetch.NewClient(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func startDemo(t *testing.T, o demo.Options) *demo.Server {
	t.Helper()
	srv, err := demo.Start(context.Background(), "127.0.0.1:0", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func TestFind(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 200})
	ws := strings.Replace(srv.URL, "http://", "ws://", 1)
	c := testClient(t)
	all := []Channel{
		{ws + "/channels/dataset1/change", KindChange, srv.URL + "/dataset1/capabilitylist.xml"},
		{ws + "/channels/dataset1/framework", KindFramework, srv.URL + "/dataset1/capabilitylist.xml"},
		{ws + "/channels/dataset2/change", KindChange, srv.URL + "/dataset2/capabilitylist.xml"},
		{ws + "/channels/dataset2/framework", KindFramework, srv.URL + "/dataset2/capabilitylist.xml"},
	}
	for _, tc := range []struct {
		target string
		want   []Channel
	}{
		{srv.URL + "/dataset2/capabilitylist.xml", all[2:]},
		{srv.URL + "/.well-known/resourcesync", all},
		{srv.URL + "/", all},                        // discovery from the home page
		{srv.URL + "/dataset1/changelist.xml", all}, // discovery by up links
	} {
		found, err := Find(context.Background(), c, tc.target)
		if err != nil {
			t.Errorf("%s: %v", tc.target, err)
			continue
		}
		if !slices.Equal(found.Channels, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.target, found.Channels, tc.want)
		}
	}
}

func TestFindNothing(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		w.Write([]byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="/sd.xml"/><rs:md capability="capabilitylist"/>
<url><loc>/rl.xml</loc><rs:md capability="resourcelist"/></url></urlset>`))
	}))
	defer plain.Close()
	_, err := Find(context.Background(), testClient(t), plain.URL+"/cl.xml")
	if !errors.Is(err, ErrNoChannels) {
		t.Errorf("a Capability List without channels: %v", err)
	}
	plain.Close()
	if _, err := Find(context.Background(), testClient(t), plain.URL+"/cl.xml"); err == nil || errors.Is(err, ErrNoChannels) {
		t.Errorf("an unreachable target: %v", err)
	}
}

func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		jitter float64
		want   []time.Duration
	}{
		{0, []time.Duration{50, 100, 200, 400, 500, 500}},
		{0.999999, []time.Duration{100, 200, 400, 800, 1000, 1000}},
	} {
		o := Options{MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second, Jitter: func() float64 { return tc.jitter }}.withDefaults()
		for n, want := range tc.want {
			got := o.backoff(n + 1).Round(time.Millisecond)
			if got != want*time.Millisecond {
				t.Errorf("jitter %v, attempt %d: %v, want %v", tc.jitter, n+1, got, want*time.Millisecond)
			}
		}
	}
}

// collect receives events until done says so or the time is up.
func collect(t *testing.T, events <-chan Event, limit time.Duration, done func([]Event) bool) []Event {
	t.Helper()
	var got []Event
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for !done(got) {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatalf("the event channel closed early after %d events", len(got))
			}
			got = append(got, e)
		case <-timer.C:
			t.Fatalf("after %v: %d events: %s", limit, len(got), describe(got))
		}
	}
	return got
}

func describe(es []Event) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString("\n" + string(e.Type) + " " + e.Channel.URL)
		if e.Err != nil {
			b.WriteString(" " + e.Err.Error())
		}
		for _, p := range e.Problems {
			b.WriteString(" [" + p.Rule + "]")
		}
	}
	return b.String()
}

func count(es []Event, typ EventType, kind Kind) int {
	n := 0
	for _, e := range es {
		if e.Type == typ && (kind == "" || e.Channel.Kind == kind) {
			n++
		}
	}
	return n
}

func fastOptions() Options {
	return Options{MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond, DialTimeout: 5 * time.Second,
		WebSub: &WebSubOptions{VerifyTimeout: 5 * time.Second}}
}

// TestRoundTrip runs the demo with a fast tick and checks, for each
// transport, that every change notified is one the Change Lists show, in
// their order, and that none is missed in between.
func TestRoundTrip(t *testing.T) {
	for _, transport := range []string{"websocket", "websub"} {
		t.Run(transport, func(t *testing.T) {
			// The index keeps every Change List (no archive rotation), so that
			// changeListEntries reads every change notified while the clock runs.
			srv := startDemo(t, demo.Options{Resources: 600, Tick: 25 * time.Millisecond, LiveChangeLists: -1})
			found, err := Find(context.Background(), testClient(t), srv.URL+"/dataset1/capabilitylist.xml")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			o := fastOptions()
			o.UseWebSub = transport == "websub"
			events := Watch(ctx, found.Channels, o)
			const n = 12
			got := collect(t, events, 20*time.Second, func(es []Event) bool {
				return count(es, EventNotification, KindChange) >= n && count(es, EventNotification, KindFramework) >= 2
			})
			if c := count(got, EventConnected, ""); c != 2 {
				t.Errorf("%d connections, want 2:%s", c, describe(got))
			}
			if c := count(got, EventDisconnected, ""); c != 0 {
				t.Errorf("%d drops:%s", c, describe(got))
			}
			var notified []string
			for _, e := range got {
				if e.Type != EventNotification {
					continue
				}
				if len(e.Problems) != 0 || len(e.Raw) == 0 || len(e.Items) == 0 {
					t.Errorf("notification %s: problems %v, %d items", e.Raw, e.Problems, len(e.Items))
				}
				for _, it := range e.Items {
					if !it.Datetime.OK || !it.Change.Known() {
						t.Errorf("item %+v", it)
					}
					if e.Channel.Kind == KindChange {
						notified = append(notified, it.URL+" "+string(it.Change)+" "+it.Datetime.Raw)
					} else if it.Capability != model.CapChangeList || it.Index != srv.URL+"/dataset1/changelist.xml" {
						t.Errorf("framework item %+v", it)
					}
				}
			}
			cancel()
			for range events { // Watch closes the channel once every subscription ended
			}
			listed := changeListEntries(t, srv)
			at := slices.Index(listed, notified[0])
			if at < 0 || at+len(notified) > len(listed) || !slices.Equal(listed[at:at+len(notified)], notified) {
				t.Errorf("the %d changes notified are not a run of the %d the Change Lists show", len(notified), len(listed))
			}
		})
	}
}

// changeListEntries are the changes of dataset 1's Change Lists, in order.
func changeListEntries(t *testing.T, srv *demo.Server) []string {
	t.Helper()
	c := testClient(t)
	var out []string
	idx := load(t, c, srv.URL+"/dataset1/changelist.xml")
	for _, e := range idx.Entries {
		cl := load(t, c, e.Loc)
		for _, x := range cl.Entries {
			out = append(out, x.Loc+" "+string(x.MD.Change)+" "+x.MD.Datetime.Raw)
		}
	}
	return out
}

func load(t *testing.T, c *fetch.Client, u string) *model.Document {
	t.Helper()
	resp, err := c.Get(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	d, err := model.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestReconnectsAfterADrop(t *testing.T) {
	for _, transport := range []string{"websocket", "websub"} {
		t.Run(transport, func(t *testing.T) { testReconnect(t, transport == "websub") })
	}
}

func testReconnect(t *testing.T, websub bool) {
	srv := startDemo(t, demo.Options{Resources: 200})
	found, err := Find(context.Background(), testClient(t), srv.URL+"/dataset1/capabilitylist.xml")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := fastOptions()
	o.UseWebSub = websub
	events := Watch(ctx, found.Channels[:1], o)
	collect(t, events, 5*time.Second, func(es []Event) bool { return count(es, EventConnected, "") == 1 })
	waitSubscribers(t, srv, 1) // a WebSub hub activates a subscription just after its verification
	resp, err := http.Post(srv.URL+"/demo/disconnect", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := collect(t, events, 5*time.Second, func(es []Event) bool { return count(es, EventConnected, "") == 1 })
	drop := got[0]
	var de *DropError
	if drop.Type != EventDisconnected || !errors.As(drop.Err, &de) || !strings.Contains(de.Reason, "reconnect") || drop.Retry <= 0 || drop.Attempt != 1 {
		t.Fatalf("drop event %+v", drop)
	}
	if want := 1012; !websub && de.Code != want { // WebSocket close code: service restart
		t.Errorf("close code %d, want %d", de.Code, want)
	}
	waitSubscribers(t, srv, 1)
	if last := got[len(got)-1]; !last.Reconnect {
		t.Errorf("reconnection not marked: %+v", last)
	}
	// The new connection carries the next step.
	srv.Source().Advance(1)
	got = collect(t, events, 5*time.Second, func(es []Event) bool { return count(es, EventNotification, "") == 1 })
	if e := got[len(got)-1]; len(e.Items) == 0 || len(e.Problems) != 0 {
		t.Errorf("after reconnecting: %+v", e)
	}
}

func TestBackoffGrowsWhileTheSourceIsDown(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := strings.Replace(srv.URL, "http://", "ws://", 1) + "/channels/x"
	srv.Close()
	o := fastOptions()
	o.Jitter = func() float64 { return 0.999999 }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := Watch(ctx, []Channel{{URL: url, Kind: KindChange}}, o)
	got := collect(t, events, 5*time.Second, func(es []Event) bool { return len(es) >= 5 })
	var retries []time.Duration
	for i, e := range got {
		if e.Type != EventDisconnected || e.Attempt != i+1 || e.Err == nil {
			t.Fatalf("event %d: %+v", i, e)
		}
		retries = append(retries, e.Retry.Round(10*time.Millisecond))
	}
	want := []time.Duration{20, 40, 80, 160, 200}
	for i := range want {
		want[i] *= time.Millisecond
	}
	if !slices.Equal(retries, want) {
		t.Errorf("waits %v, want %v", retries, want)
	}
}

func TestBrokenNotificationsAreReported(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 600, Broken: true})
	found, err := Find(context.Background(), testClient(t), srv.URL+"/dataset1/capabilitylist.xml")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := Watch(ctx, found.Channels, fastOptions())
	collect(t, events, 5*time.Second, func(es []Event) bool { return count(es, EventConnected, "") == 2 })
	srv.Source().Advance(12)
	rules := map[string]int{}
	got := collect(t, events, 10*time.Second, func(es []Event) bool {
		for _, e := range es {
			for _, p := range e.Problems {
				rules[p.Rule]++
			}
		}
		ok := true
		for _, r := range []string{"xml-malformed", "changelist-order", model.RuleNotificationOrder, model.RuleNotificationRoot} {
			ok = ok && rules[r] > 0
		}
		clear(rules)
		return ok
	})
	for _, e := range got {
		if e.Type == EventDisconnected {
			t.Errorf("a broken notification dropped the connection: %v", e.Err)
		}
		if e.Type == EventNotification && len(e.Problems) > 0 && e.Problems[0].Rule == "xml-malformed" && (len(e.Items) != 0 || len(e.Raw) == 0) {
			t.Errorf("malformed notification: %d items, %d bytes", len(e.Items), len(e.Raw))
		}
	}
}

func TestTooLargeNotificationDropsTheConnection(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 200})
	found, err := Find(context.Background(), testClient(t), srv.URL+"/dataset1/capabilitylist.xml")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := fastOptions()
	o.MaxMessageBytes = 300
	events := Watch(ctx, found.Channels[:1], o)
	collect(t, events, 5*time.Second, func(es []Event) bool { return count(es, EventConnected, "") == 1 })
	srv.Source().Advance(1)
	got := collect(t, events, 5*time.Second, func(es []Event) bool { return count(es, EventConnected, "") == 1 })
	if got[0].Type != EventDisconnected || !strings.Contains(got[0].Err.Error(), "larger than 300 bytes") {
		t.Fatalf("%s", describe(got))
	}
}
