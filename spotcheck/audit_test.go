package spotcheck

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rsx/claims"
)

const page = "<html><body>a resource</body></html>\n"

// Each kind of false claim a Resource List can make is named, with the
// field, what was declared and what was found, and nothing else is.
func TestAuditFindings(t *testing.T) {
	s := newTestSource(t)
	var sent atomic.Int64
	s.resource("/ok", page, "text/html")
	s.resource("/mirror-ok", page, "text/html")
	s.resource("/mirror-stale", "an older copy\n", "text/html")
	s.handle("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusMovedPermanently) })
	s.handle("/hangs", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	s.handle("/endless", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		chunk := []byte(strings.Repeat("x", 32<<10))
		for r.Context().Err() == nil && sent.Load() < 1<<30 {
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	ok := declares(page, "text/html")
	s.doc("/rl.xml", urlset("resourcelist", "2013-01-03T00:00:00Z",
		entry("{{base}}/ok", ok+` lastmod="2013-01-02T13:00:00Z"`),
		entry("{{base}}/missing", ok),
		entry("{{base}}/moved", ok),
		entry("{{base}}/hangs", ok),
		entry("{{base}}/endless", ok),
		entry("{{base}}/ok", `hash="sha3-256:0000" length="`+fmt.Sprint(len(page))+`"`),
		entry("{{base}}/ok", `hash="blake3:0000"`), // nothing rsx can compare
		entry("{{base}}/mirror-stale", ok, `<rs:ln rel="duplicate" href="{{base}}/mirror-ok" pri="1"/>`),
		entry("{{base}}/ok", `type="text/html"`, `<rs:ln rel="duplicate" href="{{base}}/mirror-stale" pri="1"/>`, `<rs:ln rel="duplicate" href="{{base}}/mirror-ok" pri="2"/>`),
	))
	rep := runAudit(t, s.URL+"/rl.xml", Options{Claims: claims.Options{Timeout: 300 * time.Millisecond}})

	want := []string{
		"/endless length",           // far longer than declared: cut at the declared length plus the margin
		"/hangs status",             // no answer within the resource timeout
		"/missing status",           // 404
		"/mirror-stale length",      // the resource is not what its entry says (its mirror is)
		"/mirror-stale md5",         //
		"/mirror-stale sha-256",     //
		"/ok>/mirror-stale content", // a mirror that differs from its resource, no digest declared
	}
	slices.Sort(want)
	if got := findings(s.URL, rep.Mismatched); !slices.Equal(got, want) {
		t.Errorf("mismatched:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := findings(s.URL, rep.Warnings); !slices.Equal(got, []string{"/moved redirect"}) {
		t.Errorf("warnings %v", got)
	}
	if got := unchecked(s.URL, rep.Unchecked); !slices.Equal(got, []string{"/ok blake3", "/ok sha3-256"}) {
		t.Errorf("unchecked %v", got)
	}
	for _, f := range rep.Mismatched {
		switch {
		case strings.HasSuffix(f.URL, "/hangs") && !strings.Contains(f.Actual, "no complete answer within 300ms"):
			t.Errorf("timeout not told: %+v", f)
		case strings.HasSuffix(f.URL, "/missing") && f.Actual != "404 Not Found":
			t.Errorf("404 not told: %+v", f)
		case strings.HasSuffix(f.URL, "/endless") && !strings.HasPrefix(f.Actual, "more than "):
			t.Errorf("endless body: %+v", f)
		}
	}
	if w := rep.Warnings[0]; w.Declared != s.URL+"/moved" || w.Actual != s.URL+"/ok" || !strings.Contains(w.Reason, "301") {
		t.Errorf("redirect warning %+v", w)
	}
	if sent.Load() > 64<<20 {
		t.Errorf("the endless body was read to %d bytes", sent.Load())
	}
	var mirrors []string
	for _, m := range rep.Mirrors {
		mirrors = append(mirrors, fmt.Sprintf("%s>%s %v", strings.TrimPrefix(m.URL, s.URL), strings.TrimPrefix(m.Mirror, s.URL), m.OK))
	}
	if want := []string{"/mirror-stale>/mirror-ok true", "/ok>/mirror-stale false", "/ok>/mirror-ok true"}; !slices.Equal(mirrors, want) {
		t.Errorf("mirrors %v, want %v", mirrors, want)
	}
	if rep.Checked != 9 || rep.Selected != 9 || rep.Failed != 5 || rep.OK != 3 || rep.Unverifiable != 1 || rep.Warned != 1 || !rep.Complete() || !rep.Wrong() {
		t.Errorf("counts: checked %d of %d, failed %d, ok %d, unverifiable %d, warned %d, complete %v",
			rep.Checked, rep.Selected, rep.Failed, rep.OK, rep.Unverifiable, rep.Warned, rep.Complete())
	}
}

// After the Resource List's at, a Change List's latest change is what must
// hold; a resource deleted since must be gone; a change before at changes
// nothing; a resource created since is audited too.
func TestAuditChangeLists(t *testing.T) {
	s := newTestSource(t)
	v2 := page + "version 2\n"
	s.resource("/r/updated", v2, "text/html")
	s.resource("/r/old-change", page, "text/html")
	s.resource("/r/still-there", page, "text/html") // deleted since, but served
	s.handle("/r/gone", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "gone", http.StatusGone) })
	s.resource("/r/created", v2, "text/html")
	s.resource("/r/twice", v2, "text/html")
	s.doc("/.well-known/resourcesync", urlset("description", "", entry("{{base}}/cl.xml", `capability="capabilitylist"`)))
	s.doc("/cl.xml", urlset("capabilitylist", "",
		entry("{{base}}/rl.xml", `capability="resourcelist"`),
		entry("{{base}}/changes.xml", `capability="changelist"`),
		entry("{{base}}/rd.xml", `capability="resourcedump"`)))
	s.doc("/rl.xml", urlset("resourcelist", "2013-01-03T10:00:00Z",
		entry("{{base}}/r/updated", declares(page, "text/html")),
		entry("{{base}}/r/old-change", declares(page, "text/html")),
		entry("{{base}}/r/still-there", declares(page, "text/html")),
		entry("{{base}}/r/gone", declares(page, "text/html")),
		entry("{{base}}/r/twice", declares(page, "text/html")),
	))
	s.doc("/changes.xml", index("changelist", "2013-01-04T00:00:00Z", "{{base}}/cl-1.xml", "{{base}}/cl-2.xml"))
	change := func(loc, kind, when, md string) string {
		return entry(loc, `change="`+kind+`" datetime="`+when+`" `+md)
	}
	// The later list comes first, and its changes out of order: the
	// latest by datetime wins all the same.
	s.doc("/cl-2.xml", urlset("changelist", "",
		change("{{base}}/r/twice", "updated", "2013-01-03T12:00:00Z", declares(v2, "text/html")),
		change("{{base}}/r/updated", "updated", "2013-01-03T11:00:00Z", declares(v2, "text/html")),
		change("{{base}}/r/twice", "updated", "2013-01-03T11:30:00Z", declares(page, "text/html")),
		change("{{base}}/r/still-there", "deleted", "2013-01-03T11:00:00Z", ""),
		change("{{base}}/r/gone", "deleted", "2013-01-03T11:00:00Z", ""),
		change("{{base}}/r/created", "created", "2013-01-03T11:00:00Z", declares(v2, "text/html")),
	))
	s.doc("/cl-1.xml", urlset("changelist", "",
		change("{{base}}/r/old-change", "updated", "2013-01-03T09:00:00Z", declares("older\n", "text/html")),
		change("{{base}}/r/created-then-deleted", "created", "2013-01-03T08:00:00Z", declares(page, "text/html")),
		change("{{base}}/r/created-then-deleted", "deleted", "2013-01-03T08:30:00Z", ""),
	))
	rep := runAudit(t, s.URL+"/.well-known/resourcesync", Options{})
	if got, want := findings(s.URL, rep.Mismatched), []string{"/r/still-there status"}; !slices.Equal(got, want) {
		t.Errorf("mismatched %v, want %v", got, want)
	}
	if f := rep.Mismatched[0]; f.Declared != "gone (404 or 410)" || !f.Changed || f.Actual != "200 OK" {
		t.Errorf("the deletion: %+v", f)
	}
	// r/updated, r/twice, r/gone, r/still-there, r/created are held to changes.
	if rep.Checked != 6 || rep.Listed != 6 || rep.Changed != 5 || rep.Gone != 2 || len(rep.Warnings)+len(rep.Unchecked) != 0 {
		t.Errorf("checked %d, listed %d, changed %d, gone %d, warnings %v, unchecked %v", rep.Checked, rep.Listed, rep.Changed, rep.Gone, rep.Warnings, rep.Unchecked)
	}
	if got := s.requested("/r/"); !slices.Equal(got, []string{"/r/created", "/r/gone", "/r/old-change", "/r/still-there", "/r/twice", "/r/updated"}) {
		t.Errorf("requested %v", got)
	}
	if s.requested("/rd.xml") != nil {
		t.Errorf("the Resource Dump was read")
	}

	// From the Change List alone, every resource it names is audited by
	// its latest change.
	s.resetHits()
	rep = runAudit(t, s.URL+"/changes.xml", Options{})
	if got, want := findings(s.URL, rep.Mismatched), []string{"/r/old-change length", "/r/old-change md5", "/r/old-change sha-256", "/r/still-there status"}; !slices.Equal(got, want) {
		t.Errorf("from the Change Lists: mismatched %v, want %v", got, want)
	}
	if rep.Checked != 7 || rep.Gone != 3 { // and /r/created-then-deleted, gone as it should be
		t.Errorf("from the Change Lists: checked %d, gone %d", rep.Checked, rep.Gone)
	}
}

// A resource list part that is an index is read part by part; a part that
// cannot be read is told, and the others are audited.
func TestAuditIndexAndUnreadPart(t *testing.T) {
	s := newTestSource(t)
	s.resource("/r1", page, "text/html")
	s.resource("/r2", page, "text/html")
	s.doc("/rl.xml", index("resourcelist", "2013-01-03T00:00:00Z", "{{base}}/rl-1.xml", "{{base}}/rl-2.xml", "{{base}}/rl-3.xml"))
	s.doc("/rl-1.xml", urlset("resourcelist", "", entry("{{base}}/r1", declares(page, "text/html"))))
	s.doc("/rl-2.xml", urlset("resourcedump", "", entry("{{base}}/r2", declares(page, "text/html"))))
	rep := runAudit(t, s.URL+"/rl.xml", Options{})
	if rep.Checked != 2 || rep.OK != 2 || rep.Wrong() {
		t.Errorf("checked %d, ok %d, mismatched %v", rep.Checked, rep.OK, rep.Mismatched)
	}
	unread := rep.Unread()
	if len(unread) != 1 || !strings.HasSuffix(unread[0].URL, "/rl-3.xml") || !strings.Contains(unread[0].Err.Error(), "404") {
		t.Errorf("unread %+v", unread)
	}
	var notes []string
	for _, l := range rep.Lists {
		if l.Note != "" {
			notes = append(notes, strings.TrimPrefix(l.URL, s.URL)+": "+l.Note)
		}
	}
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "/rl-2.xml: declares capability resourcedump") {
		t.Errorf("notes %v", notes)
	}
}

// The audit could not run: the URL is unreachable, not a document to
// audit from, or leads to no list.
func TestAuditCannotRun(t *testing.T) {
	s := newTestSource(t)
	s.doc("/rd.xml", urlset("resourcedump", ""))
	s.doc("/cl.xml", urlset("capabilitylist", "", entry("{{base}}/rd.xml", `capability="resourcedump"`)))
	s.resource("/page.html", page, "text/html")
	for _, tt := range []struct {
		path string
		want string
	}{
		{"/absent.xml", "404"},
		{"/rd.xml", "not a document an audit reads"},
		{"/page.html", "not a Sitemap document"},
		{"/cl.xml", ErrNothingToAudit.Error()},
	} {
		rep, err := New(testClient(t), Options{}).Run(context.Background(), s.URL+tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) || rep == nil {
			t.Errorf("%s: err %v, want %q", tt.path, err, tt.want)
		}
	}
}

// --include and --exclude filter by URI before the draw.
func TestAuditFilters(t *testing.T) {
	s := newTestSource(t)
	var entries []string
	for _, p := range []string{"/a/1", "/a/2", "/b/1", "/b/2"} {
		s.resource(p, page, "text/html")
		entries = append(entries, entry("{{base}}"+p, declares(page, "text/html")))
	}
	s.doc("/rl.xml", urlset("resourcelist", "", entries...))
	rep := runAudit(t, s.URL+"/rl.xml", Options{
		Include: []*regexp.Regexp{regexp.MustCompile(`/a/`), regexp.MustCompile(`/b/1$`)},
		Exclude: []*regexp.Regexp{regexp.MustCompile(`/2$`)},
	})
	if got := s.requested("/a/"); !slices.Equal(append(got, s.requested("/b/")...), []string{"/a/1", "/b/1"}) || rep.Listed != 2 || rep.Excluded != 2 {
		t.Errorf("requested %v, listed %d, excluded %d", got, rep.Listed, rep.Excluded)
	}
}

// The byte budget and the time budget end the run early, with what was
// checked, and say so.
func TestAuditBudgets(t *testing.T) {
	s := newTestSource(t)
	body := strings.Repeat("b", 1000)
	var entries []string
	for i := range 40 {
		p := fmt.Sprintf("/r/%02d", i)
		s.handle(p, func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(20 * time.Millisecond)
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, body)
		})
		entries = append(entries, entry("{{base}}"+p, declares(body, "text/plain")))
	}
	s.doc("/rl.xml", urlset("resourcelist", "", entries...))

	rep := runAudit(t, s.URL+"/rl.xml", Options{MaxTotalBytes: 5500, Concurrency: 2})
	if rep.Stopped != StopBytes || rep.Complete() || rep.Checked < 4 || rep.Checked > 5 || rep.Wrong() || rep.Bytes > 5500 {
		t.Errorf("byte budget: stopped %q, checked %d of %d, bytes %d, mismatched %v", rep.Stopped, rep.Checked, rep.Selected, rep.Bytes, rep.Mismatched)
	}

	start := time.Now()
	rep = runAudit(t, s.URL+"/rl.xml", Options{TimeBudget: 150 * time.Millisecond, Concurrency: 1})
	if rep.Stopped != StopTime || rep.Complete() || rep.Checked == 0 || rep.Checked >= 40 || rep.Wrong() || len(rep.Unchecked) > 0 {
		t.Errorf("time budget: stopped %q, checked %d of %d, mismatched %v, unchecked %v", rep.Stopped, rep.Checked, rep.Selected, rep.Mismatched, rep.Unchecked)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the time budget of 150ms ended the run after %v", took)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	rep, err := New(testClient(t), Options{Concurrency: 1}).Run(ctx, s.URL+"/rl.xml")
	if err != nil || rep.Stopped != StopInterrupted || rep.Checked >= 40 {
		t.Errorf("interrupted: err %v, stopped %q, checked %d", err, rep.Stopped, rep.Checked)
	}
}

// A 503 with Retry-After and a 429 are waited out: the resource is judged
// on the answer that follows.
func TestAuditRetries(t *testing.T) {
	s := newTestSource(t)
	var calls atomic.Int64
	s.handle("/busy", func(w http.ResponseWriter, r *http.Request) {
		switch calls.Add(1) {
		case 1:
			w.Header().Set("Retry-After", "0")
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case 2:
			http.Error(w, "slow down", http.StatusTooManyRequests)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, page)
		}
	})
	s.doc("/rl.xml", urlset("resourcelist", "", entry("{{base}}/busy", declares(page, "text/html"))))
	rep := runAudit(t, s.URL+"/rl.xml", Options{})
	if rep.OK != 1 || calls.Load() != 3 {
		t.Errorf("ok %d after %d requests; mismatched %v", rep.OK, calls.Load(), rep.Mismatched)
	}
}

