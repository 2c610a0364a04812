package ui

import (
	"math/bits"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Sorting a million rows in tens of milliseconds: every column's keys are
// turned into unsigned integers that order as the column does, and sorted
// by a least-significant-digit radix sort, which is stable (equal keys keep
// document order) and costs a few passes over the rows whatever the data.
// Text columns are sorted eight bytes at a time from the first byte in which
// their values differ (most significant first), rows that still tie going on
// to the next eight bytes.

// radixSort orders rows by keys, keys[i] being the key of rows[i]; equal
// keys keep their order. Both slices are reordered; keys are replaced by
// values that compare as the original keys did (equal stays equal, the order
// holds), which is all callers read of them afterwards. Large inputs are
// shared among the cores.
func radixSort(keys []uint64, rows []int32) {
	n := len(keys)
	if n < 2 {
		return
	}
	sp := splitFor(n)
	lo, hi, diff := spanOf(keys, sp)
	if lo == hi {
		return
	}
	if n <= 48 {
		insertionSort(keys, rows)
		return
	}
	posBits := bits.Len(uint(n - 1))
	// Only the bits in which the keys differ are sorted on: the minimum is
	// taken off; keys that are multiples of a power of ten apart (times in
	// nanoseconds are usually whole seconds) are divided by it; otherwise
	// the zero bits they all end in are shifted out, and when the keys are
	// still too wide to pack with a row's position, the bits that no key
	// changes (four of the eight of a digit in a text key) are squeezed out.
	tr := keyTransform{lo: lo, div: commonDecimal(keys, lo, hi)}
	var span int
	if tr.div != 1 {
		span = bits.Len64(scaleKey(hi-lo, tr.div))
	} else {
		tr.shift = uint(bits.TrailingZeros64(diff))
		span = bits.Len64((hi - lo) >> tr.shift)
		if span+posBits > 64 && bits.OnesCount64(diff) < span {
			sq := newSqueeze(diff)
			tr = keyTransform{lo: sq.apply(lo), div: 1, sq: &sq}
			span = bits.Len64(sq.apply(hi) - tr.lo)
		}
	}
	if span+posBits <= 64 {
		radixPacked(keys, rows, tr, span, posBits, sp)
		return
	}
	radixWide(keys, rows, tr, span, sp)
}

// split is how a pass over n elements is shared among the cores: in
// chunks, more than there are goroutines, which take them in turn, so that
// a goroutine the system leaves waiting holds the others up by a chunk, not
// by half the pass.
type split struct {
	n, chunks, workers int
}

// splitFor shares a pass over n elements: alone below 2¹⁷ elements,
// otherwise among up to 4 goroutines, in 4 chunks each.
func splitFor(n int) split {
	w := min(runtime.GOMAXPROCS(0), 4)
	if n < 1<<17 || w < 2 {
		return split{n: n, chunks: 1, workers: 1}
	}
	return split{n: n, chunks: 4 * w, workers: w}
}

// run calls f for each chunk [lo, hi) of [0, n), c numbering them in order,
// and returns when all are done. The same split gives the same chunks.
func (sp split) run(f func(c, lo, hi int)) {
	if sp.chunks <= 1 {
		f(0, 0, sp.n)
		return
	}
	size := (sp.n + sp.chunks - 1) / sp.chunks
	var next atomic.Int32
	work := func() {
		for {
			c := int(next.Add(1)) - 1
			if c >= sp.chunks {
				return
			}
			if lo, hi := c*size, min((c+1)*size, sp.n); lo < hi {
				f(c, lo, hi)
			}
		}
	}
	var wg sync.WaitGroup
	for range sp.workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// spanOf is the least and greatest key, and the bits in which some key
// differs from the first.
func spanOf(keys []uint64, sp split) (lo, hi, diff uint64) {
	los, his, diffs := make([]uint64, sp.chunks), make([]uint64, sp.chunks), make([]uint64, sp.chunks)
	first := keys[0]
	for c := range sp.chunks {
		los[c], his[c] = first, first
	}
	sp.run(func(c, from, to int) {
		l, h, d := first, first, uint64(0)
		for _, k := range keys[from:to] {
			l = min(l, k)
			h = max(h, k)
			d |= k ^ first
		}
		los[c], his[c], diffs[c] = l, h, d
	})
	lo, hi = first, first
	for c := range sp.chunks {
		lo, hi, diff = min(lo, los[c]), max(hi, his[c]), diff|diffs[c]
	}
	return lo, hi, diff
}

// keyTransform maps a key to the bits radixSort sorts on, keeping order
// and equality.
type keyTransform struct {
	lo    uint64   // taken off first (after squeezing)
	div   uint64   // then divided by (1, or a power of ten of commonDecimal)
	shift uint     // then shifted right by
	sq    *squeeze // when set: squeezed, less lo
}

func (tr *keyTransform) apply(k uint64) uint64 {
	switch {
	case tr.sq != nil:
		return tr.sq.apply(k) - tr.lo
	case tr.div != 1:
		return scaleKey(k-tr.lo, tr.div)
	}
	return (k - tr.lo) >> tr.shift
}

// squeeze drops the bits of a key that are 0 in a mask, keeping the others
// in their order (a PEXT), a byte at a time through tables: keys that agree
// in the dropped bits order as they did.
type squeeze struct {
	bytes []uint8      // the positions of the bytes that keep bits, least significant first
	shift []uint8      // where each one's kept bits go
	table [][256]uint8 // each byte value's kept bits, packed
}

func newSqueeze(mask uint64) squeeze {
	var sq squeeze
	out := 0
	for p := range 8 {
		m := uint8(mask >> (8 * p))
		if m == 0 {
			continue
		}
		var t [256]uint8
		for b := range 256 {
			var v uint8
			k := 0
			for bit := range 8 {
				if m&(1<<bit) != 0 {
					v |= uint8(b>>bit&1) << k
					k++
				}
			}
			t[b] = v
		}
		sq.bytes = append(sq.bytes, uint8(p))
		sq.shift = append(sq.shift, uint8(out))
		sq.table = append(sq.table, t)
		out += bits.OnesCount8(m)
	}
	return sq
}

func (sq *squeeze) apply(k uint64) uint64 {
	var v uint64
	for j, p := range sq.bytes {
		v |= uint64(sq.table[j][uint8(k>>(8*p))]) << sq.shift[j]
	}
	return v
}

// insertionSort is radixSort for a few rows.
func insertionSort(keys []uint64, rows []int32) {
	for i := 1; i < len(keys); i++ {
		k, r := keys[i], rows[i]
		j := i
		for ; j > 0 && keys[j-1] > k; j-- {
			keys[j], rows[j] = keys[j-1], rows[j-1]
		}
		keys[j], rows[j] = k, r
	}
}

// commonDecimal is the largest of 10⁹, 10⁶ and 10³ that divides every key
// less lo, or 1. It is asked only of keys that span more than 16 bits, and
// gives up at the first key it does not divide.
func commonDecimal(keys []uint64, lo, hi uint64) uint64 {
	if bits.Len64(hi-lo) <= 16 {
		return 1
	}
	divides := func(d uint64) bool {
		for _, k := range keys {
			if scaleRem(k-lo, d) != 0 {
				return false
			}
		}
		return true
	}
	for _, d := range []uint64{1e9, 1e6, 1e3} {
		if (hi-lo)%d == 0 && divides(d) {
			return d
		}
	}
	return 1
}

// scaleKey is v/d for the divisors of commonDecimal, each a constant the
// compiler divides by with a multiplication.
func scaleKey(v, d uint64) uint64 {
	switch d {
	case 1e9:
		return v / 1e9
	case 1e6:
		return v / 1e6
	case 1e3:
		return v / 1e3
	}
	return v
}

// scaleRem is v%d for the divisors of commonDecimal.
func scaleRem(v, d uint64) uint64 {
	switch d {
	case 1e9:
		return v % 1e9
	case 1e6:
		return v % 1e6
	case 1e3:
		return v % 1e3
	}
	return 0
}

// digits splits keyBits bits into passes of at most 11 bits, evenly: 26 bits
// are three passes of 9 bits (a count table of 512 fits the cache).
func digits(keyBits int) (passes, width int) {
	passes = (keyBits + 10) / 11
	width = (keyBits + passes - 1) / passes
	return passes, width
}

// radixPacked sorts when a key's significant bits and a row's position fit
// one word together: each pass moves 8 bytes per row.
func radixPacked(keys []uint64, rows []int32, tr keyTransform, keyBits, posBits int, sp split) {
	n := len(keys)
	low := uint(posBits)
	a := make([]uint64, n)
	sp.run(func(_, from, to int) {
		for i := from; i < to; i++ {
			a[i] = tr.apply(keys[i])<<low | uint64(i)
		}
	})
	src, dst := a, make([]uint64, n)
	passes, width := digits(keyBits)
	for p := range passes {
		if passPacked(src, dst, low+uint(p*width), width, sp) {
			src, dst = dst, src
		}
	}
	old := slices.Clone(rows)
	pos := uint64(1)<<low - 1
	sp.run(func(_, from, to int) {
		for j := from; j < to; j++ {
			v := src[j]
			rows[j] = old[v&pos]
			keys[j] = v >> low
		}
	})
}

// passPacked moves src into dst ordered by the width bits of each element
// above bit sh, stably, on w goroutines. It moves nothing and reports false
// when every element has the same digit there.
func passPacked(src, dst []uint64, sh uint, width int, sp split) bool {
	n, size := len(src), 1<<width
	mask := uint64(size - 1)
	counts := make([]int, sp.chunks*size)
	sp.run(func(c, from, to int) {
		cnt := counts[c*size : (c+1)*size]
		for _, v := range src[from:to] {
			cnt[v>>sh&mask]++
		}
	})
	if !offsets(counts, size, sp.chunks, n) {
		return false
	}
	sp.run(func(c, from, to int) {
		off := counts[c*size : (c+1)*size]
		for _, v := range src[from:to] {
			b := v >> sh & mask
			dst[off[b]] = v
			off[b]++
		}
	})
	return true
}

// keyRow is a key and a row, sorted together when they do not fit one word.
type keyRow struct {
	key uint64
	row int32
}

// radixWide sorts keys of more significant bits than radixPacked can hold.
func radixWide(keys []uint64, rows []int32, tr keyTransform, keyBits int, sp split) {
	n := len(keys)
	a := make([]keyRow, n)
	sp.run(func(_, from, to int) {
		for i := from; i < to; i++ {
			a[i] = keyRow{tr.apply(keys[i]), rows[i]}
		}
	})
	src, dst := a, make([]keyRow, n)
	passes, width := digits(keyBits)
	for p := range passes {
		if passWide(src, dst, uint(p*width), width, sp) {
			src, dst = dst, src
		}
	}
	for j, v := range src {
		keys[j], rows[j] = v.key, v.row
	}
}

// passWide is passPacked for keyRow elements.
func passWide(src, dst []keyRow, sh uint, width int, sp split) bool {
	n, size := len(src), 1<<width
	mask := uint64(size - 1)
	counts := make([]int, sp.chunks*size)
	sp.run(func(c, from, to int) {
		cnt := counts[c*size : (c+1)*size]
		for _, v := range src[from:to] {
			cnt[v.key>>sh&mask]++
		}
	})
	if !offsets(counts, size, sp.chunks, n) {
		return false
	}
	sp.run(func(c, from, to int) {
		off := counts[c*size : (c+1)*size]
		for _, v := range src[from:to] {
			b := v.key >> sh & mask
			dst[off[b]] = v
			off[b]++
		}
	})
	return true
}

// offsets turns the counts of a pass's digits in each of the chunks (size
// digits a chunk) into the position of each chunk's first element of each
// digit: digit by digit, chunk by chunk, so that the pass is stable. It
// reports false when one digit has all n elements (the pass would move
// nothing).
func offsets(counts []int, size, chunks, n int) bool {
	sum := 0
	for b := range size {
		total := 0
		for c := range chunks {
			x := counts[c*size+b]
			counts[c*size+b] = sum
			sum += x
			total += x
		}
		if total == n {
			return false
		}
	}
	return true
}

// textSortKeys are the sort keys of a text column: each row's 8 bytes after
// the prefix that every row's text shares, less the bits in which no row's
// differ (so that they pack with a row's position in radixSort).
type textSortKeys struct {
	depth  int      // the length of the shared prefix
	keys   []uint64 // prefixKey(text, depth) of each row, squeezed
	longer bool     // some text goes on past depth+8
}

// textKeysOf builds the sort keys of rows 0..n-1, reading each text once
// (texts lie scattered in memory: reading is what costs): the shared prefix
// is guessed from a sample and confirmed, or corrected, as the keys are
// built.
func textKeysOf(n int, text func(int32) string) *textSortKeys {
	tk := &textSortKeys{keys: make([]uint64, n)}
	if n == 0 {
		return tk
	}
	guess := text(0)
	for j := range 64 {
		guess = guess[:sharedLen(guess, text(int32(j*(n-1)/63)))]
	}
	sp := splitFor(n)
	shared, longer := make([]int, sp.chunks), make([]bool, sp.chunks)
	build := func(depth int) {
		prefix := guess[:depth]
		for c := range shared {
			shared[c] = depth // for a chunk left empty
		}
		sp.run(func(c, from, to int) {
			p, long := prefix, false
			for i := from; i < to; i++ {
				s := text(int32(i))
				if !strings.HasPrefix(s, p) {
					p = p[:sharedLen(p, s)]
				}
				tk.keys[i] = prefixKey(s, depth)
				long = long || len(s) > depth+8
			}
			shared[c], longer[c] = len(p), long
		})
	}
	build(len(guess))
	if depth := slices.Min(shared); depth < len(guess) {
		// The sample missed a text that leaves the prefix early: once more,
		// from the prefix they all share.
		build(depth)
	}
	tk.depth = slices.Min(shared)
	tk.longer = slices.Contains(longer, true)
	_, _, diff := spanOf(tk.keys, sp)
	if bits.OnesCount64(diff) < bits.Len64(diff) {
		sq := newSqueeze(diff)
		sp.run(func(_, from, to int) {
			for i := from; i < to; i++ {
				tk.keys[i] = sq.apply(tk.keys[i])
			}
		})
	}
	return tk
}

// sharedLen is the length of the prefix a and b share.
func sharedLen(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// sortByTextKeys orders rows 0..n-1 (rows, in that order) by the texts whose
// keys tk holds, descending when desc; equal texts keep their order.
func sortByTextKeys(tk *textSortKeys, text func(int32) string, rows []int32, desc bool) {
	n := len(rows)
	keys := make([]uint64, n)
	flip := uint64(0)
	if desc {
		flip = ^flip
	}
	splitFor(n).run(func(_, from, to int) {
		for i := from; i < to; i++ {
			keys[i] = tk.keys[i] ^ flip
		}
	})
	radixSort(keys, rows)
	sortTies(keys, rows, text, tk.depth, tk.longer, desc)
}

// sortTextRows orders rows by text(row), byte-wise, descending when desc;
// equal texts keep their order. Every text agrees on its first depth bytes.
func sortTextRows(text func(int32) string, rows []int32, depth int, desc bool) {
	n := len(rows)
	if n < 2 {
		return
	}
	if n <= 32 {
		compareTextRows(text, rows, desc)
		return
	}
	keys := make([]uint64, n)
	longer := false // some text goes on after these 8 bytes
	for i, r := range rows {
		s := text(r)
		k := prefixKey(s, depth)
		if desc {
			k = ^k
		}
		keys[i] = k
		longer = longer || len(s) > depth+8
	}
	radixSort(keys, rows)
	sortTies(keys, rows, text, depth, longer, desc)
}

// sortTies orders the rows whose keys (the 8 bytes of their texts from
// depth) tie, rows and keys being sorted by those keys: by the bytes that
// follow, or, when no text goes on past them (longer is false), by length.
func sortTies(keys []uint64, rows []int32, text func(int32) string, depth int, longer bool, desc bool) {
	n := len(rows)
	for i := 0; i < n; {
		j := i + 1
		for j < n && keys[j] == keys[i] {
			j++
		}
		if j-i > 1 {
			if longer {
				sortTextRows(text, rows[i:j], depth+8, desc)
			} else {
				// Texts that end within these bytes and tie agree but
				// for trailing NUL bytes, which the key does not see:
				// the shorter is the smaller.
				sortByLength(text, rows[i:j], desc)
			}
		}
		i = j
	}
}

// compareTextRows is sortTextRows by comparison, for a few rows.
func compareTextRows(text func(int32) string, rows []int32, desc bool) {
	slices.SortStableFunc(rows, func(a, b int32) int {
		c := strings.Compare(text(a), text(b))
		if desc {
			return -c
		}
		return c
	})
}

// sortByLength orders rows by the length of their texts, shortest first
// (last when desc), equal lengths in their order.
func sortByLength(text func(int32) string, rows []int32, desc bool) {
	first := len(text(rows[0]))
	if !slices.ContainsFunc(rows, func(r int32) bool { return len(text(r)) != first }) {
		return // equal texts, the common case
	}
	slices.SortStableFunc(rows, func(a, b int32) int {
		c := len(text(a)) - len(text(b))
		if desc {
			return -c
		}
		return c
	})
}
