// Package session holds the explorer's live data: documents loading, dump packages downloading and resources being checked, cancellable and reporting progress as values.
//
// It loads and checks documents, follows them up to the Source Description,
// downloads dump packages into temporary files of its own and judges them,
// and checks resources against their claims. Every method blocks: the explorer calls them from inside its commands,
// with a context the user can cancel. Nothing here knows of the terminal.
package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"rsx/claims"
	"rsx/crawl"
	"rsx/dest/job"
	"rsx/fetch"
	"rsx/model"
	"rsx/notify"
)

// Getter fetches documents; *fetch.Client is one.
type Getter interface {
	Get(ctx context.Context, url string) (*fetch.Response, error)
}

// Downloader streams large bodies; *fetch.Client is one.
type Downloader interface {
	Download(ctx context.Context, url string, w io.Writer, progress func(done, total int64)) (*fetch.Exchange, error)
	Exchanges() []*fetch.Exchange
}

// Options tune a Session. The zero value gives the defaults.
type Options struct {
	// BatchSize is how many entries LoadDocument delivers at once; default
	// 2048.
	BatchSize int
	// BatchWait is the longest an entry waits before its batch is
	// delivered; default 100ms.
	BatchWait time.Duration
	// MaxRaw is the largest document whose bytes are kept for the raw view
	// and for reading entries back (ReadEntries); default 16 MiB. A larger
	// document is read again when its text or a whole entry is wanted: its
	// bytes would cost more than its entries' table.
	MaxRaw int64
	// Decoder bounds the decoder.
	Decoder model.DecoderOptions
	// MaxBytes bounds a document read from a local file as the client's
	// own limit (--max-bytes) bounds one fetched, with the same
	// *fetch.TooLargeError, which says how to raise it; 0: no bound but the
	// Decoder's.
	MaxBytes int64
	// Claims tune the checks of resources; its Preview defaults to 512
	// bytes.
	Claims claims.Options
	// TempDir holds downloaded packages when OpenPackage is given no
	// dump.Options.TempDir ("" = the system's temporary directory).
	TempDir string
	// LocalFiles says that the user opened a local file (the explorer was
	// started on one): only then may the session read local files at all,
	// documents and packages that local documents point at included. A
	// session started on a URL reads none until UserOpened is told of a
	// local target the user asked for.
	LocalFiles bool
	// BrowserSchemes are the URL schemes besides http and https that
	// OpenBrowser may hand to the system's opener: the user's explicit
	// choice (rsx --open-scheme, RSX_OPEN_SCHEMES).
	BrowserSchemes []string
	// Notify configures the connections of Subscribe (the HTTP client of
	// the WebSocket handshakes, headers, back-off); the zero value gives
	// notify's defaults.
	Notify notify.Options
	// Log receives what the session decides on its own while the user
	// looks elsewhere (a notification channel that dropped and when it
	// tries again): the log file's logger (--log-file); nil logs nothing.
	Log *slog.Logger
	// Dest says how syncs, audits of a copy and spot checks reach
	// destinations and fetch resources (dest.go).
	Dest DestOptions
}

// Session is the live data of one explorer: it fetches through one client,
// whose exchanges it reports. It is safe for concurrent use.
type Session struct {
	get    Getter
	dl     Downloader // nil: downloads go through get (tests)
	opts   Options
	claims *claims.Checker
	local  atomic.Bool // local files may be read: the user opened one
	syncs  openSyncs   // syncs not yet released (syncs.go)

	// jobs is the runner of syncs and audits of a copy when Options.Dest
	// gives none (dest.go), made once.
	jobs     *job.Runner
	jobsOnce sync.Once
	// syncClients are the clients of the syncs open (Throttled).
	syncsMu     sync.Mutex
	syncClients map[*fetch.Client]int
}

// New returns a session that fetches with c.
func New(c *fetch.Client, o Options) *Session {
	s := &Session{get: c, dl: c, opts: withDefaults(o)}
	s.claims = claims.New(c, s.opts.Claims)
	s.local.Store(o.LocalFiles)
	return s
}

// NewWithGetter returns a session that fetches everything with g (tests
// give it an in-memory getter): downloads read the whole response of a Get.
func NewWithGetter(g Getter, o Options) *Session {
	s := &Session{get: g, opts: withDefaults(o)}
	s.claims = claims.New(downloadWith{s}, s.opts.Claims)
	s.local.Store(o.LocalFiles)
	return s
}

// ErrLocalFile is wrapped by the error for a local file the session will
// not read: a document from the network may point at file: URLs, which are
// shown, never followed (model.MayFollow), and local files are read at all
// only once the user opened one.
var ErrLocalFile = errors.New("local files are read only when you open one yourself; a document from the network cannot make rsx read them (its file: links are shown, not followed)")

// UserOpened tells the session that the user asked for target themselves
// (typed it, or gave it on the command line), as opposed to following a
// link: a local target allows the session to read local files from then on.
func (s *Session) UserOpened(target string) {
	if model.IsLocal(target) {
		s.local.Store(true)
	}
}

