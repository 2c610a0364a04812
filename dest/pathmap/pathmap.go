package pathmap

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"rsx/display"
	"rsx/fetch"
)

// DefaultIndexName is the name given to a URI whose path ends with "/".
const DefaultIndexName = "index.html"

// MaxNameBytes is the longest name (one path segment) a mapped path holds.
const MaxNameBytes = 255

// ReservedDir is the top-level folder where a destination keeps its own files
// (state, lock, temporaries); no mapped path starts with it.
const ReservedDir = ".rsx"

// ErrorKind says why a URI has no path.
type ErrorKind uint8

const (
	KindInvalid ErrorKind = iota + 1 // not an absolute URI with a host
	KindScheme                       // a scheme other than http or https
	KindOutside                      // outside the Source's authority, and not allowed
)

// Error is a URI that cannot be mapped.
type Error struct {
	URI    string
	Kind   ErrorKind
	Reason string
}

func (e *Error) Error() string {
	return "map " + strconv.Quote(e.URI) + " to a path: " + e.Reason
}

// Rule is one --map rule: URIs starting with Prefix go under Dir.
type Rule struct {
	Prefix string // normalised as URIs are before matching
	Dir    string // relative, "/"-separated, cleaned; "" is the destination's top
}

// String gives the rule in the PREFIX=DIR form ParseRule reads.
func (r Rule) String() string {
	dir := r.Dir
	if dir == "" {
		dir = "."
	}
	return r.Prefix + "=" + dir
}

// ParseRule reads a rule written PREFIX=DIR. PREFIX is an absolute http or https
// URI (or the start of one, with at least a host); DIR is a relative path inside
// the destination, "." for its top.
func ParseRule(s string) (Rule, error) {
	eq := strings.LastIndexByte(s, '=')
	if eq < 0 {
		return Rule{}, errors.New("map rule " + strconv.Quote(s) + ": want PREFIX=DIR")
	}
	prefix, dir := s[:eq], s[eq+1:]
	p, perr := parse(prefix)
	if perr != nil {
		return Rule{}, errors.New("map rule " + strconv.Quote(s) + ": prefix: " + perr.Reason)
	}
	cleaned, err := cleanDir(dir)
	if err != nil {
		return Rule{}, errors.New("map rule " + strconv.Quote(s) + ": " + err.Error())
	}
	return Rule{Prefix: p.normalized(), Dir: cleaned}, nil
}

// cleanDir checks a rule's folder: relative, no "..", every name already safe.
func cleanDir(dir string) (string, error) {
	if strings.HasPrefix(dir, "/") {
		return "", errors.New("folder " + strconv.Quote(dir) + " must be relative to the destination")
	}
	var out []string
	for _, seg := range strings.Split(dir, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			return "", errors.New("folder " + strconv.Quote(dir) + " must not contain ..")
		}
		if safe := finish(name(seg)); safe != seg {
			return "", errors.New("folder name " + strconv.Quote(seg) + " is not safe in a file name (it would be written " + strconv.Quote(safe) + ")")
		}
		out = append(out, seg)
	}
	if len(out) > 0 && isReservedTop(out[0]) {
		return "", errors.New("folder " + strconv.Quote(dir) + " is where the destination keeps its own files")
	}
	return strings.Join(out, "/"), nil
}

// Options configure a Mapper.
type Options struct {
	// Authorities are the hosts whose resources may be copied: URLs (their host
	// and port are taken) or host[:port]. Normally the Capability List's.
	Authorities []string
	// AllowOtherHosts maps resources of any host.
	AllowOtherHosts bool
	// Rules are the --map rules; the longest matching prefix wins.
	Rules []Rule
	// IndexName names the index of a folder (a path ending with "/");
	// DefaultIndexName when empty.
	IndexName string
}

// Mapper maps URIs to paths. It holds no state beyond its options and is safe
// for concurrent use.
type Mapper struct {
	rules      []Rule // longest prefix first
	auth       map[string]bool
	allowOther bool
	index      string
	// inside are the beginnings of URIs whose authority is one of auth as
	// parse gives it ("http://example.org/"): Outside needs no parse of
	// those (see insidePrefixes).
	inside []string
}

