package state

import (
	"sort"
	"strings"
	"testing"

	"rsx/model"
)

// digestsOfBefore is DigestsOf as it was written first (a slice of pairs
// sorted with sort.Slice): the reference its faster form must agree with.
func digestsOfBefore(h model.HashList) Digests {
	if len(h) == 0 {
		return ""
	}
	type pair struct{ alg, hex string }
	var pairs []pair
	for _, x := range h {
		if x.Digest == nil {
			continue
		}
		alg := x.Alg
		if alg == "" {
			alg = model.NormalizeHashAlg(x.AlgRaw)
		}
		if alg == "" || strings.ContainsAny(alg, ": \t\n") {
			continue
		}
		dup := false
		for _, p := range pairs {
			dup = dup || p.alg == alg
		}
		if !dup {
			pairs = append(pairs, pair{alg, x.Hex()})
		}
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].alg < pairs[j].alg })
	var b strings.Builder
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.alg + ":" + p.hex)
	}
	return Digests(b.String())
}

// FuzzDigestsOf holds DigestsOf to its first form, for any hash attribute,
// and for hashes built by hand (no normalised algorithm).
func FuzzDigestsOf(f *testing.F) {
	for _, s := range []string{
		"md5:1584abdf8ebdc9802ac0c6a7402c03b6 sha-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784",
		"SHA-256:854F61290E2E197A11BC91063AFCE22E43F8CCC655237050ACE766ADC68DC784 md5:1584abdf8ebdc9802ac0c6a7402c03b6 md5:1e0d5cb8ef6ba40c99b14c0237be735e sha-1:zz",
		"sha-512:" + strings.Repeat("ab", 64) + " sha-384:" + strings.Repeat("cd", 48) + " sha-1:" + strings.Repeat("ef", 20) + " md5:" + strings.Repeat("01", 16) + " x-new:" + strings.Repeat("9", 300),
		"md5:Yx8m6CqWBJjKT5VBggoWeQ== sha1:00",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, _ := model.ParseHashList(s)
		if got, want := DigestsOf(h), digestsOfBefore(h); got != want {
			t.Fatalf("DigestsOf(%q) = %q, want %q", s, got, want)
		}
		for i := range h {
			h[i].Alg = ""
		}
		if got, want := DigestsOf(h), digestsOfBefore(h); got != want {
			t.Fatalf("DigestsOf(%q) by hand = %q, want %q", s, got, want)
		}
	})
}
