package dump

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"io"
	"slices"
	"sync"

	"rsx/model"
)

// Verifying a package as it downloads. The bytes written to the temporary
// file are read a second time, from memory, by a goroutine that walks the
// local file headers member by member: it reads the manifest when it comes
// first (as packages are written), and hashes each member the manifest lists
// with every algorithm declared for it at once, one goroutine per algorithm
// (model.NewParallelVerifier). Verify then takes these results instead of
// reading the file again, but only for a member whose central directory
// record says what the walk found (where its data starts, method, sizes,
// CRC-32): anything the walk did not follow — a member before the manifest,
// stored data of unknown size, an unknown method, corrupt data, a limit — is
// read from the file as before, so the Result is the same either way.

// streamAhead is the number of members whose digests may be in progress at
// once (each on a goroutine per algorithm).
const streamAhead = 3

// streamed is what the walk found of one member.
type streamed struct {
	name         string
	method       uint16
	descriptor   bool // its local header says a data descriptor follows its data
	dataOffset   int64
	csize, usize int64
	crc          uint32
	declared     model.HashList     // what the manifest declares for it, nil when nothing
	results      []model.HashResult // of declared
}

// streamVerifier walks a package as it is written to it.
type streamVerifier struct {
	in    *handOff
	done  chan struct{}
	opts  Options
	found map[int64]*streamed // by data offset, read once done is closed
	algs  map[string]model.HashList
}

func newStreamVerifier(opts Options) *streamVerifier {
	s := &streamVerifier{in: newHandOff(), done: make(chan struct{}), opts: opts, found: map[int64]*streamed{}}
	go s.run(s.in)
	return s
}

// Write hands the package's next bytes to the walk. It never fails: a walk
// that stops reads on to the end without looking.
func (s *streamVerifier) Write(p []byte) (int, error) {
	s.in.write(p)
	return len(p), nil
}

// finish ends the walk (err, when not nil, cut the download short) and waits for it.
func (s *streamVerifier) finish(err error) {
	s.in.close(err)
	<-s.done
}

// handOff passes written bytes to a reader on another goroutine through a few
// buffers, so that neither waits for the other until they are all in use.
type handOff struct {
	full chan []byte
	free chan []byte
	cur  []byte // being written
	err  error  // why the writer stopped, read after full is closed
	rd   []byte // what the reader has not taken of its buffer
	held []byte
}

const (
	handOffBufs = 4
	handOffSize = 256 << 10
)

func newHandOff() *handOff {
	h := &handOff{full: make(chan []byte, handOffBufs), free: make(chan []byte, handOffBufs)}
	for range handOffBufs {
		h.free <- make([]byte, 0, handOffSize)
	}
	return h
}

func (h *handOff) write(p []byte) {
	for len(p) > 0 {
		if h.cur == nil {
			h.cur = <-h.free
		}
		n := copy(h.cur[len(h.cur):cap(h.cur)], p)
		h.cur, p = h.cur[:len(h.cur)+n], p[n:]
		if len(h.cur) == cap(h.cur) {
			h.full <- h.cur
			h.cur = nil
		}
	}
}

func (h *handOff) close(err error) {
	if len(h.cur) > 0 {
		h.full <- h.cur
	}
	h.cur, h.err = nil, err
	close(h.full)
}

func (h *handOff) Read(p []byte) (int, error) {
	for len(h.rd) == 0 {
		if h.held != nil {
			h.free <- h.held[:0]
			h.held = nil
		}
		b, ok := <-h.full
		if !ok {
			if h.err != nil {
				return 0, h.err
			}
			return 0, io.EOF
		}
		h.rd, h.held = b, b
	}
	n := copy(p, h.rd)
	h.rd = h.rd[n:]
	return n, nil
}

// offsetReader counts the bytes read through it.
type offsetReader struct {
	r   io.Reader
	off int64
}

func (o *offsetReader) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	o.off += int64(n)
	return n, err
}

