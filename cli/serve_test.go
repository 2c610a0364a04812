package cli

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeCommand runs rsx serve until its context ends: the base URL comes
// first on standard output and the Source answers there.
func TestServeCommand(t *testing.T) {
	pr, pw := io.Pipe()
	var errb strings.Builder
	a := &app{streams: streams{in: strings.NewReader(""), out: pw, err: &errb}}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- a.runServe(ctx, serveFlags{addr: "127.0.0.1:0", resources: 100, broken: true, start: "2030-02-03T04:05:06Z"})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSpace(line)
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line %q", line)
	}
	resp, err := http.Get(base + "/.well-known/resourcesync")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("well-known: %d", resp.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not stop")
	}
	if !strings.Contains(errb.String(), base+"/dataset1/capabilitylist.xml") || !strings.Contains(errb.String(), "clock 2030-02-03T04:05:06Z") {
		t.Errorf("guide on stderr:\n%s", errb.String())
	}
	if code := run([]string{"serve", "--start", "yesterday"}, streams{in: strings.NewReader(""), out: io.Discard, err: io.Discard}); code != exitFailure {
		t.Errorf("bad --start: exit %d, want %d", code, exitFailure)
	}
	if code := run([]string{"serve", "--addr", "192.0.2.1:0"}, streams{in: strings.NewReader(""), out: io.Discard, err: io.Discard}); code != exitFailure {
		t.Errorf("non-loopback address: exit %d, want %d", code, exitFailure)
	}
}

// A port that is taken (the README starts the demo on 127.0.0.1:8080 more
// than once) is said, with what to do, and is exit status 2.
func TestServePortTaken(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	code, out, errs := runCmd(t, "serve", "--addr", l.Addr().String())
	if code != exitFailure || out != "" || !strings.Contains(errs, "address already in use") || !strings.Contains(errs, "choose another --addr") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
