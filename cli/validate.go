package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"rsx/crawl"
	"rsx/display"
	"rsx/fetch"
	"rsx/model"
)

// validateFlags are the options of rsx validate.
type validateFlags struct {
	json        bool
	quiet       bool
	rules       bool
	maxProblems int
	recursive   bool // validate_recursive.go
	depth       int  // with recursive: levels below each target
	maxDocs     int  // with recursive: documents per target
	packages    bool // with recursive: compare dump packages with their contents copies
	archives    bool // with recursive: walk into archives
	hints       bool // also report the rules of severity hint
}

func newValidateCmd(a *app) *cobra.Command {
	var f validateFlags
	cmd := &cobra.Command{
		Use: "validate [--json] TARGET...",
		Example: `  rsx serve --addr 127.0.0.1:8080 &    # the demo Source, which these examples use
  rsx validate resourcelist.xml    # a file: exit 1 when it has errors
  rsx validate http://127.0.0.1:8080/dataset1/changelist.xml
  curl -s http://127.0.0.1:8080/dataset1/resourcelist-0001.xml | rsx validate -
  rsx validate --recursive --quiet http://127.0.0.1:8080/.well-known/resourcesync`,
		Short: "Check ResourceSync documents against the specification",
		Long: `Check ResourceSync documents (files, URLs, or - for standard input) against
ANSI/NISO Z39.99-2017. Every problem names the entry, the offending value, the rule
and the section of the specification. --rules lists the rules, each warning
with the sentence it rests on: what the standard says "must" is an error, what
it says "should" or "recommended" a warning; what it leaves free ("may",
"can") is at most a hint, reported only with --hints.

--recursive follows the down links of URL targets and checks the documents
against each other, within --depth levels (default 16) and --max-documents
documents (default 100000) per target; reaching a bound is reported. With it,
--packages also compares the manifest inside each dump package with the copy
its contents link points to (sections 11.1, 13.1): it downloads every package
that has a contents link. Archives are checked as documents, but the
documents they list are checked only with --archives (archives grow without
bound); an archive left so is said after the summary. Its memory does not
grow with the tree: the links of an index and the reports wait in rsx's
temporary folder until they can be printed in document order.

Exit status: 0 no errors (warnings allowed), 1 errors found, 2 a target could
not be read or is no ResourceSync document (an HTML page, a text file: there
is nothing to check; rsx discover finds what it points to).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runValidate(cmd.Context(), f, args)
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&f.json, "json", false, "print one JSON document on standard output")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "print only the summary line")
	fs.BoolVar(&f.rules, "rules", false, "print the rule catalogue (ID, severity, section, summary) and exit")
	fs.IntVar(&f.maxProblems, "max-problems", 10000, "problems kept per document (counts stay exact)")
	fs.BoolVar(&f.hints, "hints", false, "also report hints: what the standard leaves free (may, can) but is worth a look; they are neither errors nor warnings")
	fs.BoolVar(&f.recursive, "recursive", false, "follow down links from URL targets and check the documents against each other")
	fs.IntVar(&f.depth, "depth", crawl.DefaultMaxDepth, "with --recursive: levels below each URL to follow (-1: no bound)")
	fs.IntVar(&f.maxDocs, "max-documents", crawl.DefaultMaxDocuments, "with --recursive: most documents to check below each URL (-1: no bound)")
	fs.BoolVar(&f.packages, "packages", false, "with --recursive: compare each dump package's manifest with its contents copy (downloads every package that has a contents link)")
	fs.BoolVar(&f.archives, "archives", false, "with --recursive: also check the documents that archives list, against the archives (archives grow without bound)")
	return cmd
}

func (a *app) runValidate(ctx context.Context, f validateFlags, targets []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	color := useColor(a.out)
	if f.rules {
		return printRules(a.out, f.json, color)
	}
	if len(targets) == 0 {
		return failed(errors.New("validate: no TARGET given (a file, a URL, or - for standard input)"))
	}
	if f.maxProblems <= 0 {
		return failed(errors.New("validate: --max-problems must be positive"))
	}
	if f.packages && !f.recursive {
		return failed(errors.New("validate: --packages needs --recursive"))
	}
	if f.archives && !f.recursive {
		return failed(errors.New("validate: --archives needs --recursive"))
	}
	var urls []string
	for _, t := range targets {
		if model.IsHTTPURL(t) {
			urls = append(urls, t)
		}
	}
	var client *fetch.Client
	if len(urls) > 0 {
		c, err := a.http.client(urls...)
		if err != nil {
			return failed(err)
		}
		client = c
	}
	// Validation allocates a few short-lived strings per entry and keeps almost
	// nothing: with the default GOGC the collector would run every 4 MB for no
	// gain. A higher percentage (heap target ≥ 40 MB) halves the time of large
	// documents (BENCHMARKS.md). GOGC in the environment wins.
	// A recursive walk runs at tree's 400, under tree's soft memory limit
	// (softMemoryLimit): it keeps a hash of each URL reached, and its heap
	// grows to what the limit allows (issue 23).
	if os.Getenv("GOGC") == "" {
		gc := 1000
		if f.recursive {
			gc = 400
		}
		defer debug.SetGCPercent(debug.SetGCPercent(gc))
	}
	opts := model.CheckOptions{MaxProblems: f.maxProblems, Hints: f.hints}
	if f.recursive {
		return a.runValidateRecursive(ctx, client, f, targets, opts, color)
	}
	reports := make([]docReport, 0, len(targets))
	for _, t := range targets {
		r := a.validateTarget(ctx, client, t, opts)
		if r.Err != nil && !f.json {
			fmt.Fprintf(a.err, "rsx: validate %s: %s\n", esc(t), esc(r.Err.Error()))
		}
		reports = append(reports, r)
	}
	code := printValidateReports(a.out, reports, printOptions{JSON: f.json, Color: color, Quiet: f.quiet})
	return exitWith(code)
}

// validateTarget reads and checks one file, URL or standard input ("-").
func (a *app) validateTarget(ctx context.Context, client *fetch.Client, target string, opts model.CheckOptions) docReport {
	if target == "-" {
		o := fetch.OpenReader(a.in, "standard input")
		defer o.Close()
		inflateInline(o)
		a.boundLocal(o, "standard input")
		if err := refuseZIP(o, "standard input"); err != nil {
			return docReport{URL: target, Err: err}
		}
		return reportOf(target, validateOpened(o, opts))
	}
	var g fetch.Getter
	if client != nil {
		g = client
	}
	o, err := fetch.Open(ctx, g, target)
	if err != nil {
		if model.IsHTTPURL(target) {
			err = fmt.Errorf("fetch: %w", err)
		}
		return docReport{URL: target, Err: err}
	}
	defer o.Close()
	inflateInline(o)
	var m *mappedDoc
	if o.Local {
		m = mapLocal(o, a.http.localDocumentLimit()) // validate_map.go
		defer m.close()
		a.boundLocal(o, target)
	}
	if err := refuseZIP(o, target); err != nil {
		return docReport{URL: target, Err: err}
	}
	if !o.Local {
		opts.BaseURL = o.URL
	}
	var rep *model.Report
	if m != nil {
		rep = validateMapped(m, opts)
	} else {
		rep = validateOpened(o, opts)
	}
	r := reportOf(target, rep)
	if !o.Local && o.URL != target {
		r.FinalURL = o.URL
	}
	if r.Err == nil && readButNotSitemap(rep.Header, rep.Err) {
		// Nothing to check: the one rule for such a TARGET (exit status 2);
		// its problems stay in the report.
		r.Err = notResourceSync(target, rootOf(rep.Header, rep.Err), false)
	}
	return r
}

// rootOf says what a document that is no Sitemap is: its root element, or
// the error that stopped the parser before one.
func rootOf(h *model.Header, err error) error {
	if h != nil && h.RootLocal != "" {
		return fmt.Errorf("root element <%s>", h.RootLocal)
	}
	return err
}

// refuseZIP reads the first bytes of o and, when they are a ZIP archive's
// magic bytes (a dump package), returns an error that says so and names the
// command that opens it; otherwise it leaves o.Body reading from its start.
func refuseZIP(o *fetch.Opened, name string) error {
	var head [4]byte
	n, err := io.ReadFull(o.Body, head[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		// Not ours to judge: the validator meets the same error where it
		// looks for one (a corrupt gzip header is malformed input).
		o.Body = readCloser{io.MultiReader(bytes.NewReader(head[:n]), failingReader{err}), o.Body}
		return nil
	}
	if n == 4 && string(head[:2]) == "PK" && (string(head[2:]) == "\x03\x04" || string(head[2:]) == "\x05\x06") {
		return fmt.Errorf("%s is a ZIP package (a Resource Dump or Change Dump package), not an XML document: open it with rsx dump %s", name, name)
	}
	o.Body = readCloser{io.MultiReader(bytes.NewReader(head[:n]), o.Body), o.Body}
	return nil
}

// failingReader fails every Read with err.
type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }

// boundLocal bounds a local file or standard input by --max-bytes, as fetch
// bounds a document it gets.
func (a *app) boundLocal(o *fetch.Opened, name string) {
	o.Body = readCloser{fetch.LimitReader(o.Body, a.http.localDocumentLimit(), name), o.Body}
}

// validateOpened validates what o reads, decoding on every core. Its body is
// bounded by --max-bytes (fetch's limit, or boundLocal).
func validateOpened(o *fetch.Opened, opts model.CheckOptions) *model.Report {
	dopts := documentDecoder()
	dopts.Parallel = runtime.GOMAXPROCS(0)
	return model.ValidateWith(o.Body, opts, dopts)
}

// validateMapped is validateOpened for a file mapped into memory.
func validateMapped(m *mappedDoc, opts model.CheckOptions) *model.Report {
	dopts := documentDecoder()
	dopts.Parallel = runtime.GOMAXPROCS(0)
	return model.ValidateBytes(m.b, m.release, opts, dopts)
}

// inflateInline has a gzipped local file or standard input, just opened,
// inflated in the goroutine that reads it when validateOpened will decode on
// more than one core: the parallel decoder keeps the cores busy, and a
// goroutine of its own for inflate only competed with it (BENCHMARKS.md,
// "Gzip"). A body from the network keeps its read-ahead, which also bridges
// the network's pauses.
func inflateInline(o *fetch.Opened) {
	if o.Local && runtime.GOMAXPROCS(0) > 1 {
		o.ReadInline()
	}
}

// docReport is the validation outcome of one document.
//
// It is the unit the printers work on: printValidateReports prints a list of
// them as text or JSON and returns the exit status. A caller that validates
// documents in its own way (validate --recursive, following down links and
// adding cross-document problems) builds one docReport per document — with
// reportOf from a *model.Report, or by hand — appends its extra problems
// (keeping Errors/Warnings in step, e.g. with addProblem), and hands the whole
// list to printValidateReports.
type docReport struct {
	URL        string // the target as given: a file path, a URL, or "-"
	FinalURL   string // after redirects, when different from URL
	Title      string // "Change List Index", "Document" …
	Capability string // capability of the document-level <rs:md>, "" when none
	Index      bool   // the root is <sitemapindex>
	Entries    int
	Bytes      int64
	Problems   []model.Problem // stored problems: document-level first, then by entry
	Errors     int             // exact counts (more may have been found than stored)
	Warnings   int
	// Err is set when the document could not be read at all or to its end
	// (missing file, HTTP error, connection cut): exit status 2.
	// Malformed XML is not an Err but an "xml-malformed" error problem.
	Err error
}

// reportOf turns a model report into a docReport.
func reportOf(target string, r *model.Report) docReport {
	d := docReport{
		URL:      target,
		Title:    r.Title,
		Entries:  r.Entries,
		Bytes:    r.Bytes,
		Problems: r.Problems,
		Errors:   r.Errors,
		Warnings: r.Warnings,
	}
	if h := r.Header; h != nil {
		d.Capability = string(h.MD.Capability)
		d.Index = h.Root == model.RootSitemapIndex
		if h.Root == model.RootUnknown && h.RootLocal != "" {
			d.Title = "<" + h.RootLocal + "> document"
		}
	}
	var se *model.SyntaxError
	if r.Err != nil && !errors.As(r.Err, &se) {
		d.Err = r.Err // a read error, not malformed XML
	}
	return d
}

// addProblem appends p to d and counts it (a hint is counted as neither
// an error nor a warning).
func (d *docReport) addProblem(p model.Problem) {
	d.Problems = append(d.Problems, p)
	switch p.Severity {
	case model.SeverityError:
		d.Errors++
	case model.SeverityWarning:
		d.Warnings++
	}
}

// severityMark is the mark and the padded label of a severity in text output.
func severityMark(st textStyles, s model.Severity) (mark, label string) {
	switch s {
	case model.SeverityError:
		return st.err("✗"), st.err("error  ")
	case model.SeverityWarning:
		return st.warn("!"), st.warn("warning")
	}
	return st.dim("·"), st.dim("hint   ")
}

// printOptions choose the output of printValidateReports.
type printOptions struct {
	JSON  bool // one JSON document (the CLI contract's validate shape)
	Color bool // ANSI colours in text output
	Quiet bool // text output: the summary line only
	// Bounds say where a recursive walk stopped at a bound (--depth,
	// --max-documents): shown after the summary, and in JSON as "bounds".
	Bounds []string
	// ArchivesNotWalked are the archives whose documents a recursive walk
	// did not check (no --archives): said after the summary, and in JSON as
	// "archives_not_walked".
	ArchivesNotWalked []string
}

// validateExit is the exit status for a list of reports: 2 if any document could
// not be read, else 1 if any has errors, else 0.
func validateExit(reports []docReport) int {
	code := exitOK
	for i := range reports {
		switch {
		case reports[i].Err != nil:
			return exitFailure
		case reports[i].Errors > 0:
			code = exitFound
		}
	}
	return code
}

// printValidateReports prints reports as text or JSON and returns the exit
// status (see validateExit).
func printValidateReports(w io.Writer, reports []docReport, o printOptions) int {
	if o.JSON {
		writeValidateJSON(w, reports, o.Bounds, o.ArchivesNotWalked)
	} else {
		writeValidateText(w, reports, o)
	}
	return validateExit(reports)
}

// JSON shapes of the CLI contract (plus section, line, title, bytes, error).
type jsonValidate struct {
	Errors    int            `json:"errors"`
	Warnings  int            `json:"warnings"`
	Documents []jsonDocument `json:"documents"`
	Bounds    []string       `json:"bounds,omitempty"` // where --recursive stopped at a bound
	// ArchivesNotWalked: archives whose documents --recursive did not check (no --archives).
	ArchivesNotWalked []string `json:"archives_not_walked,omitempty"`
	// Error is set when a document could not be read (exit status 2): the
	// contract's error field of a command that could not do its job.
	Error *string `json:"error,omitempty"`
}

type jsonDocument struct {
	URL        string        `json:"url"`
	FinalURL   string        `json:"final_url,omitempty"`
	Title      string        `json:"title"`
	Capability string        `json:"capability"`
	Index      bool          `json:"index"`
	Entries    int           `json:"entries"`
	Bytes      int64         `json:"bytes"`
	Errors     int           `json:"errors"`
	Warnings   int           `json:"warnings"`
	Error      *string       `json:"error"`
	Problems   []jsonProblem `json:"problems"`
}

type jsonProblem struct {
	Severity string `json:"severity"`
	Rule     string `json:"rule"`
	Section  string `json:"section"`
	Message  string `json:"message"`
	Entry    *int   `json:"entry"`
	Line     *int   `json:"line"`
}

// jsonProblems is ps in the JSON shape of the command-line contract.
func jsonProblems(ps []model.Problem) []jsonProblem {
	out := make([]jsonProblem, 0, len(ps))
	for _, p := range ps {
		jp := jsonProblem{Severity: p.Severity.String(), Rule: p.Rule, Section: p.Section, Message: p.Message}
		if p.Entry >= 0 {
			n := p.Entry
			jp.Entry = &n
		}
		if p.Line > 0 {
			n := p.Line
			jp.Line = &n
		}
		out = append(out, jp)
	}
	return out
}

func writeValidateJSON(w io.Writer, reports []docReport, bounds, archives []string) {
	var t validateTotals
	for i := range reports {
		t.add(&reports[i])
	}
	writeValidateJSONStream(w, t, bounds, archives, func(fn func(*docReport) error) error {
		for i := range reports {
			if err := fn(&reports[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// validateTotals are the figures of validate's JSON document that come
// before its documents: known before they are written.
type validateTotals struct {
	errors, warnings int
	unread           int
	firstUnread      string // the error field of the first report that could not be read
}

func (t *validateTotals) add(r *docReport) {
	t.errors += r.Errors
	t.warnings += r.Warnings
	if r.Err != nil {
		if t.unread == 0 {
			t.firstUnread = "validate " + r.URL + ": " + r.Err.Error()
		}
		t.unread++
	}
}

// writeValidateJSONStream writes validate's JSON document, its documents
// given one at a time by each, in the bytes writeJSON gives the whole.
func writeValidateJSONStream(w io.Writer, t validateTotals, bounds, archives []string, each func(func(*docReport) error) error) error {
	out := jsonValidate{Errors: t.errors, Warnings: t.warnings, Documents: []jsonDocument{}, Bounds: bounds, ArchivesNotWalked: archives}
	if t.unread > 0 {
		msg := t.firstUnread
		if t.unread > 1 {
			msg = fmt.Sprintf("%s documents could not be read; the first: %s", display.Count(t.unread), msg)
		}
		out.Error = &msg
	}
	var head bytes.Buffer
	if err := writeJSON(&head, out); err != nil {
		return err
	}
	const empty = `"documents": []`
	before, after, _ := strings.Cut(head.String(), empty)
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(before + `"documents": [`)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	n := 0
	err := each(func(r *docReport) error {
		buf.Reset()
		if err := enc.Encode(jsonDocumentOf(r)); err != nil {
			return err
		}
		if n == 0 {
			bw.WriteString("\n    ")
		} else {
			bw.WriteString(",\n    ")
		}
		n++
		_, err := bw.Write(display.EscapeJSON(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))))
		return err
	})
	if err != nil {
		return err
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]" + after)
	return bw.Flush()
}

// jsonDocumentOf is one report in the JSON shape of the CLI contract.
func jsonDocumentOf(r *docReport) jsonDocument {
	d := jsonDocument{
		URL: r.URL, FinalURL: r.FinalURL, Title: r.Title, Capability: r.Capability, Index: r.Index,
		Entries: r.Entries, Bytes: r.Bytes, Errors: r.Errors, Warnings: r.Warnings,
		Problems: make([]jsonProblem, 0, len(r.Problems)),
	}
	if r.Err != nil {
		msg := r.Err.Error()
		d.Error = &msg
	}
	d.Problems = append(d.Problems, jsonProblems(r.Problems)...)
	return d
}

func writeValidateText(w io.Writer, reports []docReport, o printOptions) {
	vt := newValidateText(w, o)
	for i := range reports {
		vt.report(&reports[i])
	}
	vt.end()
}

// validateText writes validate's text output a report at a time, and the
// summary at the end.
type validateText struct {
	o                                       printOptions
	st                                      textStyles
	bw                                      *bufio.Writer
	docs, errs, warns, hints, unread, notRS int
}

func newValidateText(w io.Writer, o printOptions) *validateText {
	return &validateText{o: o, st: newTextStyles(o.Color), bw: bufio.NewWriterSize(w, 64<<10)}
}

func (v *validateText) report(r *docReport) {
	st, bw := v.st, v.bw
	v.docs++
	v.errs += r.Errors
	v.warns += r.Warnings
	for _, p := range r.Problems {
		if p.Severity == model.SeverityHint {
			v.hints++
		}
	}
	switch {
	case errors.Is(r.Err, errNotResourceSync):
		v.notRS++
	case r.Err != nil:
		v.unread++
	}
	if v.o.Quiet {
		return
	}
	bw.WriteString(st.title(esc(r.URL)))
	if r.Err != nil {
		// Why is said once, on standard error (runValidate).
		label := "could not be read"
		if errors.Is(r.Err, errNotResourceSync) {
			label = "not checked: not a ResourceSync document"
		}
		bw.WriteString("  " + st.err(label) + "\n")
		if len(r.Problems) == 0 {
			return
		}
	} else {
		fmt.Fprintf(bw, "  %s, %s, %s", esc(r.Title), display.Plural(r.Entries, "entry", "entries"), display.Size(r.Bytes))
		if r.FinalURL != "" {
			bw.WriteString(", from " + esc(r.FinalURL))
		}
		bw.WriteString("\n")
	}
	for _, p := range r.Problems {
		mark, sev := severityMark(st, p.Severity)
		where := "document"
		if p.Entry >= 0 {
			where = "entry " + model.EntryNumber(p.Entry)
		}
		line := ""
		if p.Line > 0 {
			line = "line " + strconv.Itoa(p.Line)
		}
		msg := esc(strings.TrimSuffix(p.Message, " (§"+p.Section+")"))
		fmt.Fprintf(bw, "  %s %s %s %s %s %s\n", mark, sev, st.dim(pad(where, 11)), st.dim(pad(line, 10)),
			st.rule(pad(p.Rule+" §"+p.Section, 36)), msg)
	}
	shown := 0
	for _, p := range r.Problems {
		if p.Severity != model.SeverityHint {
			shown++
		}
	}
	if hidden := r.Errors + r.Warnings - shown; hidden > 0 {
		fmt.Fprintf(bw, "  %s\n", st.dim(fmt.Sprintf("… and %s not shown (raise --max-problems)", display.Plural(hidden, "more problem", "more problems"))))
	}
	if r.Errors+r.Warnings == 0 && len(r.Problems) == 0 && r.Err == nil {
		bw.WriteString("  " + st.dim("no problems") + "\n")
	}
}

func (v *validateText) end() error {
	st, bw, o := v.st, v.bw, v.o
	summary := display.Plural(v.docs, "document", "documents") + ", " + display.Plural(v.errs, "error", "errors") + ", " + display.Plural(v.warns, "warning", "warnings")
	if v.hints > 0 {
		summary += ", " + display.Plural(v.hints, "hint", "hints")
	}
	if v.unread > 0 {
		summary += ", " + strconv.Itoa(v.unread) + " could not be read"
	}
	if v.notRS > 0 {
		summary += ", " + display.Plural(v.notRS, "target", "targets") + " not ResourceSync"
	}
	if v.errs > 0 || v.unread > 0 || v.notRS > 0 {
		summary = st.err(summary)
	}
	bw.WriteString(summary + "\n")
	for _, b := range o.Bounds {
		bw.WriteString(st.warn("not all checked: "+esc(b)) + "\n")
	}
	if n := len(o.ArchivesNotWalked); n > 0 {
		bw.WriteString(st.dim(fmt.Sprintf("the documents of %s were not checked (--archives checks them): %s",
			display.Plural(n, "archive", "archives"), esc(strings.Join(o.ArchivesNotWalked, ", ")))) + "\n")
	}
	return bw.Flush()
}

// printRules prints the rule catalogue: the single-document rules (the
// archives' among them), those of the Notification draft that rsx watch and
// the explorer's notifications apply, then the cross-document ones that
// --recursive adds.
func printRules(w io.Writer, asJSON, color bool) error {
	rules := slices.Concat(model.Rules(), model.NotificationRules(), crawl.Rules())
	if asJSON {
		type jr struct {
			ID       string `json:"id"`
			Severity string `json:"severity"`
			Section  string `json:"section"`
			Summary  string `json:"summary"`
			Basis    string `json:"basis,omitempty"`
		}
		out := make([]jr, len(rules))
		for i, r := range rules {
			out[i] = jr{r.ID, r.Severity.String(), r.Section, r.Summary, r.Basis}
		}
		return writeJSON(w, out)
	}
	st := newTextStyles(color)
	var b strings.Builder
	for _, r := range rules {
		_, sev := severityMark(st, r.Severity)
		fmt.Fprintf(&b, "%s %s %s %s\n", st.rule(pad(r.ID, 32)), sev, pad("§"+r.Section, 6), r.Summary)
		if r.Basis != "" {
			fmt.Fprintf(&b, "%s %s\n", strings.Repeat(" ", 48), st.dim(r.Basis))
		}
	}
	b.WriteString(st.dim("Severity follows the words of the standard: must → error; should, recommended → warning; may, can,\n"+
		"or nothing said → hint, shown only with --hints. Each warning and hint quotes the sentence it rests on.") + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}
