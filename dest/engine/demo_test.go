package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"rsx/demo"
)

// auditOnce audits dir against target in a session of its own.
func auditOnce(t testing.TB, dir string, c Client, target string) *AuditReport {
	t.Helper()
	s := openSession(t, dir, c, Options{})
	rep, err := s.Audit(context.Background(), target)
	if err != nil {
		t.Fatalf("audit: %v", err)
	}
	s.Close()
	return rep
}

func TestBaselineFromList(t *testing.T) {
	// 600 resources: dataset1 fits one Resource List.
	srv := startDemo(t, demo.Options{Resources: 600, ListSize: 1000, Seed: 3})
	rl := srv.URL + "/dataset1/resourcelist.xml"
	if doc := parseURL(t, rl); len(doc.Entries) == 0 || doc.Root != 1 {
		t.Fatalf("the demo's Resource List is not a single list")
	}
	dir := t.TempDir()
	res := syncOnce(t, dir, testClient(t), srv.URL+"/dataset1/capabilitylist.xml", PlanOptions{})
	n := len(sourceEntries(t, rl))
	if !res.OK() || res.Created != n || !res.Finished || res.Plan.Mode != ModeBaseline || res.Plan.Summary.Documents != 1 {
		t.Fatalf("created %d of %d, finished %v, mode %s, documents %d:%s", res.Created, n, res.Finished, res.Plan.Mode, res.Plan.Summary.Documents, failures(res))
	}
	assertMirror(t, dir, rl, nil)
	if res.SyncedUntil.IsZero() || !res.SyncedUntil.Equal(res.Plan.At) {
		t.Errorf("point %v, the list's at %v", res.SyncedUntil, res.Plan.At)
	}
	// Nothing left to do, and the copy audits clean.
	again := syncOnce(t, dir, testClient(t), srv.URL+"/dataset1/capabilitylist.xml", PlanOptions{Mode: ModeBaseline})
	if again.Created+again.Updated != 0 || again.Plan.Summary.Unchanged != n {
		t.Errorf("a second baseline: %+v", again.Plan.Summary)
	}
	if rep := auditOnce(t, dir, testClient(t), srv.URL+"/dataset1/capabilitylist.xml"); !rep.InSync() || rep.Same != n || rep.Hashed != n {
		t.Errorf("audit: %+v", rep)
	}
}

func TestBaselineFromIndex(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 1200, ListSize: 100, Seed: 4})
	rl := srv.URL + "/dataset1/resourcelist.xml"
	parts := len(parseURL(t, rl).Entries)
	if parts < 5 {
		t.Fatalf("the index has %d parts", parts)
	}
	dir := t.TempDir()
	// The URL given is the index itself: its up link leads to the
	// Capability List, the state's key.
	res := syncOnce(t, dir, testClient(t), rl, PlanOptions{})
	n := len(sourceEntries(t, rl))
	if !res.OK() || res.Created != n || res.Plan.Summary.Documents != parts+1 || res.Plan.Source != srv.URL+"/dataset1/capabilitylist.xml" {
		t.Fatalf("created %d of %d from %d documents (%d parts), Source %s:%s", res.Created, n, res.Plan.Summary.Documents, parts, res.Plan.Source, failures(res))
	}
	assertMirror(t, dir, rl, nil)
}

func TestBaselineFromDump(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 1200, PackageSize: 100, Seed: 5})
	c, cnt := countingClient(t)
	dir := t.TempDir()
	target := srv.URL + "/dataset1/capabilitylist.xml"
	res := syncOnce(t, dir, c, target, PlanOptions{BaselineFrom: FromDump})
	if !res.OK() || res.Plan.From != FromDump || res.Created == 0 {
		t.Fatalf("created %d from %s:%s", res.Created, res.Plan.From, failures(res))
	}
	if n := cnt.count("/dataset1/res/"); n != 0 {
		t.Errorf("%d requests for resources: a baseline from a dump makes none", n)
	}
	if n := cnt.count("/dataset1/resourcedump/part-"); n < 3 {
		t.Errorf("%d package requests", n)
	}
	// The dump is the snapshot of when the history began: the Change
	// Lists after its at bring the copy to the Resource List's state.
	dumpAt := parseURL(t, srv.URL+"/dataset1/resourcedump.xml").MD.At.Time
	if !res.Plan.At.Equal(dumpAt) {
		t.Errorf("point %v, the dump's at %v", res.Plan.At, dumpAt)
	}
	// The demo's Change List Index no longer lists the first Change List,
	// which covers the dump's at: its Change List Archive does.
	if idx := parseURL(t, srv.URL+"/dataset1/changelist.xml"); !idx.MD.From.Time.After(dumpAt) {
		t.Fatalf("the index reaches back to the dump's at (%v): the archive is not needed", idx.MD.From.Time)
	}
	inc := syncOnce(t, dir, testClient(t), target, PlanOptions{Delete: true})
	if !inc.OK() || inc.Plan.Mode != ModeIncremental || inc.Created+inc.Updated+inc.Deleted == 0 {
		t.Fatalf("incremental: gap %v, %+v:%s", inc.Plan.Gap, inc.Plan.Summary, failures(inc))
	}
	if !slices.ContainsFunc(inc.Plan.Notes, func(n string) bool { return strings.Contains(n, "Change List Archive") }) {
		t.Errorf("notes %q", inc.Plan.Notes)
	}
	assertMirror(t, dir, srv.URL+"/dataset1/resourcelist.xml", nil)
}

