package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"rsx/display"
	"rsx/dump"
	"rsx/model"
)

// dumpFlags are the options of rsx dump.
type dumpFlags struct {
	verify          bool
	extract         string
	json            bool
	maxPackageBytes byteSize
}

func newDumpCmd(a *app) *cobra.Command {
	f := dumpFlags{maxPackageBytes: dump.DefaultMaxPackageBytes}
	cmd := &cobra.Command{
		Use: "dump [--verify] [--extract DIR] [--json] URL|FILE",
		Example: `  rsx serve --addr 127.0.0.1:8080 &    # the demo Source, which these examples use
  rsx dump http://127.0.0.1:8080/dataset1/resourcedump.xml
  rsx dump --verify package.zip
  rsx dump --extract ./out http://127.0.0.1:8080/dataset2/resourcedump.xml`,
		Short: "Open a Resource Dump, Change Dump or package: manifest, verification, safe extraction",
		Long: `Open a Resource Dump or Change Dump (or an index of them), or a single ZIP
package, given as a URL or a local file. Every package is downloaded to a
temporary file and checked against its dump entry (length, hashes), its
manifest.xml is read and checked against the specification as validate
checks a document (its problems are listed beside the verification, in JSON
as manifest_problems, and do not change the exit status), and its contents
copy (the contents link) is compared with it.

--verify reads every bitstream and compares its length and hashes with the
manifest. --extract DIR verifies and writes the bitstreams under DIR at their
manifest paths: unsafe paths and members (absolute, "..", backslashes,
symlinks, devices, zip bombs) are refused, and a file is renamed into place
only once it has verified, so a bad member never replaces a good file.

A dump given as a local file reads its packages, the parts of an index and
the manifest copies from the folder of that file and below, checked as
downloaded ones are: a relative location is resolved against the document
that writes it, a package named by a URL is read from its copy saved beside
the dump when there is one (else downloaded), and a location that is
absolute or leads out of the folder (by "..", or a symbolic link) is refused
and not read.

A package whose length or hash differs from what its dump entry declares is
refused whole: nothing of it is verified or extracted, even when it agrees
with its own manifest. A bitstream whose manifest entry declares neither a
length nor a hash is reported as unverifiable, not as verified.

Exit status: 0 nothing wrong; 1 a mismatch, a refused package, a missing
bitstream, a refused path or a contents copy that differs; 2 the target or a
package could not be fetched or is not a dump or a ZIP package.`,
		Args: oneArg("URL or FILE", "a Resource Dump, a Change Dump, an index of them, or one ZIP package"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runDump(cmd.Context(), f, args[0])
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&f.verify, "verify", false, "read every bitstream and check it against the manifest")
	fs.StringVar(&f.extract, "extract", "", "extract the verified bitstreams into `DIR` (implies --verify)")
	fs.BoolVar(&f.json, "json", false, "print one JSON document on standard output")
	fs.Var(&f.maxPackageBytes, "max-package-bytes", "largest package to download, e.g. 4GiB, 500MB")
	return cmd
}

func (a *app) runDump(ctx context.Context, f dumpFlags, target string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.maxPackageBytes <= 0 {
		return failed(errors.New("dump: --max-package-bytes must be positive"))
	}
	client, err := a.http.client(target)
	if err != nil {
		return failed(err)
	}
	job := dump.Job{Verify: f.verify || f.extract != "", ExtractDir: f.extract}
	var prog *dumpProgress
	if isTerminal(a.err) {
		prog = &dumpProgress{w: a.err}
		job.Progress = prog.update
	}
	var tw *dumpText
	if !f.json {
		tw = &dumpText{w: a.out, extract: f.extract, verify: job.Verify}
		job.OnPackage = func(p *dump.PackageReport) {
			prog.clear()
			tw.pkg(p)
		}
	}
	rep, runErr := dump.Run(ctx, client, target, job, dump.Options{MaxPackageBytes: int64(f.maxPackageBytes), TempDir: a.tempDir()})
	prog.clear()
	code := exitOK
	switch {
	case runErr != nil || rep.Failed():
		code = exitFailure
	case !rep.OK():
		code = exitFound
	}
	if f.json {
		writeDumpJSON(a.out, rep, runErr)
	} else {
		tw.summary(rep, runErr)
	}
	if runErr != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("dump: %w", runErr)}
	}
	return exitWith(code)
}

// dumpProgress prints one updating status line on a terminal.
type dumpProgress struct {
	mu    sync.Mutex
	w     io.Writer
	last  time.Time
	shown bool
}

