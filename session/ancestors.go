package session

import (
	"context"
	"fmt"

	"rsx/crawl"
	"rsx/model"
)

// Crumb is one document on the path from the Source Description.
type Crumb struct {
	URL        string
	Capability model.Capability
	Root       model.RootKind
}

// Title is the crumb's document type in words.
func (c Crumb) Title() string { return model.DocumentTitle(c.Capability, c.Root) }

// Ancestors follows the index or up links of a document (its header h,
// found at start) to the Source Description and returns the path from the
// Source Description down to the document's parent. It reads only the
// headers of the documents it climbs through.
func (s *Session) Ancestors(ctx context.Context, start string, h *model.Header) ([]Crumb, error) {
	var chain []Crumb
	seen := map[string]bool{crawl.NormalizeURL(start): true}
	cur, base := h, start
	for range 8 {
		next := parentLink(cur, base)
		if next == "" || seen[crawl.NormalizeURL(next)] || !model.MayFollow(base, next) {
			// No parent, a loop, or a link that may be shown but not
			// followed (a file: link of a document from the network).
			break
		}
		seen[crawl.NormalizeURL(next)] = true
		hdr, final, err := s.header(ctx, next)
		if err != nil {
			return reverseCrumbs(chain), err
		}
		chain = append(chain, Crumb{URL: final, Capability: hdr.MD.Capability, Root: hdr.Root})
		if hdr.MD.Capability == model.CapDescription {
			break
		}
		cur, base = hdr, final
	}
	return reverseCrumbs(chain), nil
}

func reverseCrumbs(c []Crumb) []Crumb {
	out := make([]Crumb, len(c))
	for i := range c {
		out[len(c)-1-i] = c[i]
	}
	return out
}

// header reads only the document-level part of target.
func (s *Session) header(ctx context.Context, target string) (*model.Header, string, error) {
	o, err := s.open(ctx, target)
	if err != nil {
		return nil, "", err
	}
	defer o.Close()
	final := o.URL
	dec := model.NewDecoder(&countingReader{r: o.Body, ctx: ctx}, s.opts.Decoder)
	hdr, err := dec.Header()
	if err != nil {
		return nil, final, fmt.Errorf("read %s: %w", final, err)
	}
	return hdr, final, nil
}

// parentLink is where a document sits in the tree: its index when it is a
// part of one, else its up link.
func parentLink(h *model.Header, base string) string {
	if u := h.LinkHref("index", base); u != "" {
		return u
	}
	return h.LinkHref("up", base)
}
