package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"rsx/fleet"
)

// metricsURLIn finds the URL of the metrics that the command said on
// standard error ("rsx: metrics at URL"), waiting for it.
func metricsURLIn(t *testing.T, errb interface{ String() string }) string {
	t.Helper()
	re := regexp.MustCompile(`metrics at (http://\S+/metrics)`)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(errb.String()); m != nil {
			return m[1]
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the command did not say where its metrics are:\n%s", errb.String())
	return ""
}

// scrape GETs url and parses the exposition, as Prometheus does.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("scrape %s: the exposition does not parse: %v", url, err)
	}
	return fams
}

// sample is the value of the series of name whose labels include want
// (a counter's, a gauge's, or a histogram's count); ok false when there
// is none.
func sample(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// fleetLines are the JSON lines of sync --sources --every --json.
func fleetLines(t *testing.T, out string) []fleetResult {
	t.Helper()
	var rs []fleetResult
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r fleetResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("a line that is not JSON: %v\n%s", err, sc.Text())
		}
		rs = append(rs, r)
	}
	return rs
}

// A fleet run with --every --metrics serves the metrics while it runs: a
// scrape after its first round has each Source's run, its outcome, its
// failures by kind, the resources and bytes it fetched (as its JSON line
// says them), its last success and how far behind it is, and the lock
// the good Source's run took over from a run killed before.
func TestMetricsOfAFleetEvery(t *testing.T) {
	good, broken := startDemo(t, false), startDemo(t, true)
	dir := t.TempDir()
	goodDest, brokenDest := filepath.Join(dir, "good"), filepath.Join(dir, "broken")
	file := filepath.Join(dir, "fleet.toml")
	os.WriteFile(file, []byte(`
[[source]]
name = "good"
url = "`+good+`/dataset2/capabilitylist.xml"
dest = "`+goodDest+`"

[[source]]
name = "broken"
url = "`+broken+`/dataset1/capabilitylist.xml"
dest = "`+brokenDest+`"
`), 0o644)
	// A run killed while it held the good copy's lock left its holder in
	// the lock file: the fleet's run takes it over.
	os.MkdirAll(filepath.Join(goodDest, ".rsx"), 0o755)
	os.WriteFile(filepath.Join(goodDest, ".rsx", "lock"), []byte(`{"pid":999999,"host":"gone","started":"2026-01-05T09:00:00Z","token":"killed"}`), 0o644)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb lockedBuf
	done := make(chan int, 1)
	started := time.Now()
	go func() {
		done <- runWith([]string{"--no-cache", "--rate", "0", "--retries", "0", "sync", "--sources", file, "--every", "1h", "--json", "--metrics", "127.0.0.1:0"},
			streams{in: strings.NewReader(""), out: &out, err: &errb}, func(a *app) { a.base = ctx })
	}()
	url := metricsURLIn(t, &errb)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Errorf("the metrics are served at %s, want the loopback interface", url)
	}
	// Before the first round ends, the Sources are known, no run counted.
	early := scrape(t, url)
	if v, ok := sample(early, "rsx_runs_total", map[string]string{"name": "good", "outcome": "ok"}); !ok || v > 1 {
		t.Errorf("before its first run, good's runs: %v (present %v)", v, ok)
	}
	// The round's lines are written after it: its runs are counted then.
	deadline := time.Now().Add(90 * time.Second)
	for len(fleetLines(t, out.String())) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no round within 90s:\n%s\n%s", out.String(), errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	fams := scrape(t, url)
	scraped := time.Now()
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d after the stop:\n%s", code, errb.String())
	}
	if _, err := http.Get(url); err == nil {
		t.Errorf("the metrics are still served after the fleet stopped")
	}

	var doc map[string]syncJSON = map[string]syncJSON{}
	for _, r := range fleetLines(t, out.String()) {
		var j syncJSON
		if err := json.Unmarshal(r.Result, &j); err != nil {
			t.Fatalf("%s: %v", r.Name, err)
		}
		doc[r.Name] = j
	}
	g, b := doc["good"], doc["broken"]
	if g.Created == 0 || g.Bytes == 0 || len(g.Failed) != 0 || g.SyncedUntil == nil {
		t.Fatalf("the good Source's run: %+v", g)
	}
	if len(b.Failed) == 0 {
		t.Fatalf("the broken Source's run failed nothing: %+v", b)
	}
	goodL := map[string]string{"name": "good", "source": good + "/dataset2/capabilitylist.xml"}
	brokenL := map[string]string{"name": "broken"}
	with := func(l map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range l {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	expect := func(name string, labels map[string]string, want float64) {
		t.Helper()
		got, ok := sample(fams, name, labels)
		if !ok || got != want {
			t.Errorf("%s%v = %v (present %v), want %v", name, labels, got, ok, want)
		}
	}
	expect("rsx_runs_total", with(goodL, "command", "sync", "outcome", "ok"), 1)
	expect("rsx_runs_total", with(brokenL, "command", "sync", "outcome", "problems"), 1)
	if _, ok := sample(fams, "rsx_runs_total", with(brokenL, "outcome", "ok")); ok {
		if v, _ := sample(fams, "rsx_runs_total", with(brokenL, "outcome", "ok")); v != 0 {
			t.Errorf("the broken Source has %v ok runs", v)
		}
	}
	expect("rsx_resources_fetched_total", goodL, float64(g.Created-g.Adopted+g.Updated))
	expect("rsx_fetched_bytes_total", goodL, float64(g.Bytes))
	expect("rsx_resources_deleted_total", goodL, 0)
	kinds := map[string]int{}
	for _, f := range b.Failed {
		kinds[f.Kind]++
	}
	for k, n := range kinds {
		expect("rsx_failures_total", with(brokenL, "kind", k), float64(n))
	}
	if _, ok := sample(fams, "rsx_failures_total", goodL); ok {
		t.Errorf("failures counted for the good Source")
	}
	expect("rsx_lock_takeovers_total", goodL, 1)
	if _, ok := sample(fams, "rsx_lock_takeovers_total", brokenL); ok {
		t.Errorf("a takeover counted for the broken Source, whose lock was free")
	}
	expect("rsx_run_duration_seconds", map[string]string{"command": "sync"}, 2)
	expect("rsx_source_up", goodL, 1)
	expect("rsx_source_up", brokenL, 0)
	if _, ok := sample(fams, "rsx_source_last_success_timestamp_seconds", brokenL); ok {
		t.Errorf("the broken Source has a last success")
	}
	last, ok := sample(fams, "rsx_source_last_success_timestamp_seconds", goodL)
	if at := time.Unix(0, int64(last*1e9)); !ok || at.Before(started) || at.After(scraped) {
		t.Errorf("good's last success %v, want between %v and %v", at, started, scraped)
	}
	until, _ := time.Parse(time.RFC3339Nano, *g.SyncedUntil)
	expect("rsx_source_synced_until_timestamp_seconds", goodL, float64(until.UnixNano())/1e9)
	// Behind: since the good run's start (its JSON line's started, to the
	// second), at the scrape.
	var goodStart time.Time
	for _, r := range fleetLines(t, out.String()) {
		if r.Name == "good" {
			goodStart, _ = time.Parse(time.RFC3339, r.Started)
		}
	}
	behind, ok := sample(fams, "rsx_source_behind_seconds", goodL)
	if lo, hi := scraped.Sub(goodStart).Seconds()-2, scraped.Sub(goodStart).Seconds()+1; !ok || behind < lo || behind > hi || behind < 0 {
		t.Errorf("good is %vs behind, want from %v to %v", behind, lo, hi)
	}
	if _, ok := sample(fams, "rsx_source_behind_seconds", brokenL); ok {
		t.Errorf("the broken Source, never in step, has a time behind")
	}
	if v, ok := sample(fams, "rsx_build_info", nil); !ok || v != 1 {
		t.Errorf("rsx_build_info %v %v", v, ok)
	}
	if _, ok := fams["go_goroutines"]; !ok {
		t.Errorf("no Go runtime metrics")
	}
}

// Notifications received and applied are counted while a fleet follows.
func TestMetricsOfAFleetFollowing(t *testing.T) {
	a := newChangingSource(t, true)
	dir := t.TempDir()
	f := startFleetFollow(t, writeFleet(t, dir, a), "--every", "1h", "--debounce", "50ms", "--metrics", "127.0.0.1:0")
	url := metricsURLIn(t, &f.errb)
	f.wait(1, 20*time.Second, "start run", runOf(a, fleet.ReasonStart))
	f.wait(1, 5*time.Second, "connection", func(l fleetFollowLine) bool { return l.Event == "connected" })
	a.change()
	a.notify()
	l := f.wait(1, 10*time.Second, "run after the notification", runOf(a, fleet.ReasonNotification))[0]
	if l.Via != "notifications" {
		t.Fatalf("the notification's run read the lists (%s): the count below would not hold", l.Fallback)
	}
	fams := scrape(t, url)
	src := map[string]string{"name": "s0", "source": a.capList()}
	kind := map[string]string{"name": "s0", "kind": "change"}
	for name, want := range map[string]float64{"rsx_notifications_received_total": 1, "rsx_notifications_applied_total": 1} {
		labels := src
		if name == "rsx_notifications_received_total" {
			labels = kind
		}
		if got, ok := sample(fams, name, labels); !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, want)
		}
	}
	if got, _ := sample(fams, "rsx_runs_total", map[string]string{"name": "s0", "outcome": "ok"}); got != 2 {
		t.Errorf("runs %v, want 2 (the start, the notification's)", got)
	}
	if got, _ := sample(fams, "rsx_resources_fetched_total", src); got < 2 {
		t.Errorf("fetched %v: the baseline's and the notified change", got)
	}
	if code := f.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// --metrics goes with a mode that goes on, and with an address; a taken
