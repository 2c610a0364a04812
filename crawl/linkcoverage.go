package crawl

import (
	"context"
	"errors"
	"fmt"
	"io"

	"rsx/display"
	"rsx/fetch"
	"rsx/model"
)

// LinkCoverage is the answer to §6.3.3's requirement on a resourcesync link
// of an HTML page or a Link header: "The Capability List that is made
// discoverable in this way must pertain to the resource that provides the
// link. This means that the resource must be covered by the capabilities
// listed in the linked Capability List." rsx judges it by looking for the
// resource's URI in the Resource Lists and Change Lists (and their indexes)
// that the Capability List advertises.
type LinkCoverage struct {
	Resource       string // the resource that provides the link
	CapabilityList string
	// Judged is false when nothing could decide: the Capability List has no
	// Resource List or Change List, a list could not be read, or the bound
	// on documents was reached before the resource was found.
	Judged  bool
	Covered bool
	Where   string // the list that names the resource, when Covered
	Read    int    // documents read
	Reason  string // why it was not judged
}

// CoverageOptions bound CheckLinkCoverage.
type CoverageOptions struct {
	// MaxDocuments bounds the lists and indexes read; default 200.
	MaxDocuments int
	// MaxBytes bounds each document (decompressed); default 64 MiB.
	MaxBytes int64
}

// CheckLinkCoverage reads the Capability List capList and the Resource Lists
// and Change Lists it advertises, with their indexes, until one names
// resource (any of the URIs given: the resource as asked and after
// redirects), streaming each document.
func CheckLinkCoverage(ctx context.Context, g fetch.Getter, capList string, resource []string, opts CoverageOptions) LinkCoverage {
	if opts.MaxDocuments <= 0 {
		opts.MaxDocuments = 200
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 64 << 20
	}
	lc := LinkCoverage{CapabilityList: capList}
	if len(resource) > 0 {
		lc.Resource = resource[0]
	}
	want := map[string]bool{}
	for _, r := range resource {
		if r != "" {
			want[NormalizeURL(r)] = true
		}
	}
	var queue []string
	_, err := scanDocument(ctx, g, capList, opts.MaxBytes, func(h *model.Header, base string, e *model.Entry) bool {
		if h.MD.Capability != model.CapCapabilityList {
			return false
		}
		if e.MD.Capability == model.CapResourceList || e.MD.Capability == model.CapChangeList {
			queue = append(queue, model.ResolveHref(base, e.Loc))
		}
		return true
	})
	lc.Read++
	switch {
	case err != nil:
		lc.Reason = "the Capability List could not be read: " + err.Error()
		return lc
	case len(queue) == 0:
		lc.Reason = "the Capability List advertises no Resource List or Change List to look in"
		return lc
	}
	seen := map[string]bool{}
	complete := true
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if seen[NormalizeURL(u)] {
			continue
		}
		seen[NormalizeURL(u)] = true
		if lc.Read >= opts.MaxDocuments {
			lc.Reason = fmt.Sprintf("stopped after %s documents without finding it", display.Count(lc.Read))
			return lc
		}
		lc.Read++
		found := false
		_, err := scanDocument(ctx, g, u, opts.MaxBytes, func(h *model.Header, base string, e *model.Entry) bool {
			loc := model.ResolveHref(base, e.Loc)
			if h.Root == model.RootSitemapIndex {
				queue = append(queue, loc)
				return true
			}
			if want[NormalizeURL(loc)] {
				found = true
				return false
			}
			return true
		})
		if found {
			lc.Judged, lc.Covered, lc.Where = true, true, u
			return lc
		}
		if err != nil {
			complete = false
			lc.Reason = fmt.Sprintf("%s could not be read: %v", u, err)
		}
	}
	lc.Judged = complete
	return lc
}

// scanDocument fetches url and hands each entry to f, with the document's
// header and final URL, until f returns false or the document ends.
func scanDocument(ctx context.Context, g fetch.Getter, url string, maxBytes int64, f func(h *model.Header, base string, e *model.Entry) bool) (*model.Header, error) {
	resp, _, err := get(ctx, g, url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	base := finalURL(resp, url)
	dec := model.NewDecoder(resp.Body, model.DecoderOptions{MaxBytes: maxBytes})
	h, err := dec.Header()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", url, err)
	}
	if h.Root == model.RootUnknown {
		return h, fmt.Errorf("%s is not a Sitemap document (%s)", url, describeHeader(h))
	}
	var e model.Entry
	for {
		if err := dec.Next(&e); err != nil {
			if errors.Is(err, io.EOF) {
				return h, nil
			}
			return h, fmt.Errorf("read %s: %w", url, err)
		}
		if e.Loc != "" && !f(h, base, &e) {
			return h, nil
		}
	}
}

// Problem is the discovery-link-coverage problem when the resource was
// judged not covered.
func (lc LinkCoverage) Problem() (model.Problem, bool) {
	if !lc.Judged || lc.Covered {
		return model.Problem{}, false
	}
	p := problem(RuleDiscoveryLinkCoverage, -1,
		"%s links to the Capability List %s, but none of its Resource Lists and Change Lists (%s documents read) lists %s: the Capability List must pertain to the resource that links to it",
		lc.Resource, lc.CapabilityList, display.Count(lc.Read), lc.Resource)
	p.Message = withSection(p)
	return p, true
}
