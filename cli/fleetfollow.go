package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"rsx/display"
	"rsx/fleet"
	"rsx/notify"
)

// rsx sync --sources FILE --follow: every Source of the fleet that offers
// a notification channel is subscribed to, and a change notification brings
// a run of that Source (its own rsx sync run, as in a round: recorded in
// its DEST's history) that applies the notifications' changes as rsx sync
// --follow does (engine.Dest.PlanNotified), or, when they cannot be
// trusted to be all that changed (a gap, errors, out of order, a framework
// notification, entries without a change type or datetime), reads the
// Change Lists as a poll does. Notifications that arrive close together,
// or while the Source runs, bring one run, not one each. A run that reads
// the Source's Capability List tells which channels it advertises now: a
// Source whose channels changed is subscribed to them anew. A Source that
// offers no channel is polled: it runs every --every (or its own every).
// Every Source runs at least that often, the channels' too: the Change
// Lists are the record, and a notification can be lost without the
// connection dropping. A channel that drops reconnects with back-off
// (notify.Watch), and a catch-up run follows the reconnection, since what
// was notified meanwhile is lost. The limits of a round hold: parallel runs
// at most, never two of one host, nor two of one DEST, at once.

// Defaults of following a fleet.
const (
	defaultFleetFollowEvery = time.Hour
	defaultFleetDebounce    = 2 * time.Second
	defaultFleetReread      = time.Minute
	// firstConnectWait bounds how long a Source's first run waits for its
	// channels' first attempts to connect.
	firstConnectWait = 30 * time.Second
)

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
	return defaultFleetReread
}

// Why a followed Source runs (the "reason" of its run line).
const (
	reasonStart        = "start"        // the first run, once its channels are up
	reasonNotification = "notification" // a notification arrived
	reasonReconnected  = "reconnected"  // a channel is up again: what it missed is caught up
	reasonPoll         = "poll"         // its every passed
)

// followed is one Source of a fleet that follows, as the loop sees it.
type followed struct {
	job         fleetJob
	key, dkey   string
	stopWatch   context.CancelFunc // ends the Source's channel lookup and watch
	watch       int                // the watch's number: a message of an earlier one is stale
	lookedUp    bool               // the lookup of its channels ended (once)
	lookupRetry bool               // the last lookup failed: it is tried again every every
	channels    []notify.Channel
	unsettled   map[string]bool // channels whose first attempt to connect has not ended: the first run waits for them
	settleBy    time.Time       // but not after this
	running     bool
	started     bool           // a run has started: a connection after it brings a catch-up run
	wanted      time.Time      // a run is wanted from then on (zero: only the poll's)
	reason      string         // why the wanted run
	notified    int            // notifications the wanted run answers
	pending     []notify.Event // the change notifications it answers, to apply (at most maxPendingNotices)
	covered     time.Time      // how far the notifications applied carry the copy beyond its point
	nextPoll    time.Time
	lastStatus  int  // the exit status of its last run that was not interrupted
	ran         bool // lastStatus is one
	removed     bool // gone from the file: dropped when its run ends
}

func (s *followed) name() string {
	if s.job.src.Name != "" {
		return s.job.src.Name
	}
	return s.job.src.URL
}

// due is when the Source's next run is due; zero while it runs or waits
// for its channels.
func (s *followed) due() time.Time {
	if s.running || s.removed || !s.lookedUp {
		return time.Time{}
	}
	if !s.started {
		// The first run waits for the first attempt of each channel to
		// connect, so that what changes during the run is notified; not
		// longer than settleBy (a WebSub hub that never verifies).
		d := s.wanted
		if len(s.unsettled) > 0 && d.Before(s.settleBy) {
			d = s.settleBy
		}
		return d
	}
	d := s.nextPoll
	if !s.wanted.IsZero() && s.wanted.Before(d) {
		d = s.wanted
	}
	return d
}

// want asks for a run at t, unless one is wanted already: notifications
// that come close together, or while the Source runs, bring one run.
func (s *followed) want(t time.Time, reason string) {
	if s.wanted.IsZero() {
		s.wanted, s.reason = t, reason
	}
}

