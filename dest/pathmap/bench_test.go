package pathmap

import "testing"

// BenchmarkMap maps a plain ASCII URI (nearly every one) and one of
// non-ASCII names, whose characters are looked up in display.Unsafe.
func BenchmarkMap(b *testing.B) {
	m, err := New(Options{Authorities: []string{"example.org"}})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, uri string }{
		{"ascii", "http://example.org/dataset1/resources/00012345/file-name.pdf?version=3"},
		{"unicode", "http://example.org/bücher/日本語のファイル名/caf%C3%A9-r%C3%A9sum%C3%A9.txt"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := m.Map(bc.uri); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
