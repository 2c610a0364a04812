package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"rsx/crawl"
	"rsx/display"
	"rsx/fetch"
	"rsx/model"
)

// treeFlags are the options of rsx tree.
type treeFlags struct {
	json        bool
	depth       int
	maxDocs     int
	noCheck     bool
	concurrency int
	packages    bool
	archives    bool
}

func newTreeCmd(a *app) *cobra.Command {
	var f treeFlags
	cmd := &cobra.Command{
		Use: "tree [--json] [--depth N] URL",
		Example: `  rsx serve --addr 127.0.0.1:8080 &    # the demo Source, which these examples use
  rsx tree http://127.0.0.1:8080/.well-known/resourcesync
  rsx tree http://127.0.0.1:8080/                  # discovery finds the Source Description
  rsx tree --depth 1 --json http://127.0.0.1:8080/.well-known/resourcesync
  rsx tree --archives http://127.0.0.1:8080/dataset1/capabilitylist.xml`,
		Short: "Show the document tree below a ResourceSync document",
		Long: `Show the tree of documents below URL, one node per document: the Source
Description, its Capability Lists, their Resource Lists, Change Lists, dumps and
their indexes, following down links. Resources are counted, not fetched, and dump
packages are not downloaded (unless --packages). Documents are fetched
concurrently within the HTTP limits (--concurrency, --rate) and streamed:
entries are counted, not kept.

Each document is checked as it streams (✗ errors, ! warnings), and documents are
checked against each other (up and index links pointing back, index metadata
against the listed documents, Change List order); rsx validate --recursive lists
the problems themselves. --no-check skips the checks.

Memory does not grow with the tree: the links of an index and the output wait
in rsx's temporary folder until they can be printed in document order (a
document's line follows its parts, whose problems it counts).

--packages also compares the manifest inside each dump package with the copy
its entry's contents link points to (sections 11.1, 13.1): it downloads every
package that has a contents link, a few at a time, each to a temporary file
removed once compared. Its problems count on the dump document.

Archives (Resource List, Resource Dump, Change List and Change Dump Archives
of the ResourceSync Archives specification) are listed as nodes with their
entries counted; the documents they list are loaded only with --archives, since
an archive grows without bound. With it they are checked against the archive's
entries (capability, at, from, until).

--depth (default 16) and --max-documents (default 100000) bound the walk, so
that a Source generating documents without end cannot keep it going; a tree
that reaches a bound says so on standard error. A document reached twice is
shown once (cycles are not followed).

URL may also be a site root or any page: when it is no ResourceSync document,
discovery (as rsx discover, rsx sync and the explorer run it) finds the
Source Description (or the one Capability List) the tree starts at, and says
so on standard error. A local file is read as the tree's root.

Exit status: 0 every document was read and no errors were found (warnings
allowed); 1 a document below URL could not be fetched or read, or errors
were found; 2 URL itself could not be fetched, or neither it nor discovery
from it gave a ResourceSync document.`,
		Args: oneArg("URL", "a ResourceSync document (e.g. a Source Description or a Capability List), a site root or page to discover from, or a local file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runTree(cmd.Context(), f, args[0])
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&f.json, "json", false, "print one JSON document on standard output")
	fs.IntVar(&f.depth, "depth", crawl.DefaultMaxDepth, "levels below URL to load (0: URL only; -1: no bound); the default is deeper than any ResourceSync tree")
	fs.IntVar(&f.maxDocs, "max-documents", crawl.DefaultMaxDocuments, "most documents to load (-1: no bound)")
	fs.BoolVar(&f.noCheck, "no-check", false, "do not check the documents (faster)")
	fs.IntVar(&f.concurrency, "parallel", 8, "documents fetched and parsed at once")
	fs.BoolVar(&f.packages, "packages", false, "compare each dump package's manifest with its contents copy (downloads every package that has a contents link)")
	fs.BoolVar(&f.archives, "archives", false, "also load the documents that archives list (archives grow without bound)")
	return cmd
}

func (a *app) runTree(ctx context.Context, f treeFlags, target string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	local, err := treeTargetKind(target) // tree_target.go
	if err != nil {
		return a.treeFailed(f, target, nil, err)
	}
	if f.concurrency < 1 {
		return failed(errors.New("tree: --parallel must be at least 1"))
	}
	client, err := a.http.client(target)
	if err != nil {
		return failed(err)
	}
	// A walk allocates short-lived strings per entry and keeps only headers
	// and down links: with the default GOGC the collector runs every few MB
	// of a multi-GB stream for nothing. GOGC in the environment wins.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	defer softMemoryLimit()()
	gopts := crawl.GraphOptions{Concurrency: f.concurrency, Decoder: documentDecoder()}
	if isTerminal(a.err) {
		gopts.Progress = treeProgress(a.err)
	}
	var getter fetch.Getter = client
	if local {
		getter = localTarget{Client: client, path: target}
	}
	g := crawl.NewGraph(getter, gopts)
	depth := f.depth
	if depth < 0 {
		depth = crawl.Unlimited
	}
	start := time.Now()
	wopts := crawl.WalkOptions{Depth: depth, Check: !f.noCheck, Concurrency: f.concurrency, FetchPackages: f.packages,
		MaxDocuments: maxDocuments(f.maxDocs), Archives: f.archives}
	if f.packages {
		wopts.PackageOptions.TempDir = a.tempDir()
		if gopts.Progress != nil {
			wopts.PackageProgress = packageProgress(a.err)
		}
	}
	wopts.TempDir = a.tempDir()
	out := newTreeOutput(f.json, newTextStyles(useColor(a.out)), a.tempDir())
	defer func() { out.close() }()
	root, werr := g.WalkStream(ctx, target, wopts, out.done)
	if werr == nil && root != nil && root.Document != nil && readButNotSitemap(root.Header, root.Err) {
		// Not a ResourceSync document: discovery, as sync and the explorer
		// do; nothing found is the one rule's exit status 2.
		why := rootOf(root.Header, root.Err)
		if local {
			return a.treeFailed(f, target, root, notResourceSync(target, why, false))
		}
		found, note, err := discoveredRoot(ctx, client, target, why)
		if err != nil {
			return a.treeFailed(f, target, root, err)
		}
		fmt.Fprintln(a.err, "rsx: tree: "+esc(note))
		target = found
		out.close()
		out = newTreeOutput(f.json, newTextStyles(useColor(a.out)), a.tempDir())
		root, werr = g.WalkStream(ctx, target, wopts, out.done)
	}
	elapsed := time.Since(start)
	if gopts.Progress != nil {
		fmt.Fprint(a.err, "\r\033[K")
	}
	if werr != nil && (root == nil || root.Header == nil) {
		return a.treeFailed(f, target, root, werr)
	}
	sum := out.sum
	sum.Seconds = elapsed.Seconds()
	if err := out.write(a.out); err != nil {
		return failed(fmt.Errorf("tree: %w", err))
	}
	if f.json {
		// The figures go to standard error, so that stdout stays one JSON document.
		fmt.Fprintln(a.err, sum.String())
	} else {
		fmt.Fprintln(a.out, sum.String())
	}
	if msg := boundsMessage(out.skipped, out.unexpanded, f.depth, f.maxDocs); msg != "" {
		fmt.Fprintln(a.err, "rsx: tree: "+msg)
	}
	if werr != nil {
		return failed(fmt.Errorf("tree: %w", werr))
	}
	if sum.Failed > 0 || sum.Errors > 0 {
		return foundProblems()
	}
	return nil
}

// treeProgress prints one updating status line on a terminal.
func treeProgress(w io.Writer) func(crawl.Progress) {
	return func(p crawl.Progress) {
		if p.Done {
			return
		}
		u := esc(p.URL)
		if len(u) > 60 {
			u = "…" + u[len(u)-59:]
		}
		fmt.Fprintf(w, "\r\033[K%s  %s entries", u, display.Count(p.Entries))
	}
}

// packageProgress prints one updating status line on a terminal while
// packages download (they may do so a few at a time: the line shows the
// latest report).
func packageProgress(w io.Writer) func(url string, done, total int64) {
	var mu sync.Mutex
	return func(url string, done, total int64) {
		url = esc(url)
		if len(url) > 50 {
			url = "…" + url[len(url)-49:]
		}
		size := display.Size(done)
		if total > 0 {
			size += " of " + display.Size(total)
		}
		mu.Lock()
		fmt.Fprintf(w, "\r\033[Kpackage %s  %s", url, size)
		mu.Unlock()
	}
}

// treeSummary adds up a walked tree.
type treeSummary struct {
	Documents int
	Entries   int64
	Bytes     int64
	Failed    int
	Errors    int
	Warnings  int
	Seconds   float64
}

// add counts one node of a walked tree.
func (s *treeSummary) add(n *crawl.Node) {
	for _, p := range n.Cross {
		if p.Severity == model.SeverityError {
			s.Errors++
		} else {
			s.Warnings++
		}
	}
	if n.Repeat || n.Document == nil {
		return
	}
	s.Documents++
	s.Entries += int64(n.EntryCount)
	s.Errors += n.Errors
	s.Warnings += n.Warnings
	if n.Err != nil {
		// The bytes read before a document stopped (an HTML page is
		// given up at its root element) are not its size.
		s.Failed++
	} else {
		s.Bytes += n.Bytes
	}
}

func (s treeSummary) String() string {
	out := fmt.Sprintf("%s, %s", display.Plural(s.Documents, "document", "documents"),
		display.Plural(int(s.Entries), "entry", "entries"))
	if s.Documents > s.Failed {
		out += ", " + display.Size(s.Bytes) // of the documents read to their end
	}
	if s.Failed > 0 {
		out += fmt.Sprintf(", %s could not be read", display.Count(s.Failed))
	}
	out += ", " + display.Plural(s.Errors, "error", "errors") + ", " + display.Plural(s.Warnings, "warning", "warnings")
	if s.Seconds > 0 {
		out += fmt.Sprintf(" in %.2fs (%.0f documents/s, %.0f entries/s)", s.Seconds,
			float64(s.Documents)/s.Seconds, float64(s.Entries)/s.Seconds)
	}
	return out
}

// jsonTreeNode is the CLI contract's tree node plus title, bytes, status and
// the document's times, problem counts and walk marks.
type jsonTreeNode struct {
	URL        string  `json:"url"`
	FinalURL   string  `json:"final_url,omitempty"`
	Title      string  `json:"title"`
	Capability string  `json:"capability"`
	Index      bool    `json:"index"`
	Entries    int     `json:"entries"`
	Bytes      int64   `json:"bytes"`
	Status     *int    `json:"status"`
	Error      *string `json:"error"`
	At         string  `json:"at,omitempty"`
	Completed  string  `json:"completed,omitempty"`
	From       string  `json:"from,omitempty"`
	Until      string  `json:"until,omitempty"`
	Open       *bool   `json:"open,omitempty"` // change documents: no until
	Errors     int     `json:"errors"`
	Warnings   int     `json:"warnings"`
	Repeat     bool    `json:"repeat,omitempty"`     // already shown elsewhere in the tree
	Unexpanded bool    `json:"unexpanded,omitempty"` // the depth limit stopped here
	Skipped    bool    `json:"skipped,omitempty"`    // not loaded: the bound of documents was reached
	// Archives: the capability of the documents listed, and whether they
	// were left unloaded (no --archives).
	Archived         string          `json:"archived,omitempty"`
	ArchiveNotWalked bool            `json:"archive_not_walked,omitempty"`
	Children         []*jsonTreeNode `json:"children"`
}

func treeJSON(n *crawl.Node) *jsonTreeNode {
	j := treeJSONNode(n)
	for _, c := range n.Children {
		j.Children = append(j.Children, treeJSON(c))
	}
	return j
}

// treeJSONNode is the JSON of n without its children.
func treeJSONNode(n *crawl.Node) *jsonTreeNode {
	j := &jsonTreeNode{URL: nodeURL(n), Children: []*jsonTreeNode{}, Repeat: n.Repeat, Unexpanded: n.Unexpanded, Skipped: n.Skipped,
		ArchiveNotWalked: n.ArchiveNotWalked}
	if n.Document == nil {
		return j
	}
	if n.FinalURL != "" && n.FinalURL != j.URL {
		j.FinalURL = n.FinalURL
	}
	j.Entries, j.Bytes = n.EntryCount, n.Bytes
	if n.Status != 0 {
		st := n.Status
		j.Status = &st
	}
	if n.Err != nil {
		e := n.Err.Error()
		j.Error = &e
	}
	if h := n.Header; h != nil {
		j.Capability = string(h.MD.Capability)
		j.Index = h.Root == model.RootSitemapIndex
		j.Title = model.DocumentTitle(h.MD.Capability, h.Root)
		j.At, j.Completed, j.From, j.Until = h.MD.At.Raw, h.MD.Completed.Raw, h.MD.From.Raw, h.MD.Until.Raw
		if h.MD.Capability.IsChange() {
			open := !h.MD.Until.Present()
			j.Open = &open
		}
		j.Archived = string(h.MD.Capability.Archived())
	}
	j.Errors, j.Warnings = n.ProblemCounts()
	return j
}

// treeLine is one node: type, URL, entries, times, problem marks or error.
func treeLine(n *crawl.Node, st textStyles) string {
	url := nodeURL(n)
	url = esc(url)
	if n.Skipped {
		return st.dim(url + "  (not loaded: the bound of documents was reached, --max-documents)")
	}
	if n.Document == nil {
		return url
	}
	if n.Repeat {
		return st.dim(url + "  (shown above)")
	}
	if n.Header == nil {
		return st.err("✗ "+url) + "  " + st.err(esc(errText(n.Err)))
	}
	h := n.Header
	parts := []string{st.title(esc(model.DocumentTitle(h.MD.Capability, h.Root))), url}
	parts = append(parts, st.dim(display.Plural(n.EntryCount, "entry", "entries")))
	md := &h.MD
	switch {
	case md.Capability.IsChange() || md.From.Present():
		t := "from " + esc(orQ(md.From.Raw))
		if md.Until.Present() {
			t += " until " + esc(md.Until.Raw) + " (closed)"
		} else {
			t += " (open)"
		}
		parts = append(parts, st.dim(t))
	case md.At.Present():
		t := "at " + esc(md.At.Raw)
		if md.Completed.Present() {
			t += " completed " + esc(md.Completed.Raw)
		}
		parts = append(parts, st.dim(t))
	case md.Capability.IsArchive() && !n.IsIndex():
		if t := archiveSpan(n); t != "" {
			parts = append(parts, st.dim(t))
		}
	}
	errs, warns := n.ProblemCounts()
	if errs > 0 {
		parts = append(parts, st.err("✗ "+display.Count(errs)))
	}
	if warns > 0 {
		parts = append(parts, st.warn("! "+display.Count(warns)))
	}
	if n.Err != nil {
		parts = append(parts, st.err(esc(n.Err.Error())))
	}
	if n.Unexpanded {
		parts = append(parts, st.dim(fmt.Sprintf("… %s not loaded (--depth)", display.Plural(n.DownCount, "document", "documents"))))
	}
	if n.ArchiveNotWalked {
		parts = append(parts, st.dim(fmt.Sprintf("… %s not loaded (--archives)", display.Plural(n.DownCount, "archived document", "archived documents"))))
	}
	return strings.Join(parts, "  ")
}

// archiveSpan is the time an archive's entries span: "at A … B" for the
// snapshots of a Resource List or Resource Dump Archive, "from A until B" for
// the periods of a Change List or Change Dump Archive ("until …" when the last
// is open); "" when the entries carry no times.
func archiveSpan(n *crawl.Node) string {
	var lo, hi model.Datetime
	if n.Capability().Archived().IsSnapshot() {
		n.EachDown(func(dl *crawl.DownLink) bool {
			if !dl.At.OK {
				return true
			}
			if !lo.OK || dl.At.Compare(lo) < 0 {
				lo = dl.At
			}
			if !hi.OK || dl.At.Compare(hi) > 0 {
				hi = dl.At
			}
			return true
		})
		if !lo.OK {
			return ""
		}
		if lo.Compare(hi) == 0 {
			return "at " + esc(lo.Raw)
		}
		return "at " + esc(lo.Raw) + " … " + esc(hi.Raw)
	}
	open := false
	n.EachDown(func(dl *crawl.DownLink) bool {
		if !dl.From.OK {
			return true
		}
		if !lo.OK || dl.From.Compare(lo) < 0 {
			lo = dl.From
		}
		switch {
		case !dl.Until.Present():
			open = true
		case dl.Until.OK && (!hi.OK || dl.Until.Compare(hi) > 0):
			hi = dl.Until
		}
		return true
	})
	if !lo.OK {
		return ""
	}
	last := "…"
	if !open && hi.OK {
		last = esc(hi.Raw)
	}
	return "from " + esc(lo.Raw) + " until " + last
}

func orQ(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// maxDocuments turns the --max-documents flag into crawl.WalkOptions'.
func maxDocuments(flag int) int {
	if flag < 0 {
		return crawl.Unlimited
	}
	if flag == 0 {
		return 1 // the root only
	}
	return flag
}

// boundsMessage says what the bounds of a walk left out: skipped documents
// (the documents bound) and unexpanded ones (the depth bound); "" when
// nothing.
func boundsMessage(skipped, unexpanded, depth, maxDocs int) string {
	var parts []string
	if unexpanded > 0 {
		parts = append(parts, fmt.Sprintf("%s below depth %d not loaded (--depth)", display.Plural(unexpanded, "document", "documents"), depth))
	}
	if skipped > 0 {
		parts = append(parts, fmt.Sprintf("%s not loaded past the bound of %s documents (--max-documents)", display.Plural(skipped, "document", "documents"), display.Count(maxDocs)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "stopped at a bound: " + strings.Join(parts, "; ")
}

// nodeURL is the URL a node stands for: its entry's loc, or for the root the
// URL asked (a node not loaded has no Document).
func nodeURL(n *crawl.Node) string {
	switch {
	case n.Via != nil:
		return n.Via.Loc
	case n.Document != nil:
		return n.URL
	}
	return ""
}
