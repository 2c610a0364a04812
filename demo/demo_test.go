package demo

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"rsx/model"
)

const testHost = "demo.test:8080"
const testBase = "http://" + testHost

// get serves one request in-process.
func get(t testing.TB, h http.Handler, rawURL string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	if strings.HasPrefix(rawURL, "/") {
		rawURL = testBase + rawURL
	}
	req := httptest.NewRequest(http.MethodGet, rawURL, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// mustGet requires a 200 answer.
func mustGet(t testing.TB, h http.Handler, rawURL string) []byte {
	t.Helper()
	rec := get(t, h, rawURL)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", rawURL, rec.Code, rec.Body.String())
	}
	return rec.Body.Bytes()
}

func parse(t testing.TB, name string, b []byte) *model.Document {
	t.Helper()
	d, err := model.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return d
}

// check runs the model's conformance checker and returns the errors it found.
func check(d *model.Document, base string, capability model.Capability) []model.Problem {
	c := model.NewChecker(model.CheckOptions{BaseURL: base, Capability: capability})
	c.Begin(&d.Header)
	for i := range d.Entries {
		c.Entry(&d.Entries[i])
	}
	c.End(&d.Header, d.Bytes)
	var errs []model.Problem
	for _, p := range c.Problems() {
		if p.Severity == model.SeverityError {
			errs = append(errs, p)
		}
	}
	return errs
}

func hdrLink(h *model.Header, rel string) string {
	for _, l := range h.Links {
		if l.Rel == rel {
			return l.Href
		}
	}
	return ""
}

// crawl walks every document below the well-known URI (down links, parts,
// manifest copies) and returns them by URL.
func crawl(t testing.TB, h http.Handler) map[string]*model.Document {
	return crawlTolerant(t, h, false)
}

// crawlTolerant is crawl; with tolerant set it retries a 503 once and skips
// documents that are not served (as the broken demo has).
func crawlTolerant(t testing.TB, h http.Handler, tolerant bool) map[string]*model.Document {
	t.Helper()
	docs := map[string]*model.Document{}
	queue := []string{testBase + "/.well-known/resourcesync"}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if _, ok := docs[u]; ok {
			continue
		}
		var body []byte
		if tolerant {
			rec := get(t, h, u)
			if rec.Code == http.StatusServiceUnavailable {
				rec = get(t, h, u)
			}
			if rec.Code != http.StatusOK {
				docs[u] = nil
				continue
			}
			body = rec.Body.Bytes()
		} else {
			body = mustGet(t, h, u)
		}
		wellFormed(t, u, body)
		d := parse(t, u, body)
		docs[u] = d
		for _, e := range d.Entries {
			switch {
			case isChannel(&e):
				// a notification channel, not a document (notify_test.go)
			case d.Root == model.RootSitemapIndex:
				queue = append(queue, e.Loc)
			case d.MD.Capability == model.CapDescription || d.MD.Capability == model.CapCapabilityList || d.MD.Capability.IsArchive():
				queue = append(queue, e.Loc)
			}
			for _, l := range e.Links {
				if l.Rel == "contents" {
					queue = append(queue, l.Href)
				}
			}
		}
	}
	return docs
}

// isChannel tells a Capability List entry for a notification channel.
func isChannel(e *model.Entry) bool {
	return e.MD.Capability == model.CapChangeNotification || e.MD.Capability == model.CapFrameworkNotification
}

// wellFormed checks a document with encoding/xml, independently of the model's decoder.
func wellFormed(t testing.TB, name string, b []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	for {
		_, err := dec.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Errorf("%s is not well-formed: %v", name, err)
			return
		}
	}
}

func TestEveryDocumentParsesAndConforms(t *testing.T) {
	s := New(Options{})
	docs := crawl(t, s.Handler())
	// Source Description, 2 Capability Lists, RL index + 5 parts, RL 2, 2 RDs, 8+2 manifest copies,
	// CL index + 5 lists, CL 2, CD + 18 manifest copies.
	if len(docs) < 40 {
		t.Errorf("crawled %d documents, want at least 40", len(docs))
	}
	caps := map[model.Capability]int{}
	for u, d := range docs {
		caps[d.MD.Capability]++
		want := model.Capability("")
		if strings.Contains(u, "manifest") {
			want = d.MD.Capability
		}
		for _, p := range check(d, u, want) {
			t.Errorf("%s: %s [%s] entry %d: %s", u, p.Rule, p.Section, p.Entry, p.Message)
		}
		if d.MD.Capability != model.CapDescription && hdrLink(&d.Header, "up") == "" {
			t.Errorf("%s: no up link", u)
		}
	}
	for _, c := range []model.Capability{model.CapDescription, model.CapCapabilityList, model.CapResourceList,
		model.CapResourceDump, model.CapResourceDumpManifest, model.CapChangeList, model.CapChangeDump, model.CapChangeDumpManifest,
		model.CapResourceListArchive, model.CapChangeListArchive} {
		if caps[c] == 0 {
			t.Errorf("no document with capability %s", c)
		}
	}
}

