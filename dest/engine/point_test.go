package engine

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// liveSource is a Source that changes while it is served, as the reference
// implementation's simulator (resync-simulator) does: its Resource List is
// made at each request, at the time it is served; its one Change List holds
// every change since the Source started, from the first change's time, and
// always carries until, the time it is served (which the specification
// reserves for a closed list), with an ETag of the body, and answers a
// matching If-None-Match with 304, as Tornado does. It is served over
// HTTP/1.1 keep-alive (httptest's server).
type liveSource struct {
	t   testing.TB
	srv *httptest.Server
	mu  sync.Mutex
	res map[string][]byte // name → body
	log []liveChange
	// until, when set, is the Change List's until at every request (a list
	// that says it covers a time still to come), instead of the time it is
	// served; noETag serves it without an ETag.
	until  time.Time
	noETag bool
	// noFrom serves the Change List without from, as the simulator does
	// when its first change is a deletion.
	noFrom bool
	// onResource, when set, is called before a resource is answered.
	onResource func(name string)
}

type liveChange struct {
	name, change string
	at           time.Time
	body         []byte // nil for a deletion
}

func newLiveSource(t testing.TB, names ...string) *liveSource {
	t.Helper()
	s := &liveSource{t: t, res: map[string][]byte{}}
	for _, n := range names {
		s.put(n, []byte(n+" v1\n"))
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *liveSource) target() string { return s.srv.URL + "/cap.xml" }

// put creates or updates a resource, recording the change at the time.
func (s *liveSource) put(name string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	change := "updated"
	if _, ok := s.res[name]; !ok {
		change = "created"
	}
	s.res[name] = body
	s.log = append(s.log, liveChange{name: name, change: change, at: liveNow(), body: body})
}

// remove deletes a resource, recording the change at the time.
func (s *liveSource) remove(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.res, name)
	s.log = append(s.log, liveChange{name: name, change: "deleted", at: liveNow()})
}

// liveNow is the Source's clock: the tests' clock, which the engine reads
// too, with a moment's sleep so that no two events share a time.
func liveNow() time.Time {
	time.Sleep(2 * time.Millisecond)
	return fixtureClock().UTC()
}

func liveTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }

func (s *liveSource) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	hook := s.onResource
	s.mu.Unlock()
	base := s.srv.URL
	switch p := r.URL.Path; {
	case p == "/cap.xml":
		io.WriteString(w, strings.ReplaceAll(capList(map[string]string{"resourcelist": "/rl.xml", "changelist": "/cl.xml"}), "{{base}}", base))
	case p == "/rl.xml":
		io.WriteString(w, s.resourceList())
	case p == "/cl.xml":
		body := s.changeList()
		if !s.noETag {
			sum := sha1.Sum([]byte(body))
			etag := `"` + hex.EncodeToString(sum[:]) + `"`
			w.Header().Set("Etag", etag)
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		w.Header().Set("Content-Type", "application/xml")
		io.WriteString(w, body)
	case strings.HasPrefix(p, "/r/"):
		name := strings.TrimPrefix(p, "/r/")
		if hook != nil {
			hook(name)
		}
		s.mu.Lock()
		body, ok := s.res[name]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	default:
		http.NotFound(w, r)
	}
}

