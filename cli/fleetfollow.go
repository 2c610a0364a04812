package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"rsx/dest/job"
	"rsx/display"
	"rsx/fleet"
	"rsx/notify"
)

// rsx sync --sources FILE --follow: the fleet follows its Sources (package
// fleet: the loop, the debounce, the channels, the runs through the
// runner); the command line gives it the channels (notify, with the HTTP
// options of its flags) and writes what it tells: a line per run on
// standard output, the channels' comings and goings on standard error, or
// JSON Lines of every event with --json.

// fleetTimes bound the fleet's waits; a zero field gives the default.
type fleetTimes struct {
	minEvery time.Duration // the least --every; default a minute
	reread   time.Duration // between two readings of the file while following; default a minute
}

func (t fleetTimes) leastEvery() time.Duration {
	if t.minEvery > 0 {
		return t.minEvery
	}
	return time.Minute
}

func (t fleetTimes) rereadEvery() time.Duration {
	if t.reread > 0 {
		return t.reread
	}
	return fleet.DefaultReread
}

// fleetFollow follows every Source of the file until ctx is done;
// everyGiven says whether every is --every's (else the default).
func (a *app) fleetFollow(ctx context.Context, f fleetFlags, every time.Duration, everyGiven bool, debounce time.Duration) error {
	pr := &fleetFollowPrinter{out: a.out, errw: a.err, json: f.asJSON, command: string(f.command), log: a.log(),
		st: newTextStyles(useColor(a.out)), est: newTextStyles(useColor(a.err))}
	var report fleet.FollowReporter = pr
	if a.metrics != nil {
		report = metricsFollowReporter{FollowReporter: pr, a: a}
	}
	bad, err := fleet.Follow(ctx, a.runner(), fleet.FollowOptions{Every: every, EveryGiven: everyGiven, Debounce: debounce,
		Reread: a.fleetTimes.rereadEvery(), Load: a.metricsLoad(f), Channels: fleetChannels{a}, Report: report})
	if err != nil {
		return failed(err)
	}
	if err := pr.err; err != nil {
		return failed(fmt.Errorf("%s --sources --follow: write: %w", f.command, err))
	}
	if bad > 0 {
		return foundProblems()
	}
	return nil
}

// fleetChannels finds and watches a Source's notification channels with
// the HTTP options of the command line, as rsx watch does.
type fleetChannels struct{ a *app }

func (c fleetChannels) Find(ctx context.Context, j fleet.Job) ([]notify.Channel, error) {
	client, err := c.a.runner().Client(j.Source.URL, j.Sync.Limits)
	if err != nil {
		return nil, err
	}
	found, err := notify.Find(ctx, client, j.Source.URL)
	if found == nil {
		return nil, err
	}
	return found.Channels, err
}

func (c fleetChannels) Watch(ctx context.Context, j fleet.Job, channels []notify.Channel) (<-chan notify.Event, func()) {
	client, err := c.a.runner().Client(j.Source.URL, j.Sync.Limits)
	if err != nil {
		// The options were good for Find: they are the same now.
		ch := make(chan notify.Event)
		close(ch)
		return ch, func() {}
	}
	return watchChannels(ctx, client, channels)
}

// fleetFollowPrinter writes what a following fleet does: with --json one
// JSON object a line on standard output; else each run's line on standard
// output, the channels' comings and goings on standard error.
type fleetFollowPrinter struct {
	out, errw io.Writer
	json      bool
	command   string
	st, est   textStyles
	log       *slog.Logger
	err       error // the first write that failed
}

