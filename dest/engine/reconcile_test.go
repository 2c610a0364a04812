package engine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rsx/demo"
	"rsx/dest/plan"
	"rsx/dest/store"
)

// damage deletes the copy of /r/a and overwrites that of /r/b (same length,
// other bytes, as a bit flip or a hand edit would), dating the change a
// little later so that the file is seen modified after it was written.
func damage(t *testing.T, f *fakeSource, dir string) {
	t.Helper()
	if err := os.Remove(filepath.Join(dir, f.hostDir(), "r", "a")); err != nil {
		t.Fatal(err)
	}
	pb := filepath.Join(dir, f.hostDir(), "r", "b")
	if err := os.WriteFile(pb, []byte("B V1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(pb, later, later); err != nil {
		t.Fatal(err)
	}
}

// silentDamage overwrites the file at p with body (of the same length) and
// gives it back its modification time moved by shift: damage that only a
// hash, or a time compared exactly, shows.
func silentDamage(t *testing.T, p string, body []byte, shift time.Duration) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, body, 0o644); err != nil {
		t.Fatal(err)
	}
	at := fi.ModTime().Add(shift)
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
}

// A damaged copy was trusted over its files: a baseline and an audit
// disagreed. A baseline on a copy reconciles: the file that is gone and the
// one overwritten are fetched again, nothing else, and audit then agrees.
func TestBaselineReconcilesADamagedCopy(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() || res.Created != 3 {
		t.Fatalf("baseline: %d:%s", res.Created, failures(res))
	}
	damage(t, f, dir)
	if rep := auditOnce(t, dir, testClient(t), f.target()); rep.InSync() || len(rep.Damaged) != 2 {
		t.Fatalf("audit of the damaged copy: in sync %v, damaged %q", rep.InSync(), rep.Damaged)
	}
	f.resetHits()
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Mode: ModeBaseline})
	if !res.OK() || !res.Plan.Reconcile || res.Updated != 2 || res.Plan.Summary.Repair != 2 || res.Plan.Summary.Unchanged != 1 {
		t.Fatalf("reconcile: reconcile %v, updated %d, repair %d, unchanged %d:%s", res.Plan.Reconcile, res.Updated, res.Plan.Summary.Repair, res.Plan.Summary.Unchanged, failures(res))
	}
	if f.hitsOf("/r/a") != 1 || f.hitsOf("/r/b") != 1 || f.hitsOf("/r/c") != 0 {
		t.Errorf("requests a %d b %d c %d: only the damaged are fetched", f.hitsOf("/r/a"), f.hitsOf("/r/b"), f.hitsOf("/r/c"))
	}
	for _, n := range []string{"a", "b"} {
		if got := string(readFile(t, dir, f.hostDir()+"/r/"+n)); got != n+" v1\n" {
			t.Errorf("/r/%s after the reconcile: %q", n, got)
		}
	}
	if rep := auditOnce(t, dir, testClient(t), f.target()); !rep.InSync() {
		t.Errorf("audit after the reconcile: missing %q changed %q damaged %q", rep.Missing, rep.Changed, rep.Damaged)
	}
	// An intact copy: nothing is fetched.
	f.resetHits()
	res = syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Mode: ModeBaseline})
	if !res.OK() || res.Plan.Summary.Work() != 0 || f.resourceHits() != 0 || res.Plan.Summary.Checked != 3 {
		t.Errorf("reconcile of an intact copy: %+v, %d requests", res.Plan.Summary, f.resourceHits())
	}
}

