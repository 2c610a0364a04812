package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"rsx/crawl"
	"rsx/fetch"
	"rsx/model"
)

// runValidateRecursive is rsx validate --recursive: every URL target is walked
// down its links (crawl.Graph.Walk with checks), and each document reached
// becomes one report with its own problems plus the cross-document problems
// that concern it. Files and standard input are checked alone. A document
// reached from two targets is reported once.
//
// A listed document that cannot be fetched is an error problem
// (child-unreachable) of the document that lists it, not a document of its
// own: the targets were read, so the exit status is 1, not 2.
func (a *app) runValidateRecursive(ctx context.Context, client *fetch.Client, f validateFlags, targets []string, opts model.CheckOptions, color bool) error {
	defer softMemoryLimit()()
	out := newRecursiveReports(a.tempDir())
	defer out.close()
	bounds, archives := a.validateRecursive(ctx, client, targets, opts, f, out)
	if out.err != nil {
		return failed(fmt.Errorf("validate: %w", out.err))
	}
	if f.json {
		for _, b := range bounds {
			fmt.Fprintln(a.err, "rsx: validate: "+esc(b))
		}
	}
	if !f.json {
		err := out.each(func(r *docReport) error {
			if r.Err != nil {
				fmt.Fprintf(a.err, "rsx: validate %s: %s\n", esc(r.URL), esc(r.Err.Error()))
			}
			return nil
		})
		if err != nil {
			return failed(fmt.Errorf("validate: %w", err))
		}
	}
	var err error
	if f.json {
		err = writeValidateJSONStream(a.out, out.totals, bounds, archives, out.each)
	} else {
		vt := newValidateText(a.out, printOptions{Color: color, Quiet: f.quiet, Bounds: bounds, ArchivesNotWalked: archives})
		if err = out.each(func(r *docReport) error { vt.report(r); return nil }); err == nil {
			err = vt.end()
		}
	}
	if err != nil {
		return failed(fmt.Errorf("validate: %w", err))
	}
	code := exitOK
	switch {
	case out.totals.unread > 0:
		code = exitFailure
	case out.totals.errors > 0:
		code = exitFound
	}
	return exitWith(code)
}

// With packages, the walk also downloads every dump package that has a
// contents link and compares its manifest with the copy (crawl's package
// rules, reported on the dump document). With archives, it walks into
// archives; without, it returns the archives whose documents it left.
func (a *app) validateRecursive(ctx context.Context, client *fetch.Client, targets []string, opts model.CheckOptions, f validateFlags, out *recursiveReports) (bounds, archives []string) {
	packages := f.packages
	depth := f.depth
	if depth < 0 {
		depth = crawl.Unlimited
	}
	var g *crawl.Graph
	if client != nil {
		g = crawl.NewGraph(client, crawl.GraphOptions{MaxProblems: opts.MaxProblems, Hints: opts.Hints, Decoder: documentDecoder()})
	}
	for _, t := range targets {
		if !model.IsHTTPURL(t) || g == nil {
			r := a.validateTarget(ctx, client, t, opts)
			out.add(out.next, false, r)
			out.next++
			continue
		}
		wopts := crawl.WalkOptions{Depth: depth, Check: true, FetchPackages: packages, MaxDocuments: maxDocuments(f.maxDocs), Hints: opts.Hints,
			Archives: f.archives, TempDir: a.tempDir()}
		if packages {
			wopts.PackageOptions.TempDir = a.tempDir()
		}
		var rootReport *docReport
		skipped, unexpanded := 0, 0
		base := out.next
		root, err := g.WalkStream(ctx, t, wopts, func(n *crawl.Node) {
			switch {
			case n.Skipped:
				skipped++
			case n.Unexpanded && !n.Repeat:
				unexpanded += n.DownCount
			}
			if n.ArchiveNotWalked && !n.Repeat && !slices.Contains(archives, nodeURL(n)) {
				archives = append(archives, nodeURL(n))
			}
			if n.Parent == nil {
				r := nodeReport(n)
				rootReport = &r
				return // said once the walk tells what the root is
			}
			out.node(n, t)
		})
		out.next += root.End + 1
		if err != nil && (root == nil || root.Header == nil) {
			out.add(base, false, docReport{URL: t, Err: fmt.Errorf("fetch: %w", err)})
			continue
		}
		if readButNotSitemap(root.Header, root.Err) {
			// The one rule for a TARGET that is no ResourceSync document.
			r := *rootReport
			r.URL, r.Err = t, notResourceSync(t, rootOf(root.Header, root.Err), false)
			out.add(base, false, r)
			continue
		}
		out.next = base
		out.node(root, t)
		out.next += root.End + 1
		if msg := boundsMessage(skipped, unexpanded, f.depth, f.maxDocs); msg != "" {
			bounds = append(bounds, t+": "+msg)
		}
	}
	return bounds, archives
}

// nodeReport is the single-document report of a walked node.
func nodeReport(n *crawl.Node) docReport {
	r := docReport{
		URL:      n.URL,
		Title:    "Document",
		Entries:  n.EntryCount,
		Bytes:    n.Bytes,
		Problems: append([]model.Problem(nil), n.Problems...),
		Errors:   n.Errors,
		Warnings: n.Warnings,
	}
	if n.FinalURL != "" && n.FinalURL != n.URL {
		r.FinalURL = n.FinalURL
	}
	if h := n.Header; h != nil {
		r.Capability = string(h.MD.Capability)
		r.Index = h.Root == model.RootSitemapIndex
		r.Title = model.DocumentTitle(h.MD.Capability, h.Root)
		if h.Root == model.RootUnknown && h.RootLocal != "" {
			r.Title = "<" + h.RootLocal + "> document"
		}
	}
	var se *model.SyntaxError
	if n.Err != nil && !errors.As(n.Err, &se) && !errors.Is(n.Err, crawl.ErrNotSitemap) {
		r.Err = n.Err // could not be fetched or read to its end
	}
	return r
}