// fleetEventJSON is a line of rsx sync --sources --follow --json, but a
// run's (fleetRunJSON). Event is "following", "channels", "polled",
// "added", "removed", "file-error", "connected", "disconnected",
// "notification" or "stopped"; the other fields are those of its kind.
type fleetEventJSON struct {
	Event  string `json:"event"`
	Time   string `json:"time"`
	Source string `json:"source,omitempty"`
	Name   string `json:"name,omitempty"`
	Dest   string `json:"dest,omitempty"`
	// following
	Sources         *int     `json:"sources,omitempty"`
	EverySeconds    *float64 `json:"every_seconds,omitempty"`
	EveryDefault    *bool    `json:"every_default,omitempty"`
	DebounceSeconds *float64 `json:"debounce_seconds,omitempty"`
	// channels, polled
	Channels          []fleetChannelJSON `json:"channels,omitempty"`
	RetryLookupSecond *float64           `json:"retry_lookup_seconds,omitempty"`
	Resubscribed      bool               `json:"resubscribed,omitempty"`
	// connected, disconnected, notification
	Channel      string   `json:"channel,omitempty"`
	Kind         string   `json:"kind,omitempty"`
	Reconnect    bool     `json:"reconnect,omitempty"`
	CatchUp      bool     `json:"catch_up,omitempty"`
	Attempt      int      `json:"attempt,omitempty"`
	RetrySeconds *float64 `json:"retry_seconds,omitempty"`
	Changes      *int     `json:"changes,omitempty"`
	Errors       *int     `json:"errors,omitempty"`
	Run          *bool    `json:"run,omitempty"`
	// stopped
	Runs          *int    `json:"runs,omitempty"`
	FailedRuns    *int    `json:"failed_runs,omitempty"`
	FailedSources *int    `json:"failed_sources,omitempty"`
	Stopped       *string `json:"stopped,omitempty"`
	// polled, disconnected, file-error
	Error *string `json:"error,omitempty"`
}

type fleetChannelJSON struct {
	URL  string `json:"url"`
	Kind string `json:"kind"`
}

// fleetRunJSON is a run's line: the round's result object of the Source,
// with why it ran, how many notifications it answers, and how it brought
// the copy up to date: Via "notifications" (their changes applied, the
// Change Lists not read), "lists" (its Change Lists, or its Resource
// List for a baseline), or "" (no plan was made);
// Fallback says why notifications it answers were not applied alone.
type fleetRunJSON struct {
	Event         string `json:"event"` // "run"
	Time          string `json:"time"`
	Reason        string `json:"reason"`
	Notifications int    `json:"notifications"`
	Via           string `json:"via"`
	Fallback      string `json:"fallback,omitempty"`
	Interrupted   bool   `json:"interrupted"`
	fleetResult
}

func (p *fleetFollowPrinter) line(v any) {
	if err := writeJSONLine(p.out, v); err != nil && p.err == nil {
		p.err = err
	}
}

func (p *fleetFollowPrinter) textOut(format string, args ...any) {
	if _, err := fmt.Fprintf(p.out, format, args...); err != nil && p.err == nil {
		p.err = err
	}
}

func (p *fleetFollowPrinter) event(kind string, j *fleet.Job) fleetEventJSON {
	e := fleetEventJSON{Event: kind, Time: time.Now().UTC().Format(time.RFC3339Nano)}
	if j != nil {
		e.Source, e.Name, e.Dest = j.Source.URL, j.Source.Name, j.Dest
	}
	return e
}

// shortDuration is d as time.Duration writes it, without the zero minutes
// and seconds of whole hours and minutes: 1h, 90m, 1h30m, 2.5s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func clock() string { return time.Now().Local().Format("15:04:05") }

func secondsOf(d time.Duration) *float64 {
	s := d.Seconds()
	return &s
}

// Following is fleet.FollowReporter's.
func (p *fleetFollowPrinter) Following(n int, every time.Duration, given bool, debounce time.Duration) {
	if p.json {
		e := p.event("following", nil)
		def := !given
		e.Sources, e.EverySeconds, e.EveryDefault, e.DebounceSeconds = intp(n), secondsOf(every), &def, secondsOf(debounce)
		p.line(e)
		return
	}
	how := "--every; a Source's every in the file wins"
	if !given {
		how = "the default: --every, or a Source's every in the file, sets it"
	}
	fmt.Fprintf(p.errw, "rsx: following %s (ctrl-c stops): a Source runs %s after its notifications, after a channel reconnects, and every %s (%s), with a channel or without\n",
		display.Plural(n, "Source", "Sources"), shortDuration(debounce), shortDuration(every), how)
}

