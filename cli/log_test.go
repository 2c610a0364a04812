package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// rsx log prints the runs rsx sync recorded, newest first, as text and JSON.
func TestLogCommand(t *testing.T) {
	url := startDemo(t, false)
	dest := filepath.Join(t.TempDir(), "copy")
	target := url + "/dataset2/capabilitylist.xml"
	for _, mode := range []string{"auto", "baseline"} {
		if code, _, stderr := runCmd(t, "sync", "--mode", mode, "--dest", dest, target); code != 0 {
			t.Fatalf("sync: %d %s", code, stderr)
		}
	}
	code, stdout, stderr := runCmd(t, "log", dest)
	if code != 0 || !strings.Contains(stdout, "2 runs, newest first") || strings.Index(stdout, "reconcile") > strings.Index(stdout, "baseline  ") {
		t.Errorf("log: %d %s %s", code, stdout, stderr)
	}
	code, stdout, _ = runCmd(t, "log", "--json", "--limit", "1", dest)
	j := decodeOneJSON[logJSON](t, stdout, "log")
	if code != 0 || len(j.Runs) != 1 || j.Runs[0].Mode != "reconcile" || j.Runs[0].ExitStatus == nil || *j.Runs[0].ExitStatus != 0 || j.Runs[0].Source != target {
		t.Errorf("log --json: %d %+v", code, j)
	}
	// The documents the first run read, and one of them as served.
	code, stdout, _ = runCmd(t, "log", "--json", "--run", "1", dest)
	j = decodeOneJSON[logJSON](t, stdout, "log --run")
	if code != 0 || len(j.Runs) != 1 || j.Runs[0].ID != 1 || len(j.Documents) == 0 {
		t.Fatalf("log --run 1: %d %+v", code, j)
	}
	code, stdout, _ = runCmd(t, "log", "--run", "1", "--document", target, dest)
	if code != 0 || !strings.Contains(stdout, "<urlset") || !strings.Contains(stdout, "capability=\"resourcelist\"") {
		t.Errorf("log --document: %d %.300s", code, stdout)
	}
	if code, _, stderr := runCmd(t, "log", "--run", "99", dest); code != 2 || !strings.Contains(stderr, "no run 99") {
		t.Errorf("no such run: %d %s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "log", "--source", "http://elsewhere/cap.xml", dest); code != 2 || !strings.Contains(stderr, "holds no Source") {
		t.Errorf("unknown Source: %d %s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "log", filepath.Join(t.TempDir(), "none")); code != 2 || !strings.Contains(stderr, "no copy") {
		t.Errorf("no copy: %d %s", code, stderr)
	}
}
