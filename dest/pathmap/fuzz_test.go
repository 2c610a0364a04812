package pathmap

import (
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
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