func (p *dumpProgress) update(pkg, stage string, done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if now := time.Now(); now.Sub(p.last) < 100*time.Millisecond {
		return
	} else {
		p.last = now
	}
	u := esc(pkg)
	if len(u) > 50 {
		u = "…" + u[len(u)-49:]
	}
	of := ""
	if total > 0 {
		of = " of " + display.Size(total)
	}
	fmt.Fprintf(p.w, "\r\033[K%s %s  %s%s", stage, u, display.Size(done), of)
	p.shown = true
}

func (p *dumpProgress) clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// dumpText writes the human-readable report, one package at a time.
type dumpText struct {
	w       io.Writer
	extract string
	verify  bool // the bitstreams are read (--verify, --extract)
}

// maxTextLines bounds the lines of one kind printed per package.
const maxTextLines = 50

func manifestTimes(h *model.Header) string {
	var parts []string
	for _, t := range []struct {
		name string
		d    model.Datetime
	}{{"at", h.MD.At}, {"completed", h.MD.Completed}, {"from", h.MD.From}, {"until", h.MD.Until}} {
		if t.d.Raw != "" {
			parts = append(parts, t.name+" "+esc(t.d.Raw))
		}
	}
	return strings.Join(parts, ", ")
}

func (t *dumpText) pkg(p *dump.PackageReport) {
	w := t.w
	fmt.Fprintf(w, "package %s\n", esc(p.URL))
	if p.Beside != "" {
		fmt.Fprintf(w, "  read from the file beside the dump: %s (not downloaded)\n", esc(p.Beside))
	}
	if p.Header != nil {
		desc := []string{display.Size(p.Size), esc(p.Header.MD.Capability.Title())}
		if times := manifestTimes(p.Header); times != "" {
			desc[1] += " (" + times + ")"
		}
		desc = append(desc, display.Plural(p.Entries, "entry", "entries"), display.Plural(p.Members, "member", "members"))
		fmt.Fprintf(w, "  %s\n", strings.Join(desc, ", "))
	}
	writeManifestProblems(w, p.ManifestProblems)
	for _, m := range p.Mismatched {
		fmt.Fprintf(w, "  ✗ package %s: expected %s, actual %s (as the dump entry declares)\n", esc(m.What), esc(m.Expected), esc(m.Actual))
	}
	if p.Err != nil {
		fmt.Fprintf(w, "  ✗ %s\n", esc(p.Err.Error()))
		return
	}
	if r := p.Result; r != nil {
		if r.Verified > 0 || len(r.Mismatched) > 0 {
			fmt.Fprintf(w, "  ✓ %s verified\n", display.Count(r.Verified))
		}
		if n := len(r.Unverifiable); n > 0 {
			fmt.Fprintf(w, "  ? %s: the manifest declares neither a length nor a hash to check them against\n", display.Plural(n, "bitstream unverifiable", "bitstreams unverifiable"))
		}
		lines := func(n int, f func(i int)) {
			for i := 0; i < n && i < maxTextLines; i++ {
				f(i)
			}
			if n > maxTextLines {
				fmt.Fprintf(w, "    … and %s more\n", display.Count(n-maxTextLines))
			}
		}
		lines(len(r.Mismatched), func(i int) {
			m := r.Mismatched[i]
			fmt.Fprintf(w, "  ✗ mismatched %s: %s expected %s actual %s\n", esc(m.Path), esc(m.What), esc(m.Expected), esc(m.Actual))
		})
		lines(len(r.Unverifiable), func(i int) { fmt.Fprintf(w, "  ? unverifiable %s\n", esc(r.Unverifiable[i])) })
		lines(len(r.Missing), func(i int) { fmt.Fprintf(w, "  ✗ missing %s\n", esc(r.Missing[i])) })
		lines(len(r.Unlisted), func(i int) { fmt.Fprintf(w, "  ! unlisted %s\n", esc(r.Unlisted[i])) })
		lines(len(r.Refused), func(i int) {
			x := r.Refused[i]
			name := x.Path
			if name == "" {
				name = x.Loc
			}
			fmt.Fprintf(w, "  ✗ refused %s: %s\n", esc(name), esc(x.Reason))
		})
		if len(r.Deleted) > 0 {
			fmt.Fprintf(w, "  %s (no bitstream)\n", display.Plural(len(r.Deleted), "deleted entry", "deleted entries"))
		}
		if t.extract != "" {
			fmt.Fprintf(w, "  → extracted %s (%s) to %s\n", display.Plural(r.Extracted, "file", "files"), display.Size(r.Written), esc(t.extract))
		}
	}
	switch {
	case p.ContentsErr != nil:
		fmt.Fprintf(w, "  ✗ contents copy: %s\n", esc(p.ContentsErr.Error()))
	case len(p.ContentsDiff) > 0:
		fmt.Fprintf(w, "  ✗ contents copy %s differs from the manifest in the package:\n", esc(p.Contents))
		for _, d := range p.ContentsDiff {
			fmt.Fprintf(w, "      %s\n", esc(d))
		}
	case p.Contents != "":
		fmt.Fprintf(w, "  ✓ contents copy matches the manifest\n")
	}
}

