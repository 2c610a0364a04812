package claims

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"rsx/fetch"
	"rsx/model"
)

// received simulates a fetch of body with the given response, with no
// limit on the body.
func received(c Claims, status int, h http.Header, body string, err error) Received {
	v := model.NewVerifier(c.Hash)
	if status >= 200 && status <= 299 {
		io.WriteString(v, body)
	}
	return Received{Status: status, Header: h, Bytes: v.Bytes(), Digests: v.Results(), Err: err}
}

func TestCompare(t *testing.T) {
	raw := md5.Sum([]byte(testBody))
	b64 := base64.StdEncoding.EncodeToString(raw[:])
	okHeader := func() http.Header {
		return http.Header{
			"Content-Type":   {"text/html; charset=utf-8"},
			"Content-Length": {fmt.Sprint(len(testBody))},
			"Last-Modified":  {"Wed, 02 Jan 2013 13:00:00 GMT"},
		}
	}
	with := func(k, v string) http.Header {
		h := okHeader()
		if v == "" {
			h.Del(k)
		} else {
			h.Set(k, v)
		}
		return h
	}
	full := func(t *testing.T) Claims { return claimsOf(t, testBody) }
	change := func(f func(*Claims)) func(*testing.T) Claims {
		return func(t *testing.T) Claims {
			c := full(t)
			f(&c)
			return c
		}
	}
	tests := []struct {
		name   string
		claims func(*testing.T) Claims
		status int
		header http.Header
		body   string
		err    error
		want   string
	}{
		{"all match", full, 200, okHeader(), testBody, nil,
			"status✓ length✓ type✓ lastmod✓ md5✓ sha-256✓"},
		{"nothing declared", func(*testing.T) Claims { return Claims{} }, 200, okHeader(), testBody, nil,
			"status✓ length– type– lastmod– hash–"},
		{"wrong body: digests and length differ", full, 200, with("Content-Length", ""), "other body", nil,
			"status✓ length✗ type✓ lastmod✓ md5✗ sha-256✗"},
		{"Content-Length differs from the declared length", full, 200, with("Content-Length", "999"), testBody, nil,
			"status✓ length✗ type✓ lastmod✓ md5✓ sha-256✓"},
		{"Content-Length of a gzip transfer is not compared", full, 200, func() http.Header {
			h := with("Content-Length", "20")
			h.Set("Content-Encoding", "gzip")
			return h
		}(), testBody, nil, "status✓ length✓ type✓ lastmod✓ md5✓ sha-256✓"},
		{"type compared without parameters, case-insensitively", change(func(c *Claims) { c.Type = "TEXT/HTML; charset=latin1" }),
			200, okHeader(), testBody, nil, "status✓ length✓ type✓ lastmod✓ md5✓ sha-256✓"},
		{"wrong type", full, 200, with("Content-Type", "application/xml"), testBody, nil,
			"status✓ length✓ type✗ lastmod✓ md5✓ sha-256✓"},
		{"no Content-Type", full, 200, with("Content-Type", ""), testBody, nil,
			"status✓ length✓ type? lastmod✓ md5✓ sha-256✓"},
		{"lastmod differs: a warning, not a mismatch", full, 200, with("Last-Modified", "Wed, 02 Jan 2013 13:00:01 GMT"), testBody, nil,
			"status✓ length✓ type✓ lastmod! md5✓ sha-256✓"},
		{"no Last-Modified", full, 200, with("Last-Modified", ""), testBody, nil,
			"status✓ length✓ type✓ lastmod? md5✓ sha-256✓"},
		{"Last-Modified not a date", full, 200, with("Last-Modified", "yesterday"), testBody, nil,
			"status✓ length✓ type✓ lastmod? md5✓ sha-256✓"},
		{"invalid declared lastmod", change(func(c *Claims) { c.Lastmod.OK = false }), 200, okHeader(), testBody, nil,
			"status✓ length✓ type✓ lastmod? md5✓ sha-256✓"},
		{"lastmod with a fraction matches its second", change(func(c *Claims) { c.Lastmod = datetime(t, "2013-01-02T14:00:00.75+01:00") }),
			200, okHeader(), testBody, nil, "status✓ length✓ type✓ lastmod✓ md5✓ sha-256✓"},
		{"lastmod of a day matches any time that day", change(func(c *Claims) { c.Lastmod = datetime(t, "2013-01-02") }),
			200, okHeader(), testBody, nil, "status✓ length✓ type✓ lastmod✓ md5✓ sha-256✓"},
		{"base64 md5 (as resync-client-ruby writes it)", change(func(c *Claims) { c.Hash = hashes(t, "md5:"+b64) }),
			200, okHeader(), testBody, nil, "status✓ length✓ type✓ lastmod✓ md5✓"},
		{"unknown algorithm next to a known one", change(func(c *Claims) { c.Hash = hashes(t, "sha3-256:"+sha256Hex(testBody)+" md5:"+md5Hex(testBody)) }),
			200, okHeader(), testBody, nil, "status✓ length✓ type✓ lastmod✓ sha3-256? md5✓"},
		{"a supported digest that cannot be decoded", change(func(c *Claims) {
			c.Hash, _ = model.ParseHashList("md5:nothex") // kept, with no digest
		}), 200, okHeader(), testBody, nil, "status✓ length✓ type✓ lastmod✓ md5✗"},
		{"invalid declared length", change(func(c *Claims) { c.LengthRaw, c.LengthOK = "ten", false }),
			200, okHeader(), testBody, nil, "status✓ length? type✓ lastmod✓ md5✓ sha-256✓"},
		{"404", full, 404, http.Header{"Content-Type": {"text/html"}, "Last-Modified": {"Wed, 02 Jan 2013 13:00:00 GMT"}}, "", &fetch.StatusError{Status: 404},
			"status✗ length? type? lastmod? md5? sha-256?"},
		{"connection refused", full, 0, nil, "", errors.New("dial tcp: connection refused"),
			"status✗ length? type? lastmod? md5? sha-256?"},
		{"cancelled before the response", full, 0, nil, "", context.Canceled,
			"status? length? type? lastmod? md5? sha-256?"},
		{"cancelled mid-body", full, 200, okHeader(), testBody[:10], context.Canceled,
			"status? length? type✓ lastmod✓ md5? sha-256?"},
		{"not fetchable", full, 0, nil, "", fmt.Errorf("x: %w", ErrNotFetchable),
			"status? length? type? lastmod? md5? sha-256?"},
		{"gone and 404", change(func(c *Claims) { c.Gone = true }), 404, nil, "", &fetch.StatusError{Status: 404}, "status✓"},
		{"gone and 410", change(func(c *Claims) { c.Gone = true }), 410, nil, "", &fetch.StatusError{Status: 410}, "status✓"},
		{"gone but still there", change(func(c *Claims) { c.Gone = true }), 200, okHeader(), testBody, nil, "status✗"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.claims(t)
			r := received(c, tt.status, tt.header, tt.body, tt.err)
			got := Compare(c, r)
			if m := marks(got); m != tt.want {
				t.Errorf("marks = %s\nwant    %s\nchecks: %+v", m, tt.want, got)
			}
			for _, ck := range got {
				if ck.Verdict == Unchecked && ck.Reason == "" {
					t.Errorf("%s is unchecked without a reason", ck.Field)
				}
			}
		})
	}
}

