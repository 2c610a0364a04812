package ui

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"rsx/crawl"
	"rsx/fetch"
	"rsx/model"
)

// Backend does every I/O of the program: fetching, discovering, parsing. Its
// methods block and must be called only from inside a tea.Cmd, with a
// context the user can cancel (esc).
//
// Test fakes embed NopBackend and override the methods they need, so that
// methods added here later do not break them.
type Backend interface {
	// Download streams the body of url (an http(s) URL or a local file path)
	// into w, reporting progress (total is -1 when unknown), and returns the
	// record of the HTTP exchange (nil for a local file).
	Download(ctx context.Context, url string, w io.Writer, progress func(done, total int64)) (*fetch.Exchange, error)

	// Exchanges returns copies of the HTTP exchanges made so far, oldest first.
	Exchanges() []*fetch.Exchange

	// LoadDocument fetches url (or reads a local file) and decodes it as a
	// Sitemap document, telling sink what it finds as it streams in.
	LoadDocument(ctx context.Context, url string, sink DocSink) error

	// Ancestors follows the index or up links of a document (its header h,
	// found at url) to the Source Description and returns the path from the
	// Source Description down to the document's parent.
	Ancestors(ctx context.Context, url string, h *model.Header) ([]Crumb, error)

	// Discover runs ResourceSync discovery from any http(s) URL.
	Discover(ctx context.Context, url string) (*crawl.Discovery, error)

	// OpenRaw opens url (or a local file) for reading its text as served,
	// gzip undone; size is -1 when unknown. The caller closes it.
	OpenRaw(ctx context.Context, url string) (r io.ReadCloser, size int64, err error)

	// CrossCheck loads the documents url lists (a Source Description,
	// Capability List or index: headers and counts, not their entries) and
	// returns the cross-document problems about url's entries.
	CrossCheck(ctx context.Context, url string) ([]model.Problem, error)
}

// DocSink receives what LoadDocument finds, from LoadDocument's goroutine.
// Each method may block (back-pressure) and must return when ctx is done.
type DocSink interface {
	// Started is called once the response headers are in (or the file is
	// open): final is the URL after redirects, total the expected size
	// (-1 when unknown).
	Started(final string, total int64, ex *fetch.Exchange)
	// Header is called with a copy of the document-level information, read
	// before the first entry.
	Header(h model.Header)
	// Entries delivers a batch of entries in document order. The slice is
	// the sink's to keep.
	Entries(batch []model.Entry)
	// Progress reports decoded bytes read so far.
	Progress(done int64)
	// Done is called last, exactly once: the complete header (nil when none
	// was read), the bytes read, the raw document (nil when too large to
	// keep), the exchange (nil for a file), the problems found and err.
	Done(r LoadResult)
}

// LoadResult is the outcome of LoadDocument.
type LoadResult struct {
	FinalURL string
	Header   *model.Header
	Bytes    int64
	Raw      []byte
	Exchange *fetch.Exchange
	Problems []model.Problem // as stored by the checker (bounded)
	Errors   int             // exact counts, also beyond the problems stored
	Warnings int
	Err      error
}

// Crumb is one document on the path from the Source Description.
type Crumb struct {
	URL        string
	Capability model.Capability
	Root       model.RootKind
}

// Title is the crumb's document type in words.
func (c Crumb) Title() string { return documentTitle(c.Capability, c.Root) }

// errNoBackend is returned by NopBackend.
var errNoBackend = errors.New("no backend: this build cannot fetch")

// NopBackend implements Backend by failing every call. Embed it in fakes.
type NopBackend struct{}

// Download fails.
func (NopBackend) Download(context.Context, string, io.Writer, func(int64, int64)) (*fetch.Exchange, error) {
	return nil, errNoBackend
}

// Exchanges returns none.
func (NopBackend) Exchanges() []*fetch.Exchange { return nil }

// LoadDocument fails.
func (NopBackend) LoadDocument(_ context.Context, _ string, sink DocSink) error {
	sink.Done(LoadResult{Err: errNoBackend})
	return errNoBackend
}

// Ancestors finds none.
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

// CrossCheck finds none.
func (NopBackend) CrossCheck(context.Context, string) ([]model.Problem, error) { return nil, nil }

// Getter is what LiveBackend fetches documents with; *fetch.Client is one.
type Getter interface {
	Get(ctx context.Context, url string) (*fetch.Response, error)
}

