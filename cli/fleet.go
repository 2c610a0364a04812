package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rsx/display"
	"rsx/fleet"
)

// fleetJob is one Source of a fleet run: its settings resolved, and the
// command line of its own run.
type fleetJob struct {
	src   fleet.Source
	dest  string
	host  string
	every time.Duration
	args  []string
}

// jobs resolves every Source's settings: its own, then the file's, then the
// command line's (cmdDest, and the flags given); the command is "sync" or
// "audit".
func fleetJobs(f *fleet.File, command, cmdDest string, extra []string) ([]fleetJob, error) {
	var out []fleetJob
	for _, s := range f.Sources {
		j := fleetJob{src: s, dest: firstNonEmpty(s.Dest, f.Dest, cmdDest), every: s.Interval}
		if j.every == 0 {
			j.every = f.Interval
		}
		if j.dest == "" {
			return nil, fmt.Errorf("--sources: %s has no destination: give --dest, or dest in the file", s.URL)
		}
		if u, err := url.Parse(s.URL); err == nil {
			j.host = strings.ToLower(u.Host)
		}
		// The command line's flags first: the file's settings, after them,
		// win (a repeated --include or --exclude adds).
		args := append([]string{command, "--dest", j.dest, "--json"}, extra...)
		if command == "sync" {
			for _, re := range firstSlice(s.Include, f.Include) {
				args = append(args, "--include", re)
			}
			for _, re := range firstSlice(s.Exclude, f.Exclude) {
				args = append(args, "--exclude", re)
			}
			if b := firstBool(s.Delete, f.Delete); b != nil && *b {
				args = append(args, "--delete")
			}
			if b := firstBool(s.Checksum, f.Checksum); b != nil && *b {
				args = append(args, "--checksum")
			}
			if m := firstNonEmpty(s.Mode, f.Mode); m != "" {
				args = append(args, "--mode", m)
			}
		}
		if b := firstBool(s.AllowOtherHosts, f.AllowOtherHosts); b != nil && *b {
			args = append(args, "--allow-other-hosts")
		}
		if r := firstFloat(s.Rate, f.Rate); r != nil {
			args = append(args, "--rate", strconv.FormatFloat(*r, 'g', -1, 64))
		}
		if c := firstInt(s.Concurrency, f.Concurrency); c != nil {
			args = append(args, "--concurrency", strconv.Itoa(*c))
		}
		j.args = append(args, s.URL)
		out = append(out, j)
	}
	return out, nil
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func firstSlice(a, b []string) []string {
	if a != nil {
		return a
	}
	return b
}

func firstBool(a, b *bool) *bool {
	if a != nil {
		return a
	}
	return b
}

func firstFloat(a, b *float64) *float64 {
	if a != nil {
		return a
	}
	return b
}

func firstInt(a, b *int) *int {
	if a != nil {
		return a
	}
	return b
}

// passedFlags are the command line's flags to hand on to each Source's run:
// those given, but the fleet's own and those the file sets per Source.
func passedFlags(cmd *cobra.Command, skip ...string) []string {
	var out []string
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if slices.Contains(skip, fl.Name) {
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				out = append(out, "--"+fl.Name+"="+v)
			}
			return
		}
		out = append(out, "--"+fl.Name+"="+fl.Value.String())
	})
	return out
}

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
}

// fleetJSON is rsx sync --sources's (and audit --sources's) JSON document.
type fleetJSON struct {
	Sources []fleetResult `json:"sources"`
	OK      int           `json:"ok"`
	Failed  int           `json:"failed"`
}

