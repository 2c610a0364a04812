package demo

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"rsx/model"
)

// TestChangeListArchiveRotation: the Change Lists that leave the index are in
// the archive, in order, with the from and until they give themselves; the
// archive and the index together cover the history without a hole or an
// overlap, for every clock step and for several values of LiveChangeLists.
func TestChangeListArchiveRotation(t *testing.T) {
	for _, live := range []int{0, 1, 2, 5, -1} {
		s := New(Options{Resources: 200, LiveChangeLists: live})
		h := s.Handler()
		for step := 0; step < 14; step++ {
			arch, archived := archivedChanges(t, h)
			idx, lists := changes(t, h)
			for _, p := range append(check(arch, "changelist-archive.xml", ""), check(idx, "changelist.xml", "")...) {
				t.Errorf("live %d step %d: %s: %s", live, step, p.Rule, p.Message)
			}
			keep := s.opts.LiveChangeLists
			closed := s.openList(s.snapshot()) - 1
			wantArchived := 0
			if keep >= 0 {
				wantArchived = max(0, closed-keep)
			}
			if len(archived) != wantArchived || len(lists) != closed+1-wantArchived {
				t.Fatalf("live %d step %d: %d archived, %d in the index; want %d, %d", live, step, len(archived), len(lists), wantArchived, closed+1-wantArchived)
			}
			all := append(slices.Clone(archived), lists...)
			periods := []model.Period{}
			for k, d := range all {
				var ie model.Entry
				if k < len(archived) {
					ie = arch.Entries[k]
				} else {
					ie = idx.Entries[k-len(archived)]
				}
				if d.MD.From.Raw != ie.MD.From.Raw || d.MD.Until.Raw != ie.MD.Until.Raw {
					t.Errorf("live %d step %d list %d: %s/%s, its entry says %s/%s", live, step, k+1, d.MD.From.Raw, d.MD.Until.Raw, ie.MD.From.Raw, ie.MD.Until.Raw)
				}
				if k < len(archived) && d.MD.Until.Raw == "" {
					t.Errorf("live %d step %d: archived list %d is open", live, step, k+1)
				}
				if got := hdrLink(&d.Header, model.RelArchives); got != testBase+"/dataset1/changelist-archive.xml" {
					t.Errorf("live %d step %d list %d: archives link %q", live, step, k+1, got)
				}
				p, _ := model.PeriodOf(&ie, k < len(archived))
				periods = append(periods, p)
			}
			if segs := model.Coverage(periods); len(model.Holes(periods)) != 0 || len(model.Overlaps(periods)) != 0 ||
				!segs[0].From.Equal(s.logStart) || !segs[len(segs)-1].Until.IsZero() {
				t.Errorf("live %d step %d: coverage %+v", live, step, segs)
			}
			s.Advance(1)
		}
	}
}

// TestCatchUpThroughTheArchive: a copy brought up to date before a list left
// the index finds the index no longer reaches back to it; the archive does.
func TestCatchUpThroughTheArchive(t *testing.T) {
	s := New(Options{Resources: 200})
	h := s.Handler()
	since := s.stepStart(2) // a copy made during list 1
	periodsOf := func(doc *model.Document, archived bool) []model.Period {
		var out []model.Period
		for i := range doc.Entries {
			if p, ok := model.PeriodOf(&doc.Entries[i], archived); ok {
				out = append(out, p)
			}
		}
		return out
	}
	arch, _ := archivedChanges(t, h)
	idx, _ := changes(t, h)
	live := periodsOf(idx, false)
	if plan := model.PlanCatchUp(since, nil, live); plan.Gap == nil {
		t.Fatalf("the index alone reaches back to the copy: %+v", plan)
	}
	plan := model.PlanCatchUp(since, periodsOf(arch, true), live)
	if plan.Gap != nil || len(plan.Archived()) != 1 || plan.Archived()[0].URL != testBase+"/dataset1/changelist/0001.xml" ||
		len(plan.Lists) != 1+len(live) || !plan.Until.IsZero() {
		t.Errorf("plan %+v", plan)
	}
}

