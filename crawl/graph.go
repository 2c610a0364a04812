package crawl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"rsx/dump"
	"rsx/fetch"
	"rsx/internal/spool"
	"rsx/model"
)

// ErrNotSitemap is wrapped by Document.Err for a document that was read but
// whose root is not <urlset> or <sitemapindex>.
var ErrNotSitemap = errors.New("not a Sitemap document")

// GraphOptions tune a Graph. The zero value is ready to use.
type GraphOptions struct {
	// Concurrency bounds the documents fetched and parsed at once across the
	// whole graph; default 8. The Getter's per-host limits apply on top.
	Concurrency int
	// Decoder bounds what one document may cost to parse.
	Decoder model.DecoderOptions
	// Progress, when set, is called while a document streams in, every
	// ProgressEvery entries, and once when it is finished (Done). It is
	// called from the loading goroutine and must not block.
	Progress func(Progress)
	// ProgressEvery is the number of entries between Progress calls;
	// default 10,000.
	ProgressEvery int
	// Check runs the single-document conformance checker in Load.
	Check bool
	// MaxProblems is the number of problems stored per document when
	// checking (model.CheckOptions.MaxProblems); counts stay exact.
	MaxProblems int
	// Hints also reports the problems of severity hint when checking
	// (model.CheckOptions.Hints).
	Hints bool
}

// Progress reports a document being loaded.
type Progress struct {
	URL     string
	Entries int
	Bytes   int64
	Done    bool
	Err     error // set with Done when the load failed
}

// DownLink is an entry of a Source Description, Capability List or index that
// points at a document lower in the hierarchy (section 6.2).
type DownLink struct {
	Entry int    // 0-based position of the entry in its document
	Loc   string // the entry's loc, resolved against the document's final URL
	// The entry's <rs:md> values that the cross-document checks compare.
	Capability model.Capability
	At         model.Datetime
	Completed  model.Datetime
	From       model.Datetime
	Until      model.Datetime
	// What the entry declares of the listed document's bytes (section 7):
	// its length (when LengthOK) and its digests.
	Length   int64
	LengthOK bool
	Hash     model.HashList
}

// Declares tells whether the entry declares a length or a digest of the
// document it lists.
func (dl *DownLink) Declares() bool { return dl.LengthOK || len(dl.Hash) > 0 }

// loadOptions are the options of loading the document dl points at, measured
// as dl declares.
func (dl *DownLink) loadOptions(keep, check, countDown bool) LoadOptions {
	o := LoadOptions{KeepEntries: keep, Check: check, Measure: dl.Declares(), noExchange: true, countDown: countDown}
	for _, h := range dl.Hash {
		if model.SupportedHash(h.Alg) {
			o.Digests = append(o.Digests, h.Alg)
		}
	}
	return o
}

// Content is what was received of a document: its length and digests of
// the bytes as sent, Content-Encoding undone but not the gzip of a .gz file
// (section 7: the hash of the resource as fetched).
type Content struct {
	Length  int64
	Digests map[string]string // algorithm ("md5", "sha-256") to lower-case hex
}

