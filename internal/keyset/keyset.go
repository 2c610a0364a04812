// Package keyset is a set of 128-bit keys (hashes of URIs or paths) that
// says, as keys are added, which of them it held already. Up to a bound the
// keys are in memory; past it they move, a sorted batch at a time, to a
// SQLite database in a temporary file whose page cache is bounded, and
// memory keeps the batch being filled and a Bloom filter of the keys on
// disk (a byte a key), so that only a key the filter may hold is looked up
// there. A set of millions of keys (a plan of as many resources) so costs
// about a byte a key instead of the forty of a map (issue 23).
package keyset

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Key is a key of the set.
type Key [2]uint64

// DefaultInMemory is how many keys a Set holds in memory when New is given 0:
// about 2 MB of map.
const DefaultInMemory = 65536

// chunk is how many keys one INSERT statement adds.
const chunk = 500

// bloomBits is the Bloom filter's bits per key it is sized for, and
// bloomProbes the bits a key sets: about 2% of the keys not on disk are
// looked up there for nothing.
const (
	bloomBits   = 8
	bloomProbes = 6
)

// Set is a set of keys. It is not safe for concurrent use.
type Set struct {
	dir, name string
	max       int
	mem       map[Key]struct{} // the keys not (yet) on disk
	n         int

	path   string
	db     *sql.DB
	onDisk int      // keys in the database
	bloom  []uint64 // of the keys on disk
	cap    int      // keys the filter is sized for
	insert *sql.Stmt
	lookup *sql.Stmt
	blob   []byte
	args   []any
	err    error // a failure of the database: every later Add returns it
}

// New returns an empty set that keeps up to inMemory keys in memory (0:
// DefaultInMemory) before it moves them to a database made in dir
// (os.TempDir() when empty); name goes into the file's name and errors.
func New(dir, name string, inMemory int) *Set {
	if inMemory <= 0 {
		inMemory = DefaultInMemory
	}
	return &Set{dir: dir, name: name, max: inMemory, mem: map[Key]struct{}{}}
}

// Len is how many distinct keys the set holds.
func (s *Set) Len() int { return s.n }

// OnDisk reports whether some keys moved to the database.
func (s *Set) OnDisk() bool { return s.db != nil }

