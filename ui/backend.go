package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"rsx/claims"
	"rsx/crawl"
	"rsx/dest/engine"
	"rsx/dump"
	"rsx/fetch"
	"rsx/memento"
	"rsx/model"
	"rsx/session"
	"rsx/spotcheck"
	"rsx/ui/pages"
)

// The explorer does no I/O of its own: it reads and fetches through the
// small interfaces below, which *session.Session satisfies. Their methods
// block and are called only from inside a tea.Cmd, with a context the user
// can cancel (esc).

// Backend is everything the explorer asks of its live data.
//
// Test fakes embed NopBackend and override the methods they need, so that
// methods added here later do not break them.
type Backend interface {
	Documents
	Links
	Resources
	Versions
	Packages
	Browser
	Archives
	Notifications
	Destinations
	Paths
}

// Paths completes what is typed at the ":" prompt.
type Paths interface {
	// CompletePath returns the local files and folders whose path begins
	// with prefix (a folder ends with a separator), sorted; nil for none.
	CompletePath(prefix string) []string
}

// Documents loads ResourceSync documents and what surrounds them.
type Documents interface {
	// Exchanges returns copies of the HTTP exchanges made so far, oldest
	// first. It copies a record in memory: the root and the HTTP page ask
	// it on spinner ticks, from Update, for the waits before retries.
	Exchanges() []*fetch.Exchange

	// Throttled returns the hosts whose requests waited for their turn
	// (the per-host rate of the host's kind, a robots.txt Crawl-delay);
	// Throttle.Active tells those held back now. The root asks it as the
	// status bar is drawn, from Update, while anything loads.
	Throttled() []fetch.Throttle

	// LoadDocument fetches url (or reads a local file) and decodes it as a
	// Sitemap document, telling sink what it finds as it streams in.
	LoadDocument(ctx context.Context, url string, sink session.DocSink) error

	// Ancestors follows the index or up links of a document (its header h,
	// found at url) to the Source Description and returns the path from the
	// Source Description down to the document's parent.
	Ancestors(ctx context.Context, url string, h *model.Header) ([]Crumb, error)

	// Discover runs ResourceSync discovery from any http(s) URL.
	Discover(ctx context.Context, url string) (*crawl.Discovery, error)

	// OpenRaw opens url (or a local file) for reading its text as served,
	// gzip undone; size is -1 when unknown. The caller closes it.
	OpenRaw(ctx context.Context, url string) (r io.ReadCloser, size int64, err error)

	// ReadEntries reads the entries at indexes (Entry.Index, ascending) of
	// the document at url again, whole: the explorer's table keeps only
	// what it shows. raw, when not nil, is the document's bytes as loaded.
	// An entry the document no longer has is left out.
	ReadEntries(ctx context.Context, url string, raw []byte, indexes []int) ([]model.Entry, error)

	// CrossCheck loads the documents url lists (a Source Description,
	// Capability List or index: headers and counts, not their entries) and
	// returns the cross-document problems about url's entries, those of
	// the documents it lists at their entries; above are its crumbs.
	CrossCheck(ctx context.Context, url string, above []Crumb) ([]model.Problem, error)
	// CrossCheckListed returns the cross-document problems about url as
	// the documents above it (its crumbs) list it.
	CrossCheckListed(ctx context.Context, url string, above []Crumb) ([]model.Problem, error)
}

// Links decides which targets the explorer may read: a document from the
// network may not lead to a local file, and local files are read at all
// only once the user opened one. Unlike the other methods, these do no I/O
// and return at once: the root calls them from Update, before it starts a
// load.
type Links interface {
	// UserOpened tells that the user asked for target themselves (typed
	// it at the prompt, or gave it on the command line): a local file
	// allows local files from then on.
	UserOpened(target string)

	// FollowLink tells whether a link to target, found in the document
	// (or the resource) from, may be followed: opened as a document or
	// downloaded. The error says why not.
	FollowLink(from, target string) error
}

// Resources checks a resource against what its document claims: the
// resource page's backend (pages.Inspector, InspectResource).
type Resources = pages.Inspector

// Versions reads the versions of a resource through Memento: the versions
// and diff pages' backend (pages.Mementos: TimeMap, TimeGate,
// CompareVersions).
type Versions = pages.Mementos

// Packages downloads dump packages.
type Packages interface {
	// OpenPackage prepares the download of the package ref describes; nil
	// when packages cannot be downloaded.
	OpenPackage(ref dump.PackageRef, opts dump.Options) *session.PackageLoad
}

// Archives reads what a Source keeps of its history (ResourceSync Archives).
type Archives interface {
	// History loads the live change document around url (a Change List or
	// Change Dump, an index of them, a part of one, or a Change List or
	// Change Dump Archive) and its archive, for the coverage view. With a
	// History, the error says what of the archive could not be had.
	History(ctx context.Context, url string) (*crawl.History, error)
}

// Notifications subscribes to a Source's notification channels.
type Notifications interface {
	// Subscribe finds the notification channels target advertises and
	// subscribes to them in the background until the subscription is
	// stopped. It returns at once: what happens comes from its Next, which
	// blocks and is called only from inside a tea.Cmd.
	Subscribe(target string) *session.Subscription
}