// Document is one fetched and parsed document.
type Document struct {
	URL      string // as asked
	FinalURL string // after redirects; "" when no response came
	Status   int    // HTTP status, 0 when no response came
	Header   *model.Header
	// Entries holds the entries when they were kept (Load, or Walk with
	// KeepEntries); nil otherwise.
	Entries    *model.EntryTable
	EntryCount int
	Bytes      int64 // decompressed bytes of XML read
	// Exchange is the HTTP record of the fetch; nil for a document loaded
	// by Walk, which keeps every document it reaches and has no use for it
	// (about 1 KB of headers a document: a gigabyte for an index of a
	// million parts).
	Exchange *fetch.Exchange
	Duration time.Duration // fetch and parse
	// Err is why the document could not be fetched or read to its end; a
	// document read in part keeps what was read.
	Err error
	// Problems are the single-document conformance problems, when checked.
	Problems []model.Problem
	Checked  bool
	// Errors and Warnings count the single-document problems exactly, also
	// beyond those stored in Problems.
	Errors, Warnings int
	// Down are the entries that point at documents lower in the hierarchy:
	// the Capability Lists of a Source Description, the capability documents
	// of a Capability List, the children of an index. Resources and dump
	// packages are not down links. A document that Walk does not expand
	// (at its depth bound) keeps only their number, DownCount: an index of a
	// million parts holds half a gigabyte of them.
	Down []DownLink
	// DownCount is the number of down links: len(Down), or more when only
	// their number was kept.
	DownCount int
	// Packages are the entries of a Resource Dump or Change Dump that have
	// a contents link (a copy of the package's manifest).
	Packages []PackageLink
	// Content is the length and the digests (LoadOptions.Digests) of the
	// bytes received, when measured (LoadOptions.Measure) and the document
	// was read to its end; nil otherwise.
	Content *Content

	// downs holds the down links in place of Down in a streamed walk
	// (Graph.WalkStream): a few thousand in memory, the rest in a
	// temporary file, until the walk is done with the document.
	downs *spool.List[DownLink]
}

// EachDown calls fn with every down link of the document, in document
// order, until fn returns false: those of Down, or those a streamed walk
// keeps in a temporary file (while it is at the document).
func (d *Document) EachDown(fn func(*DownLink) bool) error {
	if d.downs == nil {
		for i := range d.Down {
			if !fn(&d.Down[i]) {
				return nil
			}
		}
		return nil
	}
	stop := errors.New("stop")
	err := d.downs.Each(func(dl DownLink) error {
		if !fn(&dl) {
			return stop
		}
		return nil
	})
	if err == stop {
		return nil
	}
	return err
}

// Capability is the document's declared capability, "" when unknown.
func (d *Document) Capability() model.Capability {
	if d == nil || d.Header == nil {
		return ""
	}
	return d.Header.MD.Capability
}

// IsIndex tells whether the document is a <sitemapindex>.
func (d *Document) IsIndex() bool {
	return d != nil && d.Header != nil && d.Header.Root == model.RootSitemapIndex
}

// Base is the URL relative references in the document resolve against.
func (d *Document) Base() string {
	if d.FinalURL != "" {
		return d.FinalURL
	}
	return d.URL
}

// UpLinks are the targets of the document-level up links, resolved.
func (d *Document) UpLinks() []string { return linksWithRel(d.Header, "up", d.Base()) }

// IndexLinks are the targets of the document-level index links, resolved.
func (d *Document) IndexLinks() []string { return linksWithRel(d.Header, "index", d.Base()) }

// ArchivesLinks are the targets of the document-level archives links (from a
// document of a core capability to its archive, Archives specification
// section 2), resolved.
func (d *Document) ArchivesLinks() []string {
	return linksWithRel(d.Header, model.RelArchives, d.Base())
}

// Node is a document at one place of a walked tree.
type Node struct {
	*Document
	Parent *Node
	// Via is the parent's entry that led here; nil for the root.
	Via      *DownLink
	Depth    int // 0 for the root
	Children []*Node
	// Repeat is set when the document was reached earlier in the same walk
	// (a cycle, or one document listed twice): it is not expanded again, and
	// Same is the node where it was expanded.
	Repeat bool
	Same   *Node
	// Unexpanded is set when the depth limit stopped the walk here although
	// the document has down links.
	Unexpanded bool
	// ArchiveNotWalked is set on an archive (or an archive index) whose
	// entries were not loaded because WalkOptions.Archives was off: archives
	// grow without bound, so walking into them is asked for, not a bound.
	ArchiveNotWalked bool
	// Skipped is set when the document was not loaded (Document is nil)
	// because the walk had loaded WalkOptions.MaxDocuments already.
	Skipped bool
	// Cross are the cross-document problems about this document (checked
	// walks, and walks with FetchPackages). Problems with an Entry refer to
	// this document's entries.
	Cross []model.Problem

	// Seq is the node's place in document order (the root 0), End that of
	// the last node below it (Seq when none), Index its place among its
	// parent's children and NumChildren the number of its own: set by
	// WalkStream and Replay.
	Seq, End, Index, NumChildren int

	// pkgProblems are the problems found by the package checks of a walk
	// with FetchPackages; CheckTree adds them to Cross.
	pkgProblems []model.Problem
}

