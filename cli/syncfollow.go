package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"rsx/dest/engine"
	"rsx/display"
	"rsx/fetch"
	"rsx/metrics"
	"rsx/model"
	"rsx/notify"
)

// rsx sync --follow: after the catch-up (the ordinary sync), the copy
// follows the Source: change notifications are applied as they arrive,
// and the Change Lists are polled every --poll-interval as the record
// (engine.Dest.Follow). With --json, standard output is JSON Lines: the
// catch-up's sync object (event "caught-up"), one object per event, and the
// sync object of the whole run at the end (event "sync").

// subscribe finds the notification channels of the plan's Capability List
// and starts watching them; nil when the Source advertises none (the copy
// then follows by polling only) or they cannot be found. stop ends the
// watch and waits for it.
func (a *app) subscribe(ctx context.Context, client *fetch.Client, p *engine.Plan) (events <-chan notify.Event, stop func()) {
	stop = func() {}
	cl := p.CapabilityList
	if cl == "" {
		fmt.Fprintf(a.err, "rsx: %s has no Capability List above it: no notification channels; following by polling only\n", esc(p.Source))
		return nil, stop
	}
	found, err := notify.Find(ctx, client, cl)
	if err != nil {
		if errors.Is(err, notify.ErrNoChannels) {
			fmt.Fprintf(a.err, "rsx: %s advertises no notification channel: following by polling only\n", esc(cl))
		} else if ctx.Err() == nil {
			fmt.Fprintf(a.err, "rsx: the notification channels could not be found (%s): following by polling only\n", esc(err.Error()))
		}
		return nil, stop
	}
	var channels []notify.Channel
	for _, ch := range found.Channels {
		if ch.CapabilityList == cl {
			channels = append(channels, ch)
		}
	}
	if len(channels) == 0 {
		return nil, stop
	}
	return watchChannels(ctx, client, channels)
}

// watchChannels subscribes to channels with the HTTP options of client
// (the TLS setting, the User-Agent, the -H headers and credentials bound to
// a channel's host) until stop is called or ctx is done. stop ends the
// watch and drains its events, so that its goroutines end.
func watchChannels(ctx context.Context, client *fetch.Client, channels []notify.Channel) (events <-chan notify.Event, stop func()) {
	fo := client.Options()
	wctx, cancel := context.WithCancel(ctx)
	in := notify.Watch(wctx, channels, notify.Options{
		DialTimeout: fo.ConnectTimeout,
		HTTPClient:  watchHTTPClient(fo),
		Header:      func(u string) http.Header { return watchHeader(fo, u) },
	})
	return in, func() {
		cancel()
		for range in {
		}
	}
}

// followSync follows the Source after the catch-up p (whose run was res)
// until ctx is done, printing each event, then the summary.
func (a *app) followSync(ctx context.Context, sess *engine.Dest, p *engine.Plan, res *engine.Result, events <-chan notify.Event, f syncFlags, dest string, started time.Time) error {
	pr := &followPrinter{w: a.out, errw: a.err, json: f.json, st: newTextStyles(useColor(a.out)), est: newTextStyles(useColor(a.err)), log: a.log()}
	n := "no notification channel"
	if events != nil {
		n = "its notification channels"
	}
	fmt.Fprintf(a.err, "rsx: following %s: %s, and a poll of the Change Lists every %s (ctrl-c stops)\n", esc(p.Source), n, f.pollInterval)
	fo := engine.FollowOptions{Interval: f.pollInterval, Notifications: events, Report: pr.event}
	if a.metrics != nil {
		fm := followMetrics{m: a.metrics, src: metrics.Source{URL: p.Target}}
		fo.Ran = fm.ran
		fo.Report = func(e engine.FollowEvent) {
			fm.event(e)
			pr.event(e)
		}
	}
	fr, err := sess.Follow(ctx, p, fo)
	if err != nil {
		return failed(fmt.Errorf("sync --follow: %w", err))
	}
	if pr.err != nil {
		return failed(fmt.Errorf("sync --follow: write: %w", pr.err))
	}
	elapsed := time.Since(started)
	if f.json {
		out := syncJSONOf(p, res, dest, false, elapsed)
		followTotals(&out, res, fr, f.pollInterval, p.Target)
		if err := writeJSONLine(a.out, out); err != nil {
			return failed(fmt.Errorf("sync --follow: write the report: %w", err))
		}
	} else {
		writeFollowResult(a.out, newTextStyles(useColor(a.out)), fr)
	}
	if !fr.OK() {
		return exitWith(exitFound)
	}
	return nil
}