// followMsg is what a Source's watch tells the loop: its lookup ended
// (found), or something happened on a channel (event).
type followMsg struct {
	key   string
	watch int // followed.watch of the watch that sends it
	found *followFound
	event *notify.Event
}

type followFound struct {
	channels     []notify.Channel
	err          error         // why none (notify.ErrNoChannels when none is advertised)
	retry        time.Duration // when the lookup is tried again (0: never)
	resubscribed bool          // the channels changed: a run read them in the Capability List
}

// followRun is a run that ended.
type followRun struct {
	key         string
	r           fleetResult
	reason      string
	notified    int
	interrupted bool
	n           *notifiedRun
}

// notifiedRun is what a run of a following fleet's Source is given (the
// notifications to apply, how far those applied before carry the copy),
// and what it tells back (runSync fills it in).
type notifiedRun struct {
	events  []notify.Event
	covered time.Time

	planned  bool             // a plan was made: the fields below are known
	channels []notify.Channel // the channels the Capability List advertises
	applied  int              // the notifications applied (0: the Change Lists were read)
	until    time.Time        // how far the notifications carry the copy (zero: no further than its point)
	fallback string           // why the notifications given were not applied alone
}

// maxPendingNotices bounds the notifications kept for one run: more make
// it read the Change Lists (engine's bound is lower).
const maxPendingNotices = 257

// via is how a run brought the copy up to date: "notifications" (applied
// alone), "lists" (the Source's lists: its Change Lists, or its Resource List
// for a baseline), or "" when it made no plan.
func (n *notifiedRun) via() string {
	switch {
	case n == nil || !n.planned:
		return ""
	case n.applied > 0:
		return "notifications"
	}
	return "lists"
}

// sameChannels reports whether a and b are the same channels, in any order.
func sameChannels(a, b []notify.Channel) bool {
	key := func(c notify.Channel) string { return string(c.Kind) + " " + c.URL }
	set := map[string]int{}
	for _, c := range a {
		set[key(c)]++
	}
	for _, c := range b {
		set[key(c)]--
	}
	for _, n := range set {
		if n != 0 {
			return false
		}
	}
	return true
}

// followLoop is the state of rsx sync --sources --follow; only its loop
// goroutine touches it.
type followLoop struct {
	a        *app
	ctx      context.Context
	command  string
	every    time.Duration // --every, or the default
	debounce time.Duration
	parallel int
	order    []string // the keys in the file's order
	begun    bool     // the file was read once: a Source new after is said to be added
	sources  map[string]*followed
	busyHost map[string]bool
	busyDest map[string]bool
	running  int
	msgs     chan followMsg
	done     chan followRun
	// startWatch looks for a Source's channels (given nil) or takes the
	// channels given, and watches them.
	startWatch func(s *followed, given []notify.Channel)
	pr         *fleetFollowPrinter
	runs       int
	failed     int
}

