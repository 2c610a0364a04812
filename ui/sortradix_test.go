package ui

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"rsx/model"
	"rsx/session"
)

// exSortPermCompare is the sort the explorer had before its radix sort: a
// comparison sort of (key, row) pairs, equal keys in row order. It is the
// oracle of the tests below and the baseline of BenchmarkSort1M.
func exSortPermCompare(d *document, n int, k colKind, desc bool) []int32 {
	perm := make([]int32, n)
	if isNumericCol(k) {
		type pair struct {
			key int64
			row int32
		}
		ps := make([]pair, n)
		for i := range ps {
			kv, _ := colNumKey(d, k, i)
			ps[i] = pair{kv, int32(i)}
		}
		slices.SortFunc(ps, func(a, b pair) int {
			if a.key != b.key {
				if (a.key < b.key) != desc {
					return -1
				}
				return 1
			}
			return int(a.row - b.row)
		})
		for i, p := range ps {
			perm[i] = p.row
		}
		return perm
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = colText(d, k, i)
	}
	// URLs share long prefixes: compare the 8 bytes after the common prefix
	// as a number first, and whole strings only when those are equal.
	lcp := 0
	if n > 0 {
		p := keys[0]
		for _, s := range keys[1:] {
			p = p[:sharedLen(p, s)]
		}
		lcp = len(p)
	}
	type pair struct {
		pk  uint64
		row int32
	}
	ps := make([]pair, n)
	for i, s := range keys {
		ps[i] = pair{prefixKey(s, lcp), int32(i)}
	}
	slices.SortFunc(ps, func(a, b pair) int {
		c := 0
		switch {
		case a.pk < b.pk:
			c = -1
		case a.pk > b.pk:
			c = 1
		default:
			c = strings.Compare(keys[a.row][lcp:], keys[b.row][lcp:])
		}
		if c != 0 {
			if desc {
				return -c
			}
			return c
		}
		return int(a.row - b.row)
	})
	for i, p := range ps {
		perm[i] = p.row
	}
	return perm
}

// TestRadixSortMatchesComparison sorts keys of every shape both ways: few
// and many rows, few distinct keys, keys that span every bit (too wide to
// pack with the row), whole seconds in nanoseconds, and keys that share
// their low bits.
func TestRadixSortMatchesComparison(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := []struct {
		name string
		key  func() uint64
	}{
		{"few values", func() uint64 { return rng.Uint64N(5) }},
		{"16 bits", func() uint64 { return rng.Uint64N(1 << 16) }},
		{"all 64 bits", rng.Uint64},
		{"seconds in ns", func() uint64 { return uint64(1.6e18) + rng.Uint64N(1e8)*1e9 }},
		{"ms in ns", func() uint64 { return uint64(1.6e18) + rng.Uint64N(1e10)*1e6 }},
		{"multiples of 4096", func() uint64 { return rng.Uint64N(1<<40) << 12 }},
		{"thousands but a few", func() uint64 {
			// The span, 0 to 10¹⁵, is whole thousands; a few keys are not.
			switch r := rng.IntN(100); r {
			case 0:
				return 0
			case 1:
				return 1e15
			case 2:
				return rng.Uint64N(1000)*1000 + 7
			}
			return rng.Uint64N(1000) * 1000
		}},
		{"extremes", func() uint64 { return []uint64{0, math.MaxUint64, 1 << 63}[rng.IntN(3)] }},
	}
	for _, sh := range shapes {
		for _, n := range []int{0, 1, 2, 47, 48, 49, 1000, 70000} {
			keys := make([]uint64, n)
			rows := make([]int32, n)
			for i := range keys {
				keys[i] = sh.key()
				rows[i] = int32(n - i) // rows need not be in order
			}
			want := slices.Clone(rows)
			orig := slices.Clone(keys)
			idx := make([]int, n)
			for i := range idx {
				idx[i] = i
			}
			slices.SortStableFunc(idx, func(a, b int) int {
				switch {
				case orig[a] < orig[b]:
					return -1
				case orig[a] > orig[b]:
					return 1
				}
				return 0
			})
			for j, i := range idx {
				want[j] = rows[i]
			}
			radixSort(keys, rows)
			if !slices.Equal(rows, want) {
				t.Fatalf("%s, %d rows: radix order differs from a stable comparison sort", sh.name, n)
			}
			for j := 1; j < n; j++ {
				if (keys[j] == keys[j-1]) != (orig[idx[j]] == orig[idx[j-1]]) || keys[j] < keys[j-1] {
					t.Fatalf("%s, %d rows: keys after the sort do not compare as before at %d", sh.name, n, j)
				}
			}
		}
	}
}