// runFleet runs command ("sync" or "audit") for every Source of the fleet
// file: Sources in parallel (parallel at most; never two of one host, nor
// two of one DEST, at once), each in a run of its own so that one Source's
// failure never stops the others. With every > 0 it goes on until
// interrupted, reading the file again before each round and running each
// Source when its time between runs has passed.
func (a *app) runFleet(cmd *cobra.Command, command, file, cmdDest string, every time.Duration, asJSON bool, skip []string) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	extra := passedFlags(cmd, skip...)
	if every > 0 {
		return a.fleetForever(ctx, command, file, cmdDest, every, asJSON, extra)
	}
	ff, err := fleet.Read(file)
	if err != nil {
		return failed(err)
	}
	jobs, err := fleetJobs(ff, command, cmdDest, extra)
	if err != nil {
		return failed(err)
	}
	results := a.fleetRound(ctx, jobs, ff.Parallel, asJSON)
	if ctx.Err() != nil {
		return failed(fmt.Errorf("%s --sources: interrupted; the Sources not finished continue at the next run", command))
	}
	return a.fleetReport(command, results, asJSON)
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
		fmt.Fprintf(a.out, "%s %s: %d of %s ok, %d failed\n", mark, command, out.OK, display.Plural(len(results), "Source", "Sources"), out.Failed)
	}
	if out.Failed > 0 {
		return foundProblems()
	}
	return nil
}

// fleetForever runs rounds until ctx ends: before each, the file is read
// again (a file that does not read keeps the last good one, and says so);
// each Source runs when its time between runs has passed since its last
// start.
func (a *app) fleetForever(ctx context.Context, command, file, cmdDest string, every time.Duration, asJSON bool, extra []string) error {
	lastStart := map[string]time.Time{}
	var last []fleetJob
	lastParallel := 0
	for {
		ff, err := fleet.Read(file)
		jobs := last
		parallel := lastParallel
		if err == nil {
			jobs, err = fleetJobs(ff, command, cmdDest, extra)
			parallel = ff.Parallel
		}
		if err != nil {
			if last == nil {
				return failed(err)
			}
			fmt.Fprintf(a.err, "rsx: %s --sources: %s; the last good list goes on\n", command, esc(err.Error()))
			jobs = last
		}
		last, lastParallel = jobs, parallel
		now := time.Now()
		var due []fleetJob
		next := now.Add(every)
		for _, j := range jobs {
			if j.every == 0 {
				j.every = every
			}
			key := j.src.URL + "\x00" + j.dest
			t, ok := lastStart[key]
			if !ok || !now.Before(t.Add(j.every)) {
				due = append(due, j)
				lastStart[key] = now
				t = now
			}
			if n := t.Add(j.every); n.Before(next) {
				next = n
			}
		}
		if len(due) > 0 {
			results := a.fleetRound(ctx, due, parallel, asJSON)
			if ctx.Err() != nil {
				return nil
			}
			if asJSON {
				for _, r := range results {
					if err := writeJSONLine(a.out, r); err != nil {
						return failed(err)
					}
				}
			}
		}
		wait := time.Until(next)
		if !asJSON {
			fmt.Fprintf(a.err, "rsx: %s --sources: next run %s (ctrl-c stops)\n", command, next.Local().Format("2006-01-02 15:04:05"))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(max(wait, time.Second)):
		}
	}
}