// followJSON is the "follow" object of the last line of sync --follow --json.
type followJSON struct {
	Notifications       int     `json:"notifications"`
	Rejected            int     `json:"rejected"`
	Polls               int     `json:"polls"`
	PollErrors          int     `json:"poll_errors"`
	FromNotifications   int     `json:"from_notifications"`
	FromPolls           int     `json:"from_polls"`
	Created             int     `json:"created"`
	Updated             int     `json:"updated"`
	Deleted             int     `json:"deleted"`
	Remembered          int     `json:"remembered"`
	Outstanding         int     `json:"outstanding"`
	PollIntervalSeconds float64 `json:"poll_interval_seconds"`
	Stopped             string  `json:"stopped"`
	Seconds             float64 `json:"seconds"`
}

// followTotals makes the catch-up's sync object the whole run's: the
// changes of the catch-up and of the follow added up, the failures still
// outstanding, the point, the gap and the problems of the last poll.
func followTotals(out *syncJSON, res *engine.Result, fr *engine.FollowResult, interval time.Duration, target string) {
	out.Event = "sync"
	out.Created += fr.Created
	out.Updated += fr.Updated
	out.Deleted += fr.Deleted
	out.PendingDeletes += fr.Remembered
	out.Failed = failJSON(fr.Failed)
	out.Finished = fr.OK()
	out.SyncedUntil = timeOrNull(fr.SyncedUntil)
	out.Stopped = nil
	if fr.Stopped != "" {
		s := fr.Stopped
		out.Stopped = &s
	}
	if fr.Gap != nil {
		out.Gap = &syncGapJSON{From: model.FormatDatetime(fr.Gap.From), To: timeOrNull(fr.Gap.To), Message: fr.Gap.String(),
			Proposal: "reconcile the copy (only what is missing or differs is fetched): " + command("rsx", "sync", "--mode", "baseline", "--dest", out.Dest, target)}
	}
	if len(fr.Problems) > 0 {
		out.Problems = failJSON(fr.Problems)
	}
	out.Follow = &followJSON{Notifications: fr.Notifications, Rejected: fr.Rejected, Polls: fr.Polls, PollErrors: fr.PollErrors,
		FromNotifications: fr.FromNotifications, FromPolls: fr.FromPolls, Created: fr.Created, Updated: fr.Updated, Deleted: fr.Deleted,
		Remembered: fr.Remembered, Outstanding: fr.FailedCount, PollIntervalSeconds: interval.Seconds(), Stopped: fr.Stopped,
		Seconds: fr.Elapsed.Seconds()}
}

// writeFollowResult writes the summary of a follow.
func writeFollowResult(w io.Writer, st textStyles, fr *engine.FollowResult) {
	mark := st.rule("✓")
	if !fr.OK() {
		mark = st.err("✗")
	}
	applied := fr.FromNotifications + fr.FromPolls
	fmt.Fprintf(w, "%s followed for %s: %s (%s from notifications, %s caught by polls), %s (%s rejected), %s; synced until %s\n",
		mark, fr.Elapsed.Round(time.Second), display.Plural(applied, "change applied", "changes applied"), display.Count(fr.FromNotifications), display.Count(fr.FromPolls),
		display.Plural(fr.Notifications, "change notification", "change notifications"), display.Count(fr.Rejected), display.Plural(fr.Polls, "poll", "polls"), datetimeOrNone(fr.SyncedUntil))
	if fr.Remembered > 0 {
		fmt.Fprintf(w, "  %s %s: run with --delete to apply\n", st.dim("·"), display.Plural(fr.Remembered, "deletion remembered", "deletions remembered"))
	}
	if fr.Gap != nil {
		fmt.Fprintf(w, "%s gap: %s: changes may have been missed; reconcile the copy (--mode baseline: only what is missing or differs is fetched)\n", st.err("✗"), fr.Gap)
	}
	for _, pr := range fr.Problems {
		fmt.Fprintf(w, "%s %s\n", st.err("✗"), esc(pr.Error()))
	}
	if fr.FailedCount > 0 {
		fmt.Fprintf(w, "%s %s outstanding: the next run fetches them again\n", st.err("✗"), display.Plural(fr.FailedCount, "failure", "failures"))
		for i, f := range fr.Failed {
			if i == maxTextLines {
				fmt.Fprintf(w, "  … and %s more\n", display.Count(fr.FailedCount-i))
				break
			}
			fmt.Fprintf(w, "  %s: %s\n", esc(f.URL), esc(f.Error()))
		}
	}
}

