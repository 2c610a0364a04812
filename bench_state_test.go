package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rsx/internal/s3test"
)

// The bytes of state a bucket destination uploads (BENCHMARKS.md, "State
// in a bucket"), opt-in:
//
//	RSX_SPEED=1 RSX_VERSITYGW=$(scripts/versitygw) RSX_STATE_RESOURCES=300000 \
//	  go test -run TestBucketStateBytes -v -timeout 60m .
//
// It serves the demo with `rsx serve --resources N` (dataset 1 has 0.8 of
// them), puts a counting proxy in front of the S3 server (internal/s3test:
// versitygw, or SeaweedFS with RSX_SEAWEEDFS), and runs `rsx sync`
// as a process: a baseline of dataset 1 into an empty bucket, then, after two
// steps of the demo's clock (8 changes), an incremental run, another from an
// empty cache folder (another machine), and a reconcile after 4 more steps;
// RSX_STATE_CHECK=1 fails when a run of those few changes uploads 1 MB of
// state or more (issue 34). The proxy counts
// the bytes of every PUT: those under PREFIX/.rsx/state (the state, in either
// format) and the others (the copy's data; the lock is left out).
func TestBucketStateBytes(t *testing.T) {
	requireSpeed(t)
	n := 100000
	if s := os.Getenv("RSX_STATE_RESOURCES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	rsx := buildRSX(t)
	addr := freePort(t)
	serve := exec.Command(rsx, "serve", "--addr", addr, "--resources", strconv.Itoa(n))
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { serve.Process.Kill(); serve.Wait() })
	base := "http://" + addr
	waitHTTP(t, base+"/demo/status")

	gw := s3test.Start(t, s3test.Options{Access: "benchaccess", Secret: "benchsecretkey0123456789", Bucket: "bench"})
	target, _ := url.Parse(gw.Endpoint)
	var stateBytes, dataBytes, statePuts, stateRead atomic.Int64
	proxy := httputil.NewSingleHostReverseProxy(target)
	counting := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut || r.Method == http.MethodPost {
			size := r.ContentLength
			if d := r.Header.Get("X-Amz-Decoded-Content-Length"); d != "" {
				size, _ = strconv.ParseInt(d, 10, 64)
			}
			switch {
			case strings.Contains(r.URL.Path, "/.rsx/state"):
				stateBytes.Add(size)
				statePuts.Add(1)
			case !strings.Contains(r.URL.Path, "/.rsx/"):
				dataBytes.Add(size)
			}
		}
		if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/.rsx/state") {
			cw := &countingResponse{ResponseWriter: w}
			proxy.ServeHTTP(cw, r)
			stateRead.Add(cw.n)
			return
		}
		proxy.ServeHTTP(w, r)
	})
	front := httptest.NewServer(counting)
	t.Cleanup(front.Close)

	dest := "s3://bench/copy?endpoint=" + front.URL + "&region=us-east-1"
	env := append(os.Environ(), "AWS_ACCESS_KEY_ID=benchaccess", "AWS_SECRET_ACCESS_KEY=benchsecretkey0123456789",
		"XDG_CACHE_HOME="+t.TempDir())
	capList := base + "/dataset1/capabilitylist.xml"
	run := func(what string, env []string, flags ...string) (time.Duration, map[string]any) {
		stateBytes.Store(0)
		dataBytes.Store(0)
		statePuts.Store(0)
		stateRead.Store(0)
		cmd := exec.Command(rsx, append(append([]string{"sync", "--no-cache", "--json"}, flags...), capList, "--dest", dest)...)
		cmd.Env = env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s\n%s", what, err, errb.String(), tail(out.String()))
		}
		var res map[string]any
		json.Unmarshal(out.Bytes(), &res)
		// The run's own account of the state it uploaded is what the
		// proxy counted (scripts/cycle relies on it without the proxy).
		if su, ok := res["state_uploaded"].(float64); !ok || int64(su) != stateBytes.Load() {
			t.Errorf("%s: state_uploaded %v in the JSON, %d bytes counted by the proxy", what, res["state_uploaded"], stateBytes.Load())
		}
		return time.Since(t0), res
	}
	d, res := run("baseline", env)
	t.Logf("baseline of dataset 1 (--resources %d): %v, created %v; state uploaded %d bytes in %d PUTs (%.1f MB), data uploaded %d bytes (%.1f MB): state/data %.3f",
		n, d.Round(time.Second), res["created"], stateBytes.Load(), statePuts.Load(), mb(stateBytes.Load()), dataBytes.Load(), mb(dataBytes.Load()),
		float64(stateBytes.Load())/float64(dataBytes.Load()))
	baselineState, baselineData := stateBytes.Load(), dataBytes.Load()

	resp, err := http.Post(base+"/demo/advance?steps=2", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	d, res = run("incremental", env)
	t.Logf("incremental after 2 clock steps: %v, created %v updated %v deleted %v; state uploaded %d bytes in %d PUTs (%.3f MB), data %d bytes",
		d.Round(time.Millisecond), res["created"], res["updated"], res["deleted"], stateBytes.Load(), statePuts.Load(), mb(stateBytes.Load()), dataBytes.Load())
	incrementalState := stateBytes.Load()

	// Another machine (an empty cache folder) continues: it reads the
	// state from the bucket first.
	resp, err = http.Post(base+"/demo/advance?steps=1", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	other := append(env[:len(env):len(env)], "XDG_CACHE_HOME="+t.TempDir())
	d, res = run("another machine", other)
	t.Logf("incremental on another machine: %v, created %v updated %v; state read %d bytes (%.1f MB), uploaded %d bytes",
		d.Round(time.Millisecond), res["created"], res["updated"], stateRead.Load(), mb(stateRead.Load()), stateBytes.Load())
	anotherState := stateBytes.Load()

	// A reconcile of the copy, the Source's Resource List moved on (a new
	// at in every part) and 4 steps of changes to apply: it uploads what it
	// changed, not the list it read again, nor a compaction.
	resp, err = http.Post(base+"/demo/advance?steps=4", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	d, res = run("reconcile", other, "--mode", "baseline", "--delete")
	t.Logf("reconcile: %v, created %v updated %v deleted %v; state uploaded %d bytes in %d PUTs (%.3f MB)",
		d.Round(time.Millisecond), res["created"], res["updated"], res["deleted"], stateBytes.Load(), statePuts.Load(), mb(stateBytes.Load()))
	if os.Getenv("RSX_STATE_CHECK") != "" {
		if baselineState >= baselineData {
			t.Errorf("the baseline uploaded %d bytes of state for %d of data", baselineState, baselineData)
		}
		for _, r := range []struct {
			what  string
			bytes int64
		}{{"the incremental run", incrementalState}, {"the incremental run on another machine", anotherState}, {"the reconcile", stateBytes.Load()}} {
			if r.bytes >= 1<<20 {
				t.Errorf("%s uploaded %d bytes of state", r.what, r.bytes)
			}
		}
	}
}

func mb(n int64) float64 { return float64(n) / 1e6 }

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}

func waitHTTP(t *testing.T, u string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("%s did not answer", u)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// countingResponse counts the bytes of a response's body.
type countingResponse struct {
	http.ResponseWriter
	n int64
}

func (c *countingResponse) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n += int64(n)
	return n, err
}

func (c *countingResponse) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
