package store

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// s3Client makes the few S3 REST calls a bucket destination needs (HEAD, GET,
// PUT and DELETE of objects, ListObjectsV2, multipart uploads), each signed
// with AWS Signature Version 4. It stands in for an S3 SDK whose package
// initialisation (CPU feature probing, tables of regular expressions) every
// run of rsx paid for, rsx validate included (BENCHMARKS.md, "Start-up").
type s3Client struct {
	hc        *http.Client
	scheme    string // http or https
	host      string // the server (host[:port])
	pathStyle bool   // http://host/bucket/key; else http://bucket.host/key
	bucket    string
	region    string
	id        string
	secret    string
	token     string
	// partSize is the size of the parts of an upload in several parts; a file
	// larger than it goes up in parts (unless the write is conditional).
	partSize int64
	now      func() time.Time
	backoff  time.Duration // before the second try of a request; doubled after
}

// s3Object is what the server says of an object.
type s3Object struct {
	Key          string
	Size         int64
	ETag         string // without quotes
	LastModified time.Time
}

// s3Error is a request the server refused (or that could not be made sense of).
type s3Error struct {
	Op        string // "PUT s3://bucket/key"
	Status    int
	Code      string // the S3 error code ("NoSuchKey", "PreconditionFailed", …); "" when the response had none
	Message   string
	RequestID string
}

func (e *s3Error) Error() string {
	s := e.Op + ": " + strconv.Itoa(e.Status) + " " + http.StatusText(e.Status)
	if e.Code != "" {
		s += ": " + e.Code
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.RequestID != "" {
		s += " (request " + e.RequestID + ")"
	}
	return s
}

const (
	emptySHA256     = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	unsignedPayload = "UNSIGNED-PAYLOAD"
	// s3DefaultPartSize is the part size of large uploads: 64 MiB, grown so
	// that no upload has more than s3MaxParts parts.
	s3DefaultPartSize = 64 << 20
	s3MaxParts        = 10000
	s3MaxSinglePut    = 5 << 30 // S3's limit on one PUT
	s3Tries           = 3
)

// newS3Client makes a client of the bucket at endpoint (scheme://host[:port],
// path-style), or of Amazon S3 itself when endpoint is "" (virtual-hosted
// style but for bucket names with dots; the region is asked of S3 when not
// given).
func newS3Client(ctx context.Context, endpoint, bucket, region, id, secret, token string) (*s3Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64  // a sync uploads with many workers at once
	tr.DisableCompression = true // an object's bytes are what was stored, whatever its Content-Encoding
	tr.ResponseHeaderTimeout = 0 // a large PUT may take long to be answered
	tr.ExpectContinueTimeout = 0 // no Expect: 100-continue
	c := &s3Client{
		hc: &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // a redirect would break the signature: report it
		}},
		bucket: bucket, region: region, id: id, secret: secret, token: token,
		partSize: s3DefaultPartSize, now: time.Now, backoff: 200 * time.Millisecond,
	}
	if endpoint != "" {
		u, err := url.Parse(endpoint)
		if err != nil {
			return nil, fmt.Errorf("endpoint %q: %w", endpoint, err)
		}
		if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			return nil, fmt.Errorf("endpoint %q: not an http or https URL with a host", endpoint)
		}
		c.scheme, c.host, c.pathStyle = u.Scheme, u.Host, true
		if c.region == "" {
			c.region = "us-east-1"
		}
		return c, nil
	}
	c.scheme, c.pathStyle = "https", strings.Contains(bucket, ".")
	if c.region == "" {
		// S3 names a bucket's region in x-amz-bucket-region, even when it
		// refuses the request (a request signed for the wrong region).
		c.host, c.region = "s3.amazonaws.com", "us-east-1"
		resp, err := c.send(ctx, http.MethodHead, "", nil, nil, nil, emptySHA256)
		if err != nil {
			return nil, fmt.Errorf("find the region of bucket %s: %w", bucket, err)
		}
		resp.Body.Close()
		if r := resp.Header.Get("X-Amz-Bucket-Region"); r != "" && validRegion(r) {
			c.region = r
		}
	}
	c.host = "s3." + c.region + ".amazonaws.com"
	return c, nil
}

