package state

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"hash/maphash"
	"maps"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Index is a Source's rows held in memory in a compact form, for plans that
// look up as many URIs as the state holds (a full Resource List against a
// large copy): one scan of the database builds it, and a look-up then costs a
// binary search instead of a query. Each row takes 72 bytes: URIs are kept as
// a 128-bit keyed hash, digests as 64-bit fingerprints, datetimes as Unix
// nanoseconds, paths not at all (LoadIndexCopies adds each copy's path,
// length and file time for a reconcile: 24 bytes and the file's name). (A
// row whose datetimes fall outside the years 1678–2261 is looked up in the
// database instead.) A large Source's rows are read in id ranges at once.
// EachKnown and MaxID read the database, as View's do.
type Index struct {
	view    *View
	k1, k2  maphash.Seed      // URI keys
	fpSeed  maphash.Seed      // digest fingerprints
	rows    []indexRow        // by key
	starts  []uint32          // where the rows of each bucket of keys begin (bucket); nil for a small Index
	extra   map[int64][]algFP // by id: rows with more than two digests
	codes   map[string]uint8
	clashes map[[2]uint64]bool // keys two URIs share, or rows the Index cannot hold exactly: looked up in the database
	maxID   int64
	codesMu sync.RWMutex // codes while the Index is loaded
	copies  []copyRow    // aligned with rows; nil unless loaded by LoadIndexCopies
	folders []string     // the copies' folders, each once
	names   []byte       // the copies' file names, one after the other
}

// copyRow is what LoadIndexCopies adds to a row: enough to check its copy
// by a stat (CopyFacts). Its path is its folder (kept once for all its
// files) and its name: 24 bytes and the name's.
type copyRow struct {
	mtime      int64 // valid when the row has flagCopy
	folder     uint32
	name, nlen uint32 // in names
}

// CopyFacts is what a row read for a reconcile (Copies, or an Index loaded
// by LoadIndexCopies) tells of its copy, for a quick check without reading
// the row again: its path, recorded length and file time. OK is false when
// they are not known (an Index loaded by LoadIndex, a row read otherwise, a
// copy an audit found damaged, or, from an Index, no file time recorded):
// the row is to be read. From Copies, FileMTime is 0 when no file time is
// recorded (a bucket's copy, or a row of an older state): a bucket's quick
// check needs none, a folder's reads the row.
type CopyFacts struct {
	Path      string
	Length    int64 // -1 when unknown
	FileMTime int64 // Unix nanoseconds; 0 when none is recorded
	OK        bool
}

type indexRow struct {
	key             [2]uint64
	id, length      int64
	lastmod, change int64 // Unix nanoseconds, valid when the flag says so
	fp              [2]uint64
	alg             [2]uint8
	nalg            uint8
	flags           uint8
}

// nanos returns t in Unix nanoseconds, and whether it fits.
func nanos(t time.Time) (int64, bool) {
	if t.Year() < 1678 || t.Year() > 2261 {
		return 0, false
	}
	return t.UnixNano(), true
}

const (
	flagLastmod uint8 = 1 << iota
	flagChange
	flagPending
	flagCopy // the copy's facts are held (LoadIndexCopies)
)

// LoadIndex builds the Index of a Source's rows.
func (db *DB) LoadIndex(ctx context.Context, sourceID int64) (*Index, error) {
	return db.loadIndex(ctx, sourceID, false)
}

// LoadIndexCopies builds the Index of a Source's rows with their copies'
// facts (Known.Copy), for a reconcile: 24 bytes more a row, and its file
// name (a folder is kept once).
func (db *DB) LoadIndexCopies(ctx context.Context, sourceID int64) (*Index, error) {
	return db.loadIndex(ctx, sourceID, true)
}

