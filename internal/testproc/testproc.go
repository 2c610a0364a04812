// Package testproc starts the running test binary again as a helper
// process, for tests that must kill a process mid-way (a sync, a lock).
package testproc

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Start runs this test binary with only the test named test, env added to
// the environment, and returns once the helper prints "ready" on its
// standard output. The process is killed when t ends; a helper that ends,
// or is not ready within a minute, fails t.
func Start(t testing.TB, test string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan struct{})
	ended := make(chan string, 1)
	go func() {
		buf := make([]byte, 4096)
		var seen []byte
		for {
			n, err := out.Read(buf)
			seen = append(seen, buf[:n]...)
			if bytes.Contains(seen, []byte("ready\n")) {
				close(ready)
				io.Copy(io.Discard, out)
				return
			}
			if err != nil {
				ended <- string(seen)
				return
			}
		}
	}()
	select {
	case <-ready:
	case said := <-ended:
		t.Fatalf("the helper process ended before it was ready: %s", said)
	case <-time.After(time.Minute):
		t.Fatal("the helper process was not ready within a minute")
	}
	return cmd
}
