package session

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"rsx/claims"
	"rsx/demo"
	"rsx/dest/engine"
	"rsx/dest/pathmap"
	"rsx/dest/state"
	"rsx/dest/store"
	"rsx/fetch"
	"rsx/model"
	"rsx/spotcheck"
)

// demoEntries reads the entries of a demo document, their locs absolute.
func demoEntries(t *testing.T, url string) []model.Entry {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := model.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return doc.Entries
}

// copyFiles lists the files of a folder destination (not .rsx).
func copyFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == store.ReservedDir {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

// A sync of three entries: the plan writes nothing, the run writes the
// three, progress arrives as values, and Close releases the destination.
func TestSyncOfChosenEntries(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 120, ListSize: 1000})
	rl := srv.URL + "/dataset1/resourcelist.xml"
	entries := demoEntries(t, rl)
	only := []string{entries[1].Loc, entries[5].Loc, entries[9].Loc}
	dir := t.TempDir()
	ctx := context.Background()

	j := s.NewSync(SyncRequest{Dest: dir, Target: rl, Only: only})
	p, err := j.Plan(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.Summary.Create != 3 || len(p.Items) != 3 || p.Limited != 3 || p.Summary.NotChosen != len(entries)-3 || p.Dest != dir {
		t.Fatalf("plan: %+v, %d items, limited %d, dest %s", p.Summary, len(p.Items), p.Limited, p.Dest)
	}
	if files := copyFiles(t, dir); len(files) != 0 {
		t.Fatalf("the plan wrote %q", files)
	}
	// The destination is held while the sync is open.
	if _, err := s.AuditCopy(ctx, AuditRequest{Dest: dir, Target: rl}); err == nil || !strings.Contains(err.Error(), "lock") {
		var le *store.LockedError
		if !errors.As(err, &le) {
			t.Errorf("a second use of the destination while the sync holds it: %v", err)
		}
	}
	res, err := j.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() || res.Created != 3 {
		t.Fatalf("run: created %d, failed %v", res.Created, res.Failed)
	}
	if files := copyFiles(t, dir); len(files) != 3 {
		t.Errorf("files after the run: %q", files)
	}
	select {
	case u := <-j.Updates():
		if u.Progress.Phase != engine.PhaseFinished || u.Progress.Done != 3 {
			t.Errorf("last update: %+v", u.Progress)
		}
	case <-time.After(5 * time.Second):
		t.Error("no progress update")
	}
	if j.CanRetry() {
		t.Error("nothing failed, yet there is something to retry")
	}
	if _, err := j.Retry(ctx); err == nil {
		t.Error("a retry with nothing to retry")
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Plan(ctx, false); !errors.Is(err, errSyncClosed) {
		t.Errorf("plan after close: %v", err)
	}

	// The audit of the copy against the document's resources: three the
	// same (listed); the rest, never chosen, out of the copy's selection,
	// not missing.
	rep, err := s.AuditCopy(ctx, AuditRequest{Dest: dir, Target: rl})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Same != 3 || len(rep.SameURIs) != 3 || len(rep.Missing) != 0 || rep.OutOfSelection() != len(entries)-3 || !rep.InSync() {
		t.Errorf("audit: same %d %q, missing %d, out of selection %d", rep.Same, rep.SameURIs, len(rep.Missing), rep.OutOfSelection())
	}
	limited, err := s.AuditCopy(ctx, AuditRequest{Dest: dir, Target: rl, Only: only[:2]})
	if err != nil {
		t.Fatal(err)
	}
	if limited.Same != 2 || len(limited.Missing) != 0 || limited.NotChosen != len(entries)-2 {
		t.Errorf("limited audit: same %d, missing %d, not chosen %d", limited.Same, len(limited.Missing), limited.NotChosen)
	}
}

// esc during a run: the run stops cleanly, the sync can be closed while it
// returns, and the destination is free afterwards.
func TestSyncCancelAndClose(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 400, ListSize: 1000})
	rl := srv.URL + "/dataset1/resourcelist.xml"
	dir := t.TempDir()
	j := s.NewSync(SyncRequest{Dest: dir, Target: rl})
	if _, err := j.Plan(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // stopped before it began: nothing is fetched
	res, err := j.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != "interrupted" || res.Finished {
		t.Errorf("stopped %q, finished %v", res.Stopped, res.Finished)
	}
	j.Close()
	// Free again: a new sync continues.
	k := s.NewSync(SyncRequest{Dest: dir, Target: rl})
	defer k.Close()
	p, err := k.Plan(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	if p.Summary.Create == 0 {
		t.Errorf("the next plan: %+v", p.Summary)
	}
}

// The local state of each entry: same, changed at the Source, missing,
// modified locally, gone.
func TestLocalStates(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 60, ListSize: 1000})
	rl := srv.URL + "/dataset1/resourcelist.xml"
	entries := demoEntries(t, rl)
	dir := t.TempDir()
	ctx := context.Background()

	// Before anything is copied (no state at all): every entry missing.
	tbl := model.NewEntryTable()
	for i := range 4 {
		tbl.Append(&entries[i])
	}
	got := localStates(t, s, LocalRequest{Dest: dir, Target: rl, Base: rl, Entries: tbl})
	if want := "missing missing missing missing"; got != want {
		t.Errorf("no copy yet: %s", got)
	}

	j := s.NewSync(SyncRequest{Dest: dir, Target: rl, Only: []string{entries[0].Loc, entries[1].Loc, entries[2].Loc}})
	if _, err := j.Plan(ctx, false); err != nil {
		t.Fatal(err)
	}
	if res, err := j.Run(ctx); err != nil || !res.OK() {
		t.Fatalf("sync: %v %+v", err, res)
	}
	j.Close()

	// Entry 1's copy is edited (same size); entry 2 as the Source would
	// declare it after a change; a deleted change of entry 0 and of one
	// never copied.
	mapper, err := pathmap.New(pathmap.Options{AllowOtherHosts: true})
	if err != nil {
		t.Fatal(err)
	}
	rel, err := mapper.Map(entries[1].Loc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, filepath.FromSlash(rel))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x20
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Hour)
	os.Chtimes(path, future, future)

	changed := entries[2]
	changed.MD.Hash, _ = model.ParseHashList("md5:00000000000000000000000000000000")
	deleted := model.Entry{Loc: entries[0].Loc, HasLoc: true, MD: model.Metadata{Change: model.ChangeDeleted}}
	deletedNever := model.Entry{Loc: entries[5].Loc, HasLoc: true, MD: model.Metadata{Change: model.ChangeDeleted}}
	tbl = model.NewEntryTable()
	for _, e := range []model.Entry{entries[0], entries[1], changed, entries[3], deleted, deletedNever} {
		tbl.Append(&e)
	}
	got = localStates(t, s, LocalRequest{Dest: dir, Target: rl, Base: rl, Entries: tbl})
	// Entry 3 was never chosen: a copy of chosen entries does not claim it
	// (out of its selection, as the audit says), it is not missing.
	if want := "same modified-locally changed-at-the-Source outside-the-copy's-selection changed-at-the-Source gone"; got != want {
		t.Errorf("states:\n%s\nwant:\n%s", got, want)
	}
	// A file removed is missing.
	os.Remove(path)
	if got := localStates(t, s, LocalRequest{Dest: dir, Target: rl, Base: rl, Entries: tbl}); !strings.HasPrefix(got, "same missing ") {
		t.Errorf("after the file was removed: %s", got)
	}

	// Another Source's entries against this copy: not every one
	// "missing" (the copy is none of theirs), a *NoCopyError naming the
	// Source it holds.
	rl2 := srv.URL + "/dataset2/resourcelist.xml"
	other := model.NewEntryTable()
	for _, e := range demoEntries(t, rl2)[:3] {
		other.Append(&e)
	}
	err = s.LocalStates(ctx, LocalRequest{Dest: dir, Target: rl2, Base: rl2, Entries: other}, func(b LocalBatch) {
		t.Errorf("states of another Source's entries: %+v", b)
	})
	var noCopy *engine.NoCopyError
	if !errors.As(err, &noCopy) || len(noCopy.Holds) != 1 || !strings.HasSuffix(noCopy.Holds[0], "/dataset1/capabilitylist.xml") ||
		!strings.HasSuffix(noCopy.Source, "/dataset2/capabilitylist.xml") {
		t.Errorf("another Source's entries: %v (%+v)", err, noCopy)
	}
}

