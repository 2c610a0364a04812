package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"rsx/dest/state"
	"rsx/model"
)

// The whole-process speed of rsx sync (BENCHMARKS.md, "Sync"), opt-in:
//
//	RSX_SPEED=1 go test -run 'TestSyncSpeed|TestSyncPlan1M' -v -timeout 30m .
//	scripts/bench-sync        (the same, with the Python reference client set up)
//
// TestSyncSpeed serves the demo's dataset1 with `rsx serve --resources 10000`
// (8,008 small resources) and times, alternately and each into a fresh
// folder: `rsx sync` with default flags, scripts/minsync (8 keep-alive
// workers that GET, write a temporary file, fsync and rename: the least a
// correct baseline does) and, when RSX_RESYNC names a checkout of
// resync/resync, `resync-sync --baseline` run by /usr/bin/python3.
// TestSyncPlan1M plans an incremental sync with `rsx sync --dry-run` against
// a state of 1,000,000 resources, and reports its time and peak RSS.

func requireSpeed(t *testing.T) {
	t.Helper()
	if os.Getenv("RSX_SPEED") == "" {
		t.Skip("set RSX_SPEED=1 to measure rsx sync (builds rsx and the yardstick, runs them as processes)")
	}
}

// freePort returns a free loopback address.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// median of durations.
func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func TestSyncSpeed(t *testing.T) {
	requireSpeed(t)
	runs := 5
	if s := os.Getenv("RSX_SPEED_RUNS"); s != "" {
		runs, _ = strconv.Atoi(s)
	}
	rsx := buildRSX(t)
	minsync := filepath.Join(t.TempDir(), "minsync")
	if out, err := exec.Command("go", "build", "-o", minsync, "./scripts/minsync").CombinedOutput(); err != nil {
		t.Fatalf("build minsync: %v\n%s", err, out)
	}
	addr := freePort(t)
	serve := exec.Command(rsx, "serve", "--addr", addr, "--resources", "10000")
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { serve.Process.Kill(); serve.Wait() })
	base := "http://" + addr
	for deadline := time.Now().Add(20 * time.Second); ; {
		if resp, err := http.Get(base + "/demo/status"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("rsx serve did not answer")
		}
		time.Sleep(50 * time.Millisecond)
	}
	resync := os.Getenv("RSX_RESYNC")
	if resync != "" {
		if _, err := os.Stat(filepath.Join(resync, "resync-sync")); err != nil {
			t.Fatalf("RSX_RESYNC=%s: %v", resync, err)
		}
	}

	work := t.TempDir()
	n := 0
	timeRun := func(name string, args ...string) time.Duration {
		n++
		dir := filepath.Join(work, strconv.Itoa(n))
		args = append(args, dir)
		cmd := exec.Command(name, args...)
		if strings.HasSuffix(name, "python3") {
			cmd.Env = append(os.Environ(), "PYTHONPATH="+resync)
			// resync-sync keeps its status file (.resync-client-status.cfg)
			// in its working folder: the run's own, not the checkout.
			cmd.Dir = work
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		t0 := time.Now()
		err := cmd.Run()
		wall := time.Since(t0)
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out.String())
		}
		files := 0
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() == ".rsx" {
				return filepath.SkipDir
			}
			if err == nil && !d.IsDir() {
				files++
			}
			return nil
		})
		if files != 8008 {
			t.Fatalf("%s wrote %d files, not 8008:\n%s", filepath.Base(name), files, out.String())
		}
		os.RemoveAll(dir)
		return wall
	}
	capList := base + "/dataset1/capabilitylist.xml"
	rl := base + "/dataset1/resourcelist.xml"
	rsxArgs := []string{"sync", "--no-cache", capList, "--dest"}
	resyncArgs := []string{filepath.Join(resync, "resync-sync"), "--baseline", "--sitemap", rl, base + "/dataset1/"}
	// Untimed warm-up runs.
	timeRun(rsx, rsxArgs...)
	timeRun(minsync, rl)
	var a, b, c []time.Duration
	for range runs {
		a = append(a, timeRun(rsx, rsxArgs...))
		b = append(b, timeRun(minsync, rl))
		if resync != "" {
			c = append(c, timeRun("/usr/bin/python3", resyncArgs...))
		}
	}
	rate := func(d time.Duration) float64 { return 8008 / d.Seconds() }
	ma, mb := median(a), median(b)
	t.Logf("8,008 resources, %d runs each, medians: rsx sync %v (%.0f resources/s), minsync %v (%.0f/s): rsx at %.2f× the yardstick's throughput",
		runs, ma.Round(time.Millisecond), rate(ma), mb.Round(time.Millisecond), rate(mb), mb.Seconds()/ma.Seconds())
	t.Logf("rsx %v", roundAll(a))
	t.Logf("minsync %v", roundAll(b))
	if r := mb.Seconds() / ma.Seconds(); r < 0.7 {
		t.Errorf("rsx sync runs at %.2f× the yardstick's throughput; the requirement is at least 0.7×", r)
	}
	if resync != "" {
		mc := median(c)
		t.Logf("resync-sync --baseline %v (%.0f/s): rsx at %.2f× its throughput; all: %v", mc.Round(time.Millisecond), rate(mc), mc.Seconds()/ma.Seconds(), roundAll(c))
		if r := mc.Seconds() / ma.Seconds(); r < 2.5 {
			t.Errorf("rsx sync runs at %.2f× resync-sync's throughput; the requirement is at least 2.5×", r)
		}
	} else {
		t.Log("RSX_RESYNC not set: resync-sync not measured")
	}
}