func (s *streamVerifier) run(pr io.Reader) {
	defer close(s.done)
	// A member's digests are finished by a goroutine of its own, so that the
	// next member is read (and hashed) meanwhile: up to streamAhead at once.
	var wg sync.WaitGroup
	defer wg.Wait()
	ahead := make(chan struct{}, streamAhead)
	or := &offsetReader{r: pr}
	br := bufio.NewReaderSize(or, 256<<10)
	defer io.Copy(io.Discard, br) // the download never waits for a walk that stopped
	pos := func() int64 { return or.off - int64(br.Buffered()) }
	for len(s.found) < s.opts.MaxMembers {
		var hdr [30]byte
		if _, err := io.ReadFull(br, hdr[:]); err != nil || binary.LittleEndian.Uint32(hdr[:]) != 0x04034b50 {
			return // the central directory, or not a ZIP we can walk
		}
		flags := binary.LittleEndian.Uint16(hdr[6:])
		m := &streamed{method: binary.LittleEndian.Uint16(hdr[8:]), crc: binary.LittleEndian.Uint32(hdr[14:]),
			csize: int64(binary.LittleEndian.Uint32(hdr[18:])), usize: int64(binary.LittleEndian.Uint32(hdr[22:]))}
		name := make([]byte, binary.LittleEndian.Uint16(hdr[26:]))
		extra := make([]byte, binary.LittleEndian.Uint16(hdr[28:]))
		if _, err := io.ReadFull(br, name); err != nil {
			return
		}
		if _, err := io.ReadFull(br, extra); err != nil {
			return
		}
		m.name = string(name)
		zip64 := m.csize == 0xffffffff || m.usize == 0xffffffff
		if zip64 && !zip64Sizes(extra, m) {
			return
		}
		if flags&1 != 0 { // encrypted
			return
		}
		m.dataOffset = pos()
		descriptor := flags&8 != 0
		m.descriptor = descriptor
		m.declared = s.algs[m.name]
		var manifest *bytes.Buffer
		if m.name == ManifestName && s.algs == nil {
			manifest = new(bytes.Buffer)
		}
		var v *model.Verifier
		if m.declared != nil {
			v = model.NewParallelVerifier(m.declared)
		}
		ok := s.member(br, pos, m, descriptor, zip64, v, manifest)
		if v != nil {
			ahead <- struct{}{}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if ok {
					m.results = v.Results()
				}
				v.Close()
				<-ahead
			}()
		}
		if !ok {
			return
		}
		s.found[m.dataOffset] = m
		if manifest != nil {
			s.readManifest(manifest.Bytes())
		}
	}
}

// zip64Sizes reads the sizes of a local header's zip64 extra field.
func zip64Sizes(extra []byte, m *streamed) bool {
	for len(extra) >= 4 {
		id, size := binary.LittleEndian.Uint16(extra), int(binary.LittleEndian.Uint16(extra[2:]))
		if len(extra) < 4+size {
			return false
		}
		if id == 0x0001 {
			f := extra[4 : 4+size]
			if m.usize == 0xffffffff {
				if len(f) < 8 {
					return false
				}
				m.usize, f = int64(binary.LittleEndian.Uint64(f)), f[8:]
			}
			if m.csize == 0xffffffff {
				if len(f) < 8 {
					return false
				}
				m.csize = int64(binary.LittleEndian.Uint64(f))
			}
			return m.usize >= 0 && m.csize >= 0
		}
		extra = extra[4+size:]
	}
	return false
}

