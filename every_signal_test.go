package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rsx/demo"
)

// TestSyncSourcesEveryEndsOnSIGINT: rsx sync --sources FILE --every D runs
// until stopped, like --follow; SIGINT between two rounds is its end, not
// a failure: exit status 0, not the "did not finish" of an interrupted run.
func TestSyncSourcesEveryEndsOnSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildRSX(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := demo.Start(ctx, "127.0.0.1:0", demo.Options{Resources: 200, Seed: 44})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, "sources.txt")
	os.WriteFile(file, []byte(srv.URL+"/dataset2/capabilitylist.xml\n"), 0o644)
	cmd := exec.Command(bin, "--no-cache", "sync", "--sources", file, "--dest", filepath.Join(dir, "copy"), "--every", "1h", "--json")
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			select {
			case first <- sc.Text():
			default:
			}
		}
	}()
	select {
	case l := <-first:
		if !strings.Contains(l, `"exit_status":0`) {
			t.Fatalf("the first round's line: %s\nstderr:\n%s", l, errb.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("no round within 60s; stderr:\n%s", errb.String())
	}
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != 0 {
		t.Errorf("exit %d after SIGINT between rounds, want 0\nstderr:\n%s", code, errb.String())
	}
}
