package engine

import (
	"context"
	"slices"
	"testing"

	"rsx/demo"
	"rsx/dest/plan"
)

// A plan limited to a few resources (those picked in the explorer) copies
// those only, finishes no baseline, and the next full sync copies the rest
// and finds the few current.
func TestPlanLimitedToSomeResources(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 300, ListSize: 1000, Seed: 21})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	rl := srv.URL + "/dataset1/resourcelist.xml"
	entries := sourceEntries(t, rl)
	picked := []string{entries[0].Loc, entries[7].Loc, entries[42].Loc}
	dir := t.TempDir()

	res := syncOnce(t, dir, testClient(t), rl, PlanOptions{Only: plan.NewURISet(picked)})
	s := res.Plan.Summary
	if !res.OK() || res.Created != 3 || s.Create != 3 || s.NotChosen != len(entries)-3 || res.Plan.Limited != 3 {
		t.Fatalf("created %d, summary %+v, limited %d:%s", res.Created, s, res.Plan.Limited, failures(res))
	}
	if res.Finished {
		t.Error("a run limited to some resources finished the baseline")
	}
	assertMirror(t, dir, rl, func(uri string) bool { return slices.Contains(picked, uri) })

	// The copy's state: no baseline recorded.
	sess := openSession(t, dir, testClient(t), Options{})
	row, err := sess.DB().Source(context.Background(), res.Plan.Source)
	if err != nil {
		t.Fatal(err)
	}
	if row.Baseline.Kind != "" || !row.Point().IsZero() {
		t.Errorf("baseline %+v, point %v after a limited run", row.Baseline, row.Point())
	}
	// An audit limited to the picked ones: all the same, and listed.
	rep, err := sess.AuditWith(context.Background(), rl, AuditOptions{Only: plan.NewURISet(picked), ListSame: true})
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(picked)
	slices.Sort(want)
	if !rep.InSync() || rep.Same != 3 || !slices.Equal(rep.SameURIs, want) || rep.NotChosen != len(entries)-3 {
		t.Errorf("limited audit: same %d %q, missing %d, not chosen %d", rep.Same, rep.SameURIs, len(rep.Missing), rep.NotChosen)
	}
	// Unlimited: the rest is out of the copy's selection, not missing (the
	// copy never claimed to hold it).
	full, err := sess.Audit(context.Background(), rl)
	if err != nil {
		t.Fatal(err)
	}
	if !full.InSync() || full.Same != 3 || len(full.Missing) != 0 || full.Unselected != len(entries)-3 || full.SameURIs != nil {
		t.Errorf("audit: same %d, missing %d, unselected %d, same listed %d", full.Same, len(full.Missing), full.Unselected, len(full.SameURIs))
	}
	sess.Close()

	// The full sync copies the rest; the picked ones are current.
	all := syncOnce(t, dir, testClient(t), target, PlanOptions{})
	if !all.OK() || all.Created != len(entries)-3 || all.Plan.Summary.Unchanged != 3 || !all.Finished {
		t.Fatalf("full sync: created %d, unchanged %d, finished %v:%s", all.Created, all.Plan.Summary.Unchanged, all.Finished, failures(all))
	}
	assertMirror(t, dir, rl, nil)
}

// A limited sync of a copy applies the changes of the chosen resources only
// (a reconcile of them with the Source's current state), and leaves the
// copy's point and the Change Lists as they were.
func TestIncrementalLimited(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 400, Seed: 22})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dir := t.TempDir()
	base := syncOnce(t, dir, testClient(t), target, PlanOptions{})
	if !base.OK() {
		t.Fatalf("baseline:%s", failures(base))
	}
	advance(t, srv.URL, 6)
	// What a full incremental would do.
	sess := openSession(t, dir, testClient(t), Options{})
	full, err := sess.Plan(context.Background(), target, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var changed []string
	full.Items(func(it Item) error {
		if it.Action == plan.Create || it.Action == plan.Update {
			changed = append(changed, it.Entry.URI)
		}
		return nil
	})
	full.Close()
	sess.Close()
	if len(changed) < 2 {
		t.Fatalf("the demo changed %d resources", len(changed))
	}
	one := changed[:1]
	res := syncOnce(t, dir, testClient(t), target, PlanOptions{Only: plan.NewURISet(one)})
	if !res.OK() || !res.Plan.Reconcile || res.Created+res.Updated != 1 || res.Finished {
		t.Fatalf("limited incremental: mode %s, created %d, updated %d, finished %v:%s", res.Plan.Mode, res.Created, res.Updated, res.Finished, failures(res))
	}
	if !res.SyncedUntil.Equal(base.SyncedUntil) {
		t.Errorf("the copy's point moved from %v to %v", base.SyncedUntil, res.SyncedUntil)
	}
	// The next full incremental still applies the others.
	rest := syncOnce(t, dir, testClient(t), target, PlanOptions{})
	if !rest.OK() || rest.Created+rest.Updated != len(changed)-1 {
		t.Errorf("the rest: created %d, updated %d, want %d:%s", rest.Created, rest.Updated, len(changed)-1, failures(rest))
	}
}

func TestSourceOf(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 200, Seed: 23})
	want := srv.URL + "/dataset1/capabilitylist.xml"
	for _, target := range []string{want, srv.URL + "/dataset1/resourcelist.xml", srv.URL + "/dataset1/changelist.xml"} {
		got, err := SourceOf(context.Background(), testClient(t), target, Options{})
		if err != nil || got != want {
			t.Errorf("SourceOf(%s) = %q, %v; want %q", target, got, err, want)
		}
	}
	if _, err := SourceOf(context.Background(), testClient(t), srv.URL+"/.well-known/resourcesync", Options{}); err == nil {
		t.Error("a Source Description of two Capability Lists has no one Source")
	}
	if _, err := SourceOf(context.Background(), nil, want, Options{}); err == nil {
		t.Error("no client: no error")
	}
}
