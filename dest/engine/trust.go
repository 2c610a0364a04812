package engine

import (
	"context"
	"errors"
	"fmt"

	"rsx/crawl"
	"rsx/model"
)

// A document is used for a Source only when the Source's Capability List
// lists it: directly, through an index it lists (a Change List Index lists
// its Change Lists; indexes may nest), or through an archive it lists (a
// Change List Archive lists closed Change Lists). A document's own up link
// is only a claim: a Change List on another host that names a Source's
// Capability List would otherwise be applied to that Source's copy and
// recorded in its state.

// listed is an entry of a Capability List: a document it offers.
type listed struct {
	url        string
	capability model.Capability
}

// maxTrustWalk bounds the documents read to find whether a Capability
// List lists a document through its indexes and archives.
const maxTrustWalk = 200

// errNotListed matches (errors.Is) the error of a document that the
// Capability List its up link names does not list.
var errNotListed = errors.New("not listed by the Capability List")

// notListed says which document a Capability List does not list.
type notListed struct {
	doc, capList string
	walked       int
	limited      bool
}

func (e *notListed) Error() string {
	how := "directly, through an index or through an archive"
	if e.limited {
		how += fmt.Sprintf("; %d of its documents read, the most looked at", e.walked)
	}
	return fmt.Sprintf("%s names %s as its Capability List, but that Capability List does not list it (%s): it is not used for that Source", e.doc, e.capList, how)
}

func (e *notListed) Is(target error) bool { return target == errNotListed }

func notListedError(doc, capList string, walked int, limited bool) error {
	return &notListed{doc: doc, capList: capList, walked: walked, limited: limited}
}

// sameDoc compares two URLs of documents: exactly, once resolved and
// trimmed of the white space around them (as the rest of the engine
// compares them: sameURL).
func sameDoc(a, b string) bool { return sameURL(a, b) }

// listedBy tells whether the Capability List of src lists one of urls (the
// URLs of one document: as asked for and after redirects), of capability
// c: directly, or through the indexes and archives of that capability it
// lists, read as far as needed (at most maxTrustWalk documents). It returns
// how many documents it read and whether it stopped at that bound.
func (s *Dest) listedBy(ctx context.Context, src *source, c model.Capability, urls ...string) (found bool, walked int, limited bool, err error) {
	match := func(loc string) bool {
		for _, u := range urls {
			if u != "" && sameDoc(loc, u) {
				return true
			}
		}
		return false
	}
	var queue []string
	archive := c.ArchiveCapability()
	for _, l := range src.listed {
		if match(l.url) {
			return true, 0, false, nil
		}
		if l.capability == c || (archive != "" && l.capability == archive) {
			queue = append(queue, l.url)
		}
	}
	seen := map[string]bool{}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if seen[u] {
			continue
		}
		seen[u] = true
		if walked >= maxTrustWalk {
			return false, walked, true, nil
		}
		walked++
		d, err := s.openDoc(ctx, u)
		if err != nil {
			if cerr := ctxErr(ctx, "read "+u); cerr != nil {
				return false, walked, false, cerr
			}
			continue // what cannot be read lists nothing
		}
		if match(d.url) {
			// Reached through the Source's own lists (a redirect of
			// theirs included).
			d.Close()
			return true, walked, false, nil
		}
		// An index lists parts that may be indexes again; an archive lists
		// closed documents (or, as an index, parts of itself). A list of
		// the capability itself lists resources: nothing to look for.
		if !d.isIndex() && !d.hdr.MD.Capability.IsArchive() {
			d.Close()
			continue
		}
		var children []string
		hit := false
		_, err = d.each(ctx, func(_ *model.Entry, loc string) error {
			if match(loc) {
				hit = true
				return errStopWalk
			}
			if d.isIndex() {
				children = append(children, loc)
			}
			return nil
		})
		d.Close()
		if hit {
			return true, walked, false, nil
		}
		if err != nil {
			if cerr := ctxErr(ctx, "read "+u); cerr != nil {
				return false, walked, false, cerr
			}
		}
		queue = append(queue, children...)
	}
	return false, walked, false, nil
}

var errStopWalk = errors.New("found")

// checkListed refuses a document that names src's Capability List as its
// own (its up link) when that Capability List does not list it. urls are
// the document's URLs (as asked for, after redirects).
func (s *Dest) checkListed(ctx context.Context, src *source, c model.Capability, doc string, urls ...string) error {
	found, walked, limited, err := s.listedBy(ctx, src, c, urls...)
	if err != nil {
		return err
	}
	if !found {
		return notListedError(doc, src.capList, walked, limited)
	}
	return nil
}

// trustedArchive keeps the archive crawl.LoadHistory found only when the
// Source's Capability List lists it (directly: an archive is advertised
// like the core capabilities). LoadHistory takes the live document's
// rel="archives" link first, and that link may name any document: one the
// Capability List does not list is a problem of the plan, and is not read.
// Without a Capability List (a document read alone) the link is trusted.
func (b *builder) trustedArchive(h *crawl.History) *crawl.History {
	if h == nil || len(h.Archive) == 0 || b.capList == "" {
		return h
	}
	a := h.Archive[0]
	for _, l := range b.listed {
		if sameDoc(l.url, a.URL) || (a.FinalURL != "" && sameDoc(l.url, a.FinalURL)) {
			return h
		}
	}
	b.problem(a.URL, KindDocument, notListedError(model.DocumentTitle(a.Capability(), a.Header.Root)+" "+a.URL, b.capList, 0, false))
	return nil
}