// fleetRound runs jobs once and returns their results in the file's order.
// Without asJSON it prints one line per Source as each ends, and the
// number running and done on standard error.
func (a *app) fleetRound(ctx context.Context, jobs []fleetJob, parallel int, asJSON bool) []fleetResult {
	if parallel <= 0 {
		parallel = 4
	}
	results := make([]fleetResult, len(jobs))
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	busyHost := map[string]bool{}
	busyDest := map[string]bool{}
	started := make([]bool, len(jobs))
	running, done := 0, 0
	st := newTextStyles(useColor(a.out))
	status := func() {
		if isTerminal(a.err) && !asJSON {
			fmt.Fprintf(a.err, "\r\x1b[Kfleet: %d running, %d of %d done", running, done, len(jobs))
		}
	}
	var wg sync.WaitGroup
	mu.Lock()
	for done+running < len(jobs) || running > 0 {
		if ctx.Err() != nil && running == 0 {
			break
		}
		// Start what may start.
		startedOne := false
		for i, j := range jobs {
			if started[i] || running >= parallel || ctx.Err() != nil {
				continue
			}
			dkey := filepath.Clean(j.dest)
			if busyHost[j.host] || busyDest[dkey] {
				continue
			}
			started[i], busyHost[j.host], busyDest[dkey] = true, true, true
			running++
			startedOne = true
			wg.Add(1)
			go func(i int, j fleetJob, dkey string) {
				defer wg.Done()
				r := a.runOne(ctx, j)
				mu.Lock()
				results[i] = r
				busyHost[j.host], busyDest[dkey] = false, false
				running--
				done++
				if !asJSON {
					if isTerminal(a.err) {
						fmt.Fprint(a.err, "\r\x1b[K")
					}
					a.fleetLine(st, r)
				}
				status()
				cond.Broadcast()
				mu.Unlock()
			}(i, j, dkey)
		}
		if startedOne {
			status()
		}
		if done == len(jobs) || (ctx.Err() != nil && running == 0) {
			break
		}
		cond.Wait()
	}
	mu.Unlock()
	wg.Wait()
	if isTerminal(a.err) && !asJSON {
		fmt.Fprint(a.err, "\r\x1b[K")
	}
	for i := range results {
		if !started[i] {
			msg := "not run: interrupted"
			results[i] = fleetResult{Source: jobs[i].src.URL, Name: jobs[i].src.Name, Dest: jobs[i].dest, ExitStatus: exitFailure, Error: &msg, Result: json.RawMessage("null")}
		}
	}
	return results
}

// runOne runs one Source's command, as its own rsx run, and reads its JSON.
// The run ends, as on SIGINT, when ctx is done.
func (a *app) runOne(ctx context.Context, j fleetJob) fleetResult {
	return a.runOneNotified(ctx, j, nil)
}

// runOneNotified is runOne for a following fleet: n (nil: none) carries the
// notifications the run answers in, and what it made of them out.
func (a *app) runOneNotified(ctx context.Context, j fleetJob, n *notifiedRun) fleetResult {
	start := time.Now()
	var out, errb bytes.Buffer
	code := runWith(j.args, streams{in: strings.NewReader(""), out: &out, err: &errb}, func(sub *app) {
		sub.base = ctx
		sub.http.transport = a.http.transport
		sub.cfg, sub.env = a.cfg, a.env // the same file: each run resolves a named --dest itself
		sub.notified = n
	})
	r := fleetResult{Source: j.src.URL, Name: j.src.Name, Dest: j.dest, ExitStatus: code, Started: start.UTC().Format(time.RFC3339),
		Seconds: time.Since(start).Seconds(), Result: json.RawMessage("null")}
	raw := bytes.TrimSpace(out.Bytes())
	var probe struct {
		Error *string `json:"error"`
	}
	if len(raw) > 0 && json.Valid(raw) {
		r.Result = json.RawMessage(raw)
		if json.Unmarshal(raw, &probe) == nil && probe.Error != nil {
			r.Error = probe.Error
		}
	}
	if r.Error == nil && code == exitFailure {
		msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(errb.String()), "rsx: "))
		if msg == "" {
			msg = "could not run"
		}
		r.Error = &msg
	}
	return r
}

// fleetLine is the one line a Source's run gives in the text output.
func (a *app) fleetLine(st textStyles, r fleetResult) {
	fmt.Fprintln(a.out, fleetLineText(st, r))
}

