package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestE2EInterruptedExplorerSync: ctrl+c in the middle of an explorer's
// sync. The explorer says on standard error, once its screen is gone, what
// the sync wrote and that it was interrupted; rsx log shows the run with
// those counts and "interrupted", finds it with --limit 1, and lists its
// files. (It exited 0 silently, leaving "+0 ~0 -0, no end recorded" though
// files were written.)
func TestE2EInterruptedExplorerSync(t *testing.T) {
	requireTmux(t)
	bin := buildRSX(t)
	base := startServe(t, bin)
	dir := filepath.Join(t.TempDir(), "copy")
	// --rate 40: the 500 resources of the part take over ten seconds.
	s := startTmux(t, bin+" --no-cache --rate 40 "+base+"/dataset1/resourcelist-0001.xml", e2eEnv(t))
	s.waitFor(20*time.Second, "Resource List", "/dataset1/res/000001")
	s.keys(":")
	s.typeText("sync " + dir)
	s.keys("Enter")
	s.waitFor(20*time.Second, "Sync plan", "nothing is written until enter")
	s.keys("Enter")
	deadline := time.Now().Add(30 * time.Second)
	for len(copyFiles(t, dir)) < 30 {
		if time.Now().After(deadline) {
			t.Fatalf("the sync wrote %d files in 30 s:\n%s", len(copyFiles(t, dir)), s.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.keys("C-c")
	scr := s.waitFor(60*time.Second, "EXIT 0")
	// (The line is wrapped at the terminal's 120 columns.)
	m := regexp.MustCompile(`rsx: the sync into \S+ was interrupted: (\d+) written; the next run continues`).FindStringSubmatch(strings.ReplaceAll(scr, "\n", ""))
	if m == nil {
		t.Fatalf("the explorer did not say the sync was interrupted:\n%s", scr)
	}
	written, _ := strconv.Atoi(m[1])
	files := len(copyFiles(t, dir))
	if written < 30 || written != files || files >= 500 {
		t.Errorf("it says %d written; %d files in the copy", written, files)
	}

	out, err := exec.Command(bin, "log", "--json", dir).Output()
	if err != nil {
		t.Fatalf("rsx log: %v", err)
	}
	var lj struct {
		Runs []struct {
			ID          int64   `json:"id"`
			Created     int     `json:"created"`
			Ended       *string `json:"ended"`
			Stopped     *string `json:"stopped"`
			Interrupted bool    `json:"interrupted"`
			Version     string  `json:"rsx_version"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out, &lj); err != nil || len(lj.Runs) != 1 {
		t.Fatalf("rsx log --json: %v\n%s", err, out)
	}
	r := lj.Runs[0]
	if r.Created != written || !r.Interrupted || r.Ended == nil || r.Stopped == nil || *r.Stopped != "interrupted" {
		t.Errorf("the run recorded: %+v", r)
	}
	text, _ := exec.Command(bin, "log", dir).Output()
	if !strings.Contains(string(text), "+"+m[1]+" ~0 -0") || !strings.Contains(string(text), "interrupted") {
		t.Errorf("rsx log:\n%s", text)
	}
	version, _ := exec.Command(bin, "--version").Output()
	if v := strings.Fields(string(version)); len(v) == 0 || "rsx "+v[len(v)-1] != r.Version {
		t.Errorf("the run records %q; rsx --version says %q", r.Version, version)
	}
	if one, err := exec.Command(bin, "log", "--run", "1", "--limit", "1", dir).Output(); err != nil || !strings.Contains(string(one), "#1 ") {
		t.Errorf("rsx log --run 1 --limit 1: %v\n%s", err, one)
	}
	listed, err := exec.Command(bin, "log", "--run", "1", "--files", dir).Output()
	if n := strings.Count(string(listed), "\n  created  "); err != nil || n != written {
		t.Errorf("rsx log --run 1 --files lists %d created, want %d: %v\n%.1000s", n, written, err, listed)
	}
}