func (db *DB) loadIndex(ctx context.Context, sourceID int64, copies bool) (*Index, error) {
	db.scans.Add(1)
	n, err := db.Rows(ctx, sourceID)
	if err != nil {
		return nil, err
	}
	idx := &Index{
		view: db.View(sourceID), k1: maphash.MakeSeed(), k2: maphash.MakeSeed(), fpSeed: maphash.MakeSeed(),
		extra: map[int64][]algFP{}, codes: map[string]uint8{}, clashes: map[[2]uint64]bool{},
	}
	// A large Source is read in id ranges at once, on as many connections,
	// when its rows are most of the table's (a range is read in rowid
	// order, the other Sources' rows with it).
	ranges := [][2]int64{{math.MinInt64, math.MaxInt64}}
	if k := runtime.GOMAXPROCS(0); k > 1 && n >= 2*minIndexRange {
		var lo, hi sql.NullInt64
		if err := db.sql.QueryRowContext(ctx, `SELECT (SELECT min(id) FROM resource), (SELECT max(id) FROM resource)`).Scan(&lo, &hi); err != nil {
			return nil, fmt.Errorf("index the resources of Source %d: %w", sourceID, err)
		}
		if span := hi.Int64 - lo.Int64 + 1; lo.Valid && hi.Valid && span <= 2*int64(n) {
			k = min(k, 4, n/minIndexRange)
			ranges = ranges[:0]
			for i := range k {
				ranges = append(ranges, [2]int64{lo.Int64 + span*int64(i)/int64(k), lo.Int64 + span*int64(i+1)/int64(k)})
			}
		}
	}
	parts := make([]*indexPart, len(ranges))
	// The parts' rows are read into regions of one array, a little larger
	// than the rows counted, that merge closes up in place: a part read into
	// an array of its own, then copied into the Index's, held the Index
	// twice while it was merged (at a million rows, 69 MB more at the peak
	// of a sync's plan, which the collector doubled again). A part that
	// outgrows its region (ids unevenly spread) moves to an array of its own.
	all := make([]indexRow, n+n/32+len(ranges))
	for i := range ranges {
		lo, hi := len(all)*i/len(ranges), len(all)*(i+1)/len(ranges)
		parts[i] = &indexPart{idx: idx, copies: copies, extra: map[int64][]algFP{}, clashes: map[[2]uint64]bool{}, folderIDs: map[string]uint32{},
			rows: all[lo:lo:hi], region: [2]int{lo, hi}}
	}
	var wg sync.WaitGroup
	for i, r := range ranges {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[i].err = parts[i].scan(ctx, db, sourceID, r, len(ranges) > 1, n/len(ranges))
		}()
	}
	wg.Wait()
	for _, pt := range parts {
		if pt.err != nil {
			return nil, fmt.Errorf("index the resources of Source %d: %w", sourceID, pt.err)
		}
	}
	idx.merge(parts, all)
	if copies {
		sort.Sort(rowsAndCopies{idx.rows, idx.copies})
	} else {
		slices.SortFunc(idx.rows, func(a, b indexRow) int { return compareKeys(a.key, b.key) })
	}
	for i := 1; i < len(idx.rows); i++ {
		if idx.rows[i].key == idx.rows[i-1].key {
			idx.clashes[idx.rows[i].key] = true
		}
	}
	idx.bucket()
	return idx, nil
}

// bucketBits: an Index of more rows than 1<<bucketBits keeps where the
// rows of each value of its keys' first bucketBits bits begin (the keys are
// hashes, spread evenly), so that a look-up searches a bucket of a few rows
// instead of all of them: the binary search over a million rows of 72
// bytes, a cache miss at each of its 20 steps, was a fifth of the CPU of a
// sync's plan of a million changes.
const bucketBits = 16

// minBucketed is the fewest rows of an Index that bucket (a variable for
// the tests).
var minBucketed = 1 << bucketBits

// bucket notes where each bucket of the sorted rows begins.
func (idx *Index) bucket() {
	if len(idx.rows) < minBucketed || len(idx.rows) > math.MaxUint32 {
		return
	}
	idx.starts = make([]uint32, 1<<bucketBits+1)
	b := 0
	for i := range idx.rows {
		for k := int(idx.rows[i].key[0] >> (64 - bucketBits)); b <= k; b++ {
			idx.starts[b] = uint32(i)
		}
	}
	for ; b <= 1<<bucketBits; b++ {
		idx.starts[b] = uint32(len(idx.rows))
	}
}