// Damage that keeps the length and the modification time is found by
// --checksum, which hashes every file.
func TestChecksumFindsSilentDamage(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	silentDamage(t, filepath.Join(dir, f.hostDir(), "r", "c"), []byte("c V1\n"), 0)
	quick := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Mode: ModeBaseline})
	if !quick.OK() || quick.Plan.Summary.Repair != 0 || quick.Plan.Summary.Hashed != 0 {
		t.Fatalf("the quick check hashed %d and found %d", quick.Plan.Summary.Hashed, quick.Plan.Summary.Repair)
	}
	// --checksum in mode auto reconciles, and hashes every file.
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Checksum: true})
	if !res.OK() || !res.Plan.Reconcile || res.Plan.Summary.Hashed != 3 || res.Plan.Summary.Repair != 1 || res.Updated != 1 {
		t.Fatalf("--checksum: %+v:%s", res.Plan.Summary, failures(res))
	}
	if got := string(readFile(t, dir, f.hostDir()+"/r/c")); got != "c v1\n" {
		t.Errorf("/r/c after --checksum: %q", got)
	}
	if rep := auditOnce(t, dir, testClient(t), f.target()); !rep.InSync() {
		t.Errorf("audit after --checksum: changed %q damaged %q", rep.Changed, rep.Damaged)
	}
	// --checksum with --mode incremental is refused: it is no reconcile.
	sess := openSession(t, dir, testClient(t), Options{})
	defer sess.Close()
	if _, err := sess.Plan(context.Background(), f.target(), PlanOptions{Mode: ModeIncremental, Checksum: true}); err == nil || !strings.Contains(err.Error(), "--checksum") {
		t.Errorf("--checksum --mode incremental: %v", err)
	}
}

// A gap no longer proposes a new baseline in mode auto: the copy is
// reconciled with the Resource List and the changes after it, so that only
// what changed is fetched, and the plan says why.
func TestAutoReconcilesAcrossAGap(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	// The Source dropped the lists that covered 10:00 to 12:00; its
	// Resource List is of 11:00, and a change of 12:30 follows it.
	f.setDoc("/cl.xml", changeListIndex("2030-01-01T12:00:00Z", [3]string{"/cl9.xml", "2030-01-01T12:00:00Z", ""}))
	f.setDoc("/cl9.xml", changeList("2030-01-01T12:00:00Z", "",
		clEntry("/r/a", "updated", "2030-01-01T12:30:00Z", []byte("a v3\n")),
		clEntry("/r/d", "created", "2030-01-01T12:31:00Z", []byte("d v1\n"))))
	f.setRes("/r/a", []byte("a v3\n"))
	f.setRes("/r/b", []byte("b v2\n"))
	f.setRes("/r/d", []byte("d v1\n"))
	f.setDoc("/rl.xml", resourceList("2030-01-01T11:00:00Z",
		rlEntry("/r/a", []byte("a v2\n"), "2030-01-01T10:30:00Z"),
		rlEntry("/r/b", []byte("b v2\n"), "2030-01-01T10:40:00Z"),
		rlEntry("/r/c", []byte("c v1\n"), "2030-01-01T09:00:00Z")))
	f.resetHits()
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !res.OK() || res.Plan.Gap != nil || !res.Plan.Reconcile || !strings.Contains(res.Plan.ReconcileWhy, "no Change List covers") {
		t.Fatalf("auto across a gap: ok %v, gap %v, reconcile %v (%q):%s", res.OK(), res.Plan.Gap, res.Plan.Reconcile, res.Plan.ReconcileWhy, failures(res))
	}
	if res.Updated != 2 || res.Created != 1 || f.hitsOf("/r/c") != 0 {
		t.Errorf("updated %d created %d, /r/c fetched %d times", res.Updated, res.Created, f.hitsOf("/r/c"))
	}
	for p, want := range map[string]string{"a": "a v3\n", "b": "b v2\n", "c": "c v1\n", "d": "d v1\n"} {
		if got := string(readFile(t, dir, f.hostDir()+"/r/"+p)); got != want {
			t.Errorf("/r/%s: %q, want %q", p, got, want)
		}
	}
	if rep := auditOnce(t, dir, testClient(t), f.target()); !rep.InSync() {
		t.Errorf("audit after the reconcile: missing %q changed %q extra %q", rep.Missing, rep.Changed, rep.Extra)
	}
}

