package claims

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"rsx/fetch"
	"rsx/model"
)

// Downloader streams a body into w; *fetch.Client is one. It honours
// o.MaxBytes with a *fetch.TooLargeError and reports progress through
// o.Progress.
type Downloader interface {
	DownloadWith(ctx context.Context, url string, w io.Writer, o fetch.DownloadOptions) (*fetch.Exchange, error)
}

// Options tune a Checker. The zero value gives the defaults.
type Options struct {
	// Margin is read past a declared length before reading stops; 0 means
	// DefaultMargin, a negative value none.
	Margin int64
	// MaxBytes bounds a body whose length is not declared; 0: no bound.
	MaxBytes int64
	// Budget, when not nil, is shared by every check of this Checker: a
	// check that finds it spent fetches nothing, and one that spends the
	// last of it stops reading.
	Budget *Budget
	// Preview is how many bytes of each body Result.Preview keeps.
	Preview int
	// Concurrency is how many targets of one entry CheckEntry fetches at
	// once (the fetch client's per-host limits apply on top); default 2.
	Concurrency int
	// Timeout bounds the fetch of one target, from the wait for a
	// connection to the last byte, retries included; 0: no bound beyond the
	// downloader's own. A target that runs out of it is told so.
	Timeout time.Duration
}

// Checker fetches resources and judges them against their claims. It is
// safe for concurrent use.
type Checker struct {
	d Downloader
	o Options
}

// New returns a Checker that fetches with d (which may be nil when only
// CheckFile is used).
func New(d Downloader, o Options) *Checker {
	if o.Concurrency <= 0 {
		o.Concurrency = 2
	}
	return &Checker{d: d, o: o}
}

func (c *Checker) limits() Limits {
	return Limits{Margin: c.o.Margin, MaxBytes: c.o.MaxBytes, Budget: c.o.Budget}
}

// Result is the judgement of one target.
type Result struct {
	Target   Target
	Received Received
	Exchange *fetch.Exchange // the HTTP exchange; nil for a file, or when no request was made
	Checks   []Check         // as Compare returns them
	Preview  []byte          // the first Options.Preview bytes of the body
	// Fingerprint is the SHA-256 of the body read, when CheckTargets needed
	// it to compare a mirror with its resource; nil otherwise.
	Fingerprint []byte
}

// Failed is the result of a check that could not start: err says why (it
// may wrap ErrNotFetchable, ErrBudgetSpent or a context's error).
func Failed(t Target, err error) Result {
	r := Received{Err: err}
	return Result{Target: t, Received: r, Checks: Compare(t.Claims, r)}
}

// Err returns why the body did not arrive whole, nil when it did.
func (r Result) Err() error { return r.Received.Err }

// Count returns how many checks have verdict v.
func (r Result) Count(v Verdict) int {
	n := 0
	for _, c := range r.Checks {
		if c.Verdict == v {
			n++
		}
	}
	return n
}

// Find returns the check of field, if there is one.
func (r Result) Find(field string) (Check, bool) {
	for _, c := range r.Checks {
		if c.Field == field {
			return c, true
		}
	}
	return Check{}, false
}

// counts reports whether a check of field tells something about the claims:
// every field but the status, which only says whether there was a body to
// compare (except for a resource expected Gone, where it is the claim).
func (r Result) counts(c Check) bool {
	return c.Field != "status" || r.Target.Claims.Gone
}

// NothingChecked reports whether no claim could be compared: every field
// was either not declared or unchecked.
func (r Result) NothingChecked() bool {
	for _, c := range r.Checks {
		if r.counts(c) && (c.Verdict == OK || c.Verdict == Mismatch || c.Verdict == Warning) {
			return false
		}
	}
	return true
}

// Verdict sums the result up: Mismatch when any claim is false (or the
// status is wrong), else Unchecked when nothing could be compared, else
// Warning when a claim differs where servers may, else OK.
func (r Result) Verdict() Verdict {
	if r.Count(Mismatch) > 0 {
		return Mismatch
	}
	if r.NothingChecked() {
		return Unchecked
	}
	if r.Count(Warning) > 0 {
		return Warning
	}
	return OK
}

// Explain says, when nothing could be compared, what could not be and why
// ("" otherwise): "nothing could be checked: length not declared; md5
// unsupported algorithm; …".
func (r Result) Explain() string {
	if !r.NothingChecked() {
		return ""
	}
	var parts []string
	for _, c := range r.Checks {
		if !r.counts(c) && c.Verdict != Unchecked {
			continue
		}
		why := c.Reason
		if c.Verdict == NotDeclared {
			why = "not declared"
		}
		parts = append(parts, c.Field+" "+why)
	}
	return "nothing could be checked: " + strings.Join(parts, "; ")
}

