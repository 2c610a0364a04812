package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os/signal"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mattn/go-runewidth"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"rsx/display"
	"rsx/spotcheck"
)

// auditFlags are the options of rsx audit (without --dest: the spot check of a Source's claims).
type auditFlags struct {
	sample        string
	seed          uint64
	include       []string
	exclude       []string
	maxTotalBytes byteSize
	timeoutTotal  time.Duration
	json          bool
	dest          string // audit --dest: compare a copy with the Source (auditdest.go)
	// allowOtherHosts: audit --dest compares resources outside the
	// Source's authority too.
	allowOtherHosts bool
	// wait: audit --dest waits this long for a run that holds DEST.
	wait time.Duration
}

func newAuditCmd(a *app) *cobra.Command {
	f := auditFlags{sample: strconv.Itoa(spotcheck.DefaultSample)}
	cmd := &cobra.Command{
		Use: "audit [--dest DEST] [--sample N|all] [--seed S] [--include RE]... [--exclude RE]... [--json] URL",
		Example: `  rsx serve --addr 127.0.0.1:8080 &    # the demo Source, which these examples use
  rsx audit http://127.0.0.1:8080/.well-known/resourcesync
  rsx audit --sample all --json http://127.0.0.1:8080/dataset1/resourcelist.xml > audit.json
  rsx audit --sample 500 --seed 42 --include '/dataset2/' http://127.0.0.1:8080/.well-known/resourcesync
  rsx audit --dest ./copy http://127.0.0.1:8080/dataset1/capabilitylist.xml   # the copy rsx sync made in ./copy`,
		Short: "Spot audit: check that a Source's resources are what its lists claim",
		Long: `Spot audit of a Source's own claims: does each resource answer with the
length, type and checksums its lists declare? (With --dest: is a copy made by
rsx sync still what the Source holds? See the end.)

URL is a Source Description, a Capability List, a Resource List, a Change List
or an index of them; the audit reads the Resource Lists and Change Lists below
it, draws --sample resources uniformly from all of them (the same ones for the
same --seed; "all" checks every one) and fetches each, with its mirrors
(rel="duplicate", in pri order). It compares the status (2xx after redirects),
length, type (without parameters) and every declared digest, and lastmod with
Last-Modified (a difference is only a warning: servers differ). A digest in an
algorithm rsx does not know is unchecked. A body is read at most to its
declared length plus a margin. Where a Change List records a change after the
Resource List's at, the latest change's claims are the ones held; a resource
deleted since must answer 404 or 410.

--include and --exclude are regular expressions (RE2) matched against each
resource's URI. --max-total-bytes and --timeout-total end the run early with
what was checked so far, and say so. --timeout bounds each resource (and each
mirror), retries included.

Politeness: the HTTP options apply (--rate, --concurrency, retries with
Retry-After and back-off on 429 and 5xx). A host on a loopback or private
address gets --rate 0 (unlimited) and --concurrency 8 unless they are given,
since it is this machine's or this network's own; every other host 10
requests a second and 4 at once (the policy of every command).

With --dest DEST, the audit compares the copy in DEST (made by rsx sync)
with the Source's current state instead: its Resource List plus the changes
of the Change Lists after the list's at. Every local copy is read again and
hashed, so that damage to the copy is found. It names the resources that are
the same, missing, changed and extra, and the unannounced ones: those that
differ although no Change List since the copy's last sync announced a change.
The copies found intact are recorded in the state; a DEST that cannot be
written (a read-only mount, a WORM volume, a snapshot) is audited read-only,
writing nothing, and the audit says what it did not record.
Exit status 1 when the copy is not in sync; 2 when DEST holds no copy of
this Source (the error names the Sources it holds), or a sync holds DEST
(--wait 2h waits for it to end: a cron line that may start while a
sync runs).

Exit status: 0 nothing false found (warnings allowed); 1 a claim is false, a
mirror is not ok, or a list could not be read; 2 the audit could not run (bad
usage, URL unreachable or not a document to audit from, interrupted).`,
		Args: oneArg("URL", "a Source Description, a Capability List, a Resource List, a Change List or an index of them"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runAudit(cmd, f, args[0])
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.sample, "sample", f.sample, "resources to check, drawn uniformly from every list: a number, or all")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the sample: the same seed draws the same resources (default: a new one each run, printed)")
	fs.StringArrayVar(&f.include, "include", nil, "check only resources whose URI matches `RE` (repeatable)")
	fs.StringArrayVar(&f.exclude, "exclude", nil, "do not check resources whose URI matches `RE` (repeatable)")
	fs.Var(&f.maxTotalBytes, "max-total-bytes", "stop once this many resource bytes were read, e.g. 500MB (0 = no limit)")
	fs.DurationVar(&f.timeoutTotal, "timeout-total", 0, "stop after this long, e.g. 10m (0 = no limit)")
	fs.BoolVar(&f.json, "json", false, "print one JSON document on standard output")
	fs.StringVar(&f.dest, "dest", "", "compare the copy in `DEST` (a folder, s3://bucket/prefix, or NAME: of the configuration file) with the Source")
	fs.DurationVar(&f.wait, "wait", 0, "with --dest: wait up to `DURATION` (e.g. 2h) for a sync that holds DEST to end, instead of refusing at once")
	fs.BoolVar(&f.allowOtherHosts, "allow-other-hosts", false, "with --dest: compare the resources outside the Source's authority too, as a sync with --allow-other-hosts copies them (without it they are out of the copy's selection)")
	a.addSources(cmd, &f.json, &f.dest, f.fleetBase)
	return cmd
}

// runAudit runs rsx audit (the spot check). (audit --dest, which compares a copy with the
// Source, branches off here.)
func (a *app) runAudit(cmd *cobra.Command, f auditFlags, target string) error {
	if f.dest != "" {
		return a.runDestAudit(cmd, f, target)
	}
	if cmd.Flags().Changed("wait") {
		return failed(errors.New("audit: --wait waits for DEST's lock: an option of audit --dest"))
	}
	return a.runSpotAudit(cmd, f, target)
}

// auditOptions turns the flags into the audit's options.
func (f auditFlags) options(cmd *cobra.Command) (spotcheck.Options, error) {
	var o spotcheck.Options
	switch s := strings.TrimSpace(f.sample); {
	case strings.EqualFold(s, "all"):
		o.Sample = 0
	default:
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return o, fmt.Errorf("--sample %q: want a positive number or all", f.sample)
		}
		o.Sample = n
	}
	o.Seed = f.seed
	if !cmd.Flags().Changed("seed") {
		o.Seed = rand.Uint64() >> 11 // fits a JSON number exactly
	}
	for _, p := range []struct {
		flag string
		in   []string
		out  *[]*regexp.Regexp
	}{{"--include", f.include, &o.Include}, {"--exclude", f.exclude, &o.Exclude}} {
		res, err := compileREs(p.flag, p.in)
		if err != nil {
			return o, err
		}
		*p.out = append(*p.out, res...)
	}
	if f.maxTotalBytes < 0 || f.timeoutTotal < 0 {
		return o, errors.New("--max-total-bytes and --timeout-total must not be negative")
	}
	o.MaxTotalBytes = int64(f.maxTotalBytes)
	o.TimeBudget = f.timeoutTotal
	return o, nil
}

