package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"rsx/dest/plan"
	"rsx/dest/state"
)

// A plan's decisions name the file each concerns: where a create or an
// update writes, what a deletion removes (its path and length read from
// the state), only those of the actions asked for.
func TestPlanDecisions(t *testing.T) {
	f := newFakeSource(t)
	f.setDoc("/cap.xml", capList(map[string]string{"resourcelist": "/rl.xml"}))
	a, b, c, d := []byte("aaa"), []byte("bbbb"), []byte("ccccc"), []byte("dd")
	for p, body := range map[string][]byte{"/r/a": a, "/r/b": b, "/r/c": c, "/r/d": d} {
		f.setRes(p, body)
	}
	const lm = "2030-01-01T09:00:00Z"
	f.setDoc("/rl.xml", resourceList("2030-01-01T10:00:00Z", rlEntry("/r/a", a, lm), rlEntry("/r/b", b, lm), rlEntry("/r/c", c, lm)))
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	b2 := []byte("BBBBBB")
	f.setRes("/r/b", b2)
	f.setDoc("/rl.xml", resourceList("2030-01-02T10:00:00Z", rlEntry("/r/a", a, lm), rlEntry("/r/b", b2, "2030-01-02T09:00:00Z"), rlEntry("/r/d", d, lm)))
	s := openSession(t, dir, testClient(t), Options{})
	p, err := s.Plan(context.Background(), f.target(), PlanOptions{Mode: ModeBaseline, Delete: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	got := map[string]Decision{}
	if err := p.Decisions(context.Background(), func(d Decision) error {
		got[d.Action.String()+" "+d.URI[strings.LastIndex(d.URI, "/")+1:]] = d
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	cr, up, del := got["create d"], got["update b"], got["delete c"]
	if len(got) != 3 || !strings.HasSuffix(cr.Path, "/r/d") || cr.Length != 2 || !strings.HasSuffix(up.Path, "/r/b") || up.Length != 6 || up.Reason == "" ||
		!strings.HasSuffix(del.Path, "/r/c") || del.Length != 5 {
		t.Errorf("decisions: %+v", got)
	}
	n := 0
	p.Decisions(context.Background(), func(d Decision) error {
		if d.Action != plan.Delete {
			t.Errorf("asked for deletions, got %+v", d)
		}
		n++
		return nil
	}, plan.Delete)
	if n != 1 {
		t.Errorf("%d deletions", n)
	}
}

// TestDecisionsReadTheStateInBatches guards the speed of a dry run's
// --json, which lists every decision (plan.items) with the path of each
// update in place and of each deletion read from the state: read with a
// query for each, a dry run of a million updates against a million rows
// spent 7.6 of its 22 s of CPU in them (TestSyncPlan1M, which runs only
// with RSX_SPEED=1, failed its budget of 10 s and nothing in CI saw it).
// Counted, not timed: the state's queries while the decisions are listed,
// kind by kind as the JSON does, are at most one for each state.LookupBatch
// rows they name and one more for each kind.
func TestDecisionsReadTheStateInBatches(t *testing.T) {
	src := newIncrSource(t, 8000)
	dir := filepath.Join(t.TempDir(), "copy")
	src.buildState(t, dir)
	src.publishNext()
	ctx := context.Background()
	s := openSession(t, dir, testClient(t), Options{})
	p, err := s.Plan(ctx, src.url("/cap.xml"), PlanOptions{Delete: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Mode != ModeIncremental {
		t.Fatalf("mode %s", p.Mode)
	}
	kinds := []plan.Action{plan.Create, plan.Update, plan.Delete, plan.PendingDelete}
	q0 := s.DB().Queries()
	n := map[plan.Action]int{}
	for _, a := range kinds {
		err := p.Decisions(ctx, func(d Decision) error {
			n[d.Action]++
			if d.Path == "" || (d.Action == plan.Delete && d.Length < 0) {
				t.Errorf("%s %s: path %q, length %d", d.Action, d.URI, d.Path, d.Length)
			}
			return nil
		}, a)
		if err != nil {
			t.Fatal(err)
		}
	}
	queries := s.DB().Queries() - q0
	if n[plan.Create] != incrCreates || n[plan.Update] != incrUpdates || n[plan.Delete] != incrDeletes {
		t.Fatalf("decisions: %v", n)
	}
	named := incrUpdates + incrDeletes
	if most := int64((named+state.LookupBatch-1)/state.LookupBatch + len(kinds)); queries > most {
		t.Errorf("listing %d decisions (%d of them naming rows of the state) ran %d queries on the state; want at most %d", incrChanges, named, queries, most)
	}
}

// An incremental plan tells Options.Held how many resources it holds a
// change of as they grow, a step at a time (the memory limit grows with
// them: a winner each), and never more than it holds.
func TestPlanTellsChangesHeld(t *testing.T) {
	src := newIncrSource(t, 8000)
	dir := filepath.Join(t.TempDir(), "copy")
	src.buildState(t, dir)
	src.publishNext()
	var heard []int
	s := openSession(t, dir, testClient(t), Options{heldStep: 1000, Held: func(n int) { heard = append(heard, n) }})
	p, err := s.Plan(context.Background(), src.url("/cap.xml"), PlanOptions{Delete: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Mode != ModeIncremental {
		t.Fatalf("mode %s", p.Mode)
	}
	if len(heard) != incrChanges/1000 {
		t.Fatalf("heard %v, want a report each 1,000 of %d changes", heard, incrChanges)
	}
	for i, n := range heard {
		if n != (i+1)*1000 {
			t.Errorf("report %d: %d held, want %d", i, n, (i+1)*1000)
		}
	}
}
