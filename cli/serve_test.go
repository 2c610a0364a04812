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

	"rsx/demo"
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
		done <- a.runServe(ctx, serveFlags{addr: "127.0.0.1:0", resources: 100, broken: true, start: "2030-02-03T04:05:06Z"}, false)
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

// The demo keeps its port from one run to the next when none is given
// (127.0.0.1:8753), so that a copy made from it stays a copy of the same
// Source; a taken port then gives a free one, said; a port given and
// taken is refused, naming the option.
func TestDemoKeepsItsPort(t *testing.T) {
	if defaultDemoAddr != "127.0.0.1:8753" {
		t.Errorf("default demo address %s", defaultDemoAddr)
	}
	serve := func(fallback bool, addr string) (base, stderr string) {
		t.Helper()
		pr, pw := io.Pipe()
		var errb strings.Builder
		a := &app{streams: streams{in: strings.NewReader(""), out: pw, err: &errb}}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			done <- a.runServe(ctx, serveFlags{addr: addr, resources: 10}, fallback)
			pw.Close()
		}()
		line, _ := bufio.NewReader(pr).ReadString('\n')
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("serve on %s: %v", addr, err)
		}
		return strings.TrimSpace(line), errb.String()
	}
	first, errs := serve(true, defaultDemoAddr)
	if first != "http://"+defaultDemoAddr {
		// Another program has the port now: the demo is elsewhere, and says so.
		if !strings.Contains(errs, defaultDemoAddr+" is taken") {
			t.Errorf("the demo on %s, and no word of why:\n%s", first, errs)
		}
		t.Skipf("%s is taken on this machine: the same port twice is not testable now", defaultDemoAddr)
	}
	if again, _ := serve(true, defaultDemoAddr); again != first {
		t.Errorf("the demo moved: %s, then %s", first, again)
	}

	// A port taken: a free one when none was given, and said.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	taken := l.Addr().String()
	base, errs := serve(true, taken)
	if base == "http://"+taken || !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.Contains(errs, taken+" is taken") || !strings.Contains(errs, "the demo is on "+base) {
		t.Errorf("on a taken port: %s, stderr:\n%s", base, errs)
	}
	if _, _, err := startDemoAt(t.Context(), taken, "--demo-port", false, demo.Options{Resources: 10}); err == nil || !strings.Contains(err.Error(), "choose another --demo-port") {
		t.Errorf("a port given and taken: %v", err)
	}
	for _, c := range []struct {
		port     int
		given    bool
		addr     string
		fallback bool
	}{{defaultDemoPort, false, defaultDemoAddr, true}, {0, true, "127.0.0.1:0", false}, {9000, true, "127.0.0.1:9000", false}} {
		addr, fallback, err := demoPortAddr(c.port, c.given)
		if err != nil || addr != c.addr || fallback != c.fallback {
			t.Errorf("demoPortAddr(%d, %v) = %s, %v, %v", c.port, c.given, addr, fallback, err)
		}
	}
	if _, _, err := demoPortAddr(70000, true); err == nil {
		t.Error("--demo-port 70000 accepted")
	}
}

func TestDemoPortWithATarget(t *testing.T) {
	code, _, errs := runCmd(t, "--demo-port", "9000", "https://example.org/")
	if code != exitFailure || !strings.Contains(errs, "--demo-port is the port of the built-in demo Source") {
		t.Errorf("exit %d: %s", code, errs)
	}
}
