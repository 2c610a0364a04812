package claims

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"rsx/fetch"
	"rsx/model"
)

// Verdict is the outcome of comparing one claim with what was received.
type Verdict uint8

const (
	NotDeclared Verdict = iota // the document makes no such claim
	OK                         // the claim holds
	Mismatch                   // the claim is false
	Warning                    // the claim differs where servers legitimately differ (lastmod)
	Unchecked                  // the claim could not be compared: Check.Reason says why
)

func (v Verdict) String() string {
	switch v {
	case NotDeclared:
		return "not declared"
	case OK:
		return "ok"
	case Mismatch:
		return "mismatch"
	case Warning:
		return "warning"
	case Unchecked:
		return "unchecked"
	}
	return "verdict(" + strconv.Itoa(int(v)) + ")"
}

// MarshalText writes the verdict in words, for JSON reports.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// Check is the comparison of one field.
type Check struct {
	// Field is "status", "length", "type", "lastmod", a digest algorithm
	// ("md5", "sha-256", …), or "hash" when no digest is declared; and, for
	// a mirror that declares no digest rsx can compute, "content": whether
	// its bytes are the resource's (CheckTargets).
	Field    string
	Verdict  Verdict
	Declared string // the claim as written ("2xx" for the status); "" when not declared
	Actual   string // what was received, in words; "" when nothing was
	Short    string // the received value in a few characters, for tables ("200", "1234", "text/html")
	// Reason says why an Unchecked field could not be compared, and what
	// else to know of a verdict: a warning's cause, a body cut short.
	Reason string
}

// Received is what one fetch or one read of a file gave: everything
// Compare needs, with no I/O left to do.
type Received struct {
	Local bool // read from a local file: there is no status and no header

	Status     int         // of the final HTTP response; 0 when none came
	StatusText string      // as the server sent it; "" for the standard text
	Header     http.Header // of the final response
	FinalURL   string      // after redirects
	Redirects  []fetch.Redirect

	ModTime time.Time // a local file's modification time

	Bytes   int64              // body bytes read, any content coding undone
	Digests []model.HashResult // one per declared hash, over the bytes read

	// Truncated says reading stopped at Limit bytes because the body was
	// longer than the declared length plus a margin (or than the limit for
	// bodies whose length is not declared).
	Truncated bool
	Limit     int64

	Err error // why the body did not arrive whole; nil when it did
}

func is2xx(status int) bool { return status >= 200 && status <= 299 }

// complete reports whether the whole body arrived, so that its length and
// digests mean something.
func (r Received) complete() bool {
	return r.Err == nil && !r.Truncated && (r.Local || is2xx(r.Status))
}

// whyIncomplete says why the body's length and digests cannot be compared.
func (r Received) whyIncomplete() string {
	switch {
	case errors.Is(r.Err, context.Canceled):
		return "cancelled"
	case errors.Is(r.Err, ErrBudgetSpent):
		return "not read: the byte budget is spent"
	case errors.Is(r.Err, ErrNotFetchable):
		return "not fetched: only http and https URLs are"
	case !r.Local && r.Status != 0 && !is2xx(r.Status):
		return "no body (status " + strconv.Itoa(r.Status) + ")"
	case r.Err != nil && (r.Status != 0 || r.Local):
		return "incomplete body"
	}
	return "no body"
}

// Compare holds what was received against the claims: one Check per field
// (status, length, type, lastmod) and one per declared digest, in that
// order, or the status alone for claims of a resource that is Gone.
//
//   - status: 2xx after redirects (a redirect is told in Actual); for a
//     local file, that it could be read.
//   - length: the bytes received, and Content-Length when the body was not
//     transfer-coded. A body cut short at the limit is a mismatch.
//   - type: the Content-Type's media type, parameters ignored,
//     case-insensitively.
//   - lastmod: Last-Modified (a file's modification time) must fall in the
//     period the declared datetime denotes; a difference is only a Warning.
//   - each digest: computed over the whole body. An algorithm rsx does not
//     know is Unchecked, never a mismatch.
func Compare(c Claims, r Received) []Check {
	if c.Gone {
		return []Check{goneCheck(r)}
	}
	complete, why := r.complete(), r.whyIncomplete()
	checks := make([]Check, 0, 4+max(len(c.Hash), 1))
	checks = append(checks, statusCheck(r), lengthCheck(c, r, complete, why), typeCheck(c, r, why), lastmodCheck(c, r, why))
	return append(checks, digestChecks(c, r, complete, why)...)
}

