package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"rsx/dest/state"
	"rsx/dest/store"
)

// newChangingSource is a fake Source with three resources in its Resource
// List at 10:00 and a Change List Index whose lists the test sets.
func newChangingSource(t *testing.T) *fakeSource {
	f := newFakeSource(t)
	f.setDoc("/cap.xml", capList(map[string]string{"resourcelist": "/rl.xml", "changelist": "/cl.xml"}))
	for _, n := range []string{"a", "b", "c"} {
		f.setRes("/r/"+n, []byte(n+" v1\n"))
	}
	f.setDoc("/rl.xml", resourceList("2030-01-01T10:00:00Z",
		rlEntry("/r/a", []byte("a v1\n"), "2030-01-01T09:00:00Z"),
		rlEntry("/r/b", []byte("b v1\n"), "2030-01-01T09:00:00Z"),
		rlEntry("/r/c", []byte("c v1\n"), "2030-01-01T09:00:00Z")))
	f.setDoc("/cl.xml", changeListIndex("2030-01-01T08:00:00Z", [3]string{"/cl1.xml", "2030-01-01T08:00:00Z", ""}))
	f.setDoc("/cl1.xml", changeList("2030-01-01T08:00:00Z", ""))
	return f
}

func (f *fakeSource) target() string { return f.srv.URL + "/cap.xml" }

func TestDeletionsWithWithoutAndLater(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() || res.Created != 3 {
		t.Fatalf("baseline: %d:%s", res.Created, failures(res))
	}
	f.setDoc("/cl1.xml", changeList("2030-01-01T08:00:00Z", "",
		clEntry("/r/a", "deleted", "2030-01-01T10:05:00Z", nil),
		clEntry("/r/b", "deleted", "2030-01-01T10:06:00Z", nil)))
	pa := f.hostDir() + "/r/a"
	pb := f.hostDir() + "/r/b"

	// Without --delete: remembered, the copies stay.
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !res.OK() || res.Pending != 2 || res.Deleted != 0 {
		t.Fatalf("without --delete: pending %d deleted %d:%s", res.Pending, res.Deleted, failures(res))
	}
	if got := files(t, dir); !slices.Contains(got, pa) || !slices.Contains(got, pb) {
		t.Fatalf("copies removed without --delete: %v", got)
	}
	// A later run without changes still remembers them...
	res = syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !res.OK() || res.Plan.Summary.PendingDelete != 2 || res.Deleted != 0 {
		t.Fatalf("a later run: %+v", res.Plan.Summary)
	}
	// ...and an audit counts them extra, deletions the copy knows of.
	if rep := auditOnce(t, dir, testClient(t), f.target()); len(rep.Extra) != 2 || rep.PendingDeletes != 2 || len(rep.Unannounced) != 0 {
		t.Errorf("audit with 2 pending deletions: extra %q, pending %d, unannounced %q", rep.Extra, rep.PendingDeletes, rep.Unannounced)
	}
	// ...and one with --delete applies them.
	res = syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Delete: true})
	if !res.OK() || res.Deleted != 2 {
		t.Fatalf("later with --delete: deleted %d: %+v:%s", res.Deleted, res.Plan.Summary, failures(res))
	}
	if got := files(t, dir); !slices.Equal(got, []string{f.hostDir() + "/r/c"}) {
		t.Errorf("files after --delete: %v", got)
	}
	if rep := auditOnce(t, dir, testClient(t), f.target()); len(rep.Extra) != 0 || rep.PendingDeletes != 0 {
		t.Errorf("audit after --delete: extra %q, pending %d", rep.Extra, rep.PendingDeletes)
	}
	// With --delete at once.
	f.setDoc("/cl1.xml", changeList("2030-01-01T08:00:00Z", "",
		clEntry("/r/a", "deleted", "2030-01-01T10:05:00Z", nil),
		clEntry("/r/b", "deleted", "2030-01-01T10:06:00Z", nil),
		clEntry("/r/c", "deleted", "2030-01-01T10:07:00Z", nil)))
	res = syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Delete: true})
	if !res.OK() || res.Deleted != 1 || len(files(t, dir)) != 0 {
		t.Errorf("with --delete: deleted %d, files %v", res.Deleted, files(t, dir))
	}
}

func TestOutOfOrderChangeList(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	// The list is out of order: v3 (11:00) is listed before v2 (10:30).
	// The last change by datetime is v3, which is what the Source serves.
	v2, v3 := []byte("a v2\n"), []byte("a v3, the last\n")
	f.setRes("/r/a", v3)
	f.setDoc("/cl1.xml", changeList("2030-01-01T08:00:00Z", "",
		clEntry("/r/a", "updated", "2030-01-01T11:00:00Z", v3),
		clEntry("/r/a", "updated", "2030-01-01T10:30:00Z", v2)))
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !res.OK() || res.Updated != 1 {
		t.Fatalf("updated %d:%s", res.Updated, failures(res))
	}
	if got := readFile(t, dir, f.hostDir()+"/r/a"); string(got) != string(v3) {
		t.Errorf("copy %q, want the last change's bytes", got)
	}
	if !slices.ContainsFunc(res.Plan.Warnings, func(w string) bool { return strings.Contains(w, "not in forward chronological order") }) {
		t.Errorf("no warning: %q", res.Plan.Warnings)
	}
	if res.Plan.Lists[0].OutOfOrder != 1 {
		t.Errorf("lists %+v", res.Plan.Lists)
	}
}

