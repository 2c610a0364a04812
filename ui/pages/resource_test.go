package pages

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"rsx/claims"
	"rsx/fetch"
	"rsx/model"
	"rsx/session"
	"rsx/ui/nav"
)

const ivBody = "<html><body>hello, resource</body></html>\n"

func ivMD5(s string) string    { h := md5.Sum([]byte(s)); return hex.EncodeToString(h[:]) }
func ivSHA256(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }

func ivHashes(t *testing.T, s string) model.HashList {
	t.Helper()
	h, err := model.ParseHashList(s)
	if err != nil {
		t.Fatalf("hash list %q: %v", s, err)
	}
	return h
}

// ivMarks writes each check as its field and its mark.
func ivMarks(checks []claims.Check) string {
	var b strings.Builder
	for _, c := range checks {
		fmt.Fprintf(&b, "%s%s ", c.Field, CheckMarkOf(c.Verdict))
	}
	return strings.TrimSpace(b.String())
}

func ivDatetime(t *testing.T, s string) model.Datetime {
	t.Helper()
	d, err := model.ParseDatetime(s)
	if err != nil {
		t.Fatalf("datetime %q: %v", s, err)
	}
	return d
}

// The judgement itself (status, length, type, lastmod, digests, mirror
// order and claims) is tested in package claims; these tests are of the
// view that draws it.

func TestResourceViewMirrorTargets(t *testing.T) {
	e := model.Entry{Loc: "http://example.com/dir/r", MD: model.Metadata{Type: "text/html", Length: 10, LengthRaw: "10", LengthOK: true, Hash: ivHashes(t, "md5:"+ivMD5("x"))}}
	own := model.Link{Rel: "duplicate", Href: "/m", Type: "text/plain", HashRaw: "sha-256:" + ivSHA256("x"), Hash: ivHashes(t, "sha-256:"+ivSHA256("x"))}
	e.Links = []model.Link{own}
	v := NewResource(ivTestCommon(), ivChecker(&ivFakeDownloader{}), "", e)
	if len(v.targets) != 2 || v.targets[1].URL != "http://example.com/m" {
		t.Fatalf("relative mirror href resolved to %+v", v.targets)
	}
	if c := v.targets[1].Claims; c.Type != "text/plain" || c.Length != 10 || len(c.Hash) != 1 || c.Hash[0].Alg != "sha-256" {
		t.Errorf("mirror claims %+v", c)
	}
	if v.targets[1].Label != "mirror 1 pri 999999" || v.links[0].Mirror != 1 || v.links[0].Pri != model.MaxPri {
		t.Errorf("label %q, link %+v", v.targets[1].Label, v.links[0])
	}
}