func (s *liveSource) resourceList() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.res))
	for n := range s.res {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(urlsetOpen, "{{base}}", s.srv.URL))
	fmt.Fprintf(&b, "<rs:md capability=\"resourcelist\" at=\"%s\"/>\n", liveTime(fixtureClock()))
	for _, n := range names {
		body := s.res[n]
		fmt.Fprintf(&b, "<url><loc>%s/r/%s</loc><rs:md hash=\"md5:%s\" length=\"%d\"/></url>\n", s.srv.URL, n, md5hex(body), len(body))
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

func (s *liveSource) changeList() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(urlsetOpen, "{{base}}", s.srv.URL))
	md := `<rs:md capability="changelist"`
	if len(s.log) > 0 && !s.noFrom {
		md += ` from="` + liveTime(s.log[0].at) + `"`
	}
	until := s.until
	if until.IsZero() {
		until = fixtureClock()
	}
	md += ` until="` + liveTime(until) + `"/>`
	b.WriteString(md + "\n")
	for _, c := range s.log {
		if c.body == nil {
			fmt.Fprintf(&b, "<url><loc>%s/r/%s</loc><rs:md change=\"deleted\" datetime=\"%s\"/></url>\n", s.srv.URL, c.name, liveTime(c.at))
			continue
		}
		fmt.Fprintf(&b, "<url><loc>%s/r/%s</loc><rs:md change=%q datetime=\"%s\" hash=\"md5:%s\" length=\"%d\"/></url>\n",
			s.srv.URL, c.name, c.change, liveTime(c.at), md5hex(c.body), len(c.body))
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

// assertLiveCopy checks that dir holds exactly the Source's resources, each
// with its bytes.
func (s *liveSource) assertLiveCopy(t *testing.T, dir string) {
	t.Helper()
	s.mu.Lock()
	want := map[string][]byte{}
	for n, b := range s.res {
		want[s.hostDir()+"/r/"+n] = b
	}
	s.mu.Unlock()
	got := files(t, dir)
	var names []string
	for p := range want {
		names = append(names, p)
	}
	sort.Strings(names)
	if !slices.Equal(got, names) {
		t.Errorf("files %q, want %q", got, names)
		return
	}
	for p, b := range want {
		if g := readFile(t, dir, p); string(g) != string(b) {
			t.Errorf("%s holds %q, the Source %q", p, g, b)
		}
	}
}

func (s *liveSource) hostDir() string {
	return strings.ReplaceAll(strings.TrimPrefix(s.srv.URL, "http://"), ":", "+")
}

// The fault of issue 34: against a Source whose one Change List grows
// between runs and always carries until (the time it was served), a third
// run found the list processed whole and closed by the second, did not read
// it, and moved the copy's point to the until it now said, over changes it
// never applied.
func TestGrowingListWithUntilIsReadAgain(t *testing.T) {
	s := newLiveSource(t, "a", "b", "c")
	dir := t.TempDir()
	res := syncOnce(t, dir, testClient(t), s.target(), PlanOptions{})
	if !res.OK() || res.Plan.Mode != ModeBaseline || res.Created != 3 {
		t.Fatalf("baseline: %+v:%s", res.Plan.Summary, failures(res))
	}

	s.put("a", []byte("a v2\n"))
	res = syncOnce(t, dir, testClient(t), s.target(), PlanOptions{})
	if !res.OK() || res.Plan.Mode != ModeIncremental || res.Updated != 1 {
		t.Fatalf("second run: mode %s, gap %v, updated %d:%s", res.Plan.Mode, res.Plan.Gap, res.Updated, failures(res))
	}
	s.assertLiveCopy(t, dir)

	// The list grows: the same URL, a later until, another ETag.
	s.put("b", []byte("b v2, longer\n"))
	s.remove("c")
	s.put("d", []byte("d v1\n"))
	before := res.SyncedUntil
	res = syncOnce(t, dir, testClient(t), s.target(), PlanOptions{Delete: true})
	if !res.OK() || res.Updated != 1 || res.Created != 1 || res.Deleted != 1 {
		t.Errorf("third run: lists %+v, created %d, updated %d, deleted %d, the point %s → %s:%s",
			res.Plan.Lists, res.Created, res.Updated, res.Deleted, liveTime(before), liveTime(res.SyncedUntil), failures(res))
	}
	if len(res.Plan.Lists) != 1 || res.Plan.Lists[0].Entries != 7 || res.SyncedUntil.After(res.Plan.Lists[0].Until) {
		t.Errorf("the grown list was not read, or the point %s passed its until: %+v", liveTime(res.SyncedUntil), res.Plan.Lists)
	}
	s.assertLiveCopy(t, dir)
	if rep := auditOnce(t, dir, testClient(t), s.target()); !rep.InSync() {
		t.Errorf("audit after the third run: not in sync: missing %q, changed %q, extra %q, unannounced %q", rep.Missing, rep.Changed, rep.Extra, rep.Unannounced)
	}

	// Nothing changed: nothing applied, and the copy stays in step.
	res = syncOnce(t, dir, testClient(t), s.target(), PlanOptions{Delete: true})
	if !res.OK() || res.Created+res.Updated+res.Deleted != 0 {
		t.Errorf("fourth run: %+v:%s", res.Plan.Summary, failures(res))
	}
	s.assertLiveCopy(t, dir)
}

// A list that says until a time still to come, the same at every request
// and served without an ETag, may still grow: it is read again at each run,
// and the copy's point goes no further than when it was read.
func TestListUntilLaterThanReadIsNotClosed(t *testing.T) {
	s := newLiveSource(t, "a", "b")
	s.until = fixtureClock().Add(2 * time.Minute).UTC().Truncate(time.Microsecond)
	s.noETag = true
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), s.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	s.put("a", []byte("a v2\n"))
	res := syncOnce(t, dir, testClient(t), s.target(), PlanOptions{})
	if !res.OK() || res.Plan.Mode != ModeIncremental || res.Updated != 1 {
		t.Fatalf("second run: gap %v, updated %d:%s", res.Plan.Gap, res.Updated, failures(res))
	}
	if !res.SyncedUntil.Before(s.until) {
		t.Errorf("the point %s passed the time the list was read, up to its until %s", liveTime(res.SyncedUntil), liveTime(s.until))
	}
	s.put("b", []byte("b v2\n"))
	res = syncOnce(t, dir, testClient(t), s.target(), PlanOptions{})
	if !res.OK() || res.Updated != 1 || len(res.Plan.Lists) != 1 {
		t.Errorf("third run: lists %+v, updated %d:%s", res.Plan.Lists, res.Updated, failures(res))
	}
	s.assertLiveCopy(t, dir)
}

