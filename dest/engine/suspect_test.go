package engine

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"rsx/model"
	"rsx/notify"
)

// A change whose datetime cannot be true (in the future, or after its
// list's until) must not pin its resource: applied by its place in the
// list, its datetime never recorded, every later real change applied.

func hasWarning(p *Plan, parts ...string) bool {
	return slices.ContainsFunc(p.Warnings, func(w string) bool {
		for _, s := range parts {
			if !strings.Contains(w, s) {
				return false
			}
		}
		return true
	})
}

func TestAFutureChangeDoesNotPinItsResource(t *testing.T) {
	for _, tc := range []struct {
		name string
		// between: the bogus change is applied by a run of its own before
		// the real one is listed; else one run reads both lists.
		between bool
	}{
		{"a later run", true},
		{"the same run", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newChangingSource(t)
			dir := t.TempDir()
			if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
				t.Fatalf("baseline:%s", failures(res))
			}
			pa := f.hostDir() + "/r/a"
			v2, v3 := []byte("a v2\n"), []byte("a v3, the real last\n")
			bogus := clEntry("/r/a", "updated", "2099-01-01T00:00:00Z", v2)
			if tc.between {
				f.setRes("/r/a", v2)
				f.setDoc("/cl1.xml", changeList("2030-01-01T08:00:00Z", "", bogus))
				res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
				if !res.OK() || res.Updated != 1 || string(readFile(t, dir, pa)) != string(v2) {
					t.Fatalf("the bogus change: updated %d:%s", res.Updated, failures(res))
				}
				if !hasWarning(res.Plan, "/r/a", "2099-01-01T00:00:00Z", "in the future") || res.Plan.Summary.SuspectDatetimes != 1 || res.Plan.Lists[0].Suspect != 1 {
					t.Errorf("the bogus change is not reported: %d, %q", res.Plan.Summary.SuspectDatetimes, res.Plan.Warnings)
				}
				if res.SyncedUntil.After(fixtureClock()) {
					t.Errorf("synced until %v, in the future", res.SyncedUntil)
				}
			}
			// The list closes at 11:00; the next one has the real change.
			f.setRes("/r/a", v3)
			f.setDoc("/cl.xml", changeListIndex("2030-01-01T08:00:00Z",
				[3]string{"/cl1.xml", "2030-01-01T08:00:00Z", "2030-01-01T11:00:00Z"},
				[3]string{"/cl2.xml", "2030-01-01T11:00:00Z", ""}))
			f.setDoc("/cl1.xml", changeList("2030-01-01T08:00:00Z", "2030-01-01T11:00:00Z", bogus))
			f.setDoc("/cl2.xml", changeList("2030-01-01T11:00:00Z", "", clEntry("/r/a", "updated", "2030-01-01T12:00:00Z", v3)))
			res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
			if !res.OK() || res.Updated != 1 {
				t.Fatalf("the real change: updated %d, %+v:%s", res.Updated, res.Plan.Summary, failures(res))
			}
			if got := readFile(t, dir, pa); string(got) != string(v3) {
				t.Errorf("copy %q, want the real change's %q", got, v3)
			}
			if !tc.between && !hasWarning(res.Plan, "/r/a", "2099-01-01T00:00:00Z") {
				t.Errorf("no warning names the bogus change: %q", res.Plan.Warnings)
			}
			// And the copy is current: nothing more to do, audit agrees.
			again := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
			if !again.OK() || again.Plan.Summary.Work() != 0 {
				t.Errorf("again: %+v:%s", again.Plan.Summary, failures(again))
			}
			if rep := auditOnce(t, dir, testClient(t), f.target()); !rep.InSync() {
				t.Errorf("audit: changed %q, missing %q, unannounced %q", rep.Changed, rep.Missing, rep.Unannounced)
			}
		})
	}
}

func TestAChangeAfterItsListsUntilDoesNotPin(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	// Dated 2030-06, after the closed list's until (and before the clock):
	// a real change of 13:00 listed next must not look older.
	v2, v3 := []byte("b v2\n"), []byte("b v3\n")
	f.setRes("/r/b", v3)
	f.setDoc("/cl.xml", changeListIndex("2030-01-01T08:00:00Z",
		[3]string{"/cl1.xml", "2030-01-01T08:00:00Z", "2030-01-01T11:00:00Z"},
		[3]string{"/cl2.xml", "2030-01-01T11:00:00Z", ""}))
	f.setDoc("/cl1.xml", changeList("2030-01-01T08:00:00Z", "2030-01-01T11:00:00Z", clEntry("/r/b", "updated", "2030-06-01T00:00:00Z", v2)))
	f.setDoc("/cl2.xml", changeList("2030-01-01T11:00:00Z", "", clEntry("/r/b", "updated", "2030-01-01T13:00:00Z", v3)))
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !res.OK() || res.Updated != 1 || string(readFile(t, dir, f.hostDir()+"/r/b")) != string(v3) {
		t.Fatalf("updated %d:%s", res.Updated, failures(res))
	}
	if !hasWarning(res.Plan, "/r/b", "after the list's until 2030-01-01T11:00:00Z") {
		t.Errorf("warnings %q", res.Plan.Warnings)
	}
}

