// Package job is the one way into the engine for a sync of a Source into a
// destination and for an audit of a copy. The command line (rsx sync, rsx
// audit --dest), the explorer's sync and audit pages and the fleet (rsx
// sync --sources, the explorer's fleet page) each turn what they are given
// into a request (SyncRequest, AuditRequest), and a Runner opens the
// destination and the engine on it the same way for all of them: named
// destinations and their credentials, the HTTP client with the Source's
// own politeness, the soft memory limit, the number of resources worked on
// at once, what opening DEST made removed when the run did not start, the
// version recorded in the run history. What comes back is typed (the
// engine's plan and result, SyncResult, AuditResult) and progress is a
// callback of values: nothing here writes to a terminal or knows of flags.
package job

import (
	"time"

	"rsx/dest/engine"
	"rsx/dest/state"
	"rsx/notify"
)

// Limits are a Source's politeness towards its host: requests a second
// (0: unlimited) and requests in flight at once. A nil field keeps what
// the Runner's HTTP options give (the command line's --rate and
// --concurrency, else the policy by kind of host: fetch.Options.Near).
type Limits struct {
	Rate        *float64
	Concurrency *int
}

// SyncRequest is a sync of one Source into one destination.
type SyncRequest struct {
	// Target is the Source's Capability List, or a document below it (the
	// engine finds the Source from it).
	Target string
	// Dest is the destination as the user gave it: a folder,
	// s3://bucket/prefix?…, or NAME: of the configuration file (the
	// Runner's Resolve turns it into one of the first two).
	Dest string

	Mode         engine.Mode // "" is engine.ModeAuto
	BaselineFrom engine.From
	ChangesFrom  engine.From
	// Selection replaces the stored selection (--include, --exclude, --map)
	// when not nil (an empty one drops it: --clear-selection); nil applies
	// the stored one.
	Selection       *state.Selection
	Delete          bool
	Checksum        bool
	DryRun          bool
	AllowOtherHosts bool
	// IgnoreCrawlDelay does not read robots.txt for a Crawl-delay.
	IgnoreCrawlDelay bool
	// LimitDeletes bounds the deletions of a run with Delete (resources
	// and stray files together) by MaxDelete: past it none is made and the
	// run fails (--max-delete; engine.PlanOptions.LimitDeletes).
	LimitDeletes bool
	MaxDelete    int
	// Strays, when not nil, are the stray files an audit found (paths of
	// DEST): a plan with Delete moves those still stray to the trash
	// without looking again (engine.PlanOptions.Strays).
	Strays []string

	// Limits are the Source's own politeness (a fleet entry's rate and
	// concurrency); the Runner builds the client with them.
	Limits Limits
	// The bounds of each resource's fetch (engine.Options): MaxSize (0:
	// the default, negative: none), StallTimeout (0: the default),
	// ResourceTimeout (0: the default scaled by the declared length;
	// engine.NoResourceTimeout: none).
	MaxSize         int64
	StallTimeout    time.Duration
	ResourceTimeout time.Duration

	// Only, when not nil, limits the sync to these resources (those marked
	// in the explorer, or those an audit found different): a partial copy
	// (engine.PlanOptions.Only).
	Only []string
	// Notified, when it carries events, are change notifications to apply
	// alone when they can be trusted to be all that changed
	// (engine.Dest.PlanNotified); else the Change Lists are read, as
	// always, and SyncResult.Notified.Fallback says why.
	Notified *Notified
	// OtherSources are the Capability List URLs of the other Sources the
	// caller keeps (a fleet's other entries): the settings of this request
	// apply to Target's Source only, and a Capability List that redirects
	// to, or claims through its up links, one of these is another
	// Source's, refused by the engine's plan (its Sources-apart option).
	OtherSources []string
	// OnceSince, when not zero, makes the sync one process's turn at a
	// Source whose rounds several processes share (rsx sync --sources
	// --every on several machines: docs/fleet.md). Once DEST is held (its
	// lock: no two runs of it at once), its history is read: when it has
	// a run of the Source that started after OnceSince, by another
	// process than OnceExcept (a host id; "": any), and that is the
	// round's run (RoundRun: not interrupted, nor killed), the sync does
	// not run, and SyncResult.RanElsewhere is that run.
	OnceSince  time.Time
	OnceExcept string

	// Progress, when set, receives the plan's and the run's progress
	// (engine.Options.Progress); it must not block long.
	Progress func(engine.Progress)
}

// Notified are the change notifications a run answers, and how far those
// applied before carry the copy beyond its point.
type Notified struct {
	Events  []notify.Event
	Covered time.Time
}

// NotifiedOutcome is what a run made of its notifications.
type NotifiedOutcome struct {
	// Planned: a plan was made (the fields below are known).
	Planned bool
	// Channels are the notification channels the Capability List
	// advertises.
	Channels []notify.Channel
	// Applied is the notifications applied alone (0: the Source's lists
	// were read).
	Applied int
	// Until is how far the notifications carry the copy (zero: no further
	// than its point).
	Until time.Time
	// Fallback says why the notifications given were not applied alone.
	Fallback string
}

// Via is how the run brought the copy up to date: "notifications" (applied
// alone), "lists" (the Source's lists), or "" when it made no plan.
func (n NotifiedOutcome) Via() string {
	switch {
	case !n.Planned:
		return ""
	case n.Applied > 0:
		return "notifications"
	}
	return "lists"
}

// AuditRequest is an audit of the copy of one Source in one destination
// (rsx audit --dest): the copy against the Source's current state.
type AuditRequest struct {
	Target string
	Dest   string
	// AllowOtherHosts compares the resources outside the Source's
	// authority too, as a sync with --allow-other-hosts copies them.
	AllowOtherHosts bool
	// Limits are the Source's own politeness (a fleet entry's).
	Limits Limits
	// Only, when not nil, limits the comparison to these resources.
	Only []string
	// ListSame keeps the resources found the same in the report.
	ListSame bool
	// Keep, above 0, bounds the report's lists in memory
	// (engine.AuditOptions.Keep): the rest are spooled to a file.
	Keep int
	// RequireCopy refuses a DEST that holds no copy of the Source
	// (engine.NoCopyError, naming what it holds) instead of finding every
	// resource missing: the command line's audit, where a mistyped DEST or
	// URL is a usage error.
	RequireCopy bool
	// Wait, above 0, is how long to wait for DEST while another run holds
	// it (its lock: a sync that cron started before the audit), asking
	// again every second; OnWait, when set, is told once that it waits.
	// 0 refuses at once (a *store.LockedError).
	Wait   time.Duration
	OnWait func(dest, holder string, wait time.Duration)
	// OtherSources are the Capability List URLs of the other Sources the
	// caller names (a fleet's other entries), as SyncRequest's: an audit
	// whose URL leads to one of theirs is refused (engine.IdentityError)
	// rather than comparing another Source's copy under this entry's name.
	OtherSources []string
	// Progress, when set, receives the audit's progress.
	Progress func(engine.Progress)
}
