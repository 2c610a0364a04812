package fetch

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// A URL whose scheme the server does not speak (https:// to a server of
// plain http, http:// to a TLS port) fails the same way every time: it is
// not retried, and the error says the URL of the other scheme.

// schemeMismatch reports whether err, from a request to u, is the server
// speaking the other scheme, and says so with the URL to try.
func schemeMismatch(u *url.URL, err error) (string, bool) {
	var rh tls.RecordHeaderError
	switch {
	case u.Scheme == "https" && (errors.Is(err, http.ErrSchemeMismatch) || errors.As(err, &rh)):
		return otherScheme(u, "plain http", "https", "http"), true
	case u.Scheme == "http" && tlsRecordAnswer(err):
		return otherScheme(u, "https", "plain http", "https"), true
	}
	return "", false
}

// tlsRecordAnswer tells whether err is a plain http request answered with
// a TLS record (an alert or a handshake: 0x15 or 0x16, then version 3.x),
// as net/http writes it (malformed HTTP response "\x15\x03…").
func tlsRecordAnswer(err error) bool {
	s := err.Error()
	return strings.Contains(s, `malformed HTTP response "\x15\x03`) || strings.Contains(s, `malformed HTTP response "\x16\x03`)
}

// plainToTLS are the words TLS servers answer a plain http request with,
// in a 400: Go's net/http, nginx.
var plainToTLS = [][]byte{
	[]byte("Client sent an HTTP request to an HTTPS server"),
	[]byte("The plain HTTP request was sent to HTTPS port"),
}

// httpsAnswer tells whether resp, a 400 to a request of plain http to u,
// is a TLS server's refusal of plain http, by the words of its first bytes;
// the body is kept whole for the caller.
func httpsAnswer(u *url.URL, resp *http.Response) (string, bool) {
	if u.Scheme != "http" || resp.StatusCode != http.StatusBadRequest {
		return "", false
	}
	br := bufio.NewReaderSize(resp.Body, 1024)
	head, _ := br.Peek(1024) // a short body is peeked whole, at its end
	resp.Body = struct {
		io.Reader
		io.Closer
	}{br, resp.Body}
	for _, p := range plainToTLS {
		if bytes.Contains(head, p) {
			return otherScheme(u, "https", "plain http", "https"), true
		}
	}
	return "", false
}

// otherScheme says that the server of u speaks speaks, not not, and the
// URL to try with scheme.
func otherScheme(u *url.URL, speaks, not, scheme string) string {
	v := *u
	v.Scheme = scheme
	v.User = nil
	return "the server at " + u.Host + " speaks " + speaks + ", not " + not + ": try " + v.String()
}

// SchemeFor is the URL that target, written without a scheme, most likely
// meant: "example.org/cap.xml" https://example.org/cap.xml, and a host of
// this machine, an IP address or a port other than 443 http://
// ("localhost:8080/x" http://localhost:8080/x), as servers on them seldom
// speak TLS. It is "" for anything else: a URL, a file name
// ("resourcelist.xml"), a path.
func SchemeFor(target string) string {
	if target == "" || strings.Contains(target, "://") || strings.ContainsAny(target, " \t\\") || strings.HasPrefix(target, ".") {
		return ""
	}
	hostport := target
	if i := strings.IndexAny(target, "/?#"); i >= 0 {
		hostport = target[:i]
	}
	host, port := hostport, ""
	if strings.Contains(hostport, ":") && !strings.HasPrefix(hostport, "[") && strings.Count(hostport, ":") > 1 {
		return "" // an IPv6 address is written in brackets
	}
	if strings.Contains(hostport, ":") {
		h, p, err := net.SplitHostPort(hostport)
		if err != nil || p == "" || strings.Trim(p, "0123456789") != "" {
			return ""
		}
		host, port = h, p
	}
	lower := strings.ToLower(host)
	scheme := "https"
	switch {
	case lower == "localhost" || strings.HasSuffix(lower, ".localhost") || net.ParseIP(host) != nil:
		scheme = "http"
	case isDomain(lower):
	case port != "" && isLabel(lower):
		// myserver:8080
	default:
		return ""
	}
	if port != "" && port != "443" {
		scheme = "http"
	}
	return scheme + "://" + target
}

// fileExtensions are the last parts of file names rsx is given, which a
// host name does not end with.
var fileExtensions = []string{"xml", "gz", "zip", "txt", "json", "html", "htm", "warc", "tar", "tgz", "csv", "md", "toml"}

// isDomain tells whether s reads as a domain name: two labels or more, the
// last of letters, not a file's extension.
func isDomain(s string) bool {
	labels := strings.Split(s, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if !isLabel(l) {
			return false
		}
	}
	tld := labels[len(labels)-1]
	return len(tld) >= 2 && strings.Trim(tld, "abcdefghijklmnopqrstuvwxyz") == "" && !slices.Contains(fileExtensions, tld)
}

// isLabel tells whether s is one label of a host name.
func isLabel(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == "" && !strings.HasPrefix(s, "-")
}

// noSchemeError is the error of a target without a scheme that reads as a
// host: the URL meant.
func noSchemeError(what, target, meant string) error {
	return fmt.Errorf("%s %s: not a URL: it has no scheme; for the web, give the scheme: %s", what, target, meant)
}
