package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"rsx/dest/engine"
	"rsx/dest/job"
	"rsx/dest/state"
	"rsx/display"
	"rsx/metrics"
	"rsx/model"
	"rsx/notify"
)

// syncFlags are the options of rsx sync.
type syncFlags struct {
	dest             string
	mode             string
	baselineFrom     string
	changesFrom      string
	include          []string
	exclude          []string
	maps             []string
	clearSelection   bool
	delete           bool
	checksum         bool
	dryRun           bool
	allowOtherHosts  bool
	ignoreCrawlDelay bool
	json             bool
	follow           bool
	pollInterval     time.Duration
	maxSize          byteSize
	stallTimeout     time.Duration
	resourceTimeout  resourceTimeoutFlag
	// maxDelete bounds the deletions of a run with --delete (-1: none);
	// trashKeep empties the trash's folders older than it at the start.
	maxDelete int
	trashKeep age
}

// errNoDest: rsx sync without --dest. A copy goes where it is told, never
// into the current folder by default (as rsync and rclone want a destination).
var errNoDest = errors.New("sync: no destination given: --dest DEST names the folder (e.g. --dest ./copy, or --dest . for the current folder) or the bucket (s3://bucket/prefix?endpoint=…) to copy into")

// syncLong is rsx sync --help's text: what it does, in a few lines, and
// where the rest is (rsx help sync-guide, docs/sync.md). The help stays
// short enough to read at once: flags and five examples (issue 36).
const syncLong = `Copy a Source's resources into DEST (a folder, an s3:// bucket, or NAME: of
rsx config) and keep the copy current: the first run copies every resource (a
baseline), later runs only the changes the Source's Change Lists announce.
Every file is verified against what the Source declares before it replaces
anything; nothing is deleted without --delete. URL is the Source's Capability
List, a document below it, or a page from which discovery finds one.

The examples use the demo Source: rsx serve --addr 127.0.0.1:8080 &
More: rsx help sync-guide (modes, repairing a copy, deletions, bounds, exit
status), rsx help sync-follow (--follow, --sources) and docs/sync.md.`

// syncExamples: the five of rsx sync --help.
const syncExamples = `  rsx sync --dest ./copy http://127.0.0.1:8080/dataset1/capabilitylist.xml             # the first run: every resource
  rsx sync --dest ./copy --delete http://127.0.0.1:8080/dataset1/capabilitylist.xml    # later: the changes, deletions applied
  rsx sync --dest ./copy --checksum http://127.0.0.1:8080/dataset1/capabilitylist.xml  # repair: hash every file, fetch what differs
  rsx sync --dest ./images --include '\.png$' --dry-run http://127.0.0.1:8080/dataset2/capabilitylist.xml   # the plan, nothing written
  rsx sync --sources fleet.toml --every 6h   # every Source of the file, every 6 hours, until ctrl-c`

// syncFollow opens rsx help sync-follow; the fleet's paragraphs follow.
const syncFollow = `Keeping copies current (rsx sync --help lists the flags; docs/sync.md and
docs/fleet.md say more).

rsx sync --follow keeps the copy current after its run, until interrupted:
the changes of the Source's change notifications are applied as they arrive
(a line each), and the Change Lists are polled every --poll-interval (default
5m) as the record; a change no notification brought (a lost push) is applied
by the poll and reported as caught. A notification with errors is reported and not
applied. With --json, standard output is JSON Lines: the catch-up's sync
object, one object per event, the whole run's sync object at the end.

  rsx sync --dest ./copy --follow http://127.0.0.1:8080/dataset1/capabilitylist.xml   # until ctrl-c
  rsx sync --sources fleet.toml --follow     # every Source when it notifies a change, until ctrl-c`

