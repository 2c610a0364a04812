package engine

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"rsx/demo"
	"rsx/dest/plan"
	"rsx/dest/state"
	runspool "rsx/internal/spool"
)

// A change no Change List announces is found by the audit, and told apart
// from an announced one and from damage to the copy.
func TestAuditFindsUnannouncedChanges(t *testing.T) {
	f := newChangingSource(t)
	f.setRes("/r/d", []byte("d v1\n"))
	f.setDoc("/rl.xml", resourceList("2030-01-01T10:00:00Z",
		rlEntry("/r/a", []byte("a v1\n"), "2030-01-01T09:00:00Z"),
		rlEntry("/r/b", []byte("b v1\n"), "2030-01-01T09:00:00Z"),
		rlEntry("/r/c", []byte("c v1\n"), "2030-01-01T09:00:00Z"),
		rlEntry("/r/d", []byte("d v1\n"), "2030-01-01T09:00:00Z")))
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	if rep := auditOnce(t, dir, testClient(t), f.target()); !rep.InSync() || rep.Same != 4 || rep.Hashed != 4 {
		t.Fatalf("right after the baseline: %+v", rep)
	}
	u := func(p string) string { return f.srv.URL + p }

	// At 11:00 the Source publishes a new Resource List in which a and b
	// changed, d is gone and e is new; its Change List announces only b.
	f.setRes("/r/a", []byte("a v2, silently\n"))
	f.setRes("/r/b", []byte("b v2\n"))
	f.setRes("/r/e", []byte("e v1\n"))
	f.setDoc("/rl.xml", resourceList("2030-01-01T11:00:00Z",
		rlEntry("/r/a", []byte("a v2, silently\n"), "2030-01-01T10:30:00Z"),
		rlEntry("/r/b", []byte("b v2\n"), "2030-01-01T10:40:00Z"),
		rlEntry("/r/c", []byte("c v1\n"), "2030-01-01T09:00:00Z"),
		rlEntry("/r/e", []byte("e v1\n"), "2030-01-01T10:50:00Z")))
	f.setDoc("/cl1.xml", changeList("2030-01-01T08:00:00Z", "",
		clEntry("/r/b", "updated", "2030-01-01T10:40:00Z", []byte("b v2\n"))))
	// And the copy of c is damaged on disk.
	cpath := filepath.Join(dir, filepath.FromSlash(f.hostDir()+"/r/c"))
	if err := os.WriteFile(cpath, []byte("c v1\x00bitrot"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := auditOnce(t, dir, testClient(t), f.target())
	if rep.InSync() {
		t.Fatal("in sync")
	}
	want := func(name string, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	want("missing", rep.Missing, []string{u("/r/e")})
	want("changed", rep.Changed, []string{u("/r/a"), u("/r/b"), u("/r/c")})
	want("extra", rep.Extra, []string{u("/r/d")})
	want("damaged", rep.Damaged, []string{u("/r/c")})
	want("unannounced", rep.Unannounced, []string{u("/r/a"), u("/r/d"), u("/r/e")})
	if rep.Same != 0 {
		t.Errorf("same %d", rep.Same)
	}

	// A file no resource owns in the Source's folders is extra too (and
	// stray); one at DEST's top is not the Source's business.
	stray := f.hostDir() + "/r/stray.txt"
	os.WriteFile(filepath.Join(dir, filepath.FromSlash(stray)), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	rep = auditOnce(t, dir, testClient(t), f.target())
	if !slices.Contains(rep.Extra, stray) || !slices.Equal(rep.Stray, []string{stray}) || slices.Contains(rep.Extra, "notes.txt") {
		t.Errorf("extra %q, stray %q", rep.Extra, rep.Stray)
	}
}

// The changes of the Change Lists after the Resource List's at are the
// Source's current state: a copy synced past the list's at is in sync.
func TestAuditAfterIncrementalsIsInSync(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 800, Seed: 12})
	target := srv.URL + "/dataset1/capabilitylist.xml"
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), target, PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	advance(t, srv.URL, 5)
	if res := syncOnce(t, dir, testClient(t), target, PlanOptions{Delete: true}); !res.OK() {
		t.Fatalf("incremental:%s", failures(res))
	}
	rep := auditOnce(t, dir, testClient(t), target)
	if !rep.InSync() || len(rep.Unannounced) != 0 || rep.Same == 0 {
		t.Errorf("audit: %+v", rep)
	}
	// Without the incremental, the audit names the changes, all announced.
	advance(t, srv.URL, 3)
	rep = auditOnce(t, dir, testClient(t), target)
	if rep.InSync() || len(rep.Changed)+len(rep.Missing)+len(rep.Extra) == 0 || len(rep.Unannounced) != 0 {
		t.Errorf("changes not synced yet: changed %d, missing %d, extra %d, unannounced %q", len(rep.Changed), len(rep.Missing), len(rep.Extra), rep.Unannounced)
	}
}

// A resource the Source made shorter than the copy is changed, and the
// copy is not called damaged: it is read to its end for what was recorded.
func TestAuditShorterAtTheSourceIsNotDamage(t *testing.T) {
	f := newChangingSource(t)
	long := []byte("a version one, rather longer than the next\n")
	f.setRes("/r/a", long)
	f.setDoc("/rl.xml", resourceList("2030-01-01T10:00:00Z", rlEntry("/r/a", long, "2030-01-01T09:00:00Z")))
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	short := []byte("a v2\n")
	f.setRes("/r/a", short)
	f.setDoc("/rl.xml", resourceList("2030-01-01T11:00:00Z", rlEntry("/r/a", short, "2030-01-01T10:30:00Z")))
	rep := auditOnce(t, dir, testClient(t), f.target())
	if !slices.Equal(rep.Changed, []string{f.srv.URL + "/r/a"}) || len(rep.Damaged) != 0 {
		t.Errorf("changed %q, damaged %q; want a changed, nothing damaged", rep.Changed, rep.Damaged)
	}
}

// resourceListIndex is a Resource List Index at at of the parts given.
func resourceListIndex(at string, parts ...string) string {
	var b strings.Builder
	b.WriteString(indexOpen + `<rs:md capability="resourcelist" at="` + at + `"/>` + "\n")
	for _, p := range parts {
		fmt.Fprintf(&b, "<sitemap><loc>{{base}}%s</loc><rs:md at=%q/></sitemap>\n", p, at)
	}
	b.WriteString("</sitemapindex>\n")
	return b.String()
}

// A part of the Resource List Index that cannot be read leaves the audit
// incomplete: the resources of the parts read are all compared (the last
// batch too), the copy's resources that only the unread part lists are
// not called extra, and the report names the part.
func TestAuditWithAnUnreadablePart(t *testing.T) {
	f := newFakeSource(t)
	f.setDoc("/cap.xml", capList(map[string]string{"resourcelist": "/rli.xml"}))
	var one, two []string
	for i := range 30 {
		p, body := fmt.Sprintf("/r/%02d", i), []byte(fmt.Sprintf("resource %d\n", i))
		f.setRes(p, body)
		e := rlEntry(p, body, "2030-01-01T09:00:00Z")
		if i < 20 {
			one = append(one, e)
		} else {
			two = append(two, e)
		}
	}
	f.setDoc("/rli.xml", resourceListIndex("2030-01-01T10:00:00Z", "/rl1.xml", "/rl2.xml"))
	f.setDoc("/rl1.xml", resourceList("2030-01-01T10:00:00Z", one...))
	f.setDoc("/rl2.xml", resourceList("2030-01-01T10:00:00Z", two...))
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() || res.Created != 30 {
		t.Fatalf("baseline: %d created:%s", res.Created, failures(res))
	}
	if rep := auditOnce(t, dir, testClient(t), f.target()); !rep.InSync() || !rep.Complete() || rep.Same != 30 {
		t.Fatalf("right after the baseline: same %d, complete %v, %+v", rep.Same, rep.Complete(), rep)
	}

	f.setCode("/rl2.xml", http.StatusNotFound)
	rep := auditOnce(t, dir, testClient(t), f.target())
	if rep.Complete() || rep.InSync() {
		t.Errorf("complete %v, in sync %v with a part unread", rep.Complete(), rep.InSync())
	}
	if len(rep.Problems) != 1 || rep.Problems[0].URL != f.srv.URL+"/rl2.xml" {
		t.Errorf("problems %v, want the unread part", rep.Problems)
	}
	if rep.Same != 20 || rep.Hashed != 20 {
		t.Errorf("same %d, hashed %d; want the 20 of the part read", rep.Same, rep.Hashed)
	}
	if len(rep.Missing)+len(rep.Changed)+len(rep.Extra)+len(rep.Unannounced) != 0 {
		t.Errorf("missing %q, changed %q, extra %q, unannounced %q; want none", rep.Missing, rep.Changed, rep.Extra, rep.Unannounced)
	}
	if rep.NotCompared != 10 {
		t.Errorf("not compared %d, want the 10 only the unread part lists", rep.NotCompared)
	}
}

// A Change List that cannot be read leaves the audit incomplete, and no
// difference is called unannounced: its announcement may be in that list.
func TestAuditWithAnUnreadableChangeList(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	f.setRes("/r/a", []byte("a v2\n"))
	f.setDoc("/rl.xml", resourceList("2030-01-01T11:00:00Z",
		rlEntry("/r/a", []byte("a v2\n"), "2030-01-01T10:30:00Z"),
		rlEntry("/r/b", []byte("b v1\n"), "2030-01-01T09:00:00Z"),
		rlEntry("/r/c", []byte("c v1\n"), "2030-01-01T09:00:00Z")))
	f.setCode("/cl1.xml", http.StatusInternalServerError)
	rep := auditOnce(t, dir, testClient(t), f.target())
	if rep.Complete() || len(rep.Problems) != 1 || rep.Problems[0].URL != f.srv.URL+"/cl1.xml" {
		t.Errorf("complete %v, problems %v; want the Change List", rep.Complete(), rep.Problems)
	}
	if !slices.Equal(rep.Changed, []string{f.srv.URL + "/r/a"}) || rep.Same != 2 || len(rep.Unannounced) != 0 {
		t.Errorf("changed %q, same %d, unannounced %q; want a changed and nothing unannounced", rep.Changed, rep.Same, rep.Unannounced)
	}
}

// A copy of a few chosen resources (no baseline: the explorer's marks)
// claims to hold those only: the Source's other resources are out of its
// selection, counted, neither missing nor unannounced. So are those a
// stored --include leaves out of a full copy.
func TestAuditComparesWhatTheCopyClaims(t *testing.T) {
	v1 := func(n string) []byte { return []byte(n + " v1\n") }
	setup := func(t *testing.T) *fakeSource {
		f := newChangingSource(t)
		var entries []string
		for _, n := range []string{"a", "b", "c", "d"} {
			f.setRes("/r/"+n, v1(n))
			entries = append(entries, rlEntry("/r/"+n, v1(n), "2030-01-01T09:00:00Z"))
		}
		f.setDoc("/rl.xml", resourceList("2030-01-01T10:00:00Z", entries...))
		return f
	}
	// The Source moves on: a changed (announced), c changed and e created
	// silently.
	moveOn := func(f *fakeSource) {
		f.setRes("/r/a", []byte("a v2\n"))
		f.setRes("/r/c", []byte("c v2\n"))
		f.setRes("/r/e", v1("e"))
		f.setDoc("/rl.xml", resourceList("2030-01-01T11:00:00Z",
			rlEntry("/r/a", []byte("a v2\n"), "2030-01-01T10:30:00Z"),
			rlEntry("/r/b", v1("b"), "2030-01-01T09:00:00Z"),
			rlEntry("/r/c", []byte("c v2\n"), "2030-01-01T10:40:00Z"),
			rlEntry("/r/d", v1("d"), "2030-01-01T09:00:00Z"),
			rlEntry("/r/e", v1("e"), "2030-01-01T10:50:00Z")))
		f.setDoc("/cl1.xml", changeList("2030-01-01T08:00:00Z", "",
			clEntry("/r/a", "updated", "2030-01-01T10:30:00Z", []byte("a v2\n"))))
	}
	tests := []struct {
		name    string
		opts    func(f *fakeSource) PlanOptions
		changed []string
		unann   []string
		same    int
		// out of the selection: never chosen, or excluded
		unselected, excluded int
	}{
		{"chosen ones", func(f *fakeSource) PlanOptions {
			return PlanOptions{Only: plan.NewURISet([]string{f.srv.URL + "/r/a", f.srv.URL + "/r/b"})}
		}, []string{"/r/a"}, nil, 1, 3, 0},
		{"--include", func(*fakeSource) PlanOptions {
			return PlanOptions{Selection: &state.Selection{Include: []string{`/r/[abc]$`}}}
		}, []string{"/r/a", "/r/c"}, []string{"/r/c"}, 1, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(t)
			dir := t.TempDir()
			if res := syncOnce(t, dir, testClient(t), f.target(), tt.opts(f)); !res.OK() {
				t.Fatalf("sync:%s", failures(res))
			}
			moveOn(f)
			rep := auditOnce(t, dir, testClient(t), f.target())
			abs := func(ps []string) []string {
				var out []string
				for _, p := range ps {
					out = append(out, f.srv.URL+p)
				}
				return out
			}
			if len(rep.Missing) != 0 || !slices.Equal(rep.Changed, abs(tt.changed)) || !slices.Equal(rep.Unannounced, abs(tt.unann)) || rep.Same != tt.same {
				t.Errorf("missing %q, changed %q, unannounced %q, same %d; want none missing, changed %q, unannounced %q, same %d",
					rep.Missing, rep.Changed, rep.Unannounced, rep.Same, tt.changed, tt.unann, tt.same)
			}
			if rep.Unselected != tt.unselected || rep.Excluded != tt.excluded || rep.OutOfSelection() != tt.unselected+tt.excluded {
				t.Errorf("unselected %d, excluded %d, out of selection %d; want %d, %d", rep.Unselected, rep.Excluded, rep.OutOfSelection(), tt.unselected, tt.excluded)
			}
		})
	}
}

