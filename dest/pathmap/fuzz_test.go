package pathmap

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"rsx/display"
)

// FuzzMap checks that no URI, however written, maps to a path that leaves the
// destination or is unsafe as a file name, and that mapping is deterministic.
func FuzzMap(f *testing.F) {
	for _, s := range []string{
		"http://example.org/a/b.pdf",
		"http://example.org/../../etc/passwd",
		"http://example.org/a/%2E%2E/%2e%2e/b",
		"http://example.org/%2F..%2F..%2Fx",
		"http://127.0.0.1:8080/p?x=1&y=/../z#f",
		"http://[::1]/CON.txt",
		"http://example.org/" + strings.Repeat("%C3%A9", 120),
		"http://example.org/cafe\u0301/\u2126/%FF",
		"http://example.org/a\\b/c:d/e. /f ",
		"http://example.org/top/.rsx/state.db",
		"https://bücher.example/x",
		"http://example.org/a\u009b2J/\u202egpj.exe?q=\u2028\u0085x",
		"http://example.org/%C2%9D0;t%C2%9C/%E2%80%AE\u200b\ufeff\U000e0041\u00ad",
		"http://example.org/\x9b\x9d\xff\u200b\u0301",
	} {
		f.Add(s)
	}
	rule, err := ParseRule("http://example.org/top=.")
	if err != nil {
		f.Fatal(err)
	}
	opts := Options{AllowOtherHosts: true, Rules: []Rule{rule}}
	m1, err := New(opts)
	if err != nil {
		f.Fatal(err)
	}
	m2, _ := New(opts)
	f.Fuzz(func(t *testing.T, uri string) {
		p, err := m1.Map(uri)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Map(%q) returned a %T: %v", uri, err, err)
			}
			return
		}
		if again, err := m2.Map(uri); err != nil || again != p {
			t.Fatalf("Map(%q) gave %q, then %q, %v", uri, p, again, err)
		}
		checkSafePath(t, uri, p)
	})
}

func checkSafePath(t *testing.T, uri, p string) {
	t.Helper()
	if p == "" || strings.HasPrefix(p, "/") {
		t.Fatalf("Map(%q) = %q: empty or absolute", uri, p)
	}
	if !utf8.ValidString(p) || !norm.NFC.IsNormalString(p) {
		t.Fatalf("Map(%q) = %q: not valid NFC UTF-8", uri, p)
	}
	segs := strings.Split(p, "/")
	if Key(segs[0]) == ReservedDir {
		t.Fatalf("Map(%q) = %q: inside the reserved folder", uri, p)
	}
	for _, s := range segs {
		switch {
		case s == "" || s == "." || s == "..":
			t.Fatalf("Map(%q) = %q: segment %q", uri, p, s)
		case len(s) > MaxNameBytes:
			t.Fatalf("Map(%q) = %q: name of %d bytes", uri, p, len(s))
		case strings.HasSuffix(s, ".") || strings.HasSuffix(s, " "):
			t.Fatalf("Map(%q) = %q: name %q ends with a dot or space", uri, p, s)
		case isDeviceName(s):
			t.Fatalf("Map(%q) = %q: reserved name %q", uri, p, s)
		}
		for _, r := range s {
			if display.Unsafe(r) {
				t.Fatalf("Map(%q) = %q: %U in a name", uri, p, r)
			}
		}
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c < 0x20 || c == 0x7f || strings.IndexByte(`\:*?"<>|`, c) >= 0 {
				t.Fatalf("Map(%q) = %q: unsafe byte %q", uri, p, c)
			}
			if c == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
				t.Fatalf("Map(%q) = %q: %% that starts no escape", uri, p)
			}
		}
	}
}

