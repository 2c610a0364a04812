package cli

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// A document with streamed lists is written byte for byte as writeJSON
// writes it with the lists in it, nested and empty ones too, in whatever
// order the lists are given.
func TestWriteJSONStreamed(t *testing.T) {
	type item struct {
		URL    string `json:"url"`
		Length int64  `json:"length"`
	}
	items := []item{{"http://h/a<b>&\u202e", 3}, {"http://h/c", -1}}
	type doc struct {
		Name  string         `json:"name"`
		Plan  map[string]any `json:"plan"`
		Files any            `json:"files"`
		After []string       `json:"after"`
	}
	emitAll := func(emit func(any) error) error {
		for _, it := range items {
			if err := emit(it); err != nil {
				return err
			}
		}
		return nil
	}
	create, none, files := streamList(emitAll), streamList(func(func(any) error) error { return nil }), streamList(emitAll)
	streamed := doc{Name: "x", Plan: map[string]any{"count": 2, "create": create, "delete": none}, Files: files, After: []string{"z"}}
	whole := doc{Name: "x", Plan: map[string]any{"count": 2, "create": items, "delete": []item{}}, Files: items, After: []string{"z"}}
	var got, want bytes.Buffer
	if err := writeJSONStreamed(&got, streamed, files, create, none); err != nil {
		t.Fatal(err)
	}
	if err := writeJSON(&want, whole); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("streamed:\n%s\nwant:\n%s", got.String(), want.String())
	}
}

// encodedAsTheEncoder is x as writeJSONStreamed's encoder writes an
// element: indented under prefix, HTML left as it is, no newline after.
func encodedAsTheEncoder(t *testing.T, x any, prefix string) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(x); err != nil {
		t.Fatal(err)
	}
	return strings.TrimRight(b.String(), "\n")
}

// appendJSONString quotes every string as encoding/json does: the
// escapes, controls, invalid UTF-8, U+2028/U+2029, HTML, and random bytes.
func TestAppendJSONString(t *testing.T) {
	cases := []string{"", "plain", `q"uote\back`, "\b\f\n\r\t\x00\x01\x1f\x7f", "<a&b>", "é→ü\u202e\u200b",
		"\u2028\u2029", "\xff\xfe", "a\xc3", "\xed\xa0\x80", "\U0001F600", "http://h/a b?c=d#e"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = byte(rng.IntN(256))
			if rng.IntN(3) == 0 {
				const special = "\"\\\n\x01\xe2\x80\xa8<"
				b[i] = special[rng.IntN(len(special))]
			}
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := string(appendJSONString(nil, s)), encodedAsTheEncoder(t, s, ""); got != want {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
}

// A decision of plan.items writes itself as the encoder writes it.
func TestPlanItemAppendIndented(t *testing.T) {
	path, n, zero := "h/a\u2028\"b", int64(123), int64(0)
	for _, j := range []planItemJSON{
		{URL: "http://h/a", Path: &path, Length: &n, Reason: "changed <since> \x01"},
		{URL: "http://h/b\xff", Path: nil, Length: nil},
		{URL: "", Path: &path, Length: &zero, Reason: ""},
	} {
		for _, prefix := range []string{"", "      "} {
			if got, want := string(j.appendIndented(nil, prefix)), encodedAsTheEncoder(t, j, prefix); got != want {
				t.Errorf("%+v under %q:\n%s\nwant:\n%s", j, prefix, got, want)
			}
		}
	}
}