func roundAll(d []time.Duration) []time.Duration {
	out := make([]time.Duration, len(d))
	for i, x := range d {
		out[i] = x.Round(time.Millisecond)
	}
	return out
}

// changeSource serves a Capability List and a Change List Index whose lists
// (50,000 changes each) update resources /r/0000000… of a state, changes
// of them in all. The lists are written to files before they are served, so
// that the server costs the measured process no CPU time to speak of.
func changeSource(t *testing.T, changes int) *httptest.Server {
	const per = 50000
	from := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	lists := (changes + per - 1) / per
	dir := t.TempDir()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/cap.xml" || r.URL.Path == "/cl.xml" || strings.HasPrefix(r.URL.Path, "/cl/"):
			http.ServeFile(w, r, filepath.Join(dir, filepath.FromSlash(r.URL.Path)))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	write := func(name string, fill func(bw *bufio.Writer)) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		bw := bufio.NewWriterSize(f, 256<<10)
		fill(bw)
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	head := `<?xml version="1.0" encoding="UTF-8"?>` + "\n"
	ns := `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`
	write("cap.xml", func(bw *bufio.Writer) {
		fmt.Fprintf(bw, "%s<urlset %s><rs:md capability=\"capabilitylist\"/><url><loc>%s/cl.xml</loc><rs:md capability=\"changelist\"/></url></urlset>\n", head, ns, srv.URL)
	})
	write("cl.xml", func(bw *bufio.Writer) {
		fmt.Fprintf(bw, "%s<sitemapindex %s><rs:ln rel=\"up\" href=\"%s/cap.xml\"/><rs:md capability=\"changelist\" from=\"%s\"/>\n", head, ns, srv.URL, model.FormatDatetime(from))
		for k := range lists {
			until := ""
			if k < lists-1 {
				until = ` until="` + model.FormatDatetime(from.Add(time.Duration(k+1)*time.Hour)) + `"`
			}
			fmt.Fprintf(bw, "<sitemap><loc>%s/cl/%d.xml</loc><rs:md from=\"%s\"%s/></sitemap>\n", srv.URL, k, model.FormatDatetime(from.Add(time.Duration(k)*time.Hour)), until)
		}
		bw.WriteString("</sitemapindex>\n")
	})
	for k := range lists {
		write(fmt.Sprintf("cl/%d.xml", k), func(bw *bufio.Writer) {
			lfrom := from.Add(time.Duration(k) * time.Hour)
			until := ""
			if k < lists-1 {
				until = ` until="` + model.FormatDatetime(lfrom.Add(time.Hour)) + `"`
			}
			fmt.Fprintf(bw, "%s<urlset %s><rs:ln rel=\"up\" href=\"%s/cap.xml\"/><rs:md capability=\"changelist\" from=\"%s\"%s/>\n", head, ns, srv.URL, model.FormatDatetime(lfrom), until)
			var buf []byte
			for i := k * per; i < min((k+1)*per, changes); i++ {
				dt := lfrom.Add(time.Duration(i%per) * 50 * time.Millisecond)
				buf = append(buf[:0], "<url><loc>"...)
				buf = append(buf, srv.URL...)
				buf = fmt.Appendf(buf, "/r/%07d</loc><lastmod>", i)
				buf = model.AppendDatetime(buf, dt)
				buf = append(buf, `</lastmod><rs:md change="updated" datetime="`...)
				buf = model.AppendDatetime(buf, dt)
				buf = fmt.Appendf(buf, `" hash="md5:%032x" length="%d" type="text/html"/></url>`+"\n", i+1, 2000+i%5000)
				bw.Write(buf)
			}
			bw.WriteString("</urlset>\n")
		})
	}
	return srv
}

