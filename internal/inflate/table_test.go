package inflate

import (
	"math/rand/v2"
	"testing"
)

// completeCode returns the code lengths of a random complete prefix code of
// n symbols (2 ≤ n), no code longer than 15 bits: leaves split at random,
// deep ones preferred when deep is set, which makes long subtables.
func completeCode(rng *rand.Rand, n int, deep bool) []uint8 {
	lens := []uint8{1, 1}
	for len(lens) < n {
		i := rng.IntN(len(lens))
		if deep {
			// the deepest of a few picks
			for range 3 {
				if j := rng.IntN(len(lens)); lens[j] > lens[i] && lens[j] < maxCodeLen {
					i = j
				}
			}
		}
		if lens[i] >= maxCodeLen {
			continue
		}
		lens[i]++
		lens = append(lens, lens[i])
	}
	rng.Shuffle(len(lens), func(a, b int) { lens[a], lens[b] = lens[b], lens[a] })
	return lens
}

// chainCode returns the lengths of a complete code of m chains (codes of
// tb+1 … tb+k bits and a second of tb+k) and the fewest short codes that
// fill the rest of the 2^tb primary slots: the most subtable entries per
// symbol.
func chainCode(tb, k uint, m int) []uint8 {
	var lens []uint8
	for range m {
		for l := tb + 1; l <= tb+k; l++ {
			lens = append(lens, uint8(l))
		}
		lens = append(lens, uint8(tb+k))
	}
	r := uint(1)<<tb - uint(m)
	for j := range tb + 1 {
		if r&(1<<j) != 0 {
			lens = append(lens, uint8(tb-j))
		}
	}
	return lens
}

// TestTableSizes builds many complete codes, the largest subtables first:
// the tables' sizes must hold them (a build beyond them panics).
func TestTableSizes(t *testing.T) {
	var b tableBuilder
	var lit [litTableSize]uint32
	var dist [distTableSize]uint32
	kraft := func(lens []uint8) bool {
		sum := 0
		for _, l := range lens {
			sum += 1 << (maxCodeLen - l)
		}
		return sum == 1<<maxCodeLen
	}
	var codes [][2][]uint8 // litlen, distance
	for m := 1; ; m++ {
		l := chainCode(litBits, maxCodeLen-litBits, m)
		if len(l) > 286 {
			break
		}
		codes = append(codes, [2][]uint8{l, nil})
	}
	for m := 1; ; m++ {
		l := chainCode(distBits, maxCodeLen-distBits, m)
		if len(l) > 30 {
			break
		}
		codes = append(codes, [2][]uint8{nil, l})
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 3000 {
		codes = append(codes, [2][]uint8{
			completeCode(rng, 2+rng.IntN(285), i%2 == 0),
			completeCode(rng, 2+rng.IntN(29), i%2 == 0),
		})
	}
	for i, c := range codes {
		if c[0] != nil {
			if !kraft(c[0]) {
				t.Fatalf("code %d: litlen lengths %v are not complete", i, c[0])
			}
			if !b.build(lit[:], c[0], litBits, litLenEntries, 1) {
				t.Fatalf("code %d: litlen lengths %v refused", i, c[0])
			}
		}
		if c[1] != nil {
			if !kraft(c[1]) {
				t.Fatalf("code %d: distance lengths %v are not complete", i, c[1])
			}
			if !b.build(dist[:], c[1], distBits, distEntries, 1) {
				t.Fatalf("code %d: distance lengths %v refused", i, c[1])
			}
		}
	}
}