// writeManifestProblems says how the manifest departs from the
// specification: one line per rule, with its count and first message.
func writeManifestProblems(w io.Writer, ps []model.Problem) {
	errs, warns := model.CountProblems(ps)
	if errs+warns == 0 {
		return
	}
	fmt.Fprintf(w, "  ! manifest.xml does not conform: %s, %s (beside the verification)\n",
		display.Plural(errs, "error", "errors"), display.Plural(warns, "warning", "warnings"))
	for _, g := range model.ProblemsByRule(ps) {
		p, rule := g.First, g.First.Rule
		mark := "✗"
		if p.Severity == model.SeverityWarning {
			mark = "!"
		}
		times := ""
		if g.Count > 1 {
			times = fmt.Sprintf(" ×%s, the first", display.Count(g.Count))
		}
		fmt.Fprintf(w, "      %s %s%s: %s\n", mark, esc(rule), times, esc(p.Message))
	}
}

func (t *dumpText) summary(rep *dump.Report, runErr error) {
	verified, problems, failedPkgs, refusedPkgs, outside := 0, 0, 0, 0, 0
	manifestErrs, manifestWarns := 0, 0
	for _, p := range rep.Packages {
		e, w := model.CountProblems(p.ManifestProblems)
		manifestErrs, manifestWarns = manifestErrs+e, manifestWarns+w
		switch {
		case p.Refused():
			refusedPkgs++
		case p.LocationRefused():
			outside++
		case p.Err != nil:
			failedPkgs++
		}
		problems += len(p.Mismatched)
		// A contents copy that differs is one problem, however many lines
		// describe it (they stop at 20 and a count).
		if p.ContentsErr != nil || len(p.ContentsDiff) > 0 {
			problems++
		}
		if r := p.Result; r != nil {
			verified += r.Verified
			problems += len(r.Mismatched) + len(r.Missing) + len(r.Refused)
		}
	}
	head := ""
	if d := rep.Dump; d != nil {
		head = esc(d.Capability.Title()+" "+d.URL) + ": "
	}
	if runErr != nil && len(rep.Packages) == 0 {
		return // nothing was read: the error, on standard error, says why
	}
	verdict := "OK"
	if runErr != nil || failedPkgs > 0 || refusedPkgs > 0 || outside > 0 || problems > 0 {
		verdict = "FAILED"
	}
	bitstreams := fmt.Sprintf("%s verified", display.Count(verified))
	if !t.verify {
		// Not "0 verified", which reads as if every bitstream had failed.
		bitstreams = "bitstreams not read (--verify checks them)"
	}
	line := fmt.Sprintf("%s%s: %s, %s, %s", head, verdict, display.Plural(len(rep.Packages), "package", "packages"),
		bitstreams, display.Plural(problems, "problem", "problems"))
	if refusedPkgs > 0 {
		line += fmt.Sprintf(", %s refused (not as the dump declares)", display.Count(refusedPkgs))
	}
	if outside > 0 {
		line += fmt.Sprintf(", %s refused (located out of the dump's folder)", display.Count(outside))
	}
	if failedPkgs > 0 {
		line += fmt.Sprintf(", %s not read", display.Count(failedPkgs))
	}
	if manifestErrs+manifestWarns > 0 {
		line += fmt.Sprintf("; the manifests depart from the specification: %s, %s",
			display.Plural(manifestErrs, "error", "errors"), display.Plural(manifestWarns, "warning", "warnings"))
	}
	fmt.Fprintln(t.w, line)
}

// JSON shape of the CLI contract, plus extras.
type jsonDumpOut struct {
	OK         bool              `json:"ok"`
	Target     string            `json:"target"`
	Capability string            `json:"capability,omitempty"`
	Documents  []string          `json:"documents,omitempty"`
	Packages   []jsonDumpPackage `json:"packages"`
	Error      *string           `json:"error"`
}

