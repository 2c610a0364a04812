package model

import (
	"iter"
	"net/url"
	"path/filepath"
	"strings"
)

// The rules for links and the URLs they hold, each in one place: which
// relation types a rel attribute lists, how an href resolves against the
// document it is in, and which targets may be followed from a document.

// RelTokens yields the relation types of a rel attribute: its tokens, which
// ASCII white space separates (section 7; RFC 8288 section 3.3).
func RelTokens(rels string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for s := rels; ; {
			for s != "" && isCheckSpace(s[0]) {
				s = s[1:]
			}
			n := 0
			for n < len(s) && !isCheckSpace(s[n]) {
				n++
			}
			if n == 0 || !yield(s[:n]) {
				return
			}
			s = s[n:]
		}
	}
}

// RelMatches tells whether the relation type tok is rel. Registered relation
// types compare case-insensitively (RFC 8288 section 2.1.1); extension
// relation types are URIs, such as RelPatch, and compare exactly.
func RelMatches(tok, rel string) bool {
	return tok == rel || (!strings.Contains(rel, ":") && strings.EqualFold(tok, rel))
}

// HasRel tells whether a rel attribute lists the relation type rel.
func HasRel(rels, rel string) bool {
	for tok := range RelTokens(rels) {
		if RelMatches(tok, rel) {
			return true
		}
	}
	return false
}

// LinkHrefs returns the hrefs of the links that have the relation type rel,
// in document order, each resolved against base (see ResolveHref). A link
// without an href attribute is left out; an empty href is the document
// itself.
func LinkHrefs(links []Link, rel, base string) []string {
	var out []string
	for i := range links {
		if l := &links[i]; l.HasHref && HasRel(l.Rel, rel) {
			out = append(out, ResolveHref(base, l.Href))
		}
	}
	return out
}

// ResolveHref resolves ref, a loc or an href with white space around it
// trimmed, against base: the URL of the document it was found in, or the
// path of a local file (then a relative ref is a path next to that file,
// and one that starts with "/" an absolute path). A ref or base that is not
// a URI reference gives the trimmed ref back, so that a problem shows with
// its text.
func ResolveHref(base, ref string) string {
	ref = strings.TrimSpace(ref)
	r, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	if isPath(base) {
		switch {
		case r.IsAbs():
			return ref
		case strings.HasPrefix(ref, "/"):
			return ref
		}
		return filepath.Join(filepath.Dir(base), filepath.FromSlash(ref))
	}
	b, err := url.Parse(base)
	if err != nil {
		return ref
	}
	return b.ResolveReference(r).String()
}

// IsHTTPURL tells whether target is an http or https URL (the scheme in any
// case). Only these are fetched over the network.
func IsHTTPURL(target string) bool {
	return hasPrefixFold(target, "http://") || hasPrefixFold(target, "https://")
}

// IsLocal tells whether target names a local file: a file:// URL, or a
// path (a string with no URI scheme, or a one-letter one: a Windows drive).
// A target that is neither local nor IsHTTPURL is never opened.
func IsLocal(target string) bool {
	if hasPrefixFold(target, "file://") {
		return true
	}
	return !IsHTTPURL(target) && len(uriScheme(target)) <= 1
}

// LocalPath is the path of a local target: a file:// URL without its
// "file://", a path as it is.
func LocalPath(target string) string {
	if hasPrefixFold(target, "file://") {
		return target[len("file://"):]
	}
	return target
}

// MayFollow tells whether a link to target, found in the document at from,
// may be followed: fetched or opened rather than only shown. An http(s)
// URL may always be; a local file only from a local document, so that a
// document from the network cannot make rsx read the files of the machine
// it runs on; anything else never.
func MayFollow(from, target string) bool {
	switch {
	case IsHTTPURL(target):
		return true
	case IsLocal(target):
		return IsLocal(from)
	}
	return false
}

// isPath tells whether a local target is a plain path, not a file:// URL.
func isPath(target string) bool {
	return IsLocal(target) && !hasPrefixFold(target, "file://")
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// uriScheme returns the URI scheme s starts with (RFC 3986 section 3.1), ""
// when it has none.
func uriScheme(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return s[:i]
		default:
			return ""
		}
	}
	return ""
}

// LinkHref returns the first document-level link of h with the relation type
// rel, resolved against base; "" when there is none, or when that link points
// at the document itself (an empty href), which leads nowhere.
func (h *Header) LinkHref(rel, base string) string {
	if h == nil {
		return ""
	}
	for i := range h.Links {
		if l := &h.Links[i]; l.HasHref && strings.TrimSpace(l.Href) != "" && HasRel(l.Rel, rel) {
			return ResolveHref(base, l.Href)
		}
	}
	return ""
}