func TestCreatedThenDeletedLeavesNothing(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	f.setDoc("/cl1.xml", changeList("2030-01-01T08:00:00Z", "",
		clEntry("/r/d", "created", "2030-01-01T10:10:00Z", []byte("d\n")),
		clEntry("/r/d", "deleted", "2030-01-01T10:20:00Z", nil)))
	f.resetHits()
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Delete: true})
	if !res.OK() || res.Plan.Summary.Vanished != 1 || res.Created+res.Deleted != 0 || f.hitsOf("/r/d") != 0 {
		t.Errorf("summary %+v, created %d, requests %d", res.Plan.Summary, res.Created, f.hitsOf("/r/d"))
	}
	if len(files(t, dir)) != 3 {
		t.Errorf("files %v", files(t, dir))
	}
}

func TestGapIsReportedAndNothingApplied(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	// The Source dropped the lists that covered 10:00 to 12:00.
	f.setDoc("/cl.xml", changeListIndex("2030-01-01T12:00:00Z", [3]string{"/cl9.xml", "2030-01-01T12:00:00Z", ""}))
	f.setDoc("/cl9.xml", changeList("2030-01-01T12:00:00Z", "", clEntry("/r/a", "updated", "2030-01-01T12:30:00Z", []byte("a v2\n"))))
	f.setRes("/r/a", []byte("a v2\n"))
	// (--mode incremental: auto reconciles instead, reconcile_test.go.)
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Mode: ModeIncremental})
	g := res.Plan.Gap
	if g == nil || !g.From.Equal(time.Date(2030, 1, 1, 10, 0, 0, 0, time.UTC)) || !g.To.Equal(time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)) {
		t.Fatalf("gap %v", g)
	}
	if res.OK() || res.Updated != 0 || string(readFile(t, dir, f.hostDir()+"/r/a")) != "a v1\n" {
		t.Errorf("changes applied across a gap: updated %d", res.Updated)
	}
	// The proposed new baseline brings the copy up to date.
	f.setDoc("/rl.xml", resourceList("2030-01-01T12:40:00Z",
		rlEntry("/r/a", []byte("a v2\n"), "2030-01-01T12:30:00Z"),
		rlEntry("/r/b", []byte("b v1\n"), "2030-01-01T09:00:00Z"),
		rlEntry("/r/c", []byte("c v1\n"), "2030-01-01T09:00:00Z")))
	res = syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Mode: ModeBaseline})
	if !res.OK() || res.Updated != 1 || res.Plan.Summary.Unchanged != 2 {
		t.Errorf("new baseline: %+v:%s", res.Plan.Summary, failures(res))
	}
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() || res.Plan.Gap != nil {
		t.Errorf("after the new baseline: gap %v:%s", res.Plan.Gap, failures(res))
	}
}

// A Change List without from (as resync-build writes it) covers an unknown
// period: an incremental sync applies nothing, and the gap names the list
// and why. (Mode auto reconciles instead: reconcile_test.go.)
func TestChangeListWithoutFromIsAGapThatSaysWhy(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	f.setDoc("/cap.xml", capList(map[string]string{"resourcelist": "/rl.xml", "changelist": "/nofrom.xml"}))
	f.setDoc("/nofrom.xml", urlsetOpen+`<rs:md capability="changelist"/>`+"\n"+
		clEntry("/r/a", "updated", "2030-01-01T10:30:00Z", []byte("a v2\n"))+"</urlset>\n")
	f.setRes("/r/a", []byte("a v2\n"))
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Mode: ModeIncremental})
	g := res.Plan.Gap
	if g == nil || len(g.Unknown) != 1 || !strings.HasSuffix(g.Unknown[0], "/nofrom.xml") {
		t.Fatalf("gap %+v", g)
	}
	if msg := g.String(); !strings.Contains(msg, "/nofrom.xml has no from attribute, mandatory (Table 4)") {
		t.Errorf("gap message %q", msg)
	}
	if res.OK() || res.Updated != 0 || string(readFile(t, dir, f.hostDir()+"/r/a")) != "a v1\n" {
		t.Errorf("changes applied from a list of unknown period: updated %d", res.Updated)
	}
}