func TestCompareDetails(t *testing.T) {
	c := Claims{Hash: hashes(t, "md5:"+md5Hex(testBody)), Type: "text/html", LengthRaw: "5", Length: 5, LengthOK: true}
	r := received(c, 200, http.Header{"Content-Type": {"text/plain"}}, testBody, nil)
	r.Redirects = []fetch.Redirect{{URL: "http://a/x", Status: 301, To: "http://a/y"}}
	r.FinalURL = "http://a/y"
	res := Result{Checks: Compare(c, r)}
	st, _ := res.Find("status")
	if st.Verdict != OK || st.Actual != "200 OK (after 1 redirect to http://a/y)" || st.Short != "200" {
		t.Errorf("status %+v", st)
	}
	ty, _ := res.Find("type")
	if ty.Declared != "text/html" || ty.Actual != "text/plain" || ty.Short != "text/plain" || ty.Verdict != Mismatch {
		t.Errorf("type %+v", ty)
	}
	ln, _ := res.Find("length")
	if ln.Declared != "5" || ln.Actual != fmt.Sprintf("%d bytes", len(testBody)) || ln.Verdict != Mismatch {
		t.Errorf("length %+v", ln)
	}
	if md, _ := res.Find("md5"); md.Actual != md5Hex(testBody) || md.Verdict != OK {
		t.Errorf("md5 %+v", md)
	}
	lm, _ := res.Find("lastmod")
	if lm.Verdict != NotDeclared {
		t.Errorf("lastmod %+v", lm)
	}
}

func TestCompareTruncated(t *testing.T) {
	c := claimsOf(t, "0123456789")
	h := http.Header{"Content-Type": {"text/html"}, "Content-Length": {"5000000"}}
	// Not read at all: Content-Length was too long.
	r := Received{Status: 200, Header: h, Truncated: true, Limit: 10 + DefaultMargin, Err: &fetch.TooLargeError{Limit: 10 + DefaultMargin}}
	got := Compare(c, r)
	if m := marks(got); m != "status✓ length✗ type✓ lastmod? md5? sha-256?" {
		t.Errorf("marks %s", m)
	}
	if got[1].Actual != "Content-Length 5000000" {
		t.Errorf("length %+v", got[1])
	}
	// Read up to the limit.
	r = Received{Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Bytes: 10 + DefaultMargin, Truncated: true, Limit: 10 + DefaultMargin, Err: ErrTooLong}
	got = Compare(c, r)
	if got[1].Verdict != Mismatch || !strings.HasPrefix(got[1].Actual, "more than 65546 bytes") {
		t.Errorf("length %+v", got[1])
	}
	if got[4].Verdict != Unchecked || !strings.Contains(got[4].Reason, "longer than declared") {
		t.Errorf("md5 %+v", got[4])
	}
}

