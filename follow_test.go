//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"rsx/demo"
)

// followLine is what the test reads of a line of rsx sync --follow --json.
type followLine struct {
	Event    string  `json:"event"`
	Via      string  `json:"via"`
	URL      string  `json:"url"`
	Action   string  `json:"action"`
	Channel  string  `json:"channel"`
	Caught   *int    `json:"caught"`
	Error    *string `json:"error"`
	Problems []struct {
		Severity string `json:"severity"`
		Rule     string `json:"rule"`
	} `json:"problems"`
	// The first and last lines: the contract's sync object.
	Mode    *string         `json:"mode"`
	Source  *string         `json:"source"`
	Dest    *string         `json:"dest"`
	Created *int            `json:"created"`
	Updated *int            `json:"updated"`
	Deleted *int            `json:"deleted"`
	Skipped *int            `json:"skipped"`
	Failed  json.RawMessage `json:"failed"`
	Follow  *struct {
		FromNotifications int    `json:"from_notifications"`
		FromPolls         int    `json:"from_polls"`
		Polls             int    `json:"polls"`
		Rejected          int    `json:"rejected"`
		Stopped           string `json:"stopped"`
	} `json:"follow"`
}

// followProcess is rsx sync --follow --json running, its lines read as
// they come.
type followProcess struct {
	t     *testing.T
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []followLine
	raw   []string
	read  chan struct{} // closed when stdout ends
	errb  bytes.Buffer
}

func startFollowProcess(t *testing.T, bin string, args ...string) *followProcess {
	t.Helper()
	p := &followProcess{t: t, read: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{"sync", "--no-cache", "--follow", "--json"}, args...)...)
	p.cmd.Stderr = &p.errb
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	go func() {
		defer close(p.read)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var l followLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				l.Event = "NOT JSON: " + err.Error()
			}
			p.mu.Lock()
			p.lines = append(p.lines, l)
			p.raw = append(p.raw, sc.Text())
			p.mu.Unlock()
		}
	}()
	return p
}

// waitLine waits for a line that match accepts, among those after from,
// and returns its index.
func (p *followProcess) waitLine(from int, d time.Duration, what string, match func(followLine) bool) int {
	p.t.Helper()
	deadline := time.Now().Add(d)
	for {
		p.mu.Lock()
		for i := from; i < len(p.lines); i++ {
			if match(p.lines[i]) {
				p.mu.Unlock()
				return i
			}
		}
		n := len(p.lines)
		p.mu.Unlock()
		if time.Now().After(deadline) {
			p.t.Fatalf("no %s within %v (%d lines):\n%s\nstderr:\n%s", what, d, n, strings.Join(p.snapshot(), "\n"), p.errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (p *followProcess) snapshot() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.raw...)
}

func (p *followProcess) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.lines)
}

// interrupt sends SIGINT and returns the exit status.
func (p *followProcess) interrupt() int {
	p.t.Helper()
	p.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { <-p.read; done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			p.t.Fatal(err)
		}
		return 0
	case <-time.After(15 * time.Second):
		p.t.Fatalf("rsx sync --follow did not end within 15s of SIGINT")
		return -1
	}
}