// A base64 digest shows its hex form; a lastmod that differs from
// Last-Modified is a warning (!), not a mismatch.
func TestResourceViewBase64AndWarning(t *testing.T) {
	raw := md5.Sum([]byte(ivBody))
	e := ivResourceEntry(t)
	e.MD.Hash = ivHashes(t, "md5:"+base64.StdEncoding.EncodeToString(raw[:]))
	e.Lastmod = ivDatetime(t, "2013-01-02T12:00:00Z")
	e.Links = nil
	v := NewResource(ivTestCommon(), ivChecker(ivResourceFake()), "", e)
	v.SetSize(120, 30)
	ivDrive(v, ivRunCmd(v.Init())...)
	screen := strings.Join(ivLines(v.View()), "\n")
	for _, want := range []string{
		"(base64 = " + ivMD5(ivBody) + ")",
		"! lastmod   2013-01-02T12:00:00Z     2013-01-02T13:00:00Z (Wed, 02 Jan 2013 13:00:00 GMT) · differs",
		"! 1 warning, everything else declared matches",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
}

// ivFakeDownloader answers from a table, deterministically.
type ivFakeDownloader struct {
	mu      sync.Mutex
	answers map[string]ivAnswer
	asked   []string
}

type ivAnswer struct {
	status int
	header http.Header
	body   string
	err    error
}

// ivChecker checks resources through d, as the session does through its
// client.
func ivChecker(d claims.Downloader) ivResources { return ivResources{d: d} }

type ivResources struct {
	ivNop
	d claims.Downloader
}

func (r ivResources) InspectResource(ctx context.Context, t claims.Target, p func(int64, int64)) session.Inspection {
	return session.Inspect(ctx, r.d, claims.Options{Preview: 512}, t, p)
}

func (f *ivFakeDownloader) DownloadWith(ctx context.Context, url string, w io.Writer, o fetch.DownloadOptions) (*fetch.Exchange, error) {
	progress := o.Progress
	if progress == nil {
		progress = func(int64, int64) {}
	}
	f.mu.Lock()
	a, ok := f.answers[url]
	f.asked = append(f.asked, url)
	f.mu.Unlock()
	if !ok {
		a = ivAnswer{status: 404}
	}
	if a.err != nil && a.status == 0 {
		return &fetch.Exchange{Method: "GET", URL: url, Err: a.err.Error()}, a.err
	}
	ex := &fetch.Exchange{Method: "GET", URL: url, Status: a.status, StatusText: http.StatusText(a.status), ResponseHeader: a.header}
	if a.status < 200 || a.status > 299 {
		return ex, &fetch.StatusError{URL: url, Status: a.status}
	}
	half := len(a.body) / 2
	io.WriteString(w, a.body[:half])
	progress(int64(half), int64(len(a.body)))
	io.WriteString(w, a.body[half:])
	progress(int64(len(a.body)), int64(len(a.body)))
	ex.Bytes = int64(len(a.body))
	return ex, a.err
}

func (f *ivFakeDownloader) Asked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.asked...)
}

func ivResourceEntry(t *testing.T) model.Entry {
	l := func(rel, href string, pri int) model.Link {
		k := model.Link{Rel: rel, Href: href, HasRel: true, HasHref: true}
		if pri > 0 {
			k.Pri, k.PriRaw, k.PriOK = pri, fmt.Sprint(pri), true
		}
		return k
	}
	alt := l("alternate", "http://example.com/res1.pdf", 0)
	alt.Type = "application/pdf"
	return model.Entry{
		Index: 2, Loc: "http://example.com/res1", HasLoc: true,
		Lastmod: ivDatetime(t, "2013-01-02T13:00:00Z"),
		MD: model.Metadata{
			Present: true, Hash: ivHashes(t, "md5:"+ivMD5(ivBody)+" sha-256:"+ivSHA256(ivBody)),
			HashRaw: "x", Length: int64(len(ivBody)), LengthRaw: fmt.Sprint(len(ivBody)), LengthOK: true, Type: "text/html",
		},
		Links: []model.Link{
			l("duplicate", "http://mirror2.example.org/res1", 2),
			alt,
			l("duplicate", "http://mirror1.example.org/res1", 1),
			l("describedby", "http://example.com/res1.meta.xml", 0),
			l("duplicate", "rsync://mirror3.example.net/res1", 0),
		},
	}
}

func ivResourceFake() *ivFakeDownloader {
	good := http.Header{
		"Content-Type":   {"text/html; charset=utf-8"},
		"Content-Length": {fmt.Sprint(len(ivBody))},
		"Last-Modified":  {"Wed, 02 Jan 2013 13:00:00 GMT"},
	}
	return &ivFakeDownloader{answers: map[string]ivAnswer{
		"http://example.com/res1":         {status: 200, header: good, body: ivBody},
		"http://mirror1.example.org/res1": {status: 200, header: http.Header{"Content-Type": {"text/plain"}}, body: "stale copy\n"},
		"http://mirror2.example.org/res1": {status: 404, header: http.Header{"Content-Type": {"text/html"}}},
	}}
}