// endpointURL names the server for messages.
func (c *s3Client) endpointURL() string {
	if c.pathStyle {
		return c.scheme + "://" + c.host
	}
	return c.scheme + "://" + c.bucket + "." + c.host
}

func (c *s3Client) name(key string) string {
	if key == "" {
		return "s3://" + c.bucket
	}
	return "s3://" + c.bucket + "/" + key
}

// s3Escape writes s as SigV4's canonical URI and query want it: every byte but
// the unreserved characters (and "/" when keepSlash) as %XX.
func s3Escape(s string, keepSlash bool) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if 'A' <= ch && ch <= 'Z' || 'a' <= ch && ch <= 'z' || '0' <= ch && ch <= '9' ||
			ch == '-' || ch == '_' || ch == '.' || ch == '~' || ch == '/' && keepSlash {
			b.WriteByte(ch)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[ch>>4])
		b.WriteByte(hexDigits[ch&15])
	}
	return b.String()
}

// canonicalQuery is the query sorted by name, then value, escaped for SigV4.
func canonicalQuery(q url.Values) string {
	if len(q) == 0 {
		return ""
	}
	type kv struct{ k, v string }
	var all []kv
	for k, vs := range q {
		for _, v := range vs {
			all = append(all, kv{s3Escape(k, false), s3Escape(v, false)})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].k != all[j].k {
			return all[i].k < all[j].k
		}
		return all[i].v < all[j].v
	})
	var b strings.Builder
	for i, p := range all {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.k)
		b.WriteByte('=')
		b.WriteString(p.v)
	}
	return b.String()
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// sign adds the headers and the Authorization of AWS Signature Version 4 to
// req, whose URL path and query are already in canonical form.
func (c *s3Client) sign(req *http.Request, canonURI, canonQuery, payloadHash string) {
	t := c.now().UTC()
	amzDate := t.Format("20060102T150405Z")
	day := amzDate[:8]
	req.Header.Set("X-Amz-Date", amzDate)
	req.Header.Set("X-Amz-Content-Sha256", payloadHash)
	names := []string{"host", "x-amz-content-sha256", "x-amz-date"}
	values := []string{req.URL.Host, payloadHash, amzDate}
	if c.token != "" {
		req.Header.Set("X-Amz-Security-Token", c.token)
		names = append(names, "x-amz-security-token")
		values = append(values, c.token)
	}
	var canon strings.Builder
	canon.WriteString(req.Method + "\n" + canonURI + "\n" + canonQuery + "\n")
	for i, n := range names {
		canon.WriteString(n + ":" + strings.TrimSpace(values[i]) + "\n")
	}
	signed := strings.Join(names, ";")
	canon.WriteString("\n" + signed + "\n" + payloadHash)
	sum := sha256.Sum256([]byte(canon.String()))
	scope := day + "/" + c.region + "/s3/aws4_request"
	toSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(sum[:])
	k := hmacSHA256([]byte("AWS4"+c.secret), day)
	k = hmacSHA256(k, c.region)
	k = hmacSHA256(k, "s3")
	k = hmacSHA256(k, "aws4_request")
	sig := hex.EncodeToString(hmacSHA256(k, toSign))
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+c.id+"/"+scope+", SignedHeaders="+signed+", Signature="+sig)
}