// New checks the options and returns a Mapper.
func New(opts Options) (*Mapper, error) {
	m := &Mapper{auth: map[string]bool{}, allowOther: opts.AllowOtherHosts, index: opts.IndexName}
	if m.index == "" {
		m.index = DefaultIndexName
	}
	if m.index == "." || m.index == ".." || strings.Contains(m.index, "/") || finish(name(m.index)) != m.index {
		return nil, errors.New("index name " + strconv.Quote(m.index) + " is not a safe file name")
	}
	for _, a := range opts.Authorities {
		if a == "" {
			continue
		}
		norm, err := Authority(a)
		if err != nil {
			return nil, err
		}
		m.auth[norm] = true
	}
	m.inside = insidePrefixes(m.auth)
	seen := map[string]bool{}
	for _, r := range opts.Rules {
		if seen[r.Prefix] {
			return nil, errors.New("map rule prefix " + strconv.Quote(r.Prefix) + " is given twice")
		}
		seen[r.Prefix] = true
		if _, err := cleanDir(r.Dir); err != nil {
			return nil, errors.New("map rule " + strconv.Quote(r.String()) + ": " + err.Error())
		}
		m.rules = append(m.rules, r)
	}
	sort.SliceStable(m.rules, func(i, j int) bool { return len(m.rules[i].Prefix) > len(m.rules[j].Prefix) })
	return m, nil
}

// IndexName is the name a folder's index gets.
func (m *Mapper) IndexName() string { return m.index }

// Authority returns the normalised authority (host, then ":port" when it is not
// the scheme's default) of a URL, or of a bare host[:port].
func Authority(s string) (string, error) {
	in := s
	if !strings.Contains(s, "://") {
		in = "http://" + s
	}
	p, err := parse(in)
	if err != nil {
		return "", errors.New("authority of " + strconv.Quote(s) + ": " + err.Reason)
	}
	return p.authority, nil
}

// Map returns the path of uri's copy, relative to the destination and
// "/"-separated, or an *Error.
func (m *Mapper) Map(uri string) (string, error) {
	p, perr := parse(uri)
	if perr != nil {
		perr.URI = uri
		return "", perr
	}
	nu := p.normalized()
	var base, rest string
	matched := false
	for _, r := range m.rules {
		if tail, ok := matchPrefix(nu, r.Prefix); ok {
			base, rest, matched = r.Dir, tail, true
			break
		}
	}
	if !matched {
		if !m.allowOther && !m.auth[p.authority] {
			return "", &Error{URI: uri, Kind: KindOutside, Reason: "host " + p.authority + " is outside the Source's authority"}
		}
		base, rest = hostName(p.authority), nu[len(p.scheme)+3+len(p.authority):]
	}

	restPath, query, hasQuery := strings.Cut(rest, "?")
	var b strings.Builder
	b.Grow(len(base) + len(rest) + 16)
	b.WriteString(base)
	segs := strings.Split(restPath, "/")
	last := ""
	for i, seg := range segs {
		if seg == "" {
			continue
		}
		if i == len(segs)-1 {
			last = seg
			break
		}
		writeSep(&b)
		b.WriteString(finish(name(seg)))
	}
	var lastName string
	if last == "" {
		lastName = m.index
	} else {
		lastName = name(last)
	}
	if hasQuery {
		lastName += "%3F" + queryName(query)
	}
	writeSep(&b)
	b.WriteString(finish(lastName))
	out := b.String()
	first, _, _ := strings.Cut(out, "/")
	if isReservedTop(first) {
		out = escapeFirst(out)
	}
	return out, nil
}

// Outside reports whether Map refuses uri as outside the Source's
// authority (an *Error of KindOutside), without making its path: an audit
// asks it of every entry of the Resource List.
func (m *Mapper) Outside(uri string) bool {
	for _, pre := range m.inside {
		if strings.HasPrefix(uri, pre) {
			// Its authority is one of the Source's, or it is not a URI
			// parse takes (KindInvalid): either way Map does not refuse
			// it as outside.
			return false
		}
	}
	p, perr := parse(uri)
	if perr != nil {
		return perr.Kind == KindOutside
	}
	nu := p.normalized()
	for _, r := range m.rules {
		if _, ok := matchPrefix(nu, r.Prefix); ok {
			return false
		}
	}
	return !m.allowOther && !m.auth[p.authority]
}

