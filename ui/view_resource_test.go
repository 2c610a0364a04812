package ui

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"rsx/fetch"
	"rsx/model"
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

func ivDatetime(t *testing.T, s string) model.Datetime {
	t.Helper()
	d, err := model.ParseDatetime(s)
	if err != nil {
		t.Fatalf("datetime %q: %v", s, err)
	}
	return d
}

// ivOutcome simulates a download of body with the given response.
func ivOutcome(d resourceDeclared, status int, h http.Header, body string, err error) resourceOutcome {
	v := model.NewVerifier(d.Hash)
	if status >= 200 && status <= 299 {
		io.WriteString(v, body)
	}
	return resourceOutcome{
		Exchange: &fetch.Exchange{Status: status, ResponseHeader: h},
		Err:      err, Bytes: v.Bytes(), Hashes: v.Results(),
	}
}

func marksOf(rows []resourceCheck) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%s%s ", r.Field, r.Mark)
	}
	return strings.TrimSpace(b.String())
}

func TestResourceCompare(t *testing.T) {
	md5Body, shaBody := ivMD5(ivBody), ivSHA256(ivBody)
	raw := md5.Sum([]byte(ivBody))
	b64 := base64.StdEncoding.EncodeToString(raw[:])
	okHeader := func() http.Header {
		return http.Header{
			"Content-Type":   {"text/html; charset=utf-8"},
			"Content-Length": {fmt.Sprint(len(ivBody))},
			"Last-Modified":  {"Wed, 02 Jan 2013 13:00:00 GMT"},
		}
	}
	with := func(k, v string) http.Header {
		h := okHeader()
		if v == "" {
			h.Del(k)
		} else {
			h.Set(k, v)
		}
		return h
	}
	full := func(t *testing.T) resourceDeclared {
		return resourceDeclared{
			Hash:   ivHashes(t, "md5:"+md5Body+" sha-256:"+shaBody),
			Length: int64(len(ivBody)), LengthRaw: fmt.Sprint(len(ivBody)), LengthOK: true,
			Type:    "text/html",
			Lastmod: ivDatetime(t, "2013-01-02T13:00:00Z"),
		}
	}
	tests := []struct {
		name   string
		decl   func(*testing.T) resourceDeclared
		status int
		header http.Header
		body   string
		err    error
		want   string
	}{
		{"all match", full, 200, okHeader(), ivBody, nil,
			"status✓ length✓ type✓ lastmod✓ md5✓ sha-256✓"},
		{"nothing declared", func(*testing.T) resourceDeclared { return resourceDeclared{} }, 200, okHeader(), ivBody, nil,
			"status✓ length– type– lastmod– hash–"},
		{"wrong body: hashes and length differ", full, 200, with("Content-Length", ""), "other body", nil,
			"status✓ length✗ type✓ lastmod✓ md5✗ sha-256✗"},
		{"Content-Length differs from the declared length", full, 200, with("Content-Length", "999"), ivBody, nil,
			"status✓ length✗ type✓ lastmod✓ md5✓ sha-256✓"},
		{"Content-Length of a gzip transfer is not compared", full, 200, func() http.Header {
			h := with("Content-Length", "20")
			h.Set("Content-Encoding", "gzip")
			return h
		}(), ivBody, nil, "status✓ length✓ type✓ lastmod✓ md5✓ sha-256✓"},
		{"type compared without parameters, case-insensitively", func(t *testing.T) resourceDeclared {
			d := full(t)
			d.Type = "TEXT/HTML; charset=latin1"
			return d
		}, 200, okHeader(), ivBody, nil, "status✓ length✓ type✓ lastmod✓ md5✓ sha-256✓"},
		{"wrong type", full, 200, with("Content-Type", "application/xml"), ivBody, nil,
			"status✓ length✓ type✗ lastmod✓ md5✓ sha-256✓"},
		{"no Content-Type", full, 200, with("Content-Type", ""), ivBody, nil,
			"status✓ length✓ type? lastmod✓ md5✓ sha-256✓"},
		{"lastmod differs", full, 200, with("Last-Modified", "Wed, 02 Jan 2013 13:00:01 GMT"), ivBody, nil,
			"status✓ length✓ type✓ lastmod✗ md5✓ sha-256✓"},
		{"no Last-Modified", full, 200, with("Last-Modified", ""), ivBody, nil,
			"status✓ length✓ type✓ lastmod? md5✓ sha-256✓"},
		{"Last-Modified not a date", full, 200, with("Last-Modified", "yesterday"), ivBody, nil,
			"status✓ length✓ type✓ lastmod? md5✓ sha-256✓"},
		{"lastmod with a fraction matches its second", func(t *testing.T) resourceDeclared {
			d := full(t)
			d.Lastmod = ivDatetime(t, "2013-01-02T14:00:00.75+01:00")
			return d
		}, 200, okHeader(), ivBody, nil, "status✓ length✓ type✓ lastmod✓ md5✓ sha-256✓"},
		{"lastmod of a day matches any time that day", func(t *testing.T) resourceDeclared {
			d := full(t)
			d.Lastmod = ivDatetime(t, "2013-01-02")
			return d
		}, 200, okHeader(), ivBody, nil, "status✓ length✓ type✓ lastmod✓ md5✓ sha-256✓"},
		{"base64 md5 (as resync-client-ruby writes it)", func(t *testing.T) resourceDeclared {
			d := full(t)
			d.Hash = ivHashes(t, "md5:"+b64)
			return d
		}, 200, okHeader(), ivBody, nil, "status✓ length✓ type✓ lastmod✓ md5✓"},
		{"unsupported algorithm next to a supported one", func(t *testing.T) resourceDeclared {
			d := full(t)
			d.Hash = ivHashes(t, "sha3-256:"+shaBody+" md5:"+md5Body)
			return d
		}, 200, okHeader(), ivBody, nil, "status✓ length✓ type✓ lastmod✓ sha3-256? md5✓"},
		{"invalid declared length", func(t *testing.T) resourceDeclared {
			d := full(t)
			d.LengthRaw, d.LengthOK = "ten", false
			return d
		}, 200, okHeader(), ivBody, nil, "status✓ length? type✓ lastmod✓ md5✓ sha-256✓"},
		{"404", full, 404, http.Header{"Content-Type": {"text/html"}, "Last-Modified": {"Wed, 02 Jan 2013 13:00:00 GMT"}}, "", &fetch.StatusError{Status: 404},
			"status✗ length? type? lastmod? md5? sha-256?"},
		{"connection refused", full, 0, nil, "", errors.New("dial tcp: connection refused"),
			"status✗ length? type? lastmod? md5? sha-256?"},
		{"cancelled mid-body", full, 200, okHeader(), ivBody[:10], context.Canceled,
			"status? length? type✓ lastmod✓ md5? sha-256?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.decl(t)
			o := ivOutcome(d, tt.status, tt.header, tt.body, tt.err)
			if tt.status == 0 {
				o.Exchange = nil
			}
			rows := compareResource(d, o)
			if got := marksOf(rows); got != tt.want {
				t.Errorf("marks = %s\nwant    %s\nrows: %+v", got, tt.want, rows)
			}
		})
	}
}

