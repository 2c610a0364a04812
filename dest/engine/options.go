package engine

import (
	"context"
	"fmt"
	"time"

	"rsx/dest/plan"
	"rsx/dest/state"
	"rsx/dest/store"
	"rsx/fetch"
	"rsx/internal/version"
)

// Mode is the kind of sync to plan.
type Mode string

const (
	// ModeAuto is a baseline when the destination has no finished baseline of
	// the Source (or the selection changed), an incremental sync after.
	ModeAuto        Mode = "auto"
	ModeBaseline    Mode = "baseline"
	ModeIncremental Mode = "incremental"
)

// ParseMode reads a --mode value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeAuto, ModeBaseline, ModeIncremental:
		return m, nil
	case "":
		return ModeAuto, nil
	}
	return "", fmt.Errorf("mode %q: want auto, baseline or incremental", s)
}

// From is where a baseline or the changes come from.
type From string

const (
	FromDefault From = ""     // a list, or a dump when the Source offers only a dump
	FromList    From = "list" // Resource List, Change List (or their indexes)
	FromDump    From = "dump" // Resource Dump, Change Dump (or their indexes)
)

// ParseFrom reads a --baseline-from or --changes-from value.
func ParseFrom(s string) (From, error) {
	switch f := From(s); f {
	case FromDefault, FromList, FromDump:
		return f, nil
	}
	return "", fmt.Errorf("%q: want list or dump", s)
}

// Client is what the engine fetches with; *fetch.Client is one. When it
// also has SetCrawlDelay (crawl.CrawlDelayer), robots.txt's Crawl-delay is
// honoured.
type Client interface {
	fetch.Getter
	fetch.Downloader
}

// HeldStep is how many more resources held Options.Held hears of at a time.
const HeldStep = 1 << 16

// Options configure a Dest.
type Options struct {
	// Version names the program in the run history (state.Run.Version);
	// default: version.Program(), the CLI's own ("rsx 0.1.0-dev"), so that
	// the explorer's runs and rsx sync's record the same.
	Version string
	// Host names the process in the run history (state.Run.Host): its
	// host id; default store.DefaultHostID() (HOSTNAME:PID).
	Host string
	// Concurrency is how many resources are fetched and written at once;
	// default 16. The client's per-host limits apply on top: more workers
	// than a host's slots let some write (fsync) while others download.
	Concurrency int
	// ListConcurrency is how many documents (Resource List parts, dump
	// packages) are read at once; default 4.
	ListConcurrency int
	// IgnoreCrawlDelay does not read robots.txt for a Crawl-delay.
	IgnoreCrawlDelay bool
	// MaxCrawlDelay caps a robots.txt Crawl-delay; default 30s.
	MaxCrawlDelay time.Duration
	// UserAgent picks the robots.txt group; default "rsx".
	UserAgent string
	// Progress receives the progress of planning and of a run, about
	// ProgressInterval apart and at each failure; it must not block long.
	Progress func(Progress)
	// Held, when set, hears how many resources an incremental plan holds a
	// change of, each time they pass another HeldStep: what the plan keeps
	// in memory grows with them (up to 72 bytes each), not with the state.
	Held func(resources int)
	// ProgressInterval is how often Progress is called; default 100ms.
	ProgressInterval time.Duration
	// StateBatch and StateDelay bound a batch of the state (see
	// state.WriterOptions); by default 1000 changes or 5 s for a folder,
	// 20000 changes or 60 s for a bucket, whose whole state file is uploaded
	// after each batch.
	StateBatch int
	StateDelay time.Duration
	// MaxConsecutiveErrors stops a run after this many resources in a row
	// failed without an HTTP response (the Source stopped answering);
	// default 100.
	MaxConsecutiveErrors int
	// MaxSize bounds the body of a resource that declares no length: one
	// longer fails, and nothing of it is kept; default DefaultMaxSize,
	// negative for no bound. A declared length bounds the body by itself
	// (reading stops claims.DefaultMargin past it).
	MaxSize int64
	// StallTimeout fails a resource whose body brings less than StallRate
	// bytes a second over this long (nothing at all, or a drip); default
	// DefaultStallTimeout.
	StallTimeout time.Duration
	// ResourceTimeout bounds each resource's whole fetch (redirects,
	// retries and body), and each dump package's; 0: the default, scaled
	// by the declared length (DefaultResourceFloor, DefaultResourceRate);
	// NoResourceTimeout (negative): none, the stall timeout alone.
	ResourceTimeout time.Duration
	// Now is the clock (tests); default time.Now.
	Now func() time.Time

	// heldStep replaces HeldStep (tests set fewer).
	heldStep int
	// partsInMemory is how many parts of a Resource List Index a plan
	// keeps in memory before it spools them to a file; default
	// partsInMemory (tests set fewer).
	partsInMemory int
	// listsInMemory is how many Change Lists of an index a plan keeps in
	// memory at a time (of the lists read, the first it lists in
	// Plan.Lists; of each spool of lists, a run): default 0, maxListed and
	// the spool's run (tests set fewer).
	listsInMemory int
	// resourceFloor and resourceRate replace DefaultResourceFloor and
	// DefaultResourceRate in the default bound of a resource's fetch
	// (tests, which cannot wait ten minutes).
	resourceFloor time.Duration
	resourceRate  float64
	// listRead, when set, is called by a baseline plan once it has read the
	// Source's Resource List (or Dump) and before it decides the deletions
	// and the collisions, and by an incremental plan once it has read the
	// Change Lists and before it decides the changes: the tests measure
	// there what planning holds.
	listRead func()
	// findPaths, when set, replaces the state's look-up of paths
	// (state.DB.FindPaths) in an audit's search for extra files: the
	// tests make it fail.
	findPaths func(ctx context.Context, paths []string, found func(int) error) error
}

