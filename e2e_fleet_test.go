package main

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestE2EFleet is the operator's day with three Sources, one broken and one
// that goes away halfway through: one command syncs them all (the failures
// do not stop the others; the JSON and the exit status say which), and the
// explorer's fleet page shows the three with their last run and lag; s
// plans a sync of one with the sync pages; l lists its runs.
func TestE2EFleet(t *testing.T) {
	requireTmux(t)
	bin := buildRSX(t)
	good := startServe(t, bin)
	broken := startServe(t, bin, "--broken")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	goneAddr := ln.Addr().String()
	ln.Close()
	// The third Source answers for the first sync, then goes away.
	gone := exec.Command(bin, "serve", "--addr", goneAddr)
	gone.Env = append(os.Environ(), e2eEnv(t)...)
	if err := gone.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { gone.Process.Kill(); gone.Wait() }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", goneAddr); err == nil {
			c.Close()
			break
		} else if time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "fleet.toml")
	os.WriteFile(file, []byte(`dest = "`+filepath.Join(dir, "archive")+`"

[[source]]
name = "datasets"
url = "`+good+`/dataset1/capabilitylist.xml"

[[source]]
name = "broken"
url = "`+broken+`/dataset1/capabilitylist.xml"
dest = "`+filepath.Join(dir, "broken")+`"

[[source]]
name = "vanishing"
url = "http://`+goneAddr+`/dataset2/capabilitylist.xml"
dest = "`+filepath.Join(dir, "vanishing")+`"
`), 0o644)

	sync := func() (int, map[string]int) {
		cmd := exec.Command(bin, "--no-cache", "--retries", "0", "sync", "--sources", file, "--json")
		cmd.Env = append(os.Environ(), e2eEnv(t)...)
		out, _ := cmd.Output()
		var doc struct {
			Sources []struct {
				Name       string `json:"name"`
				ExitStatus int    `json:"exit_status"`
			} `json:"sources"`
		}
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatalf("sync --sources --json: %v\n%s", err, out)
		}
		codes := map[string]int{}
		for _, s := range doc.Sources {
			codes[s.Name] = s.ExitStatus
		}
		return cmd.ProcessState.ExitCode(), codes
	}
	code, codes := sync()
	if code != 1 || codes["datasets"] != 0 || codes["broken"] != 1 || codes["vanishing"] != 0 {
		t.Fatalf("first fleet sync: exit %d, %v", code, codes)
	}
	// The third Source goes away; the Sources move on.
	gone.Process.Kill()
	gone.Wait()
	post(t, good+"/demo/advance?steps=6")
	code, codes = sync()
	if code != 1 || codes["datasets"] != 0 || codes["broken"] != 1 || codes["vanishing"] != 2 {
		t.Fatalf("second fleet sync: exit %d, %v", code, codes)
	}
	// The good one moves on again: its copy is now behind.
	post(t, good+"/demo/advance?steps=6")

	s := startTmux(t, bin+" --no-cache --retries 0 --sources "+file, e2eEnv(t))
	scr := s.waitFor(60*time.Second, "Fleet", "3 Sources", "datasets", "broken", "vanishing", "1 behind")
	for _, want := range [][2]string{{"datasets", "✓"}, {"broken", "✗"}, {"vanishing", "✗"}} {
		if l := lineWith(scr, want[0]); !strings.Contains(l, want[1]) {
			t.Errorf("the row of %s lacks %s: %q\n%s", want[0], want[1], l, scr)
		}
	}
	if l := lineWith(scr, "vanishing"); !strings.Contains(l, "Source:") {
		t.Errorf("the vanished Source's row does not say it cannot be read: %q", l)
	}
	if l := lineWith(scr, "datasets "); strings.Contains(l, "in step") {
		t.Errorf("the Source that moved on is shown in step: %q", l)
	}
	// l: the runs of the first Source, newest first.
	s.keys("l")
	scr = s.waitFor(20*time.Second, "Runs of datasets", "incremental", "baseline")
	if strings.Index(scr, "incremental") > strings.Index(scr, "baseline") {
		t.Errorf("runs not newest first:\n%s", scr)
	}
	// s: the sync pages plan its sync; enter runs it; the fleet page, read
	// again, shows it in step.
	s.keys("l")
	s.keys("s")
	s.waitFor(30*time.Second, "Sync plan", "nothing is written until enter")
	s.keys("Enter")
	s.waitFor(60*time.Second, "Sync result")
	s.keys("Escape")
	s.keys("r")
	s.waitUntil(60*time.Second, "the copy in step", func(scr string) bool {
		return strings.Contains(lineWith(scr, "datasets "), "in step")
	})
	// enter opens the Source's Capability List with its copy attached.
	s.keys("Enter")
	s.waitFor(30*time.Second, "Capability List", "resourcelist")
}
