// Package spool keeps a list that may grow with the work (an audit's
// findings, the resources of a copy that differ) in a temporary file instead
// of memory, and gives it back in order: it sorts runs of a bounded number
// of items in memory, writes each run to the file, and merges the runs when
// the list is read. Memory holds one run, and one buffered reader per run
// while the list is read back.
package spool

import (
	"bufio"
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// DefaultRun is how many items a List sorts in memory at once when
// NewList is given 0.
const DefaultRun = 16384

// maxItem bounds the encoding of one item read back: a longer one means
// the file is not what was written.
const maxItem = 64 << 20

// List is one spooled list of items of type T. It is not safe for
// concurrent use. A write that fails (a full disk) is kept: Err, Each and
// Len report it, and nothing more is written.
type List[T any] struct {
	dir, name string
	enc       func([]byte, *T) []byte
	dec       func([]byte, *T) error
	cmp       func(a, b *T) int
	run       int

	buf  []T
	n    int
	f    *os.File
	w    *bufio.Writer
	runs []int64 // the offset each run begins at; the file's end follows the last
	end  int64
	rec  []byte
	err  error
	// unstable: equal items need not keep their order (Unstable).
	unstable bool
}

// NewList returns an empty list whose file is made in dir (os.TempDir()
// when empty) when the first run is full; name goes into the file's name
// and errors. enc appends an item's encoding, dec reads it back, compare
// orders the items (equal items keep the order they were added in). run is
// how many items are sorted in memory at once (0: DefaultRun).
func NewList[T any](dir, name string, run int, enc func([]byte, *T) []byte, dec func([]byte, *T) error, compare func(a, b *T) int) *List[T] {
	if run <= 0 {
		run = DefaultRun
	}
	return &List[T]{dir: dir, name: name, run: run, enc: enc, dec: dec, cmp: compare}
}

// Strings returns a List of strings in byte order.
func Strings(dir, name string, run int) *List[string] {
	return NewList(dir, name, run,
		func(b []byte, s *string) []byte { return append(b, *s...) },
		func(b []byte, s *string) error { *s = string(b); return nil },
		func(a, b *string) int { return cmp.Compare(*a, *b) })
}

// Unstable lets the list sort its runs without keeping equal items in the
// order they were added in, which is several times faster (a plan's million
// path keys): for items that equal ones cannot be told from.
func (l *List[T]) Unstable() *List[T] {
	l.unstable = true
	return l
}

func (l *List[T]) sortBuf() {
	if l.unstable {
		slices.SortFunc(l.buf, func(a, b T) int { return l.cmp(&a, &b) })
		return
	}
	slices.SortStableFunc(l.buf, func(a, b T) int { return l.cmp(&a, &b) })
}

// Add adds an item.
func (l *List[T]) Add(v T) {
	if l.err != nil {
		return
	}
	l.n++
	l.buf = append(l.buf, v)
	if len(l.buf) >= l.run {
		l.flushRun()
	}
}

// Len is how many items were added.
func (l *List[T]) Len() int { return l.n }

// Err is the first write that failed.
func (l *List[T]) Err() error { return l.err }

// flushRun writes the items in memory, sorted, as a run of the file.
func (l *List[T]) flushRun() {
	if len(l.buf) == 0 || l.err != nil {
		return
	}
	if l.f == nil {
		f, err := os.CreateTemp(l.dir, "rsx-"+fileName(l.name)+"-*.spool")
		if err != nil {
			l.err = fmt.Errorf("spool the %s: %w", l.name, err)
			return
		}
		l.f, l.w = f, bufio.NewWriterSize(f, 64<<10)
	}
	l.sortBuf()
	l.runs = append(l.runs, l.end)
	var n [binary.MaxVarintLen64]byte
	for i := range l.buf {
		l.rec = l.enc(l.rec[:0], &l.buf[i])
		k := binary.PutUvarint(n[:], uint64(len(l.rec)))
		if _, err := l.w.Write(n[:k]); err != nil {
			l.err = fmt.Errorf("spool the %s: %w", l.name, err)
			return
		}
		if _, err := l.w.Write(l.rec); err != nil {
			l.err = fmt.Errorf("spool the %s: %w", l.name, err)
			return
		}
		l.end += int64(k + len(l.rec))
	}
	clear(l.buf)
	l.buf = l.buf[:0]
}

// Each calls fn for every item in order: from memory when no run was
// written, else by merging the runs of the file. It may be called more
// than once; Add may follow it.
func (l *List[T]) Each(fn func(T) error) error {
	if l.err != nil {
		return l.err
	}
	if l.f == nil {
		l.sortBuf()
		for _, v := range l.buf {
			if err := fn(v); err != nil {
				return err
			}
		}
		return nil
	}
	l.flushRun()
	if l.err != nil {
		return l.err
	}
	if err := l.w.Flush(); err != nil {
		l.err = fmt.Errorf("spool the %s: %w", l.name, err)
		return l.err
	}
	m := &merger[T]{cmp: l.cmp}
	for i, start := range l.runs {
		stop := l.end
		if i+1 < len(l.runs) {
			stop = l.runs[i+1]
		}
		c := &cursor[T]{r: bufio.NewReaderSize(io.NewSectionReader(l.f, start, stop-start), 32<<10), dec: l.dec, run: i}
		ok, err := c.next()
		if err != nil {
			return fmt.Errorf("read back the %s: %w", l.name, err)
		}
		if ok {
			m.cursors = append(m.cursors, c)
		}
	}
	heap.Init(m)
	for m.Len() > 0 {
		c := m.cursors[0]
		if err := fn(c.cur); err != nil {
			return err
		}
		ok, err := c.next()
		if err != nil {
			return fmt.Errorf("read back the %s: %w", l.name, err)
		}
		if ok {
			heap.Fix(m, 0)
		} else {
			heap.Pop(m)
		}
	}
	return nil
}

// Close removes the list's file. The list is empty after it.
func (l *List[T]) Close() error {
	l.buf, l.n, l.runs, l.end = nil, 0, nil, 0
	if l.f == nil {
		return nil
	}
	name := l.f.Name()
	l.f.Close()
	l.f, l.w = nil, nil
	if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the spool of the %s: %w", l.name, err)
	}
	return nil
}

