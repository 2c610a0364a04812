package fetch

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
)

// netrcEntry is one machine of a netrc file.
type netrcEntry struct {
	Machine  string // lowercased; "" for the default entry
	Login    string
	Password string
	Account  string
}

// readNetrc parses a netrc file. A missing or malformed file is an error:
// it was asked for.
func readNetrc(path string) ([]netrcEntry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read netrc %s: %w", path, err)
	}
	entries, err := parseNetrc(string(data))
	if err != nil {
		return nil, fmt.Errorf("read netrc %s: %w", path, err)
	}
	return entries, nil
}

// parseNetrc reads the tokens of a netrc file: "machine NAME", "default",
// then "login", "password", "account" with a value each. "macdef NAME" skips
// the macro up to the next empty line. Values may be double-quoted, with
// backslash escapes; "#" starts a comment where a token could start.
func parseNetrc(text string) ([]netrcEntry, error) {
	toks, err := netrcTokens(text)
	if err != nil {
		return nil, err
	}
	var (
		out []netrcEntry
		cur *netrcEntry
	)
	value := func(i int, key string) (string, error) {
		if i+1 >= len(toks) || toks[i+1].macro {
			return "", fmt.Errorf("line %d: %q without a value", toks[i].line, key)
		}
		return toks[i+1].text, nil
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.macro {
			continue
		}
		switch t.text {
		case "machine":
			v, err := value(i, t.text)
			if err != nil {
				return nil, err
			}
			out = append(out, netrcEntry{Machine: strings.ToLower(v)})
			cur = &out[len(out)-1]
			i++
		case "default":
			out = append(out, netrcEntry{})
			cur = &out[len(out)-1]
		case "login", "password", "account":
			v, err := value(i, t.text)
			if err != nil {
				return nil, err
			}
			i++
			if cur == nil {
				return nil, fmt.Errorf("line %d: %q before any machine", t.line, t.text)
			}
			switch t.text {
			case "login":
				cur.Login = v
			case "password":
				cur.Password = v
			default:
				cur.Account = v
			}
		case "macdef":
			// its name; the body was already set apart by the tokenizer
			if _, err := value(i, t.text); err != nil {
				return nil, err
			}
			i++
		default:
			return nil, fmt.Errorf("line %d: unexpected %q", t.line, t.text)
		}
	}
	return out, nil
}

type netrcToken struct {
	text  string
	line  int
	macro bool // the body of a macdef
}

func netrcTokens(s string) ([]netrcToken, error) {
	var toks []netrcToken
	line := 1
	i := 0
	for i < len(s) {
		ch := s[i]
		switch {
		case ch == '\n':
			line++
			i++
		case ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v':
			i++
		case ch == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case ch == '"':
			var b strings.Builder
			start := line
			i++
			closed := false
			for i < len(s) {
				c := s[i]
				if c == '"' {
					closed = true
					i++
					break
				}
				if c == '\\' && i+1 < len(s) {
					i++
					c = s[i]
				}
				if c == '\n' {
					line++
				}
				b.WriteByte(c)
				i++
			}
			if !closed {
				return nil, fmt.Errorf("line %d: unterminated quoted string", start)
			}
			toks = append(toks, netrcToken{text: b.String(), line: start})
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\r\n\f\v", rune(s[j])) {
				j++
			}
			tok := s[i:j]
			i = j
			toks = append(toks, netrcToken{text: tok, line: line})
			if tok == "macdef" {
				// name on this line, then the body up to an empty line
				for i < len(s) && s[i] != '\n' {
					j := i
					for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r') {
						j++
					}
					k := j
					for k < len(s) && !strings.ContainsRune(" \t\r\n", rune(s[k])) {
						k++
					}
					if k > j {
						toks = append(toks, netrcToken{text: s[j:k], line: line})
					}
					i = k
				}
				start := i
				for i < len(s) {
					if s[i] == '\n' {
						if i+1 >= len(s) || s[i+1] == '\n' || (s[i+1] == '\r' && i+2 < len(s) && s[i+2] == '\n') {
							break
						}
						line++
					}
					i++
				}
				toks = append(toks, netrcToken{text: s[start:min(i, len(s))], line: line, macro: true})
			}
		}
	}
	return toks, nil
}

// errNoNetrcEntry is internal: no machine matched.
var errNoNetrcEntry = errors.New("no netrc entry")

// netrcFor returns the credentials of the machine u is on. The default
// entry is never used: it would send a password to every host.
func (c *Client) netrcFor(u *url.URL) (user, pass string, ok bool) {
	e, err := lookupNetrc(c.netrc, u)
	if err != nil {
		return "", "", false
	}
	return e.Login, e.Password, true
}

// lookupNetrc finds the entry for u by host and port: "machine name:port"
// matches that port only, and a plain "machine name" the scheme's default
// port only (80 for http, 443 for https), so that credentials for one
// service are not sent to another one on the same host.
func lookupNetrc(entries []netrcEntry, u *url.URL) (netrcEntry, error) {
	host := CanonicalHost(u)
	defaultPort := u.Port() == "" || host == CanonicalHost(&url.URL{Scheme: u.Scheme, Host: u.Hostname()})
	name := strings.ToLower(strings.Trim(u.Hostname(), "[]"))
	for _, e := range entries {
		if e.Machine == "" || (e.Login == "" && e.Password == "") {
			continue
		}
		m := strings.ToLower(e.Machine)
		if h, p, err := net.SplitHostPort(m); err == nil {
			if net.JoinHostPort(strings.Trim(h, "[]"), p) == host {
				return e, nil
			}
			continue
		}
		if strings.Trim(m, "[]") == name && defaultPort {
			return e, nil
		}
	}
	return netrcEntry{}, errNoNetrcEntry
}
