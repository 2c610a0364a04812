package engine

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"rsx/demo"
	"rsx/model"
)

// A document is used for a Source only when the Source's Capability List
// lists it (directly, through an index or through an archive): a document
// on another host whose up link names the Capability List is refused, and
// neither the copy nor the state of that Source is touched.

// hostileSource is a second Source (another port: another authority)
// whose documents name g's Capability List as theirs. In its documents
// {{g}} is g's URL and {{base}} its own.
func hostileSource(t *testing.T, g *fakeSource) *fakeSource {
	e := newFakeSource(t)
	e.setRes("/r/x", []byte("x from E\n"))
	return e
}

func (f *fakeSource) setForeignDoc(p, doc string, g *fakeSource) {
	f.setDoc(p, strings.ReplaceAll(strings.ReplaceAll(doc, `<rs:ln rel="up" href="{{base}}/cap.xml"/>`, `<rs:ln rel="up" href="{{g}}/cap.xml"/>`), "{{g}}", g.srv.URL))
}

func TestAForeignDocumentIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		doc        string
	}{
		{"a Change List", "/cl.xml", changeList("2030-01-01T08:00:00Z", "",
			clEntry("/r/x", "created", "2030-01-01T10:05:00Z", []byte("x from E\n")),
			`<url><loc>{{g}}/r/a</loc><rs:md change="deleted" datetime="2030-01-01T10:06:00Z"/></url>`+"\n")},
		{"a Change List Index", "/cl.xml", changeListIndex("2030-01-01T08:00:00Z", [3]string{"/cl1.xml", "2030-01-01T08:00:00Z", ""})},
		{"a Resource List", "/rl.xml", resourceList("2030-01-01T11:00:00Z", rlEntry("/r/x", []byte("x from E\n"), "2030-01-01T09:00:00Z"))},
		{"a Resource Dump", "/rd.xml", strings.Replace(resourceList("2030-01-01T11:00:00Z"), `capability="resourcelist"`, `capability="resourcedump"`, 1)},
		// A part that names g's index as its own: g's index does not list it.
		{"a part naming g's index", "/cl.xml", strings.Replace(changeList("2030-01-01T08:00:00Z", "",
			`<url><loc>{{g}}/r/a</loc><rs:md change="deleted" datetime="2030-01-01T10:06:00Z"/></url>`+"\n"),
			`<rs:md capability`, `<rs:ln rel="index" href="{{g}}/cl.xml"/>`+"\n"+`<rs:md capability`, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newChangingSource(t)
			e := hostileSource(t, g)
			dir := t.TempDir()
			if res := syncOnce(t, dir, testClient(t), g.target(), PlanOptions{}); !res.OK() {
				t.Fatalf("baseline of g:%s", failures(res))
			}
			before := files(t, dir)
			e.setForeignDoc(tc.path, tc.doc, g)
			e.setForeignDoc("/cl1.xml", changeList("2030-01-01T08:00:00Z", "",
				`<url><loc>{{g}}/r/a</loc><rs:md change="deleted" datetime="2030-01-01T10:06:00Z"/></url>`+"\n"), g)
			target := e.srv.URL + tc.path

			s := openSession(t, dir, testClient(t), Options{})
			p, err := s.Plan(context.Background(), target, PlanOptions{Delete: true})
			if err == nil {
				p.Close()
				t.Fatalf("the foreign document was accepted: %+v", p.Summary)
			}
			if !errors.Is(err, errNotListed) || !strings.Contains(err.Error(), target) || !strings.Contains(err.Error(), g.target()) {
				t.Errorf("error %q: want one naming %s and %s", err, target, g.target())
			}
			if _, aerr := s.Audit(context.Background(), target); !errors.Is(aerr, errNotListed) {
				t.Errorf("audit of the foreign document: %v", aerr)
			}
			s.Close()
			if got := files(t, dir); !slices.Equal(got, before) {
				t.Errorf("files %q, were %q", got, before)
			}
			// g's own syncs go on as before.
			res := syncOnce(t, dir, testClient(t), g.target(), PlanOptions{Delete: true})
			if !res.OK() || res.Plan.Summary.Work() != 0 {
				t.Errorf("g after: %+v:%s", res.Plan.Summary, failures(res))
			}
		})
	}
}