// Graph is a lazily loaded graph of documents joined by up, index and down
// links. It is safe for concurrent use. Documents are cached by normalised
// URL until Forget.
type Graph struct {
	get  fetch.Getter
	opts GraphOptions
	sem  chan struct{}

	mu   sync.Mutex
	docs map[string]*docSlot
}

type docSlot struct {
	done        chan struct{}
	doc         *Document
	keep, check bool
	measure     bool
	digests     []string
	noExchange  bool
	countDown   bool
}

// covers tells whether a load made with the slot's options gives what o asks.
func (s *docSlot) covers(o LoadOptions) bool {
	if (o.KeepEntries && !s.keep) || (o.Check && !s.check) || (o.Measure && !s.measure) || (!o.noExchange && s.noExchange) || (!o.countDown && s.countDown) {
		return false
	}
	for _, a := range o.Digests {
		if !slices.Contains(s.digests, a) {
			return false
		}
	}
	return true
}

// NewGraph returns an empty graph that fetches through g.
func NewGraph(g fetch.Getter, opts GraphOptions) *Graph {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 8
	}
	if opts.ProgressEvery <= 0 {
		opts.ProgressEvery = 10000
	}
	return &Graph{get: g, opts: opts, sem: make(chan struct{}, opts.Concurrency), docs: map[string]*docSlot{}}
}

// LoadOptions say what Load keeps of a document.
type LoadOptions struct {
	KeepEntries bool // keep every entry in Document.Entries
	Check       bool // run the single-document checker
	// Measure counts the bytes received, and computes the digests of the
	// algorithms in Digests (normalised names: "md5", "sha-256"), as the
	// document streams: Document.Content.
	Measure bool
	Digests []string
	// noExchange leaves Document.Exchange nil (Walk).
	noExchange bool
	// countDown keeps the number of down links, not the links (Walk, for
	// a document it will not expand), but for an archive: its links give
	// the span of time it covers.
	countDown bool
	// spoolDown keeps the down links in Document.downs, made in this
	// folder ("" for the system's), not in Down (WalkStream).
	spoolDown    bool
	spoolDownDir string
}

// Load fetches and parses one document, keeping its entries (and checking it
// when GraphOptions.Check is set). A document already loaded with at least as
// much is returned from the cache. The error is Document.Err; the Document is
// never nil.
func (g *Graph) Load(ctx context.Context, url string) (*Document, error) {
	d := g.LoadWith(ctx, url, LoadOptions{KeepEntries: true, Check: g.opts.Check})
	return d, d.Err
}

// LoadWith is Load with explicit options. It never returns nil.
func (g *Graph) LoadWith(ctx context.Context, url string, o LoadOptions) *Document {
	key := NormalizeURL(url)
	g.mu.Lock()
	if s, ok := g.docs[key]; ok && s.covers(o) {
		g.mu.Unlock()
		select {
		case <-s.done:
			return s.doc
		case <-ctx.Done():
			return &Document{URL: url, Err: ctx.Err()}
		}
	}
	s := &docSlot{done: make(chan struct{}), keep: o.KeepEntries, check: o.Check, measure: o.Measure, digests: o.Digests, noExchange: o.noExchange, countDown: o.countDown}
	g.docs[key] = s
	g.mu.Unlock()

	s.doc = g.fetchDoc(ctx, url, o)
	close(s.done)
	if ctx.Err() != nil || errors.Is(s.doc.Err, context.Canceled) || errors.Is(s.doc.Err, context.DeadlineExceeded) {
		g.mu.Lock()
		if g.docs[key] == s {
			delete(g.docs, key) // a cancelled load is not an answer
		}
		g.mu.Unlock()
	}
	return s.doc
}