// Add adds keys and sets had[i] when keys[i] was in the set already, or is
// an earlier key of keys; had must be as long as keys.
func (s *Set) Add(ctx context.Context, keys []Key, had []bool) error {
	if len(had) != len(keys) {
		return errors.New("keyset: had and keys differ in length")
	}
	if s.err != nil {
		return s.err
	}
	for i, k := range keys {
		if _, ok := s.mem[k]; ok {
			had[i] = true
			continue
		}
		if s.db != nil && s.mayHold(k) {
			var one int
			err := s.lookup.QueryRowContext(ctx, s.blobOf(k)).Scan(&one)
			if err == nil {
				had[i] = true
				continue
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return s.fail(err)
			}
		}
		had[i] = false
		s.mem[k] = struct{}{}
		s.n++
		if len(s.mem) >= s.max {
			if err := s.flush(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Set) blobOf(k Key) []byte {
	b := make([]byte, 16)
	binary.BigEndian.PutUint64(b, k[0])
	binary.BigEndian.PutUint64(b[8:], k[1])
	return b
}

// probe calls fn with each of the filter's bits for k (double hashing of
// the key's halves, which are hashes already).
func (s *Set) probe(k Key, fn func(w int, bit uint64) bool) bool {
	m := uint64(len(s.bloom) * 64)
	h, step := k[0], k[1]|1
	for range bloomProbes {
		b := h % m
		if !fn(int(b/64), 1<<(b%64)) {
			return false
		}
		h += step
	}
	return true
}

func (s *Set) mayHold(k Key) bool {
	return s.probe(k, func(w int, bit uint64) bool { return s.bloom[w]&bit != 0 })
}

func (s *Set) remember(k Key) {
	s.probe(k, func(w int, bit uint64) bool { s.bloom[w] |= bit; return true })
}

// flush moves the keys in memory to the database, in order (each page of
// its index is written once a batch), and into the filter, which is made
// anew from the database, four times larger, when the keys outgrow it.
func (s *Set) flush(ctx context.Context) error {
	if s.db == nil {
		if err := s.open(ctx); err != nil {
			return err
		}
	}
	keys := make([]Key, 0, len(s.mem))
	for k := range s.mem {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b Key) int {
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return cmp.Compare(a[1], b[1])
	})
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fail(err)
	}
	defer tx.Rollback()
	ins := tx.StmtContext(ctx, s.insert)
	if cap(s.blob) < 16*chunk {
		s.blob = make([]byte, 16*chunk)
	}
	for rest := keys; len(rest) > 0; {
		n := min(len(rest), chunk)
		st := ins
		if n != chunk {
			if st, err = tx.PrepareContext(ctx, insertSQL(n)); err != nil {
				return s.fail(err)
			}
			defer st.Close()
		}
		s.args = s.args[:0]
		for i, k := range rest[:n] {
			kb := s.blob[16*i : 16*i+16]
			binary.BigEndian.PutUint64(kb, k[0])
			binary.BigEndian.PutUint64(kb[8:], k[1])
			s.args = append(s.args, kb)
		}
		if _, err := st.ExecContext(ctx, s.args...); err != nil {
			return s.fail(err)
		}
		rest = rest[n:]
	}
	if err := tx.Commit(); err != nil {
		return s.fail(err)
	}
	s.onDisk += len(keys)
	clear(s.mem)
	if s.onDisk > s.cap {
		return s.rebuild(ctx)
	}
	for _, k := range keys {
		s.remember(k)
	}
	return nil
}

// rebuild sizes the filter for four times the keys on disk and fills it
// from the database.
func (s *Set) rebuild(ctx context.Context) error {
	s.cap = 4 * s.onDisk
	s.bloom = make([]uint64, (s.cap*bloomBits+63)/64)
	rows, err := s.db.QueryContext(ctx, "SELECT k FROM k")
	if err != nil {
		return s.fail(err)
	}
	defer rows.Close()
	var kb []byte
	for rows.Next() {
		if err := rows.Scan(&kb); err != nil {
			return s.fail(err)
		}
		if len(kb) != 16 {
			return s.fail(fmt.Errorf("a key of %d bytes", len(kb)))
		}
		s.remember(Key{binary.BigEndian.Uint64(kb), binary.BigEndian.Uint64(kb[8:])})
	}
	if err := rows.Err(); err != nil {
		return s.fail(err)
	}
	return nil
}

// open makes the database.
func (s *Set) open(ctx context.Context) error {
	f, err := os.CreateTemp(s.dir, "rsx-"+s.name+"-*.db")
	if err != nil {
		s.err = fmt.Errorf("keep the %s in a temporary file: %w", s.name, err)
		return s.err
	}
	s.path = f.Name()
	f.Close()
	q := url.Values{}
	// Nothing is kept past the process: no journal, no syncs; a small page
	// cache (its pages come back from the file, in the system's cache).
	for _, p := range []string{"journal_mode(OFF)", "synchronous(OFF)", "locking_mode(EXCLUSIVE)", "cache_size(-2048)", "temp_store(FILE)"} {
		q.Add("_pragma", p)
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: s.path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		err = s.fail(err)
		s.remove()
		return err
	}
	db.SetMaxOpenConns(1)
	s.db = db
	if _, err := db.ExecContext(ctx, "CREATE TABLE k (k BLOB PRIMARY KEY) WITHOUT ROWID"); err != nil {
		return s.fail(err)
	}
	if s.insert, err = db.PrepareContext(ctx, insertSQL(chunk)); err != nil {
		return s.fail(err)
	}
	if s.lookup, err = db.PrepareContext(ctx, "SELECT 1 FROM k WHERE k = ?"); err != nil {
		return s.fail(err)
	}
	return nil
}

func (s *Set) fail(err error) error {
	s.err = fmt.Errorf("keep the %s in %s: %w", s.name, s.path, err)
	return s.err
}

func insertSQL(n int) string {
	return "INSERT INTO k (k) VALUES " + strings.TrimSuffix(strings.Repeat("(?),", n), ",")
}

// Close removes the database, if any.
func (s *Set) Close() error {
	s.mem, s.bloom = nil, nil
	if s.db == nil {
		return s.remove()
	}
	for _, st := range []*sql.Stmt{s.insert, s.lookup} {
		if st != nil {
			st.Close()
		}
	}
	s.db.Close()
	s.db, s.insert, s.lookup = nil, nil, nil
	return s.remove()
}

func (s *Set) remove() error {
	if s.path == "" {
		return nil
	}
	var err error
	for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
		if rerr := os.Remove(s.path + suffix); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
			err = rerr
		}
	}
	s.path = ""
	return err
}
