package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"rsx/crawl"
	"rsx/display"
	"rsx/fetch"
	"rsx/model"
)

// openedDoc is a document being read: its final URL, header and decoder.
type openedDoc struct {
	url   string // after redirects: the base of relative locs
	asked string // as asked for
	// redirected: the request met a redirect (the exchange says so; a
	// client that keeps none: the URL answered differs from the one asked)
	redirected bool
	resp       *fetch.Response
	dec        *model.Decoder
	hdr        *model.Header
}

// openDoc fetches a document and reads its header.
func (s *Dest) openDoc(ctx context.Context, rawURL string) (*openedDoc, error) {
	resp, err := s.client.Get(ctx, rawURL)
	if err != nil {
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		if strings.Contains(err.Error(), rawURL) {
			return nil, err
		}
		return nil, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	if resp.Status != 0 && (resp.Status < 200 || resp.Status > 299) {
		resp.Body.Close()
		return nil, fmt.Errorf("fetch %s: %w", rawURL, &fetch.StatusError{URL: rawURL, Status: resp.Status})
	}
	d := &openedDoc{url: rawURL, asked: rawURL, resp: resp}
	if resp.URL != "" {
		d.url = resp.URL
	}
	if resp.Exchange != nil {
		d.redirected = len(resp.Exchange.Redirects) > 0
	} else {
		d.redirected = !sameName(rawURL, d.url)
	}
	// The client bounds the body (fetch.Options.MaxBytes, --max-bytes) with
	// the error that names the limit and its flag: the decoder's own limit
	// would stop a document first, with no word of how to raise it.
	d.dec = model.NewDecoder(resp.Body, model.DecoderOptions{MaxBytes: -1})
	hdr, err := d.dec.Header()
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("read %s: %w", d.url, err)
	}
	d.hdr = hdr
	return d, nil
}

func (d *openedDoc) Close() {
	d.dec.Close()
	d.resp.Body.Close()
}

func (d *openedDoc) isIndex() bool { return d.hdr.Root == model.RootSitemapIndex }

// each calls fn for every entry that has a loc, with the loc resolved
// against the document's URL, and returns how many entries were read.
func (d *openedDoc) each(ctx context.Context, fn func(e *model.Entry, loc string) error) (int, error) {
	var e model.Entry
	n := 0
	for {
		err := d.dec.Next(&e)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("read %s: %w", d.url, err)
		}
		n++
		if n&1023 == 0 {
			if err := ctxErr(ctx, "read "+d.url); err != nil {
				return n, err
			}
		}
		loc := strings.TrimSpace(e.Loc)
		if !e.HasLoc || loc == "" {
			continue
		}
		if err := fn(&e, resolveLoc(d.url, loc)); err != nil {
			return n, err
		}
	}
}

// source is a Source as the engine reaches it: the key of its state (the
// URL of its Capability List, or of the document given when it has none)
// and the documents it offers.
type source struct {
	key     string
	capList string // "" when the document given has no Capability List above it
	target  string // the URL given
	// docs maps a capability (resourcelist, resourcedump, changelist,
	// changedump) to the URL of the document to read for it: the document
	// given for its own capability, else the Capability List's entry.
	docs        map[model.Capability]string
	listed      []listed // every document the Capability List lists
	authorities []string
	notes       []string
	// hops are the redirects (and an unchecked index link) met on the way
	// from the URL given to key, which the Source's identity is checked
	// against (identity.go).
	hops []hop
	// claimed is the Capability List a document's up link names, as named
	// ("" when the target is none).
	claimed string
	// names are the URLs a run records as the Source's names
	// (identity.go).
	names []string
}

// resolve finds the Source of target: a Capability List, a document below
// one (followed up to it), a Source Description with one Capability List,
// or a page from which discovery finds one. Its errors quote target
// without the password of its userinfo (display.Redact): the URL given is
// the one place a user's password meets the engine's messages.
func (s *Dest) resolve(ctx context.Context, target string) (*source, error) {
	src, err := s.resolveTarget(ctx, target)
	if err != nil {
		return nil, redactErr(err)
	}
	return src, nil
}