// statusLine is the status code and its text.
func (r Received) statusLine() string {
	text := r.StatusText
	if text == "" {
		text = http.StatusText(r.Status)
	}
	return strings.TrimSpace(fmt.Sprintf("%d %s", r.Status, text))
}

// redirectNote tells the redirects a response came through, "" when none.
func (r Received) redirectNote() string {
	n := len(r.Redirects)
	if n == 0 {
		return ""
	}
	s := "after 1 redirect"
	if n > 1 {
		s = "after " + strconv.Itoa(n) + " redirects"
	}
	if r.FinalURL != "" {
		s += " to " + r.FinalURL
	}
	return s
}

func statusCheck(r Received) Check {
	if r.Local {
		ck := Check{Field: "status", Declared: "readable"}
		switch {
		case errors.Is(r.Err, context.Canceled):
			ck.Verdict, ck.Reason, ck.Short = Unchecked, "cancelled", "cancelled"
		case r.Err != nil:
			ck.Verdict, ck.Actual, ck.Short = Mismatch, r.Err.Error(), "error"
		default:
			ck.Verdict, ck.Actual, ck.Short = OK, "read from a local file", "read"
		}
		return ck
	}
	ck := Check{Field: "status", Declared: "2xx"}
	switch {
	case r.Status == 0 && errors.Is(r.Err, context.Canceled):
		ck.Verdict, ck.Reason, ck.Short = Unchecked, "cancelled", "cancelled"
	case r.Status == 0 && (errors.Is(r.Err, ErrNotFetchable) || errors.Is(r.Err, ErrBudgetSpent)):
		ck.Verdict, ck.Reason, ck.Short = Unchecked, r.whyIncomplete(), "not fetched"
	case r.Status == 0 && r.Err != nil:
		ck.Verdict, ck.Actual, ck.Short = Mismatch, r.Err.Error(), "error"
	case r.Status == 0:
		ck.Verdict, ck.Reason, ck.Short = Unchecked, "no response", "none"
	default:
		ck.Actual, ck.Short = r.statusLine(), strconv.Itoa(r.Status)
		if note := r.redirectNote(); note != "" {
			ck.Actual += " (" + note + ")"
		}
		ck.Verdict = OK
		switch {
		case !is2xx(r.Status):
			ck.Verdict = Mismatch
		case r.Err != nil && !r.Truncated && !errors.Is(r.Err, ErrBudgetSpent):
			// The response started but its body did not arrive whole.
			ck.Verdict = Unchecked
			if errors.Is(r.Err, context.Canceled) {
				ck.Reason, ck.Short = "cancelled", "cancelled"
			} else {
				ck.Reason = r.Err.Error()
			}
		}
	}
	return ck
}

// goneCheck holds the status against a deletion: 404 or 410.
func goneCheck(r Received) Check {
	ck := Check{Field: "status", Declared: "gone (404 or 410)"}
	switch {
	case r.Local:
		ck.Verdict, ck.Short = Mismatch, "present"
		ck.Actual = "the file is there"
		if r.Err != nil {
			ck.Verdict, ck.Actual, ck.Short = OK, r.Err.Error(), "gone"
		}
	case r.Status == 0 && errors.Is(r.Err, context.Canceled):
		ck.Verdict, ck.Reason, ck.Short = Unchecked, "cancelled", "cancelled"
	case r.Status == 0 && r.Err != nil:
		ck.Verdict, ck.Reason, ck.Short = Unchecked, r.whyIncomplete(), "error"
		if !errors.Is(r.Err, ErrNotFetchable) && !errors.Is(r.Err, ErrBudgetSpent) {
			ck.Reason = r.Err.Error()
		}
	case r.Status == http.StatusNotFound || r.Status == http.StatusGone:
		ck.Verdict, ck.Actual, ck.Short = OK, r.statusLine(), strconv.Itoa(r.Status)
	default:
		ck.Verdict, ck.Actual, ck.Short = Mismatch, r.statusLine(), strconv.Itoa(r.Status)
	}
	if note := r.redirectNote(); note != "" && ck.Actual != "" {
		ck.Actual += " (" + note + ")"
	}
	return ck
}