// syncGuide is rsx help sync-guide: how a sync works, in full.
const syncGuide = `How rsx sync works (rsx sync --help lists its flags; docs/sync.md says more).

URL is the Source's Capability List, a document below it (Resource List,
Resource Dump, Change List, Change Dump or an index of them; its up link leads
to the Capability List), a Source Description with one Capability List, or a
page from which discovery finds one. A document below a Capability List is
used only when that Capability List lists it (directly, through an index or
through an archive it lists); its up link alone is refused (exit status 2).
DEST is a folder or a bucket, s3://bucket/prefix?endpoint=URL&region=R (its
credentials as the AWS tools find them: AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY, or ~/.aws/credentials and AWS_PROFILE; rsx config says
which), or NAME: (or NAME:sub/path), a destination the configuration file
names (rsx config). --dest is required, as rsync and rclone require a destination: rsx never writes into
the current folder unasked (--dest . does that).

--mode auto (the default) makes a baseline when DEST has no finished baseline
of the Source (an unfinished one is continued), or when the selection
changed; an incremental sync after. A baseline comes from the Resource List
(every part of its index read in parallel), or with --baseline-from dump from
the Resource Dump's packages, each checked against its dump entry (a package
that differs is refused whole) and each bitstream against the manifest, with
no request per resource; the default is list, or dump when the Source offers
only a dump. Its at is the point the copy continues from. An incremental sync
applies the changes of the Change Lists after that point (--changes-from dump:
the Change Dump), each resource's last change only; closed lists processed
before are not fetched again while they stay the same (one whose until is
when it was served is read again), and the copy's point moves only over the
lists read. When the live Change List Index (or Change
Dump) no longer reaches back to the copy's point, the closed lists of the
Source's Change List Archive (Change Dump Archive) that cover the time since
are applied first, and named. A change dated in the future (5 minutes'
allowance) or after its list's until is reported and applied without its
datetime, so that it never makes later changes look older; a list's until or
a Resource List's at in the future does not move the copy's point past now.

A baseline on a DEST that already holds a copy of the Source reconciles, as
rsync and rclone do: the state is not trusted over the files. Every selected
resource of the Source's current state (its Resource List, with the changes
of the Change Lists after the list's at) is compared with the state, and its
file is checked: it must exist with the length recorded, and a file
modified after it was written is hashed against the digests recorded.
Only what is missing, damaged or changed is fetched; with --delete what the
Source no longer lists is removed. --checksum hashes every file, against
the digests recorded and every digest the Source declares (in parallel, at
disk speed). This is how a damaged copy is repaired: rsx sync --mode
baseline (or --checksum). --mode auto reconciles by itself, and says why,
when it finds a gap (a stretch of time no Change List covers: nothing is
downloaded again that the copy holds intact), when the Source's Change
Lists give no from (they cannot prove what they cover, so every run checks
the copy against the Resource List too), and with --checksum.

Deletions are applied with --delete; without it they are remembered, and a
later run with --delete applies them. With --delete, the stray files of the
Source's folders of DEST (files no resource of any Source owns, that
DEST/.rsxignore does not keep) are moved to the trash, DEST/.rsx/trash/, when
the run reconciles the copy or an audit found some (rsx trash lists and
empties it; --trash-keep D empties what is older than D at the start).
--max-delete N: when more than N resources and stray files would go, none
does (exit status 1). --include and --exclude (RE2 on the URI,
repeatable) and --map PREFIX=DIR are stored with the state: later runs apply
them; new ones replace them (--clear-selection drops them), and the run says
so. Resources outside the Source's authority are refused unless
--allow-other-hosts. When two resources need one path (http and https of a
URI, a//b and a/b, names that differ only by case where case is ignored, a
file where another needs a folder), a folder wins over a file, then the
byte-wise smallest URI; the loser is refused, naming the winner (not a
failure), and a later run gives the path to a new resource that wins it.

Every download goes to a temporary file, is verified against the declared
length and every declared digest, then fsynced and renamed into place (for a
bucket: uploaded once verified). One that fails keeps the old copy; its bytes
are kept in DEST/.rsx/rejected/ (the newest 1,000 files and 256 MiB; older
ones are removed at the start and end of each run). One run per DEST at a
time. Nothing is written, read or removed through a symbolic link in DEST: a
resource whose folders include a link is refused, and a link anywhere in
DEST/.rsx makes the run refuse to start.

Every resource's fetch is bounded, and one that goes past a bound fails (the
run's exit status 1) with nothing of it kept: a resource that declares no
length by --max-size (default 256 MiB; a declared length bounds the body
itself), with any Content-Encoding undone first, so that a gzip bomb stays
small; a body (a dump package's too) that brings less than 1 KiB a second
over --stall-timeout (default 1m: nothing at all, or a drip); the whole
fetch by --resource-timeout (default auto: 10m, and a second more for each
32 KiB the resource declares, so that a large file on a slow link is not
cut while a body that flows just faster than the stall timeout allows
cannot hold the run; 0 for none). A redirect is followed only within the Source's
authority (or to a --map prefix): one to another host is refused before any
request is made there, unless --allow-other-hosts.

--dry-run prints the plan, with the first files of each kind it would create,
update and delete (--json lists every one in plan.items), and writes nothing
to DEST: a DEST that does not exist is not made (everything is new), a
read-only DEST is fine. A run that
cannot start (unreachable URL, no ResourceSync document, bad options) leaves
nothing in DEST either.

Politeness: the HTTP options apply (--rate, --concurrency per host, retries
with Retry-After); a download that needs retries or gets 429/503 halves the
resources fetched at once. robots.txt's Crawl-delay is honoured
(--ignore-crawl-delay not to). A host on a loopback or private address gets
--rate 0 and --concurrency 8 unless they are given, every other host 10
requests a second and 4 at once (the policy of every command).

Exit status: 0 the copy is in step; 1 something failed (a resource, a list, a
verification, a gap --mode incremental cannot bridge, a listed resource
that cannot be mapped to a path); 2 the sync could not run (bad usage, unreachable URL,
DEST in use, interrupted). --follow ends on SIGINT or SIGTERM with 0 when the
copy is in step, 1 when failures are outstanding or a poll found a gap.`

