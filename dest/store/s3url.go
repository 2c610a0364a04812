package store

import (
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"

	"rsx/display"
)

// S3Location is a bucket destination: s3://BUCKET/PREFIX?endpoint=URL&region=R.
type S3Location struct {
	Bucket string
	Prefix string // "" or a clean "/"-separated path, without slashes at either end
	// Endpoint is the server's URL (scheme, host and port, no path); "" for
	// Amazon S3 itself. With an endpoint, requests use path-style addressing
	// (http://host/bucket/key), which every S3-compatible server accepts.
	Endpoint string
	Region   string // "" lets the client find it (us-east-1 for most servers)
}

// ParseS3URL reads s3://BUCKET[/PREFIX][?endpoint=URL][&region=R]. The bucket
// must be a valid S3 bucket name (3 to 63 lower-case letters, digits, dots and
// hyphens); the prefix a relative path without ".." or empty segments, and
// without a segment .rsx (in any case: the reserved folder of the
// destination its leading segments name, where that keeps its state);
// endpoint an http or https URL with a host and no path; no other parameter
// is accepted.
func ParseS3URL(s string) (S3Location, error) {
	fail := func(reason string) (S3Location, error) {
		// Quoted without the secret of credentials put in it (refused).
		return S3Location{}, errors.New("bucket destination " + strconv.Quote(display.RedactURL(s)) + ": " + reason)
	}
	u, err := url.Parse(s)
	if err != nil {
		return fail("not a URL: " + err.Error())
	}
	if u.Scheme != "s3" {
		return fail("want s3://bucket/prefix")
	}
	if u.User != nil {
		return fail("credentials do not go in the URL: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (docs/destination.md)")
	}
	if u.Fragment != "" || u.RawFragment != "" || strings.Contains(s, "#") {
		return fail("a fragment (#…) means nothing here")
	}
	var loc S3Location
	loc.Bucket = u.Host
	if reason := bucketNameProblem(loc.Bucket); reason != "" {
		return fail(reason)
	}
	prefix := strings.Trim(u.Path, "/")
	segs := strings.Split(prefix, "/")
	for i, seg := range segs {
		if prefix != "" && (seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, "\\\x00")) {
			return fail("prefix " + strconv.Quote(prefix) + " has a segment " + strconv.Quote(seg))
		}
		if strings.EqualFold(seg, ReservedDir) {
			// s3://bucket/a/.rsx is the folder where the DEST s3://bucket/a
			// keeps its state and lock. Any case: no resource's path starts
			// with .rsx in any case either (pathmap), so that a copy moves
			// to a case-insensitive file system as it is.
			above := strings.TrimSuffix("s3://"+loc.Bucket+"/"+strings.Join(segs[:i], "/"), "/")
			return fail("prefix " + strconv.Quote(prefix) + " has a segment " + strconv.Quote(seg) + ": the folder where the destination " + above + " keeps its state and lock (reserved)")
		}
	}
	if len(prefix) > 512 {
		return fail("prefix longer than 512 bytes")
	}
	for i := 0; i < len(prefix); i++ {
		if prefix[i] < 0x20 || prefix[i] == 0x7f {
			return fail("prefix " + strconv.Quote(prefix) + " has a control character")
		}
	}
	loc.Prefix = prefix
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return fail("query: " + err.Error())
	}
	for k, v := range q {
		if len(v) != 1 {
			return fail("parameter " + k + " is given more than once")
		}
		switch k {
		case "endpoint":
			e, err := url.Parse(v[0])
			if err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" {
				return fail("endpoint " + strconv.Quote(v[0]) + " is not an http or https URL with a host")
			}
			if (e.Path != "" && e.Path != "/") || e.RawQuery != "" || e.Fragment != "" || e.User != nil {
				return fail("endpoint " + strconv.Quote(v[0]) + " must be only scheme, host and port (path-style bucket addressing is used)")
			}
			if p := e.Port(); p != "" {
				if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
					return fail("endpoint " + strconv.Quote(v[0]) + ": port out of range")
				}
			}
			loc.Endpoint = e.Scheme + "://" + e.Host
		case "region":
			if !validRegion(v[0]) {
				return fail("region " + strconv.Quote(v[0]) + " is not a region name (like us-east-1)")
			}
			loc.Region = v[0]
		default:
			return fail("unknown parameter " + strconv.Quote(k) + " (endpoint and region are known)")
		}
	}
	return loc, nil
}

// String writes the location back in a canonical form (the key of its cache).
func (l S3Location) String() string {
	s := "s3://" + l.Bucket
	if l.Prefix != "" {
		s += (&url.URL{Path: "/" + l.Prefix}).EscapedPath()
	}
	q := url.Values{}
	if l.Endpoint != "" {
		q.Set("endpoint", l.Endpoint)
	}
	if l.Region != "" {
		q.Set("region", l.Region)
	}
	if len(q) > 0 {
		s += "?" + q.Encode()
	}
	return s
}

// Name is the location without its parameters, for messages.
func (l S3Location) Name() string {
	if l.Prefix == "" {
		return "s3://" + l.Bucket
	}
	return "s3://" + l.Bucket + "/" + l.Prefix
}

// Key is the object key of a path of the copy.
func (l S3Location) Key(p string) string {
	if l.Prefix == "" {
		return p
	}
	return l.Prefix + "/" + p
}

func bucketNameProblem(b string) string {
	switch {
	case b == "":
		return "no bucket name"
	case len(b) < 3 || len(b) > 63:
		return "bucket name " + strconv.Quote(b) + " must have 3 to 63 characters"
	case strings.Contains(b, ".."):
		return "bucket name " + strconv.Quote(b) + " has two dots in a row"
	case net.ParseIP(b) != nil:
		return "bucket name " + strconv.Quote(b) + " looks like an IP address"
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		alnum := 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
		if !alnum && c != '.' && c != '-' {
			if 'A' <= c && c <= 'Z' {
				return "bucket name " + strconv.Quote(b) + " must be lower case"
			}
			return "bucket name " + strconv.Quote(b) + " may only have letters, digits, dots and hyphens"
		}
		if (i == 0 || i == len(b)-1) && !alnum {
			return "bucket name " + strconv.Quote(b) + " must start and end with a letter or digit"
		}
	}
	return ""
}

func validRegion(r string) bool {
	if r == "" || len(r) > 32 {
		return false
	}
	for i := 0; i < len(r); i++ {
		c := r[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