// Destinations syncs, audits and reads local copies, and spot-checks
// entries (session/dest.go, local.go, spot.go).
type Destinations interface {
	// NewSync prepares a sync; it opens nothing until its Plan. Nil when
	// this backend cannot sync.
	NewSync(req session.SyncRequest) *session.Sync
	// AuditCopy compares a copy with the Source's current state.
	AuditCopy(ctx context.Context, req session.AuditRequest) (*engine.AuditReport, error)
	// LocalStates tells each entry's state in a copy, a batch at a time.
	LocalStates(ctx context.Context, req session.LocalRequest, out func(session.LocalBatch)) error
	// SpotCheck holds entries' resources to their claims.
	SpotCheck(ctx context.Context, req session.SpotRequest, progress func(spotcheck.Progress)) (*spotcheck.Report, error)
}

// Browser opens a URL in the user's web browser.
type Browser interface {
	OpenBrowser(url string) error
}

// Crumb is one document on the path from the Source Description.
type Crumb = session.Crumb

// errNoBackend is returned by NopBackend.
var errNoBackend = errors.New("no backend: this build cannot fetch")

// NopBackend implements Backend by failing every call. Embed it in fakes.
type NopBackend struct{}

// Exchanges returns none.
func (NopBackend) Exchanges() []*fetch.Exchange { return nil }

// CompletePath completes nothing.
func (NopBackend) CompletePath(string) []string { return nil }

// LoadDocument fails.
func (NopBackend) LoadDocument(_ context.Context, _ string, sink session.DocSink) error {
	sink.Done(session.LoadResult{Err: errNoBackend})
	return errNoBackend
}

// Ancestors finds none.
// Throttled reports no host held back.
func (NopBackend) Throttled() []fetch.Throttle { return nil }

func (NopBackend) Ancestors(context.Context, string, *model.Header) ([]Crumb, error) {
	return nil, nil
}

// Discover fails.
func (NopBackend) Discover(context.Context, string) (*crawl.Discovery, error) {
	return nil, errNoBackend
}

// OpenRaw fails.
func (NopBackend) OpenRaw(context.Context, string) (io.ReadCloser, int64, error) {
	return nil, 0, errNoBackend
}

// ReadEntries reads nothing.
func (NopBackend) ReadEntries(context.Context, string, []byte, []int) ([]model.Entry, error) {
	return nil, errNoBackend
}

// UserOpened does nothing: NopBackend reads nothing.
func (NopBackend) UserOpened(string) {}

// FollowLink allows links to http(s) URLs only, as a session started on a
// URL does (a fake that embeds NopBackend follows links so).
func (NopBackend) FollowLink(from, target string) error {
	if model.IsHTTPURL(target) {
		return nil
	}
	if model.IsLocal(target) {
		return fmt.Errorf("%s, linked from %s: %w", target, from, session.ErrLocalFile)
	}
	return fmt.Errorf("%s: only http(s) URLs and local files are opened", target)
}

// CrossCheck finds none.
func (NopBackend) CrossCheck(context.Context, string, []Crumb) ([]model.Problem, error) {
	return nil, nil
}

// CrossCheckListed finds none.
func (NopBackend) CrossCheckListed(context.Context, string, []Crumb) ([]model.Problem, error) {
	return nil, nil
}

// InspectResource fails without fetching.
func (NopBackend) InspectResource(_ context.Context, t claims.Target, _ func(int64, int64)) session.Inspection {
	return session.Inspection{Result: claims.Failed(t, errNoBackend)}
}

// TimeMap fails.
func (NopBackend) TimeMap(context.Context, string) (*memento.TimeMap, *fetch.Exchange, error) {
	return nil, nil, errNoBackend
}

// TimeGate fails.
func (NopBackend) TimeGate(_ context.Context, _ string, at time.Time) (session.TimeGateAnswer, error) {
	return session.TimeGateAnswer{Asked: at}, errNoBackend
}

// CompareVersions fails.
func (NopBackend) CompareVersions(_ context.Context, version, current string) session.VersionDiff {
	return session.VersionDiff{Version: session.Body{URL: version, Err: errNoBackend}, Current: session.Body{URL: current, Err: errNoBackend},
		Note: "no comparison: " + errNoBackend.Error()}
}

// OpenPackage has no package to give.
func (NopBackend) OpenPackage(dump.PackageRef, dump.Options) *session.PackageLoad { return nil }

// OpenBrowser fails.
func (NopBackend) OpenBrowser(string) error { return errNoBackend }

// Subscribe reports that it cannot, and ends.
func (NopBackend) Subscribe(string) *session.Subscription {
	ch := make(chan session.NotificationEvent, 1)
	ch <- session.NotificationEvent{Err: errNoBackend}
	close(ch)
	return session.NewSubscription(ch, nil)
}

// History fails.
func (NopBackend) History(context.Context, string) (*crawl.History, error) { return nil, errNoBackend }

// NewSync cannot sync.
func (NopBackend) NewSync(session.SyncRequest) *session.Sync { return nil }

// AuditCopy fails.
func (NopBackend) AuditCopy(context.Context, session.AuditRequest) (*engine.AuditReport, error) {
	return nil, errNoBackend
}

// LocalStates fails.
func (NopBackend) LocalStates(context.Context, session.LocalRequest, func(session.LocalBatch)) error {
	return errNoBackend
}

// SpotCheck fails.
func (NopBackend) SpotCheck(context.Context, session.SpotRequest, func(spotcheck.Progress)) (*spotcheck.Report, error) {
	return nil, errNoBackend
}