// newSyncCmd returns rsx sync and its help topics (rsx help sync-guide,
// rsx help sync-follow), which hold what its --help only names.
func newSyncCmd(a *app) (*cobra.Command, []*cobra.Command) {
	var f syncFlags
	cmd := &cobra.Command{
		Use:     "sync --dest DEST [flags] URL",
		Example: syncExamples,
		Short:   "Copy a Source's resources into a folder or a bucket, and keep the copy current",
		Long:    syncLong,
		Args:    oneArg("URL", "the Source's Capability List, or a document below it"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runSync(cmd, f, args[0])
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.dest, "dest", "", "the destination (required): a folder, or s3://bucket/prefix?endpoint=URL&region=R, or NAME: of the configuration file (rsx config)")
	fs.StringVar(&f.mode, "mode", "auto", "auto, baseline or incremental")
	fs.StringVar(&f.baselineFrom, "baseline-from", "", "list or dump (default: list, or dump when the Source offers only a dump)")
	fs.StringVar(&f.changesFrom, "changes-from", "", "list or dump (default: list, or dump when the Source offers only a Change Dump)")
	fs.StringArrayVar(&f.include, "include", nil, "copy only resources whose URI matches `RE` (repeatable; stored)")
	fs.StringArrayVar(&f.exclude, "exclude", nil, "do not copy resources whose URI matches `RE` (repeatable; stored)")
	fs.StringArrayVar(&f.maps, "map", nil, "copy the URIs that start with PREFIX under the folder DIR: `PREFIX=DIR` (repeatable; stored)")
	fs.BoolVar(&f.clearSelection, "clear-selection", false, "drop the stored --include, --exclude and --map")
	fs.BoolVar(&f.delete, "delete", false, "apply deletions, and move the stray files of the Source's folders to the trash (without it deletions are remembered for a later run with --delete)")
	fs.IntVar(&f.maxDelete, "max-delete", -1, "with --delete: when more than `N` resources and stray files would go, delete none (exit status 1)")
	fs.Var(&f.trashKeep, "trash-keep", "empty the folders of DEST/.rsx/trash older than `D` at the start (30d, 12h)")
	fs.BoolVar(&f.checksum, "checksum", false, "reconcile: hash every file of the copy against its recorded digests and those the Source declares, and fetch what differs")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print the plan; write nothing to DEST (not even DEST or DEST/.rsx: works on a read-only DEST)")
	fs.BoolVar(&f.allowOtherHosts, "allow-other-hosts", false, "copy resources outside the Source's authority")
	fs.BoolVar(&f.ignoreCrawlDelay, "ignore-crawl-delay", false, "do not honour robots.txt's Crawl-delay")
	fs.BoolVar(&f.json, "json", false, "print one JSON document on standard output (with --follow: one JSON object per line)")
	fs.BoolVar(&f.follow, "follow", false, "after catching up, keep the copy current: apply change notifications as they arrive, poll the Change Lists every --poll-interval, until interrupted")
	fs.DurationVar(&f.pollInterval, "poll-interval", engine.DefaultPollInterval, "with --follow: time between polls of the Change Lists (the record, which catches what notifications missed)")
	f.maxSize = engine.DefaultMaxSize
	fs.Var(&f.maxSize, "max-size", "largest resource to copy when it declares no length, e.g. 2GiB, 500MB (-1 = unlimited)")
	fs.DurationVar(&f.stallTimeout, "stall-timeout", engine.DefaultStallTimeout, "fail a resource whose body brings less than 1 KiB a second over this long")
	fs.Var(&f.resourceTimeout, "resource-timeout", "longest time one resource's fetch may take, redirects, retries and body included (auto: 10m and a second per 32 KiB declared; 0 = no limit)")
	a.addHostFlags(cmd)
	a.addSources(cmd, &f.json, &f.dest, f.fleetBase)
	// addSources told the fleet's story in the help and gave its examples:
	// the story goes to rsx help sync-follow, sync --help keeps its five.
	fleetText := strings.TrimPrefix(cmd.Long, syncLong)
	cmd.Long, cmd.Example = syncLong, syncExamples
	return cmd, []*cobra.Command{
		{Use: "sync-guide", Short: "How rsx sync works: modes, repairing a copy, deletions, writes, bounds, exit status", Long: syncGuide},
		{Use: "sync-follow", Short: "Keeping copies current: rsx sync --follow, and a fleet of Sources (--sources)", Long: syncFollow + fleetText},
	}
}

func (f syncFlags) planOptions(cmd *cobra.Command) (engine.PlanOptions, error) {
	var o engine.PlanOptions
	var err error
	if o.Mode, err = engine.ParseMode(f.mode); err != nil {
		return o, fmt.Errorf("--mode: %w", err)
	}
	if o.BaselineFrom, err = engine.ParseFrom(f.baselineFrom); err != nil {
		return o, fmt.Errorf("--baseline-from %w", err)
	}
	if o.ChangesFrom, err = engine.ParseFrom(f.changesFrom); err != nil {
		return o, fmt.Errorf("--changes-from %w", err)
	}
	fl := cmd.Flags()
	given := fl.Changed("include") || fl.Changed("exclude") || fl.Changed("map")
	if f.clearSelection && given {
		return o, errors.New("--clear-selection and --include/--exclude/--map: give one or the other")
	}
	if given || f.clearSelection {
		o.Selection = &state.Selection{Include: f.include, Exclude: f.exclude, Map: f.maps}
	}
	o.Delete = f.delete
	o.LimitDeletes, o.MaxDelete = f.maxDelete >= 0, f.maxDelete
	o.Checksum = f.checksum
	o.AllowOtherHosts = f.allowOtherHosts
	if f.follow && f.dryRun {
		return o, errors.New("--follow and --dry-run: a dry run writes nothing to follow with")
	}
	if f.follow && f.pollInterval <= 0 {
		return o, errors.New("--poll-interval must be positive")
	}
	return o, nil
}

// engineOptions are the session's options from the flags: the bounds of a
// resource's fetch.
func (f syncFlags) engineOptions() (engine.Options, error) {
	o := engine.Options{IgnoreCrawlDelay: f.ignoreCrawlDelay, UserAgent: "rsx"}
	switch {
	case f.maxSize == 0 || f.maxSize < -1:
		return o, errors.New("--max-size must be a size such as 2GiB, or -1 for no limit")
	case f.stallTimeout <= 0:
		return o, errors.New("--stall-timeout must be positive")
	}
	o.MaxSize, o.StallTimeout, o.ResourceTimeout = int64(f.maxSize), f.stallTimeout, f.resourceTimeout.engine()
	return o, nil
}

// request is the sync the flags ask for, of target.
func (f syncFlags) request(cmd *cobra.Command, target string) (job.SyncRequest, error) {
	po, err := f.planOptions(cmd)
	if err != nil {
		return job.SyncRequest{}, fmt.Errorf("sync: %w", err)
	}
	eo, err := f.engineOptions()
	if err != nil {
		return job.SyncRequest{}, fmt.Errorf("sync: %w", err)
	}
	return job.SyncRequest{Target: target, Dest: f.dest, Mode: po.Mode, BaselineFrom: po.BaselineFrom, ChangesFrom: po.ChangesFrom,
		Selection: po.Selection, Delete: po.Delete, Checksum: po.Checksum, DryRun: f.dryRun, AllowOtherHosts: po.AllowOtherHosts,
		IgnoreCrawlDelay: eo.IgnoreCrawlDelay, MaxSize: eo.MaxSize, StallTimeout: eo.StallTimeout, ResourceTimeout: eo.ResourceTimeout,
		LimitDeletes: po.LimitDeletes, MaxDelete: po.MaxDelete}, nil
}

func (a *app) runSync(cmd *cobra.Command, f syncFlags, target string) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if strings.TrimSpace(f.dest) == "" {
		return failed(errNoDest)
	}
	if err := a.checkLease(); err != nil {
		return failed(fmt.Errorf("sync: %w", err))
	}
	req, err := f.request(cmd, target)
	if err != nil {
		return failed(err)
	}
	if f.follow {
		// Following runs until interrupted: SIGINT and SIGTERM are its end,
		// once it follows (an interrupted catch-up still exits 2).
		if cmd.Annotations == nil {
			cmd.Annotations = map[string]string{}
		}
		cmd.Annotations[annotationEndsOnSignal] = "follow"
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	var bar *syncBar
	if isTerminal(a.err) {
		bar = newSyncBar(a.err)
		req.Progress = bar.update
	}
	// The destination and the engine on it, opened as every caller opens
	// them (dest/job): a dry run writes nothing to DEST, not even DEST
	// itself or its .rsx.
	s, err := a.runner().OpenSync(ctx, req)
	if err != nil {
		bar.finish()
		return failed(err)
	}
	defer s.Close()
	if l := s.Lock(); l.TookOver != nil && !f.json {
		fmt.Fprintf(a.err, "rsx: the lock of an interrupted run (%s) was taken over; %s temporary files removed\n", l.TookOver, display.Count(l.Removed))
	}
	if f.trashKeep > 0 && !f.dryRun {
		if err := a.keepTrash(ctx, s.Store(), f); err != nil {
			return failed(fmt.Errorf("sync: %w", err))
		}
	}
	p, err := s.Plan(ctx)
	if err != nil {
		bar.finish()
		if ie := (*engine.IdentityError)(nil); errors.As(err, &ie) {
			// Refused, nothing done: the job was understood, and what it
			// met is wrong (another Source's Capability List).
			return &exitError{code: exitFound, err: fmt.Errorf("sync: %w", err)}
		}
		return failed(job.PlanError(ctx, err))
	}
	dest := s.Store().String()
	if !f.json {
		bar.pause()
		writeSyncPlan(a.out, newTextStyles(useColor(a.out)), p, dest, f.dryRun)
	}
	// Following: subscribe before the catch-up runs, so that the changes
	// made meanwhile are notified (and found applied, or applied, after).
	var events <-chan notify.Event
	stopWatch := func() {}
	if f.follow && p.Gap == nil {
		events, stopWatch = a.subscribe(ctx, s.Client(), p)
	}
	defer stopWatch()
	var res *engine.Result
	if !f.dryRun {
		bar.start(p)
		res, err = s.Run(ctx)
		bar.finish()
		if err != nil {
			return failed(fmt.Errorf("sync: %w", err))
		}
	}
	bar.finish()
	out := s.Result()
	code := out.ExitStatus
	if a.metrics != nil && !f.dryRun {
		// sync --follow's catch-up run.
		a.metrics.Ran(metrics.SyncRun(metrics.Source{URL: target}, s.Started(), out.Elapsed, out, false))
	}
	if f.json {
		j := syncJSONOfResult(out)
		var err error
		if f.follow {
			j.Event = "caught-up"
			err = writeJSONLine(a.out, j)
		} else {
			err = writeJSON(a.out, j)
		}
		if err != nil {
			return failed(fmt.Errorf("sync: write the report: %w", err))
		}
	} else if res != nil {
		writeSyncResult(a.out, newTextStyles(useColor(a.out)), res)
	}
	if code == exitFailure {
		return &exitError{code: exitFailure, err: out.Err}
	}
	if f.follow {
		if p.Gap != nil {
			return &exitError{code: exitFound, err: errors.New("sync --follow: the copy cannot catch up (a gap): nothing to follow from")}
		}
		return a.followSync(ctx, s.Dest(), p, res, events, f, dest, s.Started())
	}
	return exitWith(code)
}

// syncBar is the progress on standard error: a spinner while the Source's
// documents are read, then a bar of the resources done.
type syncBar struct {
	mu      sync.Mutex
	bar     *progressbar.ProgressBar
	w       io.Writer
	running bool
}

func newSyncBar(w io.Writer) *syncBar {
	b := &syncBar{w: w}
	b.bar = progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("reading the Source"),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSpinnerType(14),
		// No ticker of its own: the engine's reports move it, and a
		// spinner's ticker would go on drawing after the plan is printed.
		progressbar.OptionSetSpinnerChangeInterval(0),
		progressbar.OptionClearOnFinish(),
	)
	return b
}