// Check fetches t once and judges what arrives against t.Claims. Only http
// and https URLs are fetched (Fetchable); the body is read at most up to its
// declared length plus the margin, and only the preview of it is kept.
// progress, when not nil, is called with the body bytes received and the
// expected total (-1 when unknown). The result's error wraps ctx's error
// when ctx ended the fetch.
func (c *Checker) Check(ctx context.Context, t Target, progress func(done, total int64)) Result {
	return c.check(ctx, t, progress, false)
}

// check is Check, computing the body's Fingerprint when fingerprint is set.
func (c *Checker) check(ctx context.Context, t Target, progress func(done, total int64), fingerprint bool) Result {
	if !Fetchable(t.URL) {
		return Failed(t, fmt.Errorf("check %s: %w", t.URL, ErrNotFetchable))
	}
	if c.o.Budget != nil && c.o.Budget.Left() <= 0 {
		return Failed(t, fmt.Errorf("check %s: %w", t.URL, ErrBudgetSpent))
	}
	if c.o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.o.Timeout,
			fmt.Errorf("no complete answer within %v: %w", c.o.Timeout, context.DeadlineExceeded))
		defer cancel()
	}
	v := NewVerifier(t.Claims, c.limits())
	prev := &previewWriter{max: c.o.Preview}
	var sink io.Writer = prev
	var sum hash.Hash
	if fingerprint {
		sum = sha256.New()
		sink = io.MultiWriter(prev, sum)
	}
	ex, err := c.d.DownloadWith(ctx, t.URL, v.Writer(sink), fetch.DownloadOptions{Progress: progress, MaxBytes: v.Limit()})
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("fetch %s: %w", t.URL, ctxErr(ctx))
	}
	r := Received{Bytes: v.Bytes(), Digests: v.Digests(), Limit: v.Limit(), Err: err}
	var tooLarge *fetch.TooLargeError
	if errors.As(err, &tooLarge) || errors.Is(err, ErrTooLong) {
		r.Truncated = true
	}
	if ex != nil {
		r.Status, r.StatusText, r.Header = ex.Status, ex.StatusText, ex.ResponseHeader
		r.FinalURL, r.Redirects = ex.FinalURL, ex.Redirects
	}
	res := Result{Target: t, Received: r, Exchange: ex, Checks: Compare(t.Claims, r), Preview: prev.buf}
	if sum != nil {
		res.Fingerprint = sum.Sum(nil)
	}
	return res
}

// CheckFile reads the local file at path once and judges it against cl:
// its length, every declared digest and its modification time (against
// lastmod, a warning only). A local file has no media type: a declared
// type is unchecked. progress is called as in Check.
func (c *Checker) CheckFile(ctx context.Context, path string, cl Claims, progress func(done, total int64)) Result {
	t := Target{URL: path, Claims: cl, Link: -1}
	r := Received{Local: true}
	f, err := os.Open(path)
	if err != nil {
		r.Err = fmt.Errorf("read %s: %w", path, err)
		return Result{Target: t, Received: r, Checks: Compare(cl, r)}
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		r.Err = fmt.Errorf("read %s: %w", path, err)
	case st.IsDir():
		r.Err = fmt.Errorf("read %s: it is a directory", path)
	}
	if r.Err != nil {
		return Result{Target: t, Received: r, Checks: Compare(cl, r)}
	}
	r.ModTime = st.ModTime()
	v := NewVerifier(cl, c.limits())
	prev := &previewWriter{max: c.o.Preview}
	w := v.Writer(prev)
	buf := make([]byte, 256<<10)
	for {
		if err := ctx.Err(); err != nil {
			r.Err = fmt.Errorf("read %s: %w", path, err)
			break
		}
		n, rerr := f.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				r.Err = fmt.Errorf("read %s: %w", path, werr)
				break
			}
			if progress != nil {
				progress(v.Bytes(), st.Size())
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			r.Err = fmt.Errorf("read %s: %w", path, rerr)
			break
		}
	}
	r.Bytes, r.Digests, r.Limit, r.Truncated = v.Bytes(), v.Digests(), v.Limit(), v.Truncated()
	return Result{Target: t, Received: r, Checks: Compare(cl, r), Preview: prev.buf}
}

// Progress reports the download of one target of an entry.
type Progress struct {
	Target      Target
	Done, Total int64 // body bytes received; Total -1 when unknown
}

// EntryResult is the judgement of an entry's resource and of its mirrors.
type EntryResult struct {
	Results []Result // the resource, then its mirrors in pri order (as Targets)
}

// Primary is the resource's own result.
func (e EntryResult) Primary() Result { return e.Results[0] }

// Mirrors are the mirrors' results, in pri order.
func (e EntryResult) Mirrors() []Result { return e.Results[1:] }