// insidePrefixes returns, for each normalised authority, the beginnings
// "http://AUTHORITY/" and "https://AUTHORITY/" of the URIs parse gives that
// authority: the authority is everything between "//" and the first "/", as
// written (lower case, no default port: an authority with the port that is
// the scheme's default gets no prefix for that scheme, since parse drops
// the port). A URI that does not start so is parsed.
func insidePrefixes(auth map[string]bool) []string {
	var out []string
	for a := range auth {
		for _, s := range []struct{ scheme, port string }{{"http", ":80"}, {"https", ":443"}} {
			if !strings.HasSuffix(a, s.port) {
				out = append(out, s.scheme+"://"+a+"/")
			}
		}
	}
	sort.Strings(out)
	return out
}

func writeSep(b *strings.Builder) {
	if b.Len() > 0 {
		b.WriteByte('/')
	}
}

// matchPrefix reports whether prefix starts uri on a segment boundary, and
// returns the rest of uri (starting with "/" or "?" or empty, or anything after
// a prefix that ends with "/").
func matchPrefix(uri, prefix string) (string, bool) {
	if !strings.HasPrefix(uri, prefix) {
		return "", false
	}
	rest := uri[len(prefix):]
	if strings.HasSuffix(prefix, "/") || rest == "" || rest[0] == '/' || rest[0] == '?' {
		return rest, true
	}
	return "", false
}

// Parents returns the folders of a '/'-separated path, outermost first:
// a/b/c gives a and a/b.
func Parents(p string) []string {
	var out []string
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	return out
}

// Key is the form of a path used to find collisions: case-folded (and in NFC,
// as every mapped path is), so that paths one case-insensitive file system
// would store as one file have the same key.
//
// A path of ASCII alone (nearly every one) is its own NFC form and folds to
// its lower case (Unicode's case folding maps nothing else in ASCII): that
// is done here, without the Unicode tables, which cost most of what the
// state's record of a resource cost beside SQLite.
func Key(path string) string {
	upper := false
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c >= utf8.RuneSelf {
			return cases.Fold().String(norm.NFC.String(path))
		}
		if 'A' <= c && c <= 'Z' {
			upper = true
		}
	}
	if !upper {
		return path
	}
	b := []byte(path)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

// parsedURI is a URI split into the parts the mapping uses.
type parsedURI struct {
	scheme    string // lower case
	authority string // normalised host[:port]
	path      string // percent-normalised, dot segments removed, starts with "/"
	query     string // percent-normalised
	hasQuery  bool
}

func (p parsedURI) normalized() string {
	s := p.scheme + "://" + p.authority + p.path
	if p.hasQuery {
		s += "?" + p.query
	}
	return s
}