func TestDeterministic(t *testing.T) {
	paths := []string{"/.well-known/resourcesync", "/dataset1/resourcelist.xml", "/dataset1/resourcelist-0002.xml",
		"/dataset2/resourcelist.xml", "/dataset1/changelist/0003.xml", "/dataset1/changelist/0005.xml",
		"/dataset1/changedump.xml", "/dataset1/resourcedump.xml", "/dataset1/resourcedump/part-0003.zip",
		"/dataset1/changedump/0004.zip", "/dataset2/res/000007.png", "/dataset1/res/000011.html"}
	for _, broken := range []bool{false, true} {
		a, b := New(Options{Seed: 7, Broken: broken}), New(Options{Seed: 7, Broken: broken})
		c := New(Options{Seed: 8, Broken: broken})
		for _, p := range paths {
			if p == "/dataset1/resourcelist-0002.xml" && broken {
				continue // fails every other time
			}
			x, y, z := mustGet(t, a.Handler(), p), mustGet(t, b.Handler(), p), mustGet(t, c.Handler(), p)
			if !bytes.Equal(x, y) {
				t.Errorf("broken=%v %s: two Sources with the same options serve different bytes", broken, p)
			}
			if bytes.Equal(x, z) && p != "/.well-known/resourcesync" && p != "/dataset1/resourcelist.xml" {
				t.Errorf("broken=%v %s: another seed serves the same bytes", broken, p)
			}
		}
	}
}

// verify checks bytes against an entry's declared hash, length and type.
func verify(t testing.TB, what string, body []byte, md *model.Metadata, ctype string) {
	t.Helper()
	v := model.NewVerifier(md.Hash)
	v.Write(body)
	if !v.OK() {
		t.Errorf("%s: hash mismatch: %+v", what, v.Results())
	}
	if !md.LengthOK || md.Length != int64(len(body)) {
		t.Errorf("%s: length %d declared, %d served", what, md.Length, len(body))
	}
	if ctype != "" && md.Type != ctype {
		t.Errorf("%s: type %q declared, %q served", what, md.Type, ctype)
	}
}

func TestResourcesMatchTheirEntries(t *testing.T) {
	s := New(Options{})
	h := s.Handler()
	types := map[string]int{}
	rels := map[string]int{}
	for _, list := range []string{"/dataset1/resourcelist-0001.xml", "/dataset1/resourcelist-0005.xml", "/dataset2/resourcelist.xml"} {
		d := parse(t, list, mustGet(t, h, list))
		for i, e := range d.Entries {
			for _, l := range e.Links {
				rels[l.Rel]++
			}
			if i%3 != 0 && e.MD.Type != "image/svg+xml" {
				continue
			}
			rec := get(t, h, e.Loc)
			if rec.Code != http.StatusOK {
				t.Fatalf("GET %s: %d", e.Loc, rec.Code)
			}
			verify(t, e.Loc, rec.Body.Bytes(), &e.MD, rec.Header().Get("Content-Type"))
			types[e.MD.Type]++
			if got := rec.Header().Get("Content-Length"); got != strconv.FormatInt(e.MD.Length, 10) {
				t.Errorf("%s: Content-Length %s", e.Loc, got)
			}
			if lm, _ := http.ParseTime(rec.Header().Get("Last-Modified")); !lm.Equal(e.Lastmod.Time) {
				t.Errorf("%s: Last-Modified %v, lastmod %v", e.Loc, lm, e.Lastmod.Time)
			}
			if rec.Header().Get("ETag") == "" {
				t.Errorf("%s: no ETag", e.Loc)
			}
			if lh := rec.Header().Get("Link"); !strings.Contains(lh, `rel="resourcesync"`) || !strings.Contains(lh, "/capabilitylist.xml>") {
				t.Errorf("%s: Link header %q", e.Loc, lh)
			}
			for _, l := range e.Links {
				if !strings.HasPrefix(l.Href, testBase) {
					continue
				}
				lr := get(t, h, l.Href)
				want := http.StatusOK
				if l.Rel == "timegate" {
					want = http.StatusFound
				}
				if lr.Code != want {
					t.Errorf("%s: %s link %s: %d", e.Loc, l.Rel, l.Href, lr.Code)
					continue
				}
				if l.Rel == "duplicate" || l.Rel == "via" || l.Rel == "memento" {
					if !bytes.Equal(lr.Body.Bytes(), rec.Body.Bytes()) {
						t.Errorf("%s: %s %s serves other bytes", e.Loc, l.Rel, l.Href)
					}
				}
				if l.Rel == "canonical" && !bytes.Equal(lr.Body.Bytes(), rec.Body.Bytes()) {
					t.Errorf("%s: canonical %s serves other bytes", e.Loc, l.Href)
				}
			}
		}
	}
	for _, typ := range []string{"text/html", "text/plain", "application/json", "application/xml", "image/png", "image/svg+xml"} {
		if types[typ] == 0 {
			t.Errorf("no resource of type %s checked", typ)
		}
	}
	for _, rel := range []string{"duplicate", "alternate", "canonical", "describedby", "describes", "profile",
		"memento", "timegate", "timemap", "collection", "via"} {
		if rels[rel] == 0 {
			t.Errorf("no %s link in the Resource Lists", rel)
		}
	}
}

