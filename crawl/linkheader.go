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
// The parser is lenient where it can be without guessing: a link-value that
// does not start with "<" is skipped up to the next top-level comma; commas
// inside <…> and inside quoted strings do not split link-values; quoted-pair
// escapes are honoured; a missing closing quote or ">" ends the value at the
// end of the field. Only the first rel parameter counts (RFC 8288 section 3.3).
func ParseLinkHeader(values []string) []WebLink {
	var links []WebLink
	for _, v := range values {
		links = parseLinkField(v, links)
	}
	return links
}

// linkScanner walks one field value.
type linkScanner struct {
	s string
	i int
}

func (p *linkScanner) eof() bool { return p.i >= len(p.s) }

func (p *linkScanner) skipOWS() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\r' || p.s[p.i] == '\n') {
		p.i++
	}
}

// skipToComma moves past the next comma that is outside quotes and angle
// brackets, or to the end.
func (p *linkScanner) skipToComma() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ',':
			p.i++
			return
		case '"':
			p.quoted()
		case '<':
			if j := strings.IndexByte(p.s[p.i:], '>'); j >= 0 {
				p.i += j + 1
			} else {
				p.i = len(p.s)
			}
		default:
			p.i++
		}
	}
}

// quoted reads a quoted-string starting at the opening quote and returns its
// unescaped content.
func (p *linkScanner) quoted() string {
	p.i++ // opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case '"':
			p.i++
			return b.String()
		case '\\':
			if p.i+1 < len(p.s) {
				b.WriteByte(p.s[p.i+1])
				p.i += 2
				continue
			}
		}
		b.WriteByte(c)
		p.i++
	}
	return b.String()
}

// token reads characters up to one of the stop bytes or whitespace.
func (p *linkScanner) token(stops string) string {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' || strings.IndexByte(stops, c) >= 0 {
			break
		}
		p.i++
	}
	return p.s[start:p.i]
}

func parseLinkField(s string, links []WebLink) []WebLink {
	p := &linkScanner{s: s}
	for {
		p.skipOWS()
		if p.eof() {
			return links
		}
		if p.s[p.i] == ',' { // empty list element
			p.i++
			continue
		}
		if p.s[p.i] != '<' {
			p.skipToComma()
			continue
		}
		end := strings.IndexByte(p.s[p.i:], '>')
		if end < 0 {
			return links // no closing bracket: nothing reliable left
		}
		link := WebLink{Target: strings.TrimSpace(p.s[p.i+1 : p.i+end])}
		p.i += end + 1
		relSeen := false
		for {
			p.skipOWS()
			if p.eof() {
				break
			}
			if p.s[p.i] == ',' {
				p.i++
				break
			}
			if p.s[p.i] != ';' {
				// Junk after the target or a parameter: drop it up to the
				// next link-value but keep what was read.
				p.skipToComma()
				break
			}
			p.i++
			p.skipOWS()
			name := strings.ToLower(p.token(";,="))
			p.skipOWS()
			param := LinkParam{Name: name, NoValue: true}
			if !p.eof() && p.s[p.i] == '=' {
				p.i++
				p.skipOWS()
				param.NoValue = false
				if !p.eof() && p.s[p.i] == '"' {
					param.Value = p.quoted()
				} else {
					param.Value = p.token(";,")
				}
			}
			if name == "" {
				continue
			}
			link.Params = append(link.Params, param)
			switch name {
			case "rel":
				if !relSeen {
					relSeen = true
					for r := range model.RelTokens(param.Value) {
						link.Rel = append(link.Rel, strings.ToLower(r))
					}
				}
			case "anchor":
				if link.Anchor == "" {
					link.Anchor = param.Value
				}
			}
		}
		links = append(links, link)
	}
}