// lengthCheck compares the declared length with the bytes received and
// with Content-Length when the body was not transfer-coded.
func lengthCheck(c Claims, r Received, complete bool, why string) Check {
	ck := Check{Field: "length", Declared: c.LengthRaw}
	contentLength := strings.TrimSpace(r.Header.Get("Content-Length"))
	enc := strings.TrimSpace(r.Header.Get("Content-Encoding"))
	coded := enc != "" && !strings.EqualFold(enc, "identity")
	switch {
	case c.LengthRaw == "":
		ck.Verdict = NotDeclared
		if complete {
			ck.Actual, ck.Short = fmt.Sprintf("%d bytes", r.Bytes), strconv.FormatInt(r.Bytes, 10)
		}
	case !c.LengthOK:
		ck.Verdict, ck.Reason, ck.Short = Unchecked, "the declared length is not a number", "invalid"
	case r.Truncated:
		ck.Verdict = Mismatch
		if r.Bytes == 0 && contentLength != "" {
			ck.Actual, ck.Short = "Content-Length "+contentLength, contentLength
			ck.Reason = "not read: longer than declared"
		} else {
			ck.Actual, ck.Short = fmt.Sprintf("more than %d bytes", r.Bytes), ">"+strconv.FormatInt(r.Bytes, 10)
			ck.Reason = "reading stopped there: longer than declared"
		}
	case !complete:
		ck.Verdict, ck.Reason = Unchecked, why
	default:
		ck.Actual, ck.Short = fmt.Sprintf("%d bytes", r.Bytes), strconv.FormatInt(r.Bytes, 10)
		ck.Verdict = OK
		if r.Bytes != c.Length {
			ck.Verdict = Mismatch
		}
		if contentLength != "" {
			ck.Actual += " (Content-Length " + contentLength + ")"
			if n, err := strconv.ParseInt(contentLength, 10, 64); !coded && (err != nil || n != c.Length) {
				ck.Verdict = Mismatch
			}
		}
	}
	return ck
}

// typeCheck compares media types, parameters ignored.
func typeCheck(c Claims, r Received, why string) Check {
	ck := Check{Field: "type", Declared: c.Type}
	ct := r.Header.Get("Content-Type")
	switch {
	case c.Type == "":
		ck.Verdict, ck.Actual, ck.Short = NotDeclared, ct, MediaType(ct)
	case r.Local:
		ck.Verdict, ck.Reason = Unchecked, "a local file has no media type"
	case !is2xx(r.Status): // an error page's type says nothing
		ck.Verdict, ck.Reason = Unchecked, why
	case ct == "":
		ck.Verdict, ck.Reason, ck.Short = Unchecked, "no Content-Type in the response", "none"
	default:
		ck.Actual, ck.Short = ct, MediaType(ct)
		ck.Verdict = OK
		if MediaType(ct) != MediaType(c.Type) {
			ck.Verdict = Mismatch
		}
	}
	return ck
}

