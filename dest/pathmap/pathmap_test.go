package pathmap

import (
	"errors"
	"strings"
	"testing"
)

func mustMapper(t *testing.T, opts Options) *Mapper {
	t.Helper()
	m, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return m
}

func TestMapDefault(t *testing.T) {
	m := mustMapper(t, Options{AllowOtherHosts: true})
	tests := []struct {
		uri, want string
	}{
		// host, then path
		{"http://example.org/a/b.pdf", "example.org/a/b.pdf"},
		{"https://example.org/a/b.pdf", "example.org/a/b.pdf"},
		{"HTTP://Example.ORG/A/B.pdf", "example.org/A/B.pdf"},
		{"http://example.org:80/x", "example.org/x"},
		{"https://example.org:443/x", "example.org/x"},
		{"http://example.org:443/x", "example.org+443/x"},
		{"http://127.0.0.1:8080/dataset1/res/1.html", "127.0.0.1+8080/dataset1/res/1.html"},
		{"http://127.0.0.1:08080/x", "127.0.0.1+8080/x"},
		{"http://[::1]:8080/x", "[%3A%3A1]+8080/x"},
		{"http://user:pw@example.org/x", "example.org/x"},
		{"http://bücher.example/x", "xn--bcher-kva.example/x"},
		{"http://xn--bcher-kva.example/x", "xn--bcher-kva.example/x"},
		// trailing slash and empty path: the index name
		{"http://example.org", "example.org/index.html"},
		{"http://example.org/", "example.org/index.html"},
		{"http://example.org/a/", "example.org/a/index.html"},
		{"http://example.org/a//b", "example.org/a/b"},
		{"http://example.org/a//", "example.org/a/index.html"},
		// percent-encoding: unreserved, space and UTF-8 decoded; the rest kept, upper-cased
		{"http://example.org/%7Euser/%41bc", "example.org/~user/Abc"},
		{"http://example.org/a%20b.txt", "example.org/a b.txt"},
		{"http://example.org/caf%C3%A9", "example.org/café"},
		{"http://example.org/caf%c3%a9", "example.org/café"},
		{"http://example.org/a%2fb", "example.org/a%2Fb"},
		{"http://example.org/a%2Fb/c", "example.org/a%2Fb/c"},
		{"http://example.org/a%2Bb", "example.org/a%2Bb"},
		{"http://example.org/a+b", "example.org/a+b"},
		{"http://example.org/100%25", "example.org/100%25"},
		// not strictly a URI: taken as a browser sends it, a stray "%" as %25
		{"http://example.org/100%.txt", "example.org/100%25.txt"},
		{"http://example.org/a%zz", "example.org/a%25zz"},
		{"http://example.org/%FF%FE", "example.org/%FF%FE"},
		{"http://example.org/%C3", "example.org/%C3"},
		{"http://example.org/%C3%A9%FF", "example.org/é%FF"},
		{"http://example.org/%00", "example.org/%00"},
		{"http://example.org/a%0Ab", "example.org/a%0Ab"},
		// unicode: NFC
		{"http://example.org/cafe%CC%81", "example.org/café"},
		{"http://example.org/cafe\u0301", "example.org/café"},
		{"http://example.org/caf\u00e9", "example.org/café"},
		{"http://example.org/%E2%84%A6", "example.org/Ω"}, // OHM SIGN is Ω in NFC
		// a combining mark after an escape would compose with its hex digit: escaped
		{"http://example.org/*\u0301x", "example.org/%2A%CC%81x"},
		{"http://example.org/p?\u0307", "example.org/p%3F%CC%87"},
		{"http://example.org/\u0301x", "example.org/\u0301x"},
		// unsafe characters of file systems
		{"http://example.org/a:b", "example.org/a%3Ab"},
		{"http://example.org/a*b|c", "example.org/a%2Ab%7Cc"},
		{`http://example.org/a"b`, "example.org/a%22b"},
		{"http://example.org/a%5Cb", "example.org/a%5Cb"},
		{"http://example.org/name.", "example.org/name%2E"},
		{"http://example.org/name%20", "example.org/name%20"},
		{"http://example.org/dir./x", "example.org/dir%2E/x"},
		// dot segments: resolved, never above the top
		{"http://example.org/a/./b", "example.org/a/b"},
		{"http://example.org/a/../b", "example.org/b"},
		{"http://example.org/../../etc/passwd", "example.org/etc/passwd"},
		{"http://example.org/a/%2E%2E/%2e%2e/%2E%2E/b", "example.org/b"},
		{"http://example.org/a/..", "example.org/index.html"},
		{"http://example.org/a/b/.", "example.org/a/b/index.html"},
		{"http://example.org/..%2Fx", "example.org/..%2Fx"},
		{"http://example.org/...", "example.org/..%2E"},
		// query strings: kept, after an escaped "?"
		{"http://example.org/p?x=1&y=2", "example.org/p%3Fx=1&y=2"},
		{"http://example.org/p?y=2&x=1", "example.org/p%3Fy=2&x=1"},
		{"http://example.org/p?a/b", "example.org/p%3Fa%2Fb"},
		{"http://example.org/p?a%2fb", "example.org/p%3Fa%2Fb"},
		{"http://example.org/p?q=%C3%A9+%7E", "example.org/p%3Fq=é+~"},
		{"http://example.org/p?", "example.org/p%3F"},
		{"http://example.org/?q=1", "example.org/index.html%3Fq=1"},
		{"http://example.org/p?x#frag", "example.org/p%3Fx"},
		{"http://example.org/p#frag", "example.org/p"},
		// reserved device names
		{"http://example.org/CON", "example.org/%43ON"},
		{"http://example.org/con.txt", "example.org/%63on.txt"},
		{"http://example.org/nul/x", "example.org/%6Eul/x"},
		{"http://example.org/COM1", "example.org/%43OM1"},
		{"http://example.org/lpt9.log", "example.org/%6Cpt9.log"},
		{"http://example.org/COM10", "example.org/COM10"},
		{"http://example.org/CONSOLE", "example.org/CONSOLE"},
		{"http://example.org/.rsx/x", "example.org/.rsx/x"},
	}
	for _, tc := range tests {
		got, err := m.Map(tc.uri)
		if err != nil {
			t.Errorf("Map(%q): %v", tc.uri, err)
			continue
		}
		if got != tc.want {
			t.Errorf("Map(%q) = %q, want %q", tc.uri, got, tc.want)
		}
	}
}