// A copy whose baseline is not finished lacks resources because it is not
// finished: they are missing, and not called unannounced.
func TestAuditOfAnUnfinishedBaseline(t *testing.T) {
	f := newFakeSource(t)
	f.setDoc("/cap.xml", capList(map[string]string{"resourcelist": "/rli.xml"}))
	var one, two []string
	for i := range 6 {
		p, body := fmt.Sprintf("/r/%02d", i), []byte(fmt.Sprintf("resource %d\n", i))
		f.setRes(p, body)
		if i < 4 {
			one = append(one, rlEntry(p, body, "2030-01-01T09:00:00Z"))
		} else {
			two = append(two, rlEntry(p, body, "2030-01-01T09:00:00Z"))
		}
	}
	f.setDoc("/rli.xml", resourceListIndex("2030-01-01T10:00:00Z", "/rl1.xml", "/rl2.xml"))
	f.setDoc("/rl1.xml", resourceList("2030-01-01T10:00:00Z", one...))
	f.setDoc("/rl2.xml", resourceList("2030-01-01T10:00:00Z", two...))
	f.setCode("/rl2.xml", http.StatusNotFound)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); res.Created != 4 || res.Finished {
		t.Fatalf("the baseline with a part unread: created %d, finished %v", res.Created, res.Finished)
	}
	f.setCode("/rl2.xml", 0)
	rep := auditOnce(t, dir, testClient(t), f.target())
	if len(rep.Missing) != 2 || len(rep.Unannounced) != 0 || rep.Same != 4 {
		t.Errorf("missing %q, unannounced %q, same %d; want the 2 of the part unread missing, none unannounced", rep.Missing, rep.Unannounced, rep.Same)
	}
}