// TestSortTextRows sorts texts that share prefixes, are prefixes of one
// another, tie over many bytes and differ only in length.
func TestSortTextRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	word := func() string {
		const alphabet = "ab/.0Z"
		b := make([]byte, rng.IntN(30))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for _, n := range []int{0, 1, 5, 33, 500, 20000} {
		for _, prefix := range []string{"", "http://example.org/a/long/common/path/"} {
			texts := make([]string, n)
			for i := range texts {
				switch rng.IntN(4) {
				case 0:
					texts[i] = prefix + word()
				case 1:
					texts[i] = prefix + strings.Repeat("x", 8+rng.IntN(20)) // ties for several words
				case 2:
					texts[i] = prefix + strings.Repeat("x", rng.IntN(20)) + "\x00" // a NUL the key cannot see
				default:
					texts[i] = prefix
				}
			}
			text := func(i int32) string { return texts[i] }
			for _, desc := range []bool{false, true} {
				want := make([]int32, n)
				for i := range want {
					want[i] = int32(i)
				}
				slices.SortStableFunc(want, func(a, b int32) int {
					c := strings.Compare(texts[a], texts[b])
					if desc {
						return -c
					}
					return c
				})
				for _, how := range []string{"sortTextRows", "sortByTextKeys"} {
					rows := make([]int32, n)
					for i := range rows {
						rows[i] = int32(i)
					}
					if how == "sortTextRows" {
						sortTextRows(text, rows, 0, desc)
					} else {
						sortByTextKeys(textKeysOf(n, text), text, rows, desc)
					}
					if !slices.Equal(rows, want) {
						t.Fatalf("%s of %d texts, prefix %q, desc %v: order differs from a stable comparison sort", how, n, prefix, desc)
					}
				}
			}
		}
	}
}

// TestTextKeysPrefix finds the prefix every text shares also when the
// sample it guesses from misses the one text that leaves it early.
func TestTextKeysPrefix(t *testing.T) {
	const n = 20000
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("http://a.org/x/%06d", (i*7919)%n)
	}
	texts[5] = "http://b.org/" // row 5 is not among the rows sampled
	text := func(i int32) string { return texts[i] }
	tk := textKeysOf(n, text)
	if tk.depth != len("http://") || !tk.longer {
		t.Fatalf("depth %d longer %v, want %d and true", tk.depth, tk.longer, len("http://"))
	}
	// The keys, squeezed, compare as the 8 bytes after the prefix do.
	cmp := func(a, b uint64) int {
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	}
	for i := 1; i < n; i++ {
		j := (i * 7) % n
		if got, want := cmp(tk.keys[i], tk.keys[j]), cmp(prefixKey(texts[i], tk.depth), prefixKey(texts[j], tk.depth)); got != want {
			t.Fatalf("keys of rows %d and %d compare %d, their texts' 8 bytes after the prefix %d", i, j, got, want)
		}
	}
}