// Cached returns the document loaded for url, if any and finished.
func (g *Graph) Cached(url string) (*Document, bool) {
	g.mu.Lock()
	s, ok := g.docs[NormalizeURL(url)]
	g.mu.Unlock()
	if !ok {
		return nil, false
	}
	select {
	case <-s.done:
		return s.doc, true
	default:
		return nil, false
	}
}

// Forget drops url from the cache, so that the next Load fetches it again.
func (g *Graph) Forget(url string) {
	g.mu.Lock()
	delete(g.docs, NormalizeURL(url))
	g.mu.Unlock()
}

func (g *Graph) progress(p Progress) {
	if g.opts.Progress != nil {
		g.opts.Progress(p)
	}
}

// fetchDoc fetches and streams one document through the decoder.
func (g *Graph) fetchDoc(ctx context.Context, url string, o LoadOptions) (doc *Document) {
	doc = &Document{URL: url}
	select {
	case g.sem <- struct{}{}:
	case <-ctx.Done():
		doc.Err = ctx.Err()
		return doc
	}
	defer func() { <-g.sem }()
	start := time.Now()
	defer func() {
		doc.Duration = time.Since(start)
		g.progress(Progress{URL: url, Entries: doc.EntryCount, Bytes: doc.Bytes, Done: true, Err: doc.Err})
	}()

	resp, status, err := get(ctx, g.get, url)
	doc.Status = status
	if err != nil {
		doc.Err = err
		return doc
	}
	doc.FinalURL = finalURL(resp, url)
	if !o.noExchange {
		doc.Exchange = resp.Exchange
	}
	defer resp.Body.Close()

	var meter *model.Verifier
	if o.Measure {
		var algs model.HashList
		for _, a := range o.Digests {
			algs = append(algs, model.Hash{Alg: model.NormalizeHashAlg(a)})
		}
		meter = model.NewVerifier(algs)
		if !fetch.TapContent(resp, meter) {
			// Not a body of fetch's client (a test's Getter): its bytes
			// are what it gives.
			resp.Body = readCloser{io.TeeReader(resp.Body, meter), resp.Body}
		}
	}

	dec := model.NewDecoder(resp.Body, g.opts.Decoder)
	var chk *model.Checker
	if o.Check {
		chk = model.NewChecker(model.CheckOptions{BaseURL: doc.FinalURL, MaxProblems: g.opts.MaxProblems, Hints: g.opts.Hints})
		doc.Checked = true
	}
	h, err := dec.Header()
	doc.Header = h
	if err != nil {
		doc.Err = fmt.Errorf("read %s: %w", url, err)
		doc.Bytes = dec.BytesRead()
		hc := *h
		doc.Header = &hc
		if chk != nil {
			chk.Abort(h, doc.Bytes, err)
			doc.Problems = chk.Problems()
			doc.Errors, doc.Warnings = chk.Counts()
		}
		return doc
	}
	if chk != nil {
		chk.Begin(h)
	}
	if h.Root == model.RootUnknown {
		doc.Err = fmt.Errorf("%s: %w (%s)", url, ErrNotSitemap, describeHeader(h))
	}
	down := hasDownLinks(h)
	keepDown := !o.countDown || h.MD.Capability.IsArchive()
	dumpDoc := isDumpDocument(h)
	if o.KeepEntries {
		doc.Entries = model.NewEntryTable()
	}
	every := g.opts.ProgressEvery
	var readErr error
	var e model.Entry
	for {
		err := dec.Next(&e)
		if err == io.EOF {
			break
		}
		if err != nil {
			readErr = err
			doc.Err = fmt.Errorf("read %s: %w", url, err)
			break
		}
		doc.EntryCount++
		if chk != nil {
			chk.Entry(&e)
		}
		if doc.Entries != nil {
			doc.Entries.Append(&e)
		}
		if down && isDownEntry(h, &e) {
			doc.DownCount++
		}
		if down && keepDown && o.spoolDown && isDownEntry(h, &e) {
			if doc.downs == nil {
				doc.downs = newDownList(o.spoolDownDir)
			}
			doc.downs.Add(downLinkOf(doc.FinalURL, &e))
		} else if down && keepDown && isDownEntry(h, &e) {
			doc.Down = append(doc.Down, DownLink{
				Entry:      e.Index,
				Loc:        model.ResolveHref(doc.FinalURL, e.Loc),
				Capability: e.MD.Capability,
				At:         e.MD.At,
				Completed:  e.MD.Completed,
				From:       e.MD.From,
				Until:      e.MD.Until,
				Length:     e.MD.Length,
				LengthOK:   e.MD.LengthOK,
				Hash:       declaredHash(e.MD.HashRaw),
			})
		}
		if dumpDoc {
			if pl, ok := packageLink(doc.FinalURL, &e); ok {
				doc.Packages = append(doc.Packages, pl)
			}
		}
		if doc.EntryCount%every == 0 {
			g.progress(Progress{URL: url, Entries: doc.EntryCount, Bytes: dec.BytesRead()})
		}
		if doc.EntryCount&1023 == 0 && ctx.Err() != nil {
			doc.Err = ctx.Err()
			break
		}
	}
	doc.Bytes = dec.BytesRead()
	if doc.downs != nil && doc.downs.Err() != nil && doc.Err == nil {
		doc.Err = fmt.Errorf("read %s: %w", url, doc.downs.Err())
	}
	if meter != nil && doc.Err == nil {
		// The decoder may stop at the root's end tag: what follows (white
		// space, a comment) is part of the bytes the digests are of.
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			doc.Err = fmt.Errorf("read %s: %w", url, err)
		} else {
			doc.Content = &Content{Length: meter.Bytes(), Digests: map[string]string{}}
			for _, r := range meter.Results() {
				doc.Content.Digests[r.Alg] = r.Actual
			}
		}
	}
	// The decoder's Header lives inside the Decoder: keeping that pointer
	// would keep the decoder's buffers (hundreds of KB) alive with every
	// document of a walk. A copy of the struct refers to none of them.
	hc := *h
	doc.Header = &hc
	if chk != nil {
		if readErr == nil {
			chk.End(h, doc.Bytes)
		} else {
			chk.Abort(h, doc.Bytes, readErr)
		}
		doc.Problems = chk.Problems()
		doc.Errors, doc.Warnings = chk.Counts()
	}
	return doc
}

