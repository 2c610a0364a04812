package dump

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"rsx/fetch"
	"rsx/model"
)

// Job says what Run does with each package besides opening it.
type Job struct {
	Verify     bool   // read every bitstream and compare it with the manifest
	ExtractDir string // extract (and so verify) into this directory when not ""
	// Progress, when not nil, reports a package's stage ("download", "verify",
	// "extract") and its bytes done of total (-1 when unknown).
	Progress func(pkg, stage string, done, total int64)
	// OnPackage, when not nil, is called as soon as a package is done.
	OnPackage func(*PackageReport)
}

// Report is what Run found.
type Report struct {
	Target   string
	Dump     *Dump // nil when the target was a single package
	Packages []*PackageReport
}

// OK reports whether every package is fine.
func (r *Report) OK() bool {
	for _, p := range r.Packages {
		if !p.OK() {
			return false
		}
	}
	return true
}

// Failed reports whether some package could not be downloaded or opened.
// A package refused because it differs from its dump entry is not a
// failure to do the job but something wrong found (OK is false).
func (r *Report) Failed() bool {
	for _, p := range r.Packages {
		if p.Err != nil && !p.Refused() && !p.LocationRefused() {
			return true
		}
	}
	return false
}

// PackageReport is the outcome for one package.
type PackageReport struct {
	URL     string      // the package's URL, or its file path
	Ref     *PackageRef // the dump entry that lists it; nil for a package given directly
	Size    int64
	Header  *model.Header // the manifest's header (capability, at/completed, from/until); nil when not opened
	Entries int           // entries of the manifest
	Members int
	// ManifestProblems are the manifest's own departures from the
	// specification (model.CheckDocument: a missing at, up link or leading
	// slash of a path, …). They are reported beside the verification and do
	// not make the package fail it: every bitstream can still match.
	ManifestProblems []model.Problem
	// Mismatched compares the package itself with its dump entry's length and
	// hashes (Path is "").
	Mismatched []Mismatch
	// Result is Verify's or Extract's, or (neither asked) the checks that need
	// no reading: missing, unlisted and refused paths. Verified stays 0 then.
	Result *Result
	// Contents is the URL of the manifest copy; ContentsDiff its differences
	// from the manifest inside the package; ContentsErr why it could not be read.
	Contents     string
	ContentsDiff []string
	ContentsErr  error
	Err          error // the package could not be downloaded or opened
	// Beside is the file of a local dump's folder read instead of the URL
	// (a copy saved with the dump), "" when none.
	Beside string
}

// LocationRefused reports whether the package, listed in a local dump, was
// not read because its location is absolute or leads out of the dump's
// folder (a *LocationError).
func (r *PackageReport) LocationRefused() bool {
	var le *LocationError
	return errors.As(r.Err, &le)
}

// Refused reports whether the package was refused whole because it differs
// from its dump entry (ErrEntryMismatch): Err says why, Mismatched what.
func (r *PackageReport) Refused() bool { return errors.Is(r.Err, ErrEntryMismatch) }

// OK reports whether nothing is wrong with the package.
func (r *PackageReport) OK() bool {
	return r.Err == nil && len(r.Mismatched) == 0 && (r.Result == nil || r.Result.OK()) &&
		len(r.ContentsDiff) == 0 && r.ContentsErr == nil
}

// Check reports what can be known without reading a bitstream: listed paths
// with no member, unlisted members, refused paths and members, deleted entries.
func (p *Package) Check() *Result {
	res, _ := p.process(context.Background(), nil, nil, false)
	return res
}

// Run opens target — a Resource Dump, a Change Dump or an index of them (URL
// or local file), or a single package (URL or local .zip file) — and handles
// every package as job says. The error is for a target that cannot be read or
// is neither a dump nor a package; a package that fails is reported in its
// PackageReport.Err and the others are still handled.
func Run(ctx context.Context, c fetch.Fetcher, target string, job Job, opts Options) (*Report, error) {
	opts = opts.withDefaults()
	rep := &Report{Target: target}
	if !model.IsHTTPURL(target) {
		return rep, runLocal(ctx, c, rep, target, job, opts)
	}
	if strings.HasSuffix(strings.ToLower(urlPath(target)), ".zip") {
		rep.Packages = append(rep.Packages, runRemotePackage(ctx, c, PackageRef{URL: target}, job, opts, false, nil))
		return rep, nil
	}
	o, err := fetch.Open(ctx, c, target)
	if err != nil {
		return rep, fmt.Errorf("fetch %s: %w", target, err)
	}
	br := bufio.NewReader(o.Body)
	head, _ := br.Peek(4)
	if isZip(head) {
		o.Close()
		rep.Packages = append(rep.Packages, runRemotePackage(ctx, c, PackageRef{URL: target}, job, opts, false, nil))
		return rep, nil
	}
	doc, err := parseDocument(io.LimitReader(br, opts.MaxManifestBytes+1), opts.MaxManifestBytes)
	o.Close()
	if err != nil {
		return rep, fmt.Errorf("%s is neither a dump nor a ZIP package: %w", o.URL, err)
	}
	return rep, runDump(ctx, c, rep, doc, o.URL, job, opts, nil)
}

