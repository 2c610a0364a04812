package engine

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rsx/demo"
)

// Catching up through the Source's archives (the Archives specification):
// a copy whose point the live Change List Index (or Change Dump) no longer
// reaches reads the closed lists of the archive first, in order, then the
// live ones; a stretch of time even the archive leaves uncovered is a gap,
// reported and never skipped.

// archivedURLs are the URLs of a plan's archived lists, in order.
func archivedURLs(p *Plan) []string {
	var out []string
	for _, a := range p.ArchivedLists {
		out = append(out, strings.TrimPrefix(a.URL, "http://"))
	}
	return out
}

func TestCatchUpThroughTheChangeListArchive(t *testing.T) {
	// The index keeps one closed list: a copy brought up to date now falls
	// behind the index after two lists close.
	srv := startDemo(t, demo.Options{Resources: 600, Seed: 21, LiveChangeLists: 1})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dir := t.TempDir()
	base := syncOnce(t, dir, testClient(t), target, PlanOptions{})
	if !base.OK() || base.Plan.Mode != ModeBaseline {
		t.Fatalf("baseline:%s", failures(base))
	}
	advance(t, srv.URL, 12) // the copy's point (step 18, list 5) is now two lists behind the index
	if idx := parseURL(t, srv.URL+"/dataset1/changelist.xml"); !idx.MD.From.Time.After(base.SyncedUntil) {
		t.Fatalf("the index still reaches back to the copy's point %v (its from %v)", base.SyncedUntil, idx.MD.From.Time)
	}
	inc := syncOnce(t, dir, testClient(t), target, PlanOptions{Delete: true})
	if !inc.OK() || inc.Plan.Mode != ModeIncremental || !inc.Finished {
		t.Fatalf("incremental: gap %v, %+v:%s", inc.Plan.Gap, inc.Plan.Summary, failures(inc))
	}
	p := inc.Plan
	want := []string{
		strings.TrimPrefix(srv.URL, "http://") + "/dataset1/changelist/0005.xml",
		strings.TrimPrefix(srv.URL, "http://") + "/dataset1/changelist/0006.xml",
	}
	if got := archivedURLs(p); !slices.Equal(got, want) {
		t.Fatalf("archived lists %q, want %q", got, want)
	}
	for _, a := range p.ArchivedLists {
		if a.Kind != "changelist" || a.Archive != srv.URL+"/dataset1/changelist-archive.xml" || a.Until.IsZero() {
			t.Errorf("archived list %+v", a)
		}
	}
	// The archived lists are applied first, in order, then the live ones.
	var read []string
	for _, l := range p.Lists {
		read = append(read, l.URL[strings.LastIndex(l.URL, "/")+1:])
		if l.Archived != (l.URL == p.ArchivedLists[0].URL || l.URL == p.ArchivedLists[1].URL) {
			t.Errorf("list %s: archived %v", l.URL, l.Archived)
		}
	}
	if want := []string{"0005.xml", "0006.xml", "0007.xml", "0008.xml"}; !slices.Equal(read, want) {
		t.Errorf("lists read %q, want %q", read, want)
	}
	assertMirror(t, dir, srv.URL+"/dataset1/resourcelist.xml", nil)

	// The next run needs no archive: its point is in the index.
	again := syncOnce(t, dir, testClient(t), target, PlanOptions{Delete: true})
	if !again.OK() || len(again.Plan.ArchivedLists) != 0 || again.Plan.Summary.Work() != 0 {
		t.Errorf("again: archived %q, %+v:%s", archivedURLs(again.Plan), again.Plan.Summary, failures(again))
	}
}

