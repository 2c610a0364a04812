//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rsx/demo"
)

// fleetRunLine is what the test reads of a line of
// rsx sync --sources FILE --follow --json.
type fleetRunLine struct {
	Event      string  `json:"event"`
	Reason     string  `json:"reason"`
	Source     string  `json:"source"`
	Started    string  `json:"started"`
	Seconds    float64 `json:"seconds"`
	ExitStatus int     `json:"exit_status"`
	Stopped    string  `json:"stopped"`
	Result     struct {
		Mode string `json:"mode"`
	} `json:"result"`
}

func (p *followProcess) fleetLines() []fleetRunLine {
	var out []fleetRunLine
	for _, raw := range p.snapshot() {
		var l fleetRunLine
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			p.t.Fatalf("not JSON: %v: %s", err, raw)
		}
		out = append(out, l)
	}
	return out
}

func (p *followProcess) waitFleet(d time.Duration, what string, match func(fleetRunLine) bool) fleetRunLine {
	p.t.Helper()
	deadline := time.Now().Add(d)
	for {
		for _, l := range p.fleetLines() {
			if match(l) {
				return l
			}
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("no %s within %v:\n%s\nstderr:\n%s", what, d, strings.Join(p.snapshot(), "\n"), p.errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSyncSourcesFollow runs rsx sync --sources FILE --follow against the
// demo Source's two datasets (two Sources of one host): both run once, a
// change brings a run of the dataset it changed by notification, never two
// runs of the host at once; SIGINT ends it with exit status 0 and the
// stopped line, and every run is in the DEST's history.
func TestSyncSourcesFollow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildRSX(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 600, Seed: 43})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	archive := filepath.Join(dir, "archive")
	file := filepath.Join(dir, "fleet.toml")
	one, two := srv.URL+"/dataset1/capabilitylist.xml", srv.URL+"/dataset2/capabilitylist.xml"
	os.WriteFile(file, []byte("dest = \""+archive+"\"\n[[source]]\nurl = \""+one+"\"\n[[source]]\nurl = \""+two+"\"\n"), 0o644)
	p := startFollowProcess(t, bin, "--sources", file, "--debounce", "300ms")
	for _, u := range []string{one, two} {
		l := p.waitFleet(30*time.Second, "start run of "+u, func(l fleetRunLine) bool {
			return l.Event == "run" && l.Reason == "start" && l.Source == u
		})
		if l.ExitStatus != 0 || l.Result.Mode != "baseline" {
			t.Fatalf("start run of %s: %+v", u, l)
		}
	}
	post(t, srv.URL+"/demo/advance?steps=1")
	if l := p.waitFleet(10*time.Second, "run after a notification", func(l fleetRunLine) bool {
		return l.Event == "run" && l.Reason == "notification" && l.Source == one
	}); l.ExitStatus != 0 || l.Result.Mode != "incremental" {
		t.Errorf("run after the notification: %+v", l)
	}
	if code := p.interrupt(); code != 0 {
		t.Errorf("exit %d after SIGINT, want 0\nstderr:\n%s", code, p.errb.String())
	}
	lines := p.fleetLines()
	if last := lines[len(lines)-1]; last.Event != "stopped" || last.Stopped != "interrupted by SIGINT" {
		t.Errorf("last line: %+v", last)
	}
	// One host: its runs never overlap.
	type span struct{ from, to time.Time }
	var spans []span
	for _, l := range lines {
		if l.Event != "run" {
			continue
		}
		s, err := time.Parse(time.RFC3339, l.Started)
		if err != nil {
			t.Fatal(err)
		}
		spans = append(spans, span{s, s.Add(time.Duration(l.Seconds * float64(time.Second)))})
	}
	for i := range spans {
		for j := i + 1; j < len(spans); j++ {
			// started has whole seconds: allow for them.
			if spans[i].from.Add(time.Second).Before(spans[j].to) && spans[j].from.Add(time.Second).Before(spans[i].to) {
				t.Errorf("two runs of one host at once: %v and %v", spans[i], spans[j])
			}
		}
	}
	out, err := exec.Command(bin, "log", "--json", archive).Output()
	if err != nil || strings.Count(string(out), `"mode"`) < 3 {
		t.Errorf("rsx log: %v\n%s", err, out)
	}
}
