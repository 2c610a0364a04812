package crawl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"rsx/fetch"
	"rsx/model"
)

// CrawlDelayer is implemented by a fetch.Getter that can space its requests to a
// host, as robots.txt Crawl-delay asks. *fetch.Client implements it.
type CrawlDelayer interface {
	SetCrawlDelay(host string, d time.Duration)
}

// get fetches rawURL and returns the response, its HTTP status (0 when no
// response came) and an error for anything but a 2xx response. When the
// error is not nil the body is closed already.
func get(ctx context.Context, g fetch.Getter, rawURL string) (*fetch.Response, int, error) {
	resp, err := g.Get(ctx, rawURL)
	status := 0
	if resp != nil {
		status = resp.Status
	}
	var se *fetch.StatusError
	if errors.As(err, &se) && status == 0 {
		status = se.Status
	}
	if err != nil {
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		return nil, status, err
	}
	if resp == nil {
		return nil, 0, fmt.Errorf("GET %s: no response", rawURL)
	}
	if resp.Status != 0 && (resp.Status < 200 || resp.Status > 299) {
		if resp.Body != nil {
			resp.Body.Close()
		}
		return nil, status, &fetch.StatusError{URL: rawURL, Status: resp.Status}
	}
	if resp.Body == nil {
		resp.Body = io.NopCloser(strings.NewReader(""))
	}
	return resp, status, nil
}

// finalURL is the response's URL after redirects, or asked when it has none.
func finalURL(resp *fetch.Response, asked string) string {
	if resp != nil && resp.URL != "" {
		return resp.URL
	}
	return asked
}

// NormalizeURL gives the form used to recognise a document reached twice:
// scheme and host lower-cased, default port and fragment dropped, an empty
// path made "/". A URL that does not parse is returned trimmed.
func NormalizeURL(raw string) string {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	u.Scheme = strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Host)
	if h, p, ok := strings.Cut(host, ":"); ok && !strings.HasPrefix(host, "[") {
		if (u.Scheme == "http" && p == "80") || (u.Scheme == "https" && p == "443") {
			host = h
		}
	} else if strings.HasPrefix(host, "[") {
		if i := strings.LastIndex(host, "]:"); i >= 0 {
			p := host[i+2:]
			if (u.Scheme == "http" && p == "80") || (u.Scheme == "https" && p == "443") {
				host = host[:i+1]
			}
		}
	}
	u.Host = host
	u.Fragment = ""
	u.RawFragment = ""
	if u.Path == "" && u.RawPath == "" {
		u.Path = "/"
	}
	return u.String()
}

// linksWithRel returns the hrefs of the document-level links that have the
// relation type rel among their tokens, resolved against base.
func linksWithRel(h *model.Header, rel, base string) []string {
	if h == nil {
		return nil
	}
	return model.LinkHrefs(h.Links, rel, base)
}

// isResourceSync tells whether a parsed header is that of a ResourceSync
// document: a Sitemap root with a capability.
func isResourceSync(h *model.Header) bool {
	return h != nil && h.Root != model.RootUnknown && h.MD.Capability != ""
}

// errText is err's message, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// asStatusError returns the *fetch.StatusError in err's chain, or nil.
func asStatusError(err error) *fetch.StatusError {
	var se *fetch.StatusError
	if errors.As(err, &se) {
		return se
	}
	return nil
}