func parse(raw string) (parsedURI, *Error) {
	var p parsedURI
	// A loc that is not strictly a URI (a stray "%", a control character)
	// is taken as a browser would send it: the path of what is fetched.
	raw = fetch.RequestURL(raw)
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		msg := err.Error()
		if errors.As(err, &ue) {
			msg = ue.Err.Error()
		}
		return p, &Error{URI: raw, Kind: KindInvalid, Reason: "not a valid URI: " + msg}
	}
	if !u.IsAbs() {
		return p, &Error{URI: raw, Kind: KindInvalid, Reason: "not an absolute URI"}
	}
	p.scheme = strings.ToLower(u.Scheme)
	if p.scheme != "http" && p.scheme != "https" {
		return p, &Error{URI: raw, Kind: KindScheme, Reason: "scheme " + strconv.Quote(u.Scheme) + " is not http or https"}
	}
	if u.Opaque != "" {
		return p, &Error{URI: raw, Kind: KindInvalid, Reason: "no host"}
	}
	host := u.Hostname()
	if host == "" {
		return p, &Error{URI: raw, Kind: KindInvalid, Reason: "no host"}
	}
	if strings.HasPrefix(u.Host, "[") {
		host = "[" + strings.ToLower(host) + "]"
	} else if isASCII(host) {
		host = strings.ToLower(host)
	} else {
		a, err := idna.Lookup.ToASCII(host)
		if err != nil {
			return p, &Error{URI: raw, Kind: KindInvalid, Reason: "host " + strconv.Quote(host) + ": " + err.Error()}
		}
		host = a
	}
	p.authority = host
	if port := u.Port(); port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n > 65535 {
			return p, &Error{URI: raw, Kind: KindInvalid, Reason: "port " + strconv.Quote(port) + " out of range"}
		}
		if !(p.scheme == "http" && n == 80) && !(p.scheme == "https" && n == 443) {
			p.authority += ":" + strconv.Itoa(n)
		}
	}

	// The raw path and query, as written: url.URL decodes them, losing %2F.
	rest := raw[strings.Index(raw, "//")+2:]
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[i:]
	} else {
		rest = ""
	}
	rest, _, _ = strings.Cut(rest, "#")
	path, query, hasQuery := strings.Cut(rest, "?")
	p.path = removeDots(normalizePercent(path))
	p.query, p.hasQuery = normalizePercent(query), hasQuery
	return p, nil
}

// normalizePercent decodes escapes of unreserved characters, writes the hex of
// every other escape in upper case, and writes a "%" that starts no escape as %25.
func normalizePercent(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				writeEscape(&b, v)
			}
			i += 2
			continue
		}
		b.WriteString("%25")
	}
	return b.String()
}

// removeDots resolves "." and ".." segments (RFC 3986 section 5.2.4) without
// ever climbing above the top, and always returns a path starting with "/".
func removeDots(path string) string {
	if path == "" {
		return "/"
	}
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	out := make([]string, 0, len(segs))
	trailing := false
	for i, seg := range segs {
		lastSeg := i == len(segs)-1
		switch seg {
		case ".":
			trailing = lastSeg
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			trailing = lastSeg
		default:
			out = append(out, seg)
			trailing = false
		}
	}
	s := "/" + strings.Join(out, "/")
	if trailing && len(out) > 0 {
		s += "/"
	}
	return s
}

// name turns one segment of a normalised URI into a safe file name (before the
// trailing-character, reserved-name and length rules that finish applies).
func name(seg string) string { return decodeName(seg, false, false) }

// queryName is name for a query, which follows an escaped "?" and where "/" is
// one more character to escape.
func queryName(q string) string { return decodeName(q, true, true) }

// decodeName decodes and escapes s; preceded tells that text will stand before
// the result, as an escape stands before a query.
func decodeName(s string, escapeSlash, preceded bool) string {
	var b strings.Builder
	b.Grow(len(s))
	run := make([]byte, 0, len(s))
	flush := func() {
		if len(run) == 0 {
			return
		}
		text := norm.NFC.Bytes(run)
		run = run[:0]
		if b.Len() > 0 || preceded {
			// Combining marks at the start of a run would compose with the
			// character before them (the last hex digit of an escape): escape them,
			// so that the name stays in NFC as a whole and its escapes intact.
			k := norm.NFC.FirstBoundary(text)
			if k < 0 {
				k = len(text)
			}
			for _, c := range text[:k] {
				writeEscape(&b, c)
			}
			text = text[k:]
		}
		b.Write(text)
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if v < 0x80 {
				if v == ' ' || isUnreserved(v) {
					run = append(run, v)
				} else {
					flush()
					writeEscape(&b, v)
				}
				i += 3
				continue
			}
			// A run of escaped bytes of non-ASCII: decode the valid UTF-8 in it.
			var buf []byte
			j := i
			for j+2 < len(s) && s[j] == '%' && isHex(s[j+1]) && isHex(s[j+2]) {
				w := unhex(s[j+1])<<4 | unhex(s[j+2])
				if w < 0x80 {
					break
				}
				buf = append(buf, w)
				j += 3
			}
			for k := 0; k < len(buf); {
				r, size := utf8.DecodeRune(buf[k:])
				if r == utf8.RuneError && size <= 1 {
					flush()
					writeEscape(&b, buf[k])
					k++
					continue
				}
				if display.Unsafe(r) {
					flush()
					for _, v := range buf[k : k+size] {
						writeEscape(&b, v)
					}
				} else {
					run = append(run, buf[k:k+size]...)
				}
				k += size
			}
			i = j
		case c == '%':
			flush()
			b.WriteString("%25")
			i++
		case c < 0x20 || c == 0x7f || strings.IndexByte(`\:*?"<>|`, c) >= 0 || (escapeSlash && c == '/'):
			flush()
			writeEscape(&b, c)
			i++
		case c >= 0x80:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size <= 1 {
				flush()
				writeEscape(&b, c)
				i++
				continue
			}
			if display.Unsafe(r) {
				flush()
				for k := i; k < i+size; k++ {
					writeEscape(&b, s[k])
				}
			} else {
				run = append(run, s[i:i+size]...)
			}
			i += size
		default:
			run = append(run, c)
			i++
		}
	}
	flush()
	return b.String()
}

