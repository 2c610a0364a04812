package ui

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"rsx/fetch"
	"rsx/model"
)

// document is one ResourceSync document as the explorer holds it: loaded,
// loading or failed. Only the root model's goroutine changes it; the
// backend's goroutine sends what it finds as messages. Once loaded it does
// not change, so background sorts and filters may read its entries.
type document struct {
	gen   int    // load generation: messages of older loads are dropped
	url   string // as asked
	final string // after redirects ("" until known)

	header  *model.Header // nil until read
	entries *model.EntryTable

	// A combined view of an index: every part's entries in one table.
	parts     []string // part URLs; nil when not combined
	partOf    []int32  // part index of each entry
	partsDone int
	partErrs  []string

	loading  bool
	started  time.Time
	bytes    int64 // decoded bytes read so far
	total    int64 // expected bytes, -1 unknown
	err      error
	exchange *fetch.Exchange
	problems []model.Problem
	nErrors  int // exact counts, also beyond the problems stored
	nWarns   int
	raw      []byte // the document's bytes, nil when too large
	crumbs   []Crumb
	cancel   context.CancelFunc
	keys     *colKeys
}

func newDocument(url string, gen int) *document {
	return &document{gen: gen, url: url, total: -1, entries: model.NewEntryTable(), keys: &colKeys{times: map[colKind][]int64{}}}
}

// displayOrigin is the origin whose locs the table shows from their path:
// the document's own, or for a local file that of its first entry.
func (d *document) displayOrigin() string {
	if o := originOf(d.base()); o != "" {
		return o
	}
	if d.entries.Len() > 0 {
		return originOf(d.entries.Loc(0))
	}
	return ""
}

// base is the URL relative references are resolved against.
func (d *document) base() string {
	if d.final != "" {
		return d.final
	}
	return d.url
}

// capability of the document ("" until the header is read).
func (d *document) capability() model.Capability {
	if d.header == nil {
		return ""
	}
	return d.header.MD.Capability
}

// root element kind of the document.
func (d *document) root() model.RootKind {
	if d.header == nil {
		return model.RootUnknown
	}
	return d.header.Root
}

// isIndex tells whether the document is a <sitemapindex> shown part by part.
func (d *document) isIndex() bool { return d.parts == nil && d.root() == model.RootSitemapIndex }

// title is the document type in words: "Resource List Index", or "All
// parts of …" for a combined view.
func (d *document) title() string {
	if d.header == nil {
		if d.loading {
			return "Loading…"
		}
		return "Document"
	}
	t := documentTitle(d.header.MD.Capability, d.header.Root)
	if d.parts != nil {
		return "All entries of " + t
	}
	return t
}

// isResourceSync tells whether the header read is a ResourceSync document.
func (d *document) isResourceSync() bool {
	return d.header != nil && d.header.Root != model.RootUnknown && d.header.MD.Capability != ""
}

// problemCounts counts errors and warnings.
func (d *document) problemCounts() (errs, warns int) { return d.nErrors, d.nWarns }

// link returns the document-level link with relation rel, resolved.
func (d *document) link(rel string) string { return linkHref(d.header, rel, d.base()) }

// cancelLoad stops a load in flight.
func (d *document) cancelLoad() {
	if d.cancel != nil {
		d.cancel()
		d.cancel = nil
	}
}

// entriesAreDocuments tells whether the entries point at other
// ResourceSync documents (Capability Lists, lists, index parts).
func (d *document) entriesAreDocuments() bool {
	if d.parts != nil {
		return false
	}
	return entryIsDocument(d.capability(), d.root())
}

// entriesArePackages tells whether the entries are dump packages.
func (d *document) entriesArePackages() bool {
	if d.parts != nil {
		return entryIsPackage(d.capability(), model.RootURLSet)
	}
	return entryIsPackage(d.capability(), d.root())
}

// documentTitle names a document type in words.
func documentTitle(c model.Capability, root model.RootKind) string {
	return model.DocumentTitle(c, root)
}

// entryIsDocument tells whether the entries of a document of capability c
// (root root) point at other ResourceSync documents rather than resources.
func entryIsDocument(c model.Capability, root model.RootKind) bool {
	if root == model.RootSitemapIndex {
		return true
	}
	switch c {
	case model.CapDescription, model.CapCapabilityList:
		return true
	}
	return false
}

// entryIsPackage tells whether entries are dump packages (ZIP files).
func entryIsPackage(c model.Capability, root model.RootKind) bool {
	return root != model.RootSitemapIndex && (c == model.CapResourceDump || c == model.CapChangeDump)
}

// shortURL drops the scheme of a URL for display.
func shortURL(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		return u[i+3:]
	}
	return u
}

// ---------------------------------------------------------------------------
// Columns

// colKind is a column a document view may show.
type colKind uint8

const (
	colLoc colKind = iota
	colLastmod
	colDatetime
	colChange
	colLength
	colType
	colHash
	colCapability
	colPath
	colAt
	colFrom
	colUntil
	colPart
	colLinks
	colPackage // loc of a dump's package
)

// colName is the column's title and its name in "name:value" filters.
var colNames = [...]string{
	colLoc: "loc", colLastmod: "lastmod", colDatetime: "datetime", colChange: "change",
	colLength: "length", colType: "type", colHash: "hash", colCapability: "capability",
	colPath: "path", colAt: "at", colFrom: "from", colUntil: "until", colPart: "part",
	colLinks: "links", colPackage: "package",
}

func (k colKind) name() string { return colNames[k] }

// columnsFor chooses the columns that suit a document type.
func columnsFor(c model.Capability, root model.RootKind, combined bool) []colKind {
	var cols []colKind
	if combined {
		cols = append(cols, colPart)
	}
	if root == model.RootSitemapIndex && !combined {
		switch c {
		case model.CapChangeList, model.CapChangeDump:
			return append(cols, colLoc, colFrom, colUntil)
		default:
			return append(cols, colLoc, colAt)
		}
	}
	switch c {
	case model.CapDescription, model.CapCapabilityList:
		return append(cols, colCapability, colLoc, colLinks)
	case model.CapResourceList:
		return append(cols, colLoc, colLastmod, colLength, colType, colHash)
	case model.CapChangeList:
		return append(cols, colDatetime, colChange, colLoc, colLength, colType, colHash)
	case model.CapResourceDump:
		return append(cols, colPackage, colLength, colType, colAt)
	case model.CapChangeDump:
		return append(cols, colPackage, colLength, colType, colFrom, colUntil)
	case model.CapResourceDumpManifest:
		return append(cols, colPath, colLoc, colLastmod, colLength, colHash)
	case model.CapChangeDumpManifest:
		return append(cols, colPath, colChange, colDatetime, colLoc, colLength, colHash)
	}
	return append(cols, colLoc, colLastmod, colCapability, colType, colLength)
}

// colLayout is the width policy of a column kind. Columns are listed most
// important first; those that do not fit at their Min are left out (the
// detail pane shows everything).
func colLayout(k colKind) (minW, maxW, flex int, right bool, trunc int) {
	switch k {
	case colLoc, colPackage:
		return 24, 0, 6, false, truncMiddle
	case colPath:
		return 16, 48, 4, false, truncMiddle
	case colLastmod, colDatetime, colAt, colFrom, colUntil:
		return 20, 25, 0, false, truncEnd
	case colChange:
		return 7, 7, 0, false, truncEnd
	case colLength:
		return 9, 10, 0, true, truncEnd
	case colType:
		return 10, 24, 1, false, truncEnd
	case colHash:
		return 12, 45, 1, false, truncEnd
	case colCapability:
		return 14, 21, 1, false, truncEnd
	case colPart:
		return 4, 5, 0, true, truncEnd
	case colLinks:
		return 5, 5, 0, true, truncEnd
	}
	return 6, 0, 1, false, truncEnd
}