// fleetFollow follows every Source of file until ctx is done; everyGiven
// says whether every is --every's (else the default).
func (a *app) fleetFollow(ctx context.Context, command, file, cmdDest string, every time.Duration, everyGiven bool, debounce time.Duration, asJSON bool, extra []string) error {
	ff, err := fleet.Read(file)
	if err != nil {
		return failed(err)
	}
	jobs, err := fleetJobs(ff, command, cmdDest, extra)
	if err != nil {
		return failed(err)
	}
	l := &followLoop{a: a, ctx: ctx, command: command, every: every, debounce: debounce, parallel: ff.Parallel,
		sources: map[string]*followed{}, busyHost: map[string]bool{}, busyDest: map[string]bool{},
		msgs: make(chan followMsg), done: make(chan followRun, 1),
		pr: &fleetFollowPrinter{out: a.out, errw: a.err, json: asJSON, st: newTextStyles(useColor(a.out)), est: newTextStyles(useColor(a.err))}}
	l.pr.following(len(jobs), every, everyGiven, debounce)
	active := 0 // the watches that have not ended
	ended := make(chan struct{})
	l.startWatch = func(s *followed, given []notify.Channel) {
		if s.stopWatch != nil {
			s.stopWatch() // its messages are stale from now on
		}
		wctx, cancel := context.WithCancel(ctx)
		s.stopWatch = cancel
		s.watch++
		active++
		go func(key string, watch int, j fleetJob) {
			a.followSourceChannels(wctx, followMsg{key: key, watch: watch}, j, given, l.msgs)
			ended <- struct{}{}
		}(s.key, s.watch, s.job)
	}
	l.update(jobs, ff.Parallel)
	reread := time.NewTicker(a.fleetTimes.rereadEvery())
	defer reread.Stop()
	wake := time.NewTimer(time.Hour)
	defer wake.Stop()
	for ctx.Err() == nil {
		l.startDue(time.Now())
		wait := 24 * time.Hour
		if next := l.nextDue(time.Now()); !next.IsZero() {
			wait = max(time.Until(next), 0)
		}
		wake.Reset(wait)
		select {
		case <-ctx.Done():
		case m := <-l.msgs:
			l.message(m)
		case r := <-l.done:
			l.ended(r)
		case <-ended:
			active--
		case <-reread.C:
			ff, err := fleet.Read(file)
			if err == nil {
				jobs, err = fleetJobs(ff, command, cmdDest, extra)
			}
			if err != nil {
				l.pr.fileError(command, err)
				continue
			}
			l.update(jobs, ff.Parallel)
		case <-wake.C:
		}
	}
	// Stopping: the runs under way end as on SIGINT (their state stays
	// consistent: the next run continues where they stopped), the watches
	// close their connections.
	for _, s := range l.sources {
		s.stopWatch()
	}
	for l.running > 0 || active > 0 {
		select {
		case r := <-l.done:
			l.ended(r)
		case <-ended:
			active--
		case <-l.msgs: // a watch's last words
		}
	}
	bad := 0
	for _, k := range l.order {
		if s := l.sources[k]; s.ran && s.lastStatus != exitOK {
			bad++
		}
	}
	l.pr.stopped(command, context.Cause(ctx), l.runs, l.failed, bad)
	if err := l.pr.err; err != nil {
		return failed(fmt.Errorf("%s --sources --follow: write: %w", command, err))
	}
	if bad > 0 {
		return foundProblems()
	}
	return nil
}

// update takes the file's Sources as they are now: new ones are added (and
// their channels looked for), those no longer there leave (a run under way
// ends first), the settings of the others change for their next run.
func (l *followLoop) update(jobs []fleetJob, parallel int) {
	if parallel <= 0 {
		parallel = 4
	}
	l.parallel = parallel
	seen := map[string]bool{}
	var order []string
	for _, j := range jobs {
		if j.every == 0 {
			j.every = l.every
		}
		key := j.src.URL + "\x00" + j.dest
		if seen[key] {
			continue
		}
		seen[key] = true
		order = append(order, key)
		if s, ok := l.sources[key]; ok {
			if s.started && j.every != s.job.every {
				s.nextPoll = s.nextPoll.Add(j.every - s.job.every)
			}
			// A lookup of its channels that failed is tried again every
			// every: a new every looks again at once, and from then on
			// at the new one.
			relook := !s.removed && s.lookedUp && s.lookupRetry && j.every != s.job.every
			s.job = j
			if relook {
				l.startWatch(s, nil)
			}
			if s.removed {
				// Back in the file before its last run ended: its
				// channels are looked for again, and it runs once they are.
				s.removed, s.lookedUp, s.channels, s.unsettled = false, false, nil, map[string]bool{}
				s.wanted, s.reason, s.notified, s.pending = time.Time{}, "", 0, nil
				s.started = false
				l.pr.source(s, "added")
				l.startWatch(s, nil)
			}
			continue
		}
		s := &followed{job: j, key: key, dkey: filepath.Clean(j.dest), unsettled: map[string]bool{}}
		l.sources[key] = s
		if l.begun {
			l.pr.source(s, "added")
		}
		l.startWatch(s, nil)
	}
	for _, k := range l.order {
		if s := l.sources[k]; !seen[k] && !s.removed {
			s.removed = true
			s.stopWatch()
			l.pr.source(s, "removed")
			if !s.running {
				delete(l.sources, k)
			}
		}
	}
	l.order, l.begun = order, true
}

