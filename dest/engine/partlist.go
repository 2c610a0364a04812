package engine

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// partsInMemory is how many parts of a Resource List Index a plan keeps in
// memory; past it they go to a temporary file.
const partsInMemory = 10000

// part is one document an index lists: its URL and the at its entry gives.
type part struct {
	url string
	at  time.Time
}

// partList holds the parts of a Resource List Index between reading the
// index and reading them: in memory up to max, then in a temporary file in
// dir, so that an index of a million parts does not hold a hundred
// megabytes of them (issue 23). The index is read to its end first, so that
// its response is not held open, against its timeout, while the parts are
// read. When no temporary file can be made, the parts stay in memory.
type partList struct {
	max  int
	dir  string
	mem  []part
	n    int
	f    *os.File
	w    *bufio.Writer
	buf  []byte
	spew error // why the file could not be made; the parts stay in memory
}

func (l *partList) add(p part) error {
	l.n++
	if l.f == nil && (len(l.mem) < l.max || l.spew != nil) {
		l.mem = append(l.mem, p)
		return nil
	}
	if l.f == nil {
		f, err := os.CreateTemp(l.dir, "rsx-parts-*.spool")
		if err != nil {
			l.spew = err
			l.mem = append(l.mem, p)
			return nil
		}
		l.f, l.w = f, bufio.NewWriterSize(f, 64<<10)
		for _, q := range l.mem {
			if err := l.write(q); err != nil {
				return err
			}
		}
		l.mem = nil
	}
	return l.write(p)
}

// write appends p to the file: the URL's length and bytes, then the at as
// seconds and nanoseconds (a flag byte 0 when there is none).
func (l *partList) write(p part) error {
	b := binary.AppendUvarint(l.buf[:0], uint64(len(p.url)))
	b = append(b, p.url...)
	if p.at.IsZero() {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = binary.AppendVarint(b, p.at.Unix())
		b = binary.AppendUvarint(b, uint64(p.at.Nanosecond()))
	}
	l.buf = b
	if _, err := l.w.Write(b); err != nil {
		return fmt.Errorf("keep the parts of the index in %s: %w", l.f.Name(), err)
	}
	return nil
}

// each calls fn with every part in the order added, until fn returns false.
func (l *partList) each(fn func(part) bool) error {
	if l.f == nil {
		for _, p := range l.mem {
			if !fn(p) {
				return nil
			}
		}
		return nil
	}
	if err := l.w.Flush(); err != nil {
		return fmt.Errorf("keep the parts of the index in %s: %w", l.f.Name(), err)
	}
	if _, err := l.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReaderSize(l.f, 64<<10)
	bad := func(err error) error {
		return fmt.Errorf("read back the parts of the index from %s: %w", l.f.Name(), err)
	}
	for range l.n {
		n, err := binary.ReadUvarint(r)
		if err != nil {
			return bad(err)
		}
		if n > 1<<24 {
			return bad(errors.New("a URL longer than 16 MiB"))
		}
		u := make([]byte, n)
		if _, err := io.ReadFull(r, u); err != nil {
			return bad(err)
		}
		p := part{url: string(u)}
		flag, err := r.ReadByte()
		if err != nil {
			return bad(err)
		}
		if flag == 1 {
			sec, err := binary.ReadVarint(r)
			if err != nil {
				return bad(err)
			}
			nsec, err := binary.ReadUvarint(r)
			if err != nil {
				return bad(err)
			}
			p.at = time.Unix(sec, int64(nsec)).UTC()
		}
		if !fn(p) {
			return nil
		}
	}
	return nil
}

// close removes the temporary file, if any.
func (l *partList) close() {
	if l.f != nil {
		l.f.Close()
		os.Remove(l.f.Name())
		l.f = nil
	}
}