// fleetLineText is fleetLine's line, without its end.
func fleetLineText(st textStyles, r fleetResult) string {
	name := r.Source
	if r.Name != "" {
		name = r.Name + " (" + r.Source + ")"
	}
	secs := time.Duration(r.Seconds * float64(time.Second)).Round(time.Millisecond)
	if r.Error != nil {
		return fmt.Sprintf("%s %s → %s: %s (%s)", st.err("✗"), esc(name), esc(r.Dest), esc(*r.Error), secs)
	}
	var s struct {
		Mode                                          string `json:"mode"`
		Created, Updated, Deleted, Unchanged, Skipped int
		Failed                                        []json.RawMessage `json:"failed"`
		InSync                                        *bool             `json:"in_sync"`
		Missing                                       []json.RawMessage `json:"missing"`
		Changed                                       []json.RawMessage `json:"changed"`
		Same                                          int               `json:"same"`
	}
	_ = json.Unmarshal(r.Result, &s)
	mark := st.rule("✓")
	if r.ExitStatus != 0 {
		mark = st.err("✗")
	}
	var what string
	if s.InSync != nil {
		what = fmt.Sprintf("audit: %d same, %d missing, %d changed", s.Same, len(s.Missing), len(s.Changed))
		if *s.InSync {
			what += ": in sync"
		} else {
			what += ": not in sync"
		}
	} else {
		what = fmt.Sprintf("%s: %d created, %d updated, %d deleted, %d unchanged, %d failed", s.Mode, s.Created, s.Updated, s.Deleted, s.Unchanged, len(s.Failed))
	}
	return fmt.Sprintf("%s %s → %s: %s (%s)", mark, esc(name), esc(r.Dest), what, secs)
}

// addSources gives a command whose runs take one URL (sync, audit) the
// options --sources FILE and --every D: with --sources it takes no URL and
// runs for every Source of FILE. asJSON and dest are the command's --json
// and --dest.
func (a *app) addSources(cmd *cobra.Command, asJSON *bool, dest *string) {
	var file string
	var every, debounce time.Duration
	fl := cmd.Flags()
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
Source's failure never stops the others. --every D goes on until interrupted,
running each Source again D after its last start (the file is read again each
round).`
	if cmd.Flags().Lookup("follow") != nil {
		fl.DurationVar(&debounce, "debounce", defaultFleetDebounce, "with --sources --follow: wait this long after a Source's notification before its run (the notifications meanwhile bring the same run)")
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
failed.`, shortDuration(defaultFleetDebounce), shortDuration(defaultFleetFollowEvery))
		cmd.Example += "\n  rsx sync --sources fleet.toml --every 6h   # every Source every 6 hours, until ctrl-c" +
			"\n  rsx sync --sources fleet.toml --follow     # every Source when it notifies a change, until ctrl-c"
	} else {
		cmd.Example += "\n  rsx " + cmd.Name() + " --sources fleet.toml   # every Source of the file"
	}
	args, run := cmd.Args, cmd.RunE
	cmd.Args = func(c *cobra.Command, a []string) error {
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
		if file == "" {
			return run(c, args)
		}
		least := a.fleetTimes.leastEvery()
		if every != 0 && every < least {
			return failed(fmt.Errorf("%s --sources: --every %s: give %s or more", c.Name(), every, least))
		}
		d := ""
		if fl.Changed("dest") {
			d = *dest
		}
		skip := []string{"sources", "every", "dest", "json", "follow", "debounce"}
		follow := fl.Lookup("follow") != nil && fl.Lookup("follow").Value.String() == "true"
		if !follow {
			if fl.Changed("debounce") {
				return failed(fmt.Errorf("%s --sources: --debounce goes with --follow", c.Name()))
			}
			if every > 0 {
				// Runs every D until stopped, as --follow: SIGINT or
				// SIGTERM is its end, not a failure (each Source's run
				// stops as an interrupted rsx sync does).
				if c.Annotations == nil {
					c.Annotations = map[string]string{}
				}
				c.Annotations[annotationEndsOnSignal] = "every"
			}
			return a.runFleet(c, c.Name(), file, d, every, *asJSON, skip)
		}
		if fl.Changed("poll-interval") {
			return failed(fmt.Errorf("%s --sources --follow: --poll-interval is for one Source; --every D is the time between two runs of a Source", c.Name()))
		}
		if debounce < 0 {
			return failed(fmt.Errorf("%s --sources --follow: --debounce must not be negative", c.Name()))
		}
		// Following ends on SIGINT or SIGTERM: that is its end, not a failure.
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[annotationEndsOnSignal] = "follow"
		ctx := c.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		given := every != 0
		if !given {
			every = defaultFleetFollowEvery
		}
		return a.fleetFollow(ctx, c.Name(), file, d, every, given, debounce, *asJSON, passedFlags(c, skip...))
	}
}
