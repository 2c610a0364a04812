package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"rsx/dest/engine"
	"rsx/dest/job"
	"rsx/display"
	"rsx/fleet"
)

// The fleet (rsx sync --sources FILE, rsx audit --sources FILE) lives in
// package fleet: the file, the jobs, the rounds, --every and --follow,
// scheduling typed requests through the runner (dest/job). The command
// line turns its flags into the requests every Source starts from
// (fleet.Base), and writes what the fleet tells it: a line per run, the
// JSON document (or JSON Lines) of the runs.

// fleetResult is one Source's outcome in a fleet run.
type fleetResult struct {
	Source     string          `json:"source"`
	Name       string          `json:"name,omitempty"`
	Dest       string          `json:"dest"`
	ExitStatus int             `json:"exit_status"`
	Error      *string         `json:"error"`
	Started    string          `json:"started"`
	Seconds    float64         `json:"seconds"`
	Result     json.RawMessage `json:"result"`
	// RanBy says that another process that shares the fleet's rounds had
	// the Source's turn (rsx sync --sources --every on several machines):
	// this process did not run it (omitted otherwise; exit_status 0,
	// result null).
	RanBy *fleetRanByJSON `json:"ran_by,omitempty"`
	// Held says that the fleet's hold bound cut the Source's run short,
	// since other Sources waited for its DEST (omitted otherwise): the run
	// stopped as an interrupted one does, and ran again after them.
	Held *fleetHeldJSON `json:"held,omitempty"`
}

// fleetHeldJSON is a run cut short by the fleet's hold bound.
type fleetHeldJSON struct {
	// BoundSeconds is the hold bound (the file's hold).
	BoundSeconds float64 `json:"bound_seconds"`
	// Waiting names the Sources that waited for the DEST.
	Waiting []string `json:"waiting"`
	// Runs counts the Source's runs the bound cut short: 1 in a run's own
	// line; in a round's document, those before its last run, which is
	// the one the rest of the object tells of (its held is null when
	// that one was not cut).
	Runs int `json:"runs"`
}

// fleetRanByJSON is the run of another process that had a Source's turn.
type fleetRanByJSON struct {
	// Host is that process's host id (--host-id), as the history has it.
	Host string `json:"host"`
	// Run is the run's number in DEST's history (rsx log --run N).
	Run int64 `json:"run"`
	// Started is when it started; ExitStatus how it ended.
	Started    string `json:"started"`
	ExitStatus int    `json:"exit_status"`
}

// fleetJSON is rsx sync --sources's (and audit --sources's) JSON document.
type fleetJSON struct {
	Sources []fleetResult `json:"sources"`
	OK      int           `json:"ok"`
	Failed  int           `json:"failed"`
}

// fleetRun is a run of a Source as the command line writes it: its JSON
// object, and the middle of its text line.
type fleetRun struct {
	res  fleetResult
	what string
}

