package cli

import (
	"bytes"
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
