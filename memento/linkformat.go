// Package memento reads Memento (RFC 7089) TimeMaps: the link-format (RFC 6690) they are written in, and the versions of a resource they list.
//
// It reads bytes and does no I/O: fetching TimeMaps and asking TimeGates is
// the session's.
package memento

import (
	"fmt"
	"strings"

	"rsx/model"
)

// Link is one link-value of a link-format document (RFC 6690 section 2):
// a target URI and its parameters.
type Link struct {
	Target string  // the URI-Reference between < and >, as written
	Params []Param // in document order
	Offset int     // byte offset of its '<' in the document
}

// Param is one link-param: a name and, unless it stands alone, a value
// (quotes and escapes undone).
type Param struct {
	Name     string // as written; names compare case-insensitively
	Value    string
	HasValue bool
}

// Param returns the value of the link's first parameter called name
// (case-insensitively).
func (l Link) Param(name string) (string, bool) {
	for _, p := range l.Params {
		if strings.EqualFold(p.Name, name) {
			return p.Value, true
		}
	}
	return "", false
}

// Rels returns the relation types of the link: the tokens of every rel
// parameter, which white space separates (RFC 8288 section 3.3).
func (l Link) Rels() []string {
	var out []string
	for _, p := range l.Params {
		if strings.EqualFold(p.Name, "rel") {
			out = append(out, strings.Fields(p.Value)...)
		}
	}
	return out
}

// HasRel tells whether the link has the relation type rel (registered
// relation types compare case-insensitively).
func (l Link) HasRel(rel string) bool {
	for _, r := range l.Rels() {
		if strings.EqualFold(r, rel) {
			return true
		}
	}
	return false
}

// String writes the link back in link-format, every value quoted.
func (l Link) String() string {
	lv := model.LinkValue{Target: l.Target, Offset: l.Offset}
	for _, p := range l.Params {
		lv.Params = append(lv.Params, model.LinkParam(p))
	}
	return lv.String()
}

// SyntaxError is a link-format document that does not parse: what was
// wrong and at which byte.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("link-format: byte %d: %s", e.Offset, e.Msg)
}

// ParseLinks parses a link-format document (RFC 6690 section 2) with the
// link-value grammar of model.ParseLinkValues, strictly: the first
// departure from it is a *SyntaxError, and then no links are returned.
// A document of white space only has no links.
func ParseLinks(data []byte) ([]Link, error) {
	lvs, errs := model.ParseLinkValues(string(data))
	if len(errs) > 0 {
		return nil, &SyntaxError{Offset: errs[0].Offset, Msg: errs[0].Msg}
	}
	var out []Link
	for _, lv := range lvs {
		l := Link{Target: lv.Target, Offset: lv.Offset}
		for _, p := range lv.Params {
			l.Params = append(l.Params, Param(p))
		}
		out = append(out, l)
	}
	return out, nil
}