// fleetRunOf writes a run of the fleet: the Source's own document (rsx
// sync --json's, or audit --dest --json's; {"error": …} when the run could
// not start, as the command would print) and its text line's counts.
func fleetRunOf(r *fleet.Run) (fleetRun, error) {
	out := fleetRun{res: fleetResult{Source: r.Job.Source.URL, Name: r.Job.Source.Name, Dest: r.Job.Dest, ExitStatus: r.ExitStatus(),
		Result: json.RawMessage("null")}}
	if r.NotRun {
		msg := r.Err().Error()
		out.res.Error = &msg
		return out, nil
	}
	out.res.Started, out.res.Seconds = r.Started.UTC().Format(time.RFC3339), r.Elapsed.Seconds()
	if h := r.Held; h != nil {
		out.res.Held = &fleetHeldJSON{BoundSeconds: h.Bound.Seconds(), Waiting: h.Waiting, Runs: 1}
	}
	var doc bytes.Buffer
	switch {
	case r.Sync != nil && r.Sync.RanElsewhere != nil:
		e := r.Sync.RanElsewhere
		out.res.RanBy = &fleetRanByJSON{Host: e.Host, Run: e.ID, Started: e.Started.UTC().Format(time.RFC3339), ExitStatus: e.ExitStatus}
		host := e.Host
		if host == "" {
			host = "a process that did not say its host id"
		}
		out.what = fmt.Sprintf("its turn was run %d by %s at %s (exit status %d): not run here", e.ID, host, e.Started.Local().Format("15:04:05"), e.ExitStatus)
	case r.Sync != nil && r.Sync.Plan != nil && (r.Sync.DryRun || r.Sync.Result != nil):
		j := syncJSONOfResult(r.Sync)
		if err := writeJSON(&doc, j); err != nil {
			return out, err
		}
		out.what = fmt.Sprintf("%s: %s created, %s updated, %s deleted, %s unchanged, %s failed", j.Mode, display.Count(j.Created), display.Count(j.Updated),
			display.Count(j.Deleted), display.Count(j.Unchanged), display.Count(len(j.Failed)))
	case r.Audit != nil && r.Audit.Report != nil:
		rep := r.Audit.Report
		if err := writeDestAuditJSON(&doc, rep, r.Audit.Dest); err != nil {
			return out, err
		}
		out.what = fmt.Sprintf("audit: %s same, %s missing, %s changed", display.Count(rep.Same), display.Count(rep.Len(engine.ListMissing)),
			display.Count(rep.Len(engine.ListChanged)))
		if rep.InSync() {
			out.what += ": in sync"
		} else {
			out.what += ": not in sync"
		}
	}
	if err := r.Err(); err != nil || out.res.ExitStatus == exitFailure {
		msg := "could not run"
		if err != nil {
			msg = esc(err.Error())
		}
		out.res.Error = &msg
		if doc.Len() == 0 {
			// What the command prints when it cannot run.
			if err := writeJSON(&doc, struct {
				Error string `json:"error"`
			}{msg}); err != nil {
				return out, err
			}
		}
	}
	if doc.Len() > 0 {
		out.res.Result = json.RawMessage(bytes.TrimSpace(doc.Bytes()))
	}
	return out, nil
}

// logHeld logs a run the hold bound cut short.
func logHeld(l *slog.Logger, r *fleet.Run) {
	l.Warn("hold bound: a run stopped for the Sources waiting for its DEST", "source", redactURL(r.Job.Source.URL), "name", r.Job.Source.Name,
		"dest", r.Job.Dest, "bound", r.Held.Bound.String(), "waiting", r.Held.Waiting, "held", r.Elapsed.Round(time.Millisecond).String())
}

// fleetLineText is the line a Source's run gives in the text output.
func fleetLineText(st textStyles, r fleetRun) string {
	name := r.res.Source
	if r.res.Name != "" {
		name = r.res.Name + " (" + r.res.Source + ")"
	}
	secs := time.Duration(r.res.Seconds * float64(time.Second)).Round(time.Millisecond)
	line := ""
	switch {
	case r.res.Error != nil:
		line = fmt.Sprintf("%s %s → %s: %s (%s)", st.err("✗"), esc(name), esc(r.res.Dest), esc(*r.res.Error), secs)
	default:
		mark := st.rule("✓")
		if r.res.ExitStatus != 0 {
			mark = st.err("✗")
		}
		if r.res.RanBy != nil {
			mark = st.rule("·")
		}
		line = fmt.Sprintf("%s %s → %s: %s (%s)", mark, esc(name), esc(r.res.Dest), r.what, secs)
	}
	if h := r.res.Held; h != nil && h.Runs == 1 {
		line += " " + st.warn(fmt.Sprintf("[held its DEST %s, the hold bound, while %s waited: it runs again after them]",
			shortDuration(time.Duration(h.BoundSeconds*float64(time.Second))), esc(strings.Join(h.Waiting, ", "))))
	}
	return line
}

// fleetFlags are what the command line gives the fleet.
type fleetFlags struct {
	command fleet.Command
	file    string
	base    fleet.Base
	asJSON  bool
}

// fleetLoader reads the file and resolves its Sources (for --every and
// --follow, again and again).
func (f fleetFlags) load() (*fleet.File, []fleet.Job, error) {
	ff, err := fleet.Read(f.file)
	if err != nil {
		return nil, nil, err
	}
	jobs, err := fleet.Jobs(ff, f.command, f.base)
	if err != nil {
		return nil, nil, err
	}
	return ff, jobs, nil
}

// runFleet runs the command for every Source of the fleet file once:
// Sources in parallel (parallel at most; never two of one host, nor two of
// one DEST, at once), each in a run of its own so that one Source's failure
// never stops the others.
func (a *app) runFleet(ctx context.Context, f fleetFlags) error {
	ff, jobs, err := f.load()
	if err != nil {
		return failed(err)
	}
	pr := a.newFleetPrinter(f.asJSON, len(jobs))
	runs := fleet.Round(ctx, a.runner(), jobs, fleet.RoundOptions{Parallel: ff.Parallel, Hold: ff.HoldBound, Ended: pr.ended, Status: pr.status})
	pr.clear()
	if ctx.Err() != nil {
		return failed(fmt.Errorf("%s --sources: interrupted; the Sources not finished continue at the next run", f.command))
	}
	if pr.err != nil {
		return failed(pr.err)
	}
	return a.fleetReport(string(f.command), pr.results(runs), f.asJSON)
}

