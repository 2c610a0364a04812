package display

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"
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
		// The other format characters (Cf): invisible, they make two names
		// that read alike differ (zero width space, BOM, soft hyphen, joiners,
		// Arabic number signs, tag characters), and noncharacters, which text
		// formats refuse (XML: U+FFFE, U+FFFF).
		{"a\u200bb\ufeffc\u00add", `a\u200bb\ufeffc\u00add`},
		{"\u200c\u200d\u2060\u2064\u206f\u0600\u06dd\u070f\u180e\ufff9", `\u200c\u200d\u2060\u2064\u206f\u0600\u06dd\u070f\u180e\ufff9`},
		{"flag\U000e0067\U000e007f", `flag\U000e0067\U000e007f`},
		{"\ufdd0\ufffe\uffff\U0001fffe", `\ufdd0\ufffe\uffff\U0001fffe`},
		{"\ufffd\u00ae\u2027\u202f\u2065", "\ufffd\u00ae\u2027\u202f\u2065"}, // printable (or unassigned) neighbours
	} {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestEscapeJSON(t *testing.T) {
	v := map[string]string{"u": "http://x/\u009b31m\u202e\x7f\x1b<&>\u200b\U000e0041\uffff", "plain": "日本"}
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

// The format characters written out in formatChars are Unicode's Cf as the
// unicode package has it. When a newer Go's Unicode adds some, this fails:
// adding them to formatChars changes the file names of copies holding them
// (say so in docs/destination.md), which is why the list is not the table.
func TestFormatCharsAreUnicodeCf(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		in := false
		for _, f := range formatChars {
			in = in || (f.lo <= r && r <= f.hi)
		}
		if cf := unicode.Is(unicode.Cf, r); cf != in {
			t.Errorf("%U: Cf in Unicode %s: %v; in formatChars: %v", r, unicode.Version, cf, in)
		}
		if in && !Unsafe(r) {
			t.Errorf("%U is a format character but not Unsafe", r)
		}
	}
	for i := 1; i < len(formatChars); i++ {
		if formatChars[i].lo <= formatChars[i-1].hi {
			t.Errorf("formatChars out of order at %U", formatChars[i].lo)
		}
	}
}
