package fleet

import (
	"context"
	"errors"
	"slices"
	"time"

	"rsx/dest/engine"
	"rsx/dest/job"
	"rsx/notify"
)

// Following a fleet (rsx sync --sources FILE --follow): every Source that
// offers a notification channel is subscribed to, and a change
// notification brings a run of that Source (through the runner, as in a
// round: recorded in its DEST's history) that applies the notifications'
// changes (engine.Dest.PlanNotified), or, when they cannot be trusted to
// be all that changed (a gap, errors, out of order, a framework
// notification, entries without a change type or datetime), reads the
// Change Lists as a poll does. Notifications that arrive close together,
// or while the Source runs, bring one run, not one each. A run that reads
// the Source's Capability List tells which channels it advertises now: a
// Source whose channels changed is subscribed to them anew. A Source that
// offers no channel is polled: it runs every Every (or its own every).
// Every Source runs at least that often, the channels' too: the Change
// Lists are the record, and a notification can be lost without the
// connection dropping. A channel that drops reconnects with back-off
// (notify.Watch), and a catch-up run follows the reconnection, since what
// was notified meanwhile is lost. The limits of a round hold: parallel runs
// at most, never two of one host, nor two of one DEST, at once, and no run
// holds a DEST longer than the hold bound while another Source is due on
// it.

// Defaults of following a fleet.
const (
	DefaultFollowEvery = time.Hour
	DefaultDebounce    = 2 * time.Second
	DefaultReread      = time.Minute
	// firstConnectWait bounds how long a Source's first run waits for its
	// channels' first attempts to connect.
	firstConnectWait = 30 * time.Second
)

// Why a followed Source runs (FollowRun.Reason).
const (
	ReasonStart        = "start"        // the first run, once its channels are up
	ReasonNotification = "notification" // a notification arrived
	ReasonReconnected  = "reconnected"  // a channel is up again: what it missed is caught up
	ReasonPoll         = "poll"         // its every passed
	ReasonContinued    = "continued"    // the hold bound cut its run short: it continues
)

// Channels finds a Source's notification channels and watches them (the
// command line's are notify's, with its HTTP options; tests give fakes).
type Channels interface {
	// Find looks for the channels j's Source advertises; an error wrapping
	// notify.ErrNoChannels says it advertises none.
	Find(ctx context.Context, j Job) ([]notify.Channel, error)
	// Watch subscribes to channels until ctx ends or stop is called; stop
	// ends the watch and drains its events.
	Watch(ctx context.Context, j Job, channels []notify.Channel) (events <-chan notify.Event, stop func())
}

// Found is what a lookup of a Source's channels found.
type Found struct {
	Channels []notify.Channel
	// Err says why none (notify.ErrNoChannels when none is advertised).
	Err error
	// Retry is when a lookup that failed is tried again (0: never).
	Retry time.Duration
	// Resubscribed: the channels changed, as a run read them in the
	// Capability List.
	Resubscribed bool
}

// FollowRun is a run of a followed Source that ended.
type FollowRun struct {
	*Run
	// Reason is why it ran (Reason…).
	Reason string
	// Notifications are those it answers.
	Notifications int
	// Interrupted: the fleet was stopped while it ran.
	Interrupted bool
}

// FollowReporter is told what a following fleet does, from its loop's
// goroutine, one call at a time.
type FollowReporter interface {
	// Following: the fleet begins with sources Sources.
	Following(sources int, every time.Duration, everyGiven bool, debounce time.Duration)
	// Channels: a lookup of j's channels ended (Found.Channels empty: it is
	// polled every j.Every).
	Channels(j Job, f Found)
	// Changed: j was "added" to or "removed" from the file.
	Changed(j Job, what string)
	// FileError: the file no longer reads; the last good list goes on.
	FileError(err error)
	// ChannelEvent: a channel of j connected or dropped; catchUp says a
	// run follows to catch up what it missed.
	ChannelEvent(j Job, e *notify.Event, catchUp bool)
	// Notification: a notification of j arrived; brings says it brings a
	// run, coalesced that one is due or under way already.
	Notification(j Job, e *notify.Event, brings, coalesced bool)
	// Ran: a run ended.
	Ran(r FollowRun)
	// Stopped: the fleet stops, after runs runs (failedRuns failed), the
	// last run of failedSources Sources failed.
	Stopped(cause error, runs, failedRuns, failedSources int)
}

// FollowOptions tune Follow.
type FollowOptions struct {
	// Every is the time between two runs of a Source without its own
	// every (the poll); EveryGiven says the caller gave it (else the
	// default).
	Every      time.Duration
	EveryGiven bool
	// Debounce is the wait after a notification before its run.
	Debounce time.Duration
	// Reread is the time between two readings of the file; default
	// DefaultReread.
	Reread time.Duration
	// Load reads the file: its Sources resolved, and the file for its
	// parallel and hold.
	Load     func() (*File, []Job, error)
	Channels Channels
	Report   FollowReporter
}