func (b *syncBar) update(p engine.Progress) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar == nil {
		return
	}
	switch p.Phase {
	case engine.PhaseReading:
		b.bar.Describe(fmt.Sprintf("reading the Source: %s documents, %s entries", display.Count(p.Documents), display.Count(p.Entries)))
		_ = b.bar.Add(0)
	case engine.PhaseSyncing:
		if !b.running {
			return
		}
		desc := display.Size(p.Bytes)
		if p.Failed > 0 {
			desc += fmt.Sprintf(", %s failed", display.Count(p.Failed))
		}
		b.bar.Describe(desc)
		_ = b.bar.Set(p.Done)
	}
}

// pause clears the spinner before the plan is printed.
func (b *syncBar) pause() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar != nil {
		_ = b.bar.Clear()
	}
}

// start shows a bar of the plan's work.
func (b *syncBar) start(p *engine.Plan) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar != nil {
		_ = b.bar.Exit()
	}
	b.bar = progressbar.NewOptions(max(p.Summary.Work(), 1),
		progressbar.OptionSetWriter(b.w),
		progressbar.OptionSetDescription("syncing"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("resources"),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
	)
	b.running = true
}

func (b *syncBar) finish() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar != nil {
		_ = b.bar.Clear()
		_ = b.bar.Exit()
		b.bar = nil
	}
	b.running = false
}