func TestCatchUpThroughTheChangeDumpArchive(t *testing.T) {
	// The Change Dump keeps the packages of one closed Change List period:
	// a baseline from the Resource Dump (the snapshot when the history
	// began) can be brought up to date from dumps only through the archive.
	srv := startDemo(t, demo.Options{Resources: 600, Seed: 22, LiveChangeDumps: 1})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), target, PlanOptions{BaselineFrom: FromDump}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	advance(t, srv.URL, 2)
	c, cnt := countingClient(t)
	inc := syncOnce(t, dir, c, target, PlanOptions{ChangesFrom: FromDump, Delete: true})
	if !inc.OK() || inc.Plan.From != FromDump || inc.Created+inc.Updated == 0 {
		t.Fatalf("incremental from dumps: gap %v, %+v:%s", inc.Plan.Gap, inc.Plan.Summary, failures(inc))
	}
	if n := cnt.count("/dataset1/res/"); n != 0 {
		t.Errorf("%d requests for resources: the dumps' packages hold them", n)
	}
	// The clock is at step 20: list 6 is open, 5 closed; the periods of
	// lists 1 to 4 (steps 0 to 16) are archived.
	host := strings.TrimPrefix(srv.URL, "http://")
	var want []string
	for _, k := range []string{"0001", "0002", "0003", "0004"} {
		want = append(want, host+"/dataset1/changedumps/"+k+".xml")
	}
	if got := archivedURLs(inc.Plan); !slices.Equal(got, want) {
		t.Fatalf("archived Change Dumps %q, want %q", got, want)
	}
	archived := 0
	for _, l := range inc.Plan.Lists {
		if l.Archived {
			archived++
		}
	}
	if archived != 16 || len(inc.Plan.Lists) != 20 {
		t.Errorf("%d packages read, %d of them archived; want 20 and 16", len(inc.Plan.Lists), archived)
	}
	if !slices.ContainsFunc(inc.Plan.Notes, func(n string) bool { return strings.Contains(n, "Change Dump Archive") }) {
		t.Errorf("notes %q", inc.Plan.Notes)
	}
	assertMirror(t, dir, srv.URL+"/dataset1/resourcelist.xml", nil)
}

// swappable serves whichever demo Source it holds: a Source restarted, on
// the same address, with a history that begins later.
type swappable struct{ h atomic.Pointer[http.Handler] }

func (s *swappable) ServeHTTP(w http.ResponseWriter, r *http.Request) { (*s.h.Load()).ServeHTTP(w, r) }
func (s *swappable) set(src *demo.Source) {
	h := src.Handler()
	s.h.Store(&h)
}

func TestAGapTheArchiveDoesNotCoverIsReported(t *testing.T) {
	for _, from := range []From{FromList, FromDump} {
		t.Run(string(from), func(t *testing.T) {
			start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			o := demo.Options{Resources: 400, Seed: 23, Start: start, LiveChangeDumps: 1, LiveChangeLists: 1}
			var sw swappable
			sw.set(demo.New(o))
			srv := httptest.NewServer(&sw)
			defer srv.Close()
			target := srv.URL + "/dataset1/capabilitylist.xml"
			dir := t.TempDir()
			if res := syncOnce(t, dir, testClient(t), target, PlanOptions{}); !res.OK() {
				t.Fatalf("baseline:%s", failures(res))
			}
			before := files(t, dir)
			// The Source comes back two days later, its history (and its
			// archives) beginning long after the copy's point.
			o.Start = start.Add(48 * time.Hour)
			later := demo.New(o)
			sw.set(later)
			inc := syncOnce(t, dir, testClient(t), target, PlanOptions{Mode: ModeIncremental, ChangesFrom: from, Delete: true})
			gap := inc.Plan.Gap
			if gap == nil || inc.OK() || inc.Created+inc.Updated+inc.Deleted != 0 || inc.Finished {
				t.Fatalf("gap %v, ok %v, %d+%d+%d applied, finished %v", gap, inc.OK(), inc.Created, inc.Updated, inc.Deleted, inc.Finished)
			}
			// The gap runs from the copy's point to where the archive
			// begins (the history's start), not merely to the live index's
			// or dump's from: the archive was read.
			historyStart := o.Start.Add(-18 * 15 * time.Minute)
			if !gap.From.Equal(start) || !gap.To.Equal(historyStart) {
				t.Errorf("gap %v – %v, want %v – %v", gap.From, gap.To, start, historyStart)
			}
			if len(inc.Plan.ArchivedLists) != 0 {
				t.Errorf("archived lists %q used despite the gap", archivedURLs(inc.Plan))
			}
			if after := files(t, dir); !slices.Equal(before, after) {
				t.Errorf("the copy changed despite the gap")
			}
			// The state's point did not move: the next run meets the same gap.
			again := syncOnce(t, dir, testClient(t), target, PlanOptions{Mode: ModeIncremental, ChangesFrom: from})
			if again.Plan.Gap == nil || !again.Plan.Gap.From.Equal(start) {
				t.Errorf("the second run: gap %v", again.Plan.Gap)
			}
		})
	}
}
