package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aymanbagabas/go-udiff"

	"rsx/claims"
	"rsx/crawl"
	"rsx/display"
	"rsx/fetch"
	"rsx/memento"
)

// Versions of a resource through Memento (RFC 7089): its TimeMap, its
// TimeGate asked for a datetime, and a version compared with the current
// resource.

// Bounds of what the versions fetch.
const (
	maxTimeMapBytes = 4 << 20  // a TimeMap larger than this is not read
	maxDiffBytes    = 2 << 20  // a body larger than this is compared by digest only
	maxCompareBytes = 64 << 20 // a body is read at most this far to compare
)

// TimeMap fetches and reads the TimeMap at url.
func (s *Session) TimeMap(ctx context.Context, url string) (*memento.TimeMap, *fetch.Exchange, error) {
	if !claims.Fetchable(url) {
		return nil, nil, fmt.Errorf("fetch the TimeMap %s: only http and https URLs are fetched", url)
	}
	resp, err := s.get.Get(ctx, url)
	if err != nil {
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		return nil, exchangeOf(resp), fmt.Errorf("fetch the TimeMap: %w", err)
	}
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, maxTimeMapBytes+1))
	resp.Body.Close()
	ex := exchangeOf(resp)
	switch {
	case rerr != nil:
		return nil, ex, fmt.Errorf("read the TimeMap %s: %w", url, rerr)
	case len(data) > maxTimeMapBytes:
		return nil, ex, fmt.Errorf("read the TimeMap %s: larger than %s", url, display.Size(maxTimeMapBytes))
	}
	base := resp.URL
	if base == "" {
		base = url
	}
	tm, err := memento.ParseTimeMap(data, base)
	if err != nil {
		return nil, ex, fmt.Errorf("%s: %w", url, err)
	}
	if mt := mediaTypeOf(resp.Header.Get("Content-Type")); mt != memento.MediaType && mt != "" {
		tm.Problems = append(tm.Problems, fmt.Sprintf("served as %s, not %s", mt, memento.MediaType))
	}
	return tm, ex, nil
}

// TimeGateAnswer is what a TimeGate answered for a datetime.
type TimeGateAnswer struct {
	Asked    time.Time // the Accept-Datetime sent
	Memento  string    // the memento it led to (the URL after its redirect)
	Datetime time.Time // the memento's Memento-Datetime; zero when not given
	TimeMap  string    // the TimeMap it links to (Link rel="timemap"); "" when none
	Original string    // the original resource it links to
	Status   int       // of the final response
	Exchange *fetch.Exchange
}

// TimeGate asks the TimeGate at gate for the memento in effect at at
// (Accept-Datetime, RFC 7089 section 4) and follows its redirect to the
// memento, whose body is not read.
func (s *Session) TimeGate(ctx context.Context, gate string, at time.Time) (TimeGateAnswer, error) {
	a := TimeGateAnswer{Asked: at}
	if !claims.Fetchable(gate) {
		return a, fmt.Errorf("ask the TimeGate %s: only http and https URLs are fetched", gate)
	}
	d, ok := s.dl.(claims.Downloader)
	if !ok {
		d = downloadWith{s}
	}
	ex, err := d.DownloadWith(ctx, gate, io.Discard, fetch.DownloadOptions{
		MaxBytes: 1, // only where it leads matters, not the memento's body
		Header:   http.Header{"Accept-Datetime": {memento.FormatHTTPDate(at)}},
	})
	var tooLarge *fetch.TooLargeError
	if errors.As(err, &tooLarge) {
		err = nil
	}
	a.Exchange = ex
	if ex != nil {
		a.Status, a.Memento = ex.Status, ex.FinalURL
		// The memento's Link header names the TimeMap and the original
		// resource (RFC 7089 section 2.2.1), its targets relative to it.
		for _, l := range crawl.ParseLinkHeader(ex.ResponseHeader.Values("Link")) {
			target, err := l.Resolve(ex.FinalURL)
			switch {
			case err != nil:
			case l.HasRel("timemap") && a.TimeMap == "":
				a.TimeMap = target
			case l.HasRel("original") && a.Original == "":
				a.Original = target
			}
		}
		if md := ex.ResponseHeader.Get("Memento-Datetime"); md != "" {
			a.Datetime, _ = memento.ParseHTTPDate(md)
		}
	}
	if err != nil {
		return a, fmt.Errorf("ask the TimeGate %s for %s: %w", gate, memento.FormatHTTPDate(at), err)
	}
	if a.Memento == "" || a.Memento == gate && len(ex.Redirects) == 0 && ex.ResponseHeader.Get("Memento-Datetime") == "" {
		return a, fmt.Errorf("ask the TimeGate %s for %s: it did not lead to a memento (HTTP %d)", gate, memento.FormatHTTPDate(at), a.Status)
	}
	return a, nil
}