func (o Options) withDefaults() Options {
	if o.Concurrency <= 0 {
		o.Concurrency = 16
	}
	if o.ListConcurrency <= 0 {
		o.ListConcurrency = 4
	}
	if o.partsInMemory <= 0 {
		o.partsInMemory = partsInMemory
	}
	if o.heldStep <= 0 {
		o.heldStep = HeldStep
	}
	if o.MaxCrawlDelay <= 0 {
		o.MaxCrawlDelay = 30 * time.Second
	}
	if o.UserAgent == "" {
		o.UserAgent = "rsx"
	}
	if o.ProgressInterval <= 0 {
		o.ProgressInterval = 100 * time.Millisecond
	}
	if o.MaxConsecutiveErrors <= 0 {
		o.MaxConsecutiveErrors = 100
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Version == "" {
		o.Version = version.Program()
	}
	if o.Host == "" {
		o.Host = store.DefaultHostID()
	}
	if o.MaxSize == 0 {
		o.MaxSize = DefaultMaxSize
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = DefaultStallTimeout
	}
	if o.ResourceTimeout < 0 {
		o.ResourceTimeout = NoResourceTimeout
	}
	return o
}

// PlanOptions say what to plan.
type PlanOptions struct {
	Mode         Mode
	BaselineFrom From
	ChangesFrom  From
	// Selection replaces the stored selection (--include, --exclude, --map)
	// when not nil; nil applies the stored one.
	Selection *state.Selection
	// Delete applies deletions; without it they are remembered. With it,
	// a plan that looks for stray files (a reconcile, or after an audit
	// found some: stray.go) moves them to the trash.
	Delete bool
	// LimitDeletes bounds the deletions of a plan with Delete, as rclone's
	// and rsync's --max-delete do: when more than MaxDelete resources and
	// stray files together would go, none does (the deletions are
	// remembered, the stray files stay, Plan.DeletesHeld counts them) and
	// the run fails; the rest of the plan is carried out.
	LimitDeletes bool
	MaxDelete    int
	// Strays, when not nil, are the stray files an audit found (paths of
	// DEST: the explorer's audit page): a plan with Delete moves those of
	// them still stray to the trash, instead of listing the Source's part
	// for them, whatever Only limits the plan to.
	Strays []string
	// AllowOtherHosts copies resources outside the Source's authority (the
	// hosts of its Capability List and of the URL given).
	AllowOtherHosts bool
	// Only, when not nil, limits the plan to these resources (those picked
	// in the explorer, or those an audit found different): the Source is
	// read as usual, but the others are neither fetched nor deleted, only
	// counted (Summary.NotChosen). Such a run copies part of the Source: it
	// neither finishes a baseline nor records Change Lists nor moves the
	// copy's point, so that the next full sync still does all of them (and
	// finds the part this run copied current).
	Only *plan.URISet
	// OtherSources are the URLs (Capability Lists) the caller names the
	// other Sources of the destination by: a fleet's other entries. A
	// target whose way to its Capability List meets one of them (a
	// redirect, an up link that claims it) is refused with an
	// *IdentityError (identity.go), before that Source has a copy.
	OtherSources []string
	// Checksum makes a reconcile hash every file of the copy against the
	// digests recorded and those the Source declares, not only look at
	// those whose length or modification time changed; in ModeAuto it
	// makes the plan a reconcile.
	Checksum bool
}

// Phase is what a session is doing.
type Phase string

const (
	PhaseReading  Phase = "reading"  // the Source's documents, while planning
	PhaseSyncing  Phase = "syncing"  // fetching and writing resources
	PhaseFinished Phase = "finished" // the run is over
)

// Progress is a snapshot of a plan or a run.
type Progress struct {
	Phase     Phase
	Documents int   // documents read (lists, parts, packages)
	Entries   int64 // entries read from them
	// Total is the resources the run has to create, update or delete;
	// Done of them are done (Failed included).
	Total, Done, Failed int
	// Bytes written so far; TotalBytes is the declared length of what is to
	// be fetched (resources without a declared length count 0).
	Bytes, TotalBytes int64
	Rate              float64       // resources a second, over the last seconds
	ByteRate          float64       // bytes a second, likewise
	Elapsed           time.Duration // since the run began
	Remaining         time.Duration // estimated; 0 when unknown
	InFlight          []string      // URIs being fetched or written
	// Failure is the failure that caused this report, nil in the regular
	// reports.
	Failure *Failure
}

// progressFunc calls f when it is set.
func (o Options) report(p Progress) {
	if o.Progress != nil {
		o.Progress(p)
	}
}

// ctxErr returns ctx's error, wrapped with what was being done.
func ctxErr(ctx context.Context, what string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