func TestIncrementalFromChangeListIndex(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 1000, Seed: 6})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	rl := srv.URL + "/dataset1/resourcelist.xml"
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), target, PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	advance(t, srv.URL, 9) // closes two lists, opens a third
	c, cnt := countingClient(t)
	inc := syncOnce(t, dir, c, target, PlanOptions{Delete: true})
	if !inc.OK() || inc.Plan.Mode != ModeIncremental || inc.Created+inc.Updated == 0 || !inc.Finished {
		t.Fatalf("incremental: %+v:%s", inc.Plan.Summary, failures(inc))
	}
	// Only what changed was fetched.
	if got, want := cnt.count("/dataset1/res/"), inc.Created+inc.Updated; got != want {
		t.Errorf("%d resource requests for %d changes", got, want)
	}
	assertMirror(t, dir, rl, nil)
	if !inc.SyncedUntil.After(inc.Plan.Point) {
		t.Errorf("the point did not move: %v → %v", inc.Plan.Point, inc.SyncedUntil)
	}

	// Closed lists processed whole are not fetched again; the open one is.
	c2, cnt2 := countingClient(t)
	again := syncOnce(t, dir, c2, target, PlanOptions{Delete: true})
	if !again.OK() || again.Created+again.Updated+again.Deleted != 0 {
		t.Fatalf("third run: %+v:%s", again.Plan.Summary, failures(again))
	}
	index := parseURL(t, srv.URL+"/dataset1/changelist.xml")
	for _, e := range index.Entries {
		path := strings.TrimPrefix(e.Loc, srv.URL)
		n := cnt2.count(path)
		switch {
		case e.MD.Until.OK && n != 0:
			t.Errorf("closed list %s fetched %d times", path, n)
		case !e.MD.Until.OK && n != 1:
			t.Errorf("open list %s fetched %d times", path, n)
		}
	}
}

func TestIncrementalFromChangeDump(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 1000, Seed: 7})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), target, PlanOptions{BaselineFrom: FromDump}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	advance(t, srv.URL, 6)
	c, cnt := countingClient(t)
	inc := syncOnce(t, dir, c, target, PlanOptions{ChangesFrom: FromDump, Delete: true})
	if !inc.OK() || inc.Plan.From != FromDump || inc.Created+inc.Updated == 0 {
		t.Fatalf("incremental from the Change Dump: %+v:%s", inc.Plan.Summary, failures(inc))
	}
	if n := cnt.count("/dataset1/res/"); n != 0 {
		t.Errorf("%d requests for resources", n)
	}
	assertMirror(t, dir, srv.URL+"/dataset1/resourcelist.xml", nil)
	// Packages processed are not downloaded again.
	c2, cnt2 := countingClient(t)
	if again := syncOnce(t, dir, c2, target, PlanOptions{ChangesFrom: FromDump}); !again.OK() || again.Plan.Summary.Work() != 0 {
		t.Fatalf("again: %+v:%s", again.Plan.Summary, failures(again))
	}
	if n := cnt2.count("/dataset1/changedump/"); n != 0 {
		t.Errorf("%d package requests after every package was processed", n)
	}
}

// The demo's dataset 2 has only a single open Change List (no index).
func TestIncrementalFromASingleOpenList(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 2000, Seed: 8})
	target := srv.URL + "/dataset2/capabilitylist.xml"
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), target, PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	for round := range 3 {
		advance(t, srv.URL, 3)
		inc := syncOnce(t, dir, testClient(t), target, PlanOptions{Delete: true})
		if !inc.OK() || inc.Plan.Mode != ModeIncremental {
			t.Fatalf("round %d: %+v:%s", round, inc.Plan.Summary, failures(inc))
		}
		assertMirror(t, dir, srv.URL+"/dataset2/resourcelist.xml", nil)
	}
}

func TestProgressIsReported(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 600, Seed: 9})
	var mu = make(chan struct{}, 1)
	mu <- struct{}{}
	var last Progress
	phases := map[Phase]int{}
	s := openSession(t, t.TempDir(), testClient(t), Options{ProgressInterval: 5e6, Progress: func(p Progress) {
		<-mu
		phases[p.Phase]++
		last = p
		mu <- struct{}{}
	}})
	p, err := s.Plan(context.Background(), srv.URL+"/dataset1/capabilitylist.xml", PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	res, err := s.Run(context.Background(), p)
	if err != nil || !res.OK() {
		t.Fatalf("%v%s", err, failures(res))
	}
	<-mu
	defer func() { mu <- struct{}{} }()
	if phases[PhaseReading] == 0 || phases[PhaseFinished] != 1 || last.Phase != PhaseFinished || last.Done != res.Created || last.Total != res.Created || last.Bytes == 0 {
		t.Errorf("phases %v, last %+v", phases, last)
	}
	var items int
	p.Items(func(Item) error { items++; return nil })
	if items != res.Created {
		t.Errorf("the plan lists %d items for %d created", items, res.Created)
	}
	_ = fmt.Sprint()
}