// A loc that is not absolute is not resolved and not fetched: it is told.
func TestAuditRelativeLoc(t *testing.T) {
	s := newTestSource(t)
	s.resource("/r1", page, "text/html")
	s.doc("/rl.xml", urlset("resourcelist", "", entry("r1", declares(page, "text/html")), entry("ftp://example.org/r", declares(page, "text/html"))))
	rep := runAudit(t, s.URL+"/rl.xml", Options{})
	if got := unchecked(s.URL, rep.Unchecked); !slices.Equal(got, []string{"ftp://example.org/r loc", "r1 loc"}) || rep.Unverifiable != 2 || s.requested("/r1") != nil {
		t.Errorf("unchecked %v, unverifiable %d", got, rep.Unverifiable)
	}
}

func TestAuditProgress(t *testing.T) {
	s := newTestSource(t)
	s.resource("/r1", page, "text/html")
	s.doc("/rl.xml", urlset("resourcelist", "", entry("{{base}}/r1", declares(page, "text/html"))))
	var got []Progress
	runAudit(t, s.URL+"/rl.xml", Options{Sample: 10, Progress: func(p Progress) { got = append(got, p) }})
	if len(got) < 2 {
		t.Fatalf("progress %+v", got)
	}
	last := got[len(got)-1]
	if last.Phase != PhaseDone || last.Checked != 1 || last.Total != 1 || last.Listed != 1 || last.Lists != 1 {
		t.Errorf("last progress %+v", last)
	}
}
