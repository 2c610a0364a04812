package display

import (
	"bytes"
	"testing"
)

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://h/a":                        "http://h/a",
		"http://user@h/a":                   "http://user@h/a",
		"http://user:pw@h/a":                "http://user:xxxxx@h/a",
		"https://u:p%40ss@h:8080/a?q=1#f":   "https://u:xxxxx@h:8080/a?q=1#f",
		"s3://AKIA:secret/key@bucket/p":     "s3://AKIA:xxxxx@bucket/p",
		"not a url: http://u:pw@h/ in text": "not a url: http://u:xxxxx@h/ in text",
		"":                                  "",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestRedact(t *testing.T) {
	for _, tc := range []struct {
		in      string
		secrets []string
		want    string
	}{
		{`fetch http://archivist:hunter2@127.0.0.1:1/cap.xml: GET "http://archivist:hunter2@127.0.0.1:1/cap.xml": refused`, nil,
			`fetch http://archivist:xxxxx@127.0.0.1:1/cap.xml: GET "http://archivist:xxxxx@127.0.0.1:1/cap.xml": refused`},
		{`{"source": "https://u:p@ss@h/cap.xml", "dest": "s3://k:s@b/p"}`, nil,
			`{"source": "https://u:xxxxx@h/cap.xml", "dest": "s3://k:xxxxx@b/p"}`},
		{"mail me: a@b.org, see http://h/a@b", nil, "mail me: a@b.org, see http://h/a@b"},
		{"key wJalrXUtnFEMI/K7MDENG is wrong; short abc stays", []string{"wJalrXUtnFEMI/K7MDENG", "abc", ""}, "key [redacted] is wrong; short abc stays"},
		{"http://u:pw@h/ and http://v:pw2@g/", nil, "http://u:xxxxx@h/ and http://v:xxxxx@g/"},
	} {
		if got := Redact(tc.in, tc.secrets...); got != tc.want {
			t.Errorf("Redact(%q) = %q; want %q", tc.in, got, tc.want)
		}
		if !MayHoldSecret([]byte(tc.in), tc.secrets...) && tc.in != tc.want {
			t.Errorf("MayHoldSecret(%q) = false", tc.in)
		}
	}
}

// TestMayHoldSecretDoesNotCopy: every write of a --json document passes
// through MayHoldSecret; it read its text through a copy made a string (a
// dry run's document of a million decisions copied all of its 177 MB).
func TestMayHoldSecretDoesNotCopy(t *testing.T) {
	text := bytes.Repeat([]byte(`{"url": "https://example.org/a/b", "path": "example.org/a/b"},`+"\n"), 1000)
	if n := testing.AllocsPerRun(10, func() { MayHoldSecret(text, "a-secret-token") }); n != 0 {
		t.Errorf("MayHoldSecret of %d bytes made %.0f allocations; want none", len(text), n)
	}
}