// find is the position of key in the sorted rows (where it would go when
// it is not there), and whether it is there.
func (idx *Index) find(key [2]uint64) (int, bool) {
	lo, hi := 0, len(idx.rows)
	if idx.starts != nil {
		b := key[0] >> (64 - bucketBits)
		lo, hi = int(idx.starts[b]), int(idx.starts[b+1])
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if k := &idx.rows[m].key; k[0] < key[0] || (k[0] == key[0] && k[1] < key[1]) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(idx.rows) && idx.rows[lo].key == key
}

// minIndexRange is the fewest rows an id range of a Source read at once
// with others holds (a variable for the tests).
var minIndexRange = 20000

// indexPart is what one scan of a Source's rows (an id range) gives.
type indexPart struct {
	idx       *Index // its seeds and algorithm codes (codesMu)
	copies    bool
	rows      []indexRow
	region    [2]int // where rows began, in the array all of loadIndex
	copyRows  []copyRow
	extra     map[int64][]algFP
	clashes   map[[2]uint64]bool
	folders   []string
	folderIDs map[string]uint32
	names     []byte
	maxID     int64
	err       error
}

// scan reads the Source's rows of the id range r (of the whole Source when
// ranged is false); about is how many rows are expected.
func (pt *indexPart) scan(ctx context.Context, db *DB, sourceID int64, r [2]int64, ranged bool, about int) error {
	idx := pt.idx
	cols := `id, uri, length, digests, lastmod, change_datetime, deleted_at IS NOT NULL`
	if pt.copies {
		cols += `, path, file_mtime, damaged_at IS NOT NULL`
		pt.copyRows = make([]copyRow, 0, about)
	}
	if pt.rows == nil {
		pt.rows = make([]indexRow, 0, about)
	}
	q, args := `SELECT `+cols+` FROM resource WHERE source_id = ?`, []any{sourceID}
	if ranged {
		q, args = `SELECT `+cols+` FROM resource NOT INDEXED WHERE id >= ? AND id < ? AND source_id = ?`, []any{r[0], r[1], sourceID}
	}
	conn, err := db.scanConn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var (
		uri                   string
		path                  sql.RawBytes
		length, mtime         sql.NullInt64
		digests, lastmod, cdt sql.NullString
		pending, damaged      bool
		id                    int64
	)
	dest := []any{&id, &uri, &length, &digests, &lastmod, &cdt, &pending}
	if pt.copies {
		dest = append(dest, &path, &mtime, &damaged)
	}
	for rows.Next() {
		// Scan into variables declared outside the loop: a row whose fields
		// were scanned into would escape, one allocation per row.
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		row := indexRow{id: id, length: -1, key: idx.key(uri)}
		if length.Valid {
			row.length = length.Int64
		}
		exact := true
		if t := parseTime(lastmod); !t.IsZero() {
			var ok bool
			row.lastmod, ok = nanos(t)
			row.flags |= flagLastmod
			exact = exact && ok
		}
		if t := parseTime(cdt); !t.IsZero() {
			var ok bool
			row.change, ok = nanos(t)
			row.flags |= flagChange
			exact = exact && ok
		}
		if !exact {
			pt.clashes[row.key] = true
		}
		if pending {
			row.flags |= flagPending
		}
		var more []algFP
		for rest := digests.String; rest != ""; {
			var tok string
			tok, rest, _ = strings.Cut(rest, " ")
			alg, hex, ok := strings.Cut(tok, ":")
			if !ok {
				continue
			}
			code, err := idx.code(alg)
			if err != nil {
				return err
			}
			f := algFP{alg: code, fp: maphash.String(idx.fpSeed, hex)}
			if row.nalg < 2 {
				row.alg[row.nalg], row.fp[row.nalg] = f.alg, f.fp
			} else {
				more = append(more, f)
			}
			row.nalg++
		}
		if more != nil {
			pt.extra[row.id] = more
		}
		pt.maxID = max(pt.maxID, row.id)
		if pt.copies {
			c := copyRow{mtime: mtime.Int64}
			folder, name := []byte(nil), path
			if i := bytes.LastIndexByte(path, '/'); i >= 0 {
				folder, name = path[:i], path[i+1:]
			}
			f, ok := pt.folderIDs[string(folder)] // no allocation to look up
			if !ok {
				f = uint32(len(pt.folders))
				pt.folderIDs[string(folder)] = f
				pt.folders = append(pt.folders, string(folder))
			}
			if mtime.Valid && !damaged && len(pt.names)+len(name) <= math.MaxUint32/8 {
				c.folder, c.name, c.nlen = f, uint32(len(pt.names)), uint32(len(name))
				pt.names = append(pt.names, name...)
				row.flags |= flagCopy
			}
			pt.copyRows = append(pt.copyRows, c)
		}
		pt.rows = append(pt.rows, row)
	}
	return closeRows(rows)
}

// code is the Index's code of a hash algorithm, given on first use.
func (idx *Index) code(alg string) (uint8, error) {
	idx.codesMu.RLock()
	code, ok := idx.codes[alg]
	idx.codesMu.RUnlock()
	if ok {
		return code, nil
	}
	idx.codesMu.Lock()
	defer idx.codesMu.Unlock()
	if code, ok := idx.codes[alg]; ok {
		return code, nil
	}
	if len(idx.codes) == 255 {
		return 0, errors.New("more than 255 hash algorithms")
	}
	code = uint8(len(idx.codes) + 1)
	idx.codes[alg] = code
	return code, nil
}

// merge gathers the parts' rows into the Index (not sorted yet).
func (idx *Index) merge(parts []*indexPart, all []indexRow) {
	n := 0
	for _, pt := range parts {
		n += len(pt.rows)
	}
	// The parts still in their regions of all close up there, in order
	// (each moves down, over what was read before it); those that outgrew
	// theirs are appended after them (the rows are sorted next, and the
	// copies keep the order of the rows).
	inPlace := func(pt *indexPart) bool {
		lo, hi := pt.region[0], pt.region[1]
		return hi > lo && cap(pt.rows) == hi-lo && &pt.rows[:1][0] == &all[lo]
	}
	parts = slices.Clone(parts)
	slices.SortStableFunc(parts, func(a, b *indexPart) int {
		switch ia, ib := inPlace(a), inPlace(b); {
		case ia == ib:
			return 0
		case ia:
			return -1
		}
		return 1
	})
	idx.rows = all[:0]
	folderIDs := map[string]uint32{}
	for _, pt := range parts {
		if inPlace(pt) {
			k := len(idx.rows)
			idx.rows = idx.rows[:k+len(pt.rows)]
			copy(idx.rows[k:], pt.rows)
		} else {
			idx.rows = append(idx.rows, pt.rows...)
		}
		pt.rows = nil
		idx.maxID = max(idx.maxID, pt.maxID)
		maps.Copy(idx.extra, pt.extra)
		maps.Copy(idx.clashes, pt.clashes)
		if !pt.copies {
			continue
		}
		if idx.copies == nil {
			idx.copies = make([]copyRow, 0, n)
		}
		// The part's folders and names, numbered within the Index's.
		ids := make([]uint32, len(pt.folders))
		for i, f := range pt.folders {
			id, ok := folderIDs[f]
			if !ok {
				id = uint32(len(idx.folders))
				folderIDs[f] = id
				idx.folders = append(idx.folders, f)
			}
			ids[i] = id
		}
		off := uint32(len(idx.names))
		idx.names = append(idx.names, pt.names...)
		for _, c := range pt.copyRows {
			c.folder, c.name = ids[c.folder], c.name+off
			idx.copies = append(idx.copies, c)
		}
		pt.copyRows, pt.names = nil, nil
	}
}

// copyPath is the path of a copy the Index holds.
func (idx *Index) copyPath(c *copyRow) string {
	name := idx.names[c.name : c.name+c.nlen]
	folder := idx.folders[c.folder]
	if folder == "" {
		return string(name)
	}
	return folder + "/" + string(name)
}

// rowsAndCopies sorts the rows by key and their copies' facts with them.
type rowsAndCopies struct {
	rows   []indexRow
	copies []copyRow
}

func (r rowsAndCopies) Len() int           { return len(r.rows) }
func (r rowsAndCopies) Less(i, j int) bool { return compareKeys(r.rows[i].key, r.rows[j].key) < 0 }
func (r rowsAndCopies) Swap(i, j int) {
	r.rows[i], r.rows[j] = r.rows[j], r.rows[i]
	r.copies[i], r.copies[j] = r.copies[j], r.copies[i]
}

func compareKeys(a, b [2]uint64) int {
	if c := cmp.Compare(a[0], b[0]); c != 0 {
		return c
	}
	return cmp.Compare(a[1], b[1])
}

func (idx *Index) key(uri string) [2]uint64 {
	return [2]uint64{maphash.String(idx.k1, uri), maphash.String(idx.k2, uri)}
}

// Len is how many rows the Index holds.
func (idx *Index) Len() int { return len(idx.rows) }

// Find calls found for each of uris that has a row, with its index in uris.
// The Known is reused between calls and has no Path.
func (idx *Index) Find(ctx context.Context, uris []string, found func(i int, k *Known) error) error {
	var k Known
	var fps []algFP
	var clashed []string
	var clashedAt []int
	for i, uri := range uris {
		key := idx.key(uri)
		pos, ok := idx.find(key)
		if !ok {
			continue
		}
		if idx.clashes[key] {
			clashed, clashedAt = append(clashed, uri), append(clashedAt, i)
			continue
		}
		row := &idx.rows[pos]
		k = Known{ID: row.id, Length: row.length, Pending: row.flags&flagPending != 0, seed: &idx.fpSeed, codes: idx.codes}
		if row.flags&flagLastmod != 0 {
			k.Lastmod = time.Unix(0, row.lastmod).UTC()
		}
		if row.flags&flagChange != 0 {
			k.ChangeDatetime = time.Unix(0, row.change).UTC()
		}
		fps = fps[:0]
		for j := 0; j < int(min(row.nalg, 2)); j++ {
			fps = append(fps, algFP{alg: row.alg[j], fp: row.fp[j]})
		}
		if row.nalg > 2 {
			fps = append(fps, idx.extra[row.id]...)
		}
		k.fps = fps
		if idx.copies != nil {
			c := &idx.copies[pos]
			if row.flags&flagCopy != 0 {
				k.Copy = CopyFacts{Path: idx.copyPath(c), Length: row.length, FileMTime: c.mtime, OK: true}
			}
		}
		if err := found(i, &k); err != nil {
			return err
		}
	}
	if len(clashed) > 0 {
		return idx.view.Find(ctx, clashed, func(j int, k *Known) error { return found(clashedAt[j], k) })
	}
	return nil
}

// EachKnown walks the Source's rows in the database (see View.EachKnown).
func (idx *Index) EachKnown(ctx context.Context, pendingOnly bool, fn func(uri string, k *Known) error) error {
	return idx.view.EachKnown(ctx, pendingOnly, fn)
}

// MaxID is the largest id the Index holds.
func (idx *Index) MaxID(context.Context) (int64, error) { return idx.maxID, nil }

// EachID calls fn with the id of every row the Index holds, from memory.
func (idx *Index) EachID(_ context.Context, fn func(id int64) error) error {
	for i := range idx.rows {
		if err := fn(idx.rows[i].id); err != nil {
			return err
		}
	}
	return nil
}

// FindIDs reads rows by id from the database (see View.FindIDs).
func (idx *Index) FindIDs(ctx context.Context, ids []int64, fn func(uri string, k *Known) error) error {
	return idx.view.FindIDs(ctx, ids, fn)
}

// scanCacheKiB is the page cache of a connection while it reads every row
// of a Source once, in order (cache_size is 16 MiB otherwise): the pages
// are not read again, and the pool keeps a connection's cache as long as
// the connection, so that the two to four connections an Index is read on
// held 16 MiB each outside the Go heap for the rest of the run.
const scanCacheKiB = 1024

// scanConn is a connection of the pool with a small page cache, for a scan;
// its Close gives it back with its cache as it was.
func (db *DB) scanConn(ctx context.Context) (*scanConnection, error) {
	c, err := db.sql.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := c.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = -%d`, scanCacheKiB)); err != nil {
		c.Close()
		return nil, err
	}
	return &scanConnection{c}, nil
}

type scanConnection struct{ *sql.Conn }

// Close sets the connection's cache back and gives it to the pool.
func (c *scanConnection) Close() error {
	_, err := c.ExecContext(context.Background(), `PRAGMA cache_size = -16384`)
	if err != nil {
		c.Raw(func(any) error { return driver.ErrBadConn }) // not kept with a small cache
	}
	return c.Conn.Close()
}