// Channels is fleet.FollowReporter's.
func (p *fleetFollowPrinter) Channels(j fleet.Job, f fleet.Found) {
	if p.json {
		e := p.event("channels", &j)
		e.Resubscribed = f.Resubscribed
		for _, ch := range f.Channels {
			e.Channels = append(e.Channels, fleetChannelJSON{URL: ch.URL, Kind: string(ch.Kind)})
		}
		if len(f.Channels) == 0 {
			e.Event = "polled"
			e.EverySeconds = secondsOf(j.Every)
			if f.Err != nil && !errors.Is(f.Err, notify.ErrNoChannels) {
				e.Error = strp(f.Err.Error())
			}
			if f.Retry > 0 {
				e.RetryLookupSecond = secondsOf(f.Retry)
			}
		}
		p.line(e)
		return
	}
	if len(f.Channels) > 0 {
		var list []string
		for _, ch := range f.Channels {
			list = append(list, esc(ch.URL)+" ("+string(ch.Kind)+")")
		}
		again := ""
		if f.Resubscribed {
			again = " (its Capability List changed: subscribed anew)"
		}
		fmt.Fprintf(p.errw, "%s  %s: notifications from %s%s\n", clock(), esc(j.Name()), strings.Join(list, ", "), again)
		return
	}
	why := "no notification channel"
	if f.Resubscribed {
		why = "its Capability List advertises no notification channel any more"
	}
	if f.Err != nil && !errors.Is(f.Err, notify.ErrNoChannels) {
		why = "its notification channels could not be found (" + esc(f.Err.Error()) + ")"
		if f.Retry > 0 {
			why += "; looked for again in " + shortDuration(f.Retry)
		}
	}
	fmt.Fprintf(p.errw, "%s  %s: %s: polled every %s\n", clock(), esc(j.Name()), why, shortDuration(j.Every))
}

// Changed is fleet.FollowReporter's.
func (p *fleetFollowPrinter) Changed(j fleet.Job, what string) {
	if p.json {
		p.line(p.event(what, &j))
		return
	}
	fmt.Fprintf(p.errw, "%s  %s: %s (the file changed)\n", clock(), esc(j.Name()), what)
}

// FileError is fleet.FollowReporter's.
func (p *fleetFollowPrinter) FileError(err error) {
	if p.json {
		e := p.event("file-error", nil)
		e.Error = strp(err.Error())
		p.line(e)
		return
	}
	fmt.Fprintf(p.errw, "rsx: %s --sources: %s; the last good list goes on\n", p.command, esc(err.Error()))
}

// ChannelEvent is fleet.FollowReporter's.
func (p *fleetFollowPrinter) ChannelEvent(j fleet.Job, ev *notify.Event, catchUp bool) {
	s := &j
	if ev.Type == notify.EventDisconnected {
		p.log.Warn("notification channel dropped", "source", redactURL(j.Source.URL), "name", j.Source.Name, "channel", redactURL(ev.Channel.URL),
			"error", errText(ev.Err), "attempt", ev.Attempt, "retry", ev.Retry.String())
	}
	if p.json {
		e := p.event(string(ev.Type), s)
		e.Channel, e.Kind, e.Reconnect, e.CatchUp = ev.Channel.URL, string(ev.Channel.Kind), ev.Reconnect, catchUp
		if ev.Type == notify.EventDisconnected {
			e.Attempt, e.RetrySeconds, e.Error = ev.Attempt, secondsOf(ev.Retry), strp(errText(ev.Err))
		}
		p.line(e)
		return
	}
	at, name := clock(), esc(j.Name())
	switch ev.Type {
	case notify.EventConnected:
		what := "connected"
		if ev.Reconnect {
			what = "reconnected"
		}
		line := fmt.Sprintf("%s  %s: %s %s", at, name, p.est.dim(what), esc(ev.Channel.URL))
		if catchUp {
			line += ": a run catches up what it missed"
		}
		fmt.Fprintln(p.errw, line)
	case notify.EventDisconnected:
		why := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(errText(ev.Err), ev.Channel.URL), ":"))
		fmt.Fprintf(p.errw, "%s  %s: %s %s: %s; reconnecting in %s\n", at, name, p.est.warn("dropped"), esc(ev.Channel.URL), esc(why), ev.Retry.Round(time.Millisecond))
	}
}