// send makes one signed request; body (nil for none) is called for its bytes.
func (c *s3Client) send(ctx context.Context, method, key string, query url.Values, header http.Header, body func() (io.ReadCloser, int64, error), payloadHash string) (*http.Response, error) {
	host, path := c.host, "/"+key
	if c.pathStyle {
		path = "/" + c.bucket + path
	} else {
		host = c.bucket + "." + host
	}
	canonURI := s3Escape(path, true)
	canonQuery := canonicalQuery(query)
	u := &url.URL{Scheme: c.scheme, Host: host, Path: path, RawPath: canonURI, RawQuery: canonQuery}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
	if err != nil {
		return nil, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if body != nil {
		rc, n, err := body()
		if err != nil {
			return nil, err
		}
		req.Body, req.ContentLength = rc, n
		if n == 0 {
			rc.Close()
			req.Body = http.NoBody
		}
	}
	c.sign(req, canonURI, canonQuery, payloadHash)
	return c.hc.Do(req)
}

// s3Call is one request of an operation.
type s3Call struct {
	method  string
	key     string // "" for the bucket itself
	query   url.Values
	header  http.Header
	body    func() (io.ReadCloser, int64, error) // nil: no body; called anew for each try
	hash    string                               // the payload's SHA-256 in hex, or unsignedPayload; "" for no body
	replay  bool                                 // try again after a network error (the request is idempotent)
	notFail []int                                // statuses besides 2xx that are answers, not errors
}

// do makes the call, trying again (after a backoff) when the server answers
// 500, 502, 503 or 504, or, for a replayable call, when the connection fails.
// It returns the response of a 2xx status (or one of notFail) with its body
// open, else the error (an *s3Error for a refusal).
func (c *s3Client) do(ctx context.Context, call s3Call) (*http.Response, error) {
	op := call.method + " " + c.name(call.key)
	hash := call.hash
	if hash == "" {
		hash = emptySHA256
	}
	wait := c.backoff
	for try := 1; ; try++ {
		resp, err := c.send(ctx, call.method, call.key, call.query, call.header, call.body, hash)
		retry := false
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("%s: %w", op, ctx.Err())
			}
			retry = call.replay
			err = fmt.Errorf("%s: %w", op, err)
		} else {
			if resp.StatusCode/100 == 2 || containsInt(call.notFail, resp.StatusCode) {
				return resp, nil
			}
			err = readS3Error(op, resp)
			switch resp.StatusCode {
			case 500, 502, 503, 504:
				retry = true
			}
		}
		if !retry || try == s3Tries {
			return nil, err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: %w", op, ctx.Err())
		}
		wait *= 2
	}
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// readS3Error reads an error response (and closes it).
func readS3Error(op string, resp *http.Response) error {
	defer resp.Body.Close()
	e := &s3Error{Op: op, Status: resp.StatusCode, RequestID: resp.Header.Get("X-Amz-Request-Id")}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var body struct {
		Code      string `xml:"Code"`
		Message   string `xml:"Message"`
		RequestID string `xml:"RequestId"`
		Region    string `xml:"Region"`
	}
	if len(b) > 0 && xml.Unmarshal(b, &body) == nil {
		e.Code, e.Message = body.Code, body.Message
		if body.RequestID != "" {
			e.RequestID = body.RequestID
		}
	}
	if r := resp.Header.Get("X-Amz-Bucket-Region"); r != "" && resp.StatusCode/100 == 3 {
		e.Message = strings.TrimSpace(e.Message + " (the bucket is in region " + r + ": add region=" + r + " to the s3:// URL)")
	}
	return e
}

// objectOf reads what the response headers say of an object.
func objectOf(key string, h http.Header, size int64) s3Object {
	o := s3Object{Key: key, Size: size, ETag: strings.Trim(h.Get("ETag"), `"`)}
	if t, err := http.ParseTime(h.Get("Last-Modified")); err == nil {
		o.LastModified = t
	}
	return o
}

// bucketExists says whether the bucket exists.
func (c *s3Client) bucketExists(ctx context.Context) (bool, error) {
	resp, err := c.do(ctx, s3Call{method: http.MethodHead, replay: true, notFail: []int{404}})
	if err != nil {
		return false, err
	}
	resp.Body.Close()
	return resp.StatusCode != 404, nil
}

// statObject describes an object.
func (c *s3Client) statObject(ctx context.Context, key string) (s3Object, error) {
	resp, err := c.do(ctx, s3Call{method: http.MethodHead, key: key, replay: true})
	if err != nil {
		return s3Object{}, err
	}
	resp.Body.Close()
	return objectOf(key, resp.Header, resp.ContentLength), nil
}

