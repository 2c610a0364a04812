package engine

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"rsx/demo"
	"rsx/dest/pathmap"
	"rsx/dest/store"
	"rsx/fetch"
	"rsx/model"
)

// startDemo serves a demo Source on a free loopback port.
func startDemo(t testing.TB, o demo.Options) *demo.Server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv, err := demo.Start(ctx, "127.0.0.1:0", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// advance moves a demo Source's clock on, as a client would.
func advance(t testing.TB, base string, steps int) {
	t.Helper()
	resp, err := http.Post(fmt.Sprintf("%s/demo/advance?steps=%d", base, steps), "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("advance: %s", resp.Status)
	}
}

// fixtureClock is the tests' clock: the time, moved on to 2031 while it is
// earlier. The fake Sources' documents are dated in January 2030, and a
// change dated after the clock is not believed (dest/plan.FutureAllowance).
func fixtureClock() time.Time {
	now := time.Now()
	if after := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC); now.Before(after) {
		return now.Add(fixtureLead)
	}
	return now
}

// fixtureLead is how far fixtureClock runs ahead of the time, fixed once so
// that durations measured with it stay true.
var fixtureLead = time.Until(time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC))

// testClient is a client for loopback tests: no cache, no rate limit, quick
// retries.
func testClient(t testing.TB) *fetch.Client {
	t.Helper()
	c, err := fetch.NewClient(testClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func testClientOptions() fetch.Options {
	o := fetch.DefaultOptions()
	o.NoCache = true
	o.PerHostRate = 0
	o.PerHostConcurrency = 8
	o.RetryWait = 10 * time.Millisecond
	o.MaxRetryWait = 50 * time.Millisecond
	o.Netrc = "-"
	return o
}

// counting wraps a transport and counts the requests per path.
type counting struct {
	rt http.RoundTripper
	mu sync.Mutex
	n  map[string]int
}

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.n[r.URL.Path]++
	c.mu.Unlock()
	return c.rt.RoundTrip(r)
}

func (c *counting) count(prefix string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for p, k := range c.n {
		if strings.HasPrefix(p, prefix) {
			n += k
		}
	}
	return n
}

// countingClient is a testClient whose requests are counted.
func countingClient(t testing.TB) (*fetch.Client, *counting) {
	t.Helper()
	cnt := &counting{rt: http.DefaultTransport.(*http.Transport).Clone(), n: map[string]int{}}
	o := testClientOptions()
	o.Transport = cnt
	c, err := fetch.NewClient(o)
	if err != nil {
		t.Fatal(err)
	}
	return c, cnt
}

// openSession opens a session on a destination folder.
func openSession(t testing.TB, dir string, c Client, o Options) *Dest {
	t.Helper()
	st, err := store.OpenDir(dir, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if o.Now == nil {
		o.Now = fixtureClock
	}
	s, err := Open(context.Background(), st, c, o)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); st.Close() })
	return s
}