// FuzzOutside checks that Outside says of every URI what Map's error says:
// outside the Source's authority or not, with and without a map rule.
func FuzzOutside(f *testing.F) {
	for _, s := range []string{
		"http://example.org/a/b.pdf",
		"https://EXAMPLE.org:443/x",
		"http://example.org:8080/x",
		"http://other.example/top/x",
		"http://mirror.example/top/x",
		"http://[::1]/x",
		"ftp://example.org/x",
		"http:///x",
		"http://exa mple.org/x",
	} {
		f.Add(s)
	}
	rule, err := ParseRule("http://mirror.example/top=m")
	if err != nil {
		f.Fatal(err)
	}
	var ms []*Mapper
	for _, o := range []Options{
		{Authorities: []string{"example.org"}},
		{Authorities: []string{"http://example.org:8080/", "[::1]"}, Rules: []Rule{rule}},
	} {
		m, err := New(o)
		if err != nil {
			f.Fatal(err)
		}
		ms = append(ms, m)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		for _, m := range ms {
			_, err := m.Map(uri)
			me, _ := err.(*Error)
			want := me != nil && me.Kind == KindOutside
			if got := m.Outside(uri); got != want {
				t.Fatalf("Outside(%q) = %v; Map: %v", uri, got, err)
			}
		}
	})
}

// unsafeRunes are characters a file name holds only as %XX: one of each
// kind display.Unsafe names.
var unsafeRunes = []rune{0x1b, 0x7f, 0x85, 0x9b, 0x9d, 0x061c, 0x200b, 0x200e, 0x200f, 0x202a, 0x202e,
	0x2028, 0x2029, 0x2066, 0x2069, 0xfeff, 0x00ad, 0x200d, 0xfffe, 0xe0041}

// FuzzMapUnsafeKeptApart checks that escaping what terminals act on loses
// nothing: a URI holding such a character maps apart from the same URI
// without it and from the same URI holding another one in its place, and
// alike whether the URI holds one above ASCII raw or as escapes of its
// UTF-8 (both are the same request).
func FuzzMapUnsafeKeptApart(f *testing.F) {
	for _, s := range []string{"a/b.pdf", "dir/x?y=1", "..", "a%2Fb", "é/x", "CON", "e\u0301", strings.Repeat("n", 300)} {
		f.Add(s, uint16(1), uint8(0), uint8(1))
	}
	m, err := New(Options{Authorities: []string{"example.org"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, path string, at uint16, which, other uint8) {
		i := int(at) % (len(path) + 1)
		if i == 0 || (i < len(path) && !utf8.RuneStart(path[i])) || strings.ContainsAny(path[:i], "#") ||
			strings.TrimSpace(path[i:]) == "" || strings.Contains(path[max(0, i-2):i], "%") {
			return // the host's slash next to it, inside a character, in the fragment, trimmed as trailing space, or in an escape
		}
		r1, r2 := unsafeRunes[int(which)%len(unsafeRunes)], unsafeRunes[int(other)%len(unsafeRunes)]
		with := func(r rune) string { return "http://example.org/" + path[:i] + string(r) + path[i:] }
		if u, err := url.Parse(with(r1)); err == nil && !strings.ContainsRune(u.ResolveReference(&url.URL{}).Path, r1) {
			return // in a segment a later ".." removes: the same request as without it
		}
		p0, err0 := m.Map("http://example.org/" + path)
		p1, err1 := m.Map(with(r1))
		if err0 != nil || err1 != nil {
			return
		}
		if p1 == p0 {
			t.Fatalf("%q and %q map alike, to %q", "http://example.org/"+path, with(r1), p1)
		}
		if r2 != r1 {
			if p2, err := m.Map(with(r2)); err == nil && p2 == p1 {
				t.Fatalf("%q and %q map alike, to %q", with(r1), with(r2), p1)
			}
		}
		if r1 < 0x80 {
			// A raw C0 control or DEL makes the loc no URI: it is taken as
			// a browser sends it, every character not allowed escaped
			// (fetch.RequestURL), so its neighbours may map otherwise.
			return
		}
		var esc strings.Builder
		for _, b := range []byte(string(r1)) {
			fmt.Fprintf(&esc, "%%%02X", b)
		}
		if pe, err := m.Map("http://example.org/" + path[:i] + esc.String() + path[i:]); err != nil || pe != p1 {
			t.Fatalf("%q maps to %q, its escaped form to %q (%v)", with(r1), p1, pe, err)
		}
	})
}
