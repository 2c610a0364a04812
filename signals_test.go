//go:build unix

package main

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stallingSource serves a Resource Dump whose package, and a Resource List
// whose body, stop halfway and never end, so that rsx is caught in the
// middle of its work.
func stallingSource(t *testing.T) *httptest.Server {
	t.Helper()
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stall := func(head []byte) {
			w.Write(head)
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-stop:
			}
		}
		switch r.URL.Path {
		case "/dump.xml":
			w.Write([]byte(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
				`<rs:md capability="resourcedump" at="2024-01-01T00:00:00Z"/><url><loc>/p.zip</loc></url></urlset>`))
		case "/p.zip":
			stall(append([]byte("PK\x03\x04"), bytes.Repeat([]byte{0}, 256<<10)...))
		case "/list.xml":
			stall([]byte(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
				`<rs:md capability="resourcelist" at="2024-01-01T00:00:00Z"/><url><loc>http://example.com/1</loc></url>`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	return srv
}

// filesUnder lists the regular files below dir.
func filesUnder(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestSignalsAndTemporaries runs the real binary and interrupts it: SIGINT
// and SIGTERM leave nothing in rsx's temporary folder and never report
// success; after SIGKILL, which nothing can catch, the next run removes what
// the killed one left.
func TestSignalsAndTemporaries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildRSX(t)
	srv := stallingSource(t)
	cache := t.TempDir()
	tmp := filepath.Join(cache, "rsx", "tmp")
	env := append(os.Environ(), "XDG_CACHE_HOME="+cache, "HOME="+t.TempDir())

	// start runs rsx and waits until a package is downloading into the
	// temporary folder, or the output file has some bytes.
	start := func(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--no-cache", "--retries", "0"}, args...)...)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd, &stdout, &stderr
	}
	waitFor := func(t *testing.T, what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	downloading := func() bool {
		for _, f := range filesUnder(tmp) {
			if st, err := os.Stat(f); err == nil && filepath.Base(f) != ".lock" && st.Size() > 0 {
				return true
			}
		}
		return false
	}
	exitCode := func(t *testing.T, cmd *exec.Cmd) int {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return ee.ExitCode()
			}
			if err != nil {
				t.Fatal(err)
			}
			return 0
		case <-time.After(20 * time.Second):
			t.Fatal("rsx did not end after the signal")
		}
		return -1
	}

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run("dump "+sig.String(), func(t *testing.T) {
			cmd, _, stderr := start(t, "dump", srv.URL+"/dump.xml")
			waitFor(t, "the package download", downloading)
			cmd.Process.Signal(sig)
			if code := exitCode(t, cmd); code != 2 {
				t.Errorf("exit status %d, want 2\n%s", code, stderr)
			}
			if !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("no word of the interruption:\n%s", stderr)
			}
			if left := filesUnder(tmp); len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
		})
		t.Run("validate "+sig.String(), func(t *testing.T) {
			cmd, stdout, stderr := start(t, "validate", srv.URL+"/list.xml")
			time.Sleep(300 * time.Millisecond) // the list is being read
			cmd.Process.Signal(sig)
			if code := exitCode(t, cmd); code == 0 || !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("an interrupted validate: exit %d\n%s%s", code, stdout, stderr)
			}
		})
	}

	t.Run("SIGKILL", func(t *testing.T) {
		cmd, _, _ := start(t, "dump", srv.URL+"/dump.xml")
		waitFor(t, "the package download", downloading)
		cmd.Process.Kill()
		cmd.Wait()
		if len(filesUnder(tmp)) == 0 {
			t.Fatal("SIGKILL left nothing behind: the test proves nothing")
		}
		// Any later run removes the folder of the killed process.
		next := exec.Command(bin, "validate", "-")
		next.Env = env
		next.Stdin = strings.NewReader("<urlset/>")
		next.Run()
		if left := filesUnder(tmp); len(left) > 0 {
			t.Errorf("the next run left the killed run's files: %v", left)
		}
	})
}