// displayLoc shortens a loc for the table: on the document's own host it
// is shown from its path (the host is in the title line), so that the part
// that tells entries apart fits; a loc on another host stays whole.
func displayLoc(origin, loc string) string {
	if origin == "" || len(loc) <= len(origin) || !strings.HasPrefix(loc, origin) || loc[len(origin)] != '/' {
		return loc
	}
	return loc[len(origin):]
}

// originOf is "scheme://host[:port]" of an absolute URL, "" otherwise.
func originOf(u string) string {
	i := strings.Index(u, "://")
	if i <= 0 {
		return ""
	}
	j := strings.IndexByte(u[i+3:], '/')
	if j < 0 {
		return u
	}
	return u[:i+3+j]
}

// colText is the cell text of column k for entry i of d.
func colText(d *document, k colKind, i int) string {
	t := d.entries
	switch k {
	case colLoc, colPackage:
		return t.Loc(i)
	case colLastmod:
		return t.Lastmod(i).Raw
	case colDatetime:
		if dt := t.Datetime(i); dt.Raw != "" {
			return dt.Raw
		}
		return t.Lastmod(i).Raw
	case colChange:
		return string(t.Change(i))
	case colLength:
		if n, ok := t.Length(i); ok {
			return formatLength(n)
		}
		return ""
	case colType:
		return t.Type(i)
	case colHash:
		return t.HashRaw(i)
	case colCapability:
		return string(t.Capability(i))
	case colPath:
		return t.Path(i)
	case colAt:
		return t.At(i).Raw
	case colFrom:
		return t.From(i).Raw
	case colUntil:
		return t.Until(i).Raw
	case colPart:
		if i < len(d.partOf) {
			return strconv.Itoa(int(d.partOf[i]) + 1)
		}
		return ""
	case colLinks:
		if n := t.LinkCount(i); n > 0 {
			return strconv.Itoa(n)
		}
		return ""
	}
	return ""
}

// colNumeric reports whether column k sorts by number (or time), and gives
// the key of entry i.
func colNumKey(d *document, k colKind, i int) (int64, bool) {
	t := d.entries
	dtKey := func(dt model.Datetime) int64 {
		if !dt.OK {
			return math.MinInt64
		}
		return dt.Time.UnixNano()
	}
	switch k {
	case colLength:
		if n, ok := t.Length(i); ok {
			return n, true
		}
		return -1, true
	case colLastmod:
		return dtKey(t.Lastmod(i)), true
	case colDatetime:
		if dt := t.Datetime(i); dt.Raw != "" {
			return dtKey(dt), true
		}
		return dtKey(t.Lastmod(i)), true
	case colAt:
		return dtKey(t.At(i)), true
	case colFrom:
		return dtKey(t.From(i)), true
	case colUntil:
		return dtKey(t.Until(i)), true
	case colPart:
		if i < len(d.partOf) {
			return int64(d.partOf[i]), true
		}
		return 0, true
	case colLinks:
		return int64(t.LinkCount(i)), true
	}
	return 0, false
}

func isNumericCol(k colKind) bool {
	switch k {
	case colLength, colLastmod, colDatetime, colAt, colFrom, colUntil, colPart, colLinks:
		return true
	}
	return false
}

// formatLength writes a byte count compactly: exact below 10,000 bytes.
func formatLength(n int64) string {
	if n < 10000 {
		return strconv.FormatInt(n, 10)
	}
	return fetch.FormatSize(n)
}

// ---------------------------------------------------------------------------
// Sorting and filtering

