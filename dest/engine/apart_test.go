package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rsx/dest/state"
)

// Sources kept apart (issue 33): the settings of a run apply to the Source
// its URL names, and a path of DEST belongs to one Source.

// listAt makes the Source under dir of f (its Capability List dir/cap.xml,
// its Resource List dir/rl.xml) list the resources at paths, each body
// naming its path.
func (f *fakeSource) listAt(dir string, paths ...string) {
	var entries []string
	for _, p := range paths {
		body := []byte("from " + p + "\n")
		f.setRes(p, body)
		entries = append(entries, rlEntry(p, body, "2030-01-01T09:00:00Z"))
	}
	f.setDoc(dir+"/cap.xml", strings.ReplaceAll(capList(map[string]string{"resourcelist": "/rl.xml"}), "{{base}}/rl.xml", "{{base}}"+dir+"/rl.xml"))
	f.setDoc(dir+"/rl.xml", strings.Replace(resourceList("2030-01-01T10:00:00Z", entries...), "{{base}}/cap.xml", "{{base}}"+dir+"/cap.xml", 1))
}

// selectionOfRow reads the stored selection of the Source keyed by url.
func sourceRows(t *testing.T, dir string) []state.Source {
	t.Helper()
	db, err := state.Open(context.Background(), filepath.Join(dir, ".rsx", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Sources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// A Capability List that redirects to another Source's Capability List
// runs nothing: B's delete = true does not erase the file A's copy kept
// after its Source deleted it, and B's include does not freeze A's copy.
func TestARedirectToAnotherSourcesCapabilityListIsRefused(t *testing.T) {
	f := newFakeSource(t)
	dir := t.TempDir()
	a, b := f.srv.URL+"/a/cap.xml", f.srv.URL+"/b/cap.xml"
	f.listAt("/a", "/r/a1", "/r/a2")
	if res := syncOnce(t, dir, testClient(t), a, PlanOptions{}); !res.OK() {
		t.Fatalf("A:%s", failures(res))
	}
	// A's Source deletes a2; A's archive keeps it (no --delete).
	f.listAt("/a", "/r/a1")
	if res := syncOnce(t, dir, testClient(t), a, PlanOptions{}); !res.OK() || res.Plan.Summary.PendingDelete != 1 {
		t.Fatalf("A again: %+v:%s", res.Plan.Summary, failures(res))
	}
	kept := filepath.Join(dir, f.hostDir(), "r", "a2")
	if _, err := os.Stat(kept); err != nil {
		t.Fatal(err)
	}
	before := files(t, dir)

	f.setRedirect("/b/cap.xml", "/a/cap.xml")
	s := openSession(t, dir, testClient(t), Options{})
	_, err := s.Plan(context.Background(), b, PlanOptions{Delete: true, Selection: &state.Selection{Include: []string{"nothing-matches-this"}}})
	var ie *IdentityError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) {
		t.Fatalf("plan of B: %v; want an *IdentityError naming %s and %s", err, a, b)
	}
	if _, err := s.Audit(context.Background(), b); !errors.As(err, &ie) {
		t.Errorf("audit of B: %v; want an *IdentityError", err)
	}
	s.Close()
	if got := files(t, dir); !slices.Equal(got, before) {
		t.Errorf("files %q, were %q", got, before)
	}
	rows := sourceRows(t, dir)
	if len(rows) != 1 || rows[0].URL != a || !rows[0].Selection.Empty() {
		t.Errorf("Sources in the state: %+v; want A alone, its selection untouched", rows)
	}
	// A goes on as before, its deletion still remembered.
	if res := syncOnce(t, dir, testClient(t), a, PlanOptions{}); !res.OK() || res.Plan.Summary.PendingDelete != 1 {
		t.Errorf("A after: %+v:%s", res.Plan.Summary, failures(res))
	}
}

// The caller names the other Sources' Capability Lists (the fleet: its
// other entries): a redirect to one of them is refused even before that
// Source has a copy in DEST.
func TestARedirectToACapabilityListNamedAsAnotherSourceIsRefused(t *testing.T) {
	f := newFakeSource(t)
	dir := t.TempDir()
	a, b := f.srv.URL+"/a/cap.xml", f.srv.URL+"/b/cap.xml"
	f.listAt("/a", "/r/a1")
	f.setRedirect("/b/cap.xml", "/a/cap.xml")
	s := openSession(t, dir, testClient(t), Options{})
	_, err := s.Plan(context.Background(), b, PlanOptions{OtherSources: []string{a}})
	var ie *IdentityError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) {
		t.Fatalf("plan of B: %v; want an *IdentityError naming %s and %s", err, a, b)
	}
	// A document of B whose up link claims A's Capability List (and A's
	// lists it): the same.
	f.setRedirect("/b/cap.xml", "")
	f.setDoc("/b/rl.xml", strings.Replace(resourceList("2030-01-01T10:00:00Z"), "{{base}}/cap.xml", "{{base}}/a/cap.xml", 1))
	f.setDoc("/a/cap.xml", strings.Replace(capList(map[string]string{"resourcelist": "/b/rl.xml"}), "", "", 1))
	_, err = s.Plan(context.Background(), f.srv.URL+"/b/rl.xml", PlanOptions{OtherSources: []string{a}})
	if !errors.As(err, &ie) {
		t.Fatalf("plan of B's list claiming A's Capability List: %v; want an *IdentityError", err)
	}
	s.Close()
	if got := files(t, dir); len(got) != 0 {
		t.Errorf("files %q written", got)
	}
	// Named as itself, A is A.
	if res := syncOnce(t, dir, testClient(t), a, PlanOptions{OtherSources: []string{b, a}}); !res.OK() {
		t.Errorf("A:%s", failures(res))
	}
}

// A Capability List that moves (a redirect within one Source) keeps its
// copy: the state's row does not fork, and the copy is not fetched again.
func TestAMovedCapabilityListKeepsItsCopy(t *testing.T) {
	f := newFakeSource(t)
	dir := t.TempDir()
	old := f.srv.URL + "/a/cap.xml"
	f.listAt("/a", "/r/a1", "/r/a2")
	if res := syncOnce(t, dir, testClient(t), old, PlanOptions{}); !res.OK() {
		t.Fatalf("A:%s", failures(res))
	}
	// The Source moves to /new: the old URL redirects there.
	f.listAt("/new", "/r/a1", "/r/a2")
	f.setRedirect("/a/cap.xml", "/new/cap.xml")
	res := syncOnce(t, dir, testClient(t), old, PlanOptions{})
	if !res.OK() || res.Plan.Source != old || res.Plan.Summary.Work() != 0 {
		t.Fatalf("A moved: source %s, %+v:%s", res.Plan.Source, res.Plan.Summary, failures(res))
	}
	// Named by its new URL, it is the same Source too.
	res = syncOnce(t, dir, testClient(t), f.srv.URL+"/new/cap.xml", PlanOptions{})
	if !res.OK() || res.Plan.Source != old || res.Plan.Summary.Work() != 0 {
		t.Fatalf("A by its new URL: source %s, %+v:%s", res.Plan.Source, res.Plan.Summary, failures(res))
	}
	if rows := sourceRows(t, dir); len(rows) != 1 {
		t.Errorf("Sources in the state: %+v; want one", rows)
	}
}

// A Source on the same host that lists another Source's URI does not take
// its path, nor delete it when it deletes that URI: the path stays with the
// Source whose copy holds it.
func TestASourceCannotTakeAnotherSourcesPath(t *testing.T) {
	f := newFakeSource(t)
	dir := t.TempDir()
	a, b := f.srv.URL+"/a/cap.xml", f.srv.URL+"/b/cap.xml"
	f.listAt("/a", "/r/a1", "/r/a2")
	if res := syncOnce(t, dir, testClient(t), a, PlanOptions{}); !res.OK() {
		t.Fatalf("A:%s", failures(res))
	}
	// B lists A's URI.
	f.listAt("/b", "/r/b1", "/r/a1")
	res := syncOnce(t, dir, testClient(t), b, PlanOptions{Delete: true})
	var owned []Failure
	for _, r := range res.Plan.Refused {
		if r.URL == f.srv.URL+"/r/a1" {
			owned = append(owned, r)
		}
	}
	if len(owned) != 1 || owned[0].Kind != KindOwned || !strings.Contains(owned[0].Err.Error(), a) {
		t.Errorf("B's refusals %+v; want /r/a1 refused as owned by %s", res.Plan.Refused, a)
	}
	if !res.OK() {
		t.Errorf("B:%s", failures(res))
	}
	// Then B deletes it.
	f.listAt("/b", "/r/b1")
	res = syncOnce(t, dir, testClient(t), b, PlanOptions{Delete: true})
	if !res.OK() {
		t.Errorf("B deletes:%s", failures(res))
	}
	if got := string(readFile(t, dir, f.hostDir()+"/r/a1")); got != "from /r/a1\n" {
		t.Errorf("A's /r/a1 = %q", got)
	}
	res = syncOnce(t, dir, testClient(t), a, PlanOptions{})
	if !res.OK() || res.Plan.Summary.Work() != 0 {
		t.Errorf("A after: %+v:%s", res.Plan.Summary, failures(res))
	}
	s := openSession(t, dir, testClient(t), Options{})
	rep, err := s.Audit(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.InSync() {
		t.Errorf("audit of A: %+v", rep)
	}
}

// The same, the other way round: a Source B lists A's URI before A has a
// copy, so B's copy holds the path and A's resource is refused, then B
// deletes it: A's next sync copies it (the path is free), and its audit
// finds the copy in sync.
func TestAPathFreedByAnotherSourceIsCopied(t *testing.T) {
	f := newFakeSource(t)
	dir := t.TempDir()
	a, b := f.srv.URL+"/a/cap.xml", f.srv.URL+"/b/cap.xml"
	f.listAt("/b", "/r/b1", "/r/a1")
	if res := syncOnce(t, dir, testClient(t), b, PlanOptions{}); !res.OK() || res.Created != 2 {
		t.Fatalf("B:%s", failures(res))
	}
	f.listAt("/a", "/r/a1", "/r/a2")
	res := syncOnce(t, dir, testClient(t), a, PlanOptions{})
	if !res.OK() || res.Created != 1 || res.Plan.Summary.Owned != 1 || len(res.Plan.Refused) != 1 || res.Plan.Refused[0].Kind != KindOwned ||
		!strings.Contains(res.Plan.Refused[0].Err.Error(), b) {
		t.Fatalf("A: created %d, %+v, refused %v:%s", res.Created, res.Plan.Summary, res.Plan.Refused, failures(res))
	}
	// A's next run, B still holding the path: refused again (A offers no
	// Change List: each of its runs compares the copy with its Resource
	// List).
	res = syncOnce(t, dir, testClient(t), a, PlanOptions{})
	if !res.OK() || strings.Contains(res.Plan.ReconcileWhy, "kept out") || res.Plan.Summary.Work() != 0 || res.Plan.Summary.Owned != 1 {
		t.Fatalf("A again: reconcile %q, %+v:%s", res.Plan.ReconcileWhy, res.Plan.Summary, failures(res))
	}
	// B's Source deletes it, and B's run with --delete removes it.
	f.listAt("/b", "/r/b1")
	if res := syncOnce(t, dir, testClient(t), b, PlanOptions{Delete: true}); !res.OK() || res.Deleted != 1 {
		t.Fatalf("B deletes: %d:%s", res.Deleted, failures(res))
	}
	res = syncOnce(t, dir, testClient(t), a, PlanOptions{})
	if !res.OK() || !res.Plan.Reconcile || res.Created != 1 || !strings.Contains(res.Plan.ReconcileWhy, "another Source's copy kept out") {
		t.Fatalf("A after B freed the path: reconcile %v (%s), created %d:%s", res.Plan.Reconcile, res.Plan.ReconcileWhy, res.Created, failures(res))
	}
	if got := string(readFile(t, dir, f.hostDir()+"/r/a1")); got != "from /r/a1\n" {
		t.Errorf("A's /r/a1 = %q", got)
	}
	s := openSession(t, dir, testClient(t), Options{})
	rep, err := s.Audit(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.InSync() || rep.Collisions != 0 {
		t.Errorf("audit of A: in sync %v, collisions %d, missing %q", rep.InSync(), rep.Collisions, rep.Missing)
	}
	s.Close()
	// And the run after has nothing to do.
	res = syncOnce(t, dir, testClient(t), a, PlanOptions{})
	if !res.OK() || strings.Contains(res.Plan.ReconcileWhy, "kept out") || res.Plan.Summary.Work() != 0 || res.Plan.Summary.Refused != 0 {
		t.Errorf("A last: reconcile %q, %+v:%s", res.Plan.ReconcileWhy, res.Plan.Summary, failures(res))
	}
}

// identify, case by case, on a state that holds A (named also by its old
// URL) and B.
func TestIdentify(t *testing.T) {
	ctx := context.Background()
	db, err := state.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a, _ := db.EnsureSource(ctx, "https://h/a/cap.xml")
	b, _ := db.EnsureSource(ctx, "https://h/b/cap.xml")
	if err := db.NameSource(ctx, a.ID, "https://h/old/cap.xml"); err != nil {
		t.Fatal(err)
	}
	redirect := func(from, to string) []hop { return []hop{{from: from, to: to}} }
	for _, tc := range []struct {
		name         string
		src          source
		others       []string
		wantKey      string // "" : refused
		wantOther    string
		wantNamed    bool
		wantRecorded []string
	}{
		{name: "A by its key", src: source{key: a.URL, capList: a.URL, target: a.URL}, wantKey: a.URL},
		{name: "A by http", src: source{key: a.URL, capList: a.URL, target: "http://h/a/cap.xml", hops: redirect("http://h/a/cap.xml", a.URL)}, wantKey: a.URL},
		{name: "A's Resource List (its up link)", src: source{key: a.URL, capList: a.URL, target: "https://h/a/rl.xml", claimed: a.URL}, wantKey: a.URL},
		{name: "A moved, by its old URL", src: source{key: "https://h/new/cap.xml", capList: "https://h/new/cap.xml", target: "https://h/old/cap.xml",
			hops: redirect("https://h/old/cap.xml", "https://h/new/cap.xml")}, wantKey: a.URL, wantRecorded: []string{"https://h/new/cap.xml"}},
		{name: "a new name redirected to A", src: source{key: a.URL, capList: a.URL, target: "https://h/c/cap.xml", hops: redirect("https://h/c/cap.xml", a.URL)},
			wantOther: a.URL},
		{name: "B redirected to A", src: source{key: a.URL, capList: a.URL, target: b.URL, hops: redirect(b.URL, a.URL)}, wantOther: a.URL},
		{name: "through the names of A and B", src: source{key: "https://h/z/cap.xml", capList: "https://h/z/cap.xml", target: "https://h/old/cap.xml",
			hops: []hop{{from: "https://h/old/cap.xml", to: b.URL}, {from: b.URL, to: "https://h/z/cap.xml"}}}, wantOther: b.URL},
		{name: "a new Source", src: source{key: "https://h/c/cap.xml", capList: "https://h/c/cap.xml", target: "https://u:pw@h/c/cap.xml"}, wantKey: "https://h/c/cap.xml"},
		{name: "named as another's", src: source{key: "https://g/a/cap.xml", capList: "https://g/a/cap.xml", target: "https://g/b/cap.xml",
			hops: redirect("https://g/b/cap.xml", "https://g/a/cap.xml")}, others: []string{"http://g/a/cap.xml"}, wantOther: "http://g/a/cap.xml", wantNamed: true},
		{name: "an up link claiming another's", src: source{key: "https://g/a/cap.xml", capList: "https://g/a/cap.xml", target: "https://g/b/rl.xml", claimed: "https://g/a/cap.xml"},
			others: []string{"https://g/a/cap.xml"}, wantOther: "https://g/a/cap.xml", wantNamed: true},
		{name: "itself among the others", src: source{key: "https://g/a/cap.xml", capList: "https://g/a/cap.xml", target: "https://g/a/cap.xml"},
			others: []string{"https://g/a/cap.xml", "https://g/b/cap.xml"}, wantKey: "https://g/a/cap.xml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.src
			err := identify(ctx, db, &src, tc.others)
			var ie *IdentityError
			switch {
			case tc.wantKey == "":
				if !errors.As(err, &ie) || ie.Other != tc.wantOther || ie.Named != tc.wantNamed {
					t.Fatalf("%v (%+v); want refused, naming %s", err, ie, tc.wantOther)
				}
				if strings.Contains(err.Error(), "pw@") {
					t.Errorf("the password in %q", err)
				}
			case err != nil || src.key != tc.wantKey:
				t.Fatalf("key %s, %v; want %s", src.key, err, tc.wantKey)
			}
			for _, n := range tc.wantRecorded {
				if !slices.Contains(src.names, n) {
					t.Errorf("names %q: want %s", src.names, n)
				}
			}
			for _, n := range src.names {
				if strings.Contains(n, "@") {
					t.Errorf("a name with userinfo: %s", n)
				}
			}
		})
	}
}
