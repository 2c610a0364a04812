package display

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"http://example.com/a b?c=d&e#f", "http://example.com/a b?c=d&e#f"},
		{`back\slash`, `back\slash`},
		{"café ünïcödé 日本", "café ünïcödé 日本"},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"tab\tnl\ncr\r", `tab\tnl\ncr\r`},
		{"del\x7f", `del\x7f`},
		{"nul\x00", `nul\x00`},
		{"csi\u009b31m", `csi\u009b31m`},
		{"osc\u009d0;title\u009c", `osc\u009d0;title\u009c`},
		{"\u0080\u009f", `\u0080\u009f`},
		{"evil\u202egpj.exe", `evil\u202egpj.exe`},
		{"\u202a\u202b\u202c\u202d", `\u202a\u202b\u202c\u202d`},
		{"\u2066\u2067\u2068\u2069", `\u2066\u2067\u2068\u2069`},
		{"mark\u200e\u200f\u061c", `mark\u200e\u200f\u061c`},
		{"line\u2028para\u2029", `line\u2028para\u2029`},
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`},
		{"\u00a0nbsp\u00a0", "\u00a0nbsp\u00a0"}, // a printable character, shown as it is
	} {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestEscapeJSON(t *testing.T) {
	v := map[string]string{"u": "http://x/\u009b31m\u202e\x7f\x1b<&>", "plain": "日本"}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out := EscapeJSON(b)
	for _, r := range string(out) {
		if Unsafe(r) {
			t.Fatalf("EscapeJSON left %U in %s", r, out)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatalf("EscapeJSON broke the JSON: %v\n%s", err, out)
	}
	if back["u"] != v["u"] || back["plain"] != v["plain"] {
		t.Errorf("values changed: %q", back)
	}
	clean := []byte(`{"a":"日本 \\u001b"}`)
	if got := EscapeJSON(clean); &got[0] != &clean[0] {
		t.Errorf("clean JSON was copied")
	}
}

// FuzzEscape: whatever a Source wrote, the escaped text holds no character a
// terminal acts on, is valid UTF-8, and plain printable text passes unchanged.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "plain text", "a\x1b]0;t\x07", "\u009b2J", "\u202e", "\xff\xfe", "\\x1b", "日本\u2066"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Escape(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Escape(%q) = %q: not valid UTF-8", s, out)
		}
		for _, r := range out {
			if Unsafe(r) {
				t.Fatalf("Escape(%q) = %q: holds %U", s, out, r)
			}
		}
		plain := utf8.ValidString(s) && !strings.ContainsFunc(s, Unsafe)
		if plain != (out == s) {
			t.Fatalf("Escape(%q) = %q: plain text %v, unchanged %v", s, out, plain, out == s)
		}
		if Escape(out) != out {
			t.Fatalf("Escape is not idempotent on %q", out)
		}
	})
}
