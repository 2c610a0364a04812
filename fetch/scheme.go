package fetch

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"net/url"
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