// Downloader streams large bodies; *fetch.Client is one.
type Downloader interface {
	Download(ctx context.Context, url string, w io.Writer, progress func(done, total int64)) (*fetch.Exchange, error)
	Exchanges() []*fetch.Exchange
}

// LiveBackend is the Backend over the crawl, fetch and model packages.
type LiveBackend struct {
	get  Getter
	dl   Downloader // nil: Download fails for URLs
	opts LiveOptions
}

// LiveOptions tune a LiveBackend.
type LiveOptions struct {
	// BatchSize is how many entries are delivered at once; default 2048.
	BatchSize int
	// BatchWait is the longest an entry waits before its batch is delivered;
	// default 100ms.
	BatchWait time.Duration
	// MaxRaw is the largest document whose bytes are kept for the raw view;
	// default 64 MiB.
	MaxRaw int64
	// Decoder bounds the decoder.
	Decoder model.DecoderOptions
}

// NewLiveBackend returns a backend that fetches with c.
func NewLiveBackend(c *fetch.Client, o LiveOptions) *LiveBackend {
	b := &LiveBackend{get: c, dl: c, opts: o}
	b.defaults()
	return b
}

// NewGetterBackend returns a backend that fetches documents with g (tests
// give it an in-memory getter); Download works on local files only.
func NewGetterBackend(g Getter, o LiveOptions) *LiveBackend {
	b := &LiveBackend{get: g, opts: o}
	b.defaults()
	return b
}

func (b *LiveBackend) defaults() {
	if b.opts.BatchSize <= 0 {
		b.opts.BatchSize = 2048
	}
	if b.opts.BatchWait <= 0 {
		b.opts.BatchWait = 100 * time.Millisecond
	}
	if b.opts.MaxRaw == 0 {
		b.opts.MaxRaw = 64 << 20
	}
}

// isLocal tells whether target names a local file rather than a URL.
func isLocal(target string) bool {
	if strings.HasPrefix(target, "file://") {
		return true
	}
	u, err := url.Parse(target)
	if err != nil || u.Scheme == "" || len(u.Scheme) == 1 { // "C:\…" on Windows
		return true
	}
	return false
}

func localPath(target string) string {
	if p, ok := strings.CutPrefix(target, "file://"); ok {
		return p
	}
	return target
}

// Download streams url or a local file into w.
func (b *LiveBackend) Download(ctx context.Context, target string, w io.Writer, progress func(done, total int64)) (*fetch.Exchange, error) {
	if isLocal(target) {
		f, err := os.Open(localPath(target))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		total := int64(-1)
		if st, err := f.Stat(); err == nil {
			total = st.Size()
		}
		cr := &countingReader{r: f, ctx: ctx}
		_, err = io.Copy(w, cr)
		if progress != nil {
			progress(cr.n.Load(), total)
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", target, err)
		}
		return nil, nil
	}
	if b.dl == nil {
		// A getter-only backend (tests): the document path serves.
		resp, err := b.get.Get(ctx, target)
		if err != nil {
			if resp != nil && resp.Body != nil {
				resp.Body.Close()
			}
			return exchangeOf(resp), err
		}
		defer resp.Body.Close()
		cr := &countingReader{r: resp.Body, ctx: ctx}
		_, err = io.Copy(w, cr)
		if progress != nil {
			progress(cr.n.Load(), -1)
		}
		return exchangeOf(resp), err
	}
	return b.dl.Download(ctx, target, w, progress)
}

// Exchanges returns the client's exchanges.
func (b *LiveBackend) Exchanges() []*fetch.Exchange {
	if b.dl == nil {
		return nil
	}
	return b.dl.Exchanges()
}