// A closed list of an index, processed whole, is read again when the index
// describes it with another until: it is not the list that was read.
func TestClosedListRewrittenIsReadAgain(t *testing.T) {
	f := newChangingSource(t)
	dir := t.TempDir()
	if res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() {
		t.Fatalf("baseline:%s", failures(res))
	}
	a2, b2 := []byte("a v2\n"), []byte("b v2\n")
	f.setRes("/r/a", a2)
	f.setDoc("/cl.xml", changeListIndex("2030-01-01T08:00:00Z", [3]string{"/cl1.xml", "2030-01-01T08:00:00Z", "2030-01-01T10:30:00Z"}))
	f.setDoc("/cl1.xml", changeList("2030-01-01T08:00:00Z", "2030-01-01T10:30:00Z",
		clEntry("/r/a", "updated", "2030-01-01T10:10:00Z", a2)))
	res := syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !res.OK() || res.Updated != 1 {
		t.Fatalf("second run: updated %d:%s", res.Updated, failures(res))
	}
	// The Source rewrites the closed list with a later until and a change.
	f.setRes("/r/b", b2)
	f.setDoc("/cl.xml", changeListIndex("2030-01-01T08:00:00Z", [3]string{"/cl1.xml", "2030-01-01T08:00:00Z", "2030-01-01T11:00:00Z"}))
	f.setDoc("/cl1.xml", changeList("2030-01-01T08:00:00Z", "2030-01-01T11:00:00Z",
		clEntry("/r/a", "updated", "2030-01-01T10:10:00Z", a2),
		clEntry("/r/b", "updated", "2030-01-01T10:45:00Z", b2)))
	f.resetHits()
	res = syncOnce(t, dir, testClient(t), f.target(), PlanOptions{})
	if !res.OK() || res.Updated != 1 || f.hitsOf("/cl1.xml") != 1 {
		t.Errorf("third run: list read %d times, updated %d, point %v:%s", f.hitsOf("/cl1.xml"), res.Updated, res.SyncedUntil, failures(res))
	}
	if got := readFile(t, dir, f.hostDir()+"/r/b"); string(got) != string(b2) {
		t.Errorf("b holds %q", got)
	}
	// Unchanged since: not fetched again.
	f.resetHits()
	if res = syncOnce(t, dir, testClient(t), f.target(), PlanOptions{}); !res.OK() || f.hitsOf("/cl1.xml") != 0 {
		t.Errorf("fourth run: the closed list read %d times:%s", f.hitsOf("/cl1.xml"), failures(res))
	}
}