// address is said before anything runs.
func TestMetricsFlagRefused(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "fleet.txt")
	os.WriteFile(file, []byte("http://127.0.0.1:1/capabilitylist.xml\n"), 0o644)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sync", "--sources", file, "--metrics", "127.0.0.1:9464"}, "--metrics goes with a run that goes on"},
		{[]string{"sync", "--dest", dir, "--metrics", "127.0.0.1:9464", "http://127.0.0.1:1/capabilitylist.xml"}, "--metrics goes with a run that goes on"},
		{[]string{"audit", "--sources", file, "--metrics", "9464"}, "--sources FILE --every D"},
		{[]string{"sync", "--sources", file, "--every", "1m", "--metrics", "nowhere"}, `--metrics "nowhere": give HOST:PORT`},
		{[]string{"sync", "--sources", file, "--every", "1m", "--metrics", "127.0.0.1:99999"}, `the port "99999" is not a number from 0 to 65535`},
		{[]string{"sync", "--sources", file, "--every", "1m", "--metrics", "http://127.0.0.1:9464/metrics"}, "an address, not a URL"},
		{[]string{"sync", "--sources", file, "--every", "1m", "--metrics", ""}, "--metrics: no address"},
		{[]string{"sync", "--sources", file, "--every", "1m", "--metrics", taken.Addr().String()}, "listen: "},
	} {
		code, stdout, stderr := runCmd(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q (want %q), stdout %q", c.args, code, stderr, c.want, stdout)
		}
	}
}

