package spotcheck

import (
	"encoding/binary"
	"errors"

	"rsx/internal/spool"
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
// spoolRun findings in memory and merges them from the file (internal/spool). A write that
// fails (a full disk) is kept and returned by Err and by the Each methods.
type Spool struct {
	mismatched, warnings *spool.List[Finding]
	unchecked            *spool.List[Unchecked]
	mirrors              *spool.List[Mirror]
}

// spoolRun is how many findings of one list are sorted in memory at once.
const spoolRun = 16384

// NewSpool returns a Spool whose files are made in dir (os.TempDir() when
// empty) on first need. Close it to remove them.
func NewSpool(dir string) *Spool {
	return &Spool{
		mismatched: spool.NewList(dir, "audit's mismatched", spoolRun, appendFinding, readFinding, spool.ByLess(findingLess)),
		warnings:   spool.NewList(dir, "audit's warnings", spoolRun, appendFinding, readFinding, spool.ByLess(findingLess)),
		unchecked:  spool.NewList(dir, "audit's unchecked", spoolRun, appendUnchecked, readUnchecked, spool.ByLess(uncheckedLess)),
		mirrors:    spool.NewList(dir, "audit's mirrors", spoolRun, appendMirror, readMirror, spool.ByLess(mirrorLess)),
	}
}

func (s *Spool) Mismatch(f Finding)    { s.mismatched.Add(f) }
func (s *Spool) Warning(f Finding)     { s.warnings.Add(f) }
func (s *Spool) Unchecked(u Unchecked) { s.unchecked.Add(u) }
func (s *Spool) Mirror(m Mirror)       { s.mirrors.Add(m) }

// EachMismatched calls fn for every false claim, in order.
func (s *Spool) EachMismatched(fn func(Finding) error) error { return s.mismatched.Each(fn) }

// EachWarning calls fn for every warning, in order.
func (s *Spool) EachWarning(fn func(Finding) error) error { return s.warnings.Each(fn) }

// EachUnchecked calls fn for every claim that could not be compared, in order.
func (s *Spool) EachUnchecked(fn func(Unchecked) error) error { return s.unchecked.Each(fn) }

// EachMirror calls fn for every mirror, in order.
func (s *Spool) EachMirror(fn func(Mirror) error) error { return s.mirrors.Each(fn) }

// Err is the first write that failed.
func (s *Spool) Err() error {
	return errors.Join(s.mismatched.Err(), s.warnings.Err(), s.unchecked.Err(), s.mirrors.Err())
}

// Close removes the spool's files.
func (s *Spool) Close() error {
	return errors.Join(s.mismatched.Close(), s.warnings.Close(), s.unchecked.Close(), s.mirrors.Close())
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