func TestPNGIsValid(t *testing.T) {
	s := New(Options{})
	body := mustGet(t, s.Handler(), "/dataset2/res/000001.png")
	if !bytes.HasPrefix(body, []byte("\x89PNG\r\n\x1a\n")) || !bytes.HasSuffix(body, []byte("IEND\xaeB`\x82")) {
		t.Fatalf("not a PNG: % x", body[:16])
	}
}

// zipManifest opens a package and returns its manifest and members.
func zipManifest(t testing.TB, name string, z []byte) ([]byte, map[string][]byte, []string) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(z), int64(len(z)))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	members := map[string][]byte{}
	var order []string
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatalf("%s %s: %v", name, f.Name, err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		members[f.Name] = b
		order = append(order, f.Name)
	}
	man, ok := members["manifest.xml"]
	if !ok {
		t.Fatalf("%s: no manifest.xml at the top level (members %v)", name, order)
	}
	return man, members, order
}

// checkPackages verifies the packages of a dump: length and hash of the ZIP,
// manifest.xml inside, each path a member with the declared bytes, and the
// contents copy identical to the manifest in the package.
func checkPackages(t *testing.T, h http.Handler, dumpURL string, manifestCap model.Capability) int {
	dump := parse(t, dumpURL, mustGet(t, h, dumpURL))
	n := 0
	for _, e := range dump.Entries {
		z := mustGet(t, h, e.Loc)
		verify(t, e.Loc, z, &e.MD, "application/zip")
		man, members, _ := zipManifest(t, e.Loc, z)
		md := parse(t, e.Loc+"!manifest.xml", man)
		if md.MD.Capability != manifestCap || hdrLink(&md.Header, "up") == "" {
			t.Errorf("%s: manifest capability %q, up %q", e.Loc, md.MD.Capability, hdrLink(&md.Header, "up"))
		}
		listed := map[string]bool{"manifest.xml": true}
		for _, me := range md.Entries {
			if me.MD.Change == model.ChangeDeleted {
				if me.MD.HasPath {
					t.Errorf("%s: deleted %s has a path", e.Loc, me.Loc)
				}
				continue
			}
			name := strings.TrimPrefix(me.MD.Path, "/")
			b, ok := members[name]
			if !ok || !strings.HasPrefix(me.MD.Path, "/") {
				t.Errorf("%s: path %q is not a member", e.Loc, me.MD.Path)
				continue
			}
			listed[name] = true
			verify(t, e.Loc+"!"+name, b, &me.MD, "")
			for _, l := range me.Links {
				if l.HasPath {
					pb, ok := members[strings.TrimPrefix(l.Path, "/")]
					if !ok {
						t.Errorf("%s: link path %q is not a member", e.Loc, l.Path)
						continue
					}
					listed[strings.TrimPrefix(l.Path, "/")] = true
					verify(t, e.Loc+"!"+l.Path, pb, &model.Metadata{Hash: l.Hash, Length: l.Length, LengthOK: l.LengthOK, Type: l.Type}, "")
					if served := mustGet(t, h, l.Href); !bytes.Equal(served, pb) {
						t.Errorf("%s: %s differs from the package's %s", e.Loc, l.Href, l.Path)
					}
				}
			}
		}
		for name := range members {
			if !listed[name] {
				t.Errorf("%s: member %s is not in the manifest", e.Loc, name)
			}
		}
		for _, l := range e.Links {
			if l.Rel == "contents" {
				if cp := mustGet(t, h, l.Href); !bytes.Equal(cp, man) {
					t.Errorf("%s: contents copy %s differs from manifest.xml", e.Loc, l.Href)
				}
			}
		}
		n++
	}
	return n
}

func TestResourceDumpPackages(t *testing.T) {
	s := New(Options{})
	h := s.Handler()
	if n := checkPackages(t, h, testBase+"/dataset1/resourcedump.xml", model.CapResourceDumpManifest); n != 8 {
		t.Errorf("dataset 1: %d packages, want 8", n)
	}
	if n := checkPackages(t, h, testBase+"/dataset2/resourcedump.xml", model.CapResourceDumpManifest); n != 2 {
		t.Errorf("dataset 2: %d packages, want 2", n)
	}
}

