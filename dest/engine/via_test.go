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
	n, republished := 0, 0
	err = f.EachCopy(ctx, srcs[0].ID, 0, 1<<40, func(r *state.Resource) error {
		n++
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
	if err != nil || n != res.Created || republished == 0 {
		t.Fatalf("%d rows of %d created, %d republished, %v", n, res.Created, republished, err)
	}
	runs := 0
	err = f.EachRun(ctx, func(run *state.Run) error {
		runs++
		return db.RunFiles(ctx, run.ID, func(rf *state.RunFile) error {
			if rf.Kind != state.FileCreated {
				return nil
			}
			want := listed[rf.URI]
			v, ok := state.DecodeVia(rf.Via, state.Via{Href: rf.URI, Hash: rf.Digests, Length: rf.Length, Type: rf.Type})
			if !ok || rf.Type != want.typ || (want.hasVia && v.Href != want.via.Href) || (!want.hasVia && (v.Href != rf.URI || !v.Modified.Equal(want.lastmod))) {
				t.Errorf("file %s: type %q via %q (%+v)", rf.URI, rf.Type, rf.Via, v)
			}
			return nil
		})
	})
	if err != nil || runs != 1 {
		t.Errorf("%d runs, %v", runs, err)
	}
}

type stateEntry struct {
	typ     string
	via     state.Via
	hasVia  bool
	lastmod time.Time
}