// followPrinter prints Follow's events: a line per change (or a JSON
// object per line with --json) on standard output, the channels' comings
// and goings on standard error.
type followPrinter struct {
	mu      sync.Mutex
	w, errw io.Writer
	json    bool
	st, est textStyles
	log     *slog.Logger // the log file's (logfile.go)
	err     error        // the first write that failed
}

// followEventJSON is one line of sync --follow --json. Event is "change",
// "failed", "notification", "rejected", "framework", "connected",
// "disconnected" or "poll"; the other fields are those of its kind.
type followEventJSON struct {
	Event string `json:"event"`
	Time  string `json:"time"`
	Via   string `json:"via,omitempty"`
	// change, failed
	URL      string  `json:"url,omitempty"`
	Change   *string `json:"change,omitempty"`
	Datetime *string `json:"datetime,omitempty"`
	Action   string  `json:"action,omitempty"`
	Path     string  `json:"path,omitempty"`
	Error    *string `json:"error,omitempty"`
	Kind     string  `json:"kind,omitempty"`
	Status   int     `json:"status,omitempty"`
	Rejected string  `json:"rejected,omitempty"`
	// notification, rejected, framework, connected, disconnected
	Channel      string          `json:"channel,omitempty"`
	Changes      *int            `json:"changes,omitempty"`
	Problems     []jsonNotified  `json:"problems,omitempty"`
	Documents    []followDocJSON `json:"documents,omitempty"`
	RetrySeconds *float64        `json:"retry_seconds,omitempty"`
	Reconnect    bool            `json:"reconnect,omitempty"`
	Attempt      int             `json:"attempt,omitempty"`
	// poll
	Created        *int           `json:"created,omitempty"`
	Updated        *int           `json:"updated,omitempty"`
	Deleted        *int           `json:"deleted,omitempty"`
	PendingDeletes *int           `json:"pending_deletes,omitempty"`
	Caught         *int           `json:"caught,omitempty"`
	FailedCount    *int           `json:"failed,omitempty"`
	Lists          *int           `json:"lists,omitempty"`
	ArchivedLists  []syncArchJSON `json:"archived_lists,omitempty"`
	SyncedUntil    *string        `json:"synced_until,omitempty"`
	Gap            *string        `json:"gap,omitempty"`
	Stopped        *string        `json:"stopped,omitempty"`
}

// followDocJSON is a document a framework notification says changed.
type followDocJSON struct {
	URL        string `json:"url"`
	Capability string `json:"capability"`
	Change     string `json:"change"`
}

func intp(n int) *int { return &n }

func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (p *followPrinter) event(e engine.FollowEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.logEvent(e)
	var err error
	if p.json {
		err = writeJSONLine(p.w, followJSONOf(e))
	} else {
		err = p.text(e)
	}
	if err != nil && p.err == nil {
		p.err = err
	}
}