func TestResourceDumpIndex(t *testing.T) {
	s := New(Options{Resources: 100000, PackageSize: 1000, ListSize: 50000})
	h := s.Handler()
	d := parse(t, "resourcedump.xml", mustGet(t, h, "/dataset1/resourcedump.xml"))
	if d.Root != model.RootSitemapIndex || len(d.Entries) != 2 || d.MD.Capability != model.CapResourceDump {
		t.Fatalf("Resource Dump Index: root %v, %d entries", d.Root, len(d.Entries))
	}
	part := parse(t, d.Entries[1].Loc, mustGet(t, h, d.Entries[1].Loc))
	if len(part.Entries) != 30 || hdrLink(&part.Header, "index") == "" {
		t.Errorf("part 2: %d packages, index %q", len(part.Entries), hdrLink(&part.Header, "index"))
	}
	for _, e := range part.Entries[:3] {
		z := mustGet(t, h, e.Loc)
		if !e.MD.LengthOK || e.MD.Length != int64(len(z)) || len(e.MD.Hash) != 0 || e.MD.Type != "application/zip" {
			t.Errorf("%s: length %d declared (hash %q), %d served", e.Loc, e.MD.Length, e.MD.HashRaw, len(z))
		}
	}
}

func TestChangeDumpPackages(t *testing.T) {
	s := New(Options{})
	if n := checkPackages(t, s.Handler(), testBase+"/dataset1/changedump.xml", model.CapChangeDumpManifest); n != historySteps {
		t.Errorf("%d Change Dump packages, want %d", n, historySteps)
	}
}

// changes reads the Change Lists of dataset 1 that the Change List Index
// lists.
func changes(t *testing.T, h http.Handler) (*model.Document, []*model.Document) {
	return listed(t, h, "/dataset1/changelist.xml")
}

// archivedChanges reads the Change Lists of dataset 1 that the Change List
// Archive lists.
func archivedChanges(t *testing.T, h http.Handler) (*model.Document, []*model.Document) {
	return listed(t, h, "/dataset1/changelist-archive.xml")
}

func listed(t *testing.T, h http.Handler, path string) (*model.Document, []*model.Document) {
	idx := parse(t, path, mustGet(t, h, path))
	var lists []*model.Document
	for _, e := range idx.Entries {
		lists = append(lists, parse(t, e.Loc, mustGet(t, h, e.Loc)))
	}
	return idx, lists
}

func TestChangeListsAndAdvance(t *testing.T) {
	s := New(Options{})
	h := s.Handler()
	// The history closed four lists; the index keeps the last three closed
	// (DefaultLiveChangeLists) and the open one, list 1 is in the archive.
	idx, lists := changes(t, h)
	if len(lists) != 4 {
		t.Fatalf("%d Change Lists, want 4 (3 closed, 1 open)", len(lists))
	}
	checkChangeLists(t, idx, lists)
	before := len(lists[3].Entries)
	if _, archived := archivedChanges(t, h); len(archived) != 1 || !strings.HasSuffix(archived[0].Links[0].Href, "/capabilitylist.xml") {
		t.Fatalf("%d archived Change Lists, want 1", len(archived))
	}

	s.Advance(1)
	_, lists = changes(t, h)
	if len(lists) != 4 || len(lists[3].Entries) <= before {
		t.Errorf("after one step: %d lists, %d changes in the open one (was %d)", len(lists), len(lists[3].Entries), before)
	}
	s.Advance(1) // the clock reaches 09:30: list 5 closes, list 6 opens, list 2 leaves for the archive
	idx, lists = changes(t, h)
	if len(lists) != 4 {
		t.Fatalf("after closing: %d lists, want 4", len(lists))
	}
	checkChangeLists(t, idx, lists)
	if lists[2].MD.Until.Raw == "" || lists[3].MD.Until.Raw != "" {
		t.Errorf("list 5 until %q, list 6 until %q", lists[2].MD.Until.Raw, lists[3].MD.Until.Raw)
	}
	arch, archived := archivedChanges(t, h)
	if len(archived) != 2 || archived[1].MD.Until.Raw != lists[0].MD.From.Raw {
		t.Errorf("after closing: %d archived lists; the last one ends where the index begins?", len(archived))
	}
	for _, p := range check(arch, "changelist-archive.xml", "") {
		t.Errorf("archive: %s: %s", p.Rule, p.Message)
	}
	st := parse(t, "changedump.xml", mustGet(t, h, "/dataset1/changedump.xml"))
	if len(st.Entries) != historySteps+2 {
		t.Errorf("Change Dump has %d packages, want %d", len(st.Entries), historySteps+2)
	}
	if got := s.Now(); !got.Equal(defaultStart().Add(2 * stepDuration)) {
		t.Errorf("clock %v", got)
	}
}