// TestSortLarge sorts more rows than one goroutine sorts alone.
func TestSortLarge(t *testing.T) {
	n := 1<<17 + 4321
	if splitFor(n).workers < 2 {
		t.Logf("GOMAXPROCS is 1: the parallel passes run on one goroutine")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	texts := make([]string, n)
	keys := make([]uint64, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("http://e.org/%d/%d", rng.IntN(5000), rng.IntN(50))
		keys[i] = uint64(rng.IntN(1 << 30))
	}
	keys[7] = math.MaxUint64 // too wide to pack: the wide path
	for _, wide := range []bool{false, true} {
		k := slices.Clone(keys)
		if !wide {
			k[7] = 0
		}
		orig := slices.Clone(k)
		rows := make([]int32, n)
		for i := range rows {
			rows[i] = int32(i)
		}
		radixSort(k, rows)
		for j := 1; j < n; j++ {
			a, b := orig[rows[j-1]], orig[rows[j]]
			if a > b || (a == b && rows[j-1] > rows[j]) {
				t.Fatalf("wide %v: rows %d and %d out of order", wide, rows[j-1], rows[j])
			}
		}
	}
	text := func(i int32) string { return texts[i] }
	rows := make([]int32, n)
	for i := range rows {
		rows[i] = int32(i)
	}
	sortByTextKeys(textKeysOf(n, text), text, rows, true)
	for j := 1; j < n; j++ {
		a, b := texts[rows[j-1]], texts[rows[j]]
		if a < b || (a == b && rows[j-1] > rows[j]) {
			t.Fatalf("texts of rows %d and %d out of order", rows[j-1], rows[j])
		}
	}
}

// TestSortPermMatchesComparison sorts documents by every column they show,
// both ways, loaded or not, and compares with the comparison sort.
func TestSortPermMatchesComparison(t *testing.T) {
	big := exBigDocument(t, 3000)
	// A Change List with missing and invalid datetimes, links and repeated
	// locs, and a Capability List.
	cl := newDocument(exHost+"/cl.xml", 1)
	cl.header = &model.Header{Root: model.RootURLSet}
	cl.header.MD.Capability = model.CapChangeList
	changes := []model.Change{model.ChangeCreated, model.ChangeUpdated, model.ChangeDeleted}
	for i := range 3000 {
		e := model.Entry{Index: i, HasLoc: true, Loc: fmt.Sprintf("%s/r/%d", exHost, i%700)}
		e.MD.Present = true
		e.MD.Change = changes[i%3]
		switch i % 5 {
		case 0:
			e.MD.Datetime, _ = model.ParseDatetime(fmt.Sprintf("2013-01-%02dT%02d:00:00Z", 1+i%28, i%24))
		case 1:
			e.MD.Datetime = model.Datetime{Raw: "yesterday"}
		case 2:
			e.Lastmod, _ = model.ParseDatetime(fmt.Sprintf("2013-02-%02d", 1+i%28))
		case 3:
			e.MD.Datetime, _ = model.ParseDatetime(fmt.Sprintf("2013-01-02T10:00:%02d.%dZ", i%60, i%7))
			e.Links = []model.Link{{Rel: "alternate", Href: "x"}}
		}
		if i%11 == 0 {
			e.MD.Length, e.MD.LengthRaw, e.MD.LengthOK = int64(i), fmt.Sprint(i), true
		}
		cl.entries.Append(&e)
	}
	for _, d := range []*document{big, cl} {
		kinds := columnsFor(d.capability(), d.root(), false)
		for _, k := range append(kinds, colLinks) {
			for _, desc := range []bool{false, true} {
				for _, frozen := range []bool{false, true} {
					want := exSortPermCompare(d, d.entries.Len(), k, desc)
					got := sortPerm(d, d.entries.Len(), k, desc, frozen)
					if !slices.Equal(got, want) {
						t.Errorf("%s by %s desc=%v frozen=%v: the radix order differs from the comparison sort", d.title(), k.name(), desc, frozen)
					}
				}
			}
		}
	}
}

// BenchmarkRadixSort1M is radixSort alone on a million keys of a few shapes.
func BenchmarkRadixSort1M(b *testing.B) {
	const n = 1 << 20
	rng := rand.New(rand.NewPCG(5, 6))
	shapes := []struct {
		name string
		key  func(i int) uint64
	}{
		{"13 bits", func(i int) uint64 { return uint64(1000 + i%5000) }},
		{"seconds in ns", func(i int) uint64 { return uint64(1.6e18) + rng.Uint64N(6e7)*1e9 }},
		{"64 bits", func(int) uint64 { return rng.Uint64() }},
	}
	for _, sh := range shapes {
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = sh.key(i)
		}
		b.Run(sh.name, func(b *testing.B) {
			k := make([]uint64, n)
			rows := make([]int32, n)
			for b.Loop() {
				copy(k, keys)
				for i := range rows {
					rows[i] = int32(i)
				}
				radixSort(k, rows)
			}
		})
	}
}

// TestSortByCopyFollowsItsStates: the copy column's states arrive after
// the load (and again after a sync or :dest), so a loaded document's sort
// by it reads them as they are now, never keys cached from an earlier sort.
func TestSortByCopyFollowsItsStates(t *testing.T) {
	const n = 3000
	d := exBigDocument(t, n)
	d.local = &localCopy{states: make([]atomic.Uint32, n)}
	states := []session.LocalState{session.LocalSame, session.LocalChanged, session.LocalMissing, session.LocalModified}
	for round := range 3 {
		for i := range n {
			d.local.states[i].Store(uint32(states[(i*7+round)%len(states)]))
		}
		for _, desc := range []bool{false, true} {
			want := exSortPermCompare(d, n, colCopy, desc)
			if got := sortPerm(d, n, colCopy, desc, true); !slices.Equal(got, want) {
				t.Errorf("round %d desc=%v: the sort by copy is not that of the states now", round, desc)
			}
		}
	}
}