func TestAFutureUntilOrAtDoesNotMoveThePointThere(t *testing.T) {
	f := newChangingSource(t)
	// The Resource List claims to be a snapshot of 2099.
	f.setDoc("/rl.xml", resourceList("2099-01-01T00:00:00Z",
		rlEntry("/r/a", []byte("a v1\n"), "2030-01-01T09:00:00Z"),
		rlEntry("/r/b", []byte("b v1\n"), "2030-01-01T09:00:00Z"),
		rlEntry("/r/c", []byte("c v1\n"), "2030-01-01T09:00:00Z")))
	dir := t.TempDir()
	base := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !base.OK() {
		t.Fatalf("baseline:%s", failures(base))
	}
	if base.SyncedUntil.After(fixtureClock()) || !hasWarning(base.Plan, "2099-01-01T00:00:00Z", "in the future") {
		t.Errorf("baseline point %v, warnings %q", base.SyncedUntil, base.Plan.Warnings)
	}
	// A closed list that says it covers up to 2099.
	f.setDoc("/cl.xml", changeListIndex("2030-01-01T08:00:00Z", [3]string{"/cl1.xml", "2030-01-01T08:00:00Z", "2099-01-01T00:00:00Z"}))
	f.setDoc("/cl1.xml", changeList("2030-01-01T08:00:00Z", "2099-01-01T00:00:00Z"))
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !res.OK() {
		t.Fatalf("incremental:%s", failures(res))
	}
	if res.SyncedUntil.After(fixtureClock()) || !hasWarning(res.Plan, "2099-01-01T00:00:00Z", "in the future") {
		t.Errorf("synced until %v, warnings %q", res.SyncedUntil, res.Plan.Warnings)
	}
	// The Source mends its lists: the real change after the run is applied.
	now := fixtureClock().UTC()
	at := func(d time.Duration) string { return model.FormatDatetime(now.Add(d).Truncate(time.Second)) }
	v2 := []byte("c v2\n")
	f.setRes("/r/c", v2)
	f.setDoc("/cl.xml", changeListIndex("2030-01-01T08:00:00Z",
		[3]string{"/cl1.xml", "2030-01-01T08:00:00Z", at(-time.Hour)},
		[3]string{"/cl2.xml", at(-time.Hour), ""}))
	f.setDoc("/cl1.xml", changeList("2030-01-01T08:00:00Z", at(-time.Hour)))
	f.setDoc("/cl2.xml", changeList(at(-time.Hour), "", clEntry("/r/c", "updated", at(time.Minute), v2)))
	res = syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !res.OK() || res.Updated != 1 || string(readFile(t, dir, f.hostDir()+"/r/c")) != string(v2) {
		t.Errorf("the real change: updated %d, %+v, gap %v:%s", res.Updated, res.Plan.Summary, res.Plan.Gap, failures(res))
	}
}

func TestAFutureNotificationDoesNotPin(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	s := openSession(t, dir, testClient(t), Options{})
	ctx := context.Background()
	ref, err := s.Plan(ctx, f.target(), PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	if res, err := s.Run(ctx, ref); err != nil || !res.OK() {
		t.Fatalf("baseline: %v", err)
	}
	notification := func(datetime string, body []byte) *notify.Event {
		e := model.Entry{Loc: f.srv.URL + "/r/a", HasLoc: true}
		e.MD = model.Metadata{Present: true, Change: model.ChangeUpdated, Length: int64(len(body))}
		dt, err := model.ParseDatetime(datetime)
		if err != nil {
			t.Fatal(err)
		}
		e.MD.Datetime = dt
		return &notify.Event{Type: notify.EventNotification, Channel: notify.Channel{URL: "ws://127.0.0.1:1/change", Kind: notify.KindChange},
			Items: []notify.Item{{URL: e.Loc, Change: model.ChangeUpdated, Datetime: e.MD.Datetime, Entry: e}}}
	}
	apply := func(e *notify.Event) *Result {
		t.Helper()
		p, err := s.planNotifications(ctx, ref, []*notify.Event{e})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		res, err := s.Run(ctx, p)
		if err != nil || !res.OK() {
			t.Fatalf("run: %v%s", err, failures(res))
		}
		return res
	}
	v2, v3 := []byte("a v2\n"), []byte("a v3\n")
	f.setRes("/r/a", v2)
	bogus := notification("2099-01-01T00:00:00Z", v2)
	if probs := (&follower{s: s}).withFutureDates(bogus); len(probs) != 1 || probs[0].Severity != model.SeverityWarning || !strings.Contains(probs[0].Message, "2099-01-01T00:00:00Z") {
		t.Errorf("Follow's report of the notification: %+v", probs)
	}
	if res := apply(bogus); res.Updated != 1 || res.Plan.Summary.SuspectDatetimes != 1 {
		t.Fatalf("the bogus notification: updated %d, %+v", res.Updated, res.Plan.Summary)
	}
	f.setRes("/r/a", v3)
	if res := apply(notification("2030-01-01T12:00:00Z", v3)); res.Updated != 1 {
		t.Fatalf("the real notification: updated %d, %+v", res.Updated, res.Plan.Summary)
	}
	if got := readFile(t, dir, f.hostDir()+"/r/a"); string(got) != string(v3) {
		t.Errorf("copy %q, want %q", got, v3)
	}
}