// declaredHash parses an entry's hash attribute, copied out of the decoder's
// buffers; the tokens that do not parse are the checker's business.
func declaredHash(raw string) model.HashList {
	if strings.TrimSpace(raw) == "" {
		return nil
	}
	h, _ := model.ParseHashList(strings.Clone(raw))
	return h
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }

// hasDownLinks tells whether the entries of a document point at documents:
// those of a Source Description, a Capability List, an archive and any index.
func hasDownLinks(h *model.Header) bool {
	if h == nil {
		return false
	}
	switch {
	case h.Root == model.RootSitemapIndex:
		return true
	case h.Root != model.RootURLSet:
		return false
	}
	return h.MD.Capability == model.CapDescription || h.MD.Capability == model.CapCapabilityList || h.MD.Capability.IsArchive()
}

// isDownEntry tells whether one entry of a document with down links points
// at a document. Capability List entries for notification channels
// (Notification draft) are not Sitemap documents.
func isDownEntry(h *model.Header, e *model.Entry) bool {
	if !e.HasLoc || strings.TrimSpace(e.Loc) == "" {
		return false
	}
	if h.Root == model.RootURLSet && h.MD.Capability == model.CapCapabilityList {
		switch e.MD.Capability {
		case model.CapChangeNotification, model.CapFrameworkNotification:
			return false
		}
	}
	return true
}

// Unlimited is the WalkOptions.Depth (or MaxDocuments) that sets no bound.
const Unlimited = -1

// Bounds of a walk that the command line uses by default. A ResourceSync tree
// is a few levels deep (Source Description, Capability List, index, list, and
// perhaps an index of indexes): a deeper chain is a Source generating
// documents without end. The documents bound is that of a Source Description
// listing Capability Lists whose indexes each list tens of thousands of
// lists.
const (
	DefaultMaxDepth     = 16
	DefaultMaxDocuments = 100000
)

