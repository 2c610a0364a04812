package cli

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rsx/demo"
	"rsx/dest/store"
)

// syncOut is the contract's JSON of rsx sync, and some of the rest.
type syncOut struct {
	Mode      *string `json:"mode"`
	Source    *string `json:"source"`
	Dest      *string `json:"dest"`
	Created   *int    `json:"created"`
	Updated   *int    `json:"updated"`
	Deleted   *int    `json:"deleted"`
	Unchanged *int    `json:"unchanged"`
	Skipped   *int    `json:"skipped"`
	Failed    []struct {
		URL   *string `json:"url"`
		Error *string `json:"error"`
		Kind  string  `json:"kind"`
	} `json:"failed"`
	DryRun         bool    `json:"dry_run"`
	Finished       bool    `json:"finished"`
	PendingDeletes int     `json:"pending_deletes"`
	Excluded       int     `json:"excluded"`
	Stopped        *string `json:"stopped"`
	Gap            *struct {
		Proposal string `json:"proposal"`
	} `json:"gap"`
	Selection struct {
		Include []string `json:"include"`
	} `json:"selection"`
	SelectionReplaced bool `json:"selection_replaced"`
}

func (o syncOut) checkShape(t *testing.T) {
	t.Helper()
	if o.Mode == nil || o.Source == nil || o.Dest == nil || o.Created == nil || o.Updated == nil || o.Deleted == nil ||
		o.Unchanged == nil || o.Skipped == nil || o.Failed == nil {
		t.Fatalf("a required field is missing: %+v", o)
	}
	if *o.Mode != "baseline" && *o.Mode != "incremental" {
		t.Errorf("mode %q", *o.Mode)
	}
	for _, f := range o.Failed {
		if f.URL == nil || f.Error == nil {
			t.Errorf("failed entry without url or error: %+v", f)
		}
	}
}

// destAuditOut is the contract's JSON of rsx audit --dest.
type destAuditOut struct {
	InSync      *bool    `json:"in_sync"`
	Same        *int     `json:"same"`
	Missing     []string `json:"missing"`
	Changed     []string `json:"changed"`
	Extra       []string `json:"extra"`
	Unannounced []string `json:"unannounced"`
	Damaged     []string `json:"damaged"`
	Complete    *bool    `json:"complete"`
	Problems    []struct {
		URL   string `json:"url"`
		Error string `json:"error"`
	} `json:"problems"`
	OutOfSelection *int `json:"out_of_selection"`
	PendingDeletes int  `json:"pending_deletes"`
}

func (o destAuditOut) checkShape(t *testing.T) {
	t.Helper()
	if o.InSync == nil || o.Same == nil || o.Missing == nil || o.Changed == nil || o.Extra == nil || o.Unannounced == nil {
		t.Fatalf("a required field is missing: %+v", o)
	}
}

