package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"rsx/dest/engine"
	"rsx/dest/job"
	"rsx/dest/store"
)

func TestParseAddr(t *testing.T) {
	for in, want := range map[string]string{
		"9464":           "127.0.0.1:9464",
		"0":              "127.0.0.1:0",
		"127.0.0.1:9464": "127.0.0.1:9464",
		":9464":          ":9464",
		"[::1]:9464":     "[::1]:9464",
		"localhost:9464": "localhost:9464",
	} {
		if got, err := ParseAddr(in); err != nil || got != want {
			t.Errorf("ParseAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"":                      "no address",
		"nowhere":               "give HOST:PORT",
		"127.0.0.1":             "give HOST:PORT",
		"127.0.0.1:http":        `the port "http" is not a number`,
		"127.0.0.1:65536":       `the port "65536" is not a number`,
		"http://127.0.0.1:9464": "an address, not a URL",
		"a b:9464":              `the host "a b"`,
		"::1:9464":              "give HOST:PORT",
	} {
		if _, err := ParseAddr(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAddr(%q): %v, want an error saying %q", in, err, want)
		}
	}
}

func TestOutcomeOf(t *testing.T) {
	for _, c := range []struct {
		exit        int
		interrupted bool
		want        string
	}{{0, false, OutcomeOK}, {1, false, OutcomeProblems}, {2, false, OutcomeFailed}, {2, true, OutcomeInterrupted}, {0, true, OutcomeInterrupted}} {
		if got := OutcomeOf(c.exit, c.interrupted); got != c.want {
			t.Errorf("OutcomeOf(%d, %v) = %q, want %q", c.exit, c.interrupted, got, c.want)
		}
	}
}

// A Source's runs add up; its gauges say its last run, its last success
// and how far behind it is at the scrape; an interrupted run says nothing
// of the Source's health; credentials in its URL are not in the labels.
func TestRanAddsUp(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	m := New(Options{Now: func() time.Time { return now }, NoProcess: true})
	s := Source{URL: "https://reader:s3cret@example.org/capabilitylist.xml", Name: "ex"}
	m.Known(s, "sync")
	until := now.Add(-90 * time.Minute)
	t0 := now.Add(-time.Hour)
	m.Ran(Run{Source: s, Command: "sync", Started: t0, Elapsed: 2 * time.Second, Outcome: OutcomeOK, Fetched: 10, Bytes: 1000,
		SyncedUntil: until, TookOver: true})
	m.Ran(Run{Source: s, Command: "sync", Started: t0.Add(time.Minute), Elapsed: time.Second, Outcome: OutcomeProblems, Fetched: 3, Deleted: 1,
		Bytes: 30, Failures: map[string]int{"fetch": 2, "verify": 1}, Applied: 4})
	m.Notified(s, "change")
	m.Notified(s, "change")
	m.Notified(s, "framework")
	m.Ran(Run{Source: s, Command: "sync", Started: t0.Add(2 * time.Minute), Elapsed: time.Second, Outcome: OutcomeInterrupted})

	want := `
# HELP rsx_failures_total Resources (or documents) a run could not use, by kind (fetch, verify, write, collision, owned, refused, bitstream, document, package, state).
# TYPE rsx_failures_total counter
rsx_failures_total{kind="fetch",name="ex",source="https://reader:xxxxx@example.org/capabilitylist.xml"} 2
rsx_failures_total{kind="verify",name="ex",source="https://reader:xxxxx@example.org/capabilitylist.xml"} 1
# HELP rsx_fetched_bytes_total Bytes of resources downloaded (those rejected by their verification too).
# TYPE rsx_fetched_bytes_total counter
rsx_fetched_bytes_total{name="ex",source="https://reader:xxxxx@example.org/capabilitylist.xml"} 1030
# HELP rsx_lock_takeovers_total Runs that took over the lock of their DEST from a run that had ended without releasing it.
# TYPE rsx_lock_takeovers_total counter
rsx_lock_takeovers_total{name="ex",source="https://reader:xxxxx@example.org/capabilitylist.xml"} 1
# HELP rsx_notifications_applied_total Change notifications applied alone (without reading the Source's lists).
# TYPE rsx_notifications_applied_total counter
rsx_notifications_applied_total{name="ex",source="https://reader:xxxxx@example.org/capabilitylist.xml"} 4
# HELP rsx_notifications_received_total Notifications received from the Source's channels, by kind (change, framework).
# TYPE rsx_notifications_received_total counter
rsx_notifications_received_total{kind="change",name="ex",source="https://reader:xxxxx@example.org/capabilitylist.xml"} 2
rsx_notifications_received_total{kind="framework",name="ex",source="https://reader:xxxxx@example.org/capabilitylist.xml"} 1
# HELP rsx_resources_deleted_total Resources removed from the copy.
# TYPE rsx_resources_deleted_total counter
rsx_resources_deleted_total{name="ex",source="https://reader:xxxxx@example.org/capabilitylist.xml"} 1
# HELP rsx_resources_fetched_total Resources downloaded into the copy (created or updated).
# TYPE rsx_resources_fetched_total counter
rsx_resources_fetched_total{name="ex",source="https://reader:xxxxx@example.org/capabilitylist.xml"} 13
# HELP rsx_runs_total Runs of a Source that ended, by command (sync, audit) and outcome (ok, problems, failed, interrupted).
# TYPE rsx_runs_total counter
rsx_runs_total{command="sync",name="ex",outcome="interrupted",source="https://reader:xxxxx@example.org/capabilitylist.xml"} 1
rsx_runs_total{command="sync",name="ex",outcome="ok",source="https://reader:xxxxx@example.org/capabilitylist.xml"} 1
rsx_runs_total{command="sync",name="ex",outcome="problems",source="https://reader:xxxxx@example.org/capabilitylist.xml"} 1
# HELP rsx_source_behind_seconds How far behind the Source the copy may be at the scrape: the time since the start of the last run that ended ok (the copy then held every change the Source had published); absent until one has.
# TYPE rsx_source_behind_seconds gauge
rsx_source_behind_seconds{name="ex",source="https://reader:xxxxx@example.org/capabilitylist.xml"} 3600
# HELP rsx_source_last_run_duration_seconds How long the Source's last run took.
# TYPE rsx_source_last_run_duration_seconds gauge
rsx_source_last_run_duration_seconds{name="ex",source="https://reader:xxxxx@example.org/capabilitylist.xml"} 1
# HELP rsx_source_last_run_timestamp_seconds When the Source's last run ended (Unix time).
# TYPE rsx_source_last_run_timestamp_seconds gauge
rsx_source_last_run_timestamp_seconds{name="ex",source="https://reader:xxxxx@example.org/capabilitylist.xml"} ` + unixText(t0.Add(2*time.Minute+time.Second)) + `
# HELP rsx_source_last_success_timestamp_seconds When the Source's last run that ended ok (exit status 0) ended (Unix time); absent until one has.
# TYPE rsx_source_last_success_timestamp_seconds gauge
rsx_source_last_success_timestamp_seconds{name="ex",source="https://reader:xxxxx@example.org/capabilitylist.xml"} ` + unixText(t0.Add(2*time.Second)) + `
# HELP rsx_source_synced_until_timestamp_seconds The copy's point: the Source's changes up to it are in the copy (Unix time); absent until a run has recorded one.
# TYPE rsx_source_synced_until_timestamp_seconds gauge
rsx_source_synced_until_timestamp_seconds{name="ex",source="https://reader:xxxxx@example.org/capabilitylist.xml"} ` + unixText(until) + `
# HELP rsx_source_up 1 when the Source's last run ended ok (exit status 0), 0 when it did not; absent before its first run.
# TYPE rsx_source_up gauge
rsx_source_up{name="ex",source="https://reader:xxxxx@example.org/capabilitylist.xml"} 0
`
	names := []string{"rsx_failures_total", "rsx_fetched_bytes_total", "rsx_lock_takeovers_total", "rsx_notifications_applied_total",
		"rsx_notifications_received_total", "rsx_resources_deleted_total", "rsx_resources_fetched_total", "rsx_runs_total",
		"rsx_source_behind_seconds", "rsx_source_last_run_duration_seconds", "rsx_source_last_run_timestamp_seconds",
		"rsx_source_last_success_timestamp_seconds", "rsx_source_synced_until_timestamp_seconds", "rsx_source_up"}
	if err := testutil.GatherAndCompare(m.Gatherer(), strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(m.duration, "rsx_run_duration_seconds"); n != 1 {
		t.Errorf("duration series %d, want 1 (command sync)", n)
	}
	// How far behind counts at the scrape.
	now = now.Add(time.Hour)
	if err := testutil.GatherAndCompare(m.Gatherer(), strings.NewReader(`
# HELP rsx_source_behind_seconds How far behind the Source the copy may be at the scrape: the time since the start of the last run that ended ok (the copy then held every change the Source had published); absent until one has.
# TYPE rsx_source_behind_seconds gauge
rsx_source_behind_seconds{name="ex",source="https://reader:xxxxx@example.org/capabilitylist.xml"} 7200
`), "rsx_source_behind_seconds"); err != nil {
		t.Error(err)
	}
}

// unixText is t as the exposition writes a timestamp gauge.
func unixText(t time.Time) string { return strconv.FormatFloat(float64(t.UnixNano())/1e9, 'g', -1, 64) }

// A Source made known has its counters at 0 and no gauges before its
// first run.
func TestKnownBeforeItsFirstRun(t *testing.T) {
	m := New(Options{NoProcess: true})
	s := Source{URL: "https://example.org/cl.xml"}
	m.Known(s, "audit")
	if v := testutil.ToFloat64(m.runs.WithLabelValues(s.URL, "", "audit", OutcomeOK)); v != 0 {
		t.Errorf("runs %v", v)
	}
	if n := testutil.CollectAndCount(m.sources); n != 0 {
		t.Errorf("%d gauges of a Source that has not run", n)
	}
	if n := testutil.CollectAndCount(m.fetched) + testutil.CollectAndCount(m.bytes); n != 0 {
		t.Errorf("an audited Source has %d series of what a sync fetches", n)
	}
	m.Known(s, "sync")
	if n := testutil.CollectAndCount(m.fetched) + testutil.CollectAndCount(m.bytes); n != 2 {
		t.Errorf("a synced Source has %d series of what it fetched, want 2 (at 0)", n)
	}
}

// The values of a sync through the job layer, and of an engine's run.
func TestRunsOfResults(t *testing.T) {
	s := Source{URL: "https://example.org/cl.xml"}
	until := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	res := &engine.Result{Plan: &engine.Plan{}, Created: 5, Adopted: 2, Updated: 3, Deleted: 1, Bytes: 99, Finished: true, SyncedUntil: until,
		FailedCount: 3, FailedByKind: map[engine.FailureKind]int{engine.KindFetch: 3}}
	r := SyncRun(s, until, time.Second, &job.SyncResult{Result: res, ExitStatus: 1, TookOver: &store.Holder{Token: "x"},
		Notified: job.NotifiedOutcome{Planned: true, Applied: 2}}, false)
	if r.Outcome != OutcomeProblems || r.Fetched != 6 || r.Deleted != 1 || r.Bytes != 99 || !r.TookOver || r.Applied != 2 ||
		r.Failures["fetch"] != 3 || !r.SyncedUntil.Equal(until) || r.Command != "sync" {
		t.Errorf("SyncRun: %+v", r)
	}
	if r := SyncRun(s, until, time.Second, &job.SyncResult{ExitStatus: 2}, false); r.Outcome != OutcomeFailed {
		t.Errorf("a sync that could not run: %+v", r)
	}
	if r := SyncRun(s, until, time.Second, &job.SyncResult{ExitStatus: 2, Result: &engine.Result{Stopped: "interrupted"}}, false); r.Outcome != OutcomeInterrupted {
		t.Errorf("an interrupted sync: %+v", r)
	}
	unfinished := *res
	unfinished.Finished = false
	if r := EngineRun(s, until, time.Second, &unfinished, false); !r.SyncedUntil.IsZero() {
		t.Errorf("a run that did not finish moved the point: %+v", r)
	}
	if r := EngineRun(s, until, time.Second, nil, false); r.Outcome != OutcomeFailed {
		t.Errorf("an engine run that could not run: %+v", r)
	}
	if r := AuditRun(s, until, time.Second, &job.AuditResult{ExitStatus: 1}, false); r.Outcome != OutcomeProblems || r.Command != "audit" {
		t.Errorf("AuditRun: %+v", r)
	}
}

// The server serves the exposition at /metrics, a line at /, nothing
// elsewhere, and stops.
func TestServe(t *testing.T) {
	ln, err := Listen("0")
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{})
	srv := Serve(ln, m)
	if !strings.HasPrefix(srv.URL(), "http://127.0.0.1:") || !strings.HasSuffix(srv.URL(), "/metrics") {
		t.Errorf("URL %s", srv.URL())
	}
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + srv.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/metrics"); code != 200 || !strings.Contains(body, "rsx_build_info{") || !strings.Contains(body, "go_goroutines") {
		t.Errorf("/metrics: %d\n%s", code, body)
	}
	if code, body := get("/"); code != 200 || !strings.Contains(body, "/metrics") {
		t.Errorf("/: %d %s", code, body)
	}
	if code, _ := get("/other"); code != 404 {
		t.Errorf("/other: %d", code)
	}
	if err := srv.Close(); err != nil {
		t.Error(err)
	}
	if _, err := http.Get(srv.URL()); err == nil {
		t.Error("still served after Close")
	}
	// The address is free again, and a taken one is refused.
	ln2, err := Listen(srv.Addr())
	if err != nil {
		t.Fatalf("the address is not free after Close: %v", err)
	}
	defer ln2.Close()
	if _, err := Listen(ln2.Addr().String()); err == nil || !strings.Contains(err.Error(), "listen") {
		t.Errorf("a taken address: %v", err)
	}
}

// A server of a copy wrapped in Served has its answers counted: by method
// and code, with the bytes of their bodies.
func TestServed(t *testing.T) {
	m := New(Options{NoProcess: true})
	h := m.Served(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/r" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, "twelve bytes")
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, p := range []string{"/r", "/r", "/gone"} {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for _, c := range []struct {
		v    float64
		want float64
	}{
		{testutil.ToFloat64(m.served.WithLabelValues("get", "200")), 2},
		{testutil.ToFloat64(m.served.WithLabelValues("get", "404")), 1},
		{testutil.ToFloat64(m.servedBytes.WithLabelValues("get", "200")), 24},
		{float64(testutil.CollectAndCount(m.serveTime)), 1},
	} {
		if c.v != c.want {
			t.Errorf("got %v, want %v", c.v, c.want)
		}
	}
	if v := testutil.ToFloat64(m.servedBytes.WithLabelValues("get", "404")); v == 0 {
		t.Errorf("the 404's body not counted")
	}
}