// syncOnce plans and runs in a session of its own.
func syncOnce(t testing.TB, dir string, c Client, target string, po PlanOptions) *Result {
	t.Helper()
	st, err := store.OpenDir(dir, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := Open(context.Background(), st, c, Options{Now: fixtureClock})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := s.Plan(context.Background(), target, po)
	if err != nil {
		t.Fatalf("plan %s: %v", target, err)
	}
	defer p.Close()
	res, err := s.Run(context.Background(), p)
	if err != nil {
		t.Fatalf("run %s: %v", target, err)
	}
	return res
}

// files lists the files of a destination (not .rsx), relative, sorted.
func files(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if rel == ".rsx" {
				return filepath.SkipDir
			}
			return nil
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func failures(r *Result) string {
	var b strings.Builder
	for _, f := range r.Failed {
		fmt.Fprintf(&b, "\n  %s [%s]: %v", f.URL, f.Kind, f.Err)
	}
	for _, f := range r.Plan.Problems {
		fmt.Fprintf(&b, "\n  problem %s [%s]: %v", f.URL, f.Kind, f.Err)
	}
	return b.String()
}

// fakeSource is a small Source for tests whose documents and resources the
// test writes: documents are templates where {{base}} is the server's URL.
type fakeSource struct {
	t        testing.TB
	srv      *httptest.Server
	mu       sync.Mutex
	docs     map[string]string // path → document template
	res      map[string][]byte // path → body
	code     map[string]int    // path → status to answer instead
	redirect map[string]string // path → a path (or URL) to redirect to, with 302
	hits     map[string]int
	hook     func(path string) // called before each answer, when set
}

func newFakeSource(t testing.TB) *fakeSource {
	t.Helper()
	f := &fakeSource{t: t, docs: map[string]string{}, res: map[string][]byte{}, code: map[string]int{}, redirect: map[string]string{}, hits: map[string]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeSource) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	p := r.URL.EscapedPath()
	if r.URL.RawQuery != "" {
		p += "?" + r.URL.RawQuery
	}
	f.hits[p]++
	hook := f.hook
	f.mu.Unlock()
	if hook != nil {
		hook(p) // may change the answer: read it after
	}
	f.mu.Lock()
	code, hasCode := f.code[p]
	to, isRedirect := f.redirect[p]
	doc, isDoc := f.docs[p]
	body, isRes := f.res[p]
	f.mu.Unlock()
	switch {
	case isRedirect:
		http.Redirect(w, r, to, http.StatusFound)
	case hasCode:
		w.WriteHeader(code)
	case isDoc:
		w.Header().Set("Content-Type", "application/xml")
		io.WriteString(w, strings.ReplaceAll(doc, "{{base}}", f.srv.URL))
	case isRes:
		w.Write(body)
	default:
		http.NotFound(w, r)
	}
}

// set sets a document, a resource or a status (locked: the server runs).
func (f *fakeSource) setDoc(p, doc string) { f.mu.Lock(); f.docs[p] = doc; f.mu.Unlock() }
func (f *fakeSource) setRes(p string, b []byte) {
	f.mu.Lock()
	f.res[p] = b
	f.mu.Unlock()
}
func (f *fakeSource) setCode(p string, code int) {
	f.mu.Lock()
	if code == 0 {
		delete(f.code, p)
	} else {
		f.code[p] = code
	}
	f.mu.Unlock()
}
func (f *fakeSource) setRedirect(p, to string) {
	f.mu.Lock()
	if to == "" {
		delete(f.redirect, p)
	} else {
		f.redirect[p] = to
	}
	f.mu.Unlock()
}
func (f *fakeSource) hitsOf(p string) int { f.mu.Lock(); defer f.mu.Unlock(); return f.hits[p] }
func (f *fakeSource) resetHits()          { f.mu.Lock(); f.hits = map[string]int{}; f.mu.Unlock() }

// resourceHits counts the requests for resources (paths under /r/).
func (f *fakeSource) resourceHits() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for p, k := range f.hits {
		if strings.HasPrefix(p, "/r/") {
			n += k
		}
	}
	return n
}

const (
	urlsetOpen = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="{{base}}/cap.xml"/>
`
	indexOpen = `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="{{base}}/cap.xml"/>
`
)

// capList is a Capability List offering the documents given as
// capability → path.
func capList(docs map[string]string) string {
	var b strings.Builder
	b.WriteString(strings.Replace(urlsetOpen, `<rs:ln rel="up" href="{{base}}/cap.xml"/>`, "", 1))
	b.WriteString(`<rs:md capability="capabilitylist"/>` + "\n")
	caps := make([]string, 0, len(docs))
	for c := range docs {
		caps = append(caps, c)
	}
	sort.Strings(caps)
	for _, c := range caps {
		fmt.Fprintf(&b, "<url><loc>{{base}}%s</loc><rs:md capability=%q/></url>\n", docs[c], c)
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

// rlEntry is a Resource List entry for a resource at path with body.
func rlEntry(path string, body []byte, lastmod string) string {
	return fmt.Sprintf("<url><loc>{{base}}%s</loc><lastmod>%s</lastmod><rs:md hash=\"md5:%s\" length=\"%d\"/></url>\n", path, lastmod, md5hex(body), len(body))
}

// resourceList is a Resource List at at with the entries given.
func resourceList(at string, entries ...string) string {
	return urlsetOpen + `<rs:md capability="resourcelist" at="` + at + `"/>` + "\n" + strings.Join(entries, "") + "</urlset>\n"
}

// clEntry is a Change List entry; body is nil for a deletion.
func clEntry(path, change, datetime string, body []byte) string {
	if body == nil {
		return fmt.Sprintf("<url><loc>{{base}}%s</loc><rs:md change=%q datetime=%q/></url>\n", path, change, datetime)
	}
	return fmt.Sprintf("<url><loc>{{base}}%s</loc><lastmod>%s</lastmod><rs:md change=%q datetime=%q hash=\"md5:%s\" length=\"%d\"/></url>\n",
		path, datetime, change, datetime, md5hex(body), len(body))
}

// changeList is a Change List from from (until "" for an open one).
func changeList(from, until string, entries ...string) string {
	md := `<rs:md capability="changelist" from="` + from + `"`
	if until != "" {
		md += ` until="` + until + `"`
	}
	return urlsetOpen + md + "/>\n" + strings.Join(entries, "") + "</urlset>\n"
}

// changeListIndex lists Change Lists: each as path, from, until.
func changeListIndex(from string, lists ...[3]string) string {
	var b strings.Builder
	b.WriteString(indexOpen + `<rs:md capability="changelist" from="` + from + `"/>` + "\n")
	for _, l := range lists {
		md := `<rs:md from="` + l[1] + `"`
		if l[2] != "" {
			md += ` until="` + l[2] + `"`
		}
		fmt.Fprintf(&b, "<sitemap><loc>{{base}}%s</loc>%s/></sitemap>\n", l[0], md)
	}
	b.WriteString("</sitemapindex>\n")
	return b.String()
}

func md5hex(b []byte) string { s := md5.Sum(b); return hex.EncodeToString(s[:]) }

// readFile reads a file of a destination by its slash path.
func readFile(t testing.TB, dir, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hostDir is the folder a fake Source's resources are copied under.
func (f *fakeSource) hostDir() string {
	return strings.ReplaceAll(strings.TrimPrefix(f.srv.URL, "http://"), ":", "+")
}

// sourceEntries reads every entry of a Resource List (or of every part of
// its index), independently of the engine.
func sourceEntries(t testing.TB, rl string) []model.Entry {
	t.Helper()
	doc := parseURL(t, rl)
	if doc.Root != model.RootSitemapIndex {
		return doc.Entries
	}
	var out []model.Entry
	for _, e := range doc.Entries {
		out = append(out, parseURL(t, e.Loc).Entries...)
	}
	return out
}

func parseURL(t testing.TB, u string) *model.Document {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := model.Parse(resp.Body)
	if err != nil {
		t.Fatalf("parse %s: %v", u, err)
	}
	return doc
}

// assertMirror checks that dir holds exactly the resources of the Resource
// List rl that match keep (nil: all), each with the md5 it declares.
func assertMirror(t testing.TB, dir, rl string, keep func(uri string) bool) {
	t.Helper()
	for _, p := range mirrorProblems(t, dir, rl, keep) {
		t.Error(p)
	}
}

// mirrorProblems says how dir differs from the resources of the Resource
// List rl that match keep (nil: all); nothing when it holds exactly them,
// each with the md5 it declares.
func mirrorProblems(t testing.TB, dir, rl string, keep func(uri string) bool) []string {
	t.Helper()
	var out []string
	m, err := pathmap.New(pathmap.Options{AllowOtherHosts: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, e := range sourceEntries(t, rl) {
		if keep != nil && !keep(e.Loc) {
			continue
		}
		p, err := m.Map(e.Loc)
		if err != nil {
			t.Fatal(err)
		}
		want[p] = true
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			out = append(out, fmt.Sprintf("%s: %v", e.Loc, err))
			continue
		}
		h, _ := e.MD.Hash.Get("md5")
		if got := md5hex(b); got != h.Hex() || int64(len(b)) != e.MD.Length {
			out = append(out, fmt.Sprintf("%s: %d bytes, md5 %s; declared %d, %s", e.Loc, len(b), got, e.MD.Length, h.Hex()))
		}
	}
	got := files(t, dir)
	extra := 0
	for _, p := range got {
		if !want[p] {
			extra++
			if extra < 5 {
				out = append(out, "extra file "+p)
			}
		}
	}
	if len(got)-extra != len(want) {
		out = append(out, fmt.Sprintf("%d files of the %d listed", len(got)-extra, len(want)))
	}
	return out
}