// With Keep, the report holds the first Keep entries of each list and
// spools the rest: Len counts them all and Each gives them all, in the
// order an audit without Keep lists them. (An audit of a copy that lost a
// million files held their URIs twice, in missing and damaged.)
func TestAuditKeepSpoolsTheLists(t *testing.T) {
	f := newChangingSource(t)
	var entries []string
	for i := range 40 {
		p := fmt.Sprintf("/r/%02d", i)
		body := []byte(fmt.Sprintf("%d v1\n", i))
		f.setRes(p, body)
		entries = append(entries, rlEntry(p, body, "2030-01-01T09:00:00Z"))
	}
	f.setDoc("/rl.xml", resourceList("2030-01-01T10:00:00Z", entries...))
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	for i := 39; i >= 15; i-- { // 25 copies gone
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(fmt.Sprintf("%s/r/%02d", f.hostDir(), i)))); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"stray-b", "stray-a", "stray-c"} {
		os.WriteFile(filepath.Join(dir, filepath.FromSlash(f.hostDir()+"/r/"+name)), []byte("x"), 0o644)
	}
	audit := func(keep int) *AuditReport {
		s := openSession(t, dir, testClient(t), Options{})
		defer s.Close()
		rep, err := s.AuditWith(context.Background(), f.target(), AuditOptions{Keep: keep, ListSame: true})
		if err != nil {
			t.Fatalf("audit: %v", err)
		}
		t.Cleanup(func() { rep.Close() })
		return rep
	}
	all, kept := audit(0), audit(4)
	if all.InSync() || kept.InSync() || len(all.Missing) != 25 || len(all.Extra) != 3 || len(all.SameURIs) != 15 {
		t.Fatalf("without Keep: missing %d, extra %d, same %d", len(all.Missing), len(all.Extra), len(all.SameURIs))
	}
	for l := range nAuditLists {
		whole := *all.list(l)
		if n := kept.Len(l); n != len(whole) {
			t.Errorf("list %d: Len %d, want %d", l, n, len(whole))
		}
		if got, want := *kept.list(l), whole[:min(4, len(whole))]; !slices.Equal(got, want) {
			t.Errorf("list %d: kept %q, want %q", l, got, want)
		}
		var each []string
		if err := kept.Each(l, func(u string) error { each = append(each, u); return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(each, whole) {
			t.Errorf("list %d: Each gave %d entries, want %d in order", l, len(each), len(whole))
		}
	}
}

// A URI kept in the report is a copy of its bytes, not a string into the
// memory its document part was decoded in (model's arena), which it would
// keep whole: 28 MB of parts for 8,000 missing of 80,008.
func TestAuditKeepsCopiesOfURIs(t *testing.T) {
	part := strings.Repeat("http://example.org/r/", 1000) // a decoded part's memory
	uri := part[21:42]
	for _, keep := range []int{0, 5} {
		rep := &AuditReport{}
		if keep > 0 {
			rep.spools[ListMissing] = runspool.Strings(t.TempDir(), "test", 0)
		}
		a := &auditor{rep: rep}
		a.add(ListMissing, uri)
		var kept string
		if err := rep.Each(ListMissing, func(u string) error { kept = u; return nil }); err != nil {
			t.Fatal(err)
		}
		if kept != uri || unsafe.StringData(kept) == unsafe.StringData(uri) {
			t.Errorf("keep %d: %q kept in the part's memory", keep, kept)
		}
		rep.Close()
	}
}