func TestMapLongNames(t *testing.T) {
	m := mustMapper(t, Options{AllowOtherHosts: true})
	for _, seg := range []string{
		strings.Repeat("a", 256),
		strings.Repeat("a", 300) + ".pdf",
		strings.Repeat("é", 200),
		strings.Repeat("%2B", 100),
		strings.Repeat("b", 250) + "%2B%2B%2B",
		strings.Repeat("x", 240) + "." + strings.Repeat("y", 40),
	} {
		p, err := m.Map("http://h/d/" + seg)
		if err != nil {
			t.Fatal(err)
		}
		last := p[strings.LastIndexByte(p, '/')+1:]
		if len(last) > MaxNameBytes {
			t.Errorf("%q: name of %d bytes", seg, len(last))
		}
		if !strings.Contains(last, "~") {
			t.Errorf("%q: not shortened: %q", seg, last)
		}
		if strings.Contains(last[strings.LastIndexByte(last, '~')-2:], "%~") {
			t.Errorf("%q: escape split in %q", seg, last)
		}
		for i := 0; i < len(last); i++ {
			if last[i] == '%' && (i+2 >= len(last) || !isHex(last[i+1]) || !isHex(last[i+2])) {
				t.Errorf("%q: broken escape in %q", seg, last)
			}
		}
		if strings.HasSuffix(seg, ".pdf") && !strings.HasSuffix(last, ".pdf") {
			t.Errorf("%q: extension lost: %q", seg, last)
		}
		// Two long names that differ only at the end stay apart.
		p2, _ := m.Map("http://h/d/" + seg + "z")
		if p2 == p {
			t.Errorf("%q and its extension map to one path %q", seg, p)
		}
	}
	short := strings.Repeat("a", 255)
	if p, _ := m.Map("http://h/" + short); p != "h/"+short {
		t.Errorf("a 255-byte name was changed: %q", p)
	}
}