// logEvent logs what the log file keeps of a follow's events: the
// notifications rejected (the next poll applies what they announced), the
// changes a poll caught that no notification brought, the channels that
// dropped.
func (p *followPrinter) logEvent(e engine.FollowEvent) {
	if p.log == nil {
		return
	}
	switch e.Type {
	case engine.FollowRejected:
		p.log.Warn("notification rejected: the next poll of the Change Lists applies what it announced", "channel", redactURL(e.Channel),
			"changes", e.Changes, "problems", describeProblems(e.Problems))
	case engine.FollowDisconnected:
		p.log.Warn("notification channel dropped", "channel", redactURL(e.Channel), "error", errText(e.Err), "attempt", e.Attempt, "retry", e.Retry.String())
	case engine.FollowPolled:
		if e.Err == nil && e.Caught > 0 {
			p.log.Info("changes caught by a poll of the Change Lists: no notification brought them", "caught", e.Caught)
		}
	}
}

func followJSONOf(e engine.FollowEvent) followEventJSON {
	j := followEventJSON{Time: e.Time.UTC().Format(time.RFC3339Nano), Via: e.Via, Channel: e.Channel}
	problems := func() {
		for _, pr := range e.Problems {
			jp := jsonNotified{Severity: pr.Severity.String(), Rule: pr.Rule, Message: pr.Message}
			if pr.Entry >= 0 {
				n := pr.Entry
				jp.Entry = &n
			}
			j.Problems = append(j.Problems, jp)
		}
	}
	switch e.Type {
	case engine.FollowApplied:
		j.Event, j.URL, j.Change, j.Action, j.Path = "change", e.URI, strp(string(e.Change)), e.Action, e.Path
		j.Datetime = timeOrNull(e.Datetime)
	case engine.FollowFailed:
		j.Event, j.URL, j.Change = "failed", e.URI, strp(string(e.Change))
		j.Datetime = timeOrNull(e.Datetime)
		if f := e.Failure; f != nil {
			if j.URL == "" {
				j.URL = f.URL
			}
			j.Error, j.Kind, j.Path, j.Status, j.Rejected = strp(f.Error()), string(f.Kind), f.Path, f.Status, f.Rejected
		} else if e.Err != nil {
			j.Error = strp(e.Err.Error())
		}
	case engine.FollowNotified:
		j.Event, j.Changes = "notification", intp(e.Changes)
		problems()
	case engine.FollowRejected:
		j.Event, j.Changes = "rejected", intp(e.Changes)
		problems()
	case engine.FollowFramework:
		j.Event = "framework"
		for _, it := range e.Items {
			j.Documents = append(j.Documents, followDocJSON{URL: it.URL, Capability: string(it.Capability), Change: string(it.Change)})
		}
		problems()
	case engine.FollowConnected:
		j.Event, j.Reconnect = "connected", e.Reconnect
	case engine.FollowDisconnected:
		j.Event, j.Attempt = "disconnected", e.Attempt
		s := e.Retry.Seconds()
		j.RetrySeconds = &s
		j.Error = strp(errText(e.Err))
	case engine.FollowPolled:
		j.Event = "poll"
		if e.Err != nil {
			j.Error = strp(e.Err.Error())
			break
		}
		r := e.Result
		j.Created, j.Updated, j.Deleted, j.PendingDeletes = intp(r.Created), intp(r.Updated), intp(r.Deleted), intp(r.Pending)
		j.Caught, j.FailedCount, j.Lists = intp(e.Caught), intp(r.FailedCount), intp(len(r.Plan.Lists))
		for _, a := range r.Plan.ArchivedLists {
			j.ArchivedLists = append(j.ArchivedLists, syncArchJSON{URL: a.URL, Kind: a.Kind, Archive: a.Archive, From: timeOrNull(a.From), Until: timeOrNull(a.Until)})
		}
		j.SyncedUntil = timeOrNull(r.SyncedUntil)
		if r.Plan.Gap != nil {
			j.Gap = strp(r.Plan.Gap.String())
		}
		j.Stopped = strp(r.Stopped)
	default:
		j.Event = string(e.Type)
	}
	return j
}