// maxPendingNotices bounds the notifications kept for one run: more make
// it read the Change Lists (engine's bound is lower).
const maxPendingNotices = 257

// followed is one Source of a fleet that follows, as the loop sees it.
type followed struct {
	job         Job
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

	// While it runs: when it started, how to stop it, and whether the hold
	// bound did.
	runStart time.Time
	cancel   context.CancelCauseFunc
	held     *Held
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
	found *Found
	event *notify.Event
}

// followEnded is a run that ended.
type followEnded struct {
	key      string
	run      *Run
	reason   string
	notified int
	n        *job.Notified
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

// followLoop is the state of a following fleet; only its loop goroutine
// touches it.
type followLoop struct {
	ctx      context.Context
	r        Runner
	o        FollowOptions
	parallel int
	hold     time.Duration
	order    []string // the keys in the file's order
	begun    bool     // the file was read once: a Source new after is said to be added
	sources  map[string]*followed
	busyHost map[string]bool
	busyDest map[string]*followed // the Source that holds each DEST
	running  int
	msgs     chan followMsg
	done     chan followEnded
	ended    chan struct{} // a watch ended
	active   int           // the watches that have not ended
	runs     int
	failed   int
}

// Follow follows every Source of the file until ctx is done; it returns
// how many Sources' last runs failed, or the file's error when it never
// read.
func Follow(ctx context.Context, r Runner, o FollowOptions) (int, error) {
	f, jobs, err := o.Load()
	if err != nil {
		return 0, err
	}
	if o.Reread <= 0 {
		o.Reread = DefaultReread
	}
	l := &followLoop{ctx: ctx, r: r, o: o, sources: map[string]*followed{}, busyHost: map[string]bool{},
		busyDest: map[string]*followed{}, msgs: make(chan followMsg), done: make(chan followEnded, 1), ended: make(chan struct{})}
	o.Report.Following(len(jobs), o.Every, o.EveryGiven, o.Debounce)
	l.update(f, jobs)
	reread := time.NewTicker(o.Reread)
	defer reread.Stop()
	wake := time.NewTimer(time.Hour)
	defer wake.Stop()
	for ctx.Err() == nil {
		now := time.Now()
		l.startDue(now)
		wait := 24 * time.Hour
		if next := l.nextDue(time.Now()); !next.IsZero() {
			wait = max(time.Until(next), 0)
		}
		wake.Reset(wait)
		select {
		case <-ctx.Done():
		case m := <-l.msgs:
			l.message(m)
		case e := <-l.done:
			l.runEnded(e)
		case <-l.ended:
			l.active--
		case <-reread.C:
			f, jobs, err := o.Load()
			if err != nil {
				o.Report.FileError(err)
				continue
			}
			l.update(f, jobs)
		case <-wake.C:
		}
	}
	// Stopping: the runs under way end as on SIGINT (their state stays
	// consistent: the next run continues where they stopped), the watches
	// close their connections.
	for _, s := range l.sources {
		s.stopWatch()
	}
	for l.running > 0 || l.active > 0 {
		select {
		case e := <-l.done:
			l.runEnded(e)
		case <-l.ended:
			l.active--
		case <-l.msgs: // a watch's last words
		}
	}
	bad := 0
	for _, k := range l.order {
		if s := l.sources[k]; s != nil && s.ran && s.lastStatus != job.ExitOK {
			bad++
		}
	}
	o.Report.Stopped(context.Cause(ctx), l.runs, l.failed, bad)
	return bad, nil
}

// startWatch looks for a Source's channels (given nil) or takes the
// channels given, and watches them.
func (l *followLoop) startWatch(s *followed, given []notify.Channel) {
	if s.stopWatch != nil {
		s.stopWatch() // its messages are stale from now on
	}
	wctx, cancel := context.WithCancel(l.ctx)
	s.stopWatch = cancel
	s.watch++
	l.active++
	go func(from followMsg, j Job) {
		l.watchChannels(wctx, from, j, given)
		l.ended <- struct{}{}
	}(followMsg{key: s.key, watch: s.watch}, s.job)
}

// update takes the file's Sources as they are now: new ones are added (and
// their channels looked for), those no longer there leave (a run under way
// ends first), the settings of the others change for their next run.
func (l *followLoop) update(f *File, jobs []Job) {
	l.parallel = f.Parallel
	if l.parallel <= 0 {
		l.parallel = 4
	}
	l.hold = f.HoldBound
	seen := map[string]bool{}
	var order []string
	for _, j := range jobs {
		if j.Every == 0 {
			j.Every = l.o.Every
		}
		key := j.Key()
		if seen[key] {
			continue
		}
		seen[key] = true
		order = append(order, key)
		if s, ok := l.sources[key]; ok {
			l.keep(s, j)
			continue
		}
		s := &followed{job: j, key: key, dkey: j.DestKey(), unsettled: map[string]bool{}}
		l.sources[key] = s
		if l.begun {
			l.o.Report.Changed(j, "added")
		}
		l.startWatch(s, nil)
	}
	for _, k := range l.order {
		if s := l.sources[k]; s != nil && !seen[k] && !s.removed {
			s.removed = true
			s.stopWatch()
			l.o.Report.Changed(s.job, "removed")
			if !s.running {
				delete(l.sources, k)
			}
		}
	}
	l.order, l.begun = order, true
}

// keep takes the settings j of a Source followed already.
func (l *followLoop) keep(s *followed, j Job) {
	if s.started && j.Every != s.job.Every {
		s.nextPoll = s.nextPoll.Add(j.Every - s.job.Every)
	}
	// A lookup of its channels that failed is tried again every every: a
	// new every looks again at once, and from then on at the new one.
	relook := !s.removed && s.lookedUp && s.lookupRetry && j.Every != s.job.Every
	s.job = j
	if relook {
		l.startWatch(s, nil)
	}
	if s.removed {
		// Back in the file before its last run ended: its channels are
		// looked for again, and it runs once they are.
		s.removed, s.lookedUp, s.channels, s.unsettled = false, false, nil, map[string]bool{}
		s.wanted, s.reason, s.notified, s.pending = time.Time{}, "", 0, nil
		s.started = false
		l.o.Report.Changed(j, "added")
		l.startWatch(s, nil)
	}
}

// watchChannels looks for the channels of one Source (or takes given,
// when not nil: those a run found in its Capability List) and watches them
// until ctx is done, telling the loop. A lookup that fails (not one that
// finds none) is tried again every every.
func (l *followLoop) watchChannels(ctx context.Context, from followMsg, j Job, given []notify.Channel) {
	send := func(m followMsg) bool {
		m.key, m.watch = from.key, from.watch
		select {
		case l.msgs <- m:
			return true
		case <-ctx.Done():
			return false
		}
	}
	var channels []notify.Channel
	if given != nil {
		channels = given
		f := &Found{Channels: channels, Resubscribed: true}
		if len(channels) == 0 {
			f.Err = notify.ErrNoChannels
		}
		if !send(followMsg{found: f}) || len(channels) == 0 {
			return
		}
	}
	for len(channels) == 0 {
		found, err := l.o.Channels.Find(ctx, j)
		if ctx.Err() != nil {
			return
		}
		var retry time.Duration
		if err != nil && !errors.Is(err, notify.ErrNoChannels) {
			retry = j.Every
		}
		channels = found
		if !send(followMsg{found: &Found{Channels: channels, Err: err, Retry: retry}}) {
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
	events, stop := l.o.Channels.Watch(ctx, j, channels)
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
		s.lookedUp, s.lookupRetry = true, f.Retry > 0
		s.channels = f.Channels
		for _, ch := range f.Channels {
			s.unsettled[ch.URL] = true
		}
		if first {
			s.want(now, ReasonStart)
			s.settleBy = now.Add(firstConnectWait)
		}
		l.o.Report.Channels(s.job, *f)
		return
	}
	e := m.event
	switch e.Type {
	case notify.EventConnected:
		delete(s.unsettled, e.Channel.URL)
		l.o.Report.ChannelEvent(s.job, e, s.started)
		if s.started {
			// Whatever was notified while the channel was not up is lost:
			// the Change Lists have it.
			s.want(now.Add(l.o.Debounce), ReasonReconnected)
		}
	case notify.EventDisconnected:
		delete(s.unsettled, e.Channel.URL)
		l.o.Report.ChannelEvent(s.job, e, false)
	case notify.EventNotification:
		// One with errors, even without entries (cut short), brings a run
		// that reads the Change Lists: what it was to say is lost.
		brings := len(e.Items) > 0 || e.Errors() > 0
		l.o.Report.Notification(s.job, e, brings, s.running || !s.wanted.IsZero())
		if brings {
			s.notified++
			if len(s.pending) < maxPendingNotices {
				s.pending = append(s.pending, *e)
			}
			s.want(now.Add(l.o.Debounce), ReasonNotification)
		}
	}
}

// startDue starts the runs that are due and may start, the longest due
// first. A due run held back by a run that has held its DEST longer than
// the hold bound stops that run.
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
		if h := l.busyDest[s.dkey]; h != nil {
			l.bound(h, now)
			continue
		}
		if l.running >= l.parallel || l.busyHost[s.job.Host] {
			continue
		}
		l.start(s, now)
	}
}

