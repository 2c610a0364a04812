// Package metrics is what a long-running rsx (sync --every, sync
// --follow, a fleet's rounds or its following, serve --dest) tells
// Prometheus: the runs and how they ended, the failures by kind, the
// resources and bytes fetched, how long the runs took, each Source's last
// success and how far behind its copy is, the notifications received and
// applied, the locks taken over. The command line (or serve) is told of a
// run as a value and hands it to Metrics.Ran; Metrics.Handler is the
// exposition that Serve, or a server of the caller's own, mounts at
// /metrics (docs/metrics.md).
//
// It imports of ours only the values it reads (dest/job, dest/engine,
// dest/store), display and internal/version: never the command line, the fleet nor
// the explorer.
package metrics

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"rsx/display"
	"rsx/internal/version"
)

// Source names a Source in the labels: its Capability List's URL (its
// credentials redacted) and its name in the fleet file ("" for one
// Source).
type Source struct {
	URL  string
	Name string
}

// Outcomes of a run (the outcome label of rsx_runs_total).
const (
	OutcomeOK          = "ok"          // exit status 0: the whole plan done, nothing wrong
	OutcomeProblems    = "problems"    // exit status 1: done, and something failed or is wrong (a gap, a document)
	OutcomeFailed      = "failed"      // exit status 2: it could not run
	OutcomeInterrupted = "interrupted" // stopped (the program's end, a fleet's hold bound): it continues at the next run
)

// Run is a run that ended, as the metrics count it.
type Run struct {
	Source Source
	// Command is "sync" or "audit".
	Command string
	Started time.Time
	Elapsed time.Duration
	// Outcome is Outcome…; OutcomeOf gives it from an exit status.
	Outcome string
	// Fetched counts the resources downloaded (created or updated, not
	// those adopted), Deleted those removed, Bytes the bytes downloaded
	// (engine.Result.Bytes: those rejected too).
	Fetched, Deleted int
	Bytes            int64
	// Failures counts the failed resources by kind (engine.FailureKind).
	Failures map[string]int
	// SyncedUntil is the copy's point after the run: the Source's changes
	// up to it are in the copy (zero: not known).
	SyncedUntil time.Time
	// TookOver: the run took over the lock of a run that had ended
	// without releasing it.
	TookOver bool
	// Applied counts the notifications the run applied alone (without
	// reading the Source's lists).
	Applied int
}

// OutcomeOf is the outcome of a run that ended with exit status (0, 1, 2)
// and was, or not, interrupted.
func OutcomeOf(exitStatus int, interrupted bool) string {
	switch {
	case interrupted:
		return OutcomeInterrupted
	case exitStatus == 0:
		return OutcomeOK
	case exitStatus == 1:
		return OutcomeProblems
	}
	return OutcomeFailed
}

// Metrics are a process's metrics: a registry of its own (not the
// global one), with the Go runtime's and the process's.
type Metrics struct {
	reg      *prometheus.Registry
	runs     *prometheus.CounterVec
	failures *prometheus.CounterVec
	fetched  *prometheus.CounterVec
	deleted  *prometheus.CounterVec
	bytes    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	received *prometheus.CounterVec
	applied  *prometheus.CounterVec
	takeover *prometheus.CounterVec
	sources  *sourceCollector
	// What a server of a copy serves (Served): serve --dest.
	served      *prometheus.CounterVec
	servedBytes *prometheus.CounterVec
	serveTime   *prometheus.HistogramVec
}

// Options tune New.
type Options struct {
	// Now is the clock of rsx_source_behind_seconds; nil: time.Now.
	Now func() time.Time
	// NoProcess leaves out the Go runtime's and the process's collectors
	// (go_*, process_*): a test's exposition is then only rsx's.
	NoProcess bool
}

// durationBuckets are the run durations' buckets, in seconds: a run of a
// small Source takes well under a second, a baseline of a large one hours.
func durationBuckets() []float64 {
	return []float64{0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600}
}

