package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rsx/demo"
	"rsx/dest/state"
)

// A copy records where it came from (what rsx serve --dest republishes):
// the media type the Source declared and its provenance, the entry's own
// claims, or the via link of a resource the Source republished (the demo's
// images with an original under /origin/), kept as it was; the run's files
// record theirs.
func TestCopiesRecordTheirProvenance(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 200, Seed: 7})
	dir := t.TempDir()
	target := srv.URL + "/dataset2/capabilitylist.xml"
	res := syncOnce(t, dir, testClient(t), target, PlanOptions{})
	if !res.OK() || res.Created == 0 {
		t.Fatalf("baseline: %d created:%s", res.Created, failures(res))
	}
	checkProvenance(t, srv, dir, res.Created, 1)
	// The copies an incremental run writes, from the Change Lists, too
	// (before, the changes' type and via were lost on the way).
	advance(t, srv.URL, 12)
	res = syncOnce(t, dir, testClient(t), target, PlanOptions{Delete: true})
	if !res.OK() || res.Plan.Mode != ModeIncremental || res.Created+res.Updated == 0 {
		t.Fatalf("incremental: %s, %d created, %d updated:%s", res.Plan.Mode, res.Created, res.Updated, failures(res))
	}
	checkProvenance(t, srv, dir, -1, 2)
}

// checkProvenance compares the rows (n of them; -1: as many as listed) and
// the runs' files of dir with the demo's dataset 2 as its Resource List
// says now.
func checkProvenance(t *testing.T, srv *demo.Server, dir string, n, runs int) {
	t.Helper()
	listed := map[string]*stateEntry{}
	for _, e := range sourceEntries(t, srv.URL+"/dataset2/resourcelist.xml") {
		v, hasVia := state.ViaOf(&e)
		listed[e.Loc] = &stateEntry{typ: e.MD.Type, via: v, hasVia: hasVia, lastmod: e.Lastmod.Time}
	}
	ctx := context.Background()
	db, err := state.OpenReadOnly(ctx, filepath.Join(dir, ".rsx", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f, err := db.Freeze(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	srcs, err := f.Sources(ctx)
	if err != nil || len(srcs) != 1 {
		t.Fatalf("Sources %+v %v", srcs, err)
	}
	if n < 0 {
		n = len(listed)
	}
	rows, republished := 0, 0
	err = f.EachCopy(ctx, srcs[0].ID, 0, 1<<40, func(r *state.Resource) error {
		rows++
		want := listed[r.URI]
		if want == nil {
			t.Errorf("%s: not listed", r.URI)
			return nil
		}
		if r.Type != want.typ || r.Type == "" {
			t.Errorf("%s: type %q, declared %q", r.URI, r.Type, want.typ)
		}
		v, ok := state.DecodeVia(r.Via, state.Via{Href: r.URI, Modified: r.Lastmod, Hash: r.Digests, Length: r.Length, Type: r.Type})
		switch {
		case !ok:
			t.Errorf("%s: via %q does not read", r.URI, r.Via)
		case want.hasVia:
			republished++
			if v.Href != want.via.Href || !strings.Contains(v.Href, "/origin/images/") || v.Hash != want.via.Hash || v.Length != want.via.Length || !v.Modified.Equal(want.via.Modified) {
				t.Errorf("%s: via %+v, the Source's via link %+v", r.URI, v, want.via)
			}
		default:
			if r.Via != "{}" || v.Href != r.URI || !v.Modified.Equal(want.lastmod) {
				t.Errorf("%s: via %q (%+v): the Source declared what it served", r.URI, r.Via, v)
			}
		}
		return nil
	})
	if err != nil || rows != n || republished == 0 {
		t.Fatalf("%d rows, want %d, %d republished, %v", rows, n, republished, err)
	}
	seen := 0
	err = f.EachRun(ctx, func(run *state.Run) error {
		seen++
		if seen < runs {
			return nil // the files of the last run: the resources it wrote are as listed now
		}
		return db.RunFiles(ctx, run.ID, func(rf *state.RunFile) error {
			if rf.Kind != state.FileCreated && rf.Kind != state.FileUpdated {
				return nil
			}
			want := listed[rf.URI]
			if want == nil {
				t.Errorf("file %s: not listed", rf.URI)
				return nil
			}
			v, ok := state.DecodeVia(rf.Via, state.Via{Href: rf.URI, Hash: rf.Digests, Length: rf.Length, Type: rf.Type})
			if !ok || rf.Type != want.typ || (want.hasVia && v.Href != want.via.Href) || (!want.hasVia && (v.Href != rf.URI || !v.Modified.Equal(want.lastmod))) {
				t.Errorf("file %s: type %q via %q (%+v)", rf.URI, rf.Type, rf.Via, v)
			}
			return nil
		})
	})
	if err != nil || seen != runs {
		t.Errorf("%d runs, want %d, %v", seen, runs, err)
	}
}

type stateEntry struct {
	typ     string
	via     state.Via
	hasVia  bool
	lastmod time.Time
}
