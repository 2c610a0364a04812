package engine

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"rsx/dest/plan"
	"rsx/dest/state"
	"rsx/model"
)

// Item is one decision of a plan: dest/plan's Item with the path the copy
// goes to.
type Item struct {
	plan.Item
	// Path is where the copy is written, mapped from the URI when planning
	// (Create, and Update when the --map rules changed); "" for the other
	// actions and updates in place (their row has it).
	Path string
	// Takes is the resource of the state whose path this write takes over,
	// a path collision it wins (collide.go): its row is removed, and its
	// file when it is not at Path, with the write. Zero for none.
	Takes Taken
}

// Taken is a resource of the state whose path a write takes over.
type Taken struct {
	ID        int64
	URI, Path string
	// Deleted: the Source deleted it (the takeover applies the deletion).
	Deleted bool
	// Via is the deletion's provenance (state.EncodeVia) when the Source
	// that deleted it republishes another's (§12.7): what the run's record
	// of the deletion carries, as a deletion of its own does.
	Via string
}

// spool holds a plan's items in a file, so that a plan of millions of
// resources costs no memory: written once while planning, read by each run.
type spool struct {
	f   *os.File
	w   *bufio.Writer
	n   int
	buf []byte
	err error
}

func newSpool(dir string) (*spool, error) {
	f, err := os.CreateTemp(dir, "rsx-items-*.spool")
	if err != nil {
		return nil, fmt.Errorf("plan: create the items' spool: %w", err)
	}
	return &spool{f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// Len is how many items were written.
func (s *spool) Len() int { return s.n }

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendVarint(b, t.Unix())
	return binary.AppendUvarint(b, uint64(t.Nanosecond()))
}

// add appends an item.
func (s *spool) add(it *Item) error {
	if s.err != nil {
		return s.err
	}
	e := &it.Entry
	b := s.buf[:0]
	b = append(b, byte(it.Action))
	if it.Touch {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendVarint(b, it.ID)
	b = binary.AppendVarint(b, e.Length)
	for _, str := range []string{e.URI, it.Path, string(e.Digests), e.Type, string(e.Change), e.Ref, it.Reason,
		e.Via.Href, string(e.Via.Hash), e.Via.Type} {
		b = appendString(b, str)
	}
	b = appendTime(b, e.Lastmod)
	b = appendTime(b, e.Datetime)
	if e.Via.Href != "" {
		b = binary.AppendVarint(b, e.Via.Length)
		b = appendTime(b, e.Via.Modified)
	}
	if it.Takes.URI != "" {
		b = binary.AppendVarint(b, it.Takes.ID)
		b = appendString(b, it.Takes.URI)
		b = appendString(b, it.Takes.Path)
		if it.Takes.Deleted {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		b = appendString(b, it.Takes.Via)
	}
	s.buf = b
	var n [binary.MaxVarintLen64]byte
	if _, err := s.w.Write(n[:binary.PutUvarint(n[:], uint64(len(b)))]); err != nil {
		s.err = fmt.Errorf("plan: write the items' spool: %w", err)
		return s.err
	}
	if _, err := s.w.Write(b); err != nil {
		s.err = fmt.Errorf("plan: write the items' spool: %w", err)
		return s.err
	}
	s.n++
	return nil
}

// finish flushes what was written.
func (s *spool) finish() error {
	if s.err != nil {
		return s.err
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("plan: write the items' spool: %w", err)
	}
	return nil
}

// each reads every item back, in order.
func (s *spool) each(fn func(*Item) error) error { return s.eachOf(nil, fn) }

// eachOf reads back the items whose action want takes (all of them for a
// nil want), in order: the others are skipped by their first byte, not
// decoded.
func (s *spool) eachOf(want func(plan.Action) bool, fn func(*Item) error) error {
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("read the plan's items: %w", err)
	}
	r := bufio.NewReaderSize(s.f, 64<<10)
	var buf []byte
	for {
		n, err := binary.ReadUvarint(r)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the plan's items: %w", err)
		}
		if n > 1<<26 {
			return errors.New("read the plan's items: a corrupt record")
		}
		if cap(buf) < int(n) {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(r, buf); err != nil {
			return fmt.Errorf("read the plan's items: %w", err)
		}
		if want != nil && len(buf) > 0 && !want(plan.Action(buf[0])) {
			continue
		}
		var it Item
		if err := decodeItem(buf, &it); err != nil {
			return err
		}
		if err := fn(&it); err != nil {
			return err
		}
	}
}

func decodeItem(b []byte, it *Item) error {
	bad := false
	uv := func() uint64 {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			bad, b = true, nil
			return 0
		}
		b = b[k:]
		return v
	}
	sv := func() int64 {
		v, k := binary.Varint(b)
		if k <= 0 {
			bad, b = true, nil
			return 0
		}
		b = b[k:]
		return v
	}
	str := func() string {
		l := uv()
		if uint64(len(b)) < l {
			bad, b = true, nil
			return ""
		}
		s := string(b[:l])
		b = b[l:]
		return s
	}
	tm := func() time.Time {
		if len(b) == 0 {
			bad = true
			return time.Time{}
		}
		set := b[0]
		b = b[1:]
		if set == 0 {
			return time.Time{}
		}
		sec := sv()
		ns := uv()
		return time.Unix(sec, int64(ns)).UTC()
	}
	if len(b) < 2 {
		return errors.New("read the plan's items: a corrupt record")
	}
	it.Action, it.Touch = plan.Action(b[0]), b[1] == 1
	b = b[2:]
	it.ID = sv()
	e := &it.Entry
	e.Length = sv()
	e.URI = str()
	it.Path = str()
	e.Digests = state.Digests(str())
	e.Type = str()
	e.Change = model.Change(str())
	e.Ref = str()
	it.Reason = str()
	e.Via.Href = str()
	e.Via.Hash = state.Digests(str())
	e.Via.Type = str()
	e.Lastmod = tm()
	e.Datetime = tm()
	if e.Via.Href != "" {
		e.Via.Length = sv()
		e.Via.Modified = tm()
	}
	if len(b) > 0 && !bad {
		it.Takes.ID = sv()
		it.Takes.URI = str()
		it.Takes.Path = str()
		if len(b) < 1 {
			bad = true
		} else {
			it.Takes.Deleted = b[0] == 1
			b = b[1:]
			it.Takes.Via = str()
			bad = bad || len(b) != 0
		}
	}
	if bad {
		return errors.New("read the plan's items: a corrupt record")
	}
	return nil
}

// close removes the spool's file.
func (s *spool) close() error {
	if s.f == nil {
		return nil
	}
	name := s.f.Name()
	s.f.Close()
	s.f = nil
	if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the plan's spool: %w", err)
	}
	return nil
}