// WalkOptions say how far Walk goes and what it keeps.
type WalkOptions struct {
	// Depth is the number of levels below the root to load: 0 loads the
	// root only, Unlimited (any negative value) the whole tree.
	Depth int
	// KeepEntries keeps every document's entries. A tree view only counts
	// them, so that memory does not grow with the entries.
	KeepEntries bool
	// FetchPackages downloads, after the documents, every package of a
	// Resource Dump or Change Dump entry that has a contents link, and
	// compares the manifest in it with the copy the link points to; the
	// problems go to the dump document's Node.Cross (packages.go).
	FetchPackages bool
	// Downloader downloads the packages; nil uses the graph's Getter when it
	// is one (*fetch.Client is).
	Downloader fetch.Downloader
	// PackageOptions bound one package (size, manifest size, temporary
	// directory); the zero value gives dump's defaults.
	PackageOptions dump.Options
	// PackageConcurrency bounds the packages downloaded at once (each is
	// a temporary file while it is compared); default 2.
	PackageConcurrency int
	// PackageProgress, when set, is called while a package downloads, with
	// its bytes done of total (-1 when unknown). It must not block.
	PackageProgress func(url string, done, total int64)
	// Check runs the single-document checker on every document and the
	// cross-document checks on the tree (Node.Cross).
	Check bool
	// Concurrency bounds the children of one document loaded at once;
	// default 8. GraphOptions.Concurrency bounds the whole walk.
	Concurrency int
	// Hints keeps the problems of severity hint, in the documents' own checks
	// and the cross-document ones (model.CheckOptions.Hints).
	Hints bool
	// MaxDocuments bounds the documents one walk loads, the root included:
	// past it, the documents left are Skipped nodes. 0 means
	// DefaultMaxDocuments, Unlimited (any negative value) no bound.
	MaxDocuments int
	// Path, when set, loads below the root only the documents on this path
	// (Path[0] a document the root lists, Path[1] one Path[0] lists, …,
	// compared normalised) and, in a Capability List on it, the archives it
	// lists, which the checks of rel="archives" links compare with; the
	// other children are nodes without a Document, not reported. Below the
	// end of the path the walk goes on as usual, to Depth (Graph.CheckListed,
	// Graph.CheckListing).
	Path []string
	// TempDir is where WalkStream keeps the down links of the documents it
	// is walking, past a few thousand each; "" for the system's.
	TempDir string
	// Archives walks into archives (Archives specification): the documents
	// a Resource List, Resource Dump, Change List or Change Dump Archive
	// lists, and the parts of an archive index. Without it an archive is a
	// node whose entries are counted, not loaded (Node.ArchiveNotWalked).
	Archives bool
}

// walker holds the state of one Walk.
type walker struct {
	g       *Graph
	opts    WalkOptions
	mu      sync.Mutex
	visited map[string]*Node
	repeats []*Node
	loaded  int // documents loaded or being loaded, under mu
}

// admit reserves the loading of one more document; false once the walk's
// bound of documents is reached.
func (w *walker) admit() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.opts.MaxDocuments >= 0 && w.loaded >= w.opts.MaxDocuments {
		return false
	}
	w.loaded++
	return true
}

