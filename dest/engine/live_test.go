package engine

import (
	"strings"
	"sync"
	"testing"

	"rsx/model"
)

// changeOnFirstFetch makes the Source change a resource when it is first
// asked for, after its Resource List's at: do(name) runs once, before the
// answer.
func changeOnFirstFetch(s *liveSource, name string, do func()) {
	var once sync.Once
	s.onResource = func(n string) {
		if n == name {
			once.Do(do)
		}
	}
}

// A baseline of a Source that changes while it is copied: a body that no
// longer matches the Resource List, or a resource gone, that the Change List
// records after the list's at, is taken as the Change List records it, said
// in the run with the entry, and is no failure (issue 34 item 2).
func TestLiveBaselineTakesWhatTheChangeListVouchesFor(t *testing.T) {
	for _, noFrom := range []bool{false, true} {
		t.Run(map[bool]string{false: "from", true: "no from"}[noFrom], func(t *testing.T) { testLiveBaseline(t, noFrom) })
	}
}

func testLiveBaseline(t *testing.T, noFrom bool) {
	s := newLiveSource(t, "a", "b", "c", "d")
	s.noFrom = noFrom
	b2 := []byte("b v2, changed during the baseline\n")
	changeOnFirstFetch(s, "b", func() { s.put("b", b2) })
	var once sync.Once
	prev := s.onResource
	s.onResource = func(n string) {
		prev(n)
		if n == "c" {
			once.Do(func() { s.remove("c") })
		}
	}
	dir := t.TempDir()
	res := syncOnce(t, dir, testClient(t), s.target(), PlanOptions{})
	if !res.OK() || res.ExitStatus() != 0 || !res.Finished || res.FailedCount != 0 {
		t.Fatalf("baseline: exit %d, finished %v:%s", res.ExitStatus(), res.Finished, failures(res))
	}
	if res.Created != 3 || len(res.Vouched) != 2 {
		t.Fatalf("created %d, vouched %+v", res.Created, res.Vouched)
	}
	byURI := map[string]Vouched{}
	for _, v := range res.Vouched {
		byURI[strings.TrimPrefix(v.URI, s.srv.URL)] = v
	}
	if v := byURI["/r/b"]; v.Change != model.ChangeUpdated || v.Datetime.IsZero() || v.Length != int64(len(b2)) ||
		v.Hash != "md5:"+md5hex(b2) || v.List != s.srv.URL+"/cl.xml" || !strings.Contains(v.Was, "does not match") {
		t.Errorf("b vouched %+v", v)
	}
	if v := byURI["/r/c"]; v.Change != model.ChangeDeleted || v.Datetime.IsZero() || !strings.Contains(v.Was, "404") {
		t.Errorf("c vouched %+v", v)
	}
	s.assertLiveCopy(t, dir)
	if rep := auditOnce(t, dir, testClient(t), s.target()); !rep.InSync() {
		t.Errorf("audit: missing %q, changed %q, extra %q", rep.Missing, rep.Changed, rep.Extra)
	}
	// The next run finds those changes applied: nothing is fetched (a list
	// without from makes every run a reconcile).
	res = syncOnce(t, dir, testClient(t), s.target(), PlanOptions{Delete: true})
	if !res.OK() || (res.Plan.Mode != ModeIncremental) != noFrom || res.Created+res.Updated+res.Deleted != 0 {
		t.Errorf("the next run: mode %s, %+v:%s", res.Plan.Mode, res.Plan.Summary, failures(res))
	}
	s.assertLiveCopy(t, dir)
}

// A body that does not match the Resource List and that no change after
// the list's at vouches for still fails, as does one that a change records
// with other bytes.
func TestLiveBaselineUnvouchedBodyFails(t *testing.T) {
	s := newLiveSource(t, "a", "b")
	changeOnFirstFetch(s, "a", func() {
		// Changed without a word in the Change List.
		s.mu.Lock()
		s.res["a"] = []byte("a, changed in silence\n")
		s.mu.Unlock()
	})
	dir := t.TempDir()
	res := syncOnce(t, dir, testClient(t), s.target(), PlanOptions{})
	if res.OK() || res.FailedCount != 1 || res.Failed[0].Kind != KindVerify || len(res.Vouched) != 0 || res.Finished {
		t.Errorf("a body nothing vouches for: failed %d, vouched %+v, finished %v:%s", res.FailedCount, res.Vouched, res.Finished, failures(res))
	}

	// The Change List records a change of b, but the body served is not
	// the one it records.
	s2 := newLiveSource(t, "a", "b")
	changeOnFirstFetch(s2, "b", func() {
		s2.put("b", []byte("b v2\n"))
		s2.mu.Lock()
		s2.res["b"] = []byte("b v2, but not as recorded\n")
		s2.mu.Unlock()
	})
	dir2 := t.TempDir()
	res = syncOnce(t, dir2, testClient(t), s2.target(), PlanOptions{})
	if res.OK() || res.FailedCount != 1 || res.Failed[0].Kind != KindVerify || len(res.Vouched) != 0 {
		t.Errorf("a body its change does not vouch for: failed %d, vouched %+v:%s", res.FailedCount, res.Vouched, failures(res))
	}
}

// A reconcile is a baseline too: a resource it updates that changes again,
// or goes, while it runs is taken as the Change List's last change says.
func TestLiveReconcileTakesLaterChanges(t *testing.T) {
	s := newLiveSource(t, "a", "b", "c")
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), s.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	s.put("b", []byte("b v2\n"))
	s.put("c", []byte("c v2\n"))
	b3 := []byte("b v3, during the reconcile\n")
	changeOnFirstFetch(s, "b", func() { s.put("b", b3) })
	var once sync.Once
	prev := s.onResource
	s.onResource = func(n string) {
		prev(n)
		if n == "c" {
			once.Do(func() { s.remove("c") })
		}
	}
	res := syncOnce(t, dir, testClient(t), s.target(), PlanOptions{Mode: ModeBaseline, Delete: true})
	if !res.OK() || !res.Plan.Reconcile || res.Updated != 1 || res.Deleted != 1 || len(res.Vouched) != 2 {
		t.Fatalf("reconcile: updated %d, deleted %d, vouched %+v:%s", res.Updated, res.Deleted, res.Vouched, failures(res))
	}
	s.assertLiveCopy(t, dir)
	if rep := auditOnce(t, dir, testClient(t), s.target()); !rep.InSync() {
		t.Errorf("audit: missing %q, changed %q, extra %q", rep.Missing, rep.Changed, rep.Extra)
	}
}

// The same in a bucket: what is taken is committed by itself, after the
// run's writes.
func TestLiveBaselineIntoABucket(t *testing.T) {
	endpoint, mc := startVersitygw(t, "copies")
	s := newLiveSource(t, "a", "b", "c")
	b2 := []byte("b v2, changed during the baseline\n")
	changeOnFirstFetch(s, "b", func() { s.put("b", b2) })
	dest := "s3://copies/live?endpoint=" + endpoint + "&region=us-east-1"
	res := s3Sync(t, dest, t.TempDir(), s.target(), PlanOptions{})
	if !res.OK() || !res.Finished || res.Created != 3 || len(res.Vouched) != 1 {
		t.Fatalf("baseline into a bucket: created %d, vouched %+v:%s", res.Created, res.Vouched, failures(res))
	}
	assertBucketMirror(t, mc, "copies", "live", s.srv.URL+"/rl.xml")
}