func TestResourceViewGolden(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			fake := ivResourceFake()
			v := NewResource(ivTestCommon(), ivChecker(fake), "", ivResourceEntry(t))
			tm, rec := ivRun(t, v, w, h)
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "everything declared matches") })
			ivGolden(t, fmt.Sprintf("view_resource_%dx%d", w, h), rec.Screen())

			tm.Type("m")
			tm.Send(ivKey("pgdown"))
			ivWaitScreen(t, rec, func(s string) bool {
				return strings.Contains(s, "✓ 200") && strings.Contains(s, "✗ 404") && !strings.Contains(s, "fetching")
			})
			tm.Type("jj")
			tm.Send(ivKey("enter"))
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "▸ duplicate pri 1") })
			ivGolden(t, fmt.Sprintf("view_resource_mirrors_%dx%d", w, h), rec.Screen())
			// A mirror is a resource: its view opens over this page.
			got := ivWaitMsgs(t, rec, 1)
			pp, ok := got[0].(nav.PushMsg)
			if len(got) != 1 || !ok {
				t.Fatalf("enter on the third link sent %v", got)
			}
			if rp, ok := pp.Page.(*Resource); !ok || rp.entry.Loc != "http://mirror1.example.org/res1" || rp.via != "duplicate link of example.com/res1" {
				t.Errorf("enter on the third link opened %#v", pp.Page)
			}
			for _, u := range fake.Asked() {
				if strings.HasPrefix(u, "rsync:") {
					t.Errorf("asked the downloader for %s", u)
				}
			}
		})
	}
}

func TestResourceViewMirrorsPolitely(t *testing.T) {
	e := ivResourceEntry(t)
	for i := 0; i < 6; i++ {
		e.Links = append(e.Links, model.Link{Rel: "duplicate", Href: fmt.Sprintf("http://m%d.example.org/res1", i)})
	}
	block := make(chan struct{})
	var mu sync.Mutex
	running, peak := 0, 0
	d := ivDownloaderFunc(func(ctx context.Context, url string, w io.Writer, o fetch.DownloadOptions) (*fetch.Exchange, error) {
		mu.Lock()
		running++
		peak = max(peak, running)
		mu.Unlock()
		<-block
		mu.Lock()
		running--
		mu.Unlock()
		return &fetch.Exchange{Status: 200}, nil
	})
	v := NewResource(ivTestCommon(), ivChecker(d), "", e)
	v.SetSize(120, 40)
	v.targets[0].state = targetDone
	_, cmd := v.Update(ivKey("m"))
	close(block)
	ivDrive(v, ivRunCmd(cmd)...)
	if peak > resourceMirrorConcurrency {
		t.Errorf("%d mirror downloads at once, want at most %d", peak, resourceMirrorConcurrency)
	}
	for _, tg := range v.targets[1:] {
		if tg.state != targetDone && tg.state != targetUnfetchable {
			t.Errorf("%s left in state %d", tg.Label, tg.state)
		}
	}
}

type ivDownloaderFunc func(ctx context.Context, url string, w io.Writer, o fetch.DownloadOptions) (*fetch.Exchange, error)

func (f ivDownloaderFunc) DownloadWith(ctx context.Context, url string, w io.Writer, o fetch.DownloadOptions) (*fetch.Exchange, error) {
	return f(ctx, url, w, o)
}