// getObject opens an object for reading.
func (c *s3Client) getObject(ctx context.Context, key string) (io.ReadCloser, s3Object, error) {
	resp, err := c.do(ctx, s3Call{method: http.MethodGet, key: key, replay: true})
	if err != nil {
		return nil, s3Object{}, err
	}
	return resp.Body, objectOf(key, resp.Header, resp.ContentLength), nil
}

// getFile writes an object to a new file at path (removed on failure).
func (c *s3Client) getFile(ctx context.Context, key, path string) error {
	body, _, err := c.getObject(ctx, key)
	if err != nil {
		return err
	}
	defer body.Close()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("GET %s: %w", c.name(key), err)
	}
	return nil
}

// removeObject deletes an object (S3 answers a missing one with success).
func (c *s3Client) removeObject(ctx context.Context, key string) error {
	resp, err := c.do(ctx, s3Call{method: http.MethodDelete, key: key, replay: true})
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// putCond makes a write conditional: IfMatch on the object's ETag, or
// IfNoneMatch "*" (only if no object exists).
type putCond struct {
	IfMatch     string
	IfNoneMatch string
}

func (p putCond) none() bool { return p.IfMatch == "" && p.IfNoneMatch == "" }

func (p putCond) header(h http.Header) {
	if p.IfMatch != "" {
		h.Set("If-Match", `"`+strings.Trim(p.IfMatch, `"`)+`"`)
	}
	if p.IfNoneMatch == "*" {
		h.Set("If-None-Match", "*")
	} else if p.IfNoneMatch != "" {
		h.Set("If-None-Match", `"`+strings.Trim(p.IfNoneMatch, `"`)+`"`)
	}
}

// payloadHash is the SHA-256 of a body for the signature: over https the
// body is not hashed (TLS protects it), over http it is.
func (c *s3Client) payloadHash(open func() (io.ReadCloser, int64, error)) (string, error) {
	if c.scheme == "https" {
		return unsignedPayload, nil
	}
	rc, _, err := open()
	if err != nil {
		return "", err
	}
	defer rc.Close()
	h := sha256.New()
	if _, err := io.Copy(h, rc); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// putBytes writes an object of b.
func (c *s3Client) putBytes(ctx context.Context, key string, b []byte, contentType string, cond putCond) (string, error) {
	open := func() (io.ReadCloser, int64, error) {
		return io.NopCloser(bytes.NewReader(b)), int64(len(b)), nil
	}
	return c.put(ctx, key, open, contentType, cond)
}

func (c *s3Client) put(ctx context.Context, key string, open func() (io.ReadCloser, int64, error), contentType string, cond putCond) (string, error) {
	hash, err := c.payloadHash(open)
	if err != nil {
		return "", fmt.Errorf("PUT %s: %w", c.name(key), err)
	}
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	cond.header(h)
	// A conditional write is not tried again after a failed connection: it
	// may have been done, and the second try would then be refused.
	resp, err := c.do(ctx, s3Call{method: http.MethodPut, key: key, header: h, body: open, hash: hash, replay: cond.none()})
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	return strings.Trim(resp.Header.Get("ETag"), `"`), nil
}

// fileSection opens bytes [off, off+n) of the file at path.
func fileSection(path string, off, n int64) func() (io.ReadCloser, int64, error) {
	return func() (io.ReadCloser, int64, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, 0, err
		}
		return struct {
			io.Reader
			io.Closer
		}{io.NewSectionReader(f, off, n), f}, n, nil
	}
}

// putFile uploads the file at path: in one PUT when it is no larger than the
// part size or the write is conditional, else in parts.
func (c *s3Client) putFile(ctx context.Context, key, path, contentType string, cond putCond) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("PUT %s: %w", c.name(key), err)
	}
	size := fi.Size()
	if size <= c.partSize || !cond.none() {
		if size > s3MaxSinglePut {
			return "", fmt.Errorf("PUT %s: %d bytes are more than one conditional write may carry (%d)", c.name(key), size, int64(s3MaxSinglePut))
		}
		return c.put(ctx, key, fileSection(path, 0, size), contentType, cond)
	}
	return c.putParts(ctx, key, path, size, contentType)
}