// countingReader counts bytes and stops when its context is done.
type countingReader struct {
	r   io.Reader
	ctx context.Context
	n   atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// cappedBuffer keeps the first max bytes written and forgets everything once
// more arrive.
type cappedBuffer struct {
	buf  bytes.Buffer
	max  int64
	over bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.over {
		return len(p), nil
	}
	if int64(c.buf.Len()+len(p)) > c.max {
		c.over = true
		c.buf = bytes.Buffer{}
		return len(p), nil
	}
	return c.buf.Write(p)
}

// open fetches or opens target.
func (b *LiveBackend) open(ctx context.Context, target string) (body io.ReadCloser, final string, total int64, ex *fetch.Response, err error) {
	if isLocal(target) {
		p := localPath(target)
		f, err := os.Open(p)
		if err != nil {
			return nil, "", 0, nil, err
		}
		total = -1
		if st, err := f.Stat(); err == nil {
			if st.IsDir() {
				f.Close()
				return nil, "", 0, nil, fmt.Errorf("%s is a directory", p)
			}
			total = st.Size()
		}
		abs, aerr := filepath.Abs(p)
		if aerr != nil {
			abs = p
		}
		return f, abs, total, nil, nil
	}
	resp, err := b.get.Get(ctx, target)
	if err != nil {
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		if strings.Contains(err.Error(), target) {
			return nil, "", 0, resp, err // it names the URL already
		}
		return nil, "", 0, resp, fmt.Errorf("fetch %s: %w", target, err)
	}
	total = -1
	if resp.Header != nil && resp.Header.Get("Content-Encoding") == "" {
		if cl := resp.Header.Get("Content-Length"); cl != "" {
			var n int64
			if _, e := fmt.Sscan(cl, &n); e == nil {
				total = n
			}
		}
	}
	final = resp.URL
	if final == "" {
		final = target
	}
	body = resp.Body
	if body == nil {
		body = io.NopCloser(strings.NewReader(""))
	}
	return body, final, total, resp, nil
}

// exchangeOf copies a response's exchange once its body is closed.
func exchangeOf(resp *fetch.Response) *fetch.Exchange {
	if resp == nil || resp.Exchange == nil {
		return nil
	}
	ex := *resp.Exchange
	return &ex
}

// LoadDocument implements Backend.
func (b *LiveBackend) LoadDocument(ctx context.Context, target string, sink DocSink) error {
	res := LoadResult{FinalURL: target}
	body, final, total, resp, err := b.open(ctx, target)
	if err != nil {
		res.Err = err
		res.Exchange = exchangeOf(resp)
		sink.Done(res)
		return err
	}
	res.FinalURL = final
	sink.Started(final, total, exchangeOf(resp))

	raw := &cappedBuffer{max: b.opts.MaxRaw}
	cr := &countingReader{r: io.TeeReader(body, raw), ctx: ctx}
	dec := model.NewDecoder(cr, b.opts.Decoder)
	hdr, herr := dec.Header()
	checker := model.NewChecker(model.CheckOptions{BaseURL: final})
	if herr == nil {
		// Only a header that parsed: one cut short by a syntax error would
		// look like a non-Sitemap document and send the user to discovery,
		// hiding the error that Done reports.
		sink.Header(*hdr)
		checker.Begin(hdr)
	}
	err = herr
	if err == nil {
		err = b.stream(ctx, dec, cr, sink, checker)
	}
	body.Close()
	if hdr != nil {
		// A copy: the decoder's own Header would keep its read buffers alive
		// for as long as the document stays in history.
		h := *hdr
		res.Header = &h
	}
	res.Bytes = dec.BytesRead()
	if !raw.over {
		res.Raw = raw.buf.Bytes()
	}
	res.Exchange = exchangeOf(resp)
	{
		if err != nil && ctx.Err() == nil {
			// A document cut short: report the read error, not the things
			// that may only have been missing because they came later.
			checker.Abort(hdr, res.Bytes, err)
		} else {
			checker.End(hdr, res.Bytes)
		}
		res.Problems = checker.Problems()
		res.Errors, res.Warnings = checker.Counts()
	}
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		err = fmt.Errorf("read %s: %w", final, err)
	}
	res.Err = err
	sink.Done(res)
	return err
}

// stream decodes entries and hands them to sink in batches.
func (b *LiveBackend) stream(ctx context.Context, dec *model.Decoder, cr *countingReader, sink DocSink, ck *model.Checker) error {
	size := b.opts.BatchSize
	batch := make([]model.Entry, 0, min(size, 256))
	last := time.Now()
	flush := func() {
		if len(batch) > 0 {
			sink.Entries(batch)
			batch = make([]model.Entry, 0, size)
		}
		sink.Progress(cr.n.Load())
		last = time.Now()
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var e model.Entry
		err := dec.Next(&e)
		if err == io.EOF {
			flush()
			return nil
		}
		if err != nil {
			flush()
			return err
		}
		if ck != nil {
			ck.Entry(&e)
		}
		batch = append(batch, e)
		if len(batch) >= size || time.Since(last) >= b.opts.BatchWait {
			flush()
		}
	}
}