func TestTheSourcesOwnDocumentsAreAccepted(t *testing.T) {
	g := newChangingSource(t)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), g.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	g.setDoc("/cl1.xml", changeList("2030-01-01T08:00:00Z", "", clEntry("/r/a", "deleted", "2030-01-01T10:05:00Z", nil)))
	// The index itself (listed), a part of it (listed through it), with
	// white space around the loc in the Capability List.
	g.setDoc("/cap.xml", strings.Replace(capList(map[string]string{"resourcelist": "/rl.xml", "changelist": "/cl.xml", "changelist-archive": "/cla.xml"}), "<loc>{{base}}/cl.xml</loc>", "<loc>\n  {{base}}/cl.xml \n</loc>", 1))
	// An index that lists an index (indexes may nest), and an archive.
	g.setDoc("/cl.xml", changeListIndex("2030-01-01T08:00:00Z", [3]string{"/cl1.xml", "2030-01-01T08:00:00Z", ""}, [3]string{"/nested.xml", "2030-01-01T08:00:00Z", ""}))
	g.setDoc("/nested.xml", changeListIndex("2030-01-01T08:00:00Z", [3]string{"/deep.xml", "2030-01-01T08:00:00Z", ""}))
	g.setDoc("/deep.xml", changeList("2030-01-01T08:00:00Z", ""))
	g.setDoc("/cla.xml", strings.Replace(resourceList("2030-01-01T08:00:00Z", "<url><loc>{{base}}/old.xml</loc><rs:md from=\"2030-01-01T07:00:00Z\" until=\"2030-01-01T08:00:00Z\"/></url>\n"), `capability="resourcelist" at="2030-01-01T08:00:00Z"`, `capability="changelist-archive"`, 1))
	g.setDoc("/old.xml", changeList("2030-01-01T07:00:00Z", "2030-01-01T08:00:00Z"))
	for _, target := range []string{g.srv.URL + "/cl1.xml", g.srv.URL + "/cl.xml", g.srv.URL + "/rl.xml", g.srv.URL + "/deep.xml", g.srv.URL + "/old.xml"} {
		s := openSession(t, dir, testClient(t), Options{})
		p, err := s.Plan(context.Background(), target, PlanOptions{Delete: true})
		if err != nil {
			t.Errorf("%s: %v", target, err)
			s.Close()
			continue
		}
		p.Close()
		s.Close()
	}
	// Not listed once the archive and the nested index are not.
	g.setDoc("/cap.xml", capList(map[string]string{"resourcelist": "/rl.xml", "changelist": "/cl.xml"}))
	g.setDoc("/cl.xml", changeListIndex("2030-01-01T08:00:00Z", [3]string{"/cl1.xml", "2030-01-01T08:00:00Z", ""}))
	for _, target := range []string{g.srv.URL + "/deep.xml", g.srv.URL + "/old.xml"} {
		s := openSession(t, dir, testClient(t), Options{})
		if p, err := s.Plan(context.Background(), target, PlanOptions{}); !errors.Is(err, errNotListed) {
			t.Errorf("%s, no longer listed: %v", target, err)
			if err == nil {
				p.Close()
			}
		}
		s.Close()
	}
}