func TestSelectionIsStoredAndReplaced(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	sel := &state.Selection{Include: []string{"/r/[ab]$"}, Exclude: []string{"/r/b$"}}
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Selection: sel})
	if !res.OK() || res.Created != 1 || res.Plan.Summary.Excluded != 2 {
		t.Fatalf("selective baseline: %+v:%s", res.Plan.Summary, failures(res))
	}
	// A later run without options applies the stored selection to changes.
	f.setRes("/r/b", []byte("b v2\n"))
	f.setRes("/r/a", []byte("a v2\n"))
	f.setDoc("/cl1.xml", changeList("2030-01-01T08:00:00Z", "",
		clEntry("/r/b", "updated", "2030-01-01T10:10:00Z", []byte("b v2\n")),
		clEntry("/r/a", "updated", "2030-01-01T10:11:00Z", []byte("a v2\n"))))
	res = syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !res.OK() || res.Updated != 1 || res.Plan.Summary.Excluded != 1 || !res.Plan.Selection.Equal(*sel) {
		t.Fatalf("incremental with the stored selection: %+v %+v:%s", res.Plan.Summary, res.Plan.Selection, failures(res))
	}
	if got := files(t, dir); !slices.Equal(got, []string{f.hostDir() + "/r/a"}) {
		t.Errorf("files %v", got)
	}
	// New options replace it, the run says so, and it is a baseline so
	// that what is newly included is copied.
	f.setDoc("/rl.xml", resourceList("2030-01-01T10:20:00Z",
		rlEntry("/r/a", []byte("a v2\n"), "2030-01-01T10:11:00Z"),
		rlEntry("/r/b", []byte("b v2\n"), "2030-01-01T10:10:00Z"),
		rlEntry("/r/c", []byte("c v1\n"), "2030-01-01T09:00:00Z")))
	wide := &state.Selection{Exclude: []string{"/r/c$"}}
	res = syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Selection: wide})
	if !res.OK() || res.Plan.PreviousSelection == nil || res.Plan.Mode != ModeBaseline || res.Created != 1 {
		t.Fatalf("replaced selection: mode %s, previous %v, %+v:%s", res.Plan.Mode, res.Plan.PreviousSelection, res.Plan.Summary, failures(res))
	}
	if !slices.ContainsFunc(res.Plan.Notes, func(n string) bool { return strings.Contains(n, "selection is replaced") }) {
		t.Errorf("notes %q", res.Plan.Notes)
	}
	st, _ := store.OpenDir(dir, store.Options{})
	defer st.Close()
	s, err := Open(context.Background(), st, testClient(t), Options{Now: fixtureClock})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	src, err := s.DB().Source(context.Background(), f.target())
	if err != nil || !src.Selection.Equal(*wide) {
		t.Errorf("stored selection %+v, %v", src.Selection, err)
	}
}

func TestIncrementalNeedsABaseline(t *testing.T) {
	f := newChangingSource(t)
	s := openSession(t, t.TempDir(), testClient(t), Options{})
	_, err := s.Plan(context.Background(), f.target(), PlanOptions{Mode: ModeIncremental})
	if err == nil || !strings.Contains(err.Error(), "no finished baseline") {
		t.Errorf("incremental without a baseline: %v", err)
	}
}

func TestTwoRunsOnOneDestination(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	openSession(t, dir, testClient(t), Options{})
	st, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = Open(context.Background(), st, testClient(t), Options{})
	var le *store.LockedError
	if !errors.As(err, &le) || le.Holder.PID != os.Getpid() {
		t.Fatalf("a second run: %v", err)
	}
	_ = f
}

func TestDryRunPlanWritesNothing(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	s := openSession(t, dir, testClient(t), Options{})
	p, err := s.Plan(context.Background(), f.target(), PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Summary.Create != 3 || p.Summary.Bytes != 15 || f.resourceHits() != 0 {
		t.Errorf("plan %+v, %d resource requests", p.Summary, f.resourceHits())
	}
	if got := files(t, dir); len(got) != 0 {
		t.Errorf("files %v", got)
	}
	if _, err := s.DB().Source(context.Background(), f.target()); !errors.Is(err, state.ErrNoSource) {
		t.Errorf("a plan recorded the Source: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, ".rsx", "rejected")); len(entries) != 0 {
		t.Errorf("rejected %v", entries)
	}
}

// A resource a new baseline no longer lists is remembered deleted at that
// list's at; a later baseline does not move the time.
func TestPendingDeletionKeepsItsTime(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	for _, at := range []string{"2030-01-01T11:00:00Z", "2030-01-01T12:00:00Z"} {
		f.setDoc("/rl.xml", resourceList(at,
			rlEntry("/r/a", []byte("a v1\n"), "2030-01-01T09:00:00Z"),
			rlEntry("/r/b", []byte("b v1\n"), "2030-01-01T09:00:00Z")))
		if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Mode: ModeBaseline}); !res.OK() || res.Pending != 1 {
			t.Fatalf("baseline at %s: pending %d:%s", at, res.Pending, failures(res))
		}
	}
	s := openSession(t, dir, testClient(t), Options{})
	src, _ := s.DB().Source(context.Background(), f.target())
	r, err := s.DB().Resource(context.Background(), src.ID, f.srv.URL+"/r/c")
	if err != nil || !r.DeletedAt.Equal(time.Date(2030, 1, 1, 11, 0, 0, 0, time.UTC)) {
		t.Errorf("deleted_at %v, %v", r.DeletedAt, err)
	}
}