// Verdict is the worst verdict of the resource and its mirrors (Mismatch,
// then Unchecked, then Warning), OK when every one is OK.
func (e EntryResult) Verdict() Verdict {
	worst := OK
	for _, r := range e.Results {
		if v := r.Verdict(); severity(v) > severity(worst) {
			worst = v
		}
	}
	return worst
}

// severity orders the verdicts of whole results, best first.
func severity(v Verdict) int {
	switch v {
	case Warning:
		return 1
	case Unchecked:
		return 2
	case Mismatch:
		return 3
	}
	return 0
}

// CheckEntry checks the resource of entry e (its Loc absolute) and every
// one of its mirrors, each held to the same claims (OfMirror), at most
// Options.Concurrency at a time. A mirror that is not an http(s) URL is
// reported unchecked, not fetched. progress, when not nil, is called from
// one goroutine at a time.
func (c *Checker) CheckEntry(ctx context.Context, e model.Entry, progress func(Progress)) EntryResult {
	return c.CheckTargets(ctx, Targets(e), progress)
}

// CheckTargets checks targets (a resource followed by its mirrors, as
// Targets gives them, possibly with claims a caller changed: a later
// change's, or Gone) as CheckEntry does. The result holds one Result per
// target, in the same order.
func (c *Checker) CheckTargets(ctx context.Context, targets []Target, progress func(Progress)) EntryResult {
	out := EntryResult{Results: make([]Result, len(targets))}
	fingerprint := needsFingerprints(targets)
	var mu sync.Mutex
	sem := make(chan struct{}, c.o.Concurrency)
	var wg sync.WaitGroup
	for i, t := range targets {
		var report func(done, total int64)
		if progress != nil {
			report = func(done, total int64) {
				mu.Lock()
				defer mu.Unlock()
				progress(Progress{Target: t, Done: done, Total: total})
			}
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			out.Results[i] = Failed(t, fmt.Errorf("check %s: %w", t.URL, ctx.Err()))
			continue
		}
		wg.Go(func() {
			defer func() { <-sem }()
			out.Results[i] = c.check(ctx, t, report, fingerprint)
		})
	}
	wg.Wait()
	if fingerprint {
		for i := 1; i < len(out.Results); i++ {
			if !hasSupportedDigest(out.Results[i].Target.Claims) {
				compareContent(out.Results[0], &out.Results[i])
			}
		}
	}
	return out
}

// needsFingerprints reports whether a mirror among targets declares no
// digest rsx can compute, so that only its bytes, compared with the
// resource's, can tell whether it is a copy (rel="duplicate" says it is).
func needsFingerprints(targets []Target) bool {
	for _, t := range targets[min(1, len(targets)):] {
		if !hasSupportedDigest(t.Claims) {
			return true
		}
	}
	return false
}

func hasSupportedDigest(c Claims) bool {
	for _, h := range c.Hash {
		if model.SupportedHash(h.Alg) || model.SupportedHash(h.AlgRaw) {
			return true
		}
	}
	return false
}

// compareContent adds to a mirror's checks the "content" check: its bytes
// are the resource's. It says nothing when the mirror's own body did not
// arrive whole (its status and length say why).
func compareContent(primary Result, mirror *Result) {
	if !mirror.Received.complete() || mirror.Fingerprint == nil || mirror.Target.Claims.Gone {
		return
	}
	ck := Check{Field: "content", Declared: "the resource's bytes"}
	mine := "sha-256:" + hex.EncodeToString(mirror.Fingerprint)
	switch {
	case !primary.Received.complete() || primary.Fingerprint == nil:
		ck.Verdict, ck.Reason = Unchecked, "the resource itself was not read whole"
	default:
		theirs := "sha-256:" + hex.EncodeToString(primary.Fingerprint)
		ck.Declared += " (" + theirs + ")"
		ck.Actual, ck.Short = mine, mine[:len("sha-256:")+12]
		ck.Verdict = OK
		if mine != theirs {
			ck.Verdict, ck.Reason = Mismatch, "the mirror's bytes differ from the resource's"
		}
	}
	mirror.Checks = append(mirror.Checks, ck)
}

// ctxErr is why ctx ended: its cause (a caller's "timed out after 1m0s",
// say) still matching ctx.Err() with errors.Is, so that a cancellation
// stays one.
func ctxErr(ctx context.Context) error {
	err, cause := ctx.Err(), context.Cause(ctx)
	if cause == nil || errors.Is(cause, err) {
		if cause == nil {
			return err
		}
		return cause
	}
	return fmt.Errorf("%w: %w", cause, err)
}

// previewWriter keeps the first max bytes written to it.
type previewWriter struct {
	buf []byte
	max int
}

func (w *previewWriter) Write(p []byte) (int, error) {
	if room := w.max - len(w.buf); room > 0 {
		w.buf = append(w.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