// writeSyncPlan writes the plan in a few lines.
func writeSyncPlan(w io.Writer, st textStyles, p *engine.Plan, dest string, dryRun bool) {
	s := p.Summary
	from := map[engine.From]string{engine.FromList: "list", engine.FromDump: "dump"}[p.From]
	what := string(p.Mode) + " from the " + from
	fmt.Fprintf(w, "%s %s → %s\n", st.title("sync"), esc(p.Source), esc(dest))
	switch {
	case p.Mode == engine.ModeBaseline:
		fmt.Fprintf(w, "  %s %s, at %s\n", what, esc(p.Document), datetimeOrNone(p.At))
	default:
		fmt.Fprintf(w, "  %s %s, after %s\n", what, esc(p.Document), datetimeOrNone(p.Point))
	}
	for _, n := range p.Notes {
		fmt.Fprintf(w, "  %s %s\n", st.dim("·"), esc(n))
	}
	writeArchivedLists(w, st, p)
	if p.Gap != nil {
		fmt.Fprintf(w, "%s gap: %s: changes may have been missed, so none is applied.\n", st.err("✗"), p.Gap)
		fmt.Fprintf(w, "  Reconcile the copy (only what is missing or differs is fetched): %s\n", esc(command("rsx", "sync", "--mode", "baseline", "--dest", dest, p.Target)))
		return
	}
	label := "plan"
	if dryRun {
		label = "plan (dry run: nothing is written)"
	}
	bytes := display.Size(s.Bytes)
	if s.UnknownBytes > 0 {
		bytes += fmt.Sprintf(" + %s of unknown length", display.Count(s.UnknownBytes))
	}
	if p.Reconcile {
		fmt.Fprintf(w, "  %s reconcile: %s of the copy checked", st.dim("·"), display.Plural(s.Checked, "file", "files"))
		if s.Hashed > 0 {
			fmt.Fprintf(w, " (%s hashed, %s)", display.Count(s.Hashed), display.Size(s.HashedBytes))
		}
		if s.Repair > 0 {
			fmt.Fprintf(w, ", %s: fetched again\n", st.warn(display.Plural(s.Repair, "missing or damaged", "missing or damaged")))
		} else {
			fmt.Fprintf(w, ", all as recorded\n")
		}
	}
	fmt.Fprintf(w, "%s: %s to create and %s to update (%s), %s to delete, %s unchanged", label, display.Count(s.Create), display.Count(s.Update), bytes, display.Count(s.Delete), display.Count(s.Unchanged))
	if s.PendingDelete > 0 {
		fmt.Fprintf(w, ", %s (no --delete)", display.Plural(s.PendingDelete, "deletion remembered", "deletions remembered"))
	}
	if s.Excluded > 0 {
		fmt.Fprintf(w, ", %s excluded", display.Count(s.Excluded))
	}
	if s.Refused > 0 {
		fmt.Fprintf(w, ", %s refused", display.Count(s.Refused))
		if s.Collisions > 0 {
			fmt.Fprintf(w, " (%s of them lose a path to another resource)", display.Count(s.Collisions))
		}
	}
	if s.Trash > 0 {
		fmt.Fprintf(w, ", %s to the trash", display.Plural(s.Trash, "stray file", "stray files"))
	}
	fmt.Fprintln(w)
	writePlanStrays(w, st, p, dryRun)
	for _, warn := range p.Warnings {
		fmt.Fprintf(w, "%s %s\n", st.warn("!"), esc(warn))
	}
	if dryRun {
		writePlanDecisions(w, st, p)
	}
	for i, r := range p.Refused {
		if i == maxTextLines {
			fmt.Fprintf(w, "  … and %s more refused (--json lists them)\n", display.Count(s.Refused-i))
			break
		}
		fmt.Fprintf(w, "%s refused %s: %s\n", st.warn("!"), esc(r.URL), esc(r.Error()))
	}
	for _, pr := range p.Problems {
		fmt.Fprintf(w, "%s %s\n", st.err("✗"), esc(pr.Error()))
	}
}

// writeArchivedLists names the lists of the Source's archive the plan reads.
func writeArchivedLists(w io.Writer, st textStyles, p *engine.Plan) {
	if len(p.ArchivedLists) == 0 {
		return
	}
	fmt.Fprintf(w, "  %s read from the archive first, as the live %s no longer reaches back to %s:\n", st.dim("·"),
		map[string]string{"changelist": "Change List Index", "changedump": "Change Dump"}[p.ArchivedLists[0].Kind], datetimeOrNone(p.Point))
	for i, a := range p.ArchivedLists {
		if i == maxTextLines {
			fmt.Fprintf(w, "      … and %s more (--json lists every one)\n", display.Count(len(p.ArchivedLists)-i))
			break
		}
		fmt.Fprintf(w, "      %s (%s – %s)\n", esc(a.URL), datetimeOrNone(a.From), datetimeOrNone(a.Until))
	}
}

