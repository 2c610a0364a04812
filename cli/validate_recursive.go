package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

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
	reports, bounds, archives := a.validateRecursive(ctx, client, targets, opts, f)
	if f.json {
		for _, b := range bounds {
			fmt.Fprintln(a.err, "rsx: validate: "+esc(b))
		}
	}
	if !f.json {
		for i := range reports {
			if reports[i].Err != nil {
				fmt.Fprintf(a.err, "rsx: validate %s: %s\n", esc(reports[i].URL), esc(reports[i].Err.Error()))
			}
		}
	}
	code := printValidateReports(a.out, reports, printOptions{JSON: f.json, Color: color, Quiet: f.quiet, Bounds: bounds, ArchivesNotWalked: archives})
	return exitWith(code)
}

// With packages, the walk also downloads every dump package that has a
// contents link and compares its manifest with the copy (crawl's package
// rules, reported on the dump document). With archives, it walks into
// archives; without, it returns the archives whose documents it left.
func (a *app) validateRecursive(ctx context.Context, client *fetch.Client, targets []string, opts model.CheckOptions, f validateFlags) (reports []docReport, bounds, archives []string) {
	packages := f.packages
	depth := f.depth
	if depth < 0 {
		depth = crawl.Unlimited
	}
	var g *crawl.Graph
	if client != nil {
		g = crawl.NewGraph(client, crawl.GraphOptions{MaxProblems: opts.MaxProblems, Hints: opts.Hints, Decoder: documentDecoder()})
	}
	done := map[string]int{} // normalised URL → index in reports
	for _, t := range targets {
		if !model.IsHTTPURL(t) || g == nil {
			reports = append(reports, a.validateTarget(ctx, client, t, opts))
			continue
		}
		wopts := crawl.WalkOptions{Depth: depth, Check: true, FetchPackages: packages, MaxDocuments: maxDocuments(f.maxDocs), Hints: opts.Hints,
			Archives: f.archives}
		if packages {
			wopts.PackageOptions.TempDir = a.tempDir()
		}
		root, err := g.Walk(ctx, t, wopts)
		if err != nil && (root == nil || root.Header == nil) {
			reports = append(reports, docReport{URL: t, Err: fmt.Errorf("fetch: %w", err)})
			continue
		}
		if readButNotSitemap(root.Header, root.Err) {
			// The one rule for a TARGET that is no ResourceSync document.
			r := nodeReport(root)
			r.URL, r.Err = t, notResourceSync(t, rootOf(root.Header, root.Err), false)
			reports = append(reports, r)
			continue
		}
		reports = appendTreeReports(reports, done, root, t)
		if msg := boundsReached(root, f.depth, f.maxDocs); msg != "" {
			bounds = append(bounds, t+": "+msg)
		}
		root.Walk(func(n *crawl.Node) bool {
			if n.ArchiveNotWalked && !n.Repeat && !slices.Contains(archives, nodeURL(n)) {
				archives = append(archives, nodeURL(n))
			}
			return true
		})
	}
	return reports, bounds, archives
}

// appendTreeReports adds one report per document of a walked tree, in tree
// order, and attributes the cross-document problems to them.
func appendTreeReports(reports []docReport, done map[string]int, root *crawl.Node, target string) []docReport {
	touched := map[int]bool{}
	root.Walk(func(n *crawl.Node) bool {
		if n.Document == nil {
			return true
		}
		key := crawl.NormalizeURL(n.URL)
		i, seen := done[key]
		if !seen {
			if n != root && n.Header == nil {
				// Could not be fetched: reported on the listing document.
				return true
			}
			r := nodeReport(n)
			if n == root {
				r.URL = target
			}
			reports = append(reports, r)
			i = len(reports) - 1
			done[key] = i
		}
		for _, p := range n.Cross {
			reports[i].addProblem(p)
			touched[i] = true
		}
		return true
	})
	for i := range touched {
		ps := reports[i].Problems
		sort.SliceStable(ps, func(a, b int) bool { return ps[a].Entry < ps[b].Entry })
	}
	return reports
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
