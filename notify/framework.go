package notify

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"rsx/model"
)

// HeaderFetcher fetches the document at url and returns its header (root
// element, document-level <rs:md> and links), or why it could not.
type HeaderFetcher func(ctx context.Context, url string) (*model.Header, error)

// HTTPHeaderFetcher is a HeaderFetcher over c that reads at most max bytes
// of a document (its header comes first) and sends the headers header gives
// for the URL (nil: none).
func HTTPHeaderFetcher(c *http.Client, header func(url string) http.Header, max int64) HeaderFetcher {
	return func(ctx context.Context, url string) (*model.Header, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, fmt.Errorf("fetch notified document %s: %w", url, err)
		}
		if header != nil {
			for k, vs := range header(url) {
				req.Header[k] = vs
			}
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, fmt.Errorf("fetch notified document %s: %w", url, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return nil, fmt.Errorf("fetch notified document %s: %s", url, resp.Status)
		}
		h, err := model.NewDecoder(io.LimitReader(resp.Body, max), model.DecoderOptions{MaxBytes: max}).Header()
		if err != nil {
			return nil, fmt.Errorf("read notified document %s: %w", url, err)
		}
		return h, nil
	}
}

// FrameworkTargetProblems checks a framework notification against the
// documents it notifies, which it fetches with get (§5 of the Notification
// draft): "framework notifications are never sent at the index level"
// (framework-index-level), and a document that "resides under an index"
// must be notified with an <rs:ln rel="index"> to that index
// (framework-index-link-missing; framework-index-link when the link names
// another index). A deleted document, or one that cannot be fetched, is not
// judged.
func FrameworkTargetProblems(ctx context.Context, get HeaderFetcher, d *model.Document) []model.Problem {
	var out []model.Problem
	for i := range d.Entries {
		e := &d.Entries[i]
		if e.Loc == "" || e.MD.Change == model.ChangeDeleted || ctx.Err() != nil {
			continue
		}
		loc := e.Loc
		h, err := get(ctx, loc)
		if err != nil || h == nil || h.Root == model.RootUnknown {
			continue
		}
		ref := "entry " + model.EntryNumber(i) + " (" + loc + ")"
		if h.Root == model.RootSitemapIndex {
			out = append(out, model.NotificationProblem(model.NotificationFrameworkIndexLevel, i, e.Line,
				ref+": the notified document is an index (<sitemapindex>): framework notifications are never sent at the index level; notify the document that changed under it"))
			continue
		}
		own := model.LinkHrefs(h.Links, "index", loc)
		if len(own) == 0 {
			continue
		}
		given := model.LinkHrefs(e.Links, "index", loc)
		switch {
		case len(given) == 0:
			out = append(out, model.NotificationProblem(model.NotificationFrameworkIndexLinkMissing, i, e.Line,
				ref+`: the document resides under the index `+own[0]+`, but the entry has no <rs:ln rel="index"> to it`))
		case !sameDocument(given[0], own):
			out = append(out, model.NotificationProblem(model.NotificationFrameworkIndexLink, i, e.Line,
				ref+`: the entry's <rs:ln rel="index"> points at `+given[0]+`, but the document resides under the index `+own[0]))
		}
	}
	return out
}

// sameDocument tells whether u is one of urls, written alike up to the case
// of the scheme and host.
func sameDocument(u string, urls []string) bool {
	for _, x := range urls {
		if model.SameURL(u, x) {
			return true
		}
	}
	return false
}
