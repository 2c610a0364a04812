package model

import (
	"fmt"
	"strings"
)

// The link-value grammar, one parser for every reader of it: the HTTP Link
// header (RFC 8288 section 3, read by crawl for discovery) and link-format
// documents (RFC 6690 section 2, the TimeMaps that memento reads).
//
//	link-value-list = [ link-value *[ "," link-value ] ]
//	link-value      = "<" URI-Reference ">" *( ";" link-param )
//	link-param      = parmname [ "=" ( ptoken / quoted-string ) ]
//
// As both are written in practice, white space (spaces, tabs, line ends) is
// allowed around the separators, a value may be a token or a quoted string
// whatever the parameter, and a trailing comma is ignored.

// LinkValue is one link-value: a target and its parameters.
type LinkValue struct {
	Target string      // the URI-Reference between < and >, white space trimmed
	Params []LinkParam // in order
	Offset int         // byte offset of its '<' in the text parsed
}

// String writes the link-value back in the grammar, every value quoted.
func (l LinkValue) String() string {
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

// LinkParam is one link-param: a name as written (names compare
// case-insensitively) and, unless it stands alone, a value with quotes and
// escapes undone.
type LinkParam struct {
	Name     string
	Value    string
	HasValue bool
}

// LinkSyntaxError is a departure from the link-value grammar: what was
// wrong and at which byte.
type LinkSyntaxError struct {
	Offset int
	Msg    string
}

func (e *LinkSyntaxError) Error() string {
	return fmt.Sprintf("byte %d: %s", e.Offset, e.Msg)
}

// ParseLinkValues parses a list of link-values. It reads every link-value
// it can and reports each departure from the grammar, in the order met;
// a reader that wants the grammar kept takes the first error, one that wants
// every link it can get (a Link header, where one broken link must not hide
// the others) ignores them. Where the text departs from the grammar:
//
//   - a list element that does not start with "<" (an empty one but the
//     last included) is skipped up to the next comma outside quotes and
//     angle brackets;
//   - a link whose "<" is never closed ends the list;
//   - "<", CR or LF inside a target is kept in it;
//   - a parameter without a name is dropped;
//   - a name or an unquoted value with characters the grammar does not allow
//     (anything but white space, ";" and ",") is kept as written;
//   - a quoted string that is never closed runs to the end of the text;
//   - anything else after a link's target or parameters is skipped up to
//     the next comma outside quotes and angle brackets, and the link, as far
//     as it was read, is kept.
func ParseLinkValues(s string) ([]LinkValue, []*LinkSyntaxError) {
	p := &linkValueParser{s: s}
	p.list()
	return p.links, p.errs
}

// linkValueParser reads one list of link-values.
type linkValueParser struct {
	s     string
	i     int
	links []LinkValue
	errs  []*LinkSyntaxError
}

func (p *linkValueParser) end() bool { return p.i >= len(p.s) }

func (p *linkValueParser) fail(at int, format string, args ...any) {
	p.errs = append(p.errs, &LinkSyntaxError{Offset: at, Msg: fmt.Sprintf(format, args...)})
}

func isLinkSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// space skips white space.
func (p *linkValueParser) space() {
	for p.i < len(p.s) && isLinkSpace(p.s[p.i]) {
		p.i++
	}
}

func (p *linkValueParser) list() {
	p.space()
	for !p.end() {
		if p.s[p.i] != '<' {
			p.fail(p.i, "expected '<' to start a link, found %q", p.s[p.i])
			p.skipToComma()
		} else if !p.link() {
			return
		}
		p.space()
	}
}

// skipToComma moves past the next comma outside quotes and angle brackets,
// or to the end.
func (p *linkValueParser) skipToComma() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ',':
			p.i++
			return
		case '"':
			p.quoted(false)
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

// link reads one link-value and what ends it (a comma or the end); false
// when nothing more can be read.
func (p *linkValueParser) link() bool {
	l := LinkValue{Offset: p.i}
	p.i++
	end := strings.IndexByte(p.s[p.i:], '>')
	if end < 0 {
		p.fail(p.i, "the link's '<' is never closed with '>'")
		return false
	}
	target := p.s[p.i : p.i+end]
	if j := strings.IndexAny(target, "<\r\n"); j >= 0 {
		p.fail(p.i+j, "%q inside a link target", target[j])
	}
	l.Target = strings.TrimSpace(target)
	p.i += end + 1
	for {
		p.space()
		if p.end() {
			break
		}
		if c := p.s[p.i]; c == ',' {
			p.i++
			break
		} else if c != ';' {
			p.fail(p.i, "expected ',' or the end after a link, found %q", c)
			p.skipToComma()
			break
		}
		p.i++
		p.space()
		if prm, ok := p.param(); ok {
			l.Params = append(l.Params, prm)
		}
	}
	p.links = append(p.links, l)
	return true
}

// param reads one link-param; false for one without a name.
func (p *linkValueParser) param() (LinkParam, bool) {
	start := p.i
	for p.i < len(p.s) && !isLinkSpace(p.s[p.i]) && strings.IndexByte(";,=", p.s[p.i]) < 0 {
		p.i++
	}
	prm := LinkParam{Name: p.s[start:p.i]}
	switch {
	case prm.Name == "" && p.end():
		p.fail(p.i, "a parameter name is missing at the end")
	case prm.Name == "":
		p.fail(p.i, "expected a parameter name, found %q", p.s[p.i])
	default:
		for j := 0; j < len(prm.Name); j++ {
			if !isParmChar(prm.Name[j]) {
				p.fail(start+j, "%q in the parameter name %q", prm.Name[j], prm.Name)
				break
			}
		}
	}
	p.space()
	if p.end() || p.s[p.i] != '=' {
		return prm, prm.Name != ""
	}
	p.i++
	p.space()
	prm.HasValue = true
	switch {
	case p.end():
		p.fail(p.i, "the value of %s is missing", prm.Name)
	case p.s[p.i] == '"':
		prm.Value = p.quoted(true)
	default:
		start := p.i
		for p.i < len(p.s) && !isLinkSpace(p.s[p.i]) && p.s[p.i] != ';' && p.s[p.i] != ',' {
			p.i++
		}
		prm.Value = p.s[start:p.i]
		if prm.Value == "" {
			p.fail(p.i, "the value of %s is neither a token nor a quoted string: %q", prm.Name, p.s[p.i])
		}
		for j := 0; j < len(prm.Value); j++ {
			if !isPtokenChar(prm.Value[j]) {
				p.fail(start+j, "the value of %s is neither a token nor a quoted string: %q in it", prm.Name, prm.Value[j])
				break
			}
		}
	}
	return prm, prm.Name != ""
}

// quoted reads a quoted-string (RFC 9110 section 5.6.4) starting at its
// opening quote and returns its content, escapes undone; one that is never
// closed runs to the end (report says whether that is an error or the
// string is only being skipped).
func (p *linkValueParser) quoted(report bool) string {
	open := p.i
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String()
		case c == '\\' && p.i+1 < len(p.s):
			b.WriteByte(p.s[p.i+1])
			p.i += 2
			continue
		}
		b.WriteByte(c)
		p.i++
	}
	if report {
		p.fail(open, "a quoted string is never closed")
	}
	return b.String()
}

// isParmChar tells whether c may be in a parameter name: parmname of RFC
// 5987 (a token of RFC 9110 without '*'), and '*' for ext-name-star.
func isParmChar(c byte) bool {
	return isLinkAlnum(c) || strings.IndexByte("!#$&+-.^_`|~*", c) >= 0
}

// isPtokenChar tells whether c may be in an unquoted value: ptokenchar of
// RFC 6690.
func isPtokenChar(c byte) bool {
	return isLinkAlnum(c) || strings.IndexByte("!#$%&'()*+-./:<=>?@[]^_`{|}~", c) >= 0
}

func isLinkAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