func checkChangeLists(t *testing.T, idx *model.Document, lists []*model.Document) {
	t.Helper()
	for _, p := range check(idx, "changelist.xml", "") {
		t.Errorf("index: %s: %s", p.Rule, p.Message)
	}
	var last time.Time
	for k, d := range lists {
		ie := idx.Entries[k].MD
		if d.MD.From.Raw != ie.From.Raw || d.MD.Until.Raw != ie.Until.Raw {
			t.Errorf("list %d: from/until %s/%s, index says %s/%s", k+1, d.MD.From.Raw, d.MD.Until.Raw, ie.From.Raw, ie.Until.Raw)
		}
		if k > 0 && lists[k-1].MD.Until.Raw != d.MD.From.Raw {
			t.Errorf("list %d begins at %s, the previous ended at %s", k+1, d.MD.From.Raw, lists[k-1].MD.Until.Raw)
		}
		if hdrLink(&d.Header, "index") == "" {
			t.Errorf("list %d: no index link", k+1)
		}
		for _, p := range check(d, "list", "") {
			t.Errorf("list %d: %s: %s", k+1, p.Rule, p.Message)
		}
		for _, e := range d.Entries {
			if e.MD.Datetime.Time.Before(last) {
				t.Errorf("list %d: %s out of order", k+1, e.Loc)
			}
			last = e.MD.Datetime.Time
		}
	}
	if lists[len(lists)-1].MD.Until.Raw != "" {
		t.Errorf("the last list is closed")
	}
}

// TestChangesAgreeWithResourceList replays the Change Lists over the Resource
// Dump's snapshot and compares the result with the current Resource List.
func TestChangesAgreeWithResourceList(t *testing.T) {
	s := New(Options{Seed: 3})
	s.Advance(7)
	h := s.Handler()
	state := map[string]string{} // loc → md5
	for p := 1; p <= s.packages(0); p++ {
		z := mustGet(t, h, s.packagePath(0, p))
		man, _, _ := zipManifest(t, "package", z)
		for _, e := range parse(t, "manifest", man).Entries {
			state[e.Loc] = e.MD.Hash.String()
		}
	}
	// The index no longer reaches back to the dump's snapshot: the lists
	// that left it are in the archive.
	_, archived := archivedChanges(t, h)
	_, lists := changes(t, h)
	if len(archived) == 0 || archived[0].MD.From.Raw != model.FormatDatetime(s.logStart) {
		t.Fatalf("the archive does not begin at the dump's snapshot")
	}
	for _, d := range append(archived, lists...) {
		for _, e := range d.Entries {
			if e.MD.Change == model.ChangeDeleted {
				delete(state, e.Loc)
			} else {
				state[e.Loc] = e.MD.Hash.String()
			}
		}
	}
	idx := parse(t, "resourcelist.xml", mustGet(t, h, "/dataset1/resourcelist.xml"))
	listed := 0
	for _, ie := range idx.Entries {
		for _, e := range parse(t, ie.Loc, mustGet(t, h, ie.Loc)).Entries {
			listed++
			if state[e.Loc] != e.MD.Hash.String() {
				t.Errorf("%s: Resource List says %s, dump + changes say %q", e.Loc, e.MD.Hash.String(), state[e.Loc])
			}
		}
	}
	if listed != len(state) {
		t.Errorf("Resource List has %d resources, dump + changes %d", listed, len(state))
	}
}

func TestDiscovery(t *testing.T) {
	s := New(Options{})
	h := s.Handler()
	robots := string(mustGet(t, h, "/robots.txt"))
	for _, want := range []string{"Sitemap: " + testBase + "/sitemap.xml", "Sitemap: " + testBase + "/dataset1/resourcelist.xml",
		"Sitemap: " + testBase + "/dataset2/resourcelist.xml.gz"} {
		if !strings.Contains(robots, want+"\n") {
			t.Errorf("robots.txt lacks %q", want)
		}
	}
	for _, line := range strings.Split(robots, "\n") {
		if u, ok := strings.CutPrefix(line, "Sitemap: "); ok {
			mustGet(t, h, u)
		}
	}
	plain := parse(t, "sitemap.xml", mustGet(t, h, "/sitemap.xml"))
	if plain.MD.Present || len(plain.Entries) == 0 {
		t.Errorf("sitemap.xml: rs:md present %v, %d entries", plain.MD.Present, len(plain.Entries))
	}
	home := string(mustGet(t, h, "/"))
	if !strings.Contains(home, `<link rel="resourcesync" href="`+testBase+`/dataset1/capabilitylist.xml">`) {
		t.Errorf("home page lacks the resourcesync link:\n%s", home)
	}
	page := string(mustGet(t, h, "/dataset1/res/000001.html"))
	if !strings.Contains(page, `<link rel="resourcesync" href="/dataset1/capabilitylist.xml">`) {
		t.Errorf("HTML resource lacks the resourcesync link")
	}
	rec := get(t, h, "/dataset2/res/000002.png")
	if lh := rec.Header().Get("Link"); lh != "<"+testBase+`/dataset2/capabilitylist.xml>; rel="resourcesync"` {
		t.Errorf("Link header %q", lh)
	}
	for _, p := range []string{"/.well-known/resourcesync", "/dataset1/.well-known/resourcesync"} {
		d := parse(t, p, mustGet(t, h, p))
		if d.MD.Capability != model.CapDescription || len(d.Entries) != 2 {
			t.Errorf("%s: capability %s, %d Capability Lists", p, d.MD.Capability, len(d.Entries))
		}
	}
	for _, p := range []string{"/about/source.html", "/dataset1/about.html", "/dataset2/about.html", "/dataset1/collections/1.html"} {
		mustGet(t, h, p)
	}
}