func datetimeOrNone(t time.Time) string {
	if t.IsZero() {
		return "(none)"
	}
	return model.FormatDatetime(t)
}

// writeSyncResult writes the summary of a run and its failures.
func writeSyncResult(w io.Writer, st textStyles, r *engine.Result) {
	secs := r.Elapsed.Seconds()
	done := r.Created + r.Updated + r.Deleted
	rate := ""
	if secs > 0 && done > 0 {
		rate = fmt.Sprintf(" (%s resources/s, %s/s)", display.Count(int64(float64(done)/secs+0.5)), display.Size(int64(float64(r.Bytes)/secs)))
	}
	mark := st.rule("✓")
	if !r.OK() {
		mark = st.err("✗")
	}
	fmt.Fprintf(w, "%s %s created, %s updated, %s deleted, %s unchanged, %s failed in %s%s\n", mark,
		display.Count(r.Created), display.Count(r.Updated), display.Count(r.Deleted), display.Count(r.Plan.Summary.Unchanged), display.Count(r.FailedCount), r.Elapsed.Round(time.Millisecond), rate)
	if r.Adopted > 0 {
		fmt.Fprintf(w, "  %s %s of the created were already in place and verified (the rest of an interrupted run)\n", st.dim("·"), display.Count(r.Adopted))
	}
	if r.BackOffs > 0 {
		fmt.Fprintf(w, "  %s the Source pushed back %s (429, 503 or retries): fewer resources were fetched at once\n", st.dim("·"), display.Plural(r.BackOffs, "time", "times"))
	}
	if r.Pending > 0 {
		fmt.Fprintf(w, "  %s %s: run with --delete to apply\n", st.dim("·"), display.Plural(r.Pending, "deletion remembered", "deletions remembered"))
	}
	writeVouched(w, st, r.Vouched)
	if r.Trashed > 0 {
		fmt.Fprintf(w, "  %s %s moved to the trash, %s/ (rsx trash lists and empties it)\n", st.dim("·"),
			display.Plural(r.Trashed, "stray file", "stray files"), esc(r.TrashFolder))
	}
	if n := len(r.Plan.ArchivedLists); n > 0 {
		what := display.Plural(n, "archived Change List", "archived Change Lists")
		if r.Plan.ArchivedLists[0].Kind == "changedump" {
			what = display.Plural(n, "archived Change Dump", "archived Change Dumps")
		}
		fmt.Fprintf(w, "  %s caught up through %s of %s\n", st.dim("·"), what, esc(r.Plan.ArchivedLists[0].Archive))
	}
	if r.Stopped != "" {
		fmt.Fprintf(w, "%s stopped: %s; the next run continues from here\n", st.err("✗"), esc(r.Stopped))
	}
	for i, f := range r.Failed {
		if i == maxTextLines {
			fmt.Fprintf(w, "  … and %s more failures (--json lists every one)\n", display.Count(r.FailedCount-i))
			break
		}
		line := fmt.Sprintf("%s %s: %s", st.err("✗"), esc(f.URL), esc(f.Error()))
		if f.Rejected != "" {
			line += " (rejected bytes kept in " + esc(f.Rejected) + ")"
		}
		fmt.Fprintln(w, line)
	}
	if r.FailedCount > 0 || len(r.Plan.Problems) > 0 {
		fmt.Fprintf(w, "  %s the copy is not finished: the next run fetches again what failed\n", st.dim("·"))
	}
}

// writeVouched names the resources a baseline took as the Source's Change
// List records their change after the Resource List's at.
func writeVouched(w io.Writer, st textStyles, vs []engine.Vouched) {
	if len(vs) == 0 {
		return
	}
	fmt.Fprintf(w, "  %s %s at the Source during the baseline, taken as its Change List records %s:\n", st.dim("·"),
		display.Plural(len(vs), "resource changed", "resources changed"), map[bool]string{true: "it", false: "them"}[len(vs) == 1])
	for i, v := range vs {
		if i == maxTextLines {
			fmt.Fprintf(w, "      … and %d more (--json lists every one)\n", len(vs)-i)
			break
		}
		entry := string(v.Change) + " " + datetimeOrNone(v.Datetime)
		if v.Hash != "" {
			entry += " " + v.Hash
		}
		if v.Length >= 0 {
			entry += fmt.Sprintf(" length %d", v.Length)
		}
		fmt.Fprintf(w, "      %s: %s in %s\n", esc(v.URI), esc(entry), esc(v.List))
	}
}