func TestMapRules(t *testing.T) {
	var rules []Rule
	for _, s := range []string{
		"http://example.org/data/=ex",
		"http://example.org/data/special=ex/sp",
		"https://mirror.example.net/=mirror",
		"http://example.org/top=.",
	} {
		r, err := ParseRule(s)
		if err != nil {
			t.Fatalf("ParseRule(%q): %v", s, err)
		}
		rules = append(rules, r)
	}
	m := mustMapper(t, Options{Authorities: []string{"http://example.org/capabilitylist.xml"}, Rules: rules})
	tests := []struct{ uri, want, err string }{
		{uri: "http://example.org/data/a/b.pdf", want: "ex/a/b.pdf"},
		{uri: "HTTP://EXAMPLE.org:80/data/a", want: "ex/a"},
		{uri: "http://example.org/data/%7Ea", want: "ex/~a"},
		{uri: "http://example.org/data/special/x", want: "ex/sp/x"}, // longest prefix wins
		{uri: "http://example.org/data/special", want: "ex/sp/index.html"},
		{uri: "http://example.org/data/specialist", want: "ex/specialist"}, // not on a boundary: shorter rule
		{uri: "http://example.org/data/special?q", want: "ex/sp/index.html%3Fq"},
		{uri: "http://example.org/database", want: "example.org/database"},
		{uri: "https://mirror.example.net/x/y", want: "mirror/x/y"}, // another host, allowed by a rule
		{uri: "http://mirror.example.net/x/y", err: "outside"},      // the rule is for https only
		{uri: "http://example.org/top/a", want: "a"},
		{uri: "http://example.org/top/.rsx/state.db", want: "%2Ersx/state.db"},
		{uri: "http://example.org/top/.RSX", want: "%2ERSX"},
		{uri: "http://other.example/x", err: "outside"},
		{uri: "http://example.org/other", want: "example.org/other"},
	}
	for _, tc := range tests {
		got, err := m.Map(tc.uri)
		if tc.err != "" {
			var me *Error
			if err == nil || !errors.As(err, &me) || me.Kind != KindOutside || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Map(%q) = %q, %v; want an error %q", tc.uri, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Map(%q) = %q, %v; want %q", tc.uri, got, err, tc.want)
		}
	}
}

func TestParseRuleErrors(t *testing.T) {
	for _, s := range []string{
		"no-equals",
		"ftp://example.org/=x",
		"example.org/=x",
		"http://example.org/=/abs",
		"http://example.org/=a/../b",
		"http://example.org/=.rsx",
		"http://example.org/=.RSX/x",
		"http://example.org/=a:b",
		`http://example.org/=a\b`,
		"http:///=x",
	} {
		if r, err := ParseRule(s); err == nil {
			t.Errorf("ParseRule(%q) = %+v, want an error", s, r)
		}
	}
	r, err := ParseRule("http://Example.org/a/%7Eb/=x/./y/")
	if err != nil || r.Prefix != "http://example.org/a/~b/" || r.Dir != "x/y" {
		t.Errorf("ParseRule normalised to %+v, %v", r, err)
	}
	if r.String() != "http://example.org/a/~b/=x/y" {
		t.Errorf("String() = %q", r.String())
	}
	if _, err := New(Options{Rules: []Rule{r, r}}); err == nil {
		t.Error("New accepted a prefix given twice")
	}
}

func TestMapErrors(t *testing.T) {
	m := mustMapper(t, Options{Authorities: []string{"example.org", "127.0.0.1:8080"}})
	tests := []struct {
		uri  string
		kind ErrorKind
	}{
		{"", KindInvalid},
		{"/relative/path", KindInvalid},
		{"example.org/x", KindInvalid},
		{"mailto:a@example.org", KindScheme},
		{"ftp://example.org/x", KindScheme},
		{"file:///etc/passwd", KindScheme},
		{"http:///x", KindInvalid},
		{"http://example.org:99999/x", KindInvalid},
		{"http://exa mple.org/x", KindInvalid},
		{"http://127.0.0.1:8081/x", KindOutside},
		{"http://127.0.0.1/x", KindOutside},
		{"http://sub.example.org/x", KindOutside},
	}
	for _, tc := range tests {
		got, err := m.Map(tc.uri)
		var me *Error
		if !errors.As(err, &me) || me.Kind != tc.kind {
			t.Errorf("Map(%q) = %q, %v; want an error of kind %d", tc.uri, got, err, tc.kind)
		}
		if out := m.Outside(tc.uri); out != (tc.kind == KindOutside) {
			t.Errorf("Outside(%q) = %v", tc.uri, out)
		}
	}
	for _, ok := range []string{"http://example.org/x", "https://EXAMPLE.org/x", "http://127.0.0.1:8080/x"} {
		if _, err := m.Map(ok); err != nil {
			t.Errorf("Map(%q): %v", ok, err)
		}
		if m.Outside(ok) {
			t.Errorf("Outside(%q)", ok)
		}
	}
}