// One Source's sync --follow counts its catch-up, each notification it
// receives and applies, and the run that applies it.
func TestMetricsOfOneSourceFollowing(t *testing.T) {
	a := newChangingSource(t, true)
	dest := filepath.Join(t.TempDir(), "copy")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb lockedBuf
	done := make(chan int, 1)
	go func() {
		done <- runWith([]string{"--no-cache", "--rate", "0", "--retries", "0", "sync", "--dest", dest, "--follow", "--poll-interval", "1h", "--json", "--metrics", "127.0.0.1:0", a.capList()},
			streams{in: strings.NewReader(""), out: &out, err: &errb}, func(app *app) { app.base = ctx })
	}()
	url := metricsURLIn(t, &errb)
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("no %s within 20s:\n%s\n%s", what, out.String(), errb.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor("connection", func() bool { return strings.Contains(out.String(), `"event":"connected"`) })
	// Follow polls at once, after the catch-up.
	waitFor("first poll", func() bool { return strings.Contains(out.String(), `"event":"poll"`) })
	src := map[string]string{"source": a.capList(), "name": ""}
	fams := scrape(t, url)
	if got, _ := sample(fams, "rsx_runs_total", map[string]string{"source": a.capList(), "outcome": "ok"}); got != 2 {
		t.Errorf("runs after the catch-up and the first poll: %v, want 2", got)
	}
	caughtUp, _ := sample(fams, "rsx_resources_fetched_total", src)
	if caughtUp == 0 {
		t.Errorf("the catch-up fetched nothing")
	}
	a.change()
	a.notify()
	// The run is counted once it is recorded, after its change is told.
	waitFor("the notification's run counted", func() bool {
		got, _ := sample(scrape(t, url), "rsx_runs_total", map[string]string{"source": a.capList(), "outcome": "ok"})
		return got == 3
	})
	fams = scrape(t, url)
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"rsx_notifications_received_total", map[string]string{"source": a.capList(), "kind": "change"}, 1},
		{"rsx_notifications_applied_total", src, 1},
		{"rsx_resources_fetched_total", src, caughtUp + 1},
		{"rsx_source_up", src, 1},
	} {
		if got, ok := sample(fams, c.name, c.labels); !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d:\n%s", code, errb.String())
	}
}

