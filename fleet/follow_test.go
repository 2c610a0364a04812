package fleet

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"rsx/notify"
)

// fakeChannels gives the Sources named in it one change channel each,
// whose events the test sends.
type fakeChannels struct {
	mu     sync.Mutex
	events map[string]chan notify.Event // by Source URL
}

func (c *fakeChannels) Find(_ context.Context, j Job) ([]notify.Channel, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.events[j.Source.URL]; !ok {
		return nil, notify.ErrNoChannels
	}
	return []notify.Channel{{URL: "ws://" + j.Host + "/notify", Kind: notify.KindChange}}, nil
}

func (c *fakeChannels) Watch(ctx context.Context, j Job, channels []notify.Channel) (<-chan notify.Event, func()) {
	c.mu.Lock()
	in := c.events[j.Source.URL]
	c.mu.Unlock()
	out := make(chan notify.Event)
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(out)
		send := func(e notify.Event) bool {
			select {
			case out <- e:
				return true
			case <-wctx.Done():
				return false
			}
		}
		if !send(notify.Event{Type: notify.EventConnected, Channel: channels[0]}) {
			return
		}
		for {
			select {
			case e := <-in:
				e.Channel = channels[0]
				if !send(e) {
					return
				}
			case <-wctx.Done():
				return
			}
		}
	}()
	return out, func() {
		cancel()
		for range out {
		}
		<-done
	}
}

func (c *fakeChannels) notify(url string) {
	c.mu.Lock()
	ch := c.events[url]
	c.mu.Unlock()
	ch <- notify.Event{Type: notify.EventNotification, Items: []notify.Item{{URL: url + "/r", Change: "updated"}}}
}

// fakeReporter keeps what it is told, a line each.
type fakeReporter struct {
	mu    sync.Mutex
	lines []string
	runs  []FollowRun
}

func (r *fakeReporter) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
}

func (r *fakeReporter) Following(n int, every time.Duration, given bool, debounce time.Duration) {
	r.add("following %d", n)
}
func (r *fakeReporter) Channels(j Job, f Found)    { r.add("channels %s %d", j.Name(), len(f.Channels)) }
func (r *fakeReporter) Changed(j Job, what string) { r.add("%s %s", what, j.Name()) }
func (r *fakeReporter) FileError(err error)        { r.add("file-error %v", err) }
func (r *fakeReporter) ChannelEvent(j Job, e *notify.Event, catchUp bool) {
	r.add("%s %s", e.Type, j.Name())
}
func (r *fakeReporter) Notification(j Job, e *notify.Event, brings, coalesced bool) {
	r.add("notification %s", j.Name())
}
func (r *fakeReporter) Ran(run FollowRun) {
	r.mu.Lock()
	r.runs = append(r.runs, run)
	r.mu.Unlock()
	held := ""
	if run.Held != nil {
		held = " held"
	}
	r.add("run %s %s%s", run.Job.Name(), run.Reason, held)
}
func (r *fakeReporter) Stopped(cause error, runs, failedRuns, failedSources int) {
	r.add("stopped %d %d %d", runs, failedRuns, failedSources)
}

func (r *fakeReporter) has(line string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.lines {
		if l == line {
			return true
		}
	}
	return false
}

func (r *fakeReporter) wait(t *testing.T, line string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !r.has(line) {
		if time.Now().After(deadline) {
			r.mu.Lock()
			defer r.mu.Unlock()
			t.Fatalf("no %q in:\n%s", line, strings.Join(r.lines, "\n"))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func startFollow(t *testing.T, file string, r Runner, ch Channels) (*fakeReporter, func() int) {
	t.Helper()
	path := writeFile(t, file)
	rep := &fakeReporter{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		bad, err := Follow(ctx, r, FollowOptions{Every: time.Hour, Debounce: 20 * time.Millisecond, Channels: ch, Report: rep,
			Load: func() (*File, []Job, error) {
				f, err := Read(path)
				if err != nil {
					return nil, nil, err
				}
				jobs, err := Jobs(f, CommandSync, Base{Dest: "/d"})
				return f, jobs, err
			}})
		if err != nil {
			t.Error(err)
		}
		done <- bad
	}()
	stop := func() int {
		cancel()
		select {
		case bad := <-done:
			return bad
		case <-time.After(10 * time.Second):
			t.Fatal("Follow did not stop")
			return -1
		}
	}
	t.Cleanup(func() { cancel() })
	return rep, stop
}

// A notification brings a run of its Source only, which is given the
// notification to apply; a Source without a channel is polled.
func TestFollowNotification(t *testing.T) {
	r := newFake()
	ch := &fakeChannels{events: map[string]chan notify.Event{"http://a.example/cl": make(chan notify.Event)}}
	rep, stop := startFollow(t, "[[source]]\nname = \"a\"\nurl = \"http://a.example/cl\"\ndest = \"/a\"\n[[source]]\nname = \"b\"\nurl = \"http://b.example/cl\"\ndest = \"/b\"\n", r, ch)
	rep.wait(t, "run a start")
	rep.wait(t, "run b start")
	rep.wait(t, "channels b 0")
	ch.notify("http://a.example/cl")
	rep.wait(t, "run a notification")
	if bad := stop(); bad != 0 {
		t.Errorf("%d Sources failed", bad)
	}
	rep.wait(t, "stopped 3 0 0")
	r.mu.Lock()
	defer r.mu.Unlock()
	last := r.requests[len(r.requests)-1]
	if last.Target != "http://a.example/cl" || last.Notified == nil || len(last.Notified.Events) != 1 {
		t.Errorf("the notified run's request: %+v", last)
	}
	if r.requests[0].Notified == nil || len(r.requests[0].Notified.Events) != 0 {
		t.Errorf("the start run applies no notification: %+v", r.requests[0].Notified)
	}
}

// A Source that holds a shared DEST for ever is stopped at the hold bound
// when another Source's notification makes that one due; the other runs,
// then the first continues.
func TestFollowHoldBound(t *testing.T) {
	r := newFake()
	r.forever["http://slow.example/cl"] = true
	ch := &fakeChannels{events: map[string]chan notify.Event{"http://honest.example/cl": make(chan notify.Event)}}
	rep, stop := startFollow(t, `hold = "300ms"
dest = "/shared"
[[source]]
name = "slow"
url = "http://slow.example/cl"
[[source]]
name = "honest"
url = "http://honest.example/cl"
`, r, ch)
	// Either starts first: when the slow one does, the bound stops it for
	// the honest one's start.
	rep.wait(t, "run honest start")
	ch.notify("http://honest.example/cl")
	rep.wait(t, "notification honest")
	// The slow one holds the DEST for ever: the honest one's notification
	// makes it due, and the bound stops the slow one for it.
	rep.wait(t, "run honest notification")
	stop()
	rep.mu.Lock()
	after, cut := false, false
	for _, l := range rep.lines {
		switch {
		case l == "notification honest":
			after = true
		case after && strings.HasPrefix(l, "run slow ") && strings.HasSuffix(l, " held"):
			cut = true
		case l == "run honest notification" && !cut:
			t.Errorf("the honest Source ran before the slow one was stopped:\n%s", strings.Join(rep.lines, "\n"))
		}
	}
	rep.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, why := range r.stopped["http://slow.example/cl"] {
		if why != "interrupted" && !strings.Contains(why, "hold bound") {
			t.Errorf("slow stopped: %q", why)
		}
	}
	if r.most["dest /shared"] != 1 {
		t.Errorf("%d runs in the shared DEST at once", r.most["dest /shared"])
	}
}