func TestResourceCompareDetails(t *testing.T) {
	raw := md5.Sum([]byte(ivBody))
	d := resourceDeclared{Hash: ivHashes(t, "md5:"+base64.StdEncoding.EncodeToString(raw[:])), Type: "text/html"}
	rows := compareResource(d, ivOutcome(d, 200, http.Header{"Content-Type": {"text/plain"}}, ivBody, nil))
	byField := map[string]resourceCheck{}
	for _, r := range rows {
		byField[r.Field] = r
	}
	if got := byField["md5"].Declared; !strings.Contains(got, "(base64 = "+ivMD5(ivBody)+")") {
		t.Errorf("base64 digest shown as %q", got)
	}
	if got := byField["type"]; got.Declared != "text/html" || got.Actual != "text/plain" || got.Short != "text/plain" {
		t.Errorf("type row %+v", got)
	}
	if got := byField["status"]; got.Actual != "200 OK" {
		t.Errorf("status row %+v", got)
	}
}

func TestResourceMirrorOrder(t *testing.T) {
	links := []model.Link{
		{Rel: "duplicate", Href: "http://m/absent"},                                // 999999
		{Rel: "alternate", Href: "http://m/alt", Pri: 1, PriRaw: "1", PriOK: true}, // not a mirror
		{Rel: "duplicate", Href: "http://m/p5", Pri: 5, PriRaw: "5", PriOK: true},
		{Rel: "duplicate", Href: "http://m/bad", PriRaw: "high"}, // invalid: 999999
		{Rel: "DUPLICATE alternate", Href: "http://m/p2", Pri: 2, PriRaw: "2", PriOK: true},
		{Rel: "duplicate", Href: "http://m/p5b", Pri: 5, PriRaw: "5", PriOK: true},
		{Rel: "duplicate", Href: "http://m/max", Pri: 999999, PriRaw: "999999", PriOK: true},
	}
	var got []string
	for _, i := range orderedMirrors(links) {
		got = append(got, strings.TrimPrefix(links[i].Href, "http://m/"))
	}
	want := "p2 p5 p5b absent bad max"
	if strings.Join(got, " ") != want {
		t.Errorf("mirror order = %v, want %s", got, want)
	}
}

