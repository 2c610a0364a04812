package crawl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"rsx/display"
	"rsx/dump"
	"rsx/fetch"
	"rsx/model"
)

// PackageLink is an entry of a Resource Dump or Change Dump that points at a
// package and has a contents link to a copy of the package's manifest
// (sections 11.1, 13.1).
type PackageLink struct {
	Entry    int    // 0-based position of the entry in its document
	Loc      string // the package, resolved against the dump's final URL
	Contents string // the manifest copy, resolved likewise
	// MD holds what the entry declares about the package itself: length,
	// hash and type, and the times of the package's contents (at and
	// completed in a Resource Dump, from and until in a Change Dump); the
	// other fields are left empty.
	MD model.Metadata
}

// cloneDatetime copies d with its own Raw string.
func cloneDatetime(d model.Datetime) model.Datetime {
	d.Raw = strings.Clone(d.Raw)
	d.Fraction = strings.Clone(d.Fraction)
	return d
}

// isDumpDocument tells whether the entries of a document are packages: a
// Resource Dump or a Change Dump (not their indexes).
func isDumpDocument(h *model.Header) bool {
	if h == nil || h.Root != model.RootURLSet {
		return false
	}
	return h.MD.Capability == model.CapResourceDump || h.MD.Capability == model.CapChangeDump
}

// packageLink returns the package link of a dump entry with a contents link.
// The strings are copied: the decoder's may keep its buffers alive.
func packageLink(base string, e *model.Entry) (PackageLink, bool) {
	if !e.HasLoc || strings.TrimSpace(e.Loc) == "" {
		return PackageLink{}, false
	}
	for i := range e.Links {
		l := &e.Links[i]
		if !l.HasHref || strings.TrimSpace(l.Href) == "" || !model.HasRel(l.Rel, "contents") {
			continue
		}
		md := model.Metadata{
			Length:    e.MD.Length,
			LengthOK:  e.MD.LengthOK,
			LengthRaw: strings.Clone(e.MD.LengthRaw),
			HashRaw:   strings.Clone(e.MD.HashRaw),
			Type:      strings.Clone(e.MD.Type),
			At:        cloneDatetime(e.MD.At),
			Completed: cloneDatetime(e.MD.Completed),
			From:      cloneDatetime(e.MD.From),
			Until:     cloneDatetime(e.MD.Until),
		}
		if md.HashRaw != "" {
			md.Hash, _ = model.ParseHashList(md.HashRaw) // the bad tokens are the checker's business
		}
		return PackageLink{
			Entry:    e.Index,
			Loc:      strings.Clone(model.ResolveHref(base, e.Loc)),
			Contents: strings.Clone(model.ResolveHref(base, l.Href)),
			MD:       md,
		}, true
	}
	return PackageLink{}, false
}

// packageJob is one package of one dump document to check.
type packageJob struct {
	node *Node
	link *PackageLink
}

// checkPackages downloads the package of every dump entry with a contents
// link below root (each document once), compares its manifest with the copy
// and sets Node.pkgProblems. Packages are downloaded at most
// PackageConcurrency at once, each to a temporary file removed when its
// comparison is done. A cancelled walk reports nothing about the packages it
// did not finish.
func (w *walker) checkPackages(ctx context.Context, root *Node) {
	var jobs []packageJob
	root.Walk(func(n *Node) bool {
		n.pkgProblems = nil
		if n.Repeat || n.Document == nil || n.Header == nil || !isDumpDocument(n.Header) {
			return true
		}
		for i := range n.Packages {
			jobs = append(jobs, packageJob{node: n, link: &n.Packages[i]})
		}
		return true
	})
	if len(jobs) == 0 {
		return
	}
	dl := w.opts.Downloader
	if dl == nil {
		dl, _ = w.g.get.(fetch.Downloader)
	}
	limit := w.opts.PackageConcurrency
	if limit <= 0 {
		limit = 2
	}
	var mu sync.Mutex
	var eg errgroup.Group
	eg.SetLimit(limit)
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		eg.Go(func() error {
			ps := w.checkPackage(ctx, dl, j.node, j.link)
			if ctx.Err() != nil {
				return nil // cancelled: not an answer about the package
			}
			mu.Lock()
			j.node.pkgProblems = append(j.node.pkgProblems, ps...)
			mu.Unlock()
			return nil
		})
	}
	_ = eg.Wait()
	for _, j := range jobs {
		slices.SortStableFunc(j.node.pkgProblems, func(a, b model.Problem) int { return a.Entry - b.Entry })
	}
}

