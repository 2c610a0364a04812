package pages

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"rsx/fetch"
	"rsx/ui/nav"
)

func ivExchanges() []*fetch.Exchange {
	t0 := ivTestTime()
	return []*fetch.Exchange{
		{
			Method: "GET", URL: "http://example.com/.well-known/resourcesync", FinalURL: "https://example.com/sd.xml",
			RequestHeader: http.Header{
				"User-Agent":    {"rsx/dev"},
				"Accept":        {"application/xml"},
				"Authorization": {"Basic …(redacted)"},
			},
			Redirects: []fetch.Redirect{
				{URL: "http://example.com/.well-known/resourcesync", Status: 301, Location: "https://example.com/.well-known/resourcesync", To: "https://example.com/.well-known/resourcesync"},
				{URL: "https://example.com/.well-known/resourcesync", Status: 302, Location: "/sd.xml", To: "https://example.com/sd.xml"},
			},
			Status: 200, StatusText: "OK",
			ResponseHeader: http.Header{
				"Content-Type":   {"application/xml; charset=utf-8"},
				"Content-Length": {"1234"},
				"Last-Modified":  {"Thu, 03 Jan 2013 09:00:00 GMT"},
				"Set-Cookie":     {"…(redacted)"},
			},
			Tries: 2, Started: t0, TTFB: 120 * time.Millisecond, Duration: 1234567 * time.Microsecond,
			Bytes: 1234, Done: true,
		},
		{
			Method: "GET", URL: "https://example.com/capabilitylist.xml", FinalURL: "https://example.com/capabilitylist.xml",
			RequestHeader: http.Header{"If-None-Match": {`"abc"`}},
			Status:        304, StatusText: "Not Modified",
			ResponseHeader: http.Header{"Etag": {`"abc"`}},
			Tries:          1, Started: t0.Add(2 * time.Second), TTFB: 40 * time.Millisecond, Duration: 41 * time.Millisecond,
			Bytes: 5120, FromCache: true, Revalidated: true, Done: true,
		},
		{
			Method: "GET", URL: "https://down.example.org/resourcelist.xml",
			Tries: 3, Started: t0.Add(3 * time.Second), Duration: 3 * time.Second, Done: true,
			Err: "GET https://down.example.org/resourcelist.xml: dial tcp: connection refused (after 3 tries)",
		},
		{
			Method: "GET", URL: "https://example.com/big.zip", Started: t0.Add(4 * time.Second),
			Status: 200, StatusText: "OK", TTFB: 80 * time.Millisecond, Bytes: 3 << 20,
		},
	}
}

func TestHTTPViewGolden(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			tm, rec := ivRun(t, NewHTTP(ivTestCommon(), ivExchanges()), w, h)
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "big.zip") && strings.Contains(s, "in progress") })
			ivGolden(t, fmt.Sprintf("view_http_last_%dx%d", w, h), rec.Screen())
			tm.Type("g")
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "Redirects") })
			ivGolden(t, fmt.Sprintf("view_http_%dx%d", w, h), rec.Screen())
			tm.Type("jj")
			ivWaitScreen(t, rec, func(s string) bool { return strings.Contains(s, "(after 3 tries)") })
			ivGolden(t, fmt.Sprintf("view_http_error_%dx%d", w, h), rec.Screen())
		})
	}
}

func TestHTTPViewDetail(t *testing.T) {
	v := NewHTTP(ivTestCommon(), ivExchanges())
	v.SetSize(100, 60)
	v.Update(ivKey("g"))
	screen := strings.Join(ivLines(v.View()), "\n")
	for _, want := range []string{
		"Request   GET http://example.com/.well-known/resourcesync",
		"  Authorization: Basic …(redacted)",
		"Redirects 2 hops",
		"  1. 301 Moved Permanently  http://example.com/.well-known/resourcesync",
		"     Location: /sd.xml  → https://example.com/sd.xml",
		"Response  200 OK  from https://example.com/sd.xml",
		"  Set-Cookie: …(redacted)",
		"Timing    TTFB 120ms · total 1.235s · started 2026-11-22 07:30:00.000Z",
		"Transfer  1.2 KiB · 2 tries",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("detail lacks %q:\n%s", want, screen)
		}
	}
	v.Update(ivKey("j"))
	screen = strings.Join(ivLines(v.View()), "\n")
	if !strings.Contains(screen, "Transfer  5.0 KiB · 1 try · from cache · revalidated (304 Not Modified)") {
		t.Errorf("304 detail:\n%s", screen)
	}
	msgs := ivDrive(v, ivKey("y"))
	if len(msgs) != 1 || msgs[0] != (nav.CopyMsg{Text: "https://example.com/capabilitylist.xml", What: "URL"}) {
		t.Errorf("y: %v", msgs)
	}
}

func TestHTTPViewScrollsDetail(t *testing.T) {
	ex := ivExchanges()[:1]
	for i := 0; i < 50; i++ {
		ex[0].ResponseHeader.Add("X-Many", fmt.Sprint("value ", i))
	}
	v := NewHTTP(ivTestCommon(), ex)
	v.SetSize(80, 24)
	if v.detailScroll.Offset() != 0 {
		t.Fatal("detail should start at the top")
	}
	v.Update(ivKey("pgdown"))
	if v.detailScroll.Offset() != v.detailHeight() {
		t.Errorf("pgdown: detailTop = %d", v.detailScroll.Offset())
	}
	v.Update(ivKey("G")) // the last exchange is the only one: detail stays
	if v.detailScroll.Offset() == 0 {
		t.Errorf("re-selecting the same exchange reset the detail scroll")
	}
	if n := len(strings.Split(v.View(), "\n")); n != 24 {
		t.Errorf("view has %d lines, want 24", n)
	}
}

func TestHTTPViewEmpty(t *testing.T) {
	v := NewHTTP(ivTestCommon(), nil)
	v.SetSize(80, 5)
	v.Update(ivKey("j"))
	if !strings.Contains(v.View(), "no HTTP request made yet") || v.Selected() != nil {
		t.Errorf("empty view:\n%s", v.View())
	}
	v.SetExchanges(ivExchanges()[:2])
	if v.Selected() == nil {
		t.Error("no selection after SetExchanges")
	}
	// The newest stays selected as exchanges arrive; another selection stays put.
	v.Update(ivKey("G"))
	v.SetExchanges(ivExchanges()[:3])
	if v.list.Cursor() != 2 {
		t.Errorf("newest not followed: sel %d", v.list.Cursor())
	}
	v.Update(ivKey("g"))
	v.SetExchanges(ivExchanges())
	if v.list.Cursor() != 0 {
		t.Errorf("selection moved: sel %d", v.list.Cursor())
	}
}