func TestAForeignArchiveIsAProblem(t *testing.T) {
	g := newChangingSource(t)
	e := hostileSource(t, g)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), g.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	// g's index no longer reaches back to the copy's point (10:00), and
	// links to an archive on E that g's Capability List does not list.
	g.setDoc("/cl.xml", strings.Replace(changeListIndex("2030-01-01T12:00:00Z", [3]string{"/cl9.xml", "2030-01-01T12:00:00Z", ""}),
		`<rs:md capability`, `<rs:ln rel="archives" href="`+e.srv.URL+`/cla.xml"/>`+"\n"+`<rs:md capability`, 1))
	g.setDoc("/cl9.xml", changeList("2030-01-01T12:00:00Z", ""))
	e.setForeignDoc("/cla.xml", strings.NewReplacer(`capability="changelist"`, `capability="changelist-archive"`).Replace(
		changeListIndex("2030-01-01T10:00:00Z", [3]string{"/old.xml", "2030-01-01T10:00:00Z", "2030-01-01T12:00:00Z"})), g)
	e.setForeignDoc("/old.xml", changeList("2030-01-01T10:00:00Z", "2030-01-01T12:00:00Z",
		`<url><loc>{{g}}/r/a</loc><rs:md change="deleted" datetime="2030-01-01T10:06:00Z"/></url>`+"\n"), g)
	// The archive must be a urlset of closed lists.
	e.setDoc("/cla.xml", strings.NewReplacer("<sitemapindex", "<urlset", "</sitemapindex>", "</urlset>", "<sitemap>", "<url>", "</sitemap>", "</url>").Replace(e.docs["/cla.xml"]))
	res := syncOnce(t, dir, testClient(t), g.target(), PlanOptions{Delete: true, Mode: ModeIncremental})
	if res.OK() || res.Deleted != 0 || len(res.Plan.ArchivedLists) != 0 {
		t.Fatalf("ok %v, deleted %d, archived %v", res.OK(), res.Deleted, res.Plan.ArchivedLists)
	}
	i := slices.IndexFunc(res.Plan.Problems, func(f Failure) bool { return errors.Is(f.Err, errNotListed) })
	if i < 0 || !strings.Contains(res.Plan.Problems[i].Err.Error(), e.srv.URL+"/cla.xml") || !strings.Contains(res.Plan.Problems[i].Err.Error(), g.target()) {
		t.Errorf("problems:%s", failures(res))
	}
	if !slices.Contains(files(t, dir), g.hostDir()+"/r/a") {
		t.Errorf("the foreign archive's deletion was applied")
	}
}

// A document the Capability List lists whose fetch is redirected to another
// host is the Source's: its server chose the redirect. Its relative locs
// resolve against where it was served from, and resources on that other
// host are outside the Source's authority (refused, without
// --allow-other-hosts); those on the Source's host are applied.
func TestARedirectedListedDocumentIsTheSources(t *testing.T) {
	g := newChangingSource(t)
	e := hostileSource(t, g)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), g.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	redirect := httptest.NewServer(http.RedirectHandler(e.srv.URL+"/cl.xml", http.StatusFound))
	t.Cleanup(redirect.Close)
	g.setDoc("/cap.xml", strings.Replace(capList(map[string]string{"resourcelist": "/rl.xml", "changelist": "/cl.xml"}), "{{base}}/cl.xml", redirect.URL+"/cl.xml", 1))
	v2 := []byte("a v2\n")
	g.setRes("/r/a", v2)
	e.setForeignDoc("/cl.xml", changeList("2030-01-01T08:00:00Z", "",
		`<url><loc>{{g}}/r/a</loc><rs:md change="updated" datetime="2030-01-01T10:05:00Z" hash="md5:`+md5hex(v2)+`" length="5"/></url>`+"\n",
		clEntry("/r/x", "created", "2030-01-01T10:06:00Z", []byte("x from E\n"))), g)
	res := syncOnce(t, dir, testClient(t), g.target(), PlanOptions{})
	if res.Updated != 1 || string(readFile(t, dir, g.hostDir()+"/r/a")) != string(v2) {
		t.Errorf("updated %d:%s", res.Updated, failures(res))
	}
	if res.Plan.Summary.Refused != 1 || !strings.Contains(res.Plan.Refused[0].URL, e.srv.URL+"/r/x") || len(res.Plan.Lists) != 1 || res.Plan.Lists[0].URL != e.srv.URL+"/cl.xml" {
		t.Errorf("refused %+v, lists %+v", res.Plan.Refused, res.Plan.Lists)
	}
	// Given directly, the listed URL is the Source's too.
	s := openSession(t, dir, testClient(t), Options{})
	p, err := s.Plan(context.Background(), redirect.URL+"/cl.xml", PlanOptions{})
	if err != nil {
		t.Fatalf("the listed URL, redirected: %v", err)
	}
	p.Close()
}

