package engine

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"rsx/demo"
	"rsx/model"
	"rsx/notify"
)

// following is a Follow running in the background against a demo Source,
// after a catch-up, with the notifications of its Capability List passed
// through a filter (a test's way to lose a push).
type following struct {
	t      *testing.T
	sess   *Dest
	cancel context.CancelFunc
	done   chan struct{}
	res    *FollowResult
	err    error

	mu     sync.Mutex
	events []FollowEvent
}

// startFollowing syncs target into dir (the catch-up), subscribes to the
// channels of its Capability List and follows. keep, when set, says which
// notification events reach Follow.
func startFollowing(t *testing.T, dir, target string, interval time.Duration, keep func(notify.Event) bool) *following {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &following{t: t, cancel: cancel, done: make(chan struct{})}
	s := openSession(t, dir, testClient(t), Options{})
	f.sess = s
	p, err := s.Plan(ctx, target, PlanOptions{Delete: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if res, err := s.Run(ctx, p); err != nil || !res.OK() {
		t.Fatalf("catch-up: %v%s", err, failures(res))
	}
	found, err := notify.Find(ctx, testClient(t), p.CapabilityList)
	if err != nil {
		t.Fatal(err)
	}
	in := notify.Watch(ctx, found.Channels, notify.Options{MinBackoff: 50 * time.Millisecond, MaxBackoff: 200 * time.Millisecond})
	out := make(chan notify.Event)
	go func() {
		defer close(out)
		for e := range in {
			if keep != nil && !keep(e) {
				continue
			}
			select {
			case out <- e:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		defer close(f.done)
		f.res, f.err = s.Follow(ctx, p, FollowOptions{Interval: interval, Notifications: out, Report: func(e FollowEvent) {
			f.mu.Lock()
			f.events = append(f.events, e)
			f.mu.Unlock()
		}})
	}()
	t.Cleanup(func() { f.stop() })
	// Ready once the change channel is connected and the first poll ran.
	f.waitFor(10*time.Second, "the change channel and the first poll", func(es []FollowEvent) bool {
		return slices.ContainsFunc(es, func(e FollowEvent) bool { return e.Type == FollowConnected && strings.HasSuffix(e.Channel, "/change") }) &&
			slices.ContainsFunc(es, func(e FollowEvent) bool { return e.Type == FollowPolled })
	})
	return f
}

// snapshot returns the events so far.
func (f *following) snapshot() []FollowEvent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.events)
}

// waitFor waits until cond holds of the events reported.
func (f *following) waitFor(d time.Duration, what string, cond func([]FollowEvent) bool) {
	f.t.Helper()
	deadline := time.Now().Add(d)
	for !cond(f.snapshot()) {
		if time.Now().After(deadline) {
			f.t.Fatalf("no %s within %v; events:\n%s", what, d, describeEvents(f.snapshot()))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop ends Follow as a signal would, closes the session (its lock), and
// returns Follow's result.
func (f *following) stop() *FollowResult {
	f.cancel()
	select {
	case <-f.done:
	case <-time.After(10 * time.Second):
		f.t.Fatal("Follow did not end within 10s of its context")
	}
	f.sess.Close()
	return f.res
}

func describeEvents(es []FollowEvent) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString("  " + string(e.Type) + " " + e.Via + " " + e.URI + " " + e.Action + " " + e.Channel)
		if e.Err != nil {
			b.WriteString(" err=" + e.Err.Error())
		}
		for _, p := range e.Problems {
			b.WriteString(" [" + p.Rule + "]")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// converged waits until dir is a copy of the Source's Resource List.
func converged(t *testing.T, dir, rl string, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	var last []string
	for time.Since(start) < within {
		if last = mirrorProblems(t, dir, rl, nil); len(last) == 0 {
			return time.Since(start)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the copy is not the Source's within %v: %q", within, last)
	return 0
}

// notifiedURIs are the resources of a change notification.
func notifiedURIs(e notify.Event) []string {
	var out []string
	for _, it := range e.Items {
		out = append(out, it.URL)
	}
	return out
}

func appliedVia(es []FollowEvent, via string) map[string]bool {
	out := map[string]bool{}
	for _, e := range es {
		if e.Type == FollowApplied && e.Via == via {
			out[e.URI] = true
		}
	}
	return out
}

func TestFollowAppliesNotificationsWithinSeconds(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 600, Seed: 31})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	rl := srv.URL + "/dataset1/resourcelist.xml"
	dir := t.TempDir()
	// Steps 18 and 19 (which closes a Change List) before: steps 20 to 22
	// close none, so that no framework notification brings a poll.
	advance(t, srv.URL, 2)
	var mu sync.Mutex
	var notified []string
	f := startFollowing(t, dir, target, time.Hour, func(e notify.Event) bool {
		if e.Type == notify.EventNotification && e.Kind() == notify.KindChange {
			mu.Lock()
			notified = append(notified, notifiedURIs(e)...)
			mu.Unlock()
		}
		return true
	})
	polls := len(slices.DeleteFunc(f.snapshot(), func(e FollowEvent) bool { return e.Type != FollowPolled }))
	for range 3 {
		advance(t, srv.URL, 1)
		if d := converged(t, dir, rl, 5*time.Second); d > 3*time.Second {
			t.Errorf("the copy took %v to follow a change", d)
		}
	}
	// A file is in place a moment before its change is reported applied:
	// wait for the reports of the changes the copy converged on.
	mu.Lock()
	want := slices.Clone(notified)
	mu.Unlock()
	f.waitFor(5*time.Second, "report of every notified change applied", func(es []FollowEvent) bool {
		got := appliedVia(es, ViaNotification)
		return !slices.ContainsFunc(want, func(u string) bool { return !got[u] })
	})
	es := f.snapshot()
	// No poll ran since (the interval is an hour): the notifications did it.
	if n := len(slices.DeleteFunc(slices.Clone(es), func(e FollowEvent) bool { return e.Type != FollowPolled })); n != polls {
		t.Errorf("%d polls ran while following, want none", n-polls)
	}
	got := appliedVia(es, ViaNotification)
	if len(want) == 0 || len(got) == 0 {
		t.Fatalf("notified %d changes, applied %d:\n%s", len(want), len(got), describeEvents(es))
	}
	for _, u := range want {
		if !got[u] {
			t.Errorf("%s was notified but not applied", u)
		}
	}
	// Step 23 closes Change List 6: the framework notification brings a
	// poll, which records the list and moves the copy's point.
	before := len(slices.DeleteFunc(f.snapshot(), func(e FollowEvent) bool { return e.Type != FollowPolled }))
	advance(t, srv.URL, 1)
	f.waitFor(5*time.Second, "poll after the list closed", func(es []FollowEvent) bool {
		return len(slices.DeleteFunc(es, func(e FollowEvent) bool { return e.Type != FollowPolled })) > before
	})
	converged(t, dir, rl, 5*time.Second)
	res := f.stop()
	if !res.OK() || res.Stopped != "interrupted" || res.FromNotifications < len(got) || res.FromPolls != 0 || res.Notifications < 4 || res.Rejected != 0 {
		t.Errorf("result %+v", res)
	}
	if closed := time.Date(2026, 1, 5, 10, 30, 0, 0, time.UTC); !res.SyncedUntil.Equal(closed) {
		t.Errorf("the copy's point is %v, want the end of the list that closed, %v", res.SyncedUntil, closed)
	}
	// The state is consistent: a sync after Follow finds nothing to do, and
	// the audit finds the copy in sync.
	again := syncOnce(t, dir, testClient(t), target, PlanOptions{Delete: true})
	if !again.OK() || again.Created+again.Updated+again.Deleted != 0 {
		t.Errorf("a sync after Follow: %+v:%s", again.Plan.Summary, failures(again))
	}
	if rep := auditOnce(t, dir, testClient(t), target); !rep.InSync() {
		t.Errorf("audit after Follow: %+v", rep)
	}
}

// A push lost on its way (the test's filter drops it, as a dropped
// connection would): the copy does not follow that change, the next
// notification is applied within seconds all the same, and the poll, at its
// interval, catches the lost change and says so.
func TestFollowCatchesALostNotificationAtThePoll(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 600, Seed: 32})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	rl := srv.URL + "/dataset1/resourcelist.xml"
	dir := t.TempDir()
	advance(t, srv.URL, 2) // steps 20 and 21 close no Change List

	var mu sync.Mutex
	changeNotes := 0
	var lost, later []string
	interval := 5 * time.Second // long enough that, on a loaded machine, the second push still comes before the poll
	f := startFollowing(t, dir, target, interval, func(e notify.Event) bool {
		mu.Lock()
		defer mu.Unlock()
		if e.Type != notify.EventNotification || e.Kind() != notify.KindChange {
			return true
		}
		changeNotes++
		if changeNotes == 1 {
			lost = notifiedURIs(e)
			return false // the push is lost on its way
		}
		later = append(later, notifiedURIs(e)...)
		return true
	})
	start := time.Now()
	advance(t, srv.URL, 1) // its push is lost
	time.Sleep(500 * time.Millisecond)
	if len(mirrorProblems(t, dir, rl, nil)) == 0 {
		t.Fatal("the copy followed a change whose notification was lost")
	}
	if n := len(appliedVia(f.snapshot(), ViaPoll)); n != 0 && time.Since(start) < interval {
		t.Fatalf("%d changes applied by a poll before the interval", n)
	}
	advance(t, srv.URL, 1) // its push arrives
	converged(t, dir, rl, 3*interval)
	// The copy converges while the poll still runs: its report (how many it
	// caught) comes when the run has ended. Wait for it, on a loaded
	// machine too.
	es := f.snapshot()
	for deadline := time.Now().Add(3 * interval); time.Now().Before(deadline); es = f.snapshot() {
		polled, applied := 0, len(appliedVia(es, ViaPoll))
		for _, e := range es {
			if e.Type == FollowPolled && e.Result != nil {
				polled += e.Caught
			}
		}
		if applied > 0 && polled == applied {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	lostURIs, laterURIs := slices.Clone(lost), slices.Clone(later)
	mu.Unlock()
	if len(lostURIs) == 0 || len(laterURIs) == 0 {
		t.Fatalf("lost %d, later %d changes:\n%s", len(lostURIs), len(laterURIs), describeEvents(es))
	}
	byPoll, byPush := appliedVia(es, ViaPoll), appliedVia(es, ViaNotification)
	for _, u := range laterURIs {
		if !byPush[u] {
			t.Errorf("%s, notified, was not applied from its notification", u)
		}
	}
	for _, u := range lostURIs {
		// (a resource the later step changed again came with its push)
		if !byPoll[u] && !slices.Contains(laterURIs, u) {
			t.Errorf("%s, whose push was lost, was not reported as caught by the poll", u)
		}
	}
	caught := 0
	for _, e := range es {
		if e.Type == FollowPolled && e.Result != nil {
			caught += e.Caught
		}
	}
	if caught == 0 || caught != len(byPoll) {
		t.Errorf("the polls say %d caught, %d applied by polls:\n%s", caught, len(byPoll), describeEvents(es))
	}
	res := f.stop()
	if !res.OK() || res.FromPolls != len(byPoll) || res.FromNotifications != len(byPush) {
		t.Errorf("result %+v", res)
	}
	// Nothing was applied twice, and nothing is left to do.
	again := syncOnce(t, dir, testClient(t), target, PlanOptions{Delete: true})
	if !again.OK() || again.Plan.Summary.Work() != 0 {
		t.Errorf("a sync after Follow: %+v:%s", again.Plan.Summary, failures(again))
	}
}

func TestFollowRejectsMalformedNotifications(t *testing.T) {
	// Broken mode: after the notification of each step ≡ 1 (mod 6) a cut
	// copy of it; on steps ≡ 5 the previous step's notification again.
	srv := startDemo(t, demo.Options{Resources: 600, Seed: 34, Broken: true})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dir := t.TempDir()
	ctx := context.Background()
	s := openSession(t, dir, testClient(t), Options{})
	p, err := s.Plan(ctx, target, PlanOptions{Delete: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := s.Run(ctx, p); err != nil { // the broken Source's bad hashes fail: that is not this test's matter
		t.Fatal(err)
	}
	found, err := notify.Find(ctx, testClient(t), p.CapabilityList)
	if err != nil {
		t.Fatal(err)
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var es []FollowEvent
	done := make(chan *FollowResult)
	go func() {
		res, _ := s.Follow(fctx, p, FollowOptions{Interval: time.Hour, Notifications: notify.Watch(fctx, found.Channels, notify.Options{}),
			Report: func(e FollowEvent) { mu.Lock(); es = append(es, e); mu.Unlock() }})
		done <- res
	}()
	snap := func() []FollowEvent { mu.Lock(); defer mu.Unlock(); return slices.Clone(es) }
	wait := func(what string, cond func([]FollowEvent) bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(snap()); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %s:\n%s", what, describeEvents(snap()))
			}
		}
	}
	wait("connection", func(es []FollowEvent) bool {
		return slices.ContainsFunc(es, func(e FollowEvent) bool {
			return e.Type == FollowConnected && strings.HasSuffix(e.Channel, "dataset1/change")
		}) &&
			slices.ContainsFunc(es, func(e FollowEvent) bool { return e.Type == FollowPolled })
	})
	advance(t, srv.URL, 2) // steps 18 and 19: 19 ≡ 1 (mod 6) sends a cut message
	wait("rejection", func(es []FollowEvent) bool {
		return slices.ContainsFunc(es, func(e FollowEvent) bool { return e.Type == FollowRejected })
	})
	var rejected FollowEvent
	for _, e := range snap() {
		if e.Type == FollowRejected {
			rejected = e
		}
	}
	if !slices.ContainsFunc(rejected.Problems, func(p model.Problem) bool { return p.Severity == model.SeverityError }) || rejected.Changes != 0 {
		t.Errorf("rejected notification: %d changes, problems %+v", rejected.Changes, rejected.Problems)
	}
	advance(t, srv.URL, 4) // step 23 ≡ 5: step 22's notification again, out of order
	wait("the repeated notification", func(es []FollowEvent) bool {
		return slices.ContainsFunc(es, func(e FollowEvent) bool {
			return e.Type == FollowNotified && slices.ContainsFunc(e.Problems, func(p model.Problem) bool { return p.Rule == model.RuleNotificationOrder })
		})
	})
	time.Sleep(300 * time.Millisecond)
	cancel()
	res := <-done
	if res.Rejected == 0 || res.Notifications < res.Rejected {
		t.Errorf("result %+v", res)
	}
	// The repeated (older) changes were found applied already: nothing
	// was applied twice.
	seen := map[string]int{}
	for _, e := range snap() {
		if e.Type == FollowApplied && e.Via == ViaNotification {
			seen[e.URI+" "+model.FormatDatetime(e.Datetime)]++
		}
	}
	for k, n := range seen {
		if n > 1 {
			t.Errorf("%s applied %d times", k, n)
		}
	}
}