// fileName is name with every run of characters other than ASCII letters
// and digits made one "-".
func fileName(name string) string {
	var b []byte
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b = append(b, c)
		} else if len(b) > 0 && b[len(b)-1] != '-' {
			b = append(b, '-')
		}
	}
	return strings.TrimSuffix(string(b), "-")
}

// ByLess is a comparison of NewList made of a less function.
func ByLess[T any](less func(a, b *T) bool) func(a, b *T) int {
	return func(a, b *T) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return 0
	}
}

// cursor reads one sorted run.
type cursor[T any] struct {
	r   *bufio.Reader
	dec func([]byte, *T) error
	run int
	buf []byte
	cur T
}

func (c *cursor[T]) next() (bool, error) {
	n, err := binary.ReadUvarint(c.r)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if n > maxItem {
		return false, fmt.Errorf("a spooled item of %d bytes", n)
	}
	if uint64(cap(c.buf)) < n {
		c.buf = make([]byte, n)
	}
	c.buf = c.buf[:n]
	if _, err := io.ReadFull(c.r, c.buf); err != nil {
		return false, err
	}
	var v T
	if err := c.dec(c.buf, &v); err != nil {
		return false, err
	}
	c.cur = v
	return true, nil
}

// merger is a heap of the runs' cursors by their current item (the
// earlier run first among equals, so that the merge is stable).
type merger[T any] struct {
	cursors []*cursor[T]
	cmp     func(a, b *T) int
}

func (m *merger[T]) Len() int { return len(m.cursors) }
func (m *merger[T]) Less(i, j int) bool {
	a, b := m.cursors[i], m.cursors[j]
	if c := m.cmp(&a.cur, &b.cur); c != 0 {
		return c < 0
	}
	return a.run < b.run
}
func (m *merger[T]) Swap(i, j int) { m.cursors[i], m.cursors[j] = m.cursors[j], m.cursors[i] }
func (m *merger[T]) Push(x any)    { m.cursors = append(m.cursors, x.(*cursor[T])) }
func (m *merger[T]) Pop() any {
	c := m.cursors[len(m.cursors)-1]
	m.cursors = m.cursors[:len(m.cursors)-1]
	return c
}