// Change Lists without from (resync-build writes none) made every run a
// gap, so a copy could never be kept current. Mode auto reconciles, says
// why, and the copy follows the Source run after run.
func TestAutoReconcilesWhenChangeListsGiveNoFrom(t *testing.T) {
	f := newChangingSource(t)
	f.setDoc("/cap.xml", capList(map[string]string{"resourcelist": "/rl.xml", "changelist": "/nofrom.xml"}))
	f.setDoc("/nofrom.xml", urlsetOpen+`<rs:md capability="changelist"/>`+"\n</urlset>\n")
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	for round, v := range []string{"v2", "v3"} {
		f.setDoc("/nofrom.xml", urlsetOpen+`<rs:md capability="changelist"/>`+"\n"+
			clEntry("/r/a", "updated", "2030-01-01T1"+string(rune('1'+round))+":30:00Z", []byte("a "+v+"\n"))+
			clEntry("/r/c", "deleted", "2030-01-01T11:31:00Z", nil)+"</urlset>\n")
		f.setRes("/r/a", []byte("a "+v+"\n"))
		res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Delete: true})
		if !res.OK() || !res.Plan.Reconcile || !strings.Contains(res.Plan.ReconcileWhy, "give no from") {
			t.Fatalf("round %d: ok %v, reconcile %v %q:%s", round, res.OK(), res.Plan.Reconcile, res.Plan.ReconcileWhy, failures(res))
		}
		if got := string(readFile(t, dir, f.hostDir()+"/r/a")); got != "a "+v+"\n" {
			t.Errorf("round %d: /r/a %q", round, got)
		}
		if got := files(t, dir); len(got) != 2 {
			t.Errorf("round %d: files %v (c deleted)", round, got)
		}
		if rep := auditOnce(t, dir, testClient(t), f.target()); !rep.InSync() {
			t.Errorf("round %d: audit: missing %q changed %q extra %q", round, rep.Missing, rep.Changed, rep.Extra)
		}
	}
}

// The explorer's repair: a run limited to chosen resources (the audit page's
// differences, or marked rows) fetches a damaged or missing copy again,
// where it said "nothing to change".
func TestLimitedRunRepairsChosenDamage(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	damage(t, f, dir)
	base := f.srv.URL
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Only: plan.NewURISet([]string{base + "/r/a", base + "/r/b"})})
	if !res.OK() || res.Updated != 2 || res.Finished {
		t.Fatalf("limited repair: updated %d, finished %v: %+v:%s", res.Updated, res.Finished, res.Plan.Summary, failures(res))
	}
	if rep := auditOnce(t, dir, testClient(t), f.target()); !rep.InSync() {
		t.Errorf("audit after the repair: missing %q changed %q", rep.Missing, rep.Changed)
	}
}

// A loc with a stray "%" (resync-build writes http://h/100%.txt for a file
// of that name, and the web server serves it) is copied, as a browser would
// request it, and audit agrees; the run no longer says ✓ over a refusal.
func TestStrayPercentIsCopied(t *testing.T) {
	f := newChangingSource(t)
	f.setRes("/r/100%25.txt", []byte("hundred\n"))
	f.setDoc("/rl.xml", resourceList("2030-01-01T10:00:00Z",
		rlEntry("/r/a", []byte("a v1\n"), "2030-01-01T09:00:00Z"),
		strings.Replace(rlEntry("/r/100%25.txt", []byte("hundred\n"), "2030-01-01T09:00:00Z"), "100%25", "100%", 1)))
	dir := t.TempDir()
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !res.OK() || res.Created != 2 || res.Plan.Summary.Refused != 0 {
		t.Fatalf("created %d, refused %v:%s", res.Created, res.Plan.Refused, failures(res))
	}
	if got := string(readFile(t, dir, f.hostDir()+"/r/100%25.txt")); got != "hundred\n" {
		t.Errorf("the copy: %q", got)
	}
	if rep := auditOnce(t, dir, testClient(t), f.target()); !rep.InSync() {
		t.Errorf("audit: missing %q unannounced %q", rep.Missing, rep.Unannounced)
	}
}

