package session

import (
	"context"
	"fmt"
	"io"
	"os"

	"rsx/fetch"
	"rsx/model"
)

// download streams target (an http(s) URL or a local file path) into w,
// reporting progress (total is -1 when unknown), and returns the record of
// the HTTP exchange (nil for a local file).
func (s *Session) download(ctx context.Context, target string, w io.Writer, progress func(done, total int64)) (*fetch.Exchange, error) {
	if err := s.mayRead(target); err != nil {
		return nil, err
	}
	if model.IsLocal(target) {
		f, err := os.Open(model.LocalPath(target))
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
	if s.dl == nil {
		// A getter-only session (tests): the document path serves.
		resp, err := s.get.Get(ctx, target)
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
	return s.dl.Download(ctx, target, w, progress)
}

// downloadWith gives a session's downloads the shape of
// fetch.Client.DownloadWith (claims and dump call that), enforcing MaxBytes
// with a *fetch.TooLargeError.
type downloadWith struct{ s *Session }

// DownloadWith implements claims.Downloader.
func (d downloadWith) DownloadWith(ctx context.Context, url string, w io.Writer, o fetch.DownloadOptions) (*fetch.Exchange, error) {
	if o.MaxBytes > 0 {
		w = &limitWriter{w: w, left: o.MaxBytes, err: &fetch.TooLargeError{URL: url, Limit: o.MaxBytes}}
	}
	return d.s.download(ctx, url, w, o.Progress)
}

// limitWriter passes on at most left bytes, then fails with err, as
// fetch.Client.DownloadWith does with MaxBytes.
type limitWriter struct {
	w    io.Writer
	left int64
	err  error
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if int64(len(p)) <= l.left {
		l.left -= int64(len(p))
		return l.w.Write(p)
	}
	n, err := l.w.Write(p[:l.left])
	l.left -= int64(n)
	if err != nil {
		return n, err
	}
	return n, l.err
}