// The live index's (or Change Dump's) rel="archives" link is only its claim
// too: an archive the Capability List does not list is a problem of the
// run, and none of its lists or dumps is applied.
func TestAnArchiveTheCapabilityListDoesNotListIsAProblem(t *testing.T) {
	for _, from := range []From{FromList, FromDump} {
		t.Run(string(from), func(t *testing.T) {
			src := demo.New(demo.Options{Resources: 300, Seed: 24, LiveChangeDumps: 1, LiveChangeLists: 1})
			h := src.Handler()
			var hide atomic.Bool
			unlisted := regexp.MustCompile(`(?s)<url>\s*<loc>[^<]*-archive\.xml</loc>.*?</url>`)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !hide.Load() || r.URL.Path != "/dataset1/capabilitylist.xml" {
					h.ServeHTTP(w, r)
					return
				}
				rec := httptest.NewRecorder()
				r.Header.Del("Accept-Encoding") // to edit it plain
				h.ServeHTTP(rec, r)
				w.Header().Set("Content-Type", "application/xml")
				w.Write(unlisted.ReplaceAll(rec.Body.Bytes(), nil))
			}))
			defer srv.Close()
			target := srv.URL + "/dataset1/capabilitylist.xml"
			dir := t.TempDir()
			if res := syncOnce(t, dir, testClient(t), target, PlanOptions{BaselineFrom: from}); !res.OK() {
				t.Fatalf("baseline:%s", failures(res))
			}
			advance(t, srv.URL, 12)
			hide.Store(true)
			if cl := parseURL(t, target); slices.ContainsFunc(cl.Entries, func(e model.Entry) bool { return strings.Contains(e.Loc, "archive") }) {
				t.Fatal("the Capability List still lists an archive")
			}
			before := files(t, dir)
			inc := syncOnce(t, dir, testClient(t), target, PlanOptions{ChangesFrom: from, Delete: true})
			if inc.OK() || len(inc.Plan.ArchivedLists) != 0 || slices.ContainsFunc(inc.Plan.Lists, func(l ListRead) bool { return l.Archived }) {
				t.Fatalf("ok %v, archived %q", inc.OK(), archivedURLs(inc.Plan))
			}
			if !slices.ContainsFunc(inc.Plan.Problems, func(f Failure) bool {
				return errors.Is(f.Err, errNotListed) && strings.Contains(f.Err.Error(), "-archive.xml") && strings.Contains(f.Err.Error(), target)
			}) {
				t.Errorf("problems:%s", failures(inc))
			}
			// What the run applied is the Source's own: nothing, or, where
			// --mode auto reconciles across the gap, its Resource List
			// (with a problem, no deletion is decided: extra files stay).
			if inc.Plan.Mode == ModeBaseline {
				for _, p := range mirrorProblems(t, dir, srv.URL+"/dataset1/resourcelist.xml", nil) {
					if !strings.HasPrefix(p, "extra file ") && !strings.Contains(p, " files of the ") {
						t.Error(p)
					}
				}
				if inc.Deleted != 0 {
					t.Errorf("%d deleted", inc.Deleted)
				}
			} else if after := files(t, dir); !slices.Equal(before, after) {
				t.Errorf("the copy changed")
			}
		})
	}
}