// TestResourceListArchive: a Resource List archived every stepsPerSnapshot
// steps, each the state the dump and the changes before it give.
func TestResourceListArchive(t *testing.T) {
	s := New(Options{Resources: 600, ListSize: 100, Seed: 5})
	h := s.Handler()
	ra := parse(t, "resourcelist-archive.xml", mustGet(t, h, "/dataset1/resourcelist-archive.xml"))
	for _, p := range check(ra, "resourcelist-archive.xml", "") {
		t.Errorf("archive: %s: %s", p.Rule, p.Message)
	}
	if len(ra.Entries) != historySteps/stepsPerSnapshot+1 {
		t.Fatalf("%d archived Resource Lists, want %d", len(ra.Entries), historySteps/stepsPerSnapshot+1)
	}
	_, archived := archivedChanges(t, h)
	_, lists := changes(t, h)
	allChanges := append(archived, lists...)
	for k, e := range ra.Entries {
		step := k * stepsPerSnapshot
		if !e.MD.At.Time.Equal(s.stepStart(step)) {
			t.Errorf("entry %d: at %s, want step %d", k+1, e.MD.At.Raw, step)
		}
		idx := parse(t, e.Loc, mustGet(t, h, e.Loc))
		if idx.Root != model.RootSitemapIndex || idx.MD.At.Raw != e.MD.At.Raw || hdrLink(&idx.Header, model.RelArchives) == "" {
			t.Fatalf("%s: not an index at %s with an archives link", e.Loc, e.MD.At.Raw)
		}
		// The state at the step: the initial resources, then every change before it.
		want := map[string]bool{}
		for id := 1; id <= s.sets[0].initial; id++ {
			want[testBase+s.resourcePath(1, id)] = true
		}
		for _, d := range allChanges {
			for _, c := range d.Entries {
				if !c.MD.Datetime.Time.Before(e.MD.At.Time) {
					continue
				}
				want[c.Loc] = c.MD.Change != model.ChangeDeleted
			}
		}
		got := 0
		for _, pe := range idx.Entries {
			part := parse(t, pe.Loc, mustGet(t, h, pe.Loc))
			if hdrLink(&part.Header, "index") != e.Loc {
				t.Errorf("%s: index link %q", pe.Loc, hdrLink(&part.Header, "index"))
			}
			for _, p := range check(part, pe.Loc, "") {
				t.Errorf("%s: %s: %s", pe.Loc, p.Rule, p.Message)
			}
			for _, r := range part.Entries {
				got++
				if !want[r.Loc] {
					t.Errorf("step %d: %s listed, but it does not exist then", step, r.Loc)
				}
				if r.Lastmod.Time.After(e.MD.At.Time) {
					t.Errorf("step %d: %s modified after the snapshot", step, r.Loc)
				}
			}
		}
		exist := 0
		for _, ok := range want {
			if ok {
				exist++
			}
		}
		if got != exist {
			t.Errorf("step %d: %d resources listed, %d exist", step, got, exist)
		}
	}
	// Archived lists never change; later steps add snapshots.
	first := ra.Entries[0].Loc
	before := mustGet(t, h, first)
	rec := get(t, h, first)
	s.Advance(stepsPerSnapshot)
	if after := mustGet(t, h, first); string(after) != string(before) {
		t.Error("an archived Resource List changed")
	}
	if c := get(t, h, first, "If-None-Match", rec.Header().Get("ETag")).Code; c != http.StatusNotModified {
		t.Errorf("conditional GET of an archived Resource List: %d", c)
	}
	if ra2 := parse(t, "again", mustGet(t, h, "/dataset1/resourcelist-archive.xml")); len(ra2.Entries) != len(ra.Entries)+1 {
		t.Errorf("after %d steps: %d archived lists", stepsPerSnapshot, len(ra2.Entries))
	}
	for _, p := range []string{"/dataset1/resourcelists/0001.xml", "/dataset1/resourcelists/9999.xml", "/dataset1/resourcelists/0008-0000.xml",
		"/dataset1/resourcelists/0008-0099.xml", "/dataset1/resourcelists/8.xml", "/dataset1/resourcelists/0008-.xml", "/dataset2/resourcelists/0000.xml",
		"/dataset2/changelist-archive.xml", "/dataset2/resourcelist-archive.xml"} {
		if c := get(t, h, p).Code; c != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, c)
		}
	}
}

// TestArchivesAdvertised: dataset 1's Capability List lists both archives,
// and its Resource Lists link to theirs.
func TestArchivesAdvertised(t *testing.T) {
	h := New(Options{}).Handler()
	cl := parse(t, "capabilitylist", mustGet(t, h, "/dataset1/capabilitylist.xml"))
	got := map[model.Capability]string{}
	for _, e := range cl.Entries {
		got[e.MD.Capability] = e.Loc
	}
	if got[model.CapResourceListArchive] != testBase+"/dataset1/resourcelist-archive.xml" || got[model.CapChangeListArchive] != testBase+"/dataset1/changelist-archive.xml" {
		t.Errorf("Capability List entries %v", got)
	}
	for _, p := range []string{"/dataset1/resourcelist.xml", "/dataset1/resourcelist-0001.xml"} {
		if l := hdrLink(&parse(t, p, mustGet(t, h, p)).Header, model.RelArchives); l != testBase+"/dataset1/resourcelist-archive.xml" {
			t.Errorf("%s: archives link %q", p, l)
		}
	}
	cl2 := string(mustGet(t, h, "/dataset2/capabilitylist.xml"))
	if strings.Contains(cl2, "-archive") || strings.Contains(cl2, `rel="archives"`) {
		t.Error("dataset 2 advertises an archive")
	}
}