func (a *app) runSpotAudit(cmd *cobra.Command, f auditFlags, target string) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	o, err := f.options(cmd)
	if err != nil {
		return failed(fmt.Errorf("audit: %w", err))
	}
	client, err := a.http.client(target)
	if err != nil {
		return failed(err)
	}
	// Resources at once: twice one host's share, so that mirrors on other
	// hosts are fetched while the Source's slots are busy.
	o.Concurrency = 2 * client.LimitsFor(target).Concurrency
	o.Claims.Timeout = a.http.timeout
	o.OmitOKMirrors = !f.json
	o.TempDir = a.tempDir()
	var spool *spotcheck.Spool
	if f.json {
		// Every mirror checked is listed: the findings go to disk as they
		// are made and are read back, in order, into the document.
		spool = spotcheck.NewSpool(o.TempDir)
		defer spool.Close()
		o.Sink = spool
	}

	var bar *auditBar
	if isTerminal(a.err) {
		bar = newAuditBar(a.err)
		o.Progress = bar.update
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rep, runErr := spotcheck.New(client, o).Run(ctx, target)
	bar.finish()

	code := exitOK
	switch {
	case runErr != nil || rep.Stopped == spotcheck.StopInterrupted:
		code = exitFailure
	case rep.Wrong() || len(rep.Unread()) > 0:
		code = exitFound
	}
	if f.json {
		if err := writeAuditJSON(a.out, rep, runErr, spool); err != nil {
			return failed(fmt.Errorf("audit: write the report: %w", err))
		}
	} else if runErr == nil {
		// (When the audit could not run, the error on standard error is all.)
		writeAuditText(a.out, newTextStyles(useColor(a.out)), rep)
	}
	if runErr != nil {
		if hint := discoverHint(runErr, target); hint != "" {
			runErr = fmt.Errorf("%w; %s", runErr, hint)
		}
		return &exitError{code: exitFailure, err: fmt.Errorf("audit: %w", runErr)}
	}
	return exitWith(code)
}