func TestConditionalGetAndCompression(t *testing.T) {
	s := New(Options{})
	h := s.Handler()
	for _, p := range []string{"/dataset1/resourcelist-0001.xml", "/dataset1/res/000004.html", "/dataset1/resourcedump/part-0001.zip"} {
		rec := get(t, h, p)
		tag, lm := rec.Header().Get("ETag"), rec.Header().Get("Last-Modified")
		if tag == "" || lm == "" {
			t.Fatalf("%s: ETag %q, Last-Modified %q", p, tag, lm)
		}
		if c := get(t, h, p, "If-None-Match", tag).Code; c != http.StatusNotModified {
			t.Errorf("%s If-None-Match: %d", p, c)
		}
		if c := get(t, h, p, "If-Modified-Since", lm).Code; c != http.StatusNotModified {
			t.Errorf("%s If-Modified-Since: %d", p, c)
		}
		if c := get(t, h, p, "If-None-Match", `"other"`).Code; c != http.StatusOK {
			t.Errorf("%s other ETag: %d", p, c)
		}
	}
	// The document changes with the clock, and so does its ETag.
	tag := get(t, h, "/dataset1/resourcelist-0001.xml").Header().Get("ETag")
	s.Advance(1)
	if c := get(t, h, "/dataset1/resourcelist-0001.xml", "If-None-Match", tag).Code; c != http.StatusOK {
		t.Errorf("after a step, the old ETag still matches: %d", c)
	}

	plain := mustGet(t, h, "/dataset1/capabilitylist.xml")
	rec := get(t, h, "/dataset1/capabilitylist.xml", "Accept-Encoding", "gzip, deflate")
	if rec.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("no gzip encoding")
	}
	if got := gunzip(t, rec.Body.Bytes()); !bytes.Equal(got, plain) {
		t.Errorf("gzip body differs")
	}
	gz := get(t, h, "/dataset1/capabilitylist.xml.gz")
	if gz.Code != http.StatusOK || gz.Header().Get("Content-Encoding") != "" || !bytes.Equal(gunzip(t, gz.Body.Bytes()), plain) {
		t.Errorf(".xml.gz: %d %q", gz.Code, gz.Header().Get("Content-Encoding"))
	}
	if rec := get(t, h, "/dataset1/res/000004.html", "Accept-Encoding", "gzip"); rec.Header().Get("Content-Encoding") != "" {
		t.Errorf("a resource was compressed")
	}
}

