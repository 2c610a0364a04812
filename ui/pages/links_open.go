package pages

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"rsx/model"
	"rsx/ui/common"
	"rsx/ui/components"
	"rsx/ui/nav"
)

// Links open what they point to: a ResourceSync document as a document, a
// TimeMap or TimeGate as the versions page, anything else (a memento, a
// mirror, a describedby page, an image) as a resource view held to what the
// link itself declares.

// documentRels are the relations whose target is a ResourceSync document.
var documentRels = []string{"up", "index", "contents", "resourcesync"}

// linkKind is what a link's target is opened as.
type linkKind uint8

const (
	linkResource linkKind = iota // a resource view
	linkDocument                 // a document
	linkVersions                 // the versions page
)

// kindOfLink says what the target of a link with relation rels is.
func kindOfLink(rels string) linkKind {
	for _, r := range documentRels {
		if model.HasRel(rels, r) {
			return linkDocument
		}
	}
	if model.HasRel(rels, "timemap") || model.HasRel(rels, "timegate") {
		return linkVersions
	}
	return linkResource
}

// linkEntry is the entry a link's target (at url) is held to: what the
// link itself declares of it (length, type, hash, modified), as a mirror's
// own attributes are (section 14.2). via says what the link is.
func linkEntry(l model.Link, url string) model.Entry {
	return model.Entry{Index: -1, Loc: url, Lastmod: l.Modified, MD: model.Metadata{
		Length: l.Length, LengthRaw: l.LengthRaw, LengthOK: l.LengthOK,
		Type: l.Type, Hash: l.Hash, HashRaw: l.HashRaw,
	}}
}

// openLinkCmd is the command that opens link l (its target at url) of the
// resource e, found in the document origin: pages are shown over the page
// that asks, so that esc comes back to it. A document is opened only as
// far as origin may lead (the root asks Backend.FollowLink).
func openLinkCmd(c *common.Common, b ResourceBackend, origin string, e model.Entry, l model.Link, url string) tea.Cmd {
	switch kindOfLink(l.Rel) {
	case linkDocument:
		return nav.Cmd(nav.OpenURLMsg{URL: url, From: origin})
	case linkVersions:
		refs, _ := VersionRefsOf(e)
		if model.HasRel(l.Rel, "timemap") {
			refs.TimeMap = url
		} else {
			refs.TimeGate = url
		}
		return nav.Push(NewVersions(c, b, origin, refs))
	}
	p := NewResource(c, b, origin, linkEntry(l, url))
	p.via = strings.Join(strings.Fields(l.Rel), " ") + " link of " + components.ShortURL(e.Loc)
	return nav.Push(p)
}

// VersionRefs are what an entry says of its resource's versions (section
// 14 of the specification, RFC 7089): the TimeMap, the TimeGate and the
// mementos it links to.
type VersionRefs struct {
	Original string       // the resource
	TimeMap  string       // "" when not linked
	TimeGate string       // "" when not linked
	Mementos []model.Link // the entry's memento links, hrefs resolved
}

// VersionRefsOf reads the version links of entry e (its Loc absolute); ok
// is false when it has none.
func VersionRefsOf(e model.Entry) (VersionRefs, bool) {
	r := VersionRefs{Original: e.Loc}
	ok := false
	for _, l := range e.Links {
		u := model.ResolveHref(e.Loc, l.Href)
		switch {
		case model.HasRel(l.Rel, "timemap") && r.TimeMap == "":
			r.TimeMap, ok = u, true
		case model.HasRel(l.Rel, "timegate") && r.TimeGate == "":
			r.TimeGate, ok = u, true
		}
		if model.HasRel(l.Rel, "memento") {
			l.Href = u
			r.Mementos = append(r.Mementos, l)
			ok = true
		}
	}
	return r, ok
}
