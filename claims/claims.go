package claims

import (
	"net/url"
	"sort"

	"rsx/model"
)

// Claims is what a document declares about a resource or one of its mirrors.
type Claims struct {
	Length    int64
	LengthRaw string // the length attribute as written; "" when none
	LengthOK  bool   // LengthRaw is a valid length
	Type      string // media type as written, parameters allowed; "" when none
	Lastmod   model.Datetime
	Hash      model.HashList

	// Gone says the resource is expected to have been deleted: a 404 or
	// 410 is what must be found, and nothing else is compared. OfEntry never
	// sets it; a caller that knows of a deletion (a Change List read after
	// the Resource List) does.
	Gone bool
}

// OfEntry is what an entry declares about its resource.
func OfEntry(e model.Entry) Claims {
	return Claims{
		Length: e.MD.Length, LengthRaw: e.MD.LengthRaw, LengthOK: e.MD.LengthOK,
		Type: e.MD.Type, Lastmod: e.Lastmod, Hash: e.MD.Hash,
	}
}

// OfMirror is what a mirror link of entry e is held to: its own attributes
// where the link has them, the entry's otherwise (section 14.2: a mirror's
// metadata is the resource's and should be left out of the link).
func OfMirror(e model.Entry, l model.Link) Claims {
	c := OfEntry(e)
	if l.HashRaw != "" {
		c.Hash = l.Hash
	}
	if l.LengthRaw != "" {
		c.Length, c.LengthRaw, c.LengthOK = l.Length, l.LengthRaw, l.LengthOK
	}
	if l.Type != "" {
		c.Type = l.Type
	}
	if l.Modified.Present() {
		c.Lastmod = l.Modified
	}
	return c
}

// Target is one location to check and the claims it is held to: a resource,
// or one of its mirrors.
type Target struct {
	URL    string // absolute; a mirror's href resolved against the resource's URI
	Claims Claims
	Mirror int // 0 for the resource itself, n for its n-th mirror in pri order
	Pri    int // the mirror's pri (model.MaxPri when absent or invalid); 0 for the resource
	Link   int // index of the mirror's link in the entry's Links; -1 for the resource
}

// Targets returns the resource of entry e (whose Loc must be absolute)
// followed by its mirrors in pri order.
func Targets(e model.Entry) []Target {
	order := MirrorOrder(e.Links)
	out := make([]Target, 0, 1+len(order))
	out = append(out, Target{URL: e.Loc, Claims: OfEntry(e), Link: -1})
	for n, i := range order {
		l := e.Links[i]
		out = append(out, Target{
			URL: model.ResolveHref(e.Loc, l.Href), Claims: OfMirror(e, l),
			Mirror: n + 1, Pri: linkPri(l), Link: i,
		})
	}
	return out
}

// MirrorOrder returns the indexes into links of the mirror links
// (rel="duplicate"), lowest pri first, ties in document order.
func MirrorOrder(links []model.Link) []int {
	var idx []int
	for i, l := range links {
		if model.HasRel(l.Rel, "duplicate") {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return linkPri(links[idx[a]]) < linkPri(links[idx[b]]) })
	return idx
}

// Fetchable reports whether Check fetches u: http and https URLs with a
// host only, so that a document cannot make a checker read local files or
// speak other protocols.
func Fetchable(u string) bool {
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "http" || p.Scheme == "https") && p.Host != ""
}

// linkPri is a link's priority: model.MaxPri when absent or invalid (section 7).
func linkPri(l model.Link) int {
	if l.PriRaw == "" || !l.PriOK {
		return model.MaxPri
	}
	return l.Pri
}