func TestIndexName(t *testing.T) {
	m := mustMapper(t, Options{AllowOtherHosts: true, IndexName: "_index"})
	if p, _ := m.Map("http://h/a/"); p != "h/a/_index" {
		t.Errorf("got %q", p)
	}
	for _, bad := range []string{"a/b", ".", "..", "a:b", "trailing."} {
		if _, err := New(Options{IndexName: bad}); err == nil {
			t.Errorf("IndexName %q accepted", bad)
		}
	}
}

func TestAuthority(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://Example.org/x", "example.org"},
		{"https://example.org:443/x", "example.org"},
		{"http://example.org:8080", "example.org:8080"},
		{"example.org", "example.org"},
		{"127.0.0.1:8080", "127.0.0.1:8080"},
		{"http://[::1]:80/", "[::1]"},
	}
	for _, tc := range tests {
		if got, err := Authority(tc.in); err != nil || got != tc.want {
			t.Errorf("Authority(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestKeyFoldsCase(t *testing.T) {
	m := mustMapper(t, Options{AllowOtherHosts: true})
	a, _ := m.Map("http://h/Dir/A.html")
	b, _ := m.Map("http://h/dir/a.HTML")
	if a == b {
		t.Fatalf("case was folded in the path itself: %q", a)
	}
	if Key(a) != Key(b) {
		t.Errorf("Key(%q) = %q, Key(%q) = %q: want equal", a, Key(a), b, Key(b))
	}
	c, _ := m.Map("http://h/Straße")
	d, _ := m.Map("http://h/STRASSE")
	if Key(c) != Key(d) {
		t.Errorf("Key does not fold ß: %q vs %q", Key(c), Key(d))
	}
	if Key("a/%2F") != Key("A/%2f") {
		t.Error("escapes fold differently")
	}
}

// TestOutsideByPrefix holds Outside's shortcut (a URI that begins with one
// of the Source's authorities as parse writes it is not parsed) to Map's
// verdict, default ports and case included, and checks that it takes no
// parse: an audit asks Outside of every entry (5% of an intact audit's CPU
// went to url.Parse there; it allocated before).
func TestOutsideByPrefix(t *testing.T) {
	m, err := New(Options{Authorities: []string{"example.org", "http://localhost:8080/", "https://secure.example:443", "http://plain.example:80", "[::1]:8443"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, uri := range []string{
		"http://example.org/x", "https://example.org/x", "http://example.org:80/x", "https://example.org:443/x",
		"http://example.org:8080/x", "http://EXAMPLE.org/x", "http://example.org.evil/x", "http://example.org@evil/x",
		"http://localhost:8080/a/b", "https://localhost:8080/", "http://localhost/x", "http://localhost:80800/x",
		"https://secure.example/x", "http://secure.example/x", "https://secure.example:443/x", "http://secure.example:443/x",
		"http://plain.example/x", "https://plain.example/x", "https://plain.example:80/x", "http://plain.example:80/x",
		"http://[::1]:8443/x", "https://[::1]:8443/x", "http://[::1]/x", "http://example.org/%zz", "http://example.org/a b",
		"http://example.org/\x00", "http://example.org?x", "http://example.org", "http://example.org/../../x",
	} {
		_, err := m.Map(uri)
		me, _ := err.(*Error)
		want := me != nil && me.Kind == KindOutside
		if got := m.Outside(uri); got != want {
			t.Errorf("Outside(%q) = %v; Map: %v", uri, got, err)
		}
	}
	if n := testing.AllocsPerRun(100, func() { m.Outside("http://localhost:8080/dataset1/res/1.html") }); n != 0 {
		t.Errorf("Outside of a URI of the Source's authority: %v allocations, want none (no parse)", n)
	}
}