// New makes the metrics, registered in a registry of their own.
func New(o Options) *Metrics {
	if o.Now == nil {
		o.Now = time.Now
	}
	src := []string{"source", "name"}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, append(append([]string(nil), src...), labels...))
	}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		runs: counter("rsx_runs_total",
			"Runs of a Source that ended, by command (sync, audit) and outcome (ok, problems, failed, interrupted).", "command", "outcome"),
		failures: counter("rsx_failures_total",
			"Resources (or documents) a run could not use, by kind (fetch, verify, write, collision, owned, refused, bitstream, document, package, state).", "kind"),
		fetched: counter("rsx_resources_fetched_total", "Resources downloaded into the copy (created or updated)."),
		deleted: counter("rsx_resources_deleted_total", "Resources removed from the copy."),
		bytes:   counter("rsx_fetched_bytes_total", "Bytes of resources downloaded (those rejected by their verification too)."),
		received: counter("rsx_notifications_received_total",
			"Notifications received from the Source's channels, by kind (change, framework).", "kind"),
		applied:  counter("rsx_notifications_applied_total", "Change notifications applied alone (without reading the Source's lists)."),
		takeover: counter("rsx_lock_takeovers_total", "Runs that took over the lock of their DEST from a run that had ended without releasing it."),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rsx_run_duration_seconds",
			Help: "How long the runs took, by command.", Buckets: durationBuckets()}, []string{"command"}),
		sources: &sourceCollector{now: o.Now, desc: newSourceDescs(), by: map[Source]*sourceState{}},
	}
	m.served = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rsx_served_requests_total",
		Help: "HTTP requests a server of rsx (serve --dest) answered, by method and status code."}, []string{"method", "code"})
	m.servedBytes = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rsx_served_bytes_total",
		Help: "Bytes of the bodies a server of rsx (serve --dest) sent, by method and status code."}, []string{"method", "code"})
	m.serveTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rsx_served_request_duration_seconds",
		Help: "How long a server of rsx (serve --dest) took to answer, by method.", Buckets: prometheus.DefBuckets}, []string{"method"})
	m.reg.MustRegister(m.runs, m.failures, m.fetched, m.deleted, m.bytes, m.received, m.applied, m.takeover, m.duration, m.sources,
		m.served, m.servedBytes, m.serveTime)
	info := prometheus.NewGauge(prometheus.GaugeOpts{Name: "rsx_build_info", Help: "The rsx that runs (always 1).",
		ConstLabels: prometheus.Labels{"version": version.String()}})
	info.Set(1)
	m.reg.MustRegister(info)
	if !o.NoProcess {
		m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return m
}

// Registerer is where a caller registers metrics of its own (serve
// --dest's requests), exposed beside rsx's.
func (m *Metrics) Registerer() prometheus.Registerer { return m.reg }

// Gatherer gathers the metrics (tests read it with
// prometheus/testutil).
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.reg }

// Handler serves the exposition (mount it at /metrics).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Served wraps the handler of a server of a copy (serve --dest) so that
// what it answers is counted: rsx_served_requests_total{method, code},
// rsx_served_bytes_total{method, code} and
// rsx_served_request_duration_seconds{method}. Mount Handler beside it at
// Path, or serve the metrics on a listener of their own (Serve).
func (m *Metrics) Served(h http.Handler) http.Handler {
	h = promhttp.InstrumentHandlerCounter(m.served, h)
	h = promhttp.InstrumentHandlerDuration(m.serveTime, h)
	return instrumentBytes(m.servedBytes, h)
}

// instrumentBytes counts the bytes of the bodies h writes.
func instrumentBytes(c *prometheus.CounterVec, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &countingResponse{ResponseWriter: w, code: http.StatusOK}
		h.ServeHTTP(cw, r)
		c.WithLabelValues(strings.ToLower(r.Method), strconv.Itoa(cw.code)).Add(float64(cw.n))
	})
}

// countingResponse counts what is written through it.
type countingResponse struct {
	http.ResponseWriter
	code        int
	wroteHeader bool
	n           int64
}