// TestBrokenArchive: the broken demo's Change List Archive gives its first
// list an until the list does not have.
func TestBrokenArchive(t *testing.T) {
	h := New(Options{Broken: true}).Handler()
	arch, archived := archivedChanges(t, h)
	if len(archived) == 0 || arch.Entries[0].MD.Until.Raw == archived[0].MD.Until.Raw {
		t.Errorf("the archive agrees with its first list")
	}
	for _, p := range check(arch, "changelist-archive.xml", "") {
		t.Errorf("the broken archive is itself invalid: %s: %s", p.Rule, p.Message)
	}
}

// TestChangeDumpArchiveRotation: with LiveChangeDumps, the packages of the
// older Change List periods leave the Change Dump for archived Change Dumps
// of their own; archive and live dump together list every package of the
// history exactly once, in order, each period covered without a hole.
func TestChangeDumpArchiveRotation(t *testing.T) {
	for _, live := range []int{0, 1, 2} {
		s := New(Options{Resources: 200, LiveChangeDumps: live})
		h := s.Handler()
		for step := 0; step < 10; step++ {
			sn := s.snapshot()
			cap := parse(t, "capabilitylist.xml", mustGet(t, h, "/dataset1/capabilitylist.xml"))
			advertised := slices.ContainsFunc(cap.Entries, func(e model.Entry) bool { return e.MD.Capability == model.CapChangeDumpArchive })
			if advertised != (live > 0) {
				t.Fatalf("live %d: the Capability List advertises a Change Dump Archive: %v", live, advertised)
			}
			liveDump := parse(t, "changedump.xml", mustGet(t, h, "/dataset1/changedump.xml"))
			var packages []model.Entry
			if live > 0 {
				arch, dumps := listed(t, h, "/dataset1/changedump-archive.xml")
				for _, p := range check(arch, "changedump-archive.xml", "") {
					t.Errorf("live %d step %d: archive: %s: %s", live, step, p.Rule, p.Message)
				}
				closed := s.openList(sn) - 1
				if want := max(0, closed-live); len(dumps) != want {
					t.Fatalf("live %d step %d: %d archived Change Dumps, want %d", live, step, len(dumps), want)
				}
				for k, d := range dumps {
					ie := arch.Entries[k].MD
					if d.MD.Capability != model.CapChangeDump || d.MD.From.Raw != ie.From.Raw || d.MD.Until.Raw != ie.Until.Raw || len(d.Entries) != stepsPerList {
						t.Errorf("live %d step %d: archived dump %d: %s %s/%s with %d packages; its entry says %s/%s",
							live, step, k+1, d.MD.Capability, d.MD.From.Raw, d.MD.Until.Raw, len(d.Entries), ie.From.Raw, ie.Until.Raw)
					}
					for _, p := range check(d, "archived changedump", "") {
						t.Errorf("live %d step %d: archived dump %d: %s: %s", live, step, k+1, p.Rule, p.Message)
					}
					packages = append(packages, d.Entries...)
				}
				if got := hdrLink(&liveDump.Header, model.RelArchives); got != testBase+"/dataset1/changedump-archive.xml" {
					t.Errorf("live %d: the Change Dump's archives link is %q", live, got)
				}
			}
			packages = append(packages, liveDump.Entries...)
			if len(packages) != sn.steps {
				t.Fatalf("live %d step %d: %d packages in all, want one per step (%d)", live, step, len(packages), sn.steps)
			}
			for k, e := range packages {
				if want := testBase + s.changePackagePath(0, k+1); e.Loc != want || !e.MD.From.Time.Equal(s.stepStart(k)) {
					t.Errorf("live %d step %d: package %d is %s from %s, want %s", live, step, k+1, e.Loc, e.MD.From.Raw, want)
				}
			}
			if !liveDump.MD.From.Time.Equal(packages[len(packages)-len(liveDump.Entries)].MD.From.Time) {
				t.Errorf("live %d step %d: the Change Dump's from %s is not its first package's", live, step, liveDump.MD.From.Raw)
			}
			s.Advance(1)
		}
	}
}