// The resource fetched for real, through fetch.Client, from a test server.
func TestResourceViewFetchHTTP(t *testing.T) {
	body := ivBody
	released := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Last-Modified", "Wed, 02 Jan 2013 13:00:00 GMT")
		switch r.URL.Path {
		case "/ok":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, body)
		case "/wrongtype":
			w.Header().Set("Content-Type", "application/octet-stream")
			io.WriteString(w, body)
		case "/wronglength":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, body+"trailing bytes")
		case "/slow":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Length", "1000000")
			io.WriteString(w, body)
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				close(released)
			case <-time.After(20 * time.Second):
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	client, err := fetch.NewClient(fetch.Options{NoCache: true, Netrc: "-", Retries: 0})
	if err != nil {
		t.Fatal(err)
	}
	entry := func(path, hashes string) model.Entry {
		return model.Entry{
			Loc: srv.URL + path, Lastmod: ivDatetime(t, "2013-01-02T13:00:00Z"),
			MD: model.Metadata{Hash: ivHashes(t, hashes), Length: int64(len(body)), LengthRaw: fmt.Sprint(len(body)), LengthOK: true, Type: "text/html"},
		}
	}
	good := "md5:" + ivMD5(body) + " sha-256:" + ivSHA256(body)
	tests := []struct {
		path, hashes, want string
	}{
		{"/ok", good, "status✓ length✓ type✓ lastmod✓ md5✓ sha-256✓"},
		{"/ok", "md5:" + ivMD5("something else"), "status✓ length✓ type✓ lastmod✓ md5✗"},
		{"/wronglength", good, "status✓ length✗ type✓ lastmod✓ md5✗ sha-256✗"},
		{"/wrongtype", good, "status✓ length✓ type✗ lastmod✓ md5✓ sha-256✓"},
		{"/missing", good, "status✗ length? type? lastmod? md5? sha-256?"},
	}
	for _, tt := range tests {
		v := NewResource(ivTestCommon(), ivChecker(client), "", entry(tt.path, tt.hashes))
		v.SetSize(120, 40)
		ivDrive(v, ivRunCmd(v.Init())...)
		if got := ivMarks(v.targets[0].checks); got != tt.want {
			t.Errorf("%s %s: %s, want %s", tt.path, tt.hashes[:8], got, tt.want)
		}
		if tt.path == "/ok" && string(v.targets[0].result.Preview) != body {
			t.Errorf("preview %q", v.targets[0].result.Preview)
		}
	}

	// A slow download shows its progress and esc cancels it. It declares
	// the length the server announces: a body announced much longer than
	// declared is not read at all.
	slow := entry("/slow", good)
	slow.MD.Length, slow.MD.LengthRaw = 1000000, "1000000"
	v := NewResource(ivTestCommon(), ivChecker(client), "", slow)
	tm, rec := ivRun(t, v, 100, 30)
	ivWaitScreen(t, rec, func(s string) bool {
		return strings.Contains(s, "esc cancels") && strings.Contains(s, "42 B of 977 KiB")
	})
	tm.Send(ivKey("esc"))
	screen := ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "cancelled after") })
	select {
	case <-released:
	case <-time.After(5 * time.Second):
		t.Error("the server never saw the request cancelled")
	}
	if !strings.Contains(screen, "? status") || !strings.Contains(screen, "cancelled") {
		t.Errorf("after esc:\n%s", screen)
	}
}

// A result for another resource view (or an earlier fetch) is dropped.
func TestResourceViewDropsStaleResults(t *testing.T) {
	a := NewResource(ivTestCommon(), ivChecker(ivResourceFake()), "", ivResourceEntry(t))
	b := NewResource(ivTestCommon(), ivChecker(ivResourceFake()), "", ivResourceEntry(t))
	if a.session == b.session {
		t.Fatal("two views share a session")
	}
	a.SetSize(120, 40)
	b.SetSize(120, 40)
	ca, cb := a.Init(), b.Init()
	msgsB := ivRunCmd(cb)
	ivDrive(a, msgsB...)
	if a.targets[0].state != targetRunning {
		t.Errorf("view a took view b's result: state %d", a.targets[0].state)
	}
	// A refetch makes the first download's result stale.
	_, cmd := a.Update(ivKey("r"))
	ivDrive(a, ivRunCmd(ca)...)
	if a.targets[0].state != targetRunning {
		t.Errorf("a stale result was taken: state %d", a.targets[0].state)
	}
	ivDrive(a, ivRunCmd(cmd)...)
	if a.targets[0].state != targetDone || ivMarks(a.targets[0].checks) != "status✓ length✓ type✓ lastmod✓ md5✓ sha-256✓" {
		t.Errorf("after the refetch: state %d, %s", a.targets[0].state, ivMarks(a.targets[0].checks))
	}
}

func TestResourceViewBareURL(t *testing.T) {
	for _, e := range []model.Entry{{Loc: "http://example.com/res1"}, {Index: -1, Loc: "http://example.com/res1"}} {
		v := NewResource(ivTestCommon(), ivChecker(ivResourceFake()), "", e)
		v.SetSize(100, 20)
		ivDrive(v, ivRunCmd(v.Init())...)
		screen := strings.Join(ivLines(v.View()), "\n")
		if strings.Contains(screen, "entry ") || !strings.Contains(screen, "Declared  nothing (no length, type, lastmod or hash)") {
			t.Errorf("bare URL %+v:\n%s", e, screen)
		}
		if !strings.Contains(screen, "✓ status    2xx                      200 OK") {
			t.Errorf("bare URL not fetched:\n%s", screen)
		}
	}
}
