package audit

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
)

// Sink receives a run's findings as each resource is judged, instead of the
// Report keeping them (Options.Sink), from one goroutine at a time. Report's
// Counts count them all the same. Spool is one.
type Sink interface {
	Mismatch(Finding)
	Warning(Finding)
	Unchecked(Unchecked)
	Mirror(Mirror)
}

// Spool is a Sink that keeps the findings in a temporary file, so that
// memory does not grow with them (an audit of every resource of a large
// Source lists every mirror it checked), and gives each list back in the
// order a Report keeps it: by URI, then mirror, then check. It sorts runs of
// spoolRun findings in memory and merges them from the file. A write that
// fails (a full disk) is kept and returned by Err and by the Each methods.
type Spool struct {
	mismatched, warnings *spoolList[Finding]
	unchecked            *spoolList[Unchecked]
	mirrors              *spoolList[Mirror]
}

// spoolRun is how many findings of one list are sorted in memory at once.
const spoolRun = 16384

// NewSpool returns a Spool whose files are made in dir (os.TempDir() when
// empty) on first need. Close it to remove them.
func NewSpool(dir string) *Spool {
	return &Spool{
		mismatched: newSpoolList(dir, "mismatched", appendFinding, readFinding, findingLess),
		warnings:   newSpoolList(dir, "warnings", appendFinding, readFinding, findingLess),
		unchecked:  newSpoolList(dir, "unchecked", appendUnchecked, readUnchecked, uncheckedLess),
		mirrors:    newSpoolList(dir, "mirrors", appendMirror, readMirror, mirrorLess),
	}
}

func (s *Spool) Mismatch(f Finding)    { s.mismatched.add(f) }
func (s *Spool) Warning(f Finding)     { s.warnings.add(f) }
func (s *Spool) Unchecked(u Unchecked) { s.unchecked.add(u) }
func (s *Spool) Mirror(m Mirror)       { s.mirrors.add(m) }

// EachMismatched calls fn for every false claim, in order.
func (s *Spool) EachMismatched(fn func(Finding) error) error { return s.mismatched.each(fn) }

// EachWarning calls fn for every warning, in order.
func (s *Spool) EachWarning(fn func(Finding) error) error { return s.warnings.each(fn) }

// EachUnchecked calls fn for every claim that could not be compared, in order.
func (s *Spool) EachUnchecked(fn func(Unchecked) error) error { return s.unchecked.each(fn) }

// EachMirror calls fn for every mirror, in order.
func (s *Spool) EachMirror(fn func(Mirror) error) error { return s.mirrors.each(fn) }

// Err is the first write that failed.
func (s *Spool) Err() error {
	return errors.Join(s.mismatched.err, s.warnings.err, s.unchecked.err, s.mirrors.err)
}

// Close removes the spool's files.
func (s *Spool) Close() error {
	return errors.Join(s.mismatched.close(), s.warnings.close(), s.unchecked.close(), s.mirrors.close())
}

// spoolList is one list of a Spool: the current run in memory, the runs
// before it sorted in a file, one after the other.
type spoolList[T any] struct {
	dir, name string
	enc       func([]byte, *T) []byte
	dec       func([]byte, *T) error
	less      func(a, b *T) bool

	buf    []T
	f      *os.File
	w      *bufio.Writer
	runs   []int64 // the offset each run begins at; the file's end follows the last
	end    int64
	rec    []byte
	err    error
	closed bool
}

func newSpoolList[T any](dir, name string, enc func([]byte, *T) []byte, dec func([]byte, *T) error, less func(a, b *T) bool) *spoolList[T] {
	return &spoolList[T]{dir: dir, name: name, enc: enc, dec: dec, less: less}
}

func (l *spoolList[T]) add(v T) {
	if l.err != nil {
		return
	}
	l.buf = append(l.buf, v)
	if len(l.buf) >= spoolRun {
		l.flushRun()
	}
}

// flushRun writes the findings in memory, sorted, as a run of the file.
func (l *spoolList[T]) flushRun() {
	if len(l.buf) == 0 || l.err != nil {
		return
	}
	if l.f == nil {
		f, err := os.CreateTemp(l.dir, "rsx-audit-"+l.name+"-*.spool")
		if err != nil {
			l.err = fmt.Errorf("spool the audit's %s: %w", l.name, err)
			return
		}
		l.f, l.w = f, bufio.NewWriterSize(f, 64<<10)
	}
	sort.SliceStable(l.buf, func(i, j int) bool { return l.less(&l.buf[i], &l.buf[j]) })
	l.runs = append(l.runs, l.end)
	var n [binary.MaxVarintLen64]byte
	for i := range l.buf {
		l.rec = l.enc(l.rec[:0], &l.buf[i])
		k := binary.PutUvarint(n[:], uint64(len(l.rec)))
		if _, err := l.w.Write(n[:k]); err != nil {
			l.err = fmt.Errorf("spool the audit's %s: %w", l.name, err)
			return
		}
		if _, err := l.w.Write(l.rec); err != nil {
			l.err = fmt.Errorf("spool the audit's %s: %w", l.name, err)
			return
		}
		l.end += int64(k + len(l.rec))
	}
	clear(l.buf)
	l.buf = l.buf[:0]
}