// runLocal handles a local file: a package, read in place, or a dump
// document (gzip undone).
func runLocal(ctx context.Context, c fetch.Fetcher, rep *Report, target string, job Job, opts Options) error {
	path := model.LocalPath(target)
	o, err := fetch.Open(ctx, nil, target)
	if err != nil {
		return err
	}
	defer o.Close()
	if f, ok := o.Body.(*os.File); ok { // as stored: it may be a ZIP package
		head := make([]byte, 4)
		n, _ := f.ReadAt(head, 0)
		if isZip(head[:n]) {
			pr := &PackageReport{URL: path, Size: o.Size}
			p, err := OpenPackage(f, o.Size, opts)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			handlePackage(ctx, c, p, pr, job, opts)
			rep.Packages = append(rep.Packages, pr)
			if job.OnPackage != nil {
				job.OnPackage(pr)
			}
			return nil
		}
	}
	doc, err := parseDocument(io.LimitReader(o.Body, opts.MaxManifestBytes+1), opts.MaxManifestBytes)
	if err != nil {
		return fmt.Errorf("%s is neither a dump nor a ZIP package: %w", path, err)
	}
	dir, err := openFolder(path)
	if err != nil {
		return err
	}
	defer dir.Close()
	return runDump(ctx, folderFetcher{f: dir, next: c}, rep, doc, path, job, opts, dir)
}

// runDump handles every package of the dump doc, read from base; local is
// the folder of a dump read from a file, nil for a URL.
func runDump(ctx context.Context, c fetch.Fetcher, rep *Report, doc *model.Document, base string, job Job, opts Options, local *folder) error {
	d, err := openDumpDocument(ctx, c, doc, base, opts, local)
	if err != nil {
		return err
	}
	rep.Dump = d
	for i := range d.Packages {
		if err := ctx.Err(); err != nil {
			return err
		}
		rep.Packages = append(rep.Packages, runRemotePackage(ctx, c, d.Packages[i], job, opts, true, local))
	}
	return nil
}

// runRemotePackage downloads, opens and handles one package; local is the
// folder of a dump read from a file (its packages are read from there),
// nil for a URL.
func runRemotePackage(ctx context.Context, c fetch.Fetcher, ref PackageRef, job Job, opts Options, listed bool, local *folder) *PackageReport {
	pr := &PackageReport{URL: ref.URL, Contents: ref.Contents, ContentsErr: ref.contentsRefused}
	if listed {
		pr.Ref = &ref
	}
	defer func() {
		if job.OnPackage != nil {
			job.OnPackage(pr)
		}
	}()
	if ref.refused != nil {
		pr.Err = ref.refused
		return pr
	}
	if local != nil && model.IsHTTPURL(ref.URL) {
		pr.Beside = local.beside(ref.URL)
	}
	var progress func(done, total int64)
	if job.Progress != nil {
		progress = func(done, total int64) { job.Progress(ref.URL, "download", done, total) }
	}
	p, mism, err := FetchPackage(ctx, c, ref, opts, progress)
	pr.Mismatched = mism
	if err != nil {
		pr.Err = err
		return pr
	}
	defer p.Close()
	pr.Size = p.Size
	handlePackage(ctx, c, p, pr, job, opts)
	return pr
}

// handlePackage verifies or extracts an opened package and compares its
// manifest with the contents copy.
func handlePackage(ctx context.Context, g fetch.Getter, p *Package, pr *PackageReport, job Job, opts Options) {
	pr.Header = &p.Manifest.Header
	pr.Entries = len(p.Manifest.Entries)
	pr.ManifestProblems = model.CheckDocument(p.Manifest)
	pr.Members = len(p.Members)
	pr.Size = p.Size
	stage := ""
	switch {
	case job.ExtractDir != "":
		stage = "extract"
	case job.Verify:
		stage = "verify"
	}
	var progress func(done, total int64)
	if job.Progress != nil && stage != "" {
		progress = func(done, total int64) { job.Progress(pr.URL, stage, done, total) }
	}
	var err error
	switch stage {
	case "extract":
		pr.Result, err = p.Extract(ctx, job.ExtractDir, progress)
	case "verify":
		pr.Result, err = p.Verify(ctx, progress)
	default:
		pr.Result = p.Check()
	}
	if err != nil {
		pr.Err = err
		return
	}
	if pr.Contents != "" && pr.ContentsErr == nil {
		cp, _, err := getDocument(ctx, g, pr.Contents, opts.MaxManifestBytes)
		if err != nil {
			pr.ContentsErr = err
			return
		}
		pr.ContentsDiff = CompareManifests(p.Manifest, cp)
	}
}

func urlPath(s string) string {
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	return s
}