func localStates(t *testing.T, s *Session, req LocalRequest) string {
	t.Helper()
	states := make([]string, req.Entries.Len())
	next := 0
	err := s.LocalStates(context.Background(), req, func(b LocalBatch) {
		if b.From != next {
			t.Errorf("batch from %d, want %d", b.From, next)
		}
		for i, st := range b.States {
			states[b.From+i] = strings.ReplaceAll(st.String(), " ", "-")
		}
		next = b.From + len(b.States)
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(states, " ")
}

// A spot check of entries keeps each resource whole.
func TestSpotCheck(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 40, ListSize: 1000})
	rl := srv.URL + "/dataset1/resourcelist.xml"
	entries := demoEntries(t, rl)[:5]
	var calls int
	rep, err := s.SpotCheck(context.Background(), SpotRequest{From: rl, Entries: entries}, func(spotcheck.Progress) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Checked != 5 || len(rep.Resources) != 5 || rep.Failed != 0 || calls == 0 {
		t.Errorf("checked %d, kept %d, failed %d, progress calls %d", rep.Checked, len(rep.Resources), rep.Failed, calls)
	}
	for _, r := range rep.Resources {
		if r.Verdict != claims.OK || len(r.Result.Primary().Checks) == 0 {
			t.Errorf("%s: %v, %d checks", r.URL, r.Verdict, len(r.Result.Primary().Checks))
		}
	}
	if _, err := NewWithGetter(mapGetter{}, Options{}).SpotCheck(context.Background(), SpotRequest{Entries: entries}, nil); err == nil {
		t.Error("a session without a client checked resources")
	}
}

// A plan shown and cancelled leaves nothing in DEST: the explorer's :sync
// into a folder that did not exist, then esc.
func TestSyncPlanCancelledLeavesNothing(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 40, ListSize: 1000})
	dir := filepath.Join(t.TempDir(), "copy")
	j := s.NewSync(SyncRequest{Dest: dir, Target: srv.URL + "/dataset1/resourcelist.xml"})
	p, err := j.Plan(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	if p.Summary.Create == 0 {
		t.Errorf("plan %+v", p.Summary)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the destination of a cancelled plan is there: %v", err)
	}
}

