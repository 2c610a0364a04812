package session

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"rsx/fetch"
	"rsx/model"
)

// DocSink receives what LoadDocument finds, from LoadDocument's goroutine.
// Each method may block (back-pressure) and must return when the load's
// context is done.
type DocSink interface {
	// Started is called once the response headers are in (or the file is
	// open): final is the URL after redirects, total the expected size as
	// stored or sent (-1 when unknown, and for a body whose gzip is undone:
	// its progress is then the decoded bytes).
	Started(final string, total int64, ex *fetch.Exchange)
	// Header is called with a copy of the document-level information, read
	// before the first entry.
	Header(h model.Header)
	// Entries delivers a batch of entries in document order. The slice is
	// the sink's to keep.
	Entries(batch []model.Entry)
	// Progress reports the bytes read so far, as stored or sent (what total
	// counts), or decoded for a body whose gzip is undone.
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

// LoadDocument fetches target (or reads a local file), decodes it as a
// Sitemap document and checks it, telling sink what it finds as it streams
// in. It returns the error Done was given.
func (s *Session) LoadDocument(ctx context.Context, target string, sink DocSink) error {
	res := LoadResult{FinalURL: target}
	o, err := s.open(ctx, target)
	if err != nil {
		res.Err = err
		if o != nil {
			res.Exchange = exchangeOf(o.Response)
		}
		sink.Done(res)
		return err
	}
	body, final, resp := o.Body, o.URL, o.Response
	res.FinalURL = final
	raw := &cappedBuffer{max: s.opts.MaxRaw}
	cr := &countingReader{r: io.TeeReader(body, raw), ctx: ctx}
	total, progress := o.RawSize, o.RawRead
	if o.Decompressing {
		// The compressed bytes are read ahead of the decoding, a small
		// body whole in its first read: against its length they said
		// "3.4 KiB of 3.4 KiB" from the start. The decoded bytes, of a
		// total not known, say how far the document is.
		total, progress = -1, cr.n.Load
	}
	sink.Started(final, total, exchangeOf(resp))

	dec := model.NewDecoder(cr, s.opts.Decoder)
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
		err = s.stream(ctx, dec, progress, sink, checker)
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
		res.Raw = raw.bytes()
	}
	res.Exchange = exchangeOf(resp)
	if err != nil && ctx.Err() == nil {
		// A document cut short: report the read error, not the things that
		// may only have been missing because they came later.
		checker.Abort(hdr, res.Bytes, err)
	} else {
		checker.End(hdr, res.Bytes)
	}
	res.Problems = checker.Problems()
	res.Errors, res.Warnings = checker.Counts()
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
func (s *Session) stream(ctx context.Context, dec *model.Decoder, progress func() int64, sink DocSink, ck *model.Checker) error {
	size := s.opts.BatchSize
	batch := make([]model.Entry, 0, min(size, 256))
	last := time.Now()
	flush := func() {
		if len(batch) > 0 {
			sink.Entries(batch)
			batch = make([]model.Entry, 0, size)
		}
		sink.Progress(progress())
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
		if len(batch) >= size || time.Since(last) >= s.opts.BatchWait {
			flush()
		}
	}
}

// open opens target with fetch.Open: a URL or a local file, gzip undone.
// On error the Opened, when not nil, records the HTTP exchange. A local
// file is read only when the session may read it (mayRead).
func (s *Session) open(ctx context.Context, target string) (*fetch.Opened, error) {
	if err := s.mayRead(target); err != nil {
		return nil, err
	}
	o, err := fetch.Open(ctx, s.get, target)
	if err != nil {
		if model.IsHTTPURL(target) && !strings.Contains(err.Error(), target) {
			err = fmt.Errorf("fetch %s: %w", target, err)
		}
		return o, err
	}
	if o.Local && s.opts.MaxBytes != 0 {
		o.Body = limitedBody{fetch.LimitReader(o.Body, s.opts.MaxBytes, target), o.Body}
	}
	return o, nil
}

// exchangeOf copies a response's exchange as it is now: its body may still
// be read on another goroutine (fetch.Open decompresses gzip ahead of its
// reader), which updates the exchange.
func exchangeOf(resp *fetch.Response) *fetch.Exchange {
	if resp == nil {
		return nil
	}
	return resp.Exchange.Snapshot()
}

// limitedBody reads through a limit and closes the body under it.
type limitedBody struct {
	io.Reader
	io.Closer
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

// bytes returns what was kept, in a slice of its size: the buffer grew by
// doubling, and the document is kept for as long as it stays in history.
func (c *cappedBuffer) bytes() []byte {
	b := c.buf.Bytes()
	if cap(b)-len(b) > len(b)/8 {
		return bytes.Clone(b)
	}
	return b
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
