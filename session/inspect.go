package session

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"io"
	"mime"
	"strings"
	"unicode/utf8"

	"rsx/claims"
	"rsx/fetch"
)

// The resource view of any URL the explorer opens that is not a
// ResourceSync document (an entry's resource, a link's target: a memento,
// a mirror, a describedby page, an image): what came back, judged against
// what is declared, with every digest of the body and whether it is text.

// InspectPreview is how many bytes of a body an Inspection keeps to show.
const InspectPreview = 8 << 10

// Digest is one digest of a body, in the two forms documents write.
type Digest struct {
	Alg    string // "md5", "sha-1", "sha-256", "sha-512", as ResourceSync names them
	Hex    string
	Base64 string
}

// Inspection is a resource fetched and judged.
type Inspection struct {
	claims.Result
	// Digests are every supported digest of the body bytes received (of
	// the part read when the body was cut short, Result.Received.Truncated).
	Digests []Digest
	// MediaType is the response's Content-Type without parameters, lower
	// case; "" when none.
	MediaType string
	// Text tells that the body is text: by its media type, or, without a
	// telling one, by its first bytes (valid UTF-8, no NUL).
	Text bool
}

// InspectResource fetches t once, judges it against t.Claims as
// CheckResource does, and computes every digest of the body, keeping a
// longer preview for showing text.
func (s *Session) InspectResource(ctx context.Context, t claims.Target, progress func(done, total int64)) Inspection {
	return Inspect(ctx, s.claimsDownloader(), s.opts.Claims, t, progress)
}

// Inspect is InspectResource through any downloader, with the options o
// of the judgement (its Preview made at least InspectPreview).
func Inspect(ctx context.Context, d claims.Downloader, o claims.Options, t claims.Target, progress func(done, total int64)) Inspection {
	sums := newDigester()
	o.Preview = max(o.Preview, InspectPreview)
	c := claims.New(teeDownloader{d: d, w: sums}, o)
	r := c.Check(ctx, t, progress)
	in := Inspection{Result: r}
	if r.Received.Bytes > 0 || r.Err() == nil && is2xx(r.Received.Status) {
		in.Digests = sums.digests()
	}
	if r.Received.Header != nil {
		in.MediaType = mediaTypeOf(r.Received.Header.Get("Content-Type"))
	}
	in.Text = IsText(in.MediaType, r.Preview)
	return in
}

// claimsDownloader is what claims fetch through: the client itself, or the
// getter for a session made over one.
func (s *Session) claimsDownloader() claims.Downloader {
	if d, ok := s.dl.(claims.Downloader); ok {
		return d
	}
	return downloadWith{s}
}

func is2xx(status int) bool { return status >= 200 && status <= 299 }

// teeDownloader copies every body byte it downloads to w as well.
type teeDownloader struct {
	d claims.Downloader
	w io.Writer
}

func (t teeDownloader) DownloadWith(ctx context.Context, url string, w io.Writer, o fetch.DownloadOptions) (*fetch.Exchange, error) {
	return t.d.DownloadWith(ctx, url, &teeWriter{w: w, also: t.w}, o)
}

// teeWriter writes to w, and what w took to also.
type teeWriter struct {
	w, also io.Writer
}

func (t *teeWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	_, _ = t.also.Write(p[:n])
	return n, err
}

// digester computes every digest ResourceSync names, in one pass.
type digester struct {
	algs []string
	hs   []hash.Hash
}

func newDigester() *digester {
	return &digester{
		algs: []string{"md5", "sha-1", "sha-256", "sha-512"},
		hs:   []hash.Hash{md5.New(), sha1.New(), sha256.New(), sha512.New()},
	}
}

func (d *digester) Write(p []byte) (int, error) {
	for _, h := range d.hs {
		h.Write(p)
	}
	return len(p), nil
}

func (d *digester) digests() []Digest {
	out := make([]Digest, len(d.hs))
	for i, h := range d.hs {
		sum := h.Sum(nil)
		out[i] = Digest{Alg: d.algs[i], Hex: hex.EncodeToString(sum), Base64: base64.StdEncoding.EncodeToString(sum)}
	}
	return out
}

// mediaTypeOf is a Content-Type without its parameters, lower case.
func mediaTypeOf(ct string) string {
	if ct == "" {
		return ""
	}
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		return mt
	}
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// IsText tells whether a body of media type mt beginning with head is text:
// text/*, XML, JSON, JavaScript and link-format types are; images, audio,
// video, fonts, ZIP and other known binary types are not; otherwise the
// bytes tell (valid UTF-8 without NUL bytes).
func IsText(mt string, head []byte) bool {
	switch {
	case strings.HasPrefix(mt, "text/"), strings.HasSuffix(mt, "+xml"), strings.HasSuffix(mt, "+json"),
		mt == "application/xml", mt == "application/json", mt == "application/javascript",
		mt == "application/link-format", mt == "application/x-www-form-urlencoded":
		return true
	case strings.HasPrefix(mt, "image/"), strings.HasPrefix(mt, "audio/"), strings.HasPrefix(mt, "video/"),
		strings.HasPrefix(mt, "font/"), mt == "application/zip", mt == "application/gzip", mt == "application/pdf":
		return false
	}
	if len(head) == 0 {
		return mt == ""
	}
	// A cut in the middle of a rune at the end of the preview is not binary.
	for i := 0; i < 3 && len(head) > 0 && !utf8.Valid(head); i++ {
		head = head[:len(head)-1]
	}
	return utf8.Valid(head) && !bytes.ContainsRune(head, 0)
}