// auditBar is the progress bar on standard error: a spinner with counts
// while the lists are read, then a bar of the resources checked.
type auditBar struct {
	lockedBar
	counted bool // the total is known and set
}

// lockedBar is a progress bar that goroutines update under its mutex;
// finish clears it from the terminal. A nil one does nothing.
type lockedBar struct {
	mu  sync.Mutex
	bar *progressbar.ProgressBar
}

func (b *lockedBar) finish() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	_ = b.bar.Clear()
	_ = b.bar.Exit()
}

func newAuditBar(w io.Writer) *auditBar {
	bar := progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("reading lists"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetPredictTime(true),
	)
	return &auditBar{lockedBar: lockedBar{bar: bar}}
}

func (b *auditBar) update(p spotcheck.Progress) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if p.Total >= 0 && !b.counted {
		b.counted = true
		b.bar.ChangeMax64(int64(max(p.Total, 1)))
	}
	desc := fmt.Sprintf("%s: %s lists, %s resources listed", p.Phase, display.Count(p.Lists), display.Count(p.Listed))
	if p.Phase == spotcheck.PhaseChecks || p.Checked > 0 {
		desc = "checking"
		if p.Failed > 0 {
			desc += fmt.Sprintf(" (%s failed)", display.Count(p.Failed))
		}
	}
	b.bar.Describe(desc)
	_ = b.bar.Set64(int64(p.Checked))
}

func (b *auditBar) finish() {
	if b != nil {
		b.lockedBar.finish()
	}
}

// JSON of the spot audit: the contract's fields (checked, ok, mismatched,
// warnings, unchecked, mirrors), and the others docs/json.md lists. The four
// lists are not in the struct: writeAuditJSON writes them after its
// fields, read back from the run's spool one element at a time.
type auditJSON struct {
	Source       string          `json:"source"`
	Checked      int             `json:"checked"`
	OK           int             `json:"ok"`
	Complete     bool            `json:"complete"`
	Stopped      *string         `json:"stopped"`
	Sample       *int            `json:"sample"`
	Seed         uint64          `json:"seed"`
	Listed       int64           `json:"listed"`
	Excluded     int64           `json:"excluded"`
	Selected     int             `json:"selected"`
	Failed       int             `json:"failed"`
	Unverifiable int             `json:"unverifiable"`
	Warned       int             `json:"warned"`
	Changed      int             `json:"changed"`
	Gone         int             `json:"gone"`
	MirrorsCount int             `json:"mirrors_checked"`
	MirrorsOK    int             `json:"mirrors_ok"`
	Bytes        int64           `json:"bytes"`
	Seconds      float64         `json:"seconds"`
	Lists        []auditListJSON `json:"lists"`
	Error        *string         `json:"error"`
}

type auditFindingJSON struct {
	URL      string `json:"url"`
	Mirror   string `json:"mirror,omitempty"`
	Field    string `json:"field"`
	Declared string `json:"declared"`
	Actual   string `json:"actual"`
	Reason   string `json:"reason,omitempty"`
	Changed  bool   `json:"changed,omitempty"`
}