func (a *app) fleetReport(command string, results []fleetResult, asJSON bool) error {
	out := fleetJSON{Sources: results}
	for _, r := range results {
		if r.ExitStatus == 0 {
			out.OK++
		} else {
			out.Failed++
		}
	}
	if asJSON {
		if err := writeJSON(a.out, out); err != nil {
			return failed(err)
		}
	} else {
		st := newTextStyles(useColor(a.out))
		mark := st.rule("✓")
		if out.Failed > 0 {
			mark = st.err("✗")
		}
		fmt.Fprintf(a.out, "%s %s: %s of %s ok, %s failed\n", mark, command, display.Count(out.OK), display.Plural(len(results), "Source", "Sources"), display.Count(out.Failed))
	}
	if out.Failed > 0 {
		return foundProblems()
	}
	return nil
}

// fleetPrinter writes a round's runs as they end: a line each (without
// --json), the count under way on a terminal's standard error; it keeps
// each run's JSON object for the document (or the lines) written after
// the round.
type fleetPrinter struct {
	a      *app
	asJSON bool
	st     textStyles
	mu     sync.Mutex
	done   map[*fleet.Run]fleetResult
	cut    map[int]int // runs of a job cut by the hold bound in the round
	err    error
}

func (a *app) newFleetPrinter(asJSON bool, _ int) *fleetPrinter {
	return &fleetPrinter{a: a, asJSON: asJSON, st: newTextStyles(useColor(a.out)), done: map[*fleet.Run]fleetResult{}, cut: map[int]int{}}
}

// ended is fleet.RoundOptions.Ended.
func (p *fleetPrinter) ended(i int, r *fleet.Run) {
	fr, err := fleetRunOf(r)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil && p.err == nil {
		p.err = err
	}
	if r.Held != nil {
		p.cut[i]++
		logHeld(p.a.log(), r)
	}
	p.done[r] = fr.res
	if !p.asJSON {
		if isTerminal(p.a.err) {
			fmt.Fprint(p.a.err, "\r\x1b[K")
		}
		fmt.Fprintln(p.a.out, fleetLineText(p.st, fr))
	}
}

