package ui

import (
	"context"
	"slices"
	"time"

	"rsx/fetch"
	"rsx/model"
	"rsx/ui/components"
	"rsx/ui/pages"
)

// document is one ResourceSync document as the explorer holds it: loaded,
// loading or failed. Only the root model's goroutine changes it; the
// backend's goroutine sends what it finds as messages. Once loaded it does
// not change, so background sorts and filters may read its entries.
type document struct {
	gen   int    // load generation: messages of older loads are dropped
	url   string // as asked
	final string // after redirects ("" until known)

	header  *model.Header // nil until read
	entries *model.EntryTable

	// A combined view of an index: every part's entries in one table, in
	// part order (allparts.go).
	parts     []string // part URLs; nil when not combined
	partStart []int32  // the first row of each part joined so far, then the row after
	partsDone int      // parts whose load ended (joined or waiting for their turn)
	partErrs  []string
	combined  *combinedLoad // while the parts load

	// Entries read back whole (app_entries.go): the last run read, and the
	// one being read.
	full, reading *entryWindow

	loading  bool
	wait     retryWait // a request of the load waits to try again
	started  time.Time
	bytes    int64 // decoded bytes read so far
	total    int64 // expected bytes, -1 unknown
	err      error
	exchange *fetch.Exchange
	problems []model.Problem
	nErrors  int // exact counts, also beyond the problems stored
	nWarns   int
	raw      []byte // the document's bytes, nil when too large
	crumbs   []Crumb
	cancel   context.CancelFunc
	keys     *colKeys

	// ancestorsDone: the climb through the index and up links has ended
	// (findAncestors); ancestorsErr is why it stopped short, if it did.
	ancestorsDone bool
	ancestorsErr  error

	// Cross-document problems (validity.go) and the entries' marks: cross
	// is crossDown, about the entries (the documents it lists against it),
	// then crossUp, about the document as the document that lists it does.
	cross       []model.Problem
	crossDown   []model.Problem
	crossState  crossState
	crossErr    error
	crossCancel context.CancelFunc
	crossUp     []model.Problem
	upState     crossState
	upCancel    context.CancelFunc
	crossGen    int                       // the check running or done: results of others are dropped
	crossCrumbs bool                      // the check of the entries saw the crumbs (the documents above)
	marks       []uint8                   // per entry, nil when no entry has a problem
	byEntry     map[int32][]model.Problem // the problems of each entry that has some

	// stale: a framework notification said the document changed after it
	// was loaded (r loads it again).
	stale bool

	// picked are the entries the user marked (marks.go); local is their
	// state in the local copy attached (local.go). Both nil until used.
	picked *pickSet
	local  *localCopy
	// carried are the marks of the load before a reload (r), put back on
	// the entries of this load as they arrive; nil when none.
	carried *carriedMarks

	// discoveryPage is the discovery run from this URL because it is not a
	// ResourceSync document: coming back to it in the history shows it as
	// it was, without running discovery again.
	discoveryPage *pages.Discovery
}

func newDocument(url string, gen int) *document {
	return &document{gen: gen, url: url, total: -1, entries: model.NewLeanEntryTable(), keys: &colKeys{times: map[colKind][]int64{}}}
}

// snapshot is a copy of d, loading, that a Cmd may read (sort and filter
// the rows in so far) while the UI goroutine goes on appending to d: its
// table is a Snapshot of d's, and it builds no cached keys of its own.
func (d *document) snapshot() *document {
	s := *d
	s.entries = d.entries.Snapshot()
	s.partStart = slices.Clip(d.partStart)
	s.keys = &colKeys{times: map[colKind][]int64{}}
	return &s
}

// displayOrigin is the origin whose locs the table shows from their path:
// the document's own, or for a local file that of its first entry.
func (d *document) displayOrigin() string {
	if o := originOf(d.base()); o != "" {
		return o
	}
	if d.entries.Len() > 0 {
		return originOf(d.entries.Loc(0))
	}
	return ""
}

// base is the URL relative references are resolved against.
func (d *document) base() string {
	if d.final != "" {
		return d.final
	}
	return d.url
}

// capability of the document ("" until the header is read).
func (d *document) capability() model.Capability {
	if d.header == nil {
		return ""
	}
	return d.header.MD.Capability
}

// root element kind of the document.
func (d *document) root() model.RootKind {
	if d.header == nil {
		return model.RootUnknown
	}
	return d.header.Root
}

// isIndex tells whether the document is a <sitemapindex> shown part by part.
func (d *document) isIndex() bool { return d.parts == nil && d.root() == model.RootSitemapIndex }

// title is the document type in words: "Resource List Index", or "All
// parts of …" for a combined view.
func (d *document) title() string {
	if d.header == nil {
		if d.loading {
			return "Loading…"
		}
		return "Document"
	}
	t := documentTitle(d.header.MD.Capability, d.header.Root)
	if d.parts != nil {
		return "All entries of " + t
	}
	return t
}

// isResourceSync tells whether the header read is a ResourceSync document.
func (d *document) isResourceSync() bool {
	return d.header != nil && d.header.Root != model.RootUnknown && d.header.MD.Capability != ""
}

// link returns the document-level link with relation rel, resolved.
func (d *document) link(rel string) string { return d.header.LinkHref(rel, d.base()) }

// cancelLoad stops a load in flight.
func (d *document) cancelLoad() {
	if d.cancel != nil {
		d.cancel()
		d.cancel = nil
	}
	d.combined = nil // the parts that waited for their turn
}

// entriesAreDocuments tells whether the entries point at other
// ResourceSync documents (Capability Lists, lists, index parts, archived
// documents).
func (d *document) entriesAreDocuments() bool {
	if d.parts != nil {
		// Every part's entries in one list: documents when the parts are
		// those of an archive.
		return d.capability().IsArchive()
	}
	return entryIsDocument(d.capability(), d.root())
}

// entriesArePackages tells whether the entries are dump packages.
func (d *document) entriesArePackages() bool {
	if d.parts != nil {
		return entryIsPackage(d.capability(), model.RootURLSet)
	}
	return entryIsPackage(d.capability(), d.root())
}

// documentTitle names a document type in words.
func documentTitle(c model.Capability, root model.RootKind) string {
	return model.DocumentTitle(c, root)
}

// entryIsDocument tells whether the entries of a document of capability c
// (root root) point at other ResourceSync documents rather than resources.
func entryIsDocument(c model.Capability, root model.RootKind) bool {
	if root == model.RootSitemapIndex {
		return true
	}
	switch c {
	case model.CapDescription, model.CapCapabilityList:
		return true
	}
	// An archive lists the documents its Source published over time.
	return c.IsArchive()
}

// entryIsPackage tells whether entries are dump packages (ZIP files).
func entryIsPackage(c model.Capability, root model.RootKind) bool {
	return root != model.RootSitemapIndex && (c == model.CapResourceDump || c == model.CapChangeDump)
}

// shortURL drops the scheme of a URL for display (components.ShortURL).
func shortURL(u string) string { return components.ShortURL(u) }