// member reads one member's data (and its data descriptor) through the CRC-32,
// v and manifest; it reports whether it could follow it to its end.
func (s *streamVerifier) member(br *bufio.Reader, pos func() int64, m *streamed, descriptor, zip64 bool, v *model.Verifier, manifest *bytes.Buffer) bool {
	crc := crc32.NewIEEE()
	var n int64
	feed := func(b []byte) bool {
		n += int64(len(b))
		if n > s.opts.MaxMemberBytes || manifest != nil && int64(manifest.Len()+len(b)) > s.opts.MaxManifestBytes {
			return false
		}
		crc.Write(b)
		if v != nil {
			v.Write(b)
		}
		if manifest != nil {
			manifest.Write(b)
		}
		return true
	}
	switch {
	case m.method == zip.Deflate:
		start := pos()
		fr := flate.NewReader(br) // br is an io.ByteReader: flate reads no further than its stream
		buf := make([]byte, 64<<10)
		for {
			k, err := fr.Read(buf)
			if k > 0 && !feed(buf[:k]) {
				return false
			}
			if n > ratioFloor && n/max(pos()-start, 1) > s.opts.MaxRatio {
				return false
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return false
			}
		}
		csize := pos() - start
		if descriptor {
			m.csize, m.usize = csize, n
			return readDescriptor(br, m, crc.Sum32(), zip64)
		}
		if csize != m.csize || n != m.usize {
			return false
		}
	case m.method == zip.Store && !descriptor:
		if m.csize != m.usize {
			return false
		}
		for left := m.csize; left > 0; {
			b, err := br.Peek(int(min(left, int64(br.Size()))))
			if len(b) == 0 || !feed(b) {
				return false
			}
			br.Discard(len(b))
			left -= int64(len(b))
			if err != nil && left > 0 {
				return false
			}
		}
	case m.method == zip.Store:
		// Stored data of unknown size: it ends at the data descriptor whose
		// CRC-32 and sizes are those of the bytes before it.
		sig := []byte{'P', 'K', 7, 8}
		for {
			b, err := br.Peek(br.Size())
			if len(b) < len(sig) && err != nil {
				return false
			}
			i := bytes.Index(b, sig)
			if i < 0 {
				k := len(b) - len(sig) + 1
				if !feed(b[:k]) {
					return false
				}
				br.Discard(k)
				continue
			}
			if !feed(b[:i]) {
				return false
			}
			br.Discard(i)
			d, _ := br.Peek(24)
			if len(d) >= 16 && binary.LittleEndian.Uint32(d[4:]) == crc.Sum32() &&
				int64(binary.LittleEndian.Uint32(d[8:])) == n && int64(binary.LittleEndian.Uint32(d[12:])) == n {
				br.Discard(16)
				m.csize, m.usize, m.crc = n, n, crc.Sum32()
				return true
			}
			if len(d) >= 24 && binary.LittleEndian.Uint32(d[4:]) == crc.Sum32() &&
				int64(binary.LittleEndian.Uint64(d[8:])) == n && int64(binary.LittleEndian.Uint64(d[16:])) == n {
				br.Discard(24)
				m.csize, m.usize, m.crc = n, n, crc.Sum32()
				return true
			}
			// "PK\x07\x08" within the data.
			if !feed(b[i : i+1]) {
				return false
			}
			br.Discard(1)
		}
	default:
		return false
	}
	m.crc = crc.Sum32()
	return true
}

// readDescriptor reads a data descriptor (signature optional) that must agree
// with what was read.
func readDescriptor(br *bufio.Reader, m *streamed, crc uint32, zip64 bool) bool {
	d, _ := br.Peek(24)
	if len(d) >= 4 && binary.LittleEndian.Uint32(d) == 0x08074b50 {
		br.Discard(4)
		d, _ = br.Peek(20)
	}
	size := 12
	if zip64 {
		size = 20
	}
	if len(d) < size || binary.LittleEndian.Uint32(d) != crc {
		return false
	}
	var cs, us int64
	if zip64 {
		cs, us = int64(binary.LittleEndian.Uint64(d[4:])), int64(binary.LittleEndian.Uint64(d[12:]))
	} else {
		cs, us = int64(binary.LittleEndian.Uint32(d[4:])), int64(binary.LittleEndian.Uint32(d[8:]))
	}
	if cs != m.csize || us != m.usize {
		return false
	}
	br.Discard(size)
	m.crc = crc
	return true
}

// readManifest learns from the manifest what each member is declared to be.
func (s *streamVerifier) readManifest(b []byte) {
	s.algs = map[string]model.HashList{}
	doc, err := parseDocument(bytes.NewReader(b), s.opts.MaxManifestBytes)
	if err != nil {
		return
	}
	p := &Package{Manifest: doc, opts: s.opts}
	for _, it := range p.plan(&Result{}) {
		if _, seen := s.algs[it.name]; !seen && it.name != "" && len(it.hash) > 0 {
			s.algs[it.name] = it.hash
		}
	}
}

// match keeps, for each member of p, what the walk found when its central
// directory record agrees.
func (s *streamVerifier) match(p *Package) {
	for _, f := range p.zr.File {
		off, err := f.DataOffset()
		if err != nil {
			continue
		}
		m := s.found[off]
		// The central directory's flags, not the local header's, tell
		// archive/zip whether a data descriptor follows (and it checks that
		// descriptor's CRC-32): a walk that read none, or read one, agrees
		// only with a record that says the same.
		if m == nil || m.results == nil || m.name != f.Name || m.method != f.Method || m.crc != f.CRC32 ||
			m.descriptor != (f.Flags&8 != 0) ||
			m.csize != int64(f.CompressedSize64) || m.usize != int64(f.UncompressedSize64) {
			continue
		}
		if p.streamed == nil {
			p.streamed = map[*zip.File]*streamed{}
		}
		p.streamed[f] = m
	}
}

// sameHashes tells whether two hash lists declare the same digests.
func sameHashes(a, b model.HashList) bool {
	return slices.EqualFunc(a, b, func(x, y model.Hash) bool {
		return x.Alg == y.Alg && x.AlgRaw == y.AlgRaw && x.Value == y.Value && x.Encoding == y.Encoding
	})
}