type auditUncheckJSON struct {
	URL    string `json:"url"`
	Mirror string `json:"mirror,omitempty"`
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

type auditMirrorJSON struct {
	URL    string `json:"url"`
	Mirror string `json:"mirror"`
	OK     bool   `json:"ok"`
	Pri    int    `json:"pri"`
}

type auditListJSON struct {
	URL        string  `json:"url"`
	Capability string  `json:"capability"`
	Index      bool    `json:"index"`
	Entries    int     `json:"entries"`
	Error      *string `json:"error"`
	Note       string  `json:"note,omitempty"`
}

func auditJSONOf(rep *spotcheck.Report, runErr error) auditJSON {
	out := auditJSON{
		Source: rep.URL, Checked: rep.Checked, OK: rep.OK, Complete: runErr == nil && rep.Complete(),
		Lists: []auditListJSON{},
		Seed:  rep.Seed, Listed: rep.Listed, Excluded: rep.Excluded, Selected: rep.Selected,
		Failed: rep.Failed, Unverifiable: rep.Unverifiable, Warned: rep.Warned, Changed: rep.Changed, Gone: rep.Gone,
		MirrorsCount: rep.MirrorsChecked, MirrorsOK: rep.MirrorsOK,
		Bytes: rep.Bytes, Seconds: rep.Elapsed.Seconds(), Error: errString(runErr),
	}
	if rep.Sample > 0 {
		n := rep.Sample
		out.Sample = &n
	}
	if rep.Stopped != "" {
		s := string(rep.Stopped)
		out.Stopped = &s
	}
	for _, l := range rep.Lists {
		out.Lists = append(out.Lists, auditListJSON{URL: l.URL, Capability: string(l.Capability), Index: l.Index, Entries: l.Entries, Error: errString(l.Err), Note: l.Note})
	}
	return out
}

func findingJSON(f spotcheck.Finding) auditFindingJSON {
	return auditFindingJSON{URL: f.URL, Mirror: f.Mirror, Field: f.Field, Declared: f.Declared, Actual: f.Actual, Reason: f.Reason, Changed: f.Changed}
}

// writeAuditJSON writes the spot audit's one JSON document: its fields, then
// the lists (mismatched, warnings, unchecked, mirrors), each element read
// back from the spool (or, without one, from the Report) and written as it
// comes, so that memory does not grow with them. It is written as writeJSON
// writes: indented, escaped.
func writeAuditJSON(w io.Writer, rep *spotcheck.Report, runErr error, sp *spotcheck.Spool) error {
	var head bytes.Buffer
	if err := writeJSON(&head, auditJSONOf(rep, runErr)); err != nil {
		return err
	}
	b := bytes.TrimRight(head.Bytes(), "\n")
	b = bytes.TrimRight(b[:len(b)-1], "\n") // the closing brace
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(b)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("    ", "  ")
	enc.SetEscapeHTML(false)
	list := func(name string, each func(emit func(any) error) error) error {
		fmt.Fprintf(bw, ",\n  %q: [", name)
		n := 0
		err := each(func(v any) error {
			buf.Reset()
			if err := enc.Encode(v); err != nil {
				return err
			}
			if n > 0 {
				bw.WriteByte(',')
			}
			n++
			bw.WriteString("\n    ")
			_, err := bw.Write(display.EscapeJSON(bytes.TrimRight(buf.Bytes(), "\n")))
			return err
		})
		if n > 0 {
			bw.WriteString("\n  ")
		}
		bw.WriteByte(']')
		return err
	}
	if sp == nil { // the Report holds them
		sp = spotcheck.NewSpool("")
		defer sp.Close()
		for _, f := range rep.Mismatched {
			sp.Mismatch(f)
		}
		for _, f := range rep.Warnings {
			sp.Warning(f)
		}
		for _, u := range rep.Unchecked {
			sp.Unchecked(u)
		}
		for _, m := range rep.Mirrors {
			sp.Mirror(m)
		}
	}
	for _, err := range []error{
		list("mismatched", func(emit func(any) error) error {
			return sp.EachMismatched(func(f spotcheck.Finding) error { return emit(findingJSON(f)) })
		}),
		list("warnings", func(emit func(any) error) error {
			return sp.EachWarning(func(f spotcheck.Finding) error { return emit(findingJSON(f)) })
		}),
		list("unchecked", func(emit func(any) error) error {
			return sp.EachUnchecked(func(u spotcheck.Unchecked) error {
				return emit(auditUncheckJSON{URL: u.URL, Mirror: u.Mirror, Field: u.Field, Reason: u.Reason})
			})
		}),
		list("mirrors", func(emit func(any) error) error {
			return sp.EachMirror(func(m spotcheck.Mirror) error {
				return emit(auditMirrorJSON{URL: m.URL, Mirror: m.Mirror, OK: m.OK, Pri: m.Pri})
			})
		}),
	} {
		if err != nil {
			return err
		}
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// writeAuditText writes the human-readable report: a heading, one summary
// line per kind of finding, then tables of the false claims, the warnings
// and what could not be checked. Everything the Source wrote is escaped.
func writeAuditText(w io.Writer, st textStyles, rep *spotcheck.Report) {
	of := fmt.Sprintf("%s of %s", display.Count(rep.Selected), display.Count(rep.Listed))
	if rep.Sample == 0 {
		of = "all " + strconv.FormatInt(rep.Listed, 10)
	}
	fmt.Fprintf(w, "%s %s: %s resources (seed %d), %s, %s in %s\n", st.title("audit"), display.Escape(rep.URL), of, rep.Seed,
		display.Plural(len(rep.Lists), "list", "lists"), display.Size(rep.Bytes), rep.Elapsed.Round(time.Millisecond))

	mark := func(style func(string) string, sym string) string { return style(sym) }
	if len(rep.Mismatched) > 0 {
		fmt.Fprintf(w, "%s %s in %s: %s\n", mark(st.err, "✗"), display.Plural(len(rep.Mismatched), "false claim", "false claims"),
			display.Plural(rep.Failed, "resource", "resources"), byField(rep.Mismatched))
	}
	if bad := rep.MirrorsChecked - rep.MirrorsOK; bad > 0 {
		fmt.Fprintf(w, "%s %s of %s not ok\n", mark(st.err, "✗"), display.Count(bad), display.Plural(rep.MirrorsChecked, "mirror", "mirrors"))
	}
	if unread := rep.Unread(); len(unread) > 0 {
		fmt.Fprintf(w, "%s %s could not be read (their resources were not in the draw):\n", mark(st.err, "✗"), display.Plural(len(unread), "list", "lists"))
		for _, l := range unread {
			fmt.Fprintf(w, "    %s\n", display.Escape(l.Err.Error()))
		}
	}
	if len(rep.Warnings) > 0 {
		fmt.Fprintf(w, "%s %s: %s\n", mark(st.warn, "!"), display.Plural(len(rep.Warnings), "warning", "warnings"), byField(rep.Warnings))
	}
	if len(rep.Unchecked) > 0 {
		fields := make([]spotcheck.Finding, len(rep.Unchecked))
		for i, u := range rep.Unchecked {
			fields[i].Field = u.Field
		}
		fmt.Fprintf(w, "%s %s could not be compared: %s\n", mark(st.warn, "?"), display.Plural(len(rep.Unchecked), "claim", "claims"), byField(fields))
	}
	if rep.Unverifiable > 0 {
		fmt.Fprintf(w, "%s %s with nothing that could be compared\n", mark(st.warn, "?"), display.Plural(rep.Unverifiable, "resource", "resources"))
	}
	if rep.Changed > 0 {
		fmt.Fprintf(w, "%s %s held to a later change of a Change List (%s expected gone)\n", mark(st.dim, "·"), display.Plural(rep.Changed, "resource", "resources"), display.Count(rep.Gone))
	}
	if rep.MirrorsOK > 0 {
		fmt.Fprintf(w, "%s %s of %s ok\n", mark(st.rule, "✓"), display.Count(rep.MirrorsOK), display.Plural(rep.MirrorsChecked, "mirror", "mirrors"))
	}
	fmt.Fprintf(w, "%s %s of %s ok\n", mark(st.rule, "✓"), display.Count(rep.OK), display.Plural(rep.Checked, "resource checked", "resources checked"))
	for _, l := range rep.Lists {
		if l.Note != "" && l.Err == nil && !strings.HasPrefix(l.Note, "not audited") {
			fmt.Fprintf(w, "%s %s: %s\n", mark(st.dim, "·"), display.Escape(l.URL), display.Escape(l.Note))
		}
	}
	if !rep.Complete() {
		why := "stopped by the " + string(rep.Stopped)
		if rep.Stopped == spotcheck.StopInterrupted {
			why = "interrupted"
		}
		fmt.Fprintf(w, "%s incomplete: %s after %s of %s resources\n", mark(st.warn, "!"), why, display.Count(rep.Checked), display.Count(rep.Selected))
	}

	writeFindings(w, st, st.err, "FIELD", rep.Mismatched)
	writeFindings(w, st, st.warn, "WARNING", rep.Warnings)
	if len(rep.Unchecked) > 0 {
		fmt.Fprintln(w)
		rows := make([]tableRow, 0, len(rep.Unchecked))
		for _, u := range rep.Unchecked {
			rows = append(rows, tableRow{where(u.URL, u.Mirror), []string{u.Field, u.Reason}})
		}
		writeTable(w, st, st.warn, []string{"UNCHECKED", "WHY"}, rows)
	}
}

// writeFindings writes findings (mismatches or warnings) as a table whose
// first column is headed head, after a blank line; nothing when there are none.
func writeFindings(w io.Writer, st textStyles, mark func(string) string, head string, fs []spotcheck.Finding) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintln(w)
	rows := make([]tableRow, 0, len(fs))
	for _, f := range fs {
		rows = append(rows, tableRow{where(f.URL, f.Mirror), []string{f.Field, f.Declared, f.Actual}})
	}
	writeTable(w, st, mark, []string{head, "DECLARED", "ACTUAL"}, rows)
}

// where names a resource, or one of its mirrors.
func where(resource, mirror string) string {
	if mirror == "" {
		return resource
	}
	return resource + ", mirror " + mirror
}

// byField counts findings per field, most frequent first: "md5 3, length 1".
func byField(fs []spotcheck.Finding) string {
	n := map[string]int{}
	for _, f := range fs {
		n[f.Field]++
	}
	fields := make([]string, 0, len(n))
	for f := range n {
		fields = append(fields, f)
	}
	sort.Slice(fields, func(i, j int) bool {
		if n[fields[i]] != n[fields[j]] {
			return n[fields[i]] > n[fields[j]]
		}
		return fields[i] < fields[j]
	})
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = display.Escape(f) + " " + strconv.Itoa(n[f])
	}
	return strings.Join(parts, ", ")
}

// maxColumn bounds the width a column is padded to (a SHA-256 digest
// fits); longer cells push the rest of their row right.
const maxColumn = 64

// tableRow is a row of a table under the heading of the resource it is about.
type tableRow struct {
	group string
	cells []string
}

// writeTable writes rows under head, grouped by resource (a line of its
// own before its first row), columns aligned by display width, at most
// maxTextLines rows; the first column is coloured with mark.
func writeTable(w io.Writer, st textStyles, mark func(string) string, head []string, rows []tableRow) {
	shownRows := rows[:min(len(rows), maxTextLines)]
	width := make([]int, len(head))
	for i, h := range head {
		width[i] = len(h)
	}
	for _, row := range shownRows {
		for i := range row.cells {
			row.cells[i] = display.Escape(row.cells[i])
			width[i] = min(max(width[i], runewidth.StringWidth(row.cells[i])), maxColumn)
		}
	}
	line := func(cells []string, style func(i int, s string) string) {
		var b strings.Builder
		b.WriteString("  ")
		for i, c := range cells {
			if i == len(cells)-1 {
				b.WriteString(style(i, c))
				break
			}
			pad := max(width[i]-runewidth.StringWidth(c), 0)
			b.WriteString(style(i, c) + strings.Repeat(" ", pad+2))
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(head, func(_ int, s string) string { return st.title(s) })
	group := ""
	for _, row := range shownRows {
		if row.group != group {
			group = row.group
			fmt.Fprintln(w, st.rule(display.Escape(group)))
		}
		line(row.cells, func(i int, s string) string {
			if i == 0 {
				return mark(s)
			}
			return s
		})
	}
	if len(rows) > maxTextLines {
		fmt.Fprintf(w, "… and %s more (--json lists every one)\n", display.Count(len(rows)-maxTextLines))
	}
}