func post(t *testing.T, url string) {
	t.Helper()
	resp, err := http.Post(url, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// TestSyncFollow runs rsx sync --follow against the demo Source: changes
// arrive by notification within seconds; the change made while the
// notification connection is down (POST /demo/disconnect) is caught by the
// next poll and reported as such; SIGINT ends it with the contract's sync
// object and exit status 0, and the copy audits in sync.
func TestSyncFollow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildRSX(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 600, Seed: 41})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// Steps 18 and 19 first (19 closes a Change List): the steps below
	// close none, so that the only poll is the interval's.
	post(t, srv.URL+"/demo/advance?steps=2")
	capList := srv.URL + "/dataset1/capabilitylist.xml"
	dest := t.TempDir()
	p := startFollowProcess(t, bin, "--delete", "--poll-interval", "2s", "--dest", dest, capList)

	first := p.waitLine(0, 30*time.Second, "caught-up line", func(l followLine) bool { return l.Event == "caught-up" })
	if first != 0 || p.lines[0].Mode == nil || *p.lines[0].Mode != "baseline" || p.lines[0].Created == nil || *p.lines[0].Created == 0 {
		t.Fatalf("the first line is not the catch-up's sync object: %s", p.snapshot()[0])
	}
	p.waitLine(0, 10*time.Second, "connection of the change channel", func(l followLine) bool {
		return l.Event == "connected" && strings.HasSuffix(l.Channel, "/dataset1/change")
	})
	p.waitLine(0, 10*time.Second, "first poll", func(l followLine) bool { return l.Event == "poll" })

	// A change, by notification, within seconds.
	n := p.count()
	post(t, srv.URL+"/demo/advance?steps=1")
	p.waitLine(n, 5*time.Second, "change applied from a notification", func(l followLine) bool {
		return l.Event == "change" && l.Via == "notification" && l.URL != "" && l.Action != ""
	})

	// The connection drops; the change made before it is back is caught by
	// the next poll, and said to be.
	// The step is taken before any channel can connect again: a
	// reconnection however quick (a loaded machine's scheduling) cannot
	// bring it by notification.
	n = p.count()
	post(t, srv.URL+"/demo/disconnect?advance=1")
	dropped := p.waitLine(n, 5*time.Second, "drop of the change channel", func(l followLine) bool {
		return l.Event == "disconnected" && strings.HasSuffix(l.Channel, "/dataset1/change")
	})
	caught := p.waitLine(n, 8*time.Second, "change caught by a poll", func(l followLine) bool {
		return l.Event == "change" && l.Via == "poll"
	})
	p.waitLine(caught, 5*time.Second, "the poll that caught it", func(l followLine) bool {
		return l.Event == "poll" && l.Caught != nil && *l.Caught > 0
	})
	p.waitLine(dropped, 5*time.Second, "reconnection", func(l followLine) bool {
		return l.Event == "connected" && strings.HasSuffix(l.Channel, "/dataset1/change")
	})

	code := p.interrupt()
	lines := p.snapshot()
	last := p.lines[len(p.lines)-1]
	if code != 0 || last.Event != "sync" || last.Mode == nil || last.Source == nil || *last.Source != capList || last.Dest == nil ||
		last.Created == nil || last.Updated == nil || last.Deleted == nil || last.Skipped == nil || string(last.Failed) != "[]" || last.Follow == nil {
		t.Fatalf("exit %d; the last line is not the whole run's sync object: %s\nstderr:\n%s", code, lines[len(lines)-1], p.errb.String())
	}
	if f := last.Follow; f.FromNotifications == 0 || f.FromPolls == 0 || f.Polls < 2 || f.Stopped != "interrupted" {
		t.Errorf("follow: %+v", *f)
	}
	for i, l := range p.lines {
		if strings.HasPrefix(l.Event, "NOT JSON") {
			t.Errorf("line %d: %s: %s", i+1, l.Event, lines[i])
		}
	}

	// The copy is the Source's, and its state consistent: an audit finds it
	// in sync, a sync finds nothing to do.
	out, err := exec.Command(bin, "audit", "--no-cache", "--dest", dest, "--json", capList).Output()
	if err != nil || !bytes.Contains(out, []byte(`"in_sync": true`)) {
		t.Errorf("audit after follow: %v\n%s", err, out)
	}
	out, err = exec.Command(bin, "sync", "--no-cache", "--delete", "--json", "--dest", dest, capList).Output()
	if err != nil || !bytes.Contains(out, []byte(`"created": 0,`)) || !bytes.Contains(out, []byte(`"updated": 0,`)) {
		t.Errorf("sync after follow: %v\n%s", err, out)
	}
}

// TestSyncFollowBroken: malformed notifications (the demo's --broken) are
// reported and not applied; text output says so on standard output.
func TestSyncFollowBroken(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildRSX(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 600, Seed: 42, Broken: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	capList := srv.URL + "/dataset1/capabilitylist.xml"
	p := startFollowProcess(t, bin, "--poll-interval", "1h", "--dest", t.TempDir(), capList)
	p.waitLine(0, 30*time.Second, "first poll", func(l followLine) bool { return l.Event == "poll" })
	p.waitLine(0, 10*time.Second, "connection", func(l followLine) bool {
		return l.Event == "connected" && strings.HasSuffix(l.Channel, "/dataset1/change")
	})
	n := p.count()
	post(t, srv.URL+"/demo/advance?steps=2") // step 19 ≡ 1 (mod 6): a cut notification follows the good one
	i := p.waitLine(n, 10*time.Second, "rejected notification", func(l followLine) bool { return l.Event == "rejected" })
	rej := p.lines[i]
	if len(rej.Problems) == 0 || rej.Problems[0].Severity != "error" {
		t.Errorf("rejected without an error: %s", p.snapshot()[i])
	}
	// The broken Source's catch-up had failures (bad hashes): exit 1.
	if code := p.interrupt(); code != 1 {
		t.Errorf("exit %d, want 1 (the broken Source's false claims are failures)", code)
	}
	if last := p.lines[len(p.lines)-1]; last.Event != "sync" || last.Follow == nil || last.Follow.Rejected == 0 {
		t.Errorf("last line: %s", p.snapshot()[len(p.lines)-1])
	}
}