// each calls fn for every item in order: from memory when no run was
// written, else by merging the runs of the file.
func (l *spoolList[T]) each(fn func(T) error) error {
	if l.err != nil {
		return l.err
	}
	if l.f == nil {
		sort.SliceStable(l.buf, func(i, j int) bool { return l.less(&l.buf[i], &l.buf[j]) })
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
		return fmt.Errorf("spool the audit's %s: %w", l.name, err)
	}
	m := &merger[T]{less: l.less}
	for i, start := range l.runs {
		stop := l.end
		if i+1 < len(l.runs) {
			stop = l.runs[i+1]
		}
		c := &runCursor[T]{r: bufio.NewReaderSize(io.NewSectionReader(l.f, start, stop-start), 32<<10), dec: l.dec, run: i}
		ok, err := c.next()
		if err != nil {
			return fmt.Errorf("read back the audit's %s: %w", l.name, err)
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
			return fmt.Errorf("read back the audit's %s: %w", l.name, err)
		}
		if ok {
			heap.Fix(m, 0)
		} else {
			heap.Pop(m)
		}
	}
	return nil
}

func (l *spoolList[T]) close() error {
	l.buf = nil
	if l.f == nil || l.closed {
		return nil
	}
	l.closed = true
	name := l.f.Name()
	l.f.Close()
	if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the audit's spool: %w", err)
	}
	return nil
}

// runCursor reads one sorted run.
type runCursor[T any] struct {
	r   *bufio.Reader
	dec func([]byte, *T) error
	run int
	buf []byte
	cur T
}

func (c *runCursor[T]) next() (bool, error) {
	n, err := binary.ReadUvarint(c.r)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if n > 64<<20 {
		return false, fmt.Errorf("a spooled finding of %d bytes", n)
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
	cursors []*runCursor[T]
	less    func(a, b *T) bool
}

func (m *merger[T]) Len() int { return len(m.cursors) }
func (m *merger[T]) Less(i, j int) bool {
	a, b := m.cursors[i], m.cursors[j]
	if m.less(&a.cur, &b.cur) {
		return true
	}
	if m.less(&b.cur, &a.cur) {
		return false
	}
	return a.run < b.run
}
func (m *merger[T]) Swap(i, j int) { m.cursors[i], m.cursors[j] = m.cursors[j], m.cursors[i] }
func (m *merger[T]) Push(x any)    { m.cursors = append(m.cursors, x.(*runCursor[T])) }
func (m *merger[T]) Pop() any {
	c := m.cursors[len(m.cursors)-1]
	m.cursors = m.cursors[:len(m.cursors)-1]
	return c
}

// The order of a Report's lists (sortFindings).
func orderLess(u1, u2 string, o1, o2 [2]int) bool {
	if u1 != u2 {
		return u1 < u2
	}
	if o1[0] != o2[0] {
		return o1[0] < o2[0]
	}
	return o1[1] < o2[1]
}

func findingLess(a, b *Finding) bool     { return orderLess(a.URL, b.URL, a.order, b.order) }
func uncheckedLess(a, b *Unchecked) bool { return orderLess(a.URL, b.URL, a.order, b.order) }
func mirrorLess(a, b *Mirror) bool {
	return orderLess(a.URL, b.URL, [2]int{a.order}, [2]int{b.order})
}

// Encodings of the spooled findings: strings as a length and the bytes,
// numbers as varints.

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// fields reads back what append* wrote.
type fields struct {
	b   []byte
	bad bool
}

func (f *fields) str() string {
	n, k := binary.Uvarint(f.b)
	if k <= 0 || uint64(len(f.b)-k) < n {
		f.bad = true
		return ""
	}
	s := string(f.b[k : k+int(n)])
	f.b = f.b[k+int(n):]
	return s
}

func (f *fields) int() int {
	v, k := binary.Varint(f.b)
	if k <= 0 {
		f.bad = true
		return 0
	}
	f.b = f.b[k:]
	return int(v)
}

func (f *fields) done() error {
	if f.bad || len(f.b) != 0 {
		return errors.New("a spooled finding is corrupt")
	}
	return nil
}

func boolInt(v bool) int64 {
	if v {
		return 1
	}
	return 0
}

func appendFinding(b []byte, f *Finding) []byte {
	for _, s := range []string{f.URL, f.Mirror, f.Field, f.Declared, f.Actual, f.Reason} {
		b = appendString(b, s)
	}
	b = binary.AppendVarint(b, boolInt(f.Changed))
	b = binary.AppendVarint(b, int64(f.order[0]))
	return binary.AppendVarint(b, int64(f.order[1]))
}

func readFinding(b []byte, f *Finding) error {
	r := fields{b: b}
	f.URL, f.Mirror, f.Field, f.Declared, f.Actual, f.Reason = r.str(), r.str(), r.str(), r.str(), r.str(), r.str()
	f.Changed = r.int() != 0
	f.order = [2]int{r.int(), r.int()}
	return r.done()
}

func appendUnchecked(b []byte, u *Unchecked) []byte {
	for _, s := range []string{u.URL, u.Mirror, u.Field, u.Reason} {
		b = appendString(b, s)
	}
	b = binary.AppendVarint(b, int64(u.order[0]))
	return binary.AppendVarint(b, int64(u.order[1]))
}

func readUnchecked(b []byte, u *Unchecked) error {
	r := fields{b: b}
	u.URL, u.Mirror, u.Field, u.Reason = r.str(), r.str(), r.str(), r.str()
	u.order = [2]int{r.int(), r.int()}
	return r.done()
}

func appendMirror(b []byte, m *Mirror) []byte {
	b = appendString(b, m.URL)
	b = appendString(b, m.Mirror)
	b = binary.AppendVarint(b, int64(m.Pri))
	b = binary.AppendVarint(b, boolInt(m.OK))
	return binary.AppendVarint(b, int64(m.order))
}

func readMirror(b []byte, m *Mirror) error {
	r := fields{b: b}
	m.URL, m.Mirror = r.str(), r.str()
	m.Pri = r.int()
	m.OK = r.int() != 0
	m.order = r.int()
	return r.done()
}