// Notification is fleet.FollowReporter's.
func (p *fleetFollowPrinter) Notification(j fleet.Job, ev *notify.Event, brings, coalesced bool) {
	if p.json {
		e := p.event("notification", &j)
		e.Channel, e.Kind, e.Changes, e.Errors, e.Run = ev.Channel.URL, string(ev.Channel.Kind), intp(len(ev.Items)), intp(ev.Errors()), &brings
		p.line(e)
		return
	}
	what := display.Plural(len(ev.Items), "change", "changes")
	if ev.Kind() == notify.KindFramework {
		what = display.Plural(len(ev.Items), "document changed", "documents changed")
	}
	line := fmt.Sprintf("%s  %s: notified: %s (%s)", clock(), esc(j.Name()), what, esc(ev.Channel.URL))
	if len(ev.Problems) > 0 {
		line += ": " + describeProblems(ev.Problems)
	}
	switch {
	case !brings:
		line += p.est.warn(" (nothing in it: no run)")
	case coalesced:
		line += p.est.dim(" (with the run already due)")
	}
	fmt.Fprintln(p.errw, line)
}

// Ran is fleet.FollowReporter's.
func (p *fleetFollowPrinter) Ran(r fleet.FollowRun) {
	if r.Held != nil {
		logHeld(p.log, r.Run)
	}
	fr, err := fleetRunOf(r.Run)
	if err != nil && p.err == nil {
		p.err = err
	}
	var out job.NotifiedOutcome
	if r.Sync != nil {
		out = r.Sync.Notified
	}
	if p.json {
		j := fleetRunJSON{Event: "run", Time: time.Now().UTC().Format(time.RFC3339Nano), Reason: r.Reason, Notifications: r.Notifications,
			Interrupted: r.Interrupted, fleetResult: fr.res, Via: out.Via(), Fallback: out.Fallback}
		p.line(j)
		return
	}
	why := r.Reason
	switch {
	case r.Interrupted:
		why = "interrupted: the next run continues where it stopped"
	case r.Reason == fleet.ReasonNotification:
		why = "after " + display.Plural(r.Notifications, "notification", "notifications")
		switch {
		case out.Via() == "notifications":
			why += ": applied"
		case out.Fallback != "":
			why += "; the Change Lists read: " + esc(out.Fallback)
		}
	case r.Reason == fleet.ReasonReconnected:
		why = "catch-up after a reconnection"
	case r.Reason == fleet.ReasonContinued:
		why = "continued after the Sources that waited for its DEST"
	}
	p.textOut("%s  %s %s\n", clock(), fleetLineText(p.st, fr), p.st.dim("["+why+"]"))
}

// Stopped is fleet.FollowReporter's.
func (p *fleetFollowPrinter) Stopped(cause error, runs, failedRuns, failedSources int) {
	command := p.command
	why := "stopped"
	if cause != nil {
		why = cause.Error()
	}
	if p.json {
		e := p.event("stopped", nil)
		e.Runs, e.FailedRuns, e.FailedSources, e.Stopped = intp(runs), intp(failedRuns), intp(failedSources), &why
		p.line(e)
		return
	}
	last := "the last run of every Source was ok"
	if failedSources > 0 {
		last = display.Plural(failedSources, "Source's last run", "Sources' last runs") + " failed"
	}
	fmt.Fprintf(p.errw, "rsx: %s --sources --follow: %s after %s (%d failed); %s\n",
		command, why, display.Plural(runs, "run", "runs"), failedRuns, last)
}