// Body is one side of a comparison of versions.
type Body struct {
	URL       string
	FinalURL  string
	Status    int
	MediaType string
	Bytes     int64
	Digests   []Digest
	Text      bool
	Truncated bool  // read no further than maxCompareBytes
	Err       error // why it did not arrive whole
	data      []byte
}

// VersionDiff is a version of a resource compared with the resource as it
// is now.
type VersionDiff struct {
	Version, Current Body
	Same             bool   // the same bytes (same length and digests)
	Diff             string // unified diff of the texts; "" when Same or not compared
	Note             string // why there is no text diff, when there is none
}

// CompareVersions fetches a version (a memento) and the current resource
// and compares them: status, size, media type, every digest, and for text
// of a readable size a unified diff.
func (s *Session) CompareVersions(ctx context.Context, version, current string) VersionDiff {
	var out VersionDiff
	var wg sync.WaitGroup
	wg.Go(func() { out.Version = s.fetchBody(ctx, version) })
	wg.Go(func() { out.Current = s.fetchBody(ctx, current) })
	wg.Wait()
	a, b := &out.Version, &out.Current
	switch {
	case a.Err != nil || b.Err != nil:
		out.Note = "no comparison: a body did not arrive"
		return out
	case a.Truncated || b.Truncated:
		out.Note = "compared as far as read: a body is larger than " + display.Size(maxCompareBytes)
	}
	out.Same = a.Bytes == b.Bytes && sameDigests(a.Digests, b.Digests)
	switch {
	case out.Same:
	case !a.Text || !b.Text:
		out.Note = "no text diff: not text (" + orNone(a.MediaType) + ", " + orNone(b.MediaType) + ")"
	case len(a.data) > maxDiffBytes || len(b.data) > maxDiffBytes:
		out.Note = "no text diff: larger than " + display.Size(maxDiffBytes)
	default:
		edits := udiff.Lines(string(a.data), string(b.data))
		d, err := udiff.ToUnified("version", "current", string(a.data), edits, udiff.DefaultContextLines)
		if err != nil {
			out.Note = "no text diff: " + err.Error()
		}
		out.Diff = d
	}
	return out
}

func orNone(mt string) string {
	if mt == "" {
		return "no type"
	}
	return mt
}

func sameDigests(a, b []Digest) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// fetchBody fetches url for a comparison: its digests over everything read,
// and its bytes when short enough to diff.
func (s *Session) fetchBody(ctx context.Context, url string) Body {
	b := Body{URL: url}
	if !claims.Fetchable(url) {
		b.Err = fmt.Errorf("fetch %s: only http and https URLs are fetched", url)
		return b
	}
	sums := newDigester()
	keep := &cappedBuffer{max: maxDiffBytes}
	count := &countWriter{}
	ex, err := s.claimsDownloader().DownloadWith(ctx, url, io.MultiWriter(sums, keep, count), fetch.DownloadOptions{MaxBytes: maxCompareBytes})
	var tooLarge *fetch.TooLargeError
	if errors.As(err, &tooLarge) {
		b.Truncated, err = true, nil
	}
	if ex != nil {
		b.FinalURL, b.Status = ex.FinalURL, ex.Status
		if ex.ResponseHeader != nil {
			b.MediaType = mediaTypeOf(ex.ResponseHeader.Get("Content-Type"))
		}
	}
	b.Bytes = count.n
	b.Digests = sums.digests()
	if !keep.over {
		b.data = keep.buf.Bytes()
	}
	head := b.data
	if head == nil {
		head = []byte{}
	}
	b.Text = IsText(b.MediaType, head[:min(len(head), InspectPreview)])
	if err == nil && b.Status != 0 && !is2xx(b.Status) {
		err = fmt.Errorf("fetch %s: HTTP %d", url, b.Status)
	}
	if err != nil {
		b.Err = err
		if !strings.Contains(err.Error(), url) {
			b.Err = fmt.Errorf("fetch %s: %w", url, err)
		}
	}
	return b
}

// countWriter counts the bytes written.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}