// Ancestors implements Backend: it reads only the headers of the documents
// it climbs through.
func (b *LiveBackend) Ancestors(ctx context.Context, start string, h *model.Header) ([]Crumb, error) {
	var chain []Crumb
	seen := map[string]bool{crawl.NormalizeURL(start): true}
	cur, base := h, start
	for range 8 {
		next := parentLink(cur, base)
		if next == "" || seen[crawl.NormalizeURL(next)] {
			break
		}
		seen[crawl.NormalizeURL(next)] = true
		hdr, final, err := b.header(ctx, next)
		if err != nil {
			return reverseCrumbs(chain), err
		}
		chain = append(chain, Crumb{URL: final, Capability: hdr.MD.Capability, Root: hdr.Root})
		if hdr.MD.Capability == model.CapDescription {
			break
		}
		cur, base = hdr, final
	}
	return reverseCrumbs(chain), nil
}

func reverseCrumbs(c []Crumb) []Crumb {
	out := make([]Crumb, len(c))
	for i := range c {
		out[len(c)-1-i] = c[i]
	}
	return out
}

// header reads only the document-level part of target.
func (b *LiveBackend) header(ctx context.Context, target string) (*model.Header, string, error) {
	body, final, _, _, err := b.open(ctx, target)
	if err != nil {
		return nil, "", err
	}
	defer body.Close()
	dec := model.NewDecoder(&countingReader{r: body, ctx: ctx}, b.opts.Decoder)
	hdr, err := dec.Header()
	if err != nil {
		return nil, final, fmt.Errorf("read %s: %w", final, err)
	}
	return hdr, final, nil
}

// Discover implements Backend.
func (b *LiveBackend) Discover(ctx context.Context, target string) (*crawl.Discovery, error) {
	return crawl.Discover(ctx, b.get, target, crawl.DiscoverOptions{})
}

// OpenRaw implements Backend.
func (b *LiveBackend) OpenRaw(ctx context.Context, target string) (io.ReadCloser, int64, error) {
	body, _, total, _, err := b.open(ctx, target)
	if err != nil {
		return nil, 0, err
	}
	br := bufio.NewReaderSize(body, 64<<10)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			body.Close()
			return nil, 0, fmt.Errorf("read %s: gzip: %w", target, err)
		}
		return readCloser{zr, body}, -1, nil
	}
	return readCloser{br, body}, total, nil
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }

// CrossCheck implements Backend with a one-level checked walk.
func (b *LiveBackend) CrossCheck(ctx context.Context, target string) ([]model.Problem, error) {
	g := crawl.NewGraph(b.get, crawl.GraphOptions{Decoder: b.opts.Decoder})
	root, err := g.Walk(ctx, target, crawl.WalkOptions{Depth: 1, Check: true})
	if root == nil {
		return nil, err
	}
	return root.Cross, err
}

// linkHref returns the first document-level link with relation rel,
// resolved against base; "" when none.
func linkHref(h *model.Header, rel, base string) string {
	if h == nil {
		return ""
	}
	for _, l := range h.Links {
		if !l.HasHref || l.Href == "" {
			continue
		}
		if linkHasRel(l.Rel, rel) {
			return resolveAgainst(base, l.Href)
		}
	}
	return ""
}

// parentLink is where a document sits in the tree: its index when it is a
// part of one, else its up link.
func parentLink(h *model.Header, base string) string {
	if u := linkHref(h, "index", base); u != "" {
		return u
	}
	return linkHref(h, "up", base)
}

// hasRel tells whether a rel attribute has the relation type rel among its
// space-separated tokens.
func linkHasRel(rels, rel string) bool {
	for _, tok := range strings.Fields(rels) {
		if strings.EqualFold(tok, rel) {
			return true
		}
	}
	return false
}

// resolveRef resolves ref against base (a URL or a local path).
func resolveAgainst(base, ref string) string {
	ref = strings.TrimSpace(ref)
	r, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	if r.IsAbs() {
		return ref
	}
	if isLocal(base) {
		if strings.HasPrefix(ref, "/") {
			return ref
		}
		return filepath.Join(filepath.Dir(localPath(base)), filepath.FromSlash(ref))
	}
	bu, err := url.Parse(base)
	if err != nil {
		return ref
	}
	return bu.ResolveReference(r).String()
}