// followSourceChannels looks for the channels of one Source (or takes
// given, when not nil: those a run found in its Capability List) and
// watches them until ctx is done, telling the loop through msgs. A lookup
// that fails (not one that finds none) is tried again every every.
func (a *app) followSourceChannels(ctx context.Context, from followMsg, j fleetJob, given []notify.Channel, msgs chan<- followMsg) {
	send := func(m followMsg) bool {
		m.key, m.watch = from.key, from.watch
		select {
		case msgs <- m:
			return true
		case <-ctx.Done():
			return false
		}
	}
	client, err := a.http.client(j.src.URL)
	if err != nil {
		send(followMsg{found: &followFound{err: err}})
		return
	}
	var channels []notify.Channel
	if given != nil {
		channels = given
		f := &followFound{channels: channels, resubscribed: true}
		if len(channels) == 0 {
			f.err = notify.ErrNoChannels
		}
		if !send(followMsg{found: f}) || len(channels) == 0 {
			return
		}
	}
	for len(channels) == 0 {
		found, err := notify.Find(ctx, client, j.src.URL)
		if ctx.Err() != nil {
			return
		}
		var retry time.Duration
		if err != nil && !errors.Is(err, notify.ErrNoChannels) {
			retry = j.every
		}
		if found != nil {
			channels = found.Channels
		}
		if !send(followMsg{found: &followFound{channels: channels, err: err, retry: retry}}) {
			return
		}
		if len(channels) > 0 {
			break
		}
		if retry == 0 {
			return
		}
		t := time.NewTimer(retry)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
	events, stop := watchChannels(ctx, client, channels)
	defer stop()
	for e := range events {
		if !send(followMsg{event: &e}) {
			return
		}
	}
}

// message takes what a Source's watch says.
func (l *followLoop) message(m followMsg) {
	s := l.sources[m.key]
	if s == nil || s.removed || m.watch != s.watch {
		return
	}
	now := time.Now()
	if f := m.found; f != nil {
		first := !s.lookedUp
		s.lookedUp, s.lookupRetry = true, f.retry > 0
		s.channels = f.channels
		for _, ch := range f.channels {
			s.unsettled[ch.URL] = true
		}
		if first {
			s.want(now, reasonStart)
			s.settleBy = now.Add(firstConnectWait)
		}
		l.pr.channels(s, f)
		return
	}
	e := m.event
	switch e.Type {
	case notify.EventConnected:
		delete(s.unsettled, e.Channel.URL)
		l.pr.channelEvent(s, e, s.started)
		if s.started {
			// Whatever was notified while the channel was not up is lost:
			// the Change Lists have it.
			s.want(now.Add(l.debounce), reasonReconnected)
		}
	case notify.EventDisconnected:
		delete(s.unsettled, e.Channel.URL)
		l.pr.channelEvent(s, e, false)
	case notify.EventNotification:
		// One with errors, even without entries (cut short), brings a run
		// that reads the Change Lists: what it was to say is lost.
		brings := len(e.Items) > 0 || e.Errors() > 0
		l.pr.notification(s, e, brings, s.running || !s.wanted.IsZero())
		if brings {
			s.notified++
			if len(s.pending) < maxPendingNotices {
				s.pending = append(s.pending, *e)
			}
			s.want(now.Add(l.debounce), reasonNotification)
		}
	}
}

// startDue starts the runs that are due and may start, the longest due
// first.
func (l *followLoop) startDue(now time.Time) {
	var due []*followed
	for _, k := range l.order {
		s := l.sources[k]
		if d := s.due(); !d.IsZero() && !d.After(now) {
			due = append(due, s)
		}
	}
	slices.SortStableFunc(due, func(x, y *followed) int { return x.due().Compare(y.due()) })
	for _, s := range due {
		if l.running >= l.parallel || l.busyHost[s.job.host] || l.busyDest[s.dkey] {
			continue
		}
		// A run answers every notification that came before it starts.
		reason, notified := reasonPoll, s.notified
		if !s.wanted.IsZero() {
			reason = s.reason
		}
		// The notifications are applied by a run they brought; any other
		// run (a poll, a catch-up) reads the Change Lists, which hold them.
		n := &notifiedRun{covered: s.covered}
		if reason == reasonNotification {
			n.events = s.pending
		}
		s.wanted, s.reason, s.notified, s.pending = time.Time{}, "", 0, nil
		s.running, s.started = true, true
		s.nextPoll = now.Add(s.job.every)
		l.running++
		l.busyHost[s.job.host], l.busyDest[s.dkey] = true, true
		go func(key string, j fleetJob) {
			r := l.a.runOneNotified(l.ctx, j, n)
			interrupted := l.ctx.Err() != nil && r.ExitStatus == exitFailure
			l.done <- followRun{key: key, r: r, reason: reason, notified: notified, interrupted: interrupted, n: n}
		}(s.key, s.job)
	}
}

// nextDue is the earliest time after now a Source's run is due (zero:
// none). Runs due already but held by the limits start when a run ends.
func (l *followLoop) nextDue(now time.Time) time.Time {
	var next time.Time
	for _, k := range l.order {
		d := l.sources[k].due()
		if d.IsZero() || !d.After(now) {
			continue
		}
		if next.IsZero() || d.Before(next) {
			next = d
		}
	}
	return next
}

// ended takes a run that ended.
func (l *followLoop) ended(r followRun) {
	l.running--
	s := l.sources[r.key]
	if s == nil {
		return
	}
	s.running = false
	l.busyHost[s.job.host], l.busyDest[s.dkey] = false, false
	if !r.interrupted {
		l.runs++
		s.ran, s.lastStatus = true, r.r.ExitStatus
		if r.r.ExitStatus != exitOK {
			l.failed++
		}
	}
	l.pr.run(s, r)
	if s.removed {
		delete(l.sources, r.key)
		return
	}
	n := r.n
	if n == nil || !n.planned {
		return
	}
	if r.r.ExitStatus == exitOK {
		// Every change up to there is in the copy: the next notification
		// that carries its period must begin no later. A run that read
		// the Change Lists instead read them after the notifications it
		// answers were sent, and a Source lists a change before it
		// notifies it: their periods are in the copy too.
		until := n.until
		if n.applied == 0 {
			for _, e := range n.events {
				if e.Until.OK && e.Until.Time.After(until) {
					until = e.Until.Time
				}
			}
		}
		if until.After(s.covered) {
			s.covered = until
		}
	}
	// The run read the Capability List: the channels it advertises now
	// are those followed.
	if s.lookedUp && !sameChannels(n.channels, s.channels) {
		given := n.channels
		if given == nil {
			given = []notify.Channel{}
		}
		l.startWatch(s, given)
	}
}

// fleetFollowPrinter writes what a following fleet does: with --json one
// JSON object a line on standard output; else each run's line on standard
// output, the channels' comings and goings on standard error.
type fleetFollowPrinter struct {
	out, errw io.Writer
	json      bool
	st, est   textStyles
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

func (p *fleetFollowPrinter) event(kind string, s *followed) fleetEventJSON {
	e := fleetEventJSON{Event: kind, Time: time.Now().UTC().Format(time.RFC3339Nano)}
	if s != nil {
		e.Source, e.Name, e.Dest = s.job.src.URL, s.job.src.Name, s.job.dest
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

func (p *fleetFollowPrinter) following(n int, every time.Duration, given bool, debounce time.Duration) {
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

func (p *fleetFollowPrinter) channels(s *followed, f *followFound) {
	if p.json {
		e := p.event("channels", s)
		e.Resubscribed = f.resubscribed
		for _, ch := range f.channels {
			e.Channels = append(e.Channels, fleetChannelJSON{URL: ch.URL, Kind: string(ch.Kind)})
		}
		if len(f.channels) == 0 {
			e.Event = "polled"
			e.EverySeconds = secondsOf(s.job.every)
			if f.err != nil && !errors.Is(f.err, notify.ErrNoChannels) {
				e.Error = strp(f.err.Error())
			}
			if f.retry > 0 {
				e.RetryLookupSecond = secondsOf(f.retry)
			}
		}
		p.line(e)
		return
	}
	if len(f.channels) > 0 {
		var list []string
		for _, ch := range f.channels {
			list = append(list, esc(ch.URL)+" ("+string(ch.Kind)+")")
		}
		again := ""
		if f.resubscribed {
			again = " (its Capability List changed: subscribed anew)"
		}
		fmt.Fprintf(p.errw, "%s  %s: notifications from %s%s\n", clock(), esc(s.name()), strings.Join(list, ", "), again)
		return
	}
	why := "no notification channel"
	if f.resubscribed {
		why = "its Capability List advertises no notification channel any more"
	}
	if f.err != nil && !errors.Is(f.err, notify.ErrNoChannels) {
		why = "its notification channels could not be found (" + esc(f.err.Error()) + ")"
		if f.retry > 0 {
			why += "; looked for again in " + shortDuration(f.retry)
		}
	}
	fmt.Fprintf(p.errw, "%s  %s: %s: polled every %s\n", clock(), esc(s.name()), why, shortDuration(s.job.every))
}

func (p *fleetFollowPrinter) source(s *followed, what string) {
	if p.json {
		p.line(p.event(what, s))
		return
	}
	fmt.Fprintf(p.errw, "%s  %s: %s (the file changed)\n", clock(), esc(s.name()), what)
}

func (p *fleetFollowPrinter) fileError(command string, err error) {
	if p.json {
		e := p.event("file-error", nil)
		e.Error = strp(err.Error())
		p.line(e)
		return
	}
	fmt.Fprintf(p.errw, "rsx: %s --sources: %s; the last good list goes on\n", command, esc(err.Error()))
}

func (p *fleetFollowPrinter) channelEvent(s *followed, ev *notify.Event, catchUp bool) {
	if p.json {
		e := p.event(string(ev.Type), s)
		e.Channel, e.Kind, e.Reconnect, e.CatchUp = ev.Channel.URL, string(ev.Channel.Kind), ev.Reconnect, catchUp
		if ev.Type == notify.EventDisconnected {
			e.Attempt, e.RetrySeconds, e.Error = ev.Attempt, secondsOf(ev.Retry), strp(errText(ev.Err))
		}
		p.line(e)
		return
	}
	at, name := clock(), esc(s.name())
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

func (p *fleetFollowPrinter) notification(s *followed, ev *notify.Event, brings, coalesced bool) {
	if p.json {
		e := p.event("notification", s)
		e.Channel, e.Kind, e.Changes, e.Errors, e.Run = ev.Channel.URL, string(ev.Channel.Kind), intp(len(ev.Items)), intp(ev.Errors()), &brings
		p.line(e)
		return
	}
	what := display.Plural(len(ev.Items), "change", "changes")
	if ev.Kind() == notify.KindFramework {
		what = display.Plural(len(ev.Items), "document changed", "documents changed")
	}
	line := fmt.Sprintf("%s  %s: notified: %s (%s)", clock(), esc(s.name()), what, esc(ev.Channel.URL))
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

func (p *fleetFollowPrinter) run(s *followed, r followRun) {
	if p.json {
		j := fleetRunJSON{Event: "run", Time: time.Now().UTC().Format(time.RFC3339Nano), Reason: r.reason, Notifications: r.notified,
			Interrupted: r.interrupted, fleetResult: r.r}
		if r.n != nil {
			j.Via, j.Fallback = r.n.via(), r.n.fallback
		}
		p.line(j)
		return
	}
	why := r.reason
	switch {
	case r.interrupted:
		why = "interrupted: the next run continues where it stopped"
	case r.reason == reasonNotification:
		why = "after " + display.Plural(r.notified, "notification", "notifications")
		switch {
		case r.n.via() == "notifications":
			why += ": applied"
		case r.n != nil && r.n.fallback != "":
			why += "; the Change Lists read: " + esc(r.n.fallback)
		}
	case r.reason == reasonReconnected:
		why = "catch-up after a reconnection"
	}
	p.textOut("%s  %s %s\n", clock(), fleetLineText(p.st, r.r), p.st.dim("["+why+"]"))
}

func (p *fleetFollowPrinter) stopped(command string, cause error, runs, failedRuns, failedSources int) {
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