// buildState writes a destination's state of rows resources of the Source
// at capURL, its baseline done before the Change Lists begin.
func buildState(t *testing.T, dest, capURL, host string, rows int) {
	t.Helper()
	ctx := context.Background()
	os.MkdirAll(filepath.Join(dest, ".rsx"), 0o755)
	db, err := state.Open(ctx, filepath.Join(dest, ".rsx", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src, err := db.EnsureSource(ctx, capURL)
	if err != nil {
		t.Fatal(err)
	}
	w := db.NewWriter(state.WriterOptions{BatchSize: 50000, MaxDelay: time.Hour})
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) // where the Change Lists begin
	if err := w.SetBaseline(ctx, src.ID, state.Baseline{Kind: "list", URL: capURL, At: at, Done: at}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i := range rows {
		p := fmt.Sprintf("%s/r/%07d", host, i)
		r := state.Resource{SourceID: src.ID, URI: "http://" + strings.ReplaceAll(p, "+", ":"), Path: p, Length: int64(2000 + i%5000),
			Digests: state.Digests(fmt.Sprintf("md5:%032x", i)), Lastmod: at.Add(-time.Duration(i) * time.Second), FetchedAt: now, VerifiedAt: now}
		if err := w.PutResource(ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	// As a sync leaves it: its rows' paths written by the path rule of this
	// rsx (without the record, every plan reads every row for paths an
	// older rsx wrote, and a dry run never records that it found none).
	if err := w.SetPathsChecked(ctx, src.ID); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestSyncPlan1M(t *testing.T) {
	requireSpeed(t)
	rows := 1_000_000
	if s := os.Getenv("RSX_PLAN_ROWS"); s != "" {
		rows, _ = strconv.Atoi(s)
	}
	rsx := buildRSX(t)
	for _, changes := range []int{10_000, 100_000, 1_000_000} {
		changes = min(changes, rows)
		t.Run(fmt.Sprintf("changes-%d", changes), func(t *testing.T) {
			srv := changeSource(t, changes)
			host := strings.ReplaceAll(strings.TrimPrefix(srv.URL, "http://"), ":", "+")
			dest := t.TempDir()
			t0 := time.Now()
			buildState(t, dest, srv.URL+"/cap.xml", host, rows)
			t.Logf("state of %d resources built in %v", rows, time.Since(t0).Round(time.Second))
			cmd := exec.Command(rsx, "sync", "--no-cache", "--dry-run", "--json", "--dest", dest, srv.URL+"/cap.xml")
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			t0 = time.Now()
			hwm, err := runWatchingRSS(cmd)
			wall := time.Since(t0)
			if err != nil {
				t.Fatalf("rsx sync --dry-run: %v\n%s\n%s", err, errb.String(), out.String())
			}
			var rep struct {
				Mode    string `json:"mode"`
				Updated int    `json:"updated"`
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Mode != "incremental" || rep.Updated != changes {
				t.Fatalf("plan: %v %+v\n%s", err, rep, out.String())
			}
			// getrusage's maxrss of a child counts the parent's own peak
			// (Go starts it with vfork: exec records the shared memory's
			// high-water mark), and this process built states of a million
			// rows and holds the documents read; VmHWM, sampled, is the
			// child's own.
			rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss / 1024
			if hwm > 0 {
				rss = hwm / 1024
			}
			cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			t.Logf("%d changes against %d resources: %v wall, %v CPU, %d MB peak RSS", changes, rows, wall.Round(time.Millisecond), cpu.Round(time.Millisecond), rss)
			if wall > 10*time.Second || rss > 300 {
				t.Errorf("the plan took %v and %d MB; the budget is 10 s and 300 MB", wall, rss)
			}
		})
	}
}

// runWatchingRSS runs cmd and returns its peak resident set size in KiB,
// its VmHWM read from /proc every 10 ms (0 where /proc has none).
func runWatchingRSS(cmd *exec.Cmd) (int64, error) {
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	var hwm int64
	read := func() {
		b, err := os.ReadFile(status)
		if err != nil {
			return
		}
		for line := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				if n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64); err == nil {
					hwm = max(hwm, n)
				}
			}
		}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return hwm, err
		case <-tick.C:
			read()
		}
	}
}
