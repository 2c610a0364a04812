// Package memento reads Memento (RFC 7089) TimeMaps: the link-format (RFC 6690) they are written in, and the versions of a resource they list.
//
// It reads bytes and does no I/O: fetching TimeMaps and asking TimeGates is
// the session's.
package memento

import (
	"fmt"
	"strings"
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
	var b strings.Builder
	b.WriteString("<" + l.Target + ">")
	for _, p := range l.Params {
		b.WriteString(";" + p.Name)
		if p.HasValue {
			b.WriteString(`="` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(p.Value) + `"`)
		}
	}
	return b.String()
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

// ParseLinks parses a link-format document (RFC 6690 section 2):
//
//	link-value-list = [ link-value *[ "," link-value ] ]
//	link-value      = "<" URI-Reference ">" *( ";" link-param )
//	link-param      = parmname [ "=" ( ptoken / quoted-string ) ]
//
// As TimeMaps are written in practice, white space (spaces, tabs, line
// ends) is allowed around the separators, a value may be a token or a
// quoted string whatever the parameter, and a trailing comma is ignored.
// A document of white space only has no links.
func ParseLinks(data []byte) ([]Link, error) {
	p := &linkParser{s: string(data)}
	var out []Link
	p.space()
	for !p.end() {
		l, err := p.link()
		if err != nil {
			return out, err
		}
		out = append(out, l)
		p.space()
		if p.end() {
			break
		}
		if p.s[p.i] != ',' {
			return out, p.errorf("expected ',' or the end after a link, found %q", p.s[p.i])
		}
		p.i++
		p.space()
	}
	return out, nil
}

// linkParser reads a link-format document.
type linkParser struct {
	s string
	i int
}

func (p *linkParser) end() bool { return p.i >= len(p.s) }

func (p *linkParser) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, args...)}
}

// space skips white space.
func (p *linkParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

// link reads one link-value.
func (p *linkParser) link() (Link, error) {
	if p.s[p.i] != '<' {
		return Link{}, p.errorf("expected '<' to start a link, found %q", p.s[p.i])
	}
	l := Link{Offset: p.i}
	p.i++
	end := strings.IndexByte(p.s[p.i:], '>')
	if end < 0 {
		return Link{}, p.errorf("the link's '<' is never closed with '>'")
	}
	target := p.s[p.i : p.i+end]
	if j := strings.IndexAny(target, "<\r\n"); j >= 0 {
		p.i += j
		return Link{}, p.errorf("%q inside a link target", target[j])
	}
	l.Target = strings.TrimSpace(target)
	p.i += end + 1
	for {
		p.space()
		if p.end() || p.s[p.i] != ';' {
			return l, nil
		}
		p.i++
		p.space()
		prm, err := p.param()
		if err != nil {
			return Link{}, err
		}
		l.Params = append(l.Params, prm)
	}
}

// param reads one link-param.
func (p *linkParser) param() (Param, error) {
	start := p.i
	for p.i < len(p.s) && isParmChar(p.s[p.i]) {
		p.i++
	}
	if p.i == start {
		if p.end() {
			return Param{}, p.errorf("a parameter name is missing at the end")
		}
		return Param{}, p.errorf("expected a parameter name, found %q", p.s[p.i])
	}
	prm := Param{Name: p.s[start:p.i]}
	p.space()
	if p.end() || p.s[p.i] != '=' {
		return prm, nil
	}
	p.i++
	p.space()
	prm.HasValue = true
	if p.end() {
		return Param{}, p.errorf("the value of %s is missing", prm.Name)
	}
	if p.s[p.i] == '"' {
		v, err := p.quoted()
		if err != nil {
			return Param{}, err
		}
		prm.Value = v
		return prm, nil
	}
	start = p.i
	for p.i < len(p.s) && isPtokenChar(p.s[p.i]) {
		p.i++
	}
	if p.i == start {
		return Param{}, p.errorf("the value of %s is neither a token nor a quoted string: %q", prm.Name, p.s[p.i])
	}
	prm.Value = p.s[start:p.i]
	return prm, nil
}

// quoted reads a quoted-string (RFC 7230 section 3.2.6), escapes undone.
func (p *linkParser) quoted() (string, error) {
	open := p.i
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c == '\\' && p.i+1 < len(p.s):
			b.WriteByte(p.s[p.i+1])
			p.i += 2
		case c == '\\':
			p.i++
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	p.i = open
	return "", p.errorf("a quoted string is never closed")
}

// isParmChar tells whether c may be in a parameter name: parmname of RFC
// 5987 (a token of RFC 7230 without '*'), and '*' for ext-name-star.
func isParmChar(c byte) bool {
	return isAlnum(c) || strings.IndexByte("!#$&+-.^_`|~*", c) >= 0
}

// isPtokenChar tells whether c may be in an unquoted value: ptokenchar of
// RFC 6690.
func isPtokenChar(c byte) bool {
	return isAlnum(c) || strings.IndexByte("!#$%&'()*+-./:<=>?@[]^_`{|}~", c) >= 0
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