func advanceDemo(t *testing.T, base, steps string) {
	t.Helper()
	resp, err := http.Post(base+"/demo/advance?steps="+steps, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

func TestSyncCommand(t *testing.T) {
	base := startDemo(t, false)
	dest := t.TempDir()
	cap := base + "/dataset2/capabilitylist.xml"

	// A dry run plans and writes no resource.
	code, out, errs := runCmd(t, "sync", "--dest", dest, "--dry-run", "--json", cap)
	o := decodeOneJSON[syncOut](t, out, "sync")
	o.checkShape(t)
	if code != 0 || !o.DryRun || *o.Created == 0 || *o.Mode != "baseline" {
		t.Fatalf("dry run: exit %d, %+v, %s", code, o, errs)
	}
	if n := countFiles(t, dest); n != 0 {
		t.Fatalf("a dry run wrote %d files", n)
	}

	// The baseline, then an incremental after the clock moved.
	code, out, errs = runCmd(t, "sync", "--dest", dest, "--json", cap)
	o = decodeOneJSON[syncOut](t, out, "sync")
	o.checkShape(t)
	if code != 0 || *o.Created == 0 || !o.Finished || len(o.Failed) != 0 || *o.Source != cap {
		t.Fatalf("baseline: exit %d, %+v, %s", code, o, errs)
	}
	created := *o.Created
	if n := countFiles(t, dest); n != created {
		t.Errorf("%d files for %d created", n, created)
	}
	advanceDemo(t, base, "4")
	code, out, _ = runCmd(t, "sync", "--dest", dest, "--json", cap)
	o = decodeOneJSON[syncOut](t, out, "sync")
	if code != 0 || *o.Mode != "incremental" || *o.Created+*o.Updated == 0 {
		t.Fatalf("incremental: exit %d, %+v", code, o)
	}

	// The audit: in sync, with deletions remembered not applied it names
	// them extra; after --delete it is in sync.
	code, out, _ = runCmd(t, "audit", "--dest", dest, "--json", cap)
	a := decodeOneJSON[destAuditOut](t, out, "audit --dest")
	a.checkShape(t)
	if o.PendingDeletes == 0 {
		t.Fatal("the demo's four steps deleted nothing: the test needs a deletion kept by a sync without --delete")
	}
	if code != 0 || !*a.InSync || len(a.Extra) != o.PendingDeletes || a.PendingDeletes != o.PendingDeletes { // kept deletions: in sync (the contract's rule)
		t.Fatalf("audit: exit %d, %+v, pending %d", code, a, o.PendingDeletes)
	}
	code, _, _ = runCmd(t, "sync", "--dest", dest, "--delete", cap)
	if code != 0 {
		t.Fatalf("sync --delete: exit %d", code)
	}
	code, out, _ = runCmd(t, "audit", "--dest", dest, "--json", cap)
	if a = decodeOneJSON[destAuditOut](t, out, "audit --dest"); code != 0 || !*a.InSync || *a.Same == 0 {
		t.Fatalf("audit after --delete: exit %d, %+v", code, a)
	}

	// Damage a copy: not in sync, exit 1, and said in text.
	var victim string
	filepath.WalkDir(dest, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && victim == "" && !strings.Contains(p, ".rsx") {
			victim = p
		}
		return nil
	})
	os.WriteFile(victim, []byte("damaged"), 0o644)
	code, out, _ = runCmd(t, "audit", "--dest", dest, cap)
	if code != 1 || !strings.Contains(out, "1 damaged in the copy") || !strings.Contains(out, "not in sync") {
		t.Errorf("audit of a damaged copy: exit %d\n%s", code, out)
	}
}

func TestSyncCommandText(t *testing.T) {
	base := startDemo(t, false)
	dest := t.TempDir()
	cap := base + "/dataset2/capabilitylist.xml"
	code, out, errs := runCmd(t, "sync", "--dest", dest, "--include", `\.png$`, cap)
	if code != 0 || !strings.Contains(out, "baseline from the list") || !strings.Contains(out, "plan: ") || !strings.Contains(out, " created, 0 updated") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if errs != "" {
		t.Errorf("stderr is not a terminal, yet: %q", errs)
	}
	// The stored selection applies; new flags replace it and say so.
	code, out, _ = runCmd(t, "sync", "--dest", dest, "--json", "--include", `\.svg$`, cap)
	o := decodeOneJSON[syncOut](t, out, "sync")
	if code != 0 || !o.SelectionReplaced || len(o.Selection.Include) != 1 || o.Selection.Include[0] != `\.svg$` || *o.Mode != "baseline" {
		t.Errorf("replaced selection: exit %d, %+v", code, o)
	}
	code, out, _ = runCmd(t, "sync", "--dest", dest, "--json", cap)
	o = decodeOneJSON[syncOut](t, out, "sync")
	if code != 0 || o.SelectionReplaced || len(o.Selection.Include) != 1 || o.Excluded == 0 && *o.Mode == "baseline" {
		t.Errorf("stored selection: exit %d, %+v", code, o)
	}
}

func TestSyncCommandCannotRun(t *testing.T) {
	base := startDemo(t, false)
	dest := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"bad mode", []string{"sync", "--dest", dest, "--mode", "sideways", base + "/dataset1/capabilitylist.xml"}, "--mode"},
		{"bad regexp", []string{"sync", "--dest", dest, "--include", "(", base + "/dataset1/capabilitylist.xml"}, "--include"},
		{"bad map", []string{"sync", "--dest", dest, "--map", "nothing", base + "/dataset1/capabilitylist.xml"}, "PREFIX=DIR"},
		{"unreachable", []string{"sync", "--dest", dest, "http://127.0.0.1:1/cap.xml"}, "127.0.0.1:1"},
		{"two Capability Lists", []string{"sync", "--dest", dest, base + "/.well-known/resourcesync"}, "give one of them"},
		{"incremental first", []string{"sync", "--dest", dest, "--mode", "incremental", base + "/dataset1/capabilitylist.xml"}, "no finished baseline"},
		{"a bad bucket", []string{"sync", "--dest", "s3://x", base + "/dataset1/capabilitylist.xml"}, "bucket"},
		{"audit of nothing", []string{"audit", "--dest", filepath.Join(dest, "none"), base + "/dataset1/capabilitylist.xml"}, "none"},
		{"audit --dest with --sample", []string{"audit", "--dest", dest, "--sample", "3", base + "/dataset1/capabilitylist.xml"}, "spot audit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCmd(t, tc.args...)
			if code != 2 || !strings.Contains(errs, tc.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q (want %q)", code, out, errs, tc.want)
			}
		})
	}
}