// checkPackage checks one package against its dump entry and its manifest
// copy.
func (w *walker) checkPackage(ctx context.Context, dl fetch.Downloader, n *Node, pl *PackageLink) []model.Problem {
	section := "11.1"
	if n.Capability() == model.CapChangeDump {
		section = "13.1"
	}
	num := model.EntryNumber(pl.Entry)
	prob := func(id, format string, args ...any) model.Problem {
		p := problem(id, pl.Entry, format, args...)
		p.Section = section
		return p
	}
	var out []model.Problem

	cp, cerr := w.fetchManifestCopy(ctx, pl.Contents)
	if ctx.Err() != nil {
		return nil
	}
	if cerr != nil {
		out = append(out, prob(RuleContentsManifestUnreadable,
			"entry %s: the contents copy %s of package %s could not be read: %v", num, pl.Contents, pl.Loc, cerr))
	}
	if dl == nil {
		return append(out, prob(RuleContentsManifestUnreadable,
			"entry %s: package %s not downloaded: the client cannot download packages", num, pl.Loc))
	}
	var progress func(done, total int64)
	if f := w.opts.PackageProgress; f != nil {
		progress = func(done, total int64) { f(pl.Loc, done, total) }
	}
	ref := dump.PackageRef{URL: pl.Loc, Dump: n.Base(), MD: pl.MD, Contents: pl.Contents}
	pkg, mism, err := dump.FetchPackage(ctx, dl, ref, w.opts.PackageOptions, progress)
	if pkg != nil {
		defer pkg.Close()
	}
	if ctx.Err() != nil {
		return nil
	}
	for _, m := range mism {
		what := m.What
		if what != "length" {
			what += " digest"
		}
		out = append(out, prob(RulePackageDeclaredMismatch,
			"entry %s: package %s: %s %s declared, %s downloaded", num, pl.Loc, what, m.Expected, m.Actual))
	}
	if errors.Is(err, dump.ErrEntryMismatch) {
		// Refused whole (its mismatches are above): its manifest vouches
		// for nothing, so it is not compared with the copy either.
		return out
	}
	if err != nil {
		return append(out, prob(RuleContentsManifestUnreadable,
			"entry %s: package %s could not be downloaded or opened, so its contents copy %s cannot be compared: %v", num, pl.Loc, pl.Contents, err))
	}
	out = append(out, packageManifestProblems(n.Capability(), pl, pkg.Manifest, prob)...)
	if cp == nil {
		return out
	}
	if diffs := dump.CompareManifests(pkg.Manifest, cp); len(diffs) > 0 {
		const shown = 3
		text := strings.Join(diffs[:min(shown, len(diffs))], "; ")
		if len(diffs) > shown {
			text += fmt.Sprintf("; and %s", display.Plural(len(diffs)-shown, "more difference", "more differences"))
		}
		out = append(out, prob(RuleContentsManifestMismatch,
			"entry %s: the contents copy %s differs from the manifest in package %s: %s", num, pl.Contents, pl.Loc, text))
	}
	return out
}

// packageManifestProblems compares the manifest found in a package with the
// dump that lists the package (of capability dumpCap): its kind
// (package-manifest-capability) and the times the dump entry gives the
// package (package-entry-times).
func packageManifestProblems(dumpCap model.Capability, pl *PackageLink, m *model.Document, prob func(id, format string, args ...any) model.Problem) []model.Problem {
	if m == nil {
		return nil
	}
	var out []model.Problem
	num := model.EntryNumber(pl.Entry)
	want := model.CapResourceDumpManifest
	if dumpCap == model.CapChangeDump {
		want = model.CapChangeDumpManifest
	}
	if got := m.MD.Capability; got != want {
		what := fmt.Sprintf("capability=%q", got)
		if got == "" {
			what = "no capability"
		}
		out = append(out, prob(RulePackageManifestCapability,
			"entry %s: the manifest.xml of package %s has %s: a package of a %s must contain a %s",
			num, pl.Loc, what, model.DocumentTitle(dumpCap, model.RootURLSet), model.DocumentTitle(want, model.RootURLSet)))
	}
	cmp := func(name string, entry, own model.Datetime) {
		if entry.OK && own.OK && entry.Compare(own) != 0 {
			out = append(out, prob(RulePackageEntryTimes,
				"entry %s: %s %s, but the manifest of package %s has %s %s", num, name, entry.Raw, pl.Loc, name, own.Raw))
		}
	}
	if dumpCap == model.CapChangeDump {
		cmp("from", pl.MD.From, m.MD.From)
		cmp("until", pl.MD.Until, m.MD.Until)
	} else {
		cmp("at", pl.MD.At, m.MD.At)
		cmp("completed", pl.MD.Completed, m.MD.Completed)
	}
	return out
}

// fetchManifestCopy fetches and parses the document a contents link points
// to, bounded to PackageOptions.MaxManifestBytes.
func (w *walker) fetchManifestCopy(ctx context.Context, url string) (*model.Document, error) {
	max := w.opts.PackageOptions.MaxManifestBytes
	if max <= 0 {
		max = dump.DefaultMaxManifestBytes
	}
	resp, _, err := get(ctx, w.g.get, url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	doc, err := model.ParseWith(io.LimitReader(resp.Body, max+1), model.DecoderOptions{MaxBytes: max})
	if err != nil {
		return nil, err
	}
	if doc.Root != model.RootURLSet {
		return nil, fmt.Errorf("not a <urlset> document (%s)", describeHeader(&doc.Header))
	}
	return doc, nil
}