// What sync leaves out on purpose, audit counts out of the selection; what
// it cannot copy fails the run. A resource on another host is refused and
// the run is OK, and audit calls it neither missing nor unannounced; a loc
// that maps to no path (not http) fails the run, and audit calls it missing.
func TestSyncAndAuditAgreeOnWhatIsLeftOut(t *testing.T) {
	other := newFakeSource(t)
	other.setRes("/x", []byte("elsewhere\n"))
	f := newChangingSource(t)
	f.setDoc("/rl.xml", resourceList("2030-01-01T10:00:00Z",
		rlEntry("/r/a", []byte("a v1\n"), "2030-01-01T09:00:00Z"),
		strings.Replace(rlEntry("/x", []byte("elsewhere\n"), "2030-01-01T09:00:00Z"), "{{base}}", other.srv.URL, 1)))
	dir := t.TempDir()
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !res.OK() || res.Created != 1 || res.Plan.Summary.Refused != 1 || res.Plan.Summary.Unmapped != 0 {
		t.Fatalf("sync: ok %v, created %d, %+v:%s", res.OK(), res.Created, res.Plan.Summary, failures(res))
	}
	rep := auditOnce(t, dir, testClient(t), f.target())
	if !rep.InSync() || len(rep.Missing) != 0 || len(rep.Unannounced) != 0 || rep.OutOfSelection() != 1 {
		t.Errorf("audit: in sync %v, missing %q, unannounced %q, out of selection %d", rep.InSync(), rep.Missing, rep.Unannounced, rep.OutOfSelection())
	}

	f.setDoc("/rl.xml", resourceList("2030-01-01T10:00:00Z",
		rlEntry("/r/a", []byte("a v1\n"), "2030-01-01T09:00:00Z"),
		`<url><loc>ftp://ftp.example.org/y</loc><rs:md length="3"/></url>`+"\n"))
	res = syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Mode: ModeBaseline})
	if res.OK() || res.Plan.Summary.Unmapped != 1 {
		t.Errorf("a resource that cannot be copied: ok %v, %+v", res.OK(), res.Plan.Summary)
	}
	if rep := auditOnce(t, dir, testClient(t), f.target()); rep.InSync() || len(rep.Missing) != 1 {
		t.Errorf("audit: in sync %v, missing %q: %+v", rep.InSync(), rep.Missing, rep)
	}
}

// Whatever audit finds, the next sync puts right, also a plain sync (mode
// auto, which would otherwise be incremental) and silent damage only a hash
// shows: the audit records what it found, the sync reconciles and says why,
// and once the copy is in sync again the next sync is incremental.
func TestSyncPutsRightWhatAuditFound(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	silentDamage(t, filepath.Join(dir, f.hostDir(), "r", "c"), []byte("c V1\n"), 0)
	if err := os.Remove(filepath.Join(dir, f.hostDir(), "r", "a")); err != nil {
		t.Fatal(err)
	}
	if rep := auditOnce(t, dir, testClient(t), f.target()); rep.InSync() || len(rep.Damaged) != 2 {
		t.Fatalf("audit: in sync %v, damaged %q", rep.InSync(), rep.Damaged)
	}
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !res.OK() || !res.Plan.Reconcile || !strings.Contains(res.Plan.ReconcileWhy, "found the copy not in sync") || res.Updated != 2 {
		t.Fatalf("the sync after the audit: reconcile %v %q, updated %d:%s", res.Plan.Reconcile, res.Plan.ReconcileWhy, res.Updated, failures(res))
	}
	if rep := auditOnce(t, dir, testClient(t), f.target()); !rep.InSync() {
		t.Errorf("audit after the sync: changed %q missing %q", rep.Changed, rep.Missing)
	}
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() || res.Plan.Reconcile || res.Plan.Mode != ModeIncremental {
		t.Errorf("the sync after that: mode %s, reconcile %v (%q)", res.Plan.Mode, res.Plan.Reconcile, res.Plan.ReconcileWhy)
	}
}

// Same-length damage made right after the copy was written (within the
// second its fetched_at holds) is found without --checksum: the state keeps
// the file's exact modification time, and a file whose time differs is
// hashed, as rsync's quick check does.
func TestQuickCheckComparesExactModificationTimes(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	// Another time, but not a later second than the write's.
	silentDamage(t, filepath.Join(dir, f.hostDir(), "r", "b"), []byte("B V1\n"), -time.Millisecond)
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Mode: ModeBaseline})
	if !res.OK() || res.Plan.Summary.Hashed != 1 || res.Plan.Summary.Repair != 1 || res.Updated != 1 {
		t.Fatalf("reconcile: %+v:%s", res.Plan.Summary, failures(res))
	}
	if got := string(readFile(t, dir, f.hostDir()+"/r/b")); got != "b v1\n" {
		t.Errorf("/r/b: %q", got)
	}
	// The file written again has its own time recorded: the next check
	// hashes nothing.
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Mode: ModeBaseline}); !res.OK() || res.Plan.Summary.Hashed != 0 {
		t.Errorf("the next reconcile hashed %d", res.Plan.Summary.Hashed)
	}
}