// text writes one event for people.
func (p *followPrinter) text(e engine.FollowEvent) error {
	st := p.st
	at := e.Time.Local().Format("15:04:05")
	var err error
	switch e.Type {
	case engine.FollowApplied:
		line := fmt.Sprintf("%s  %-12s  %-10s  %s", at, e.Via, e.Action, esc(e.URI))
		if e.Path != "" && e.Action != "remembered" {
			line += st.dim(" → " + esc(e.Path))
		}
		if e.Via == engine.ViaPoll {
			line += "  " + st.warn("(caught by the poll: no notification brought it)")
		}
		_, err = fmt.Fprintln(p.w, line)
	case engine.FollowFailed:
		what := ""
		if e.Err != nil {
			what = e.Err.Error()
		}
		url := e.URI
		line := ""
		if f := e.Failure; f != nil {
			what = f.Error()
			if url == "" {
				url = f.URL
			}
			if f.Rejected != "" {
				line = " (rejected bytes kept in " + esc(f.Rejected) + ")"
			}
		}
		_, err = fmt.Fprintf(p.w, "%s  %s %-10s  %s: %s%s\n", at, st.err("✗"), e.Via, esc(url), esc(what), line)
	case engine.FollowRejected:
		_, err = fmt.Fprintf(p.w, "%s  %s rejected a notification of %s, not applied (the next poll applies what it announced): %s\n",
			at, st.err("✗"), esc(e.Channel), describeProblems(e.Problems))
	case engine.FollowNotified:
		if len(e.Problems) > 0 {
			_, err = fmt.Fprintf(p.w, "%s  %s a notification of %s (%s): %s\n", at, st.warn("!"), esc(e.Channel),
				display.Plural(e.Changes, "change", "changes"), describeProblems(e.Problems))
		}
	case engine.FollowFramework:
		var docs []string
		for _, it := range e.Items {
			docs = append(docs, esc(it.URL)+" "+esc(string(it.Change)))
		}
		fmt.Fprintf(p.errw, "%s  %s %s\n", at, p.est.dim("framework:"), strings.Join(docs, ", "))
	case engine.FollowConnected:
		what := "connected"
		if e.Reconnect {
			what = "reconnected"
		}
		fmt.Fprintf(p.errw, "%s  %s %s\n", at, p.est.dim(what), esc(e.Channel))
	case engine.FollowDisconnected:
		fmt.Fprintf(p.errw, "%s  %s %s: %s; reconnecting in %s\n", at, p.est.warn("dropped"), esc(e.Channel), esc(errText(e.Err)), e.Retry.Round(time.Millisecond))
	case engine.FollowPolled:
		if e.Err != nil {
			_, err = fmt.Fprintf(p.w, "%s  %s poll: %s; tried again at the next interval\n", at, st.err("✗"), esc(e.Err.Error()))
			break
		}
		r := e.Result
		mark := st.rule("✓")
		if !r.OK() {
			mark = st.err("✗")
		}
		line := fmt.Sprintf("%s  %s poll: %s read, %s caught, %s failed; synced until %s", at, mark,
			display.Plural(len(r.Plan.Lists), "list", "lists"), display.Count(e.Caught), display.Count(r.FailedCount), datetimeOrNone(r.SyncedUntil))
		if n := len(r.Plan.ArchivedLists); n > 0 {
			line += fmt.Sprintf("; %s from the archive", display.Plural(n, "list", "lists"))
		}
		if r.Plan.Gap != nil {
			line += "; gap: " + r.Plan.Gap.String()
		}
		for _, pr := range r.Plan.Problems {
			line += "; " + esc(pr.Error())
		}
		_, err = fmt.Fprintln(p.w, line)
	}
	return err
}

func describeProblems(ps []model.Problem) string {
	var parts []string
	for _, pr := range ps {
		parts = append(parts, pr.Severity.String()+" "+pr.Rule+": "+esc(pr.Message))
	}
	return strings.Join(parts, "; ")
}

// writeJSONLine writes v as one line of JSON Lines, escaped as writeJSON
// escapes.
func writeJSONLine(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // (Encode ends the line)
		return err
	}
	_, err := w.Write(display.EscapeJSON(b.Bytes()))
	return err
}