func (c *countingResponse) WriteHeader(code int) {
	if !c.wroteHeader {
		c.code, c.wroteHeader = code, true
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *countingResponse) Write(b []byte) (int, error) {
	c.wroteHeader = true
	n, err := c.ResponseWriter.Write(b)
	c.n += int64(n)
	return n, err
}

// Flush passes a flush on (a streamed Resource List).
func (c *countingResponse) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the writer beneath.
func (c *countingResponse) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// labels are a Source's label values.
func labels(s Source) []string { return []string{display.RedactURL(s.URL), s.Name} }

// Known makes the Source's series exist before its first run: its
// counters at 0, rsx_source_up absent until a run ends. A fleet calls it
// for each Source of its file.
func (m *Metrics) Known(s Source, command string) {
	l := labels(s)
	m.runs.WithLabelValues(append(l, command, OutcomeOK)...)
	if command == "sync" {
		m.fetched.WithLabelValues(l...)
		m.bytes.WithLabelValues(l...)
	}
	m.sources.known(s)
}

// Ran counts a run that ended.
func (m *Metrics) Ran(r Run) {
	l := labels(r.Source)
	if r.Command == "" {
		r.Command = "sync"
	}
	m.runs.WithLabelValues(append(l, r.Command, r.Outcome)...).Inc()
	m.duration.WithLabelValues(r.Command).Observe(r.Elapsed.Seconds())
	kinds := make([]string, 0, len(r.Failures))
	for k := range r.Failures {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		m.failures.WithLabelValues(append(l, k)...).Add(float64(r.Failures[k]))
	}
	if r.Command == "sync" {
		m.fetched.WithLabelValues(l...).Add(float64(r.Fetched))
		m.deleted.WithLabelValues(l...).Add(float64(r.Deleted))
		m.bytes.WithLabelValues(l...).Add(float64(r.Bytes))
	}
	if r.Applied > 0 {
		m.applied.WithLabelValues(l...).Add(float64(r.Applied))
	}
	if r.TookOver {
		m.takeover.WithLabelValues(l...).Inc()
	}
	m.sources.ran(r)
}

// Notified counts a notification of s received, of kind (change,
// framework).
func (m *Metrics) Notified(s Source, kind string) {
	m.received.WithLabelValues(append(labels(s), kind)...).Inc()
}

// AppliedAlone counts n notifications of s applied alone, when they are
// not told as a Run's Applied (one Source's follow applies them as they
// come).
func (m *Metrics) AppliedAlone(s Source, n int) {
	m.applied.WithLabelValues(labels(s)...).Add(float64(n))
}

// sourceState is what the gauges of a Source say.
type sourceState struct {
	lastRun, lastSuccess, syncedUntil time.Time
	// inStep is when the last run that ended ok started: the copy holds
	// every change the Source had published then.
	inStep      time.Time
	lastElapsed time.Duration
	up          bool // the last run's outcome was ok
	ran         bool
}

// sourceCollector gives each Source's gauges at the scrape: how far
// behind its copy is counts from then.
type sourceCollector struct {
	now  func() time.Time
	desc sourceDescs
	mu   sync.Mutex
	by   map[Source]*sourceState
}

// sourceDescs are the gauges of a Source.
type sourceDescs struct {
	lastRun, lastSuccess, syncedUntil, behind, lastDuration, up *prometheus.Desc
}

func newSourceDescs() sourceDescs {
	l := []string{"source", "name"}
	return sourceDescs{
		lastRun: prometheus.NewDesc("rsx_source_last_run_timestamp_seconds",
			"When the Source's last run ended (Unix time).", l, nil),
		lastSuccess: prometheus.NewDesc("rsx_source_last_success_timestamp_seconds",
			"When the Source's last run that ended ok (exit status 0) ended (Unix time); absent until one has.", l, nil),
		syncedUntil: prometheus.NewDesc("rsx_source_synced_until_timestamp_seconds",
			"The copy's point: the Source's changes up to it are in the copy (Unix time); absent until a run has recorded one.", l, nil),
		behind: prometheus.NewDesc("rsx_source_behind_seconds",
			"How far behind the Source the copy may be at the scrape: the time since the start of the last run that ended ok (the copy then held every change the Source had published); absent until one has.", l, nil),
		lastDuration: prometheus.NewDesc("rsx_source_last_run_duration_seconds",
			"How long the Source's last run took.", l, nil),
		up: prometheus.NewDesc("rsx_source_up",
			"1 when the Source's last run ended ok (exit status 0), 0 when it did not; absent before its first run.", l, nil),
	}
}

func (c *sourceCollector) Describe(ch chan<- *prometheus.Desc) {
	d := c.desc
	for _, d := range []*prometheus.Desc{d.lastRun, d.lastSuccess, d.syncedUntil, d.behind, d.lastDuration, d.up} {
		ch <- d
	}
}

func (c *sourceCollector) known(s Source) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by[s] == nil {
		c.by[s] = &sourceState{}
	}
}

func (c *sourceCollector) ran(r Run) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.by[r.Source]
	if st == nil {
		st = &sourceState{}
		c.by[r.Source] = st
	}
	end := r.Started.Add(r.Elapsed)
	st.ran, st.lastRun, st.lastElapsed = true, end, r.Elapsed
	if r.Outcome == OutcomeInterrupted {
		return // its state says nothing of the Source: the next run continues it
	}
	st.up = r.Outcome == OutcomeOK
	if st.up {
		st.lastSuccess, st.inStep = end, r.Started
	}
	if r.SyncedUntil.After(st.syncedUntil) {
		st.syncedUntil = r.SyncedUntil
	}
}

func unix(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

func (c *sourceCollector) Collect(ch chan<- prometheus.Metric) {
	now, d := c.now(), c.desc
	c.mu.Lock()
	defer c.mu.Unlock()
	gauge := func(d *prometheus.Desc, v float64, s Source) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels(s)...)
	}
	for s, st := range c.by {
		if !st.ran {
			continue
		}
		gauge(d.lastRun, unix(st.lastRun), s)
		gauge(d.lastDuration, st.lastElapsed.Seconds(), s)
		gauge(d.up, boolValue(st.up), s)
		if !st.lastSuccess.IsZero() {
			gauge(d.lastSuccess, unix(st.lastSuccess), s)
		}
		if !st.syncedUntil.IsZero() {
			gauge(d.syncedUntil, unix(st.syncedUntil), s)
		}
		if !st.inStep.IsZero() {
			gauge(d.behind, max(now.Sub(st.inStep).Seconds(), 0), s)
		}
	}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