func TestResourceMirrorDeclared(t *testing.T) {
	e := model.Entry{Loc: "http://example.com/r", MD: model.Metadata{Type: "text/html", Length: 10, LengthRaw: "10", LengthOK: true, Hash: ivHashes(t, "md5:"+ivMD5("x"))}}
	own := model.Link{Rel: "duplicate", Href: "/m", Type: "text/plain", HashRaw: "sha-256:" + ivSHA256("x"), Hash: ivHashes(t, "sha-256:"+ivSHA256("x"))}
	d := declaredOfMirror(e, own)
	if d.Type != "text/plain" || d.Length != 10 || len(d.Hash) != 1 || d.Hash[0].Alg != "sha-256" {
		t.Errorf("mirror declared %+v", d)
	}
	v := newResourceView(ivTestCommon(), &ivFakeDownloader{}, model.Entry{Loc: "http://example.com/dir/r", Links: []model.Link{own}})
	if v.targets[1].URL != "http://example.com/m" {
		t.Errorf("relative mirror href resolved to %q", v.targets[1].URL)
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

func (f *ivFakeDownloader) Download(ctx context.Context, url string, w io.Writer, progress func(done, total int64)) (*fetch.Exchange, error) {
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

func ivResourceHarness(v resourceView) ivHarness[resourceView] {
	return ivHarness[resourceView]{v: v, init: v.Init(), update: resourceView.Update, view: resourceView.View, setSize: (*resourceView).SetSize}
}

func TestResourceViewGolden(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			fake := ivResourceFake()
			v := newResourceView(ivTestCommon(), fake, ivResourceEntry(t))
			tm, rec := ivRun(t, ivResourceHarness(v), w, h)
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
			if got := ivWaitMsgs(t, rec, 1); len(got) != 1 || got[0] != (openURLMsg{URL: "http://mirror1.example.org/res1"}) {
				t.Errorf("enter on the third link sent %v", got)
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
	d := ivDownloaderFunc(func(ctx context.Context, url string, w io.Writer, p func(int64, int64)) (*fetch.Exchange, error) {
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
	v := newResourceView(ivTestCommon(), d, e)
	v.SetSize(120, 40)
	v.targets[0].state = targetDone
	v, cmd := v.Update(ivKey("m"))
	close(block)
	v, _ = ivDrive(v, resourceView.Update, ivRunCmd(cmd)...)
	if peak > resourceMirrorConcurrency {
		t.Errorf("%d mirror downloads at once, want at most %d", peak, resourceMirrorConcurrency)
	}
	for _, tg := range v.targets[1:] {
		if tg.state != targetDone && tg.state != targetUnfetchable {
			t.Errorf("%s left in state %d", tg.Label, tg.state)
		}
	}
}

type ivDownloaderFunc func(ctx context.Context, url string, w io.Writer, p func(int64, int64)) (*fetch.Exchange, error)

func (f ivDownloaderFunc) Download(ctx context.Context, url string, w io.Writer, p func(int64, int64)) (*fetch.Exchange, error) {
	return f(ctx, url, w, p)
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
		v := newResourceView(ivTestCommon(), client, entry(tt.path, tt.hashes))
		v.SetSize(120, 40)
		v, _ = ivDrive(v, resourceView.Update, ivRunCmd(v.Init())...)
		if got := marksOf(v.targets[0].checks); got != tt.want {
			t.Errorf("%s %s: %s, want %s", tt.path, tt.hashes[:8], got, tt.want)
		}
		if tt.path == "/ok" && string(v.targets[0].preview) != body {
			t.Errorf("preview %q", v.targets[0].preview)
		}
	}

	// A slow download shows its progress and esc cancels it.
	v := newResourceView(ivTestCommon(), client, entry("/slow", good))
	tm, rec := ivRun(t, ivResourceHarness(v), 100, 30)
	ivWaitScreen(t, rec, func(s string) bool {
		return strings.Contains(s, "esc cancels") && strings.Contains(s, "42 B of 976.6 KiB")
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
	a := newResourceView(ivTestCommon(), ivResourceFake(), ivResourceEntry(t))
	b := newResourceView(ivTestCommon(), ivResourceFake(), ivResourceEntry(t))
	if a.session == b.session {
		t.Fatal("two views share a session")
	}
	a.SetSize(120, 40)
	b.SetSize(120, 40)
	ca, cb := a.Init(), b.Init()
	msgsB := ivRunCmd(cb)
	a, _ = ivDrive(a, resourceView.Update, msgsB...)
	if a.targets[0].state != targetRunning {
		t.Errorf("view a took view b's result: state %d", a.targets[0].state)
	}
	// A refetch makes the first download's result stale.
	a, cmd := a.Update(ivKey("r"))
	a, _ = ivDrive(a, resourceView.Update, ivRunCmd(ca)...)
	if a.targets[0].state != targetRunning {
		t.Errorf("a stale result was taken: state %d", a.targets[0].state)
	}
	a, _ = ivDrive(a, resourceView.Update, ivRunCmd(cmd)...)
	if a.targets[0].state != targetDone || marksOf(a.targets[0].checks) != "status✓ length✓ type✓ lastmod✓ md5✓ sha-256✓" {
		t.Errorf("after the refetch: state %d, %s", a.targets[0].state, marksOf(a.targets[0].checks))
	}
}

func TestResourceViewBareURL(t *testing.T) {
	for _, e := range []model.Entry{{Loc: "http://example.com/res1"}, {Index: -1, Loc: "http://example.com/res1"}} {
		v := newResourceView(ivTestCommon(), ivResourceFake(), e)
		v.SetSize(100, 20)
		v, _ = ivDrive(v, resourceView.Update, ivRunCmd(v.Init())...)
		screen := strings.Join(ivLines(v.View()), "\n")
		if strings.Contains(screen, "entry ") || !strings.Contains(screen, "Declared  nothing (no length, type, lastmod or hash)") {
			t.Errorf("bare URL %+v:\n%s", e, screen)
		}
		if !strings.Contains(screen, "✓ status    2xx                      200 OK") {
			t.Errorf("bare URL not fetched:\n%s", screen)
		}
	}
}
