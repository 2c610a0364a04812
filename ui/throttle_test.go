package ui

import (
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"rsx/fetch"
)

// thBackend loads for ever and reports the throttles a test sets.
type thBackend struct {
	exStuckBackend
	mu sync.Mutex
	th []fetch.Throttle
}

func (b *thBackend) Throttled() []fetch.Throttle {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]fetch.Throttle(nil), b.th...)
}

// Exchanges: the document's request, so that the HTTP page opens.
func (b *thBackend) Exchanges() []*fetch.Exchange {
	return []*fetch.Exchange{{Method: "GET", URL: exHost + "/big.xml"}}
}

func (b *thBackend) set(th ...fetch.Throttle) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.th = th
}

// TestStatusBarShowsThrottle: while a host's rate (or its robots.txt
// Crawl-delay) holds the requests back, the status bar says so, with the
// pace and the way to change it; when the throttle lets go, or nothing
// loads, it says nothing of it. A page over the document says it on its
// tab line.
func TestStatusBarShowsThrottle(t *testing.T) {
	b := &thBackend{}
	a := New(Options{Target: exHost + "/big.xml", Backend: b, Now: func() time.Time { return exTime }, Dark: true})
	a.noTick = true
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64), idle: 50 * time.Millisecond}
	d.send(tea.WindowSizeMsg{Width: 120, Height: 30})
	d.run(a.Init())
	status := func() string {
		lines := strings.Split(d.screen(), "\n")
		return lines[len(lines)-2] // the footer is the last line
	}
	if s := status(); strings.Contains(s, "throttled") {
		t.Fatalf("throttled before any wait: %q", s)
	}
	b.set(fetch.Throttle{Host: "example.org", Rate: 1, Waits: 3, Waited: 2 * time.Second, Active: true})
	d.send(tea.KeyPressMsg{Code: tea.KeyDown}) // any message: the bar is drawn again
	if s := status(); !strings.Contains(s, "⏱ throttled: 1 req/s to example.org (--rate)") {
		t.Errorf("status bar while throttled: %q", s)
	}
	b.set(fetch.Throttle{Host: "example.org", Rate: 0.2, CrawlDelay: 5 * time.Second, Waits: 1, Active: true},
		fetch.Throttle{Host: "other.example.org", Rate: 1, Waits: 1, Active: true})
	d.send(tea.KeyPressMsg{Code: tea.KeyDown})
	if s := status(); !strings.Contains(s, "⏱ throttled: 1 req/5s to example.org (robots.txt Crawl-delay) and 1 more") {
		t.Errorf("status bar under a crawl delay: %q", s)
	}
	// The throttle let go (the run's waits are still counted).
	b.set(fetch.Throttle{Host: "example.org", Rate: 1, Waits: 3, Waited: 2 * time.Second})
	d.send(tea.KeyPressMsg{Code: tea.KeyDown})
	if s := status(); strings.Contains(s, "throttled") {
		t.Errorf("status bar after the throttle let go: %q", s)
	}
	// Over a page: its tab line.
	b.set(fetch.Throttle{Host: "example.org", Rate: 1, Waits: 3, Active: true})
	d.keys("h")
	if len(a.pages) == 0 {
		t.Fatal("h opened no page")
	}
	if top := strings.SplitN(d.screen(), "\n", 2)[0]; !strings.Contains(top, "⏱ throttled: 1 req/s to example.org (--rate)") {
		t.Errorf("tab line over a page while throttled: %q", top)
	}
	// Nothing loads: nothing is held back, whatever the client's record.
	d.keys("esc esc")
	if a.doc.loading {
		t.Fatal("esc did not cancel the load")
	}
	if s := status(); strings.Contains(s, "throttled") {
		t.Errorf("status bar with nothing loading: %q", s)
	}
}
