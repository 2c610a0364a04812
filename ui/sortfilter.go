package ui

import (
	"context"
	"encoding/binary"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// colKeys caches the sort and filter keys of columns whose accessors
// allocate (datetimes are rebuilt as text on every call). Keys are built
// only for a document that has finished loading, in a Cmd, once per column.
type colKeys struct {
	mu    sync.Mutex
	times map[colKind][]int64
	upper map[colKind][]uint64 // bit i: entry i's text has an upper-case ASCII letter
	enums map[colKind]*enumCol
	texts map[colKind]*textSortKeys
}

// enumCol is a column with few distinct values (type, change, capability)
// as a value number per entry: a query is tested once per distinct value.
type enumCol struct {
	ids  []uint16
	vals []string
}

// isEnumCol tells whether column k has few distinct values.
func isEnumCol(k colKind) bool { return k == colType || k == colChange || k == colCapability }

// enum returns the value numbers of an enum column of a loaded document,
// building them on first use; nil when the column has too many values.
func (d *document) enum(k colKind) *enumCol { return d.enumIf(k, true) }

// enumIf is enum, building only when build is set.
func (d *document) enumIf(k colKind, build bool) *enumCol {
	d.keys.mu.Lock()
	defer d.keys.mu.Unlock()
	if e, ok := d.keys.enums[k]; ok || !build {
		return e
	}
	n := d.entries.Len()
	e := &enumCol{ids: make([]uint16, n)}
	index := map[string]uint16{}
	for i := range n {
		v := colText(d, k, i)
		id, ok := index[v]
		if !ok {
			if len(e.vals) == 1<<16-1 {
				e = nil
				break
			}
			id = uint16(len(e.vals))
			index[v] = id
			e.vals = append(e.vals, v)
		}
		e.ids[i] = id
	}
	if d.keys.enums == nil {
		d.keys.enums = map[colKind]*enumCol{}
	}
	d.keys.enums[k] = e
	return e
}

// timeKeys returns the keys of a datetime column of a loaded document,
// building them on first use. It is safe to call from any goroutine.
func (d *document) timeKeys(k colKind) []int64 {
	d.keys.mu.Lock()
	defer d.keys.mu.Unlock()
	if ks, ok := d.keys.times[k]; ok {
		return ks
	}
	n := d.entries.Len()
	ks := make([]int64, n)
	for i := range ks {
		ks[i], _ = colNumKey(d, k, i)
	}
	d.keys.times[k] = ks
	return ks
}

// upperBits returns, for a text column of a loaded document, a bit per
// entry telling whether its text has an upper-case ASCII letter: the other
// entries (nearly all URLs) are searched case-insensitively with a plain,
// fast substring search.
func (d *document) upperBits(k colKind) []uint64 { return d.upperBitsIf(k, true) }

// upperBitsIf is upperBits, building only when build is set.
func (d *document) upperBitsIf(k colKind, build bool) []uint64 {
	d.keys.mu.Lock()
	defer d.keys.mu.Unlock()
	if bs, ok := d.keys.upper[k]; ok || !build {
		return bs
	}
	n := d.entries.Len()
	bs := make([]uint64, (n+63)/64)
	for i := range n {
		s := colText(d, k, i)
		for j := 0; j < len(s); j++ {
			if c := s[j]; c >= 'A' && c <= 'Z' {
				bs[i>>6] |= 1 << (i & 63)
				break
			}
		}
	}
	if d.keys.upper == nil {
		d.keys.upper = map[colKind][]uint64{}
	}
	d.keys.upper[k] = bs
	return bs
}

// textKeys returns the sort keys of a text column of a loaded document,
// building them on first use. It is safe to call from any goroutine.
func (d *document) textKeys(k colKind) *textSortKeys {
	if k == colPackage {
		k = colLoc // the same text
	}
	if isVolatileCol(k) {
		return textKeysOf(d.entries.Len(), textOf(d, k))
	}
	d.keys.mu.Lock()
	defer d.keys.mu.Unlock()
	if tk, ok := d.keys.texts[k]; ok {
		return tk
	}
	tk := textKeysOf(d.entries.Len(), textOf(d, k))
	if d.keys.texts == nil {
		d.keys.texts = map[colKind]*textSortKeys{}
	}
	d.keys.texts[k] = tk
	return tk
}

// cachedTimeKeys returns the keys of column k if they are built already.
func (d *document) cachedTimeKeys(k colKind) []int64 {
	d.keys.mu.Lock()
	defer d.keys.mu.Unlock()
	return d.keys.times[k]
}

// isVolatileCol tells whether column k's values change after the document
// has loaded (the copy's states arrive in the background, and again after a
// sync or :dest): its sort keys are never cached.
func isVolatileCol(k colKind) bool { return k == colCopy }

func isTimeCol(k colKind) bool {
	switch k {
	case colLastmod, colDatetime, colAt, colFrom, colUntil:
		return true
	}
	return false
}

// sortPerm returns the rows 0..n-1 sorted by column k, stable (equal keys
// keep document order, also when descending). frozen says the document has
// finished loading, so cached keys may be built and used; otherwise d may
// be a snapshot of a document still loading (document.snapshot), read from
// another goroutine.
func sortPerm(d *document, n int, k colKind, desc bool, frozen bool) []int32 {
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	if n < 2 {
		return perm
	}
	switch {
	case isNumericCol(k):
		var cached []int64
		if frozen && isTimeCol(k) {
			cached = d.timeKeys(k)
		}
		keys := make([]uint64, n)
		splitFor(n).run(func(_, from, to int) {
			for i := from; i < to; i++ {
				var v int64
				if cached != nil {
					v = cached[i]
				} else {
					v, _ = colNumKey(d, k, i)
				}
				keys[i] = orderedKey(v, desc)
			}
		})
		radixSort(keys, perm)
		return perm
	case frozen && isEnumCol(k):
		if e := d.enum(k); e != nil {
			// Few distinct values: each row's key is its value's rank.
			byText := make([]uint16, len(e.vals))
			for i := range byText {
				byText[i] = uint16(i)
			}
			slices.SortFunc(byText, func(a, b uint16) int { return strings.Compare(e.vals[a], e.vals[b]) })
			rank := make([]uint64, len(e.vals))
			for r, id := range byText {
				rank[id] = uint64(r)
				if desc {
					rank[id] = ^uint64(r)
				}
			}
			keys := make([]uint64, n)
			for i, id := range e.ids[:n] {
				keys[i] = rank[id]
			}
			radixSort(keys, perm)
			return perm
		}
	}
	text := textOf(d, k)
	var tk *textSortKeys
	if frozen {
		tk = d.textKeys(k)
	}
	if tk == nil || len(tk.keys) != n {
		tk = textKeysOf(n, text)
	}
	sortByTextKeys(tk, text, perm, desc)
	return perm
}

// textOf reads the text of column k for the sort.
func textOf(d *document, k colKind) func(int32) string {
	t := d.entries
	switch k {
	case colLoc, colPackage:
		return func(i int32) string { return t.Loc(int(i)) } // what colText gives, without its switch
	case colPath:
		return func(i int32) string { return t.Path(int(i)) }
	}
	return func(i int32) string { return colText(d, k, int(i)) }
}

// orderedKey maps a signed key to an unsigned one of the same order
// (reversed when desc).
func orderedKey(v int64, desc bool) uint64 {
	u := uint64(v) ^ 1<<63
	if desc {
		return ^u
	}
	return u
}

// prefixKey packs the 8 bytes of s after its first skip bytes, big-endian,
// so that numbers order like the strings (bytes past the end count as 0).
func prefixKey(s string, skip int) uint64 {
	if skip+8 <= len(s) {
		return binary.BigEndian.Uint64(unsafe.Slice(unsafe.StringData(s[skip:]), 8))
	}
	var k uint64
	for j := range 8 {
		k <<= 8
		if p := skip + j; p < len(s) {
			k |= uint64(s[p])
		}
	}
	return k
}

// filterQuery is a parsed filter: a substring, and optionally the one
// column it applies to ("type:text/html", "change:deleted"). A query that
// is the beginning of a datetime ("2013-01", "2013-01-02T13") also selects
// the entries whose datetimes fall in that period.
type filterQuery struct {
	raw    string
	text   string // lower-cased when fold
	fold   bool   // case-insensitive: the query has no upper-case letter
	col    colKind
	hasCol bool

	isDate bool
	lo, hi int64 // the period, Unix nanoseconds [lo, hi)
	isHex  bool  // looks like (part of) a digest: the hash column is searched

	// unknownCol is the name before the colon of a "name:text" query that
	// names no column of the document: the whole query is then searched as
	// text, and the filter line says so.
	unknownCol string
}

func parseFilter(s string, cols []colKind) filterQuery {
	q := filterQuery{raw: s, text: s}
	if name, rest, ok := strings.Cut(s, ":"); ok && !strings.Contains(name, "/") {
		if k, ok := colByName(name); ok {
			q.col, q.hasCol, q.text = k, true, rest
		} else if isColumnWord(name) && !strings.HasPrefix(rest, "//") {
			q.unknownCol = name
		}
	}
	q.fold = strings.ToLower(q.text) == q.text
	q.lo, q.hi, q.isDate = datePeriod(strings.TrimSpace(q.text))
	q.isHex = looksLikeDigest(q.text)
	return q
}

// datePeriod reads the beginning of a W3C datetime (YYYY, YYYY-MM,
// YYYY-MM-DD, then THH, THH:MM, THH:MM:SS, optionally ending in Z) as the
// period it names.
// isColumnWord tells whether name could be meant as a column name: ASCII
// letters only (so that "http://…", "md5:…" and times are not taken for one).
func isColumnWord(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

func datePeriod(s string) (lo, hi int64, ok bool) {
	s = strings.TrimSuffix(s, "Z")
	layouts := []struct {
		layout string
		next   func(time.Time) time.Time
	}{
		{"2006", func(t time.Time) time.Time { return t.AddDate(1, 0, 0) }},
		{"2006-01", func(t time.Time) time.Time { return t.AddDate(0, 1, 0) }},
		{"2006-01-02", func(t time.Time) time.Time { return t.AddDate(0, 0, 1) }},
		{"2006-01-02T15", func(t time.Time) time.Time { return t.Add(time.Hour) }},
		{"2006-01-02T15:04", func(t time.Time) time.Time { return t.Add(time.Minute) }},
		{"2006-01-02T15:04:05", func(t time.Time) time.Time { return t.Add(time.Second) }},
	}
	for _, l := range layouts {
		if len(s) != len(l.layout) {
			continue
		}
		t, err := time.Parse(l.layout, s)
		if err != nil {
			return 0, 0, false
		}
		return t.UnixNano(), l.next(t).UnixNano(), true
	}
	return 0, 0, false
}

// looksLikeDigest tells whether q could be part of a hash attribute: six
// or more hex digits, or an algorithm prefix ("md5:", "sha-256:").
func looksLikeDigest(q string) bool {
	q = strings.ToLower(q)
	if strings.HasPrefix(q, "md5:") || strings.HasPrefix(q, "sha") {
		return true
	}
	if len(q) < 6 {
		return false
	}
	for i := 0; i < len(q); i++ {
		c := q[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// rowMatcher tests entries against a query. Plain queries look at the loc
// and the attributes that cost nothing to read (type, change, capability,
// path); datetimes when the query is a date, the hash when it looks like a
// digest.
type rowMatcher struct {
	d     *document
	q     filterQuery
	str   []colKind  // substring columns
	upper [][]uint64 // per str column, when built: which entries have upper case
	enums []*enumCol // per str column, when built: value numbers …
	hits  [][]bool   // … and whether each value matches
	times []colKind  // period columns
	keys  [][]int64  // per times column; nil: read through the table
}

// How newMatcher may use a document's cached keys.
type keyUse uint8

const (
	keysNone  keyUse = iota // the document is loading: read the table
	keysPeek                // use the keys built already, build none
	keysBuild               // build what is missing (off the UI goroutine)
)

// newMatcher prepares q over a document showing cols.
func newMatcher(d *document, q filterQuery, cols []colKind, use keyUse) *rowMatcher {
	m := &rowMatcher{d: d, q: q}
	consider := func(k colKind) {
		switch {
		case isTimeCol(k):
			if q.isDate {
				m.times = append(m.times, k)
			} else if q.hasCol {
				m.str = append(m.str, k)
			}
		case k == colHash:
			if q.isHex || q.hasCol {
				m.str = append(m.str, k)
			}
		case k == colLength || k == colPart || k == colLinks:
			if q.hasCol {
				m.str = append(m.str, k)
			}
		default:
			m.str = append(m.str, k)
		}
	}
	if q.hasCol {
		consider(q.col)
	} else {
		consider(colLoc)
		for _, k := range cols {
			if k != colLoc && k != colPackage {
				consider(k)
			}
		}
	}
	for _, k := range m.times {
		var ks []int64
		switch use {
		case keysBuild:
			ks = d.timeKeys(k)
		case keysPeek:
			ks = d.cachedTimeKeys(k)
		}
		m.keys = append(m.keys, ks)
	}
	m.upper = make([][]uint64, len(m.str))
	m.enums = make([]*enumCol, len(m.str))
	m.hits = make([][]bool, len(m.str))
	if use != keysNone {
		build := use == keysBuild
		for j, k := range m.str {
			switch {
			case q.fold && (k == colLoc || k == colPackage || k == colPath):
				m.upper[j] = d.upperBitsIf(k, build)
			case isEnumCol(k):
				if e := d.enumIf(k, build); e != nil {
					m.enums[j] = e
					m.hits[j] = make([]bool, len(e.vals))
					for vi, v := range e.vals {
						m.hits[j][vi] = containsQuery(v, &q)
					}
				}
			}
		}
	}
	return m
}

// match tells whether entry i matches.
func (m *rowMatcher) match(i int) bool {
	for j, k := range m.str {
		if e := m.enums[j]; e != nil {
			if m.hits[j][e.ids[i]] {
				return true
			}
			continue
		}
		s := colText(m.d, k, i)
		if up := m.upper[j]; up != nil && up[i>>6]&(1<<(i&63)) == 0 {
			// No upper case: the lower-case query is a plain substring.
			if strings.Contains(s, m.q.text) {
				return true
			}
			continue
		}
		if containsQuery(s, &m.q) {
			return true
		}
	}
	for j, k := range m.times {
		var t int64
		if ks := m.keys[j]; ks != nil {
			t = ks[i]
		} else {
			t, _ = colNumKey(m.d, k, i)
		}
		if t >= m.q.lo && t < m.q.hi {
			return true
		}
	}
	return false
}

// containsQuery is a substring test, ASCII case-insensitive when q.fold.
func containsQuery(s string, q *filterQuery) bool {
	if q.text == "" {
		return true
	}
	if !q.fold {
		return strings.Contains(s, q.text)
	}
	return containsFoldASCII(s, q.text)
}

// containsFoldASCII reports whether s contains the lower-case needle,
// folding ASCII upper-case letters of s, without allocating.
func containsFoldASCII(s, needle string) bool {
	n := len(needle)
	if n == 0 {
		return true
	}
	if n > len(s) {
		return false
	}
	c0 := needle[0]
	up0 := c0
	if c0 >= 'a' && c0 <= 'z' {
		up0 = c0 - 'a' + 'A'
	}
	for i := 0; i <= len(s)-n; i++ {
		c := s[i]
		if c != c0 && c != up0 {
			// Skip ahead to the next candidate first byte.
			j := indexEither(s[i+1:len(s)-n+1], c0, up0)
			if j < 0 {
				return false
			}
			i += j
			continue
		}
		k := 1
		for ; k < n; k++ {
			b := s[i+k]
			if b >= 'A' && b <= 'Z' {
				b += 'a' - 'A'
			}
			if b != needle[k] {
				break
			}
		}
		if k == n {
			return true
		}
	}
	return false
}

// indexEither returns the index of the first a or b in s, or -1.
func indexEither(s string, a, b byte) int {
	i := strings.IndexByte(s, a)
	if a == b {
		return i
	}
	j := strings.IndexByte(s, b)
	switch {
	case i < 0:
		return j
	case j < 0:
		return i
	}
	return min(i, j)
}

// filterRows returns the rows of order (nil: 0..n-1) that m matches, in
// that order, scanning in parallel chunks. It stops early when ctx is done.
func filterRows(ctx context.Context, m *rowMatcher, n int, order []int32) []int32 {
	if order != nil {
		n = len(order)
	}
	workers := min(runtime.GOMAXPROCS(0), 8)
	if n < 50000 {
		workers = 1
	}
	chunk := (n + workers - 1) / max(workers, 1)
	results := make([][]int32, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, n)
		if lo >= hi {
			continue
		}
		wg.Go(func() {
			var out []int32
			for p := lo; p < hi; p++ {
				if p&0xfff == 0 && ctx.Err() != nil {
					return
				}
				i := p
				if order != nil {
					i = int(order[p])
				}
				if m.match(i) {
					out = append(out, int32(i))
				}
			}
			results[w] = out
		})
	}
	wg.Wait()
	total := 0
	for _, r := range results {
		total += len(r)
	}
	out := make([]int32, 0, total)
	for _, r := range results {
		out = append(out, r...)
	}
	return out
}

// sortedMsg carries a sort computed in a Cmd.
type sortedMsg struct {
	doc  *document
	gen  int
	col  int
	desc bool
	n    int // rows sorted
	perm []int32
}

// filteredMsg carries a filter computed in a Cmd.
type filteredMsg struct {
	doc   *document
	gen   int
	query string
	n     int // rows scanned
	rows  []int32
}
