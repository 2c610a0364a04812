package pathmap

import (
	"testing"
)

// Characters a terminal or a text format acts on, or that show nothing, are
// written as %XX in a file name, whether the URI holds them raw or as
// escapes of their UTF-8 (a name holding U+009B, U+202E or U+2028 raw was
// written into file names, and from there into listings and bag manifests).
func TestMapEscapesWhatTerminalsAndTextFormatsActOn(t *testing.T) {
	m := mustMapper(t, Options{AllowOtherHosts: true})
	tests := []struct {
		uri, want string
	}{
		// C1 controls: CSI and OSC, raw bytes (not UTF-8), escapes, UTF-8
		{"http://h/a\x9bb", "h/a%9Bb"},
		{"http://h/a%9Bb", "h/a%9Bb"},
		{"http://h/a\u009b2Jb", "h/a%C2%9B2Jb"},
		{"http://h/a%C2%9B2Jb", "h/a%C2%9B2Jb"},
		{"http://h/a%c2%9db", "h/a%C2%9Db"},
		{"http://h/\u0080\u009f", "h/%C2%80%C2%9F"},
		{"http://h/nel\u0085x", "h/nel%C2%85x"},
		// C0 and DEL
		{"http://h/a\x1b[2Jb", "h/a%1B[2Jb"},
		{"http://h/a\x7fb", "h/a%7Fb"},
		// bidirectional marks, embeddings, overrides, isolates
		{"http://h/evil\u202egpj.exe", "h/evil%E2%80%AEgpj.exe"},
		{"http://h/evil%E2%80%AEgpj.exe", "h/evil%E2%80%AEgpj.exe"},
		{"http://h/\u202a\u202b\u202c\u202d", "h/%E2%80%AA%E2%80%AB%E2%80%AC%E2%80%AD"},
		{"http://h/\u2066\u2067\u2068\u2069", "h/%E2%81%A6%E2%81%A7%E2%81%A8%E2%81%A9"},
		{"http://h/\u200e\u200f\u061c", "h/%E2%80%8E%E2%80%8F%D8%9C"},
		// line and paragraph separators
		{"http://h/line\u2028para\u2029end", "h/line%E2%80%A8para%E2%80%A9end"},
		// other format characters: zero width, BOM, soft hyphen, joiners, tags
		{"http://h/a\u200bb", "h/a%E2%80%8Bb"},
		{"http://h/\ufeffbom", "h/%EF%BB%BFbom"},
		{"http://h/soft\u00adhyphen", "h/soft%C2%ADhyphen"},
		{"http://h/zw\u200cn\u200dj", "h/zw%E2%80%8Cn%E2%80%8Dj"},
		{"http://h/tag\U000e0041", "h/tag%F3%A0%81%81"},
		// noncharacters
		{"http://h/x\uffffy", "h/x%EF%BF%BFy"},
		// in folders and in the query too
		{"http://h/d\u202e/f", "h/d%E2%80%AE/f"},
		{"http://h/p?q=\u202e&r=\u2028s", "h/p%3Fq=%E2%80%AE&r=%E2%80%A8s"},
		// a combining mark after one is escaped, so that the name stays NFC
		{"http://h/a\u200b\u0301", "h/a%E2%80%8B%CC%81"},
		// invalid UTF-8 stays escaped byte by byte
		{"http://h/%FF%C2", "h/%FF%C2"},
		{"http://h/\xc2\u202e", "h/%C2%E2%80%AE"},
		// printable neighbours are kept
		{"http://h/caf\u00e9 \u00a0\u00ae\u2027\u202f\u65e5", "h/caf\u00e9 \u00a0\u00ae\u2027\u202f\u65e5"},
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
	// A --map folder or an index name holding one is refused, not escaped.
	if _, err := ParseRule("http://h/a=dir\u202e"); err == nil {
		t.Error("a rule's folder with U+202E was taken")
	}
	if _, err := New(Options{IndexName: "index\u200b.html"}); err == nil {
		t.Error("an index name with U+200B was taken")
	}
}