// lastmodCheck compares the declared lastmod with Last-Modified (or a
// file's modification time): it must fall in the period the declared
// datetime denotes. A difference is a warning, not a mismatch: servers and
// file systems set these times in ways of their own.
func lastmodCheck(c Claims, r Received, why string) Check {
	ck := Check{Field: "lastmod", Declared: c.Lastmod.Raw}
	header := r.Header.Get("Last-Modified")
	switch {
	case !c.Lastmod.Present():
		ck.Verdict, ck.Actual = NotDeclared, header
		if r.Local && !r.ModTime.IsZero() {
			ck.Actual = model.FormatDatetime(r.ModTime.Truncate(time.Second))
		}
		return ck
	case !c.Lastmod.OK:
		ck.Verdict, ck.Reason = Unchecked, "the declared datetime is not valid"
		return ck
	}
	var t time.Time
	switch {
	case r.Local:
		if r.Err != nil || r.ModTime.IsZero() {
			ck.Verdict, ck.Reason = Unchecked, "no modification time"
			return ck
		}
		t = r.ModTime.Truncate(time.Second)
		ck.Declared = c.Lastmod.Format()
		ck.Actual, ck.Short = model.FormatDatetime(t)+" (modified)", model.FormatDatetime(t)
	case !is2xx(r.Status):
		ck.Verdict, ck.Reason = Unchecked, why
		return ck
	case header == "":
		ck.Verdict, ck.Reason, ck.Short = Unchecked, "no Last-Modified in the response", "none"
		return ck
	default:
		ck.Declared = c.Lastmod.Format()
		var err error
		t, err = http.ParseTime(header)
		if err != nil {
			ck.Verdict, ck.Actual, ck.Reason = Unchecked, header, "Last-Modified is not an HTTP date"
			return ck
		}
		ck.Actual = model.FormatDatetime(t) + " (" + header + ")"
		ck.Short = model.FormatDatetime(t)
	}
	ck.Verdict = OK
	if !lastmodMatches(c.Lastmod, t) {
		ck.Verdict, ck.Reason = Warning, "differs (a warning only: servers differ)"
	}
	return ck
}

// digestChecks compares every declared digest with the one computed.
func digestChecks(c Claims, r Received, complete bool, why string) []Check {
	if len(c.Hash) == 0 {
		return []Check{{Field: "hash", Verdict: NotDeclared}}
	}
	out := make([]Check, 0, len(c.Hash))
	for i, dh := range c.Hash {
		alg := dh.Alg
		if alg == "" {
			alg = model.NormalizeHashAlg(dh.AlgRaw)
		}
		ck := Check{Field: alg, Declared: dh.Value}
		var res model.HashResult
		if i < len(r.Digests) {
			res = r.Digests[i]
		}
		switch {
		case !model.SupportedHash(alg):
			ck.Verdict, ck.Reason, ck.Short = Unchecked, "unsupported algorithm", "unsupported"
		case r.Truncated:
			ck.Verdict, ck.Reason = Unchecked, "not read to the end: the body is longer than declared"
			if c.LengthRaw == "" || !c.LengthOK {
				ck.Reason = fmt.Sprintf("not read to the end: the body is longer than the limit of %d bytes", r.Limit)
			}
		case !complete:
			ck.Verdict, ck.Reason = Unchecked, why
		case !res.Supported:
			ck.Verdict, ck.Reason = Unchecked, "not computed"
		case dh.Digest == nil:
			ck.Verdict, ck.Actual, ck.Reason = Mismatch, res.Actual, "the declared digest cannot be decoded"
		case res.Match:
			ck.Verdict, ck.Actual = OK, res.Actual
		default:
			ck.Verdict, ck.Actual = Mismatch, res.Actual
		}
		out = append(out, ck)
	}
	return out
}

// lastmodMatches reports whether a time of whole seconds falls in the period
// a declared datetime denotes: the second of a time with a fraction, the day
// of a date, and so on.
func lastmodMatches(d model.Datetime, t time.Time) bool {
	lo := d.Time.Truncate(time.Second)
	hi := d.End()
	if !hi.After(lo) {
		hi = lo.Add(time.Second)
	}
	return !t.Before(lo) && t.Before(hi)
}

// MediaType returns the media type of a Content-Type or type attribute
// without its parameters, lower-cased.
func MediaType(s string) string {
	if mt, _, err := mime.ParseMediaType(s); err == nil {
		return mt
	}
	mt, _, _ := strings.Cut(s, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}
