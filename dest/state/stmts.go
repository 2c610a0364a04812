package state

import (
	"context"
	"database/sql"
	"sync"
)

// idleConns is how many idle connections the pool keeps. database/sql keeps
// two by default and closes the others as they are given back: a run's
// workers, its writer and its planner use more at once, and each connection
// closed took its page cache and its prepared statements with it, so that
// every batch committed began again from cold connections (reading the
// pages of a large state again, and parsing each query again).
const idleConns = 32

// stmtCache holds the statements of the queries a run asks once for each
// resource, prepared once: SQLite's parser costs as much as the look-up of
// a row by a key. database/sql prepares a statement again on each
// connection it runs on, once.
type stmtCache struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// prepared is the statement of query, prepared on first use.
func (db *DB) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	c := &db.stmts
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[query]; ok {
		return st, nil
	}
	st, err := db.sql.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[query] = st
	return st, nil
}

// query runs a cached statement.
func (db *DB) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := db.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	db.queries.Add(1)
	return st.QueryContext(ctx, args...)
}

// queryRow runs a cached statement that returns one row.
func (db *DB) queryRow(ctx context.Context, query string, args ...any) scanner {
	st, err := db.prepared(ctx, query)
	if err != nil {
		return errRow{err}
	}
	db.queries.Add(1)
	return st.QueryRowContext(ctx, args...)
}

// Queries is how many statements of the cache (the queries a run asks for
// its resources, a look-up or a batch of them) ran through this DB: a test
// holds a plan's look-ups to a batch for many resources, not one each.
func (db *DB) Queries() int64 { return db.queries.Load() }

// errRow is a row whose statement could not be prepared.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// close closes the cached statements.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}
