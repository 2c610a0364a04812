package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"rsx/fetch"
	"rsx/session"
)

// exWaitingBackend loads nothing until its context ends, while its one
// exchange waits to try again as a server asked (Retry-After).
type exWaitingBackend struct {
	NopBackend
	until    time.Time
	returned chan struct{} // closed when LoadDocument has returned
}

func (b exWaitingBackend) LoadDocument(ctx context.Context, url string, sink session.DocSink) error {
	defer close(b.returned)
	<-ctx.Done()
	sink.Done(session.LoadResult{Err: ctx.Err()})
	return ctx.Err()
}

func (b exWaitingBackend) Exchanges() []*fetch.Exchange {
	return []*fetch.Exchange{
		{Method: "GET", URL: exHost + "/other.xml", WaitingUntil: b.until.Add(time.Hour), WaitReason: "back-off"}, // not ours
		{Method: "GET", URL: exHost + "/busy.xml", Status: 503, Tries: 1, WaitingUntil: b.until, WaitReason: "Retry-After"},
	}
}

// While the document's request waits to try again (Retry-After), the
// loading screen and the status bar say how long; esc still cancels the
// load, and the wait with it.
func TestLoadSaysItWaitsToRetry(t *testing.T) {
	for _, sz := range exSizes {
		b := exWaitingBackend{until: exTime.Add(42 * time.Second), returned: make(chan struct{})}
		a := New(Options{Target: exHost + "/busy.xml", Backend: b, Now: func() time.Time { return exTime }, Dark: true})
		a.noTick = true
		d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64), idle: 50 * time.Millisecond}
		d.send(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
		d.run(a.Init())
		d.send(a.c.Spinner.Tick()) // the exchanges are read on the spinner's ticks
		s := d.screen()
		if !strings.Contains(s, "waiting 42s to try again (Retry-After)") {
			t.Fatalf("%dx%d: the wait is not said:\n%s", sz.w, sz.h, s)
		}
		if status := strings.Split(s, "\n")[sz.h-2]; !strings.Contains(status, "waiting 42s") {
			t.Errorf("%dx%d: the status bar does not say the wait: %q", sz.w, sz.h, status)
		}
		d.keys("esc")
		select {
		case <-b.returned:
		case <-time.After(5 * time.Second):
			t.Fatal("esc did not end the load that waits")
		}
		if a.doc.loading || !errors.Is(a.doc.err, errCancelled) {
			t.Fatalf("after esc: loading %v, error %v", a.doc.loading, a.doc.err)
		}
		d.send(a.c.Spinner.Tick())
		if s := d.screen(); strings.Contains(s, "waiting") {
			t.Errorf("the wait is still said after esc:\n%s", s)
		}
	}
}

// exBlockingGetter answers nothing until the request is cancelled.
type exBlockingGetter struct{}

func (exBlockingGetter) Get(ctx context.Context, url string) (*fetch.Response, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// exWaitingPackages is a session whose one exchange, the package's, waits
// to try again.
type exWaitingPackages struct {
	*session.Session
	url   string
	until time.Time
}

func (b exWaitingPackages) Exchanges() []*fetch.Exchange {
	return []*fetch.Exchange{{Method: "GET", URL: b.url, Status: 429, Tries: 2, WaitingUntil: b.until, WaitReason: "Retry-After"}}
}

// The package page says that its download waits to try again, in place of
// a progress bar that does not move; esc cancels.
func TestPackageDownloadSaysItWaitsToRetry(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	url := exHost + "/dumps/busy.zip"
	b := exWaitingPackages{Session: session.NewWithGetter(exBlockingGetter{}, session.Options{}), url: url, until: exTime.Add(3 * time.Minute)}
	a := New(Options{Target: url, Backend: b, Now: func() time.Time { return exTime }, Dark: true})
	a.noTick = true
	d := &exDriver{t: t, a: a, msgs: make(chan tea.Msg, 64), idle: 50 * time.Millisecond}
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.run(a.Init())
	v := pkPage(t, a)
	d.send(a.c.Spinner.Tick())
	if s := d.screen(); !strings.Contains(s, "Download  waiting 3m0s to try again (Retry-After)  esc cancels") {
		t.Fatalf("the wait is not said:\n%s", s)
	}
	d.keys("esc")
	if v.Busy() || !strings.Contains(pkLine(d.screen(), "Download"), "cancelled after") {
		t.Fatalf("not cancelled after esc:\n%s", d.screen())
	}
	if s := d.screen(); strings.Contains(s, "waiting") {
		t.Errorf("the wait is still said after esc:\n%s", s)
	}
}
