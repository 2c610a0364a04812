package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"rsx/dest/engine"
	"rsx/fleet"
	"rsx/metrics"
	"rsx/notify"
)

// --metrics ADDR (the long-running modes: sync --follow, sync or audit
// --sources --every, sync --sources --follow, serve --dest) serves
// Prometheus metrics at ADDR/metrics while they run (package metrics,
// docs/metrics.md). The command line tells them each run, as it writes
// its line; serve --dest's handler is wrapped to count what it answers.

const metricsHelp = "with --every or --follow: serve Prometheus metrics at `ADDR`/metrics while it runs (HOST:PORT; PORT alone is 127.0.0.1:PORT; docs/metrics.md)"

// startMetrics listens on addr and serves the metrics until the returned
// stop is called; a.metrics counts the runs meanwhile.
func (a *app) startMetrics(command, addr string) (stop func(), err error) {
	ln, err := metrics.Listen(addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", command, err)
	}
	a.metrics = metrics.New(metrics.Options{})
	srv := metrics.Serve(ln, a.metrics)
	fmt.Fprintf(a.err, "rsx: metrics at %s\n", srv.URL())
	a.log().Info("serving metrics", "url", srv.URL())
	return func() {
		if err := srv.Close(); err != nil {
			a.log().Warn("metrics server", "error", err.Error())
		}
	}, nil
}

// metricsSource is the Source of a fleet's job in the metrics.
func metricsSource(j fleet.Job) metrics.Source {
	return metrics.Source{URL: j.Source.URL, Name: j.Source.Name}
}

// fleetRan counts a fleet's run (not one that did not start).
func (a *app) fleetRan(r *fleet.Run, interrupted bool) {
	if a.metrics == nil || r.NotRun {
		return
	}
	if r.Sync != nil && r.Sync.RanElsewhere != nil {
		return // another process of a shared fleet ran it: its metrics count it
	}
	src := metricsSource(r.Job)
	interrupted = interrupted || r.Held != nil
	if r.Audit != nil {
		a.metrics.Ran(metrics.AuditRun(src, r.Started, r.Elapsed, r.Audit, interrupted))
		return
	}
	a.metrics.Ran(metrics.SyncRun(src, r.Started, r.Elapsed, r.Sync, interrupted))
}

// metricsLoad is load, each Source it finds made known to the metrics
// (their series exist before their first run).
func (a *app) metricsLoad(f fleetFlags) func() (*fleet.File, []fleet.Job, error) {
	if a.metrics == nil {
		return f.load
	}
	return func() (*fleet.File, []fleet.Job, error) {
		ff, jobs, err := f.load()
		for _, j := range jobs {
			a.metrics.Known(metricsSource(j), string(f.command))
		}
		return ff, jobs, err
	}
}

// metricsFollowReporter counts what a following fleet tells, then tells
// the printer.
type metricsFollowReporter struct {
	fleet.FollowReporter
	a *app
}

func (r metricsFollowReporter) Notification(j fleet.Job, e *notify.Event, brings, coalesced bool) {
	r.a.metrics.Notified(metricsSource(j), notificationKind(e))
	r.FollowReporter.Notification(j, e, brings, coalesced)
}

func (r metricsFollowReporter) Ran(fr fleet.FollowRun) {
	r.a.fleetRan(fr.Run, fr.Interrupted)
	r.FollowReporter.Ran(fr)
}

// notificationKind is the kind label of a notification: its channel's
// kind, change or framework.
func notificationKind(e *notify.Event) string { return string(e.Kind()) }

// followMetrics counts what one Source's follow does: each run (Ran) and
// each notification (the events).
type followMetrics struct {
	m   *metrics.Metrics
	src metrics.Source
}

// ran is engine.FollowOptions.Ran.
func (f followMetrics) ran(r engine.FollowRan) {
	f.m.Ran(metrics.EngineRun(f.src, r.Started, r.Elapsed, r.Result, false))
}

// event counts a notification Follow tells of.
func (f followMetrics) event(e engine.FollowEvent) {
	switch e.Type {
	case engine.FollowNotified:
		f.m.Notified(f.src, "change")
		f.m.AppliedAlone(f.src, 1)
	case engine.FollowRejected:
		f.m.Notified(f.src, "change")
	case engine.FollowFramework:
		f.m.Notified(f.src, "framework")
	}
}

// checkMetricsFlag refuses --metrics but with a long-running mode (--every
// with --sources, --follow), and an ADDR that is not one.
func checkMetricsFlag(c *cobra.Command, file string, every time.Duration) error {
	fl := c.Flags()
	if !fl.Changed("metrics") {
		return nil
	}
	follow := fl.Lookup("follow") != nil && fl.Lookup("follow").Value.String() == "true"
	if !follow && (file == "" || every == 0) {
		how := "--sources FILE --every D"
		if fl.Lookup("follow") != nil {
			how = "--follow, or --sources FILE --every D"
		}
		return failed(fmt.Errorf("%s: --metrics goes with a run that goes on (%s): a single run ends before a scrape", c.Name(), how))
	}
	if _, err := metrics.ParseAddr(fl.Lookup("metrics").Value.String()); err != nil {
		return failed(fmt.Errorf("%s: %w", c.Name(), err))
	}
	return nil
}