func gunzip(t testing.TB, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestStatusAndAdvanceEndpoints(t *testing.T) {
	s := New(Options{})
	h := s.Handler()
	if c := get(t, h, "/demo/advance").Code; c != http.StatusMethodNotAllowed {
		t.Errorf("GET /demo/advance: %d", c)
	}
	req := httptest.NewRequest(http.MethodPost, testBase+"/demo/advance?steps=4", nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"clock": "2026-01-05T10:00:00Z"`) {
		t.Errorf("advance: %d %s", rec.Code, rec.Body.String())
	}
	if st := string(mustGet(t, h, "/demo/status")); !strings.Contains(st, `"steps": 22`) {
		t.Errorf("status: %s", st)
	}
}

func TestNotFound(t *testing.T) {
	s := New(Options{})
	h := s.Handler()
	for _, p := range []string{"/nothing", "/dataset1/resourcelist-0099.xml", "/dataset1/resourcelist-1.xml",
		"/dataset1/res/000001.txt", "/dataset1/res/1.html", "/dataset1/res/999999.html", "/dataset2/changedump.xml",
		"/broken/loop-a", "/dataset1/resourcelist-0000.xml"} {
		if c := get(t, h, p).Code; c != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, c)
		}
	}
}

func TestServerStartAndTick(t *testing.T) {
	srv, err := Start(t.Context(), "127.0.0.1:0", Options{Tick: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(srv.URL)
	if err != nil || u.Hostname() != "127.0.0.1" || u.Port() == "0" {
		t.Fatalf("URL %q", srv.URL)
	}
	resp, err := http.Get(srv.URL + "/.well-known/resourcesync")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := parse(t, "well-known", b)
	if d.Entries[0].Loc != srv.URL+"/dataset1/capabilitylist.xml" {
		t.Errorf("loc %q", d.Entries[0].Loc)
	}
	deadline := time.Now().Add(5 * time.Second)
	for srv.Source().Now().Equal(defaultStart()) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if srv.Source().Now().Equal(defaultStart()) {
		t.Error("the clock did not advance with Tick")
	}
	if err := srv.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := http.Get(srv.URL + "/"); err == nil {
		t.Error("still serving after Close")
	}
	if _, err := Start(t.Context(), "0.0.0.0:0", Options{}); err == nil {
		t.Error("a non-loopback address was accepted")
	}
}

// TestPatchTurnsPreviousVersionIntoCurrent applies the JSON Patch a Change List
// links to and compares the result with the current version.
func TestPatchTurnsPreviousVersionIntoCurrent(t *testing.T) {
	s := New(Options{})
	h := s.Handler()
	_, lists := changes(t, h)
	patched := 0
	for _, d := range lists {
		for _, e := range d.Entries {
			for _, l := range e.Links {
				if l.Rel != model.RelPatch {
					continue
				}
				patch := mustGet(t, h, l.Href)
				verify(t, l.Href, patch, &model.Metadata{Hash: l.Hash, Length: l.Length, LengthOK: l.LengthOK, Type: l.Type}, "application/json-patch+json")
				var ops []struct {
					Op, Path string
					Value    any
				}
				if err := json.Unmarshal(patch, &ops); err != nil {
					t.Fatalf("%s: %v", l.Href, err)
				}
				id, _ := s.parseResourceName(1, e.Loc[strings.LastIndexByte(e.Loc, '/')+1:], true)
				v, _ := strconv.Atoi(l.Href[strings.LastIndex(l.Href, ".v")+2 : len(l.Href)-len(".json-patch")])
				var prev, cur map[string]any
				json.Unmarshal(s.appendContent(nil, 1, id, v-1), &prev)
				json.Unmarshal(s.appendContent(nil, 1, id, v), &cur)
				for _, op := range ops {
					if op.Op != "replace" {
						t.Fatalf("op %q", op.Op)
					}
					prev[strings.TrimPrefix(op.Path, "/")] = op.Value
				}
				if !reflect.DeepEqual(prev, cur) {
					t.Errorf("%s: patched %v, current %v", l.Href, prev, cur)
				}
				patched++
			}
		}
	}
	if patched == 0 {
		t.Error("no patch link in the Change Lists")
	}
}

// TestLengthsAreExact checks that content reaches its declared length exactly,
// for small and very large ids and many versions.
func TestLengthsAreExact(t *testing.T) {
	s := New(Options{Resources: 1_000_000_000_000})
	for _, ds := range []int{1, 2} {
		for _, base := range []int{1, 9_999_990, 799_999_999_990} {
			for id := base; id < base+10; id++ {
				for _, v := range []int{0, 1, 2, 99, 12345} {
					if got, want := len(s.appendContent(nil, ds, id, v)), s.lengthOf(ds, id, v); got != want {
						t.Errorf("dataset %d id %d version %d (%s): %d bytes, declared %d", ds, id, v, s.kindOf(ds, id).ext(), got, want)
					}
				}
			}
		}
	}
}

func TestHostileNumbers(t *testing.T) {
	s := New(Options{})
	h := s.Handler()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Host = `x"><script>alert(1)</script>`
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusBadRequest {
		t.Errorf("hostile Host: %d", rec.Code)
	}
	for _, p := range []string{"/dataset1/collections/9223372036854775807.html", "/dataset1/collections/9223372036854776.html",
		"/dataset1/versions/v9223372036854775807/000001.html", "/dataset1/res/9223372036854775807.html",
		"/dataset1/patch/000003.v9223372036854775807.json-patch", "/dataset1/changelist/9223372036854775807.xml",
		"/dataset1/resourcelist-9223372036854775807.xml", "/dataset1/changedump/9223372036854775807.zip",
		"/timemap/dataset1/res/9223372036854775807.html", "/timegate/dataset1/res/000000.html", "/mirror1/dataset1/res/000001"} {
		if c := get(t, h, p).Code; c != http.StatusNotFound {
			t.Errorf("%s: %d", p, c)
		}
	}
}

// TestEveryLinkStaysOnTheDemoAndResolves follows every loc and href of every
// document and requires an answer from the demo. Resources deleted since a
// dump or change was published answer 410 Gone, and their links are skipped.
func TestEveryLinkStaysOnTheDemoAndResolves(t *testing.T) {
	s := New(Options{})
	h := s.Handler()
	docs := crawl(t, h)
	codes := map[string]int{}
	status := func(u string) int {
		if c, ok := codes[u]; ok {
			return c
		}
		codes[u] = get(t, h, u).Code
		return codes[u]
	}
	gone := 0
	for u, d := range docs {
		for _, l := range d.Links {
			if c := status(l.Href); c != http.StatusOK {
				t.Errorf("%s: %s %s: %d", u, l.Rel, l.Href, c)
			}
		}
		for _, e := range d.Entries {
			if isChannel(&e) {
				// A WebSocket on the demo's host; a plain GET is its WebSub topic.
				if c := get(t, h, strings.Replace(e.Loc, "ws://", "http://", 1)).Code; !strings.HasPrefix(e.Loc, "ws://demo.test:8080/") || c != http.StatusOK {
					t.Errorf("%s: channel %s: %d", u, e.Loc, c)
				}
				continue
			}
			if !strings.HasPrefix(e.Loc, testBase+"/") {
				t.Errorf("%s: loc %q leaves the demo", u, e.Loc)
			}
			switch c := status(e.Loc); {
			case c == http.StatusGone:
				gone++
				continue
			case c != http.StatusOK:
				t.Errorf("%s: loc %s: %d", u, e.Loc, c)
			}
			for _, l := range e.Links {
				if !strings.HasPrefix(l.Href, testBase+"/") {
					t.Errorf("%s: %s %q leaves the demo", u, l.Rel, l.Href)
					continue
				}
				c := status(l.Href)
				if c != http.StatusOK && !(l.Rel == "timegate" && c == http.StatusFound) {
					t.Errorf("%s: %s: %s %s: %d", u, e.Loc, l.Rel, l.Href, c)
				}
			}
		}
	}
	if gone == 0 || len(codes) < 3000 {
		t.Errorf("%d URLs followed, %d entries of deleted resources", len(codes), gone)
	}
}

// TestPackageLengthWithoutGenerating compares the arithmetic package length
// (used by Resource Dump Indexes) with the length of the generated package.
func TestPackageLengthWithoutGenerating(t *testing.T) {
	for _, o := range []Options{{}, {Broken: true, Seed: 4}, {Resources: 100000, PackageSize: 997, Seed: 9}} {
		s := New(o)
		for i := range s.sets {
			for _, p := range []int{1, 2, s.packages(i)} {
				pk, err := s.resourcePackage(testBase, i, p)
				if err != nil {
					t.Fatal(err)
				}
				n, err := s.resourcePackageLength(testBase, i, p)
				if err != nil || n != int64(len(pk.zip)) {
					t.Errorf("%+v dataset %d package %d: computed %d (%v), generated %d", o, i+1, p, n, err, len(pk.zip))
				}
			}
		}
	}
}

// TestPollingAnOpenChangeList: a conditional GET of the open Change List answers
// 304 until a change is appended to it.
func TestPollingAnOpenChangeList(t *testing.T) {
	s := New(Options{Seed: 1})
	h := s.Handler()
	for _, p := range []string{"/dataset2/changelist.xml", "/dataset1/changelist.xml"} {
		rec := get(t, h, p)
		tag, body := rec.Header().Get("ETag"), rec.Body.String()
		for step := 0; step < 40; step++ {
			s.Advance(1)
			rec := get(t, h, p, "If-None-Match", tag)
			changed := get(t, h, p).Body.String() != body
			if changed != (rec.Code == http.StatusOK) {
				t.Fatalf("%s step %d: changed %v, conditional GET %d", p, step, changed, rec.Code)
			}
			if changed {
				tag, body = rec.Header().Get("ETag"), rec.Body.String()
			}
		}
	}
}

// TestCloseDoesNotWaitForTheSlowResource: Close cancels requests in flight.
func TestCloseDoesNotWaitForTheSlowResource(t *testing.T) {
	srv, err := Start(t.Context(), "127.0.0.1:0", Options{Broken: true})
	if err != nil {
		t.Fatal(err)
	}
	slow := srv.URL + srv.Source().resourcePath(1, srv.Source().faults.ids[faultSlow])
	started := make(chan struct{})
	go func() {
		close(started)
		if resp, err := http.Get(slow); err == nil {
			resp.Body.Close()
		}
	}()
	<-started
	time.Sleep(100 * time.Millisecond)
	begin := time.Now()
	srv.Close()
	if took := time.Since(begin); took > slowDelay*5/6 {
		t.Errorf("Close took %v", took)
	}
}