// The checkers read the rows of the resources they check a batch at a time:
// damage in the first batch, in later ones and in the last, partial one is
// each found, by the quick check and by --checksum (whose batches are
// smaller), and only the damaged are fetched.
func TestReconcileChecksInBatches(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 1000})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dir := t.TempDir()
	res := syncOnce(t, dir, testClient(t), target, PlanOptions{})
	if !res.OK() || res.Created <= 3*statBatch {
		t.Fatalf("baseline: %d created (want more than %d):%s", res.Created, 3*statBatch, failures(res))
	}
	all := files(t, dir)
	n := len(all)
	// Gone, truncated, and (for --checksum) the same length and time.
	gone := []string{all[0], all[statBatch+1], all[n-1]}
	short := all[2*statBatch+5]
	silent := []string{all[readBatch+3], all[n-2]}
	for _, p := range gone {
		if err := os.Remove(filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Truncate(filepath.Join(dir, short), 1); err != nil {
		t.Fatal(err)
	}
	for _, p := range silent {
		fp := filepath.Join(dir, p)
		fi, err := os.Stat(fp)
		if err != nil {
			t.Fatal(err)
		}
		b := readFile(t, dir, p)
		b[0] ^= 0x20
		if err := os.WriteFile(fp, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(fp, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name     string
		opts     PlanOptions
		repaired int
		hashed   int
	}{
		{"quick check", PlanOptions{Mode: ModeBaseline}, len(gone) + 1, 0},
		{"checksum", PlanOptions{Checksum: true}, len(silent), n},
		{"intact", PlanOptions{Checksum: true}, 0, n},
	} {
		c, cnt := countingClient(t)
		res := syncOnce(t, dir, c, target, tc.opts)
		s := res.Plan.Summary
		if !res.OK() || !res.Plan.Reconcile || s.Checked != n || s.Repair != tc.repaired || res.Updated != tc.repaired || s.Hashed != tc.hashed {
			t.Errorf("%s: checked %d of %d, repaired %d, updated %d (want %d), hashed %d (want %d):%s",
				tc.name, s.Checked, n, s.Repair, res.Updated, tc.repaired, s.Hashed, tc.hashed, failures(res))
		}
		if got := cnt.count("/dataset1/res/"); got != tc.repaired {
			t.Errorf("%s fetched %d resources, want %d", tc.name, got, tc.repaired)
		}
	}
	if got := files(t, dir); len(got) != n {
		t.Errorf("%d files after the reconciles, want %d", len(got), n)
	}
}

// A copy whose recorded path is not the one the rules give its URI now (a
// state written by an older rsx, another --index-name) is checked at its
// recorded path, which the quick check takes from the plan's Index: intact
// there, nothing is fetched; damaged there, it is fetched again to that
// path.
func TestQuickCheckUsesTheRecordedPath(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() || res.Created != 3 {
		t.Fatalf("baseline: %d:%s", res.Created, failures(res))
	}
	old := filepath.Join(dir, f.hostDir(), "r", "c")
	moved := filepath.Join(dir, "elsewhere", "c")
	if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(old, moved); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", filepath.Join(dir, ".rsx", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = raw.Exec(`UPDATE resource SET path = 'elsewhere/c', path_key = 'elsewhere/c' WHERE uri LIKE '%/r/c'`)
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	f.resetHits()
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Mode: ModeBaseline})
	if s := res.Plan.Summary; !res.OK() || !res.Plan.Reconcile || s.Checked != 3 || s.Repair != 0 || f.resourceHits() != 0 {
		t.Fatalf("reconcile of the intact copy: checked %d, repair %d, %d fetched:%s", s.Checked, s.Repair, f.resourceHits(), failures(res))
	}
	if err := os.Truncate(moved, 1); err != nil {
		t.Fatal(err)
	}
	res = syncOnce(t, dir, testClient(t), f.target(), PlanOptions{Mode: ModeBaseline})
	if s := res.Plan.Summary; !res.OK() || s.Repair != 1 || res.Updated != 1 || f.hitsOf("/r/c") != 1 {
		t.Fatalf("reconcile of the damaged copy: repair %d, updated %d, /r/c fetched %d times:%s", s.Repair, res.Updated, f.hitsOf("/r/c"), failures(res))
	}
	if got := string(readFile(t, dir, "elsewhere/c")); got != "c v1\n" {
		t.Errorf("elsewhere/c after the reconcile: %q", got)
	}
}

// TestReconcileStateHoldsNoRows: every reconcile plans with state.Copies,
// which holds nothing per row, not with the Index loaded in memory (72
// bytes a row and more: the 1M cycle's bucket reconcile peaked at 323 MiB
// with it); --checksum reads the rows by id (a bucket's quick check does
// not: TestBucketReconcileReadsNoRows).
func TestReconcileStateHoldsNoRows(t *testing.T) {
	folder := openSession(t, t.TempDir(), testClient(t), Options{})
	dir, err := store.OpenDir(t.TempDir(), store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	bucket, err := Open(context.Background(), bucketNamed{dir}, testClient(t), Options{Now: fixtureClock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bucket.Close(); dir.Close() })
	for _, c := range []struct {
		name      string
		s         *Dest
		reconcile bool
		checksum  bool
		want      string
	}{
		{"quick reconcile", folder, true, false, "*state.Copies"},
		{"--checksum", folder, true, true, "*state.Copies"},
		{"a bucket's reconcile", bucket, true, false, "*state.Copies"},
		{"a baseline into an empty copy", folder, false, false, "*state.View"},
	} {
		b := &builder{s: c.s, p: &Plan{Reconcile: c.reconcile, Checksum: c.checksum}}
		st, err := b.snapshotState(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%T", st); got != c.want {
			t.Errorf("%s: plans with %s, want %s", c.name, got, c.want)
		}
	}
}

// bucketNamed is a folder's store that names itself as a bucket does (what
// Dest.isBucket reads).
// bucketNamed is a folder that says it is a bucket (store.Features).
type bucketNamed struct{ store.Store }

func (bucketNamed) String() string { return "s3://bucket/copy" }

func (b bucketNamed) Features() store.Features {
	f := b.Store.Features()
	f.Bucket, f.ModTimes, f.Local, f.Discard = true, false, "", nil
	return f
}

// unlistable is a bucketNamed store whose listing is refused, as a key
// allowed to read objects but not to list the bucket is.
type unlistable struct{ bucketNamed }

func (unlistable) Walk(context.Context, func(store.FileInfo) error) error {
	return errors.New("AccessDenied: listing refused")
}

// A bucket records no file time, and its quick check compares the length
// alone, which the plan's row (state.Copies) gives: its checkers read no
// row again by id, whether the copy is listed or each object looked at by
// itself (a listing refused). They read every row: a query a
// batch of 32 in each of 16 checkers, that is 16 connections, each with a
// page cache of up to 16 MiB, most of the 281 MiB the 1M cycle's bucket
// reconcile peaked at. A copy gone or of another length is still found and
// fetched again.
func TestBucketReconcileReadsNoRows(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 600})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	for _, c := range []struct {
		name     string
		unlisted bool
	}{
		{"each object looked at", true},
		{"listed", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			run := func(po PlanOptions) (*Result, int64) {
				t.Helper()
				st, err := store.OpenDir(dir, store.Options{Create: true})
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				var named store.Store = bucketNamed{st}
				if c.unlisted && po.Mode == ModeBaseline {
					named = unlistable{bucketNamed{st}}
				}
				s, err := Open(context.Background(), named, testClient(t), Options{Now: fixtureClock})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				p, err := s.Plan(context.Background(), target, po)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				res, err := s.Run(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				return res, s.DB().CopiesReadByID()
			}
			res, _ := run(PlanOptions{})
			n := res.Created
			if !res.OK() || n < 3*readBatch {
				t.Fatalf("baseline: %d created:%s", n, failures(res))
			}
			// As a bucket records its copies: no file time.
			raw, err := sql.Open("sqlite", filepath.Join(dir, ".rsx", "state.db"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = raw.Exec(`UPDATE resource SET file_mtime = NULL`)
			raw.Close()
			if err != nil {
				t.Fatal(err)
			}
			all := files(t, dir)
			if err := os.Remove(filepath.Join(dir, all[readBatch+1])); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(filepath.Join(dir, all[len(all)-1]), 1); err != nil {
				t.Fatal(err)
			}
			res, byID := run(PlanOptions{Mode: ModeBaseline})
			s := res.Plan.Summary
			if !res.OK() || !res.Plan.Reconcile || s.Checked != n || s.Repair != 2 || res.Updated != 2 {
				t.Errorf("reconcile: checked %d of %d, repaired %d, updated %d (want 2):%s", s.Checked, n, s.Repair, res.Updated, failures(res))
			}
			if byID != 0 {
				t.Errorf("the reconcile read %d rows again by id, want none (the plan's rows describe a bucket's copies)", byID)
			}
			if notes := strings.Join(res.Plan.Notes, "\n"); c.unlisted != strings.Contains(notes, "could not be listed") {
				t.Errorf("notes: %q", notes)
			}
		})
	}
}

// walkCounter is a bucketNamed store that counts its listings and the
// files they list.
type walkCounter struct {
	bucketNamed
	walks, listed int
}

func (w *walkCounter) Walk(ctx context.Context, fn func(store.FileInfo) error) error {
	w.walks++
	return w.bucketNamed.Walk(ctx, func(fi store.FileInfo) error {
		w.listed++
		return fn(fi)
	})
}

// A bucket's reconcile with --delete lists its copy once: the stray files
// of the Source's part (an object no resource owns; one the protect list
// keeps is counted apart) are found in the listing that quick-checks the
// copy, not by a second listing of the part, which at 1M objects on
// versitygw costs as much as the first. Files outside the Source's part
// are none of its business. (Before, the plan listed the part again.)
func TestBucketReconcileFindsStrayFilesInItsListing(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 300})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dir := t.TempDir()
	open := func() (*Dest, *walkCounter, func()) {
		t.Helper()
		st, err := store.OpenDir(dir, store.Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		w := &walkCounter{bucketNamed: bucketNamed{st}}
		s, err := Open(context.Background(), w, testClient(t), Options{Now: fixtureClock})
		if err != nil {
			st.Close()
			t.Fatal(err)
		}
		return s, w, func() { s.Close(); st.Close() }
	}
	s, _, closeDest := open()
	p, err := s.Plan(context.Background(), target, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), p)
	p.Close()
	closeDest()
	if err != nil || !res.OK() {
		t.Fatalf("baseline: %v:%s", err, failures(res))
	}
	n := res.Created
	host := strings.ReplaceAll(strings.TrimPrefix(srv.URL, "http://"), ":", "+")
	put := func(p, body string) {
		t.Helper()
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stray := host + "/dataset1/zz-stray.txt"
	put(stray, "stray")
	put(host+"/dataset1/keep/me.txt", "kept")
	put(ProtectFile, "/"+host+"/dataset1/keep/\n")
	put("notes.txt", "not the Source's")

	s, w, closeDest := open()
	defer closeDest()
	p, err = s.Plan(context.Background(), target, PlanOptions{Mode: ModeBaseline, Delete: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	sum := p.Summary
	if !p.Reconcile || sum.Checked != n || sum.Trash != 1 || sum.Protected != 1 || len(p.Strays) != 1 || p.Strays[0] != stray {
		t.Errorf("reconcile --delete: checked %d of %d, stray files %q (%d), %d protected; want [%s], 1 protected", sum.Checked, n, p.Strays, sum.Trash, sum.Protected, stray)
	}
	if w.walks != 1 || w.listed > n+4 {
		t.Errorf("the copy of %d files was listed %d times, %d files in all; want once", n, w.walks, w.listed)
	}
}
