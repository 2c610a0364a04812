// Package session holds the explorer's live data: documents loading, dump packages downloading and resources being checked, cancellable and reporting progress as values.
//
// It loads and checks documents, follows them up to the Source Description,
// downloads dump packages into temporary files of its own and judges them,
// and checks resources against their claims. Every method blocks: the explorer calls them from inside its commands,
// with a context the user can cancel. Nothing here knows of the terminal.
package session

import (
	"context"
	"io"
	"net/http"
	"time"

	"rsx/claims"
	"rsx/crawl"
	"rsx/fetch"
	"rsx/model"
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
	// MaxRaw is the largest document whose bytes are kept for the raw view;
	// default 64 MiB.
	MaxRaw int64
	// Decoder bounds the decoder.
	Decoder model.DecoderOptions
	// Claims tune the checks of resources; its Preview defaults to 512
	// bytes.
	Claims claims.Options
	// TempDir holds downloaded packages when OpenPackage is given no
	// dump.Options.TempDir ("" = the system's temporary directory).
	TempDir string
}

// Session is the live data of one explorer: it fetches through one client,
// whose exchanges it reports. It is safe for concurrent use.
type Session struct {
	get    Getter
	dl     Downloader // nil: downloads go through get (tests)
	opts   Options
	claims *claims.Checker
}

// New returns a session that fetches with c.
func New(c *fetch.Client, o Options) *Session {
	s := &Session{get: c, dl: c, opts: withDefaults(o)}
	s.claims = claims.New(c, s.opts.Claims)
	return s
}

// NewWithGetter returns a session that fetches everything with g (tests
// give it an in-memory getter): downloads read the whole response of a Get.
func NewWithGetter(g Getter, o Options) *Session {
	s := &Session{get: g, opts: withDefaults(o)}
	s.claims = claims.New(downloadWith{s}, s.opts.Claims)
	return s
}

func withDefaults(o Options) Options {
	if o.BatchSize <= 0 {
		o.BatchSize = 2048
	}
	if o.BatchWait <= 0 {
		o.BatchWait = 100 * time.Millisecond
	}
	if o.MaxRaw == 0 {
		o.MaxRaw = 64 << 20
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
// and returns the cross-document problems about target's entries.
func (s *Session) CrossCheck(ctx context.Context, target string) ([]model.Problem, error) {
	g := crawl.NewGraph(s.get, crawl.GraphOptions{Decoder: s.opts.Decoder})
	root, err := g.Walk(ctx, target, crawl.WalkOptions{Depth: 1, Check: true})
	if root == nil {
		return nil, err
	}
	return root.Cross, err
}

// CheckResource fetches t once and judges it against its claims; see
// claims.Checker.Check. The result keeps a preview of the body.
func (s *Session) CheckResource(ctx context.Context, t claims.Target, progress func(done, total int64)) claims.Result {
	return s.claims.Check(ctx, t, progress)
}

// StatusText is the standard text of an HTTP status code ("Not Found"),
// for views that show exchanges.
func StatusText(code int) string { return http.StatusText(code) }