// colKeys caches the sort and filter keys of columns whose accessors
// allocate (datetimes are rebuilt as text on every call). Keys are built
// only for a document that has finished loading, in a Cmd, once per column.
type colKeys struct {
	mu    sync.Mutex
	times map[colKind][]int64
	upper map[colKind][]uint64 // bit i: entry i's text has an upper-case ASCII letter
	enums map[colKind]*enumCol
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

// cachedTimeKeys returns the keys of column k if they are built already.
func (d *document) cachedTimeKeys(k colKind) []int64 {
	d.keys.mu.Lock()
	defer d.keys.mu.Unlock()
	return d.keys.times[k]
}

func isTimeCol(k colKind) bool {
	switch k {
	case colLastmod, colDatetime, colAt, colFrom, colUntil:
		return true
	}
	return false
}

// sortPerm returns the rows 0..n-1 sorted by column k, stable (equal keys
// keep document order, also when descending). frozen says the document has
// finished loading, so cached keys may be built and used.
func sortPerm(d *document, n int, k colKind, desc bool, frozen bool) []int32 {
	perm := make([]int32, n)
	if isNumericCol(k) {
		type pair struct {
			key int64
			row int32
		}
		var keys []int64
		if frozen && isTimeCol(k) {
			keys = d.timeKeys(k)
		}
		ps := make([]pair, n)
		for i := range ps {
			if keys != nil {
				ps[i] = pair{keys[i], int32(i)}
			} else {
				kv, _ := colNumKey(d, k, i)
				ps[i] = pair{kv, int32(i)}
			}
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
	lcp := commonPrefixLen(keys)
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

// commonPrefixLen is the length of the prefix all of keys share.
func commonPrefixLen(keys []string) int {
	if len(keys) == 0 {
		return 0
	}
	p := keys[0]
	for _, s := range keys[1:] {
		n := min(len(p), len(s))
		i := 0
		for i < n && p[i] == s[i] {
			i++
		}
		p = p[:i]
		if p == "" {
			return 0
		}
	}
	return len(p)
}

// prefixKey packs the 8 bytes of s after its first skip bytes, big-endian,
// so that numbers order like the strings.
func prefixKey(s string, skip int) uint64 {
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
}

func parseFilter(s string, cols []colKind) filterQuery {
	q := filterQuery{raw: s, text: s}
	if name, rest, ok := strings.Cut(s, ":"); ok && !strings.Contains(name, "/") {
		for k := range colNames {
			if colNames[k] == strings.ToLower(name) {
				q.col, q.hasCol, q.text = colKind(k), true, rest
				break
			}
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

// ---------------------------------------------------------------------------
// Messages of the document view's background work

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

// ---------------------------------------------------------------------------
// The document view

// docFocus is which pane of the document view has the keyboard.
type docFocus uint8

const (
	focusTable docFocus = iota
	focusDetail
)

// docView is the page that shows one document: breadcrumbs, the entries
// table, the selected entry's detail pane and the status bar.
type docView struct {
	c   *Common
	doc *document

	kinds []colKind
	tbl   table

	// Sort: order is the sorted permutation of the first orderN rows; rows
	// that arrived later follow in document order until the next sort.
	sortCol     int // index in kinds, -1: document order
	sortDesc    bool
	order       []int32
	sortGen     int
	sortRunning bool

	// Filter.
	filterInput  lineInput
	filtering    bool // the input line has focus
	query        filterQuery
	filtered     []int32 // rows that match; nil: no filter
	filteredN    int     // rows 0..filteredN-1 of the (possibly sorted) order were scanned
	filterGen    int
	filterBusy   bool
	filterCancel context.CancelFunc
	pendingQuery string // applied once the running filter ends

	focus        docFocus
	detailScroll int
	showDocInfo  bool // the detail pane shows the document's own metadata and links

	width, height int
	tableTop      int // screen line of the table's header inside the view
	tableLeft     int
	detailRight   bool
	detailW       int
	detailH       int

	lastClick    time.Time
	lastClickPos int
}

func newDocView(c *Common, d *document) docView {
	v := docView{c: c, doc: d, tbl: newTable(c), sortCol: -1, filterInput: newLineInput(c, "/ ")}
	v.refreshColumns()
	return v
}

// refreshColumns chooses the columns once the header is known.
func (v *docView) refreshColumns() {
	d := v.doc
	kinds := columnsFor(d.capability(), d.root(), d.parts != nil)
	if slices.Equal(kinds, v.kinds) {
		return
	}
	v.kinds = kinds
	cols := make([]tableColumn, len(kinds))
	c := v.c // styles are read at draw time: they change with the terminal's background
	for ci, k := range kinds {
		minW, maxW, flex, right, trunc := colLayout(k)
		title := k.name()
		cols[ci] = tableColumn{
			Title: title, Min: minW, Max: maxW, Flex: flex, Right: right, Trunc: trunc,
			Value: func(i int) string { return colText(d, k, i) },
		}
		if k == colLoc || k == colPackage {
			cols[ci].Value = func(i int) string { return displayLoc(d.displayOrigin(), d.entries.Loc(i)) }
		}
		switch k {
		case colChange:
			cols[ci].Paint = func(i int) Paint { return c.Styles.ChangePaint(string(d.entries.Change(i))) }
		case colLoc, colPackage:
			cols[ci].Paint = func(int) Paint { return c.Styles.Paint.URL }
		case colLastmod, colDatetime, colAt, colFrom, colUntil, colHash, colPart, colLinks:
			cols[ci].Paint = func(int) Paint { return c.Styles.Paint.Dim }
		}
	}
	v.tbl.SetColumns(cols)
	v.tbl.sortCol = v.sortCol
	if v.width > 0 {
		v.layout() // the columns decide where the detail pane goes
	}
}

// SetSize lays out the table and the detail pane.
func (v *docView) SetSize(w, h int) {
	v.width, v.height = w, h
	v.layout()
}

// The fixed lines of the view: breadcrumbs, title, status bar, key hints.
const docChromeLines = 4

func (v *docView) layout() {
	w, h := v.width, v.height
	body := max(h-docChromeLines, 3)
	// The detail pane goes to the right when the table keeps room for all
	// its columns, below it otherwise.
	rightW := min(max(w*2/5, 40), 64)
	v.detailRight = w >= 100 && w-rightW >= v.tbl.minWidth()
	if v.detailRight {
		v.detailW = rightW
		v.detailH = body
		v.tbl.SetSize(w-v.detailW, body)
	} else {
		// Below the table: a third of the height, or all that a short
		// document leaves.
		v.detailW = w
		detail := min(max(body*2/5, 5), 14)
		n := 0
		if v.doc != nil {
			n = v.doc.entries.Len()
		}
		tableH := min(max(n+1, 4), body-detail)
		if tableH < 4 {
			tableH = min(4, body)
		}
		v.detailH = max(body-tableH, 0)
		v.tbl.SetSize(w, tableH)
	}
	v.tableTop = 2
	v.tbl.SetColumns(v.tbl.cols)
	v.filterInput.SetWidth(max(w-20, 10))
}

// Init starts nothing: the root model loads documents.
func (v docView) Init() tea.Cmd { return nil }

// InputActive tells whether a text input has the keyboard, so global keys
// must not be taken from it.
func (v docView) InputActive() bool { return v.filtering }

// Selected is the entry under the cursor, -1 when none.
func (v docView) Selected() int { return v.tbl.Selected() }

// SelectedURL is the selected entry's loc resolved against the document.
func (v docView) SelectedURL() string {
	i := v.tbl.Selected()
	if i < 0 {
		return ""
	}
	return resolveAgainst(v.doc.base(), v.doc.entries.Loc(i))
}

// entriesChanged is called after entries were appended (while loading).
func (v *docView) entriesChanged(from int) {
	v.refreshColumns()
	n := v.doc.entries.Len()
	if v.order != nil {
		for i := len(v.order); i < n; i++ {
			v.order = append(v.order, int32(i))
		}
	}
	if v.filtered != nil && !v.filterBusy {
		m := newMatcher(v.doc, v.query, v.kinds, keysNone)
		for i := max(from, v.filteredN); i < n; i++ {
			if m.match(i) {
				v.filtered = append(v.filtered, int32(i))
			}
		}
		v.filteredN = n
	}
	v.tbl.SetCount(n)
	if !v.detailRight && from < 16 {
		v.layout() // a short document gives its room to the detail pane
	}
	v.applyPerm()
}

// applyPerm gives the table the filtered or sorted order.
func (v *docView) applyPerm() {
	switch {
	case v.filtered != nil:
		v.tbl.SetPerm(v.filtered)
	case v.order != nil:
		v.tbl.SetPerm(v.order)
	default:
		v.tbl.SetPerm(nil)
	}
	v.tbl.sortCol = v.sortCol
	v.tbl.sortDesc = v.sortDesc
}

// loadDone is called when the document finished loading: a sort or filter
// that had to wait for all rows runs now.
func (v *docView) loadDone() tea.Cmd {
	v.refreshColumns()
	var cmds []tea.Cmd
	if d := v.doc; d.entries.Len() >= 50000 && d.err == nil {
		// Build the filter's and sort's keys now, in the background, so that
		// the first keystroke is as quick as the next ones.
		kinds := v.kinds
		cmds = append(cmds, func() tea.Msg {
			d.upperBits(colLoc)
			for _, k := range kinds {
				switch {
				case isTimeCol(k):
					d.timeKeys(k)
				case isEnumCol(k):
					d.enum(k)
				}
			}
			return nil
		})
	}
	if v.sortCol >= 0 {
		cmds = append(cmds, v.startSort())
	} else if v.query.raw != "" {
		cmds = append(cmds, v.startFilter(v.query.raw))
	}
	return tea.Batch(cmds...)
}

// startSort sorts by the current column in a Cmd; while the document is
// loading it sorts the rows in so far and later rows follow.
func (v *docView) startSort() tea.Cmd {
	if v.sortCol < 0 || v.sortCol >= len(v.kinds) {
		v.order = nil
		v.sortGen++
		v.sortRunning = false
		return v.refilter()
	}
	v.sortGen++
	gen, d, k, desc, col := v.sortGen, v.doc, v.kinds[v.sortCol], v.sortDesc, v.sortCol
	n := d.entries.Len()
	if d.loading || n < 20000 {
		// Small, or still being appended to: sort here, it is quick enough
		// and the table is not safe to read from another goroutine.
		v.order = sortPerm(d, n, k, desc, false)
		v.sortRunning = false
		return v.refilter()
	}
	v.sortRunning = true
	return func() tea.Msg {
		return sortedMsg{doc: d, gen: gen, col: col, desc: desc, n: n, perm: sortPerm(d, n, k, desc, true)}
	}
}

// refilter runs the current filter again (after a sort changed the order).
func (v *docView) refilter() tea.Cmd {
	v.applyPerm()
	if v.query.raw == "" {
		return nil
	}
	return v.runFilter(v.query.raw, false)
}

// startFilter filters by s: in a Cmd over a loaded document, here (it is
// quick) over rows still loading or a narrowing of the last result.
func (v *docView) startFilter(s string) tea.Cmd { return v.runFilter(s, true) }

// runFilter is startFilter; narrow allows scanning only the rows of the
// previous result (not after a sort: the result must follow the new order).
func (v *docView) runFilter(s string, narrow bool) tea.Cmd {
	v.filterGen++
	if s == "" {
		v.query = filterQuery{}
		v.filtered = nil
		v.filterBusy = false
		v.applyPerm()
		return nil
	}
	q := parseFilter(s, v.kinds)
	d := v.doc
	n := d.entries.Len()
	if v.filterCancel != nil {
		v.filterCancel() // a scan for an older keystroke is not wanted any more
		v.filterCancel = nil
	}
	// Narrowing: the new query contains the old one and means the same kind
	// of thing, so only rows that matched the old one can match: scan those.
	old := v.query
	order := v.order
	if narrow && v.filtered != nil && !v.filterBusy && old.raw != "" && v.filteredN == n &&
		q.hasCol == old.hasCol && q.col == old.col && q.fold == old.fold &&
		q.isHex == old.isHex && q.isDate == old.isDate && (!q.isDate || (q.lo >= old.lo && q.hi <= old.hi)) &&
		strings.Contains(q.text, old.text) {
		order = v.filtered
	}
	scan := n
	if order != nil {
		scan = len(order)
	}
	if d.loading || scan < 50000 {
		v.query = q
		use := keysPeek
		if d.loading {
			use = keysNone
		} else if n < 50000 {
			use = keysBuild // small: building is quick
		}
		v.filtered = filterRows(context.Background(), newMatcher(d, q, v.kinds, use), n, order)
		v.filteredN = n
		v.filterBusy = false
		v.applyPerm()
		return nil
	}
	// A large loaded document: scan in a Cmd, typing goes on meanwhile.
	v.query = q
	v.filterBusy = true
	gen, kinds := v.filterGen, v.kinds
	ctx, cancel := context.WithCancel(context.Background())
	v.filterCancel = cancel
	return func() tea.Msg {
		rows := filterRows(ctx, newMatcher(d, q, kinds, keysBuild), n, order)
		if ctx.Err() != nil {
			return nil
		}
		return filteredMsg{doc: d, gen: gen, query: s, n: n, rows: rows}
	}
}

// Update handles the document view's keys, mouse and background results.
func (v docView) Update(msg tea.Msg) (docView, tea.Cmd) {
	switch msg := msg.(type) {
	case sortedMsg:
		if msg.doc != v.doc || msg.gen != v.sortGen {
			return v, nil
		}
		v.sortRunning = false
		order := msg.perm
		for i := msg.n; i < v.doc.entries.Len(); i++ {
			order = append(order, int32(i))
		}
		v.order = order
		return v, v.refilter()
	case filteredMsg:
		if msg.doc != v.doc || msg.gen != v.filterGen {
			return v, nil
		}
		v.filterBusy = false
		v.filtered = msg.rows
		v.filteredN = msg.n
		v.applyPerm()
		return v, nil
	case tea.KeyPressMsg:
		return v.updateKey(msg)
	case tea.MouseWheelMsg:
		if v.mouseInDetail(msg.X, msg.Y) {
			if msg.Button == tea.MouseWheelUp {
				v.detailScroll = max(v.detailScroll-3, 0)
			} else if msg.Button == tea.MouseWheelDown {
				v.detailScroll += 3
			}
			return v, nil
		}
		v.tbl.Update(msg)
		v.detailScroll = 0
		return v, nil
	case tea.MouseClickMsg:
		return v.click(msg)
	}
	if v.filtering {
		old := v.filterInput.Value()
		var cmd tea.Cmd
		v.filterInput, cmd = v.filterInput.Update(msg) // a paste
		if nv := v.filterInput.Value(); nv != old {
			return v, tea.Batch(cmd, v.startFilter(nv))
		}
		return v, cmd
	}
	return v, nil
}

func (v docView) mouseInDetail(x, y int) bool {
	if v.detailRight {
		return x >= v.width-v.detailW
	}
	return y >= v.tableTop+v.tbl.height
}

// click selects the row under the mouse; a second click on the selected
// row (or a double click) opens it.
func (v docView) click(msg tea.MouseClickMsg) (docView, tea.Cmd) {
	if msg.Button != tea.MouseLeft {
		return v, nil
	}
	if v.mouseInDetail(msg.X, msg.Y) {
		v.focus = focusDetail
		v.tbl.focused = false
		return v, nil
	}
	if msg.Y == 0 {
		// Breadcrumbs.
		if u := v.crumbAt(msg.X); u != "" {
			return v, func() tea.Msg { return openURLMsg{URL: u} }
		}
		return v, nil
	}
	if msg.Y == v.tableTop && v.doc.entries.Len() > 0 {
		// A click on a column title sorts by it; again, in reverse.
		ci := v.tbl.ColumnAt(msg.X)
		if ci < 0 {
			return v, nil
		}
		if ci == v.sortCol {
			v.sortDesc = !v.sortDesc
		} else {
			v.sortCol, v.sortDesc = ci, false
		}
		return v, v.startSort()
	}
	pos := v.tbl.PosAt(msg.Y - v.tableTop)
	if pos < 0 {
		return v, nil
	}
	v.focus = focusTable
	v.tbl.focused = true
	now := v.c.now()
	again := pos == v.tbl.Cursor()
	v.tbl.MoveTo(pos)
	v.detailScroll = 0
	if again || (pos == v.lastClickPos && now.Sub(v.lastClick) < 400*time.Millisecond) {
		v.lastClick = time.Time{}
		return v, v.openSelected()
	}
	v.lastClick, v.lastClickPos = now, pos
	return v, nil
}

func (v docView) updateKey(msg tea.KeyPressMsg) (docView, tea.Cmd) {
	k := &v.c.Keys
	if v.filtering {
		switch msg.String() {
		case "enter":
			v.filtering = false
			v.filterInput.Blur()
			return v, nil
		case "esc":
			v.filtering = false
			v.filterInput.Blur()
			v.filterInput.SetValue("")
			return v, v.startFilter("")
		case "up", "down", "pgup", "pgdown":
			v.tbl.Update(msg)
			return v, nil
		}
		old := v.filterInput.Value()
		var cmd tea.Cmd
		v.filterInput, cmd = v.filterInput.Update(msg)
		if nv := v.filterInput.Value(); nv != old {
			return v, tea.Batch(cmd, v.startFilter(nv))
		}
		return v, cmd
	}
	switch {
	case key.Matches(msg, k.Filter):
		v.filtering = true
		v.filterInput.SetValue(v.query.raw)
		v.filterInput.CursorEnd()
		return v, v.filterInput.Focus()
	case key.Matches(msg, k.SortNext):
		v.sortCol++
		if v.sortCol >= len(v.kinds) {
			v.sortCol = -1
		}
		v.sortDesc = false
		return v, v.startSort()
	case key.Matches(msg, k.SortReverse):
		if v.sortCol < 0 {
			v.sortCol = 0
			v.sortDesc = false
		} else {
			v.sortDesc = !v.sortDesc
		}
		return v, v.startSort()
	case key.Matches(msg, k.NextPane), key.Matches(msg, k.PrevPane):
		if v.focus == focusTable {
			v.focus = focusDetail
		} else {
			v.focus = focusTable
		}
		v.tbl.focused = v.focus == focusTable
		return v, nil
	case key.Matches(msg, k.DocInfo):
		v.showDocInfo = !v.showDocInfo
		v.detailScroll = 0
		return v, nil
	case key.Matches(msg, k.Open):
		return v, v.openSelected()
	}
	if v.focus == focusDetail {
		switch {
		case key.Matches(msg, k.Up):
			v.detailScroll = max(v.detailScroll-1, 0)
		case key.Matches(msg, k.Down):
			v.detailScroll++
		case key.Matches(msg, k.PageUp), key.Matches(msg, k.HalfUp):
			v.detailScroll = max(v.detailScroll-v.detailH/2, 0)
		case key.Matches(msg, k.PageDown), key.Matches(msg, k.HalfDown):
			v.detailScroll += v.detailH / 2
		case key.Matches(msg, k.Top):
			v.detailScroll = 0
		default:
			return v, nil
		}
		return v, nil
	}
	if v.tbl.Update(msg) {
		v.detailScroll = 0
	}
	return v, nil
}

// ClearFilter drops an active filter; it reports whether there was one.
func (v *docView) ClearFilter() (bool, tea.Cmd) {
	if v.query.raw == "" && !v.filtering {
		return false, nil
	}
	v.filtering = false
	v.filterInput.Blur()
	v.filterInput.SetValue("")
	return true, v.startFilter("")
}

// JumpTo selects entry i (0-based), clearing a filter that hides it.
func (v *docView) JumpTo(i int) tea.Cmd {
	if v.doc == nil {
		return nil
	}
	n := v.doc.entries.Len()
	if n == 0 {
		return nil
	}
	i = max(min(i, n-1), 0)
	if v.tbl.SelectRow(i) {
		return nil
	}
	_, cmd := v.ClearFilter()
	v.tbl.SelectRow(i)
	return cmd
}

// openSelected asks the root to open the selected entry.
func (v docView) openSelected() tea.Cmd {
	i := v.tbl.Selected()
	if i < 0 {
		return nil
	}
	d := v.doc
	loc := resolveAgainst(d.base(), d.entries.Loc(i))
	switch {
	case d.entriesAreDocuments():
		return func() tea.Msg { return openURLMsg{URL: loc} }
	case d.entriesArePackages():
		// The package view, as Enter gives (app.go); M opens the manifest copy.
		return func() tea.Msg { return openPackageMsg{} }
	}
	return func() tea.Msg { return openResourceMsg{URL: loc, Entry: i} }
}

// ---------------------------------------------------------------------------
// Rendering

// View draws the page.
func (v docView) View(status string) string {
	st := v.c.Styles
	w := v.width
	var b strings.Builder
	b.WriteString(v.crumbsLine())
	b.WriteByte('\n')
	b.WriteString(v.titleLine())
	b.WriteByte('\n')

	body := max(v.height-docChromeLines, 3)
	var bodyView string
	switch {
	case v.doc.err != nil && v.doc.entries.Len() == 0:
		bodyView = v.errorView(w, body)
	case v.doc.entries.Len() == 0 && v.doc.loading:
		bodyView = v.loadingView(w, body)
	case v.doc.entries.Len() == 0:
		bodyView = placeCenter(w, body, st.Dim.Render("This document has no entries."))
	default:
		tbl := v.tbl.View()
		det := v.detailView()
		if v.detailRight {
			bodyView = joinColumns(tbl, det)
		} else {
			bodyView = tbl + "\n" + det
		}
	}
	b.WriteString(bodyView)
	b.WriteByte('\n')
	b.WriteString(status)
	b.WriteByte('\n')
	b.WriteString(v.hintLine())
	return b.String()
}

// crumbs are the breadcrumbs: ancestors, then the document itself.
func (v docView) crumbs() []Crumb {
	c := append([]Crumb(nil), v.doc.crumbs...)
	return append(c, Crumb{URL: v.doc.base(), Capability: v.doc.capability(), Root: v.doc.root()})
}

// crumbLabel names a crumb.
func crumbLabel(c Crumb) string {
	if c.Capability == "" && c.Root == model.RootUnknown {
		return sanitize(shortURL(c.URL))
	}
	return sanitize(c.Title())
}

// crumbLabels name the crumbs; the last one is the document itself.
func (v docView) crumbLabels(cs []Crumb) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = crumbLabel(c)
	}
	if v.doc.parts != nil && len(out) > 0 {
		out[len(out)-1] = "All entries"
	}
	return out
}

const crumbSep = " › "

// fittedCrumbs returns the breadcrumbs, their labels and the first one shown:
// the oldest are dropped when they do not fit the width. Drawing and
// clicking both use it, so a click lands on the crumb drawn there.
func (v docView) fittedCrumbs() (cs []Crumb, parts []string, first int) {
	cs = v.crumbs()
	parts = v.crumbLabels(cs)
	plain := 0
	for _, p := range parts {
		plain += textWidth(p) + textWidth(crumbSep)
	}
	for plain > v.width && first < len(parts)-1 {
		plain -= textWidth(parts[first]) + textWidth(crumbSep)
		first++
	}
	return cs, parts, first
}

func (v docView) crumbsLine() string {
	st := v.c.Styles
	_, parts, first := v.fittedCrumbs()
	var b strings.Builder
	if first > 0 {
		b.WriteString(st.Breadcrumb.Render("…"))
		b.WriteString(st.BreadSep.Render(crumbSep))
	}
	for i := first; i < len(parts); i++ {
		if i > first {
			b.WriteString(st.BreadSep.Render(crumbSep))
		}
		if i == len(parts)-1 {
			b.WriteString(st.BreadActive.Render(parts[i]))
		} else {
			b.WriteString(st.Breadcrumb.Render(parts[i]))
		}
	}
	return ivFit(b.String(), v.width)
}

// crumbAt returns the URL of the breadcrumb at column x ("" for none or the
// current document).
func (v docView) crumbAt(x int) string {
	cs, parts, first := v.fittedCrumbs()
	col := 0
	if first > 0 {
		col = 1 + textWidth(crumbSep)
	}
	for i := first; i < len(parts); i++ {
		if i > first {
			col += textWidth(crumbSep)
		}
		wd := textWidth(parts[i])
		if x >= col && x < col+wd {
			if i == len(parts)-1 {
				return ""
			}
			return cs[i].URL
		}
		col += wd
	}
	return ""
}

// titleLine shows the document's URL and its time attributes.
func (v docView) titleLine() string {
	st := v.c.Styles
	d := v.doc
	var b strings.Builder
	b.WriteString(st.Title.Render(sanitize(d.title())))
	b.WriteString("  ")
	b.WriteString(st.URL.Render(sanitize(d.base())))
	if d.final != "" && d.final != d.url && !isLocal(d.url) {
		b.WriteString(st.Dim.Render("  (redirected from " + sanitize(d.url) + ")"))
	}
	return ivFit(b.String(), v.width)
}

// statusLine is the bar at the bottom: capability, time, count, filter,
// sort, HTTP status, cache, problems and progress. spinner is the current
// spinner frame. When the bar is too narrow the least useful fields go
// first (the "completed" time, then the times, the sort …).
func (v docView) statusLine(spinner string) string {
	st := v.c.Styles
	d := v.doc
	bg := st.StatusBar.GetBackground()
	type seg struct {
		text  string
		short string // used when the bar is too narrow ("" keeps text)
		drop  int    // 0: never dropped; higher numbers go first
	}
	var segs []seg
	if c := d.capability(); c != "" {
		segs = append(segs, seg{text: st.StatusBadge.Render(sanitize(string(c)))})
	}
	if h := d.header; h != nil {
		md := &h.MD
		val := st.StatusValue.Render
		if md.At.Raw != "" {
			full := "at " + md.At.Raw
			short := md.At.Raw
			if md.Completed.Raw != "" {
				full += " completed " + sameDayShort(md.At.Raw, md.Completed.Raw)
				short += "–" + sameDayShort(md.At.Raw, md.Completed.Raw)
			}
			segs = append(segs, seg{val(full), val(short), 3})
		} else if md.Completed.Raw != "" {
			segs = append(segs, seg{val("completed " + md.Completed.Raw), "", 3})
		}
		if md.From.Raw != "" {
			full, short := "from "+md.From.Raw, md.From.Raw+"–"
			if md.Until.Raw != "" {
				full += " until " + sameDayShort(md.From.Raw, md.Until.Raw)
				short += sameDayShort(md.From.Raw, md.Until.Raw)
			} else {
				full += " (open)"
				short += " (open)"
			}
			segs = append(segs, seg{val(full), val(short), 3})
		} else if md.Until.Raw != "" {
			segs = append(segs, seg{val("until " + md.Until.Raw), "", 3})
		}
	}
	n := d.entries.Len()
	count := formatCount(n) + " entries"
	if n == 1 {
		count = "1 entry"
	}
	segs = append(segs, seg{text: st.StatusValue.Render(count)})
	if d.parts != nil {
		segs = append(segs, seg{st.StatusValue.Render(fmt.Sprintf("%d/%d parts", d.partsDone, len(d.parts))), "", 1})
	}
	if v.query.raw != "" {
		f := fmt.Sprintf("filter %q: %s", v.query.raw, formatCount(len(v.filtered)))
		if v.filterBusy {
			f = fmt.Sprintf("filter %q: …", v.query.raw)
		}
		segs = append(segs, seg{text: st.StatusKey.Render(f)})
	}
	if v.sortCol >= 0 && v.sortCol < len(v.kinds) {
		dir := "↑"
		if v.sortDesc {
			dir = "↓"
		}
		name := v.kinds[v.sortCol].name() + dir
		busy := ""
		if v.sortRunning {
			busy = " …"
		}
		segs = append(segs, seg{st.StatusKey.Render("sorted by " + name + busy), st.StatusKey.Render(name + busy), 2})
	}
	if ex := d.exchange; ex != nil && ex.Status != 0 {
		s := st.HTTPStatus(ex.Status).Background(bg).Render(fmt.Sprintf("HTTP %d", ex.Status))
		if ex.FromCache {
			s += st.StatusKey.Render(" cached")
		}
		segs = append(segs, seg{s, "", 5})
	}
	if !d.loading && d.header != nil {
		errs, warns := d.problemCounts()
		switch {
		case errs == 0 && warns == 0:
			segs = append(segs, seg{st.OK.Background(bg).Render("✓ valid"), st.OK.Background(bg).Render("✓"), 2})
		default:
			var full, short []string
			if errs > 0 {
				full = append(full, st.Error.Background(bg).Render(fmt.Sprintf("✗ %d error%s", errs, plural(errs))))
				short = append(short, st.Error.Background(bg).Render(fmt.Sprintf("✗%d", errs)))
			}
			if warns > 0 {
				full = append(full, st.Warning.Background(bg).Render(fmt.Sprintf("⚠ %d warning%s", warns, plural(warns))))
				short = append(short, st.Warning.Background(bg).Render(fmt.Sprintf("⚠%d", warns)))
			}
			sp := st.StatusBar.Render(" ")
			segs = append(segs, seg{strings.Join(full, sp), strings.Join(short, sp), 2})
		}
	}
	switch {
	case d.loading:
		prog := spinner + st.StatusValue.Render(" loading "+fetch.FormatSize(d.bytes))
		if d.total > 0 {
			prog += st.StatusValue.Render(progressOf(d.bytes, d.total))
		}
		segs = append(segs, seg{text: prog})
	case d.err != nil && n > 0:
		segs = append(segs, seg{st.Error.Background(bg).Render("incomplete: " + sanitize(d.err.Error())), st.Error.Background(bg).Render("incomplete"), 0})
	case d.err != nil:
		segs = append(segs, seg{text: st.Error.Background(bg).Render("failed")})
	}
	sep := st.StatusBar.Render(" · ")
	join := func() string {
		var b strings.Builder
		b.WriteString(st.StatusBar.Render(" "))
		for i, s := range segs {
			if i > 0 {
				if i == 1 && d.capability() != "" {
					b.WriteString(st.StatusBar.Render(" ")) // after the badge
				} else {
					b.WriteString(sep)
				}
			}
			b.WriteString(s.text)
		}
		return b.String()
	}
	line := join()
	if lipgloss.Width(line) > v.width {
		for i := range segs {
			if segs[i].short != "" {
				segs[i].text = segs[i].short
			}
		}
		line = join()
	}
	for level := 5; level > 0 && lipgloss.Width(line) > v.width; level-- {
		kept := segs[:0:0]
		for _, s := range segs {
			if s.drop < level {
				kept = append(kept, s)
			}
		}
		segs = kept
		line = join()
	}
	line = ivFit(line, v.width)
	if pad := v.width - lipgloss.Width(line); pad > 0 {
		line += st.StatusBar.Render(strings.Repeat(" ", pad))
	}
	return line
}

// sameDayShort writes the second of two datetimes without its date when
// both fall on the same day ("2026-01-05T05:30:00Z" after one of
// 2026-01-05 gives "05:30:00Z").
func sameDayShort(first, second string) string {
	if len(first) > 11 && len(second) > 11 && first[:11] == second[:11] && first[10] == 'T' {
		return second[11:]
	}
	return second
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// formatCount writes n with thousands separators.
func formatCount(n int) string {
	s := strconv.Itoa(n)
	if n < 1000 {
		return s
	}
	var b strings.Builder
	pre := len(s) % 3
	if pre > 0 {
		b.WriteString(s[:pre])
	}
	for i := pre; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// hintLine is the filter input while filtering, else the short help.
func (v docView) hintLine() string {
	st := v.c.Styles
	if v.filtering {
		return ivFit(v.filterInput.View()+st.Dim.Render("  enter apply · esc clear · name:value for one column"), v.width)
	}
	k := &v.c.Keys
	hints := []hint{{k.Open, "open"}, {k.Back, "back"}, {k.Filter, "filter"}, {k.SortNext, "sort"},
		{k.UpLink, "up"}, {k.HistBack, "history"}, {k.OpenURL, "open URL"}, {k.Raw, "xml"}, {k.Help, "help"}, {k.Quit, "quit"}}
	if v.doc.isIndex() {
		hints = append([]hint{{k.Open, "open part"}, {k.LoadAll, "all parts"}}, hints[1:]...)
	}
	return ivFit(renderHints(st, hints), v.width)
}

// hint is a binding with a short description for a hint line.
type hint struct {
	b    key.Binding
	desc string
}

// renderHints renders "key desc · key desc" from short descriptions.
func renderHints(st *Styles, hs []hint) string {
	var parts []string
	for _, h := range hs {
		if !h.b.Enabled() {
			continue
		}
		parts = append(parts, st.HelpKey.Render(h.b.Help().Key)+" "+st.HelpDesc.Render(h.desc))
	}
	return strings.Join(parts, st.Dim.Render(" · "))
}

// loadingView is shown while a document without entries yet streams in.
func (v docView) loadingView(w, h int) string {
	st := v.c.Styles
	d := v.doc
	progress := st.Value.Render(fetch.FormatSize(d.bytes)+" read") + st.Dim.Render(progressOf(d.bytes, d.total))
	if d.parts != nil {
		progress = st.Value.Render(fmt.Sprintf("%d of %d parts read", d.partsDone, len(d.parts)))
	}
	lines := []string{
		st.Title.Render("Loading ") + st.URL.Render(sanitize(shortURL(d.url))),
		"",
		progress,
		"",
		st.Dim.Render("esc cancels"),
	}
	return placeCenter(w, h, strings.Join(lines, "\n"))
}

func progressOf(done, total int64) string {
	if total <= 0 {
		return ""
	}
	return fmt.Sprintf(" of %s (%d%%)", fetch.FormatSize(total), done*100/max(total, 1))
}

// errorView shows a failed load with what can be done about it.
func (v docView) errorView(w, h int) string {
	st := v.c.Styles
	k := &v.c.Keys
	inner := max(min(w-6, 100), 20)
	msg := lipgloss.NewStyle().Width(inner).Render(st.Error.Render(sanitize(v.doc.err.Error())))
	hs := []hint{{k.Retry, "retry"}, {k.Back, "back"}, {k.HTTP, "HTTP exchange"}, {k.OpenURL, "open another URL"}}
	if !isLocal(v.doc.url) {
		hs = append(hs, hint{k.Discovery, "look for ResourceSync from this URL"})
	}
	hints := lipgloss.NewStyle().Width(inner).Render(renderHints(st, hs))
	text := st.Error.Bold(true).Render("Could not load this document") + "\n\n" + msg + "\n\n" + hints
	return placeCenter(w, h, st.ErrorBox.Render(text))
}

// placeCenter centres s in a w×h block.
func placeCenter(w, h int, s string) string {
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, s)
}

// detailView is the pane with every attribute and link of the selected
// entry (or of the document, when toggled).
func (v docView) detailView() string {
	st := v.c.Styles
	w, h := v.detailW, v.detailH
	if w < 4 || h < 3 {
		return ""
	}
	innerW := w - 4 // border and padding
	var lines []string
	title := "Entry"
	if v.showDocInfo {
		title = "Document"
		lines = v.docInfoLines(innerW)
	} else if i := v.tbl.Selected(); i >= 0 {
		title = fmt.Sprintf("Entry %s of %s", formatCount(i+1), formatCount(v.doc.entries.Len()))
		e := v.doc.entries.Entry(i)
		lines = entryLines(st, &e, v.doc.base(), innerW, v.partName(i))
	}
	bodyH := h - 3 // border (2) and title
	scroll := min(v.detailScroll, max(len(lines)-bodyH, 0))
	end := min(scroll+bodyH, len(lines))
	more := ""
	if end < len(lines) {
		more = fmt.Sprintf("↓ %d more", len(lines)-end)
	}
	return drawBox(st, v.focus == focusDetail, title, more, lines[scroll:end], w, h)
}

// drawBox draws a rounded box of exactly w×h cells: a title line inside,
// then the lines (each cut to fit). It writes the escape sequences itself:
// lipgloss borders cost more than the whole table on every frame.
func drawBox(st *Styles, focused bool, title, note string, lines []string, w, h int) string {
	border := st.Paint.Border
	if focused {
		border = st.Paint.BorderFocused
	}
	inner := w - 4
	var b strings.Builder
	b.Grow((w + 32) * h)
	b.WriteString(border.Apply("╭" + strings.Repeat("─", w-2) + "╮"))
	row := func(content string) {
		b.WriteByte('\n')
		b.WriteString(border.Apply("│"))
		b.WriteByte(' ')
		b.WriteString(content)
		if pad := inner - ansiWidth(content); pad > 0 {
			b.WriteString(strings.Repeat(" ", pad))
		}
		b.WriteByte(' ')
		b.WriteString(border.Apply("│"))
	}
	head := st.Paint.PaneHead.Apply(truncate(title, inner, truncEnd))
	if note != "" && textWidth(title)+2+textWidth(note) <= inner {
		head += "  " + st.Paint.Dim.Apply(note)
	}
	row(head)
	for i := 0; i < h-3; i++ {
		l := ""
		if i < len(lines) {
			l = lines[i]
			if ansiWidth(l) > inner {
				l = ivFit(l, inner)
			}
		}
		row(l)
	}
	b.WriteByte('\n')
	b.WriteString(border.Apply("╰" + strings.Repeat("─", w-2) + "╯"))
	return b.String()
}

// ansiWidth is the display width of a string that may hold escape
// sequences.
func ansiWidth(s string) int {
	if isASCII(s) {
		return len(s)
	}
	return ansi.StringWidth(s)
}

// joinColumns puts two blocks side by side, line by line; the left one's
// lines are all of the same width.
func joinColumns(left, right string) string {
	ll := strings.Split(left, "\n")
	rl := strings.Split(right, "\n")
	n := max(len(ll), len(rl))
	var b strings.Builder
	b.Grow(len(left) + len(right) + n)
	for i := range n {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i < len(ll) {
			b.WriteString(ll[i])
		}
		if i < len(rl) {
			b.WriteString(rl[i])
		}
	}
	return b.String()
}

// partName names the part an entry of a combined view came from.
func (v docView) partName(i int) string {
	if v.doc.parts == nil || i >= len(v.doc.partOf) {
		return ""
	}
	p := int(v.doc.partOf[i])
	if p < len(v.doc.parts) {
		return fmt.Sprintf("%d: %s", p+1, v.doc.parts[p])
	}
	return ""
}

// docInfoLines describe the document's own metadata, links and extras,
// then where it came from.
func (v docView) docInfoLines(w int) []string {
	st := v.c.Styles
	d := v.doc
	var out []string
	add := func(label, value string) {
		out = append(out, kvLines(st, "", label, 11, value, st.Value, w)...)
	}
	if h := d.header; h != nil {
		out = append(out, mdLines(st, &h.MD, w)...)
		out = append(out, linkLines(st, h.Links, d.base(), w)...)
		out = append(out, extraLines(st, h.Extra)...)
		for _, l := range h.Legacy {
			out = append(out, st.Warning.Render("legacy: "+sanitize(l.What))+st.Dim.Render(fmt.Sprintf(" (line %d)", l.Line)))
		}
		out = append(out, "")
		add("root", h.RootLocal)
		for _, ns := range h.Namespaces {
			name := "xmlns"
			if ns.Prefix != "" {
				name += ":" + ns.Prefix
			}
			add(name, ns.URI)
		}
		add("encoding", h.XMLEncoding)
	}
	add("url", d.base())
	if d.final != "" && d.final != d.url {
		add("asked", d.url)
	}
	add("bytes", strconv.FormatInt(d.bytes, 10))
	if d.parts != nil {
		add("parts", strconv.Itoa(len(d.parts)))
		for _, e := range d.partErrs {
			out = append(out, st.Error.Render(sanitize(e)))
		}
	}
	return out
}

// entryLines describe one entry: loc, every attribute, every link with its
// relation in words, and unknown elements.
func entryLines(st *Styles, e *model.Entry, base string, w int, part string) []string {
	var out []string
	add := func(label, value string, vs lipgloss.Style) {
		out = append(out, kvLines(st, "", label, 11, value, vs, w)...)
	}
	if part != "" {
		add("part", part, st.Value)
	}
	add("loc", e.Loc, st.URL)
	if resolved := resolveAgainst(base, e.Loc); resolved != e.Loc && e.Loc != "" {
		add("resolved", resolved, st.URL)
	}
	if e.LocRaw != "" {
		add("loc (raw)", strconv.Quote(e.LocRaw), st.Dim)
	}
	if !e.HasLoc {
		out = append(out, st.Error.Render("no <loc>"))
	}
	if e.LocCount > 1 {
		out = append(out, st.Error.Render(fmt.Sprintf("%d <loc> elements", e.LocCount)))
	}
	if e.MDCount > 1 {
		out = append(out, st.Error.Render(fmt.Sprintf("%d <rs:md> elements (the first is shown)", e.MDCount)))
	}
	add("lastmod", e.Lastmod.Raw, st.Value)
	add("changefreq", e.Changefreq, st.Value)
	out = append(out, mdLines(st, &e.MD, w)...)
	out = append(out, linkLines(st, e.Links, base, w)...)
	out = append(out, extraLines(st, e.Extra)...)
	if e.Line > 0 {
		if len(e.Links) > 0 {
			out = append(out, "")
		}
		add("line", strconv.Itoa(e.Line), st.Dim)
	}
	return out
}

// mdLines describe an <rs:md> element.
func mdLines(st *Styles, md *model.Metadata, w int) []string {
	if !md.Present {
		return nil
	}
	var out []string
	add := func(label, value string, vs lipgloss.Style) {
		out = append(out, kvLines(st, "", label, 11, value, vs, w)...)
	}
	add("capability", string(md.Capability), st.Value)
	add("change", string(md.Change), st.ChangeStyle(string(md.Change)))
	add("datetime", md.Datetime.Raw, st.Value)
	add("at", md.At.Raw, st.Value)
	add("completed", md.Completed.Raw, st.Value)
	add("from", md.From.Raw, st.Value)
	add("until", md.Until.Raw, st.Value)
	if md.LengthRaw != "" {
		l := md.LengthRaw
		if md.LengthOK && md.Length >= 1024 {
			l += " (" + fetch.FormatSize(md.Length) + ")"
		}
		add("length", l, st.Value)
	}
	for _, h := range strings.Fields(md.HashRaw) {
		add("hash", h, st.Value)
	}
	add("type", md.Type, st.Value)
	add("encoding", md.Encoding, st.Value)
	if md.HasPath {
		add("path", md.Path, st.Value)
	}
	for _, a := range md.Extra {
		add(attrName(a), a.Value, st.Value)
	}
	return out
}

func attrName(a model.Attr) string {
	if a.Prefix != "" {
		return a.Prefix + ":" + a.Local
	}
	return a.Local
}

// linkLines describe <rs:ln> elements, each relation explained in words.
func linkLines(st *Styles, links []model.Link, base string, w int) []string {
	var out []string
	for _, l := range links {
		href := l.Href
		if href != "" {
			href = resolveAgainst(base, href)
		}
		out = append(out, "")
		rel := sanitize(l.Rel)
		if !l.HasRel {
			rel = "(no rel)"
		}
		if href == "" {
			href = "(no href)"
		}
		out = append(out, kvLinesL(st, st.Rel, "", "↳ "+rel, textWidth(rel)+3, href, st.URL, w)...)
		for _, rel := range strings.Fields(l.Rel) {
			if desc := model.RelationDescription(rel); desc != "" {
				for _, line := range wrapText(desc, max(w-4, 10)) {
					out = append(out, "  "+st.Explain.Render(line))
				}
			}
		}
		add := func(label, value string) {
			out = append(out, kvLines(st, "  ", label, 9, value, st.Value, w)...)
		}
		add("pri", l.PriRaw)
		add("type", l.Type)
		add("length", l.LengthRaw)
		add("hash", l.HashRaw)
		add("modified", l.Modified.Raw)
		add("encoding", l.Encoding)
		if l.HasPath {
			add("path", l.Path)
		}
		for _, a := range l.Extra {
			add(attrName(a), a.Value)
		}
	}
	return out
}

// extraLines describe elements the model keeps verbatim.
func extraLines(st *Styles, els []model.Element) []string {
	var out []string
	for _, e := range els {
		name := e.Local
		if e.Prefix != "" {
			name = e.Prefix + ":" + e.Local
		}
		s := "<" + name
		for _, a := range e.Attrs {
			s += " " + attrName(a) + "=" + strconv.Quote(a.Value)
		}
		s += ">"
		if e.Text != "" {
			s += " " + e.Text
		}
		out = append(out, st.Dim.Render(sanitize(s)))
	}
	return out
}

// kvLines draws "label value", the value broken over as many lines as it
// needs (at most maxValueLines) under its first line.
func kvLines(st *Styles, indent, label string, labelW int, value string, vs lipgloss.Style, w int) []string {
	return kvLinesL(st, st.Label, indent, label, labelW, value, vs, w)
}

// kvLinesL is kvLines with the label's style.
func kvLinesL(st *Styles, ls lipgloss.Style, indent, label string, labelW int, value string, vs lipgloss.Style, w int) []string {
	if value == "" {
		return nil
	}
	room := max(w-len(indent)-labelW, 8)
	chunks := hardWrap(sanitize(value), room)
	if len(chunks) > maxValueLines {
		chunks = chunks[:maxValueLines]
		last := []rune(chunks[maxValueLines-1])
		chunks[maxValueLines-1] = string(last[:max(len(last)-1, 0)]) + "…"
	}
	out := make([]string, len(chunks))
	for i, c := range chunks {
		if i == 0 {
			out[i] = indent + ls.Render(padRight(label, labelW)) + vs.Render(c)
		} else {
			out[i] = indent + strings.Repeat(" ", labelW) + vs.Render(c)
		}
	}
	return out
}

const maxValueLines = 8

// hardWrap cuts s into pieces of at most w cells.
func hardWrap(s string, w int) []string {
	if w <= 0 || textWidth(s) <= w {
		return []string{s}
	}
	var out []string
	if isASCII(s) {
		for len(s) > w {
			out = append(out, s[:w])
			s = s[w:]
		}
		return append(out, s)
	}
	var cur strings.Builder
	cw := 0
	for _, r := range s {
		rw := textWidth(string(r))
		if cw+rw > w {
			out = append(out, cur.String())
			cur.Reset()
			cw = 0
		}
		cur.WriteRune(r)
		cw += rw
	}
	return append(out, cur.String())
}

// wrapText breaks s into lines of at most w cells at spaces.
func wrapText(s string, w int) []string {
	words := strings.Fields(s)
	var out []string
	var line strings.Builder
	for _, word := range words {
		if line.Len() > 0 && textWidth(line.String())+1+textWidth(word) > w {
			out = append(out, line.String())
			line.Reset()
		}
		if line.Len() > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(word)
	}
	if line.Len() > 0 {
		out = append(out, line.String())
	}
	return out
}