// TestLocalStatesAgreeWithAudit: the explorer's :dest column and :audit of
// the same copy sort the Source's resources alike: what the copy's
// selection leaves out (entries never chosen in a copy of marked entries;
// entries --include leaves out of a baseline) is outside the selection in
// both, and what the copy claims and lacks is missing in both.
func TestLocalStatesAgreeWithAudit(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 40, ListSize: 1000})
	rl := srv.URL + "/dataset1/resourcelist.xml"
	entries := demoEntries(t, rl)
	ctx := context.Background()
	tbl := model.NewEntryTable()
	for i := range entries {
		tbl.Append(&entries[i])
	}
	count := func(states string) map[string]int {
		n := map[string]int{}
		for _, st := range strings.Fields(states) {
			n[st]++
		}
		return n
	}
	check := func(t *testing.T, dir string, wantOutside, wantMissing int) {
		t.Helper()
		got := count(localStates(t, s, LocalRequest{Dest: dir, Target: rl, Base: rl, Entries: tbl}))
		rep, err := s.AuditCopy(ctx, AuditRequest{Dest: dir, Target: rl})
		if err != nil {
			t.Fatal(err)
		}
		defer rep.Close()
		if got["outside-the-copy's-selection"] != wantOutside || got["missing"] != wantMissing {
			t.Errorf(":dest states %v; want %d outside the selection, %d missing", got, wantOutside, wantMissing)
		}
		if rep.OutOfSelection() != wantOutside || len(rep.Missing) != wantMissing {
			t.Errorf("audit: %d out of the selection, missing %v; want %d and %d", rep.OutOfSelection(), rep.Missing, wantOutside, wantMissing)
		}
	}

	t.Run("marked entries", func(t *testing.T) {
		dir := t.TempDir()
		j := s.NewSync(SyncRequest{Dest: dir, Target: rl, Only: []string{entries[0].Loc, entries[7].Loc}})
		if _, err := j.Plan(ctx, false); err != nil {
			t.Fatal(err)
		}
		if res, err := j.Run(ctx); err != nil || !res.OK() {
			t.Fatalf("sync: %v %+v", err, res)
		}
		j.Close()
		check(t, dir, len(entries)-2, 0)
		// A copied file removed: missing in both.
		mapper, _ := pathmap.New(pathmap.Options{AllowOtherHosts: true})
		rel, _ := mapper.Map(entries[7].Loc)
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			t.Fatal(err)
		}
		check(t, dir, len(entries)-2, 1)
	})

	t.Run("--include", func(t *testing.T) {
		dir := t.TempDir()
		st, err := store.OpenDir(dir, store.Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		client, err := fetch.NewClient(fetch.Options{NoCache: true, Netrc: "-"})
		if err != nil {
			t.Fatal(err)
		}
		es, err := engine.Open(ctx, st, client, engine.Options{})
		if err != nil {
			st.Close()
			t.Fatal(err)
		}
		// The demo's resources are …/000001.html, …: those up to 9.
		p, err := es.Plan(ctx, rl, engine.PlanOptions{Selection: &state.Selection{Include: []string{`/00000\d\.`}}})
		if err == nil {
			var res *engine.Result
			res, err = es.Run(ctx, p)
			p.Close()
			if err == nil && !res.OK() {
				err = fmt.Errorf("sync failed: %+v", res.Failed)
			}
		}
		es.Close()
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		chosen := 0
		for _, e := range entries {
			if regexp.MustCompile(`/00000\d\.`).MatchString(e.Loc) {
				chosen++
			}
		}
		if files := copyFiles(t, dir); len(files) != chosen || chosen == 0 {
			t.Fatalf("the copy holds %d files, want %d: %q", len(files), chosen, files)
		}
		check(t, dir, len(entries)-chosen, 0)
	})
}