type jsonDumpPackage struct {
	URL                 string             `json:"url"`
	OK                  bool               `json:"ok"`
	Dump                string             `json:"dump,omitempty"`
	Size                int64              `json:"size"`
	Capability          string             `json:"capability"`
	At                  string             `json:"at,omitempty"`
	Completed           string             `json:"completed,omitempty"`
	From                string             `json:"from,omitempty"`
	Until               string             `json:"until,omitempty"`
	Entries             int                `json:"entries"`
	Members             int                `json:"members"`
	Verified            int                `json:"verified"`
	Unverifiable        []jsonDumpPath     `json:"unverifiable"`
	Extracted           int                `json:"extracted"`
	ExtractedBytes      int64              `json:"extracted_bytes"`
	Mismatched          []jsonDumpMismatch `json:"mismatched"`
	Missing             []jsonDumpPath     `json:"missing"`
	Unlisted            []jsonDumpPath     `json:"unlisted"`
	Refused             []jsonDumpRefusal  `json:"refused"`
	Deleted             int                `json:"deleted"`
	PackageMismatched   []jsonDumpMismatch `json:"package_mismatched"`
	PackageRefused      bool               `json:"package_refused"`            // refused whole: it differs from its dump entry
	LocationRefused     bool               `json:"location_refused,omitempty"` // a local dump's location out of its folder: not read
	Beside              string             `json:"beside,omitempty"`           // the file beside a local dump read instead of the URL
	Contents            *string            `json:"contents"`
	ContentsMismatch    bool               `json:"contents_mismatch"`
	ContentsDifferences []string           `json:"contents_differences"`
	ContentsError       *string            `json:"contents_error"`
	// ManifestProblems: how manifest.xml departs from the specification, as
	// validate reports it (beside the verification: they do not change ok).
	ManifestProblems []jsonProblem `json:"manifest_problems"`
	Error            *string       `json:"error"`
}

type jsonDumpMismatch struct {
	Path     string `json:"path"`
	Loc      string `json:"loc"`
	What     string `json:"what"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
}

type jsonDumpPath struct {
	Path string `json:"path"`
}

type jsonDumpRefusal struct {
	Path   string `json:"path"`
	Loc    string `json:"loc,omitempty"`
	Reason string `json:"reason"`
}

func jsonMismatches(ms []dump.Mismatch) []jsonDumpMismatch {
	out := make([]jsonDumpMismatch, 0, len(ms))
	for _, m := range ms {
		out = append(out, jsonDumpMismatch{Path: m.Path, Loc: m.Loc, What: m.What, Expected: m.Expected, Actual: m.Actual})
	}
	return out
}

func writeDumpJSON(w io.Writer, rep *dump.Report, runErr error) {
	out := jsonDumpOut{OK: runErr == nil && rep.OK(), Target: rep.Target, Packages: make([]jsonDumpPackage, 0, len(rep.Packages)), Error: errString(runErr)}
	if d := rep.Dump; d != nil {
		out.Capability = string(d.Capability)
		for _, doc := range d.Documents {
			out.Documents = append(out.Documents, doc.URL)
		}
	}
	for _, p := range rep.Packages {
		j := jsonDumpPackage{
			URL: p.URL, OK: p.OK(), Size: p.Size, Entries: p.Entries, Members: p.Members,
			Mismatched: []jsonDumpMismatch{}, Unverifiable: []jsonDumpPath{}, Missing: []jsonDumpPath{}, Unlisted: []jsonDumpPath{}, Refused: []jsonDumpRefusal{},
			PackageMismatched: jsonMismatches(p.Mismatched), PackageRefused: p.Refused(), LocationRefused: p.LocationRefused(), Beside: p.Beside, ContentsMismatch: len(p.ContentsDiff) > 0,
			ContentsDifferences: append([]string{}, p.ContentsDiff...),
			ContentsError:       errString(p.ContentsErr), Error: errString(p.Err),
			ManifestProblems: jsonProblems(p.ManifestProblems),
		}
		if p.Ref != nil {
			j.Dump = p.Ref.Dump
		}
		if p.Contents != "" {
			c := p.Contents
			j.Contents = &c
		}
		if h := p.Header; h != nil {
			j.Capability = string(h.MD.Capability)
			j.At, j.Completed, j.From, j.Until = h.MD.At.Raw, h.MD.Completed.Raw, h.MD.From.Raw, h.MD.Until.Raw
		}
		if r := p.Result; r != nil {
			j.Verified, j.Extracted, j.ExtractedBytes, j.Deleted = r.Verified, r.Extracted, r.Written, len(r.Deleted)
			for _, u := range r.Unverifiable {
				j.Unverifiable = append(j.Unverifiable, jsonDumpPath{Path: u})
			}
			j.Mismatched = jsonMismatches(r.Mismatched)
			for _, m := range r.Missing {
				j.Missing = append(j.Missing, jsonDumpPath{Path: m})
			}
			for _, u := range r.Unlisted {
				j.Unlisted = append(j.Unlisted, jsonDumpPath{Path: u})
			}
			for _, x := range r.Refused {
				j.Refused = append(j.Refused, jsonDumpRefusal{Path: x.Path, Loc: x.Loc, Reason: x.Reason})
			}
		}
		out.Packages = append(out.Packages, j)
	}
	writeJSON(w, out)
}
