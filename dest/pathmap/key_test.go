package pathmap

import (
	"math/rand/v2"
	"testing"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// slowKey is Key through the Unicode tables alone.
func slowKey(p string) string { return cases.Fold().String(norm.NFC.String(p)) }

// Key's ASCII fast path gives what the Unicode tables give: for every
// ASCII character, for random ASCII paths, and for paths beside ASCII
// (which take the tables: the Kelvin sign and the long s fold into ASCII,
// a decomposed é composes).
func TestKeyASCIIAgreesWithUnicodeFolding(t *testing.T) {
	var paths []string
	for c := 0; c < 0x80; c++ {
		paths = append(paths, string(rune(c)), "a/"+string(rune(c))+"/Z")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = byte(rng.IntN(0x80))
		}
		paths = append(paths, string(b))
	}
	paths = append(paths, "", "h/Dir/A.HTML", "already/lower.xml", "K\u212a/\u017fS", "Cafe\u0301/X", "\xff/A", "ÄÖÜ/ß")
	for _, p := range paths {
		if got, want := Key(p), slowKey(p); got != want {
			t.Errorf("Key(%q) = %q, want %q", p, got, want)
		}
	}
}

func BenchmarkKey(b *testing.B) {
	for _, p := range []string{"127.0.0.1+8080/dataset1/res/000123.xml", "Host/Dir/Ä.html"} {
		b.Run(p, func(b *testing.B) {
			for b.Loop() {
				Key(p)
			}
		})
	}
}