// waiting is fleet.RoundOptions.Waiting: a line on standard error (and
// the log file) when another process holds a Source's DEST.
func (p *fleetPrinter) waiting(_ int, j fleet.Job, holder string, again time.Duration) {
	p.a.log().Info("DEST held by another run: tried again", "source", redactURL(j.Source.URL), "dest", j.Dest, "holder", holder, "again", again.String())
	if p.asJSON {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if isTerminal(p.a.err) {
		fmt.Fprint(p.a.err, "\r\x1b[K")
	}
	fmt.Fprintf(p.a.err, "rsx: %s: %s is held by %s: tried again in %s\n", esc(j.Name()), esc(j.Dest), esc(holder), again)
}

// status is fleet.RoundOptions.Status.
func (p *fleetPrinter) status(running, done, total int) {
	if isTerminal(p.a.err) && !p.asJSON {
		fmt.Fprintf(p.a.err, "\r\x1b[Kfleet: %s running, %s of %s done", display.Count(running), display.Count(done), display.Count(total))
	}
}

func (p *fleetPrinter) clear() {
	if isTerminal(p.a.err) && !p.asJSON {
		fmt.Fprint(p.a.err, "\r\x1b[K")
	}
}

// result is the JSON object of a run written before (or, for a run not
// started, now).
func (p *fleetPrinter) result(r *fleet.Run) fleetResult {
	p.mu.Lock()
	fr, ok := p.done[r]
	p.mu.Unlock()
	if !ok {
		out, _ := fleetRunOf(r)
		fr = out.res
	}
	return fr
}

// results are the objects of a round's last run of each Source, in the
// file's order; a Source cut short by the hold bound before its last run
// says how many times.
func (p *fleetPrinter) results(runs []*fleet.Run) []fleetResult {
	out := make([]fleetResult, len(runs))
	for i, r := range runs {
		out[i] = p.result(r)
		if len(r.Cut) > 0 {
			h := r.Cut[len(r.Cut)-1].Held
			out[i].Held = &fleetHeldJSON{BoundSeconds: h.Bound.Seconds(), Waiting: h.Waiting, Runs: len(r.Cut)}
		}
	}
	return out
}

// fleetForever is --every: rounds until ctx ends; with --json each run is
// a JSON line, written in the file's order after its round.
func (a *app) fleetForever(ctx context.Context, f fleetFlags, every time.Duration) error {
	var pr *fleetPrinter
	o := fleet.EveryOptions{
		Every: every,
		Load:  f.load,
		Rounded: func(runs []*fleet.Run) {
			defer func() { pr.done = map[*fleet.Run]fleetResult{} }() // the round's objects are written
			if !f.asJSON {
				return
			}
			for _, r := range runs {
				for _, c := range r.Cut {
					if err := writeJSONLine(a.out, pr.result(c)); err != nil && pr.err == nil {
						pr.err = err
					}
				}
				if err := writeJSONLine(a.out, pr.result(r)); err != nil && pr.err == nil {
					pr.err = err
				}
			}
		},
		Host: a.runner().HostID(),
		FileError: func(err error) {
			fmt.Fprintf(a.err, "rsx: %s --sources: %s; the last good list goes on\n", f.command, esc(err.Error()))
		},
		Next: func(t time.Time) {
			pr.clear()
			if !f.asJSON {
				fmt.Fprintf(a.err, "rsx: %s --sources: next run %s (ctrl-c stops)\n", f.command, t.Local().Format("2006-01-02 15:04:05"))
			}
		},
	}
	pr = a.newFleetPrinter(f.asJSON, 0)
	o.Load = a.metricsLoad(f)
	o.Round = fleet.RoundOptions{Ended: func(i int, r *fleet.Run) {
		a.fleetRan(r, ctx.Err() != nil)
		pr.ended(i, r)
	}, Status: pr.status, Waiting: pr.waiting}
	if err := fleet.Every(ctx, a.runner(), o); err != nil {
		return failed(err)
	}
	if pr.err != nil {
		return failed(fmt.Errorf("%s --sources: write: %w", f.command, pr.err))
	}
	return nil
}

// addSources gives a command whose runs take one URL (sync, audit) the
// options --sources FILE and --every D: with --sources it takes no URL and
// runs for every Source of FILE. asJSON and dest are the command's --json
// and --dest; base gives the requests every Source starts from (the
// command's flags).
func (a *app) addSources(cmd *cobra.Command, asJSON *bool, dest *string, base func(c *cobra.Command) (fleet.Base, error)) {
	var file, metricsAddr string
	var every, debounce time.Duration
	fl := cmd.Flags()
	fl.StringVar(&metricsAddr, "metrics", "", metricsHelp)
	fl.StringVar(&file, "sources", "", "run for every Source of `FILE` (one Capability List URL a line, or TOML: docs/fleet.md) instead of one URL")
	everyHelp := "with --sources: go on until interrupted, running each Source again this long after its last start (the file is read again each time)"
	if cmd.Flags().Lookup("follow") != nil {
		everyHelp += "; with --follow too (default then 1h)"
	}
	fl.DurationVar(&every, "every", 0, everyHelp)
	cmd.Long += `

--sources FILE runs the command for every Source of FILE (one Capability List
URL a line, or TOML with each Source's settings: docs/fleet.md) instead of one
URL: in parallel, never two of one host nor two of one DEST at once; one
Source's failure never stops the others, and none holds a DEST that others
wait for longer than the file's hold (default 3m: its run stops and runs
again after them). --every D goes on until interrupted, running each Source
again D after its last start (the file is read again each round).`
	if cmd.Flags().Lookup("follow") != nil {
		fl.DurationVar(&debounce, "debounce", fleet.DefaultDebounce, "with --sources --follow: wait this long after a Source's notification before its run (the notifications meanwhile bring the same run)")
		cmd.Long += fmt.Sprintf(`

--sources FILE --follow follows the fleet's Sources until interrupted: each
Source's notification channels are subscribed to, and a notification brings
a run of that Source only, --debounce (default %s) after it (those that come
meanwhile, or while it runs, bring one run), which applies the notified
changes without reading the Change Lists, or reads them when the
notifications cannot be trusted to be all that changed (a gap, errors, out
of order, a framework notification); a run that finds the Source's channels
changed in its Capability List subscribes to them anew. A channel that
drops reconnects with back-off, and a run catches up what it missed. Every
Source also runs every --every (default %s; a Source's every in the file
wins): that is how a Source with no channel is followed. Each run is a line
(--json: JSON Lines of every event), and is recorded in its DEST's history
(rsx log). SIGINT or SIGTERM stops the runs under way as they stop a sync
(the next run continues) and ends with 0, or 1 when a Source's last run
failed.`, shortDuration(fleet.DefaultDebounce), shortDuration(fleet.DefaultFollowEvery))
		cmd.Example += "\n  rsx sync --sources fleet.toml --every 6h   # every Source every 6 hours, until ctrl-c" +
			"\n  rsx sync --sources fleet.toml --follow     # every Source when it notifies a change, until ctrl-c"
	} else {
		cmd.Example += "\n  rsx " + cmd.Name() + " --sources fleet.toml   # every Source of the file"
	}
	args, run := cmd.Args, cmd.RunE
	cmd.Args = func(c *cobra.Command, a []string) error {
		if err := checkMetricsFlag(c, file, every); err != nil {
			return err
		}
		if file == "" {
			if every != 0 {
				return failed(fmt.Errorf("%s: --every goes with --sources FILE", c.Name()))
			}
			if fl.Changed("debounce") {
				return failed(fmt.Errorf("%s: --debounce goes with --sources FILE --follow", c.Name()))
			}
			return args(c, a)
		}
		if len(a) > 0 {
			return failed(fmt.Errorf("%s --sources: the Sources come from %s: give no URL (got %q)", c.Name(), file, a[0]))
		}
		return nil
	}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if fl.Changed("metrics") {
			stop, err := a.startMetrics(c.Name(), metricsAddr)
			if err != nil {
				return failed(err)
			}
			defer stop()
		}
		if file == "" {
			return run(c, args)
		}
		least := a.fleetTimes.leastEvery()
		if every != 0 && every < least {
			return failed(fmt.Errorf("%s --sources: --every %s: give %s or more", c.Name(), every, least))
		}
		follow := fl.Lookup("follow") != nil && fl.Lookup("follow").Value.String() == "true"
		if follow && fl.Changed("poll-interval") {
			return failed(fmt.Errorf("%s --sources --follow: --poll-interval is for one Source; --every D is the time between two runs of a Source", c.Name()))
		}
		if err := a.checkLease(); err != nil {
			return failed(fmt.Errorf("%s --sources: %w", c.Name(), err))
		}
		b, err := base(c)
		if err != nil {
			return failed(err)
		}
		if fl.Changed("dest") {
			b.Dest = *dest
		}
		f := fleetFlags{command: fleet.Command(c.Name()), file: file, base: b, asJSON: *asJSON}
		ctx := c.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		if !follow {
			if fl.Changed("debounce") {
				return failed(fmt.Errorf("%s --sources: --debounce goes with --follow", c.Name()))
			}
			if every == 0 {
				return a.runFleet(ctx, f)
			}
			// Runs every D until stopped, as --follow: SIGINT or SIGTERM
			// is its end, not a failure (each Source's run stops as an
			// interrupted rsx sync does).
			if c.Annotations == nil {
				c.Annotations = map[string]string{}
			}
			c.Annotations[annotationEndsOnSignal] = "every"
			return a.fleetForever(ctx, f, every)
		}
		if debounce < 0 {
			return failed(fmt.Errorf("%s --sources --follow: --debounce must not be negative", c.Name()))
		}
		// Following ends on SIGINT or SIGTERM: that is its end, not a failure.
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[annotationEndsOnSignal] = "follow"
		given := every != 0
		if !given {
			every = fleet.DefaultFollowEvery
		}
		return a.fleetFollow(ctx, f, every, given, debounce)
	}
}

// syncFleetBase is the request every Source of rsx sync --sources starts
// from: the command's flags.
func (f *syncFlags) fleetBase(c *cobra.Command) (fleet.Base, error) {
	req, err := f.request(c, "")
	if err != nil {
		return fleet.Base{}, err
	}
	return fleet.Base{Sync: req}, nil
}

// auditFleetBase is the request every Source of rsx audit --sources starts
// from.
func (f *auditFlags) fleetBase(c *cobra.Command) (fleet.Base, error) {
	if err := f.destOnly(c); err != nil {
		return fleet.Base{}, err
	}
	return fleet.Base{Audit: job.AuditRequest{AllowOtherHosts: f.allowOtherHosts, Keep: maxTextLines, RequireCopy: true, Wait: f.wait}}, nil
}