// bound stops h, which holds a DEST a due Source waits for, once it has
// held it longer than the hold bound.
func (l *followLoop) bound(h *followed, now time.Time) {
	if l.hold <= 0 || h.held != nil || now.Sub(h.runStart) < l.hold {
		return
	}
	var waiting []string
	for _, k := range l.order {
		s := l.sources[k]
		// A Source whose run the bound cut had its turn: it waits.
		if s != h && s.dkey == h.dkey && s.reason != ReasonContinued {
			if d := s.due(); !d.IsZero() && !d.After(now) {
				waiting = append(waiting, s.job.Name())
			}
		}
	}
	if len(waiting) == 0 {
		return
	}
	slices.Sort(waiting)
	h.held = &Held{Bound: l.hold, Waiting: waiting}
	h.cancel(&engine.StopReason{Reason: holdReason(l.hold, waiting)})
}

// start starts s's run.
func (l *followLoop) start(s *followed, now time.Time) {
	// A run answers every notification that came before it starts.
	reason, notified := ReasonPoll, s.notified
	if !s.wanted.IsZero() {
		reason = s.reason
	}
	// The notifications are applied by a run they brought; any other run
	// (a poll, a catch-up) reads the Change Lists, which hold them.
	n := &job.Notified{Covered: s.covered}
	if reason == ReasonNotification {
		n.Events = s.pending
	}
	s.wanted, s.reason, s.notified, s.pending = time.Time{}, "", 0, nil
	s.running, s.started, s.held = true, true, nil
	s.nextPoll = now.Add(s.job.Every)
	s.runStart = now
	l.running++
	l.busyHost[s.job.Host], l.busyDest[s.dkey] = true, s
	ctx, cancel := context.WithCancelCause(l.ctx)
	s.cancel = cancel
	go func(key string, j Job) {
		run := runJob(ctx, l.r, j, n)
		cancel(nil)
		l.done <- followEnded{key: key, run: run, reason: reason, notified: notified, n: n}
	}(s.key, s.job)
}