// The explorer's repair of stray files: the audit page's s hands the sync
// the stray files the audit found (SyncRequest.Strays) with no resource to
// copy; a plan without deletions leaves them, one with deletions lists
// them and moves nothing, and the run moves them to the trash.
func TestSyncMovesTheStrayFilesAnAuditFound(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 60})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dir := t.TempDir()
	ctx := context.Background()
	j := s.NewSync(SyncRequest{Dest: dir, Target: target})
	if _, err := j.Plan(ctx, false); err != nil {
		t.Fatal(err)
	}
	if res, err := j.Run(ctx); err != nil || !res.OK() {
		t.Fatalf("sync: %v", err)
	}
	j.Close()
	files := copyFiles(t, dir)
	stray := filepath.Join(dir, filepath.Dir(files[0]), "stray.txt")
	if err := os.WriteFile(stray, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := s.AuditCopy(ctx, AuditRequest{Dest: dir, Target: target})
	if err != nil || len(rep.Stray) != 1 {
		t.Fatalf("audit: stray %q, %v", rep.Stray, err)
	}
	j = s.NewSync(SyncRequest{Dest: dir, Target: target, Only: []string{}, Strays: rep.Stray})
	defer j.Close()
	p, err := j.Plan(ctx, false)
	if err != nil || p.StrayLooked {
		t.Fatalf("plan without deletions: looked %v, %v", p.StrayLooked, err)
	}
	p, err = j.Plan(ctx, true)
	if err != nil || !p.StrayLooked || p.Summary.Trash != 1 || p.Summary.Work() != 0 {
		t.Fatalf("plan with deletions: looked %v, trash %d, work %d, %v", p.StrayLooked, p.Summary.Trash, p.Summary.Work(), err)
	}
	if _, err := os.Stat(stray); err != nil {
		t.Fatalf("the plan moved the stray file: %v", err)
	}
	res, err := j.Run(ctx)
	if err != nil || !res.OK() || res.Trashed != 1 {
		t.Fatalf("run: trashed %d, %v", res.Trashed, err)
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Errorf("the stray file after the run: %v", err)
	}
}