// putParts uploads a large file as a multipart upload, aborted on failure.
func (c *s3Client) putParts(ctx context.Context, key, path string, size int64, contentType string) (string, error) {
	part := c.partSize
	if n := (size + part - 1) / part; n > s3MaxParts {
		part = (size + s3MaxParts - 1) / s3MaxParts
		part = (part + 1<<20 - 1) &^ (1<<20 - 1) // whole MiB
	}
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	resp, err := c.do(ctx, s3Call{method: http.MethodPost, key: key, query: url.Values{"uploads": {""}}, header: h})
	if err != nil {
		return "", err
	}
	var started struct {
		UploadID string `xml:"UploadId"`
	}
	err = decodeXMLBody(resp, &started)
	if err == nil && started.UploadID == "" {
		err = errors.New("the server named no upload")
	}
	if err != nil {
		return "", fmt.Errorf("start a multipart upload to %s: %w", c.name(key), err)
	}
	id := started.UploadID
	type donePart struct {
		PartNumber int    `xml:"PartNumber"`
		ETag       string `xml:"ETag"`
	}
	var parts []donePart
	fail := func(err error) (string, error) {
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		c.abortUpload(actx, key, id)
		return "", err
	}
	for n, off := 1, int64(0); off < size; n, off = n+1, off+part {
		m := min(part, size-off)
		open := fileSection(path, off, m)
		hash, err := c.payloadHash(open)
		if err != nil {
			return fail(fmt.Errorf("PUT %s part %d: %w", c.name(key), n, err))
		}
		q := url.Values{"partNumber": {strconv.Itoa(n)}, "uploadId": {id}}
		resp, err := c.do(ctx, s3Call{method: http.MethodPut, key: key, query: q, body: open, hash: hash, replay: true})
		if err != nil {
			return fail(err)
		}
		resp.Body.Close()
		parts = append(parts, donePart{n, resp.Header.Get("ETag")})
	}
	doc, err := xml.Marshal(struct {
		XMLName xml.Name   `xml:"CompleteMultipartUpload"`
		Parts   []donePart `xml:"Part"`
	}{Parts: parts})
	if err != nil {
		return fail(err)
	}
	sum := sha256.Sum256(doc)
	open := func() (io.ReadCloser, int64, error) {
		return io.NopCloser(bytes.NewReader(doc)), int64(len(doc)), nil
	}
	resp, err = c.do(ctx, s3Call{method: http.MethodPost, key: key, query: url.Values{"uploadId": {id}}, body: open, hash: hex.EncodeToString(sum[:]), replay: true})
	if err != nil {
		return fail(err)
	}
	// S3 may answer 200 and then report an error in the body.
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if err != nil {
		return fail(fmt.Errorf("complete the upload to %s: %w", c.name(key), err))
	}
	var done struct {
		XMLName xml.Name
		ETag    string `xml:"ETag"`
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	if err := xml.Unmarshal(b, &done); err != nil {
		return fail(fmt.Errorf("complete the upload to %s: %w", c.name(key), err))
	}
	if done.XMLName.Local == "Error" {
		return fail(&s3Error{Op: "POST " + c.name(key), Status: resp.StatusCode, Code: done.Code, Message: done.Message})
	}
	return strings.Trim(done.ETag, `"`), nil
}

func decodeXMLBody(resp *http.Response, v any) error {
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	return xml.Unmarshal(b, v)
}

// unescapeKey reads a key of a listing asked for with encoding-type=url.
func unescapeKey(k, encoding string) (string, error) {
	if encoding != "url" {
		return k, nil
	}
	return url.QueryUnescape(k)
}

// listObjects calls fn for each object whose key starts with prefix, in
// key order (ListObjectsV2).
func (c *s3Client) listObjects(ctx context.Context, prefix string, fn func(s3Object) error) error {
	token := ""
	for {
		q := url.Values{"list-type": {"2"}, "encoding-type": {"url"}, "prefix": {prefix}}
		if token != "" {
			q.Set("continuation-token", token)
		}
		resp, err := c.do(ctx, s3Call{method: http.MethodGet, query: q, replay: true})
		if err != nil {
			return err
		}
		var page struct {
			IsTruncated           bool   `xml:"IsTruncated"`
			NextContinuationToken string `xml:"NextContinuationToken"`
			EncodingType          string `xml:"EncodingType"`
			Contents              []struct {
				Key          string `xml:"Key"`
				LastModified string `xml:"LastModified"`
				ETag         string `xml:"ETag"`
				Size         int64  `xml:"Size"`
			} `xml:"Contents"`
		}
		if err := decodeXMLBody(resp, &page); err != nil {
			return fmt.Errorf("list %s: %w", c.name(prefix), err)
		}
		for _, o := range page.Contents {
			key, err := unescapeKey(o.Key, page.EncodingType)
			if err != nil {
				return fmt.Errorf("list %s: key %q: %w", c.name(prefix), o.Key, err)
			}
			obj := s3Object{Key: key, Size: o.Size, ETag: strings.Trim(o.ETag, `"`)}
			if t, err := time.Parse(time.RFC3339Nano, o.LastModified); err == nil {
				obj.LastModified = t
			}
			if err := fn(obj); err != nil {
				return err
			}
		}
		if !page.IsTruncated {
			return nil
		}
		if page.NextContinuationToken == "" || page.NextContinuationToken == token {
			return fmt.Errorf("list %s: the server said the listing goes on but gave no new continuation token", c.name(prefix))
		}
		token = page.NextContinuationToken
	}
}

// listUploads calls fn for each unfinished multipart upload whose key starts
// with prefix.
func (c *s3Client) listUploads(ctx context.Context, prefix string, fn func(key, id string) error) error {
	keyMarker, idMarker := "", ""
	for {
		q := url.Values{"uploads": {""}, "encoding-type": {"url"}, "prefix": {prefix}}
		if keyMarker != "" {
			q.Set("key-marker", keyMarker)
			q.Set("upload-id-marker", idMarker)
		}
		resp, err := c.do(ctx, s3Call{method: http.MethodGet, query: q, replay: true})
		if err != nil {
			return err
		}
		var page struct {
			IsTruncated        bool   `xml:"IsTruncated"`
			NextKeyMarker      string `xml:"NextKeyMarker"`
			NextUploadIDMarker string `xml:"NextUploadIdMarker"`
			EncodingType       string `xml:"EncodingType"`
			Uploads            []struct {
				Key      string `xml:"Key"`
				UploadID string `xml:"UploadId"`
			} `xml:"Upload"`
		}
		if err := decodeXMLBody(resp, &page); err != nil {
			return fmt.Errorf("list the uploads under %s: %w", c.name(prefix), err)
		}
		for _, u := range page.Uploads {
			key, err := unescapeKey(u.Key, page.EncodingType)
			if err != nil {
				return fmt.Errorf("list the uploads under %s: key %q: %w", c.name(prefix), u.Key, err)
			}
			if err := fn(key, u.UploadID); err != nil {
				return err
			}
		}
		if !page.IsTruncated {
			return nil
		}
		next, err := unescapeKey(page.NextKeyMarker, page.EncodingType)
		if err != nil || next == "" || next == keyMarker && page.NextUploadIDMarker == idMarker {
			return fmt.Errorf("list the uploads under %s: the server said the listing goes on but gave no new marker", c.name(prefix))
		}
		keyMarker, idMarker = next, page.NextUploadIDMarker
	}
}

// abortUpload abandons a multipart upload.
func (c *s3Client) abortUpload(ctx context.Context, key, id string) error {
	resp, err := c.do(ctx, s3Call{method: http.MethodDelete, key: key, query: url.Values{"uploadId": {id}}, replay: true})
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}