// nextDue is the earliest time after now a Source's run is due, or a run
// reaches the hold bound while a Source waits for its DEST (zero: none).
// Runs due already but held by the limits start when a run ends.
func (l *followLoop) nextDue(now time.Time) time.Time {
	var next time.Time
	at := func(d time.Time) {
		if !d.IsZero() && d.After(now) && (next.IsZero() || d.Before(next)) {
			next = d
		}
	}
	for _, k := range l.order {
		s := l.sources[k]
		at(s.due())
		if d := s.due(); !d.IsZero() && !d.After(now) && l.hold > 0 {
			if h := l.busyDest[s.dkey]; h != nil && h.held == nil {
				at(h.runStart.Add(l.hold))
			}
		}
	}
	return next
}

// runEnded takes a run that ended.
func (l *followLoop) runEnded(e followEnded) {
	l.running--
	s := l.sources[e.key]
	if s == nil {
		return
	}
	s.running = false
	l.busyHost[s.job.Host] = false
	if l.busyDest[s.dkey] == s {
		delete(l.busyDest, s.dkey)
	}
	run := e.run
	run.Held = s.held
	interrupted := l.ctx.Err() != nil && run.ExitStatus() == job.ExitFailure
	switch {
	case interrupted:
	case s.held != nil:
		// Cut short, not failed: its next run says how it ends.
		l.runs++
	default:
		l.runs++
		s.ran, s.lastStatus = true, run.ExitStatus()
		if s.lastStatus != job.ExitOK {
			l.failed++
		}
	}
	l.o.Report.Ran(FollowRun{Run: run, Reason: e.reason, Notifications: e.notified, Interrupted: interrupted})
	run.close()
	if s.removed {
		delete(l.sources, e.key)
		return
	}
	if s.held != nil {
		// Cut short for the Sources that waited: it continues after them.
		s.want(time.Now(), ReasonContinued)
	}
	if run.Sync == nil || !run.Sync.Notified.Planned {
		return
	}
	out := run.Sync.Notified
	if run.ExitStatus() == job.ExitOK {
		// Every change up to there is in the copy: the next notification
		// that carries its period must begin no later. A run that read the
		// Change Lists instead read them after the notifications it
		// answers were sent, and a Source lists a change before it
		// notifies it: their periods are in the copy too.
		until := out.Until
		if out.Applied == 0 {
			for _, ev := range e.n.Events {
				if ev.Until.OK && ev.Until.Time.After(until) {
					until = ev.Until.Time
				}
			}
		}
		if until.After(s.covered) {
			s.covered = until
		}
	}
	// The run read the Capability List: the channels it advertises now are
	// those followed.
	if s.lookedUp && !sameChannels(out.Channels, s.channels) {
		given := out.Channels
		if given == nil {
			given = []notify.Channel{}
		}
		l.startWatch(s, given)
	}
}