// JSON of rsx sync: the contract's fields (mode, source, dest, created,
// updated, deleted, unchanged, skipped, failed) and the others docs/json.md
// lists.
type syncJSON struct {
	// Event names the object among the lines of sync --follow --json:
	// "caught-up" (the first), "sync" (the last); absent otherwise.
	Event             string         `json:"event,omitempty"`
	Mode              string         `json:"mode"`
	Source            string         `json:"source"`
	Dest              string         `json:"dest"`
	Created           int            `json:"created"`
	Updated           int            `json:"updated"`
	Deleted           int            `json:"deleted"`
	Unchanged         int            `json:"unchanged"`
	Skipped           int            `json:"skipped"`
	Failed            []syncFailJSON `json:"failed"`
	DryRun            bool           `json:"dry_run"`
	From              string         `json:"from"`
	Document          string         `json:"document"`
	CapabilityList    *string        `json:"capability_list"`
	Adopted           int            `json:"adopted"`
	PendingDeletes    int            `json:"pending_deletes"`
	Excluded          int            `json:"excluded"`
	Refused           []syncFailJSON `json:"refused"`
	Bytes             int64          `json:"bytes"`
	BackOffs          int            `json:"back_offs"`
	PointBefore       *string        `json:"point_before"`
	BaselineAt        *string        `json:"baseline_at"`
	SyncedUntil       *string        `json:"synced_until"`
	Finished          bool           `json:"finished"`
	Stopped           *string        `json:"stopped"`
	Gap               *syncGapJSON   `json:"gap"`
	Problems          []syncFailJSON `json:"problems"`
	Lists             []syncListJSON `json:"lists"`
	ArchivedLists     []syncArchJSON `json:"archived_lists"`
	Warnings          []string       `json:"warnings"`
	Notes             []string       `json:"notes"`
	Selection         syncSelJSON    `json:"selection"`
	SelectionReplaced bool           `json:"selection_replaced"`
	Plan              syncPlanJSON   `json:"plan"`
	// Reconcile is a baseline's check of the copy there (null when the
	// plan is no reconcile).
	Reconcile *syncReconcileJSON `json:"reconcile"`
	// StateUploaded is the bytes of state this run uploaded to a bucket
	// destination (its batches' changes, compactions); null for a folder
	// and for a dry run.
	StateUploaded *int64 `json:"state_uploaded"`
	// Trashed counts the stray files moved to the trash, into
	// TrashFolder (relative to DEST; null when none was); DeletesHeld the
	// deletions --max-delete held (none made).
	Trashed     int     `json:"trashed"`
	TrashFolder *string `json:"trash_folder"`
	DeletesHeld int     `json:"deletes_held"`
	Seconds     float64 `json:"seconds"`
	// Vouched are the resources of a baseline that changed at the Source
	// after its Resource List's at, taken as its Change List records them
	// (engine.Result.Vouched).
	Vouched []syncVouchedJSON `json:"vouched"`
	// Follow is what sync --follow did after the catch-up (the last line).
	Follow *followJSON `json:"follow,omitempty"`
}

type syncReconcileJSON struct {
	// Why a plan of mode auto reconciles ("" when --mode baseline asked).
	Why         string `json:"why"`
	Checksum    bool   `json:"checksum"`
	Checked     int    `json:"checked"`
	Hashed      int    `json:"hashed"`
	HashedBytes int64  `json:"hashed_bytes"`
	// Repaired counts the copies found missing or damaged, fetched again.
	Repaired int `json:"repaired"`
}

type syncSelJSON struct {
	Include []string `json:"include"`
	Exclude []string `json:"exclude"`
	Map     []string `json:"map"`
}

type syncFailJSON struct {
	URL      string `json:"url"`
	Error    string `json:"error"`
	Kind     string `json:"kind"`
	Path     string `json:"path,omitempty"`
	Status   int    `json:"status,omitempty"`
	Rejected string `json:"rejected,omitempty"`
}

type syncGapJSON struct {
	From     string  `json:"from"`
	To       *string `json:"to"`
	Message  string  `json:"message"`
	Proposal string  `json:"proposal"`
}

type syncListJSON struct {
	URL        string  `json:"url"`
	Kind       string  `json:"kind"`
	From       *string `json:"from"`
	Until      *string `json:"until"`
	Entries    int     `json:"entries"`
	Skipped    int     `json:"skipped"`
	OutOfOrder int     `json:"out_of_order"`
	Suspect    int     `json:"suspect_datetimes"`
	Unchanged  bool    `json:"unchanged"`
	Archived   bool    `json:"archived"`
}

// syncVouchedJSON is a resource of a baseline that changed after the
// Resource List's at, with the Change List entry that vouches for it.
type syncVouchedJSON struct {
	URL      string  `json:"url"`
	Path     string  `json:"path,omitempty"`
	Change   string  `json:"change"`
	Datetime *string `json:"datetime"`
	Hash     string  `json:"hash,omitempty"`
	Length   *int64  `json:"length"`
	List     string  `json:"list"`
	Was      string  `json:"was"`
}

// syncArchJSON is a list of the Source's Change List Archive (or Change
// Dump Archive) that the run read.
type syncArchJSON struct {
	URL     string  `json:"url"`
	Kind    string  `json:"kind"`
	Archive string  `json:"archive"`
	From    *string `json:"from"`
	Until   *string `json:"until"`
}

type syncPlanJSON struct {
	Create         int   `json:"create"`
	Update         int   `json:"update"`
	Delete         int   `json:"delete"`
	PendingDelete  int   `json:"pending_delete"`
	Unchanged      int   `json:"unchanged"`
	Excluded       int   `json:"excluded"`
	Refused        int   `json:"refused"`
	Collisions     int   `json:"collisions"` // of refused: resources that lose a path collision
	Vanished       int   `json:"vanished"`
	SkippedChanges int   `json:"skipped_changes"`
	Bytes          int64 `json:"bytes"`
	UnknownBytes   int   `json:"unknown_bytes"`
	Documents      int   `json:"documents"`
	Entries        int64 `json:"entries"`

	// Changes dated outside their list's [from, until] or in the future
	// (engine.Summary.SuspectDatetimes).
	SuspectDatetimes int `json:"suspect_datetimes"`
	// Items are a dry run's decisions by kind, every one (syncplan.go);
	// absent when the plan ran.
	Items planItemsJSON `json:"items,omitempty"`

	// Trash lists the stray files the run moves (a dry run: would move)
	// to the trash, the first 10,000; null when the plan did not look for
	// them (no --delete, or neither a reconcile nor an audit that found
	// some). Protected counts the files the protect list kept.
	Trash     []string `json:"trash"`
	Protected int      `json:"protected"`
}