func TestCompareLocal(t *testing.T) {
	c := claimsOf(t, testBody)
	mtime := time.Date(2013, 1, 2, 13, 0, 0, 123, time.UTC)
	v := NewVerifier(c, Limits{})
	io.WriteString(v, testBody)
	r := Received{Local: true, ModTime: mtime, Bytes: v.Bytes(), Digests: v.Digests()}
	if m := marks(Compare(c, r)); m != "status✓ length✓ type? lastmod✓ md5✓ sha-256✓" {
		t.Errorf("local file: %s", m)
	}
	r.ModTime = mtime.Add(time.Hour)
	if m := marks(Compare(c, r)); m != "status✓ length✓ type? lastmod! md5✓ sha-256✓" {
		t.Errorf("local file modified later: %s", m)
	}
	r = Received{Local: true, Err: errors.New("open x: no such file or directory")}
	if m := marks(Compare(c, r)); m != "status✗ length? type? lastmod? md5? sha-256?" {
		t.Errorf("missing file: %s", m)
	}
}

func TestMediaType(t *testing.T) {
	for in, want := range map[string]string{
		"text/html":                       "text/html",
		"TEXT/HTML; charset=UTF-8":        "text/html",
		" application/xml ; q=1":          "application/xml",
		"text/html; broken=":              "text/html",
		"":                                "",
		"application/vnd.api+json;v=1.0 ": "application/vnd.api+json",
	} {
		if got := MediaType(in); got != want {
			t.Errorf("MediaType(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLastmodMatches(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	tests := []struct {
		declared, got string
		want          bool
	}{
		{"2013-01-02T13:00:00Z", "2013-01-02T13:00:00Z", true},
		{"2013-01-02T13:00:00Z", "2013-01-02T13:00:01Z", false},
		{"2013-01-02T13:00:00.9Z", "2013-01-02T13:00:00Z", true},
		{"2013-01-02", "2013-01-02T23:59:59Z", true},
		{"2013-01-02", "2013-01-03T00:00:00Z", false},
		{"2013-01", "2013-01-31T10:00:00Z", true},
		{"2013-01-02T14:00:00+01:00", "2013-01-02T13:00:00Z", true},
	}
	for _, tt := range tests {
		if got := lastmodMatches(datetime(t, tt.declared), at(tt.got)); got != tt.want {
			t.Errorf("lastmodMatches(%s, %s) = %v", tt.declared, tt.got, got)
		}
	}
}

func TestResultVerdict(t *testing.T) {
	c := claimsOf(t, testBody)
	ok := Result{Target: Target{Claims: c}, Checks: Compare(c, received(c, 200, http.Header{"Last-Modified": {"Wed, 02 Jan 2013 13:00:00 GMT"}, "Content-Type": {"text/html"}}, testBody, nil))}
	if ok.Verdict() != OK || ok.Explain() != "" {
		t.Errorf("verdict %v, explain %q", ok.Verdict(), ok.Explain())
	}
	warn := Result{Target: Target{Claims: c}, Checks: Compare(c, received(c, 200, http.Header{"Last-Modified": {"Wed, 02 Jan 2013 14:00:00 GMT"}, "Content-Type": {"text/html"}}, testBody, nil))}
	if warn.Verdict() != Warning {
		t.Errorf("lastmod only: verdict %v", warn.Verdict())
	}
	bad := Result{Target: Target{Claims: c}, Checks: Compare(c, received(c, 200, nil, "x", nil))}
	if bad.Verdict() != Mismatch {
		t.Errorf("wrong body: verdict %v", bad.Verdict())
	}
	// Nothing declared but a digest of an unknown algorithm.
	odd := Claims{Hash: hashes(t, "sha3-256:"+sha256Hex(testBody))}
	none := Result{Target: Target{Claims: odd}, Checks: Compare(odd, received(odd, 200, nil, testBody, nil))}
	if none.Verdict() != Unchecked {
		t.Errorf("nothing comparable: verdict %v", none.Verdict())
	}
	want := "nothing could be checked: length not declared; type not declared; lastmod not declared; sha3-256 unsupported algorithm"
	if got := none.Explain(); got != want {
		t.Errorf("explain %q\nwant    %q", got, want)
	}
	cancelled := Failed(Target{Claims: c}, context.Canceled)
	if cancelled.Verdict() != Unchecked || !strings.HasPrefix(cancelled.Explain(), "nothing could be checked: status cancelled; length cancelled") {
		t.Errorf("cancelled: %v %q", cancelled.Verdict(), cancelled.Explain())
	}
}

func TestVerdictText(t *testing.T) {
	for v, want := range map[Verdict]string{NotDeclared: "not declared", OK: "ok", Mismatch: "mismatch", Warning: "warning", Unchecked: "unchecked", 9: "verdict(9)"} {
		if got, _ := v.MarshalText(); string(got) != want || v.String() != want {
			t.Errorf("%d: %q", v, got)
		}
	}
}