// FollowLink tells whether a link to target found in the document at from
// may be followed (opened as a document, downloaded): nil when it may, an
// error wrapping ErrLocalFile when it is a local file that the document may
// only show (model.MayFollow; a document from the network never leads to a
// local file), another error for a target that is neither http(s) nor local.
// The explorer asks it before it follows a link (u, i, enter on an entry),
// since LoadDocument, given only the target, cannot tell a link from what
// the user typed.
func (s *Session) FollowLink(from, target string) error {
	if model.MayFollow(from, target) {
		return s.mayRead(target)
	}
	if model.IsLocal(target) {
		return fmt.Errorf("%s, linked from %s: %w", target, from, ErrLocalFile)
	}
	return fmt.Errorf("%s: only http(s) URLs and local files are opened", target)
}

// mayRead tells whether target may be read: any http(s) URL; a local file
// only once the user opened one. A link found in a document is further
// held to model.MayFollow by the methods that know the document.
func (s *Session) mayRead(target string) error {
	switch {
	case model.IsHTTPURL(target):
		return nil
	case model.IsLocal(target):
		if s.local.Load() {
			return nil
		}
		return fmt.Errorf("read %s: %w", target, ErrLocalFile)
	}
	return fmt.Errorf("%s: only http(s) URLs and local files are opened", target)
}

func withDefaults(o Options) Options {
	if o.BatchSize <= 0 {
		o.BatchSize = 2048
	}
	if o.BatchWait <= 0 {
		o.BatchWait = 100 * time.Millisecond
	}
	if o.MaxRaw == 0 {
		o.MaxRaw = 16 << 20
	}
	if o.Claims.Preview == 0 {
		o.Claims.Preview = 512
	}
	return o
}

// Exchanges returns copies of the HTTP exchanges made so far, oldest first
// (none for a session over a bare Getter).
func (s *Session) Exchanges() []*fetch.Exchange {
	if s.dl == nil {
		return nil
	}
	return s.dl.Exchanges()
}

// Discover runs ResourceSync discovery from any http(s) URL.
func (s *Session) Discover(ctx context.Context, target string) (*crawl.Discovery, error) {
	return crawl.Discover(ctx, s.get, target, crawl.DiscoverOptions{})
}

// CrossCheck loads the documents target lists (a Source Description,
// Capability List or index: their headers and counts, not their entries)
// and returns the cross-document problems about target's entries: those
// rsx validate --recursive reports under target and, at the entry that
// lists each document, those it reports under that document
// (crawl.Node.ListingProblems). above are the documents above target (its
// crumbs, from the Source Description down); the check starts at the
// nearest Capability List among them, loading only the way down and its
// archives, so that the checks that need it (rel="archives" links, the up
// links of an index's parts) see it.
func (s *Session) CrossCheck(ctx context.Context, target string, above []Crumb) ([]model.Problem, error) {
	g := crawl.NewGraph(s.get, crawl.GraphOptions{Decoder: s.opts.Decoder})
	if path := fromCapabilityList(above); len(path) > 0 {
		if ps, reached, err := g.CheckListing(ctx, path, target, false); reached || ctx.Err() != nil {
			return ps, err
		}
	}
	ps, _, err := g.CheckListing(ctx, nil, target, false)
	return ps, err
}

// CrossCheckListed returns the cross-document problems about target as
// the documents above it (its crumbs, from the Source Description down to
// the document that lists it) list it: those rsx validate --recursive
// reports under target (crawl.Graph.CheckListed), from the nearest
// Capability List above, or else from the document that lists it.
func (s *Session) CrossCheckListed(ctx context.Context, target string, above []Crumb) ([]model.Problem, error) {
	if len(above) == 0 {
		return nil, nil
	}
	g := crawl.NewGraph(s.get, crawl.GraphOptions{Decoder: s.opts.Decoder})
	if path := fromCapabilityList(above); len(path) > 1 {
		if ps, reached, err := g.CheckListed(ctx, path, target, false); reached || ctx.Err() != nil {
			return ps, err
		}
	}
	ps, _, err := g.CheckListed(ctx, []string{above[len(above)-1].URL}, target, false)
	return ps, err
}

// fromCapabilityList is the way down from the last Capability List of
// crumbs to their end: nil when there is none.
func fromCapabilityList(crumbs []Crumb) []string {
	for i := len(crumbs) - 1; i >= 0; i-- {
		if crumbs[i].Capability == model.CapCapabilityList {
			out := make([]string, 0, len(crumbs)-i)
			for _, c := range crumbs[i:] {
				out = append(out, c.URL)
			}
			return out
		}
	}
	return nil
}

// CheckResource fetches t once and judges it against its claims; see
// claims.Checker.Check. The result keeps a preview of the body.
func (s *Session) CheckResource(ctx context.Context, t claims.Target, progress func(done, total int64)) claims.Result {
	return s.claims.Check(ctx, t, progress)
}

// StatusText is the standard text of an HTTP status code ("Not Found"),
// for views that show exchanges.
func StatusText(code int) string { return http.StatusText(code) }