// rsx sync without --dest refuses to run, in words, and writes nothing in
// the current folder (it used to copy into it), as rsync and rclone want a
// destination; the same with --json, which gets its error document.
func TestSyncRequiresDest(t *testing.T) {
	base := startDemo(t, false)
	cwd := t.TempDir()
	t.Chdir(cwd)
	for _, args := range [][]string{
		{"sync", base + "/dataset1/capabilitylist.xml"},
		{"sync", "--dry-run", base + "/dataset1/capabilitylist.xml"},
		{"sync", "--dest", " ", base + "/dataset1/capabilitylist.xml"},
		{"sync", "--json", base + "/dataset1/capabilitylist.xml"},
	} {
		code, out, errs := runCmd(t, args...)
		if code != 2 || !strings.Contains(errs, "no destination given: --dest DEST") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
		}
		if strings.Contains(strings.Join(args, " "), "--json") != strings.Contains(out, `"error": "sync: no destination given`) {
			t.Errorf("%q: stdout %q", args, out)
		}
		if names, _ := os.ReadDir(cwd); len(names) > 0 {
			t.Fatalf("%q wrote into the current folder: %v", args, names)
		}
	}
}

// A second run on a DEST in use says who holds it, and exits 2.
func TestSyncCommandDestInUse(t *testing.T) {
	base := startDemo(t, false)
	dest := t.TempDir()
	st, err := store.OpenDir(dest, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l, err := st.Lock(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	code, _, errs := runCmd(t, "sync", "--dest", dest, base+"/dataset1/capabilitylist.xml")
	if code != 2 || !strings.Contains(errs, "is in use by run "+l.Holder.Token+" on host ") {
		t.Errorf("exit %d, %s", code, errs)
	}
}

// What a Source wrote reaches the terminal escaped (here the URI is
// percent-encoded when it is resolved), and a resource outside the
// Source's authority is refused, not fetched.
func TestSyncCommandEscapes(t *testing.T) {
	docs := map[string]string{
		"/cap.xml": rsOpen + `<rs:md capability="capabilitylist"/><url><loc>{{base}}/rl.xml</loc><rs:md capability="resourcelist"/></url>` + rsClose,
		"/rl.xml": rsOpen + `<rs:ln rel="up" href="{{base}}/cap.xml"/><rs:md capability="resourcelist" at="2030-01-01T00:00:00Z"/>` +
			"<url><loc>http://elsewhere.example/x\u202eevil</loc><rs:md length=\"3\"/></url>" + rsClose,
	}
	srv := crawlSite(t, docs)
	code, out, _ := runCmd(t, "sync", "--dest", t.TempDir(), srv.URL+"/cap.xml")
	if code != 0 || strings.ContainsAny(out, "\u202e") || !strings.Contains(out, `x%E2%80%AEevil`) || !strings.Contains(out, "1 refused") {
		t.Errorf("exit %d, not escaped or not refused:\n%q", code, out)
	}
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".rsx" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// When the Change List Index no longer reaches back to the copy's point,
// the run reads the Change List Archive and says which lists (JSON:
// archived_lists, and archived in lists; text: the plan names them).
func TestSyncCommandArchivedLists(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 600, LiveChangeLists: 1, LiveChangeDumps: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cap := srv.URL + "/dataset1/capabilitylist.xml"
	type archOut struct {
		ArchivedLists []struct {
			URL     string  `json:"url"`
			Kind    string  `json:"kind"`
			Archive string  `json:"archive"`
			From    *string `json:"from"`
			Until   *string `json:"until"`
		} `json:"archived_lists"`
		Lists []struct {
			URL      string `json:"url"`
			Archived bool   `json:"archived"`
		} `json:"lists"`
	}
	for _, tc := range []struct {
		from, archive, listed string
		archived              int
	}{
		{"list", "/dataset1/changelist-archive.xml", "/dataset1/changelist/", 2},
		{"dump", "/dataset1/changedump-archive.xml", "/dataset1/changedumps/", 2},
	} {
		t.Run(tc.from, func(t *testing.T) {
			dest := t.TempDir()
			if code, _, errs := runCmd(t, "sync", "--dest", dest, "--baseline-from", tc.from, cap); code != 0 {
				t.Fatalf("baseline: exit %d: %s", code, errs)
			}
			advanceDemo(t, srv.URL, "8") // the copy's point leaves the index (the dump) for the archive
			code, out, errs := runCmd(t, "sync", "--dest", dest, "--changes-from", tc.from, "--delete", "--json", cap)
			o := decodeOneJSON[syncOut](t, out, "sync")
			o.checkShape(t)
			a := decodeOneJSON[archOut](t, out, "sync")
			if code != 0 || *o.Mode != "incremental" || len(a.ArchivedLists) < 1 {
				t.Fatalf("exit %d, %d archived lists: %s\n%s", code, len(a.ArchivedLists), out, errs)
			}
			for _, l := range a.ArchivedLists {
				if l.Kind != "change"+tc.from || l.Archive != srv.URL+tc.archive || !strings.Contains(l.URL, tc.listed) || l.From == nil || l.Until == nil {
					t.Errorf("archived list %+v", l)
				}
			}
			archived := 0
			for _, l := range a.Lists {
				if l.Archived {
					archived++
				}
			}
			if archived == 0 {
				t.Errorf("no list read is marked archived: %+v", a.Lists)
			}
		})
	}
	// In text, the plan names the archived lists, the summary says the copy
	// caught up through them.
	dest := t.TempDir()
	runCmd(t, "sync", "--dest", dest, cap)
	advanceDemo(t, srv.URL, "8")
	code, out, _ := runCmd(t, "sync", "--dest", dest, cap)
	if code != 0 || !strings.Contains(out, "read from the archive first") || !strings.Contains(out, "/dataset1/changelist/") ||
		!strings.Contains(out, "archived Change List") || !strings.Contains(out, "caught up through ") || !strings.Contains(out, " of "+srv.URL+"/dataset1/changelist-archive.xml") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func TestSyncFollowUsage(t *testing.T) {
	base := startDemo(t, false)
	for _, args := range [][]string{
		{"sync", "--follow", "--dry-run", "--dest", t.TempDir(), base + "/dataset1/capabilitylist.xml"},
		{"sync", "--follow", "--poll-interval", "0s", "--dest", t.TempDir(), base + "/dataset1/capabilitylist.xml"},
	} {
		if code, out, errs := runCmd(t, args...); code != 2 || out != "" || !strings.Contains(errs, "--") {
			t.Errorf("%q: exit %d, %q, %q", args, code, out, errs)
		}
	}
}

// The broken demo's Resource List Index has parts that cannot be read: the
// audit of a copy compares every resource of the parts read, says which
// documents it could not read and that it is incomplete (exit 1), and
// counts the resources out of the copy's selection.
func TestDestAuditIncomplete(t *testing.T) {
	// (The default size, whose dataset 1 takes a Resource List Index.)
	srv, err := demo.Start(t.Context(), "127.0.0.1:0", demo.Options{Broken: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	dest := t.TempDir()
	cap := srv.URL + "/dataset1/capabilitylist.xml"
	code, out, errs := runCmd(t, "sync", "--dest", dest, "--json", "--include", `/res/0002[0-4]`, cap)
	o := decodeOneJSON[syncOut](t, out, "sync")
	if code != 1 || *o.Created == 0 || len(o.Failed) != 0 {
		t.Fatalf("sync: exit %d, %+v, %s", code, o, errs)
	}
	code, out, _ = runCmd(t, "audit", "--dest", dest, "--json", cap)
	a := decodeOneJSON[destAuditOut](t, out, "audit --dest")
	a.checkShape(t)
	if code != 1 || *a.InSync || a.Complete == nil || *a.Complete || len(a.Problems) == 0 {
		t.Errorf("incomplete audit: exit %d, in sync %v, complete %v, problems %v", code, *a.InSync, a.Complete, a.Problems)
	}
	if *a.Same != *o.Created || len(a.Missing)+len(a.Changed)+len(a.Extra)+len(a.Unannounced) != 0 {
		t.Errorf("same %d of %d created; missing %q, changed %q, extra %q, unannounced %q", *a.Same, *o.Created, a.Missing, a.Changed, a.Extra, a.Unannounced)
	}
	if a.OutOfSelection == nil || *a.OutOfSelection == 0 {
		t.Errorf("out of selection %v", a.OutOfSelection)
	}
	code, out, _ = runCmd(t, "audit", "--dest", dest, cap)
	if code != 1 || !strings.Contains(out, "could not be read: the audit is incomplete") || !strings.Contains(out, "out of the copy's selection") ||
		!strings.Contains(out, "resourcelist-0000.xml") || strings.Contains(out, "not in sync") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
}