// redactErr is err with its message redacted (display.Redact); errors.Is
// and errors.As see err.
func redactErr(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := display.Redact(msg); red != msg {
		return &redactedError{msg: red, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

func (s *Dest) resolveTarget(ctx context.Context, target string) (*source, error) {
	d, err := s.openDoc(ctx, target)
	if err != nil {
		return nil, err
	}
	hdr := d.hdr
	c := hdr.MD.Capability
	first := d.hop()
	if hdr.Root == model.RootUnknown || c == "" {
		d.Close()
		disc, err := crawl.Discover(ctx, s.client, target, crawl.DiscoverOptions{UserAgent: s.opts.UserAgent, MaxCrawlDelay: s.opts.MaxCrawlDelay})
		if err != nil {
			return nil, fmt.Errorf("discover the Source of %s: %w", target, err)
		}
		switch len(disc.CapabilityLists) {
		case 0:
			return nil, fmt.Errorf("%s is not a ResourceSync document, and no Capability List was found from it", target)
		case 1:
			src, err := s.resolveCapList(ctx, disc.CapabilityLists[0], target)
			src.lead(first)
			if src != nil {
				src.notes = append(src.notes, "discovery found the Capability List "+disc.CapabilityLists[0])
			}
			return src, err
		}
		return nil, fmt.Errorf("discovery from %s found %d Capability Lists: give one of them: %s", target, len(disc.CapabilityLists), strings.Join(disc.CapabilityLists, ", "))
	}
	switch c {
	case model.CapDescription:
		var lists []string
		_, err := d.each(ctx, func(_ *model.Entry, loc string) error {
			lists = append(lists, loc)
			return nil
		})
		d.Close()
		if err != nil {
			return nil, err
		}
		switch len(lists) {
		case 0:
			return nil, fmt.Errorf("the Source Description %s lists no Capability List", d.url)
		case 1:
			src, err := s.resolveCapList(ctx, lists[0], target)
			src.lead(first)
			return src, err
		}
		return nil, fmt.Errorf("the Source Description %s lists %d Capability Lists: give one of them: %s", d.url, len(lists), strings.Join(lists, ", "))
	case model.CapCapabilityList:
		src := &source{key: d.url, capList: d.url, target: target, docs: map[model.Capability]string{}}
		err := readCapList(ctx, d, src)
		d.Close()
		if err != nil {
			return nil, err
		}
		src.authorities = []string{d.url, target}
		src.lead(first)
		return src, nil
	case model.CapResourceList, model.CapResourceDump, model.CapChangeList, model.CapChangeDump:
	case model.CapResourceDumpManifest, model.CapChangeDumpManifest:
		d.Close()
		return nil, fmt.Errorf("%s is the manifest of a dump package: give the Capability List, or the dump itself", d.url)
	default:
		d.Close()
		return nil, fmt.Errorf("%s is a %s, not a document to sync from (a Capability List, or a Resource List, Resource Dump, Change List, Change Dump or an index of them)", d.url, model.DocumentTitle(c, hdr.Root))
	}
	self, asked := d.url, target
	var notes []string
	if idx := hdr.LinkHref("index", d.url); idx != "" && !d.isIndex() {
		notes = append(notes, fmt.Sprintf("%s is a part of the index %s: the whole index is read", d.url, idx))
		self = idx
	}
	up := hdr.LinkHref("up", d.url)
	d.Close()
	var src *source
	if up != "" {
		src, err = s.resolveCapList(ctx, up, target)
		if err != nil {
			return nil, fmt.Errorf("the Capability List of %s: %w", target, err)
		}
		// The up link is the document's claim: the Capability List must
		// list it (and the index it names as its own, when it is a part).
		title := model.DocumentTitle(c, hdr.Root)
		if err := s.checkListed(ctx, src, c, title+" "+asked, asked, d.url); err != nil {
			return nil, err
		}
		if !first.zero() {
			// Redirected: the Source's own doing when its Capability List
			// lists the URL given (not only where it led).
			own, _, _, err := s.listedBy(ctx, src, c, asked)
			if err != nil {
				return nil, err
			}
			if own {
				first = hop{}
			}
		}
		if !sameDoc(self, d.url) {
			if err := s.checkListed(ctx, src, c, "the index "+self+" of "+asked, self); err != nil {
				return nil, err
			}
		}
		src.claimed = up
	} else {
		src = &source{key: self, target: target, docs: map[model.Capability]string{}, authorities: []string{self, target}}
		notes = append(notes, fmt.Sprintf("%s has no up link to a Capability List: only it is read", self))
		if !sameDoc(self, d.url) {
			// An index link no Capability List vouches for.
			src.hops = append(src.hops, hop{from: d.url, to: self, index: true})
		}
	}
	src.lead(first)
	src.docs[c] = self
	src.notes = append(src.notes, notes...)
	return src, nil
}

// resolveCapList reads the Capability List at rawURL.
func (s *Dest) resolveCapList(ctx context.Context, rawURL, target string) (*source, error) {
	d, err := s.openDoc(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if c := d.hdr.MD.Capability; c != model.CapCapabilityList {
		return nil, fmt.Errorf("%s is a %s, not a Capability List", d.url, model.DocumentTitle(c, d.hdr.Root))
	}
	src := &source{key: d.url, capList: d.url, target: target, docs: map[model.Capability]string{}, authorities: []string{d.url, target}}
	src.addHop(d.hop())
	return src, readCapList(ctx, d, src)
}

// readCapList records the documents a Capability List offers (the first of
// each capability).
func readCapList(ctx context.Context, d *openedDoc, src *source) error {
	_, err := d.each(ctx, func(e *model.Entry, loc string) error {
		src.listed = append(src.listed, listed{url: loc, capability: e.MD.Capability})
		switch c := e.MD.Capability; c {
		case model.CapResourceList, model.CapResourceDump, model.CapChangeList, model.CapChangeDump:
			if _, seen := src.docs[c]; seen {
				src.notes = append(src.notes, fmt.Sprintf("the Capability List has more than one %s; the first, %s, is read", c.Title(), src.docs[c]))
				return nil
			}
			src.docs[c] = loc
		}
		return nil
	})
	return err
}

// errNoDocument is wrapped when a Source offers nothing to sync from.
var errNoDocument = errors.New("nothing to sync from")

// resolveLoc is model.ResolveHref(base, loc), without parsing a loc that is
// already an absolute http(s) URL in a plain form that resolving gives back
// unchanged: the common case, met a million times in a large list.
func resolveLoc(base, loc string) string {
	if plainAbsolute(loc) {
		return loc
	}
	return model.ResolveHref(base, loc)
}

// plainAbsolute reports whether s is http:// or https:// followed by
// letters, digits and -._~/:?&=+,; only, with no dot segment and no empty
// authority.
func plainAbsolute(s string) bool {
	var rest string
	switch {
	case strings.HasPrefix(s, "http://"):
		rest = s[len("http://"):]
	case strings.HasPrefix(s, "https://"):
		rest = s[len("https://"):]
	default:
		return false
	}
	if rest == "" || rest[0] == '/' || rest[0] == ':' || rest[0] == '?' {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("-_~/:?&=+,;", c) >= 0:
		case c == '.':
			// A dot segment ("." or ".." between slashes, or at the end)
			// is resolved away: those go the long way.
			if i > 0 && rest[i-1] == '/' {
				return false
			}
		default:
			return false
		}
	}
	return true
}
