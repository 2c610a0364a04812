package republish

import (
	"context"
	"strings"
	"testing"
	"time"

	"rsx/demo"
	"rsx/dest/engine"
	"rsx/dest/store"
	"rsx/model"
	"rsx/notify"
)

// With channels, each Capability List advertises a change channel, and a
// run that ends sends its changes on it: a notification that checks clean,
// with the period it carries (from the generation before, until the new
// one's), its changes as the Change Lists date them.
func TestChangeNotifications(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 200})
	A := t.TempDir()
	target := srv.URL + "/dataset1/capabilitylist.xml"
	syncDir(t, A, target, engine.PlanOptions{})
	st, err := store.OpenDir(A, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, base := serveStore(t, st, shape{}, Options{Channels: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	found, err := notify.Find(ctx, testClient(t), base+"/resourcesync/1/capabilitylist.xml")
	if err != nil || len(found.Channels) != 1 || found.Channels[0].Kind != notify.KindChange || !strings.HasPrefix(found.Channels[0].URL, "ws://") {
		t.Fatalf("channels: %+v %v", found, err)
	}
	events := notify.Watch(ctx, found.Channels, notify.Options{})
	next := func(want notify.EventType) notify.Event {
		t.Helper()
		for {
			select {
			case e := <-events:
				if e.Type == want {
					return e
				}
				if e.Type == notify.EventDisconnected {
					t.Fatalf("disconnected: %v", e.Err)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("no %v event", want)
			}
		}
	}
	next(notify.EventConnected)
	g0 := s.cur.Load()
	advance(t, srv.URL, 4)
	res := syncDir(t, A, target, engine.PlanOptions{Delete: true})
	e := next(notify.EventNotification)
	g1 := s.cur.Load()
	if len(e.Problems) > 0 {
		t.Errorf("the notification's problems: %+v\n%s", e.Problems, e.Raw)
	}
	if n := res.Created + res.Updated + res.Deleted; len(e.Items) != n || n == 0 {
		t.Errorf("%d changes notified, the run made %d", len(e.Items), n)
	}
	if !e.From.Time.Equal(g0.until) || !e.Until.Time.Equal(g1.until) {
		t.Errorf("notified from %s until %s, the generations %s and %s", e.From.Raw, e.Until.Raw, g0.until, g1.until)
	}
	// The same changes, dated the same, as the Change List lists them.
	cl := parseDoc(t, s.clURL(g1.sources[0], g1.sources[0].lists[len(g1.sources[0].lists)-1]))
	listedAt := map[string]model.Datetime{}
	for _, ce := range cl.Entries {
		listedAt[ce.Loc] = ce.MD.Datetime
	}
	for _, it := range e.Items {
		if d, ok := listedAt[it.URL]; !ok || !d.Time.Equal(it.Datetime.Time) || !strings.HasPrefix(it.URL, base+"/") {
			t.Errorf("%s %s at %s: the Change List says %s", it.URL, it.Change, it.Datetime.Raw, d.Raw)
		}
	}
}