// finish applies the rules that concern a whole name: a trailing "." or " ",
// the names Windows reserves, and the length limit.
func finish(n string) string {
	if n == "" {
		return n
	}
	switch n[len(n)-1] {
	case '.':
		n = n[:len(n)-1] + "%2E"
	case ' ':
		n = n[:len(n)-1] + "%20"
	}
	if isDeviceName(n) {
		n = escapeFirst(n)
	}
	if len(n) > MaxNameBytes {
		n = shorten(n)
	}
	return n
}

// shorten cuts a long name and makes it unique again with a hash of the whole.
func shorten(n string) string {
	sum := sha256.Sum256([]byte(n))
	ext := ""
	if dot := strings.LastIndexByte(n, '.'); dot > 0 && len(n)-dot <= 16 {
		ext = n[dot:]
	}
	suffix := "~" + hex.EncodeToString(sum[:8]) + ext
	cut := MaxNameBytes - len(suffix)
	for cut > 0 && !utf8.RuneStart(n[cut]) {
		cut--
	}
	// Never split an escape: %XX is three bytes that belong together.
	if cut >= 1 && n[cut-1] == '%' {
		cut--
	} else if cut >= 2 && n[cut-2] == '%' {
		cut -= 2
	}
	return n[:cut] + suffix
}

// hostName is the first name of a default path: the host, then "+port".
func hostName(authority string) string {
	host, port := authority, ""
	if i := strings.LastIndexByte(authority, ':'); i >= 0 && !strings.HasSuffix(authority, "]") {
		host, port = authority[:i], authority[i+1:]
	}
	n := decodeName(host, true, false)
	if port != "" {
		n += "+" + port
	}
	return finish(n)
}

var deviceNames = []string{"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"}

// isDeviceName reports a name Windows reserves, with or without an extension.
func isDeviceName(n string) bool {
	base, _, _ := strings.Cut(n, ".")
	base = strings.TrimRight(base, " ")
	for _, d := range deviceNames {
		if strings.EqualFold(base, d) {
			return true
		}
	}
	if len(base) >= 4 {
		stem, digit := base[:3], base[3:]
		if (strings.EqualFold(stem, "COM") || strings.EqualFold(stem, "LPT")) &&
			(len(digit) == 1 && digit[0] >= '0' && digit[0] <= '9' || digit == "¹" || digit == "²" || digit == "³") {
			return true
		}
	}
	return false
}

func isReservedTop(first string) bool { return Key(first) == ReservedDir }

// escapeFirst writes the first byte of s as an escape (an ASCII letter or ".").
func escapeFirst(s string) string {
	var b strings.Builder
	writeEscape(&b, s[0])
	b.WriteString(s[1:])
	return b.String()
}

func writeEscape(b *strings.Builder, v byte) {
	const hexDigits = "0123456789ABCDEF"
	b.WriteByte('%')
	b.WriteByte(hexDigits[v>>4])
	b.WriteByte(hexDigits[v&15])
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