// Walk loads the document at root and, concurrently within the Getter's and
// the graph's limits, every document below it along down links. Each document
// is expanded once per walk (cycle-safe); a document reached again is a
// Repeat node. Failures are kept per node (Node.Err) and do not stop the walk.
//
// The error is the root's Err when the root could not be loaded, or the
// context's error; the returned Node is never nil.
func (g *Graph) Walk(ctx context.Context, root string, opts WalkOptions) (*Node, error) {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 8
	}
	if opts.MaxDocuments == 0 {
		opts.MaxDocuments = DefaultMaxDocuments
	}
	w := &walker{g: g, opts: opts, visited: map[string]*Node{}, loaded: 1}
	n := &Node{}
	w.visited[NormalizeURL(root)] = n
	n.Document = g.LoadWith(ctx, root, LoadOptions{KeepEntries: opts.KeepEntries, Check: opts.Check, noExchange: true, countDown: opts.Depth == 0})
	if n.Err != nil && n.Header == nil {
		return n, n.Err
	}
	w.expand(ctx, n)
	for _, r := range w.repeats {
		r.Document = r.Same.Document
	}
	if opts.FetchPackages {
		w.checkPackages(ctx, n)
	}
	if opts.Check {
		checkTree(n, opts.Hints)
	} else if opts.FetchPackages {
		n.Walk(func(x *Node) bool {
			x.Cross = append(x.Cross[:0:0], x.pkgProblems...)
			return true
		})
	}
	return n, ctx.Err()
}

// expand loads the children of n and, recursively, theirs.
func (w *walker) expand(ctx context.Context, n *Node) {
	if n.DownCount == 0 {
		return
	}
	if !w.opts.Archives && n.Capability().IsArchive() {
		n.ArchiveNotWalked = true
		return
	}
	if w.opts.Depth >= 0 && n.Depth >= w.opts.Depth {
		n.Unexpanded = true
		return
	}
	n.Children = make([]*Node, len(n.Down))
	var toLoad []*Node
	w.mu.Lock()
	for i := range n.Down {
		dl := &n.Down[i]
		c := &Node{Parent: n, Via: dl, Depth: n.Depth + 1}
		key := NormalizeURL(dl.Loc)
		if prev, ok := w.visited[key]; ok {
			c.Repeat, c.Same = true, prev
			w.repeats = append(w.repeats, c)
		} else {
			w.visited[key] = c
			toLoad = append(toLoad, c)
		}
		n.Children[i] = c
	}
	w.mu.Unlock()

	if n.Depth < len(w.opts.Path) {
		next := NormalizeURL(w.opts.Path[n.Depth])
		capList := n.Capability() == model.CapCapabilityList
		toLoad = slices.DeleteFunc(toLoad, func(c *Node) bool {
			return NormalizeURL(c.Via.Loc) != next && !(capList && c.Via.Capability.IsArchive())
		})
	}
	var eg errgroup.Group
	eg.SetLimit(w.opts.Concurrency)
	for _, c := range toLoad {
		if ctx.Err() != nil {
			c.Document = &Document{URL: c.Via.Loc, Err: ctx.Err()}
			continue
		}
		if !w.admit() {
			c.Skipped = true
			continue
		}
		eg.Go(func() error {
			atBound := w.opts.Depth >= 0 && c.Depth >= w.opts.Depth
			c.Document = w.g.LoadWith(ctx, c.Via.Loc, c.Via.loadOptions(w.opts.KeepEntries, w.opts.Check, atBound))
			if c.Err == nil || c.Header != nil {
				w.expand(ctx, c)
			}
			return nil
		})
	}
	_ = eg.Wait()
}

// Bounds counts what the bounds of a walk left out below n: Skipped nodes
// (the documents bound) and the down links of Unexpanded ones (the depth
// bound).
func (n *Node) Bounds() (skipped, unexpanded int) {
	n.Walk(func(x *Node) bool {
		switch {
		case x.Skipped:
			skipped++
		case x.Unexpanded && !x.Repeat:
			unexpanded += x.DownCount
		}
		return true
	})
	return skipped, unexpanded
}

// Walk calls f for n and every node below it, depth first, in document
// order; it stops descending where f returns false.
func (n *Node) Walk(f func(*Node) bool) {
	if n == nil || !f(n) {
		return
	}
	for _, c := range n.Children {
		c.Walk(f)
	}
}

// ProblemCounts adds up the node's problems: the document's own (when it was
// checked) and the cross-document ones at this place of the tree.
func (n *Node) ProblemCounts() (errors, warnings int) {
	if n.Document != nil {
		errors, warnings = n.Errors, n.Warnings
	}
	e, w := model.CountProblems(n.Cross)
	errors, warnings = errors+e, warnings+w
	return errors, warnings
}