// serve --dest --metrics counts the requests the copy's Source answers,
// and the bytes of their bodies, on an address of their own.
func TestMetricsOfServeDest(t *testing.T) {
	demoURL := startDemo(t, false)
	dest := t.TempDir()
	chainSync(t, "--dest", dest, demoURL+"/dataset2/capabilitylist.xml")
	base, stderr, stop := startServeDest(t, serveFlags{dest: dest, metrics: "127.0.0.1:0"})
	defer stop()
	url := metricsURLIn(t, stderr)
	if strings.HasPrefix(url, base) {
		t.Errorf("the metrics are at the Source's own address %s", url)
	}
	var bytes200 int
	for _, p := range []string{"/.well-known/resourcesync", "/resourcesync/1/capabilitylist.xml", "/nothing-here"} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 {
			bytes200 += len(b)
		}
	}
	fams := scrape(t, url)
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"rsx_served_requests_total", map[string]string{"method": "get", "code": "200"}, 2},
		{"rsx_served_requests_total", map[string]string{"method": "get", "code": "404"}, 1},
		{"rsx_served_bytes_total", map[string]string{"method": "get", "code": "200"}, float64(bytes200)},
		{"rsx_served_request_duration_seconds", map[string]string{"method": "get"}, 3},
	} {
		if got, ok := sample(fams, c.name, c.labels); !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	stop()
	if _, err := http.Get(url); err == nil {
		t.Errorf("the metrics are still served after serve --dest stopped")
	}
	code, _, errs := runCmd(t, "serve", "--dest", dest, "--addr", "127.0.0.1:0", "--metrics", "nowhere")
	if code != exitFailure || !strings.Contains(errs, `--metrics "nowhere": give HOST:PORT`) {
		t.Errorf("a bad ADDR: exit %d, %s", code, errs)
	}
	code, _, errs = runCmd(t, "serve", "--metrics", "9464")
	if code != exitFailure || !strings.Contains(errs, "--metrics is for a copy served with --dest") {
		t.Errorf("--metrics of the demo: exit %d, %s", code, errs)
	}
}
