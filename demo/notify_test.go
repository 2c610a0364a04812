package demo

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"rsx/model"
)

func TestCapabilityListsAdvertiseChannels(t *testing.T) {
	s := New(Options{})
	for _, ds := range []string{"dataset1", "dataset2"} {
		d := parse(t, ds, mustGet(t, s.Handler(), "/"+ds+"/capabilitylist.xml"))
		var got []string
		for _, e := range d.Entries {
			if isChannel(&e) {
				got = append(got, string(e.MD.Capability)+" "+e.Loc)
			}
		}
		want := []string{
			"change-notification ws://" + testHost + "/channels/" + ds + "/change",
			"framework-notification ws://" + testHost + "/channels/" + ds + "/framework",
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: channels %q, want %q", ds, got, want)
		}
		// Valid entries: the draft's capability values give warnings only.
		if errs := check(d, testBase+"/"+ds+"/capabilitylist.xml", ""); len(errs) != 0 {
			t.Errorf("%s: %v", ds, errs)
		}
	}
}

// startDemo serves a demo Source on loopback for the length of the test.
func startDemo(t *testing.T, o Options) *Server {
	t.Helper()
	srv, err := Start(context.Background(), "127.0.0.1:0", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func dialChannel(t *testing.T, srv *Server, path string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, strings.Replace(srv.URL, "http://", "ws://", 1)+path, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	c.SetReadLimit(1 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return c
}

// readN reads n messages or fails.
func readN(t *testing.T, c *websocket.Conn, n int) [][]byte {
	t.Helper()
	var out [][]byte
	for len(out) < n {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		typ, b, err := c.Read(ctx)
		cancel()
		if err != nil {
			t.Fatalf("message %d of %d: %v", len(out)+1, n, err)
		}
		if typ != websocket.MessageText {
			t.Fatalf("message %d is %v", len(out)+1, typ)
		}
		out = append(out, b)
	}
	return out
}

func advanceHTTP(t *testing.T, srv *Server, steps string) {
	t.Helper()
	resp, err := http.Post(srv.URL+"/demo/advance?steps="+steps, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("advance: %s", resp.Status)
	}
}

func httpGet(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	return b.Bytes()
}

// entryKey is what a notification and a Change List must agree on.
func entryKey(e *model.Entry) string {
	return strings.Join([]string{e.Loc, string(e.MD.Change), e.MD.Datetime.Raw, e.Lastmod.Raw, e.MD.HashRaw, e.MD.LengthRaw, e.MD.Type}, " ")
}

// TestChangeNotificationsMatchChangeLists advances the clock step by step and
// compares each change notification of dataset 1 with the Change Lists, and
// each framework notification with the Change List Index.
func TestChangeNotificationsMatchChangeLists(t *testing.T) {
	srv := startDemo(t, Options{Resources: 600})
	change := dialChannel(t, srv, "/channels/dataset1/change")
	framework := dialChannel(t, srv, "/channels/dataset1/framework")
	capList := srv.URL + "/dataset1/capabilitylist.xml"
	cc := model.NewNotificationChecker(model.NotificationOptions{Kind: model.CapChangeNotification, CapabilityList: capList})
	fc := model.NewNotificationChecker(model.NotificationOptions{Kind: model.CapFrameworkNotification, CapabilityList: capList})
	start := srv.Source().snapshot().steps
	var notified []string
	const steps = 9 // crosses two Change List boundaries from the default start
	for n := 0; n < steps; n++ {
		advanceHTTP(t, srv, "1")
		msg := readN(t, change, 1)[0]
		d, ps := cc.Check(msg, model.DecoderOptions{})
		if d == nil || len(ps) != 0 {
			t.Fatalf("step %d: %v\n%s", n, ps, msg)
		}
		if len(d.Entries) < 2 {
			t.Errorf("step %d: %d changes; dataset 1 has at least 2 a step", n, len(d.Entries))
		}
		for i := range d.Entries {
			notified = append(notified, entryKey(&d.Entries[i]))
		}
		if (start+n+1)%stepsPerList == 0 {
			fmsg := readN(t, framework, 1)[0]
			fd, ps := fc.Check(fmsg, model.DecoderOptions{})
			if fd == nil || len(ps) != 0 || len(fd.Entries) != 2 {
				t.Fatalf("framework notification after step %d: %v\n%s", n, ps, fmsg)
			}
			closed := (start + n + 1) / stepsPerList
			idx := parse(t, "index", httpGet(t, srv.URL+"/dataset1/changelist.xml"))
			last := idx.Entries[len(idx.Entries)-1]
			prev := idx.Entries[len(idx.Entries)-2]
			if fd.Entries[0].Loc != prev.Loc || fd.Entries[0].MD.Change != model.ChangeUpdated || !strings.HasSuffix(prev.Loc, num(closed)+".xml") ||
				fd.Entries[1].Loc != last.Loc || fd.Entries[1].MD.Change != model.ChangeCreated ||
				fd.Entries[0].MD.Datetime.Raw != prev.MD.Until.Raw || fd.Entries[1].MD.Datetime.Raw != last.MD.From.Raw {
				t.Errorf("framework notification %s does not fit the index's last entries %s, %s", fmsg, prev.Loc, last.Loc)
			}
			for _, e := range fd.Entries {
				if len(e.Links) != 1 || e.Links[0].Rel != "index" || e.Links[0].Href != srv.URL+"/dataset1/changelist.xml" {
					t.Errorf("framework entry %s: links %+v", e.Loc, e.Links)
				}
			}
		}
	}
	// Every change of those steps, in the order of the Change Lists.
	var listed []string
	idx := parse(t, "index", httpGet(t, srv.URL+"/dataset1/changelist.xml"))
	for _, e := range idx.Entries {
		cl := parse(t, e.Loc, httpGet(t, e.Loc))
		for i := range cl.Entries {
			if c := &cl.Entries[i]; !c.MD.Datetime.Time.Before(srv.Source().stepStart(start)) {
				listed = append(listed, entryKey(c))
			}
		}
	}
	if !slices.Equal(notified, listed) {
		t.Errorf("notified %d changes, the Change Lists show %d:\n%s\n---\n%s", len(notified), len(listed), strings.Join(notified, "\n"), strings.Join(listed, "\n"))
	}
}

// TestManySubscribers: every subscriber of a channel gets the same messages,
// and dataset 2's channel carries dataset 2's changes.
func TestManySubscribers(t *testing.T) {
	srv := startDemo(t, Options{Resources: 600})
	var conns []*websocket.Conn
	for i := 0; i < 12; i++ {
		conns = append(conns, dialChannel(t, srv, "/channels/dataset1/change"))
	}
	ds2 := dialChannel(t, srv, "/channels/dataset2/change")
	waitSubscribers(t, srv, 13)
	advanceHTTP(t, srv, "3")
	want := readN(t, conns[0], 3)
	var wg sync.WaitGroup
	for _, c := range conns[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := readN(t, c, 3); !slices.EqualFunc(got, want, bytes.Equal) {
				t.Error("subscribers got different messages")
			}
		}()
	}
	wg.Wait()
	// Dataset 2 has 0 to 2 changes a step; steps without any send nothing.
	sn := srv.Source().snapshot()
	n := 0
	for s := sn.steps - 3; s < sn.steps; s++ {
		if len(stepRange(sn.logs[1].changes, s, s+1)) > 0 {
			n++
		}
	}
	for _, m := range readN(t, ds2, n) {
		if !bytes.Contains(m, []byte("/dataset2/res/")) || bytes.Contains(m, []byte("/dataset1/")) {
			t.Errorf("dataset 2 channel: %s", m)
		}
	}
}

func waitSubscribers(t *testing.T, srv *Server, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for srv.Source().notify.count() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d subscribers, want %d", srv.Source().notify.count(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestSlowSubscriberDoesNotBlockTheClock: a subscriber that takes nothing is
// dropped once its queue is full, with a reason, and Advance never waits.
func TestSlowSubscriberDoesNotBlockTheClock(t *testing.T) {
	s := New(Options{Resources: 100})
	sub, ok := s.subscribe(0, notifChange)
	if !ok {
		t.Fatal("subscribe refused")
	}
	other, _ := s.subscribe(1, notifChange)
	start := time.Now()
	for i := 0; i < notifyQueue; i++ {
		s.Advance(1)
		<-other.queue // a subscriber that keeps up
	}
	select {
	case <-sub.done:
		t.Fatal("dropped with a queue not yet over full")
	default:
	}
	s.Advance(1)
	<-other.queue
	if time.Since(start) > 2*time.Second {
		t.Errorf("%d advances took %v", notifyQueue+1, time.Since(start))
	}
	select {
	case <-sub.done:
		if sub.code != websocket.StatusPolicyViolation || !strings.Contains(sub.reason, "too slow") {
			t.Errorf("dropped with %v %q", sub.code, sub.reason)
		}
	default:
		t.Fatal("the slow subscriber was not dropped")
	}
	select {
	case <-other.done:
		t.Error("a subscriber that keeps up was dropped")
	default:
	}
}

// TestDroppedWebSocketSubscriberGetsTheReason: a subscription dropped as
// too slow ends its connection with a close frame that says why.
func TestDroppedWebSocketSubscriberGetsTheReason(t *testing.T) {
	srv := startDemo(t, Options{Resources: 100})
	c := dialChannel(t, srv, "/channels/dataset1/change")
	waitSubscribers(t, srv, 1)
	n := &srv.Source().notify
	n.mu.Lock()
	for sub := range n.subs {
		sub.drop(websocket.StatusPolicyViolation, "too slow: test")
	}
	n.mu.Unlock()
	err := readUntilClosed(c)
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.StatusPolicyViolation || ce.Reason != "too slow: test" {
		t.Fatalf("closed with %v", err)
	}
	waitSubscribers(t, srv, 0)
}

func readUntilClosed(c *websocket.Conn) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		if _, _, err := c.Read(ctx); err != nil {
			return err
		}
	}
}

func TestDisconnectAndShutdownCloseWithReasons(t *testing.T) {
	srv := startDemo(t, Options{Resources: 100})
	c := dialChannel(t, srv, "/channels/dataset2/framework")
	waitSubscribers(t, srv, 1)
	resp, err := http.Post(srv.URL+"/demo/disconnect", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var ce websocket.CloseError
	if err := readUntilClosed(c); !errors.As(err, &ce) || ce.Code != websocket.StatusServiceRestart || !strings.Contains(ce.Reason, "reconnect") {
		t.Fatalf("disconnect: %v", err)
	}
	waitSubscribers(t, srv, 0)

	c = dialChannel(t, srv, "/channels/dataset1/change")
	waitSubscribers(t, srv, 1)
	closed := make(chan error, 1)
	go func() { closed <- readUntilClosed(c) }()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-closed; !errors.As(err, &ce) || ce.Code != websocket.StatusGoingAway {
		t.Fatalf("shutdown: %v", err)
	}
	if srv.Source().notify.count() != 0 {
		t.Error("a connection outlived Close")
	}
}

// TestBrokenNotifications: the broken demo's channels carry malformed,
// reversed and repeated change notifications and an index-rooted framework
// notification, and the checker finds each.
func TestBrokenNotifications(t *testing.T) {
	srv := startDemo(t, Options{Resources: 600, Broken: true})
	change := dialChannel(t, srv, "/channels/dataset1/change")
	framework := dialChannel(t, srv, "/channels/dataset1/framework")
	capList := srv.URL + "/dataset1/capabilitylist.xml"
	cc := model.NewNotificationChecker(model.NotificationOptions{Kind: model.CapChangeNotification, CapabilityList: capList})
	fc := model.NewNotificationChecker(model.NotificationOptions{Kind: model.CapFrameworkNotification, CapabilityList: capList})
	start := srv.Source().snapshot().steps
	const steps = 12
	advanceHTTP(t, srv, "12")
	msgs := 0
	for s := start; s < start+steps; s++ {
		switch s % 6 {
		case 1, 5:
			msgs += 2
		default:
			msgs++
		}
	}
	found := map[string]int{}
	for _, m := range readN(t, change, msgs) {
		_, ps := cc.Check(m, model.DecoderOptions{})
		for _, p := range ps {
			found[p.Rule]++
		}
	}
	for s := start; s < start+steps; s++ {
		if (s+1)%stepsPerList == 0 {
			_, ps := fc.Check(readN(t, framework, 1)[0], model.DecoderOptions{})
			for _, p := range ps {
				found[p.Rule]++
			}
		}
	}
	for _, rule := range []string{"xml-malformed", "changelist-order", model.RuleNotificationOrder, model.RuleNotificationRoot} {
		if found[rule] == 0 {
			t.Errorf("no %s problem in the broken demo's notifications: %v", rule, found)
		}
	}
}

// POST /demo/disconnect?advance=N: the connections close with nothing of
// those steps sent, and a subscriber that connects again receives only the
// steps after them, however quickly it reconnects.
func TestDisconnectAndAdvance(t *testing.T) {
	srv := startDemo(t, Options{Resources: 600})
	c := dialChannel(t, srv, "/channels/dataset1/change")
	waitSubscribers(t, srv, 1)
	start := srv.Source().snapshot().steps
	resp, err := http.Post(srv.URL+"/demo/disconnect?advance=2", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if got := srv.Source().snapshot().steps; got != start+2 {
		t.Fatalf("steps %d, want %d", got, start+2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ce websocket.CloseError
	if _, msg, err := c.Read(ctx); !errors.As(err, &ce) || ce.Code != websocket.StatusServiceRestart {
		t.Fatalf("a message of the dropped steps (%.80q), or no close: %v", msg, err)
	}
	for _, bad := range []string{"0", "x", "10001"} {
		resp, err := http.Post(srv.URL+"/demo/disconnect?advance="+bad, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("advance=%s: status %d", bad, resp.StatusCode)
		}
	}
}