func timeOrNull(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := model.FormatDatetime(t)
	return &s
}

func failJSON(fs []engine.Failure) []syncFailJSON {
	out := make([]syncFailJSON, 0, len(fs))
	for _, f := range fs {
		out = append(out, syncFailJSON{URL: f.URL, Error: f.Error(), Kind: string(f.Kind), Path: f.Path, Status: f.Status, Rejected: f.Rejected})
	}
	return out
}

func syncJSONOf(p *engine.Plan, res *engine.Result, dest string, dryRun bool, elapsed time.Duration) syncJSON {
	s := p.Summary
	out := syncJSON{
		Mode: string(p.Mode), Source: p.Source, Dest: dest, Unchanged: s.Unchanged, Skipped: s.Excluded + s.Refused,
		Failed: []syncFailJSON{}, Vouched: []syncVouchedJSON{}, DryRun: dryRun, From: string(p.From), Document: p.Document,
		PendingDeletes: s.PendingDelete, Excluded: s.Excluded, Refused: failJSON(p.Refused),
		PointBefore: timeOrNull(p.Point), Problems: failJSON(p.Problems), Lists: []syncListJSON{}, ArchivedLists: []syncArchJSON{},
		Warnings: append([]string{}, p.Warnings...), Notes: append([]string{}, p.Notes...),
		Selection: syncSelJSON{Include: nonNil(p.Selection.Include), Exclude: nonNil(p.Selection.Exclude), Map: nonNil(p.Selection.Map)}, SelectionReplaced: p.PreviousSelection != nil, Seconds: elapsed.Seconds(),
		Plan: syncPlanJSON{Create: s.Create, Update: s.Update, Delete: s.Delete, PendingDelete: s.PendingDelete, Unchanged: s.Unchanged,
			Excluded: s.Excluded, Refused: s.Refused, Collisions: s.Collisions, Vanished: s.Vanished, SkippedChanges: s.SkippedChanges, SuspectDatetimes: s.SuspectDatetimes, Bytes: s.Bytes,
			UnknownBytes: s.UnknownBytes, Documents: s.Documents, Entries: s.Entries, Protected: s.Protected},
		DeletesHeld: p.DeletesHeld,
	}
	if p.StrayLooked {
		out.Plan.Trash = nonNil(p.Strays)
	}
	if p.CapabilityList != "" {
		cl := p.CapabilityList
		out.CapabilityList = &cl
	}
	if p.Reconcile {
		out.Reconcile = &syncReconcileJSON{Why: p.ReconcileWhy, Checksum: p.Checksum, Checked: s.Checked, Hashed: s.Hashed,
			HashedBytes: s.HashedBytes, Repaired: s.Repair}
	}
	if p.Mode == engine.ModeBaseline {
		out.BaselineAt = timeOrNull(p.At)
	}
	for _, l := range p.Lists {
		out.Lists = append(out.Lists, syncListJSON{URL: l.URL, Kind: l.Kind, From: timeOrNull(l.From), Until: timeOrNull(l.Until),
			Entries: l.Entries, Skipped: l.Skipped, OutOfOrder: l.OutOfOrder, Suspect: l.Suspect, Unchanged: l.Unchanged, Archived: l.Archived})
	}
	for _, a := range p.ArchivedLists {
		out.ArchivedLists = append(out.ArchivedLists, syncArchJSON{URL: a.URL, Kind: a.Kind, Archive: a.Archive, From: timeOrNull(a.From), Until: timeOrNull(a.Until)})
	}
	if p.Gap != nil {
		out.Gap = &syncGapJSON{From: model.FormatDatetime(p.Gap.From), To: timeOrNull(p.Gap.To), Message: p.Gap.String(),
			Proposal: "reconcile the copy (only what is missing or differs is fetched): " + command("rsx", "sync", "--mode", "baseline", "--dest", dest, p.Target)}
	}
	switch {
	case dryRun:
		out.Created, out.Updated, out.Deleted = s.Create, s.Update, s.Delete
		out.SyncedUntil = timeOrNull(p.Point)
		out.Plan.Items = planItemsOf(p)
	case res != nil:
		out.Created, out.Updated, out.Deleted, out.Adopted, out.Bytes = res.Created, res.Updated, res.Deleted, res.Adopted, res.Bytes
		out.Trashed = res.Trashed
		if res.TrashFolder != "" {
			tf := res.TrashFolder
			out.TrashFolder = &tf
		}
		out.BackOffs = res.BackOffs
		out.Failed = failJSON(res.Failed)
		for _, v := range res.Vouched {
			j := syncVouchedJSON{URL: v.URI, Path: v.Path, Change: string(v.Change), Datetime: timeOrNull(v.Datetime), Hash: v.Hash, List: v.List, Was: v.Was}
			if v.Length >= 0 {
				n := v.Length
				j.Length = &n
			}
			out.Vouched = append(out.Vouched, j)
		}
		out.Finished = res.Finished
		out.SyncedUntil = timeOrNull(res.SyncedUntil)
		if res.Stopped != "" {
			st := res.Stopped
			out.Stopped = &st
		}
	}
	return out
}

// syncJSONOfResult is the JSON of a sync's typed result (dest/job), as rsx
// sync --json writes it and a fleet's result of the Source carries it.
func syncJSONOfResult(r *job.SyncResult) syncJSON {
	out := syncJSONOf(r.Plan, r.Result, r.Dest, r.DryRun, r.Elapsed)
	out.StateUploaded = r.StateUploaded
	return out
}
