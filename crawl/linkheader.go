package crawl

import (
	"net/url"
	"rsx/model"
	"strings"
)

// WebLink is one link of an HTTP Link header (RFC 8288, section 3).
type WebLink struct {
	// Target is the target URI as written between < and >.
	Target string
	// Rel holds the relation types of the first rel parameter, lower-cased
	// (relation types compare case-insensitively, RFC 8288 section 2.1.1).
	Rel []string
	// Anchor is the anchor parameter as written, "" when absent.
	Anchor string
	// Params are every parameter in order, names lower-cased, values unquoted.
	// A parameter without a value has Value "" and NoValue true.
	Params []LinkParam
}

// LinkParam is one target attribute of a link-value.
type LinkParam struct {
	Name    string
	Value   string
	NoValue bool
}

// HasRel reports whether the link has relation type rel (see
// model.RelMatches: registered types compare case-insensitively).
func (l WebLink) HasRel(rel string) bool {
	for _, r := range l.Rel {
		if model.RelMatches(r, rel) {
			return true
		}
	}
	return false
}

// Param returns the value of the first parameter named name.
func (l WebLink) Param(name string) (string, bool) {
	for _, p := range l.Params {
		if strings.EqualFold(p.Name, name) {
			return p.Value, true
		}
	}
	return "", false
}

// Resolve returns the link's target resolved against base, the URL of the
// response that carried the header (its final URL after redirects); the
// error is for a target that is not a URI reference.
func (l WebLink) Resolve(base string) (string, error) {
	if _, err := url.Parse(strings.TrimSpace(l.Target)); err != nil {
		return "", err
	}
	return model.ResolveHref(base, l.Target), nil
}

// ParseLinkHeader parses the values of every Link header field of a response
// (pass header.Values("Link")). Several fields are treated as one
// comma-separated list, as RFC 9110 section 5.3 allows.
//
// The grammar is model.ParseLinkValues's, read leniently: a link-value that
// does not parse is skipped, what can be read of one is kept (see there),
// and the errors are not reported: a Link header is read for the links it
// has, and one broken link must not hide the others. Only the first rel
// parameter counts (RFC 8288 section 3.3).
func ParseLinkHeader(values []string) []WebLink {
	var links []WebLink
	for _, v := range values {
		lvs, _ := model.ParseLinkValues(v)
		for _, lv := range lvs {
			links = append(links, webLink(lv))
		}
	}
	return links
}

// webLink is a parsed link-value as a WebLink: names lower-cased, the first
// rel parameter's types lower-cased, the first anchor parameter.
func webLink(lv model.LinkValue) WebLink {
	link := WebLink{Target: lv.Target}
	if len(lv.Params) > 0 {
		link.Params = make([]LinkParam, 0, len(lv.Params))
	}
	relSeen := false
	for _, p := range lv.Params {
		name := strings.ToLower(p.Name)
		link.Params = append(link.Params, LinkParam{Name: name, Value: p.Value, NoValue: !p.HasValue})
		switch name {
		case "rel":
			if !relSeen {
				relSeen = true
				for r := range model.RelTokens(p.Value) {
					link.Rel = append(link.Rel, strings.ToLower(r))
				}
			}
		case "anchor":
			if link.Anchor == "" {
				link.Anchor = p.Value
			}
		}
	}
	return link
}
