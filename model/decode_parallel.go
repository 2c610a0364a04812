package model

import (
	"bytes"
	"errors"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// The parallel path of the Decoder (DecoderOptions.Parallel > 1).
//
// Once the Decoder has read the header and returned the first entry, the rest of
// the input is read in blocks of about parDefaultBlock bytes, each cut after an
// entry's end tag (the last "</url>" or "</sitemap>", written as the document
// writes it, in the block). Parallel-1 worker goroutines and the goroutine
// calling Next (see help) decode the blocks concurrently with block decoders:
// Decoders that scan a block in place, starting inside the root element (its
// namespaces and name, the document's root kind) at the block's line and byte
// offset. Next hands out the blocks' entries strictly in order.
//
// Cutting is a guess; it is never trusted. A block decoder starts in the state
// the sequential Decoder has between two entries (only the root open, nothing
// collected) and its block is accepted only if it ends in that state again,
// having consumed every byte, changed nothing but its entries (no document-level
// element, no legacy trace) and met no error and no item larger than
// MaxTokenBytes. By induction from the first block (which starts where the
// sequential Decoder stood between two entries), each accepted block starts in
// the sequential Decoder's true state, so its entries are those the sequential
// Decoder would give. The first block that is not accepted — a cut inside a
// comment or CDATA section, malformed input, the end of the root element,
// document-level elements after the entries, a read error — and everything after
// it are decoded by the Decoder itself, sequentially, from that block's start:
// errors, their lines and the Header's completion at the end are then the
// sequential ones by construction. The rest of the document after the last cut
// (the root's end tag and what follows the entries) is always decoded that way.
//
// Memory stays bounded: at most Parallel+2 blocks are in flight and a block
// without a cut grows to at most parMaxMerge blocks before the Decoder gives up
// and reads the rest sequentially. A document of less than one block never
// starts a goroutine.

const (
	parDefaultBlock = 48 << 10
	parMaxMerge     = 8 // a block without an entry end grows to this many blocks at most
)

// errBlockEnd ends a block decoder that consumed its whole block and stands
// between two entries; errBlockBail one whose block cannot be accepted.
var (
	errBlockEnd  = errors.New("end of block")
	errBlockBail = errors.New("block not decodable on its own")
	errClosed    = errors.New("model: Next on a closed Decoder")
)

type parDecoder struct {
	workers   int
	blockSize int
	inflight  int

	bailAtHeld bool // the Decoder hands over what entries hold (see handOver)

	started bool // parStart ran
	active  bool // entries come from the blocks
	closed  bool

	// The template of block decoders: what the sequential Decoder holds between
	// two entries.
	root     openElem
	rootName string
	rootKind RootKind
	ns       []nsBinding
	altNS    string
	cutTok   []byte
	shape    *entryShape // the entry fast path's tags, nil when off
	pre      *preCheck   // what blocks compute beside their entries for the checker, nil when nothing

	lastPre  *entryPre  // beside the entry Next returned last (nil: none)
	newBlock []entryPre // beside the block whose first entry Next returned last, until blockPre takes it

	// Input read but not yet in a block.
	carry  []byte
	base   int64 // stream offset of carry[0]
	line   int   // line of the next block Next takes (of carry[0] once it has taken them all)
	want   int   // bytes to read into carry before looking for a cut
	srcEOF bool
	srcErr error      // read error after carry
	mem    *memSource // the document in memory, carry a slice of it (decode_mem.go); nil when read
	noMore bool       // no more blocks: the rest (carry, then the source) is sequential

	queue []*parJob // dispatched, in document order
	free  []*parJob // recycled jobs

	maxToken, maxDepth, maxBuf int
	reuse                      bool    // DecoderOptions.Reuse
	cur                        *parJob // the block whose entries Next hands out
	curI                       int

	accepted int      // blocks whose entries were handed out (for tests)
	fast     int      // entries of those blocks the fast path decoded (for tests)
	perEntry int      // bytes per entry in the last block
	bufs     [][]byte // recycled buffers for carry
	fresh    bool     // carry starts its buffer

	atBytes int64 // BytesRead and Line after the last entry handed out
	atLine  int

	jobs chan *parJob
	own  *Decoder // the block decoder of Next itself
	stop atomic.Bool
	wg   sync.WaitGroup
}

type parJob struct {
	data []byte
	base int64
	line int // line of data[0], set when Next takes the block (its decoder counts from 1: absLines)
	nl   int // line feeds in data, once decoded

	done    chan struct{} // receives once when a worker has decoded the block (buffered: reused)
	taken   atomic.Bool   // a worker, or Next itself, decodes the block
	ok      bool
	entries []Entry
	own     bool // buf holds data and no other block
	buf     []byte
	est     int        // expected number of entries
	ends    []int64    // BytesRead after each entry
	pre     []entryPre // beside each entry, when the parDecoder has pre
	lines   []int      // Line after each entry
	arena   arena      // the entries' strings (with reuse, rewound for each block)
	touched int        // entries[:touched] of the backing array have been written (see Decoder.eFresh; taking a written entry for fresh only forgoes its Links' capacity)
	fast    int        // entries the fast path decoded (for tests)
}

func newParDecoder(d *Decoder, opts DecoderOptions) *parDecoder {
	// Parallel-1 workers: the goroutine calling Next is the Parallel-th, as it
	// decodes the block it needs when no worker has started it. A worker more
	// (one per core beside Next's goroutine, which also reads and, in Validate,
	// checks) took the same CPU, held a block more in flight, and lost time to
	// the scheduler whenever the cores were shared (BENCHMARKS.md).
	p := &parDecoder{workers: max(1, opts.Parallel-1), blockSize: opts.blockSize}
	if p.blockSize <= 0 {
		p.blockSize = parDefaultBlock
	}
	// Three blocks beyond the workers': for Next's goroutine to decode while
	// it waits, and read ahead. (With 48 KiB blocks these hold less memory
	// than two beyond them of 64 KiB, and keep both cores busier.)
	p.inflight = p.workers + 3
	p.perEntry = 256
	return p
}

// parStart switches to the parallel path if the Decoder, which has just
// finished an entry, stands between two entries with more input to come.
func (d *Decoder) parStart() {
	p := d.par
	p.started = true
	if d.state != stRoot || len(d.stack) != 1 || d.capDepth >= 0 || d.entryOpen || len(d.rawText) != 0 ||
		d.err != nil || d.readErr != nil || d.srcEOF || d.src == nil || d.block {
		return
	}
	p.root = d.stack[0]
	p.rootName = d.names[p.root.qname]
	p.root.qname = 0
	p.rootKind = d.hdr.Root
	p.ns = append([]nsBinding(nil), d.ns...)
	p.altNS = d.altSitemapNS
	p.maxToken, p.maxDepth, p.maxBuf = d.maxToken, d.maxDepth, d.maxBuf
	p.reuse, p.bailAtHeld = d.reuse, d.spill != nil
	p.cutTok = []byte("</" + d.names[d.entryQ] + ">")
	p.shape = d.entryShapeOf()
	p.pre = d.pre
	p.base = d.base + int64(d.pos)
	p.line = d.curLine()
	p.atBytes, p.atLine = p.base, p.line
	if m, ok := d.src.(*memSource); ok && d.base+int64(d.end) == int64(m.off) {
		// The window's unread bytes are those of the document in memory
		// from p.base on: blocks are slices of it (decode_mem.go).
		p.mem = m
		p.carry = m.b[p.base:m.off:m.off]
	} else {
		p.carry = append(make([]byte, 0, p.blockSize+p.blockSize/4), d.buf[d.pos:d.end]...)
		p.fresh = true
	}
	p.want = p.blockSize
	d.pos = d.end
	p.active = true
}

// parNext is Next on the parallel path.
func (d *Decoder) parNext(e *Entry) error {
	x, err := d.parNextShared(e)
	if err == nil && x != e {
		*e = *x
	}
	return err
}

// nextShared is Next for a caller that reads the entry only until its next
// call and changes nothing in it (Validate, with Reuse): on the parallel path
// it returns the block's own entry rather than a copy in *e.
func (d *Decoder) nextShared(e *Entry) (*Entry, error) {
	if d.par != nil && d.par.active {
		return d.parNextShared(e)
	}
	return e, d.Next(e)
}

// parNextShared is nextShared on the parallel path.
func (d *Decoder) parNextShared(e *Entry) (*Entry, error) {
	p := d.par
	if p.closed {
		return e, errClosed
	}
	for {
		if j := p.cur; j != nil {
			if p.curI < len(j.entries) {
				x := &j.entries[p.curI]
				p.lastPre = nil
				if p.pre != nil {
					p.lastPre = &j.pre[p.curI]
					if p.curI == 0 {
						p.newBlock = j.pre
					}
				}
				x.Index = d.nEntries
				d.nEntries++
				absLines(x, j.line-1)
				p.atBytes, p.atLine = j.ends[p.curI], j.lines[p.curI]+j.line-1
				p.curI++
				return x, nil
			}
			p.cur = nil
			p.recycle(j)
		}
		j, err := d.parTake()
		if err != nil {
			return e, err
		}
		if j == nil {
			// The rest is decoded sequentially (parFallback).
			return e, d.Next(e)
		}
		p.cur, p.curI = j, 0
		p.line += j.nl
		if p.mem != nil && p.mem.release != nil {
			// Every block before j's end is decoded, and a fallback
			// starts after it.
			p.mem.release(int(j.base) + len(j.data))
		}
		p.accepted++
		p.fast += j.fast
		if len(j.entries) > 0 {
			p.perEntry = max(32, len(j.data)/len(j.entries))
		}
	}
}

// parTake reads input into blocks and returns the next block, decoded; nil
// when the Decoder has left the parallel path (parFallback). A document in
// memory that faults (decode_mem.go) ends the parallel path with a read
// error.
func (d *Decoder) parTake() (j *parJob, err error) {
	p := d.par
	if p.mem != nil {
		defer func() {
			if r := recover(); r != nil {
				err = d.parFault(faultError(r))
			}
		}()
	}
	d.parDispatch()
	if len(p.queue) == 0 {
		d.parFallback(nil)
		return nil, nil
	}
	j = p.queue[0]
	p.queue[0] = nil
	p.queue = p.queue[1:]
	j.line = p.line // every block before it accepted
	if j.taken.CompareAndSwap(false, true) {
		// No worker has started the block Next needs (all busy, or not
		// scheduled): decoding it here beats waiting.
		if p.own == nil {
			p.own = new(Decoder)
		}
		p.decodeBlock(j, p.own)
	} else {
		p.help(j)
		<-j.done
	}
	if !j.ok {
		d.parFallback(j)
		return nil, nil
	}
	return j, nil
}

// parFault ends the parallel path on err, a fault reading the document in
// memory, which becomes the Decoder's (sticky) read error.
func (d *Decoder) parFault(err error) error {
	d.par.stopWorkers()
	d.par.active = false
	d.err = d.readError(err)
	d.state = stDone
	return d.err
}

// help decodes, while a worker decodes job j (the one Next needs), the blocks
// queued after it that no worker has started, until j is done: with a worker
// fewer than Parallel (newParDecoder), Next's goroutine is the other decoder,
// whatever time reading and checking leave it. Each block decoded so is
// marked done like a worker's.
func (p *parDecoder) help(j *parJob) {
	for _, q := range p.queue {
		if len(j.done) > 0 {
			return
		}
		if !q.taken.CompareAndSwap(false, true) {
			continue
		}
		if p.own == nil {
			p.own = new(Decoder)
		}
		p.decodeBlock(q, p.own)
		q.done <- struct{}{}
	}
}

// parDispatch reads input and hands blocks to the workers until workers+3
// blocks are in flight or there are no more blocks.
func (d *Decoder) parDispatch() {
	p := d.par
	for len(p.queue) < p.inflight && !p.noMore {
		if !d.parRead() {
			p.noMore = true
			return
		}
		ended := p.srcEOF || p.srcErr != nil
		// Cut after the last entry end before want bytes, else the first after.
		limit := min(len(p.carry), p.want)
		cut := bytes.LastIndex(p.carry[:limit], p.cutTok)
		if from := max(0, limit-len(p.cutTok)+1); cut < 0 && from < len(p.carry) {
			if k := bytes.Index(p.carry[from:], p.cutTok); k >= 0 {
				cut = from + k
			}
		}
		if cut >= 0 {
			cut += len(p.cutTok)
		}
		if cut < 0 || (ended && p.jobs == nil && len(p.carry) < 2*p.blockSize) {
			// No entry end, or a document of less than two blocks: the rest
			// is not worth a goroutine.
			if ended || len(p.carry) >= parMaxMerge*p.blockSize {
				p.noMore = true
				return
			}
			p.want = len(p.carry) + p.blockSize
			continue
		}
		j := p.newJob()
		j.data, j.base = p.carry[:cut:cut], p.base
		j.est = cut/p.perEntry + 16
		if rest := p.carry[cut:]; p.fresh && len(rest) <= p.blockSize/2 {
			// The block keeps the buffer (recycled once its entries are
			// handed out); the rest moves to another.
			j.own, j.buf = true, p.carry[:0]
			p.carry = append(p.newBuf(), rest...)
		} else {
			p.carry, p.fresh = rest, false
		}
		p.base += int64(cut)
		p.want = p.blockSize
		if p.jobs == nil {
			p.jobs = make(chan *parJob, p.inflight)
			p.wg.Add(p.workers)
			for i := 0; i < p.workers; i++ {
				go p.work(p.jobs)
			}
		}
		p.queue = append(p.queue, j)
		// Only now, with the block's fields set, may it be taken (a job
		// recycled after Next took it itself may still be in the channel).
		j.taken.Store(false)
		p.jobs <- j
	}
}

// parRead reads input into carry until it holds want bytes or the input ends.
// It reports false when the rest must be read sequentially (the byte limit is
// near, or the source makes no progress).
func (d *Decoder) parRead() bool {
	p := d.par
	if m := p.mem; m != nil && len(p.carry) < p.want && !p.srcEOF {
		if p.base+int64(p.want) > d.maxBytes {
			return false
		}
		end := min(len(m.b), int(p.base)+p.want)
		p.carry = m.b[p.base:end:end]
		m.off = end
		p.srcEOF = end == len(m.b)
		return true
	}
	for tries := 0; len(p.carry) < p.want && !p.srcEOF && p.srcErr == nil; {
		if p.base+int64(p.want) > d.maxBytes {
			// Let the sequential Decoder meet the limit.
			return false
		}
		if cap(p.carry) < p.want {
			// A new buffer: the old one belongs to blocks in flight.
			nc := make([]byte, len(p.carry), p.want+p.blockSize/4)
			copy(nc, p.carry)
			p.carry, p.fresh = nc, true
		}
		n, err := d.src.Read(p.carry[len(p.carry):p.want])
		p.carry = p.carry[:len(p.carry)+n]
		if err == io.EOF {
			p.srcEOF = true
		} else if err != nil {
			p.srcErr = err
		}
		if n == 0 && err == nil {
			if tries++; tries > 100 {
				return false
			}
		}
	}
	return true
}

func (p *parDecoder) newJob() *parJob {
	if n := len(p.free); n > 0 {
		j := p.free[n-1]
		p.free = p.free[:n-1]
		j.ok = false
		return j
	}
	return &parJob{done: make(chan struct{}, 1)}
}

// newBuf returns an empty buffer for carry.
func (p *parDecoder) newBuf() []byte {
	if n := len(p.bufs); n > 0 {
		b := p.bufs[n-1]
		p.bufs = p.bufs[:n-1]
		return b
	}
	return make([]byte, 0, p.blockSize+p.blockSize/4)
}

// recycle keeps a consumed job (its slices of entries) and the buffer it owns
// (no entry points into it) for reuse.
func (p *parDecoder) recycle(j *parJob) {
	if j.own && cap(j.buf) >= p.blockSize && len(p.bufs) < p.inflight+1 {
		p.bufs = append(p.bufs, j.buf)
	}
	j.data, j.buf, j.own = nil, nil, false
	if len(p.free) < p.inflight+1 {
		p.free = append(p.free, j)
	}
}

// absLines turns the lines of e, counted by a block decoder from 1 at its
// block's start, into the document's: off is the block's first line less one.
// (The blocks' lines are so counted that the goroutine that cuts the blocks
// does not read each one through to count its lines: with the document in
// memory that read was the first touch of every page, and the page faults
// were its.) A line 0 says "not recorded" and stays.
func absLines(e *Entry, off int) {
	if off == 0 {
		return
	}
	if e.Line != 0 {
		e.Line += off
	}
	if e.MD.Line != 0 {
		e.MD.Line += off
	}
	for k := range e.Links {
		if e.Links[k].Line != 0 {
			e.Links[k].Line += off
		}
	}
	for k := range e.Extra {
		if e.Extra[k].Line != 0 {
			e.Extra[k].Line += off
		}
	}
}

// parFallback leaves the parallel path: the Decoder reads on sequentially from the
// start of job j (nil: of carry), then the rest of the input.
func (d *Decoder) parFallback(j *parJob) {
	p := d.par
	p.stopWorkers()
	base, line := p.base, p.line
	var parts [][]byte
	if j != nil {
		base, line = j.base, j.line
		parts = append(parts, j.data)
		for _, q := range p.queue {
			parts = append(parts, q.data)
		}
	}
	if p.mem != nil {
		// The rest is the document in memory from base on.
		d.src = &memSource{b: p.mem.b, off: int(base)}
	} else {
		parts = append(parts, p.carry)
		rest := bytes.Join(parts, nil)
		srcs := []io.Reader{bytes.NewReader(rest)}
		switch {
		case p.srcErr != nil:
			srcs = append(srcs, parErrReader{p.srcErr})
		case !p.srcEOF:
			srcs = append(srcs, d.src)
		}
		d.src = io.MultiReader(srcs...)
	}
	p.queue, p.free, p.bufs, p.carry, p.cur = nil, nil, nil, nil, nil
	d.srcEOF = false
	d.pos, d.end, d.linePos = 0, 0, 0
	d.base, d.lineN = base, line
	p.active = false
}

type parErrReader struct{ err error }

func (r parErrReader) Read([]byte) (int, error) { return 0, r.err }

// Close stops the goroutines of the parallel path. It is needed only when the
// caller stops calling Next before it returns io.EOF or an error; Next must not
// be called after Close.
func (d *Decoder) Close() error {
	if d.par != nil {
		d.par.stopWorkers()
		d.par.closed = true
	}
	return nil
}

func (p *parDecoder) stopWorkers() {
	if p.jobs == nil {
		return
	}
	p.stop.Store(true)
	close(p.jobs)
	p.jobs = nil
	p.wg.Wait()
}

func (p *parDecoder) work(jobs <-chan *parJob) {
	defer p.wg.Done()
	if p.mem != nil {
		debug.SetPanicOnFault(true) // a goroutine of its own: not restored
	}
	w := new(Decoder) // reused from block to block
	for j := range jobs {
		if !j.taken.CompareAndSwap(false, true) {
			continue // Next decodes it itself
		}
		if !p.stop.Load() {
			p.decodeBlock(j, w)
		}
		j.done <- struct{}{}
	}
}

// decodeBlock decodes job j with w as a block decoder. w is set up afresh,
// keeping only the capacity of its buffers (and the element names it learnt,
// which do not depend on the block) from the blocks it decoded before.
func (p *parDecoder) decodeBlock(j *parJob, w *Decoder) {
	if p.mem != nil {
		defer func() {
			if r := recover(); r != nil {
				faultError(r) // panics again unless a fault
				j.ok = false  // the sequential Decoder meets the fault again
			}
		}()
	}
	keep := *w
	*w = Decoder{
		maxBytes: j.base + int64(len(j.data)), maxToken: p.maxToken, maxDepth: p.maxDepth, maxBuf: p.maxBuf, capDepth: -1,
		buf: j.data, end: len(j.data), base: j.base, srcEOF: true,
		lineN: 1, state: stRoot, hdrRead: true, block: true,
		altSitemapNS: p.altNS, reuse: p.reuse, bailAtHeld: p.bailAtHeld, shape: p.shape,
		attrs: keep.attrs[:0], entryText: keep.entryText[:0], pendingMD: keep.pendingMD[:0],
		rawText: keep.rawText[:0], text: keep.text[:0], scratch: keep.scratch[:0],
		strs: keep.strs[:0], offs: keep.offs[:0], capInner: keep.capInner[:0],
		intern: keep.intern, names: keep.names, nameIDs: keep.nameIDs, qslots: keep.qslots,
	}
	j.arena.reuse = p.reuse
	j.arena.rewind()
	w.ent, w.lnk = &j.arena, &j.arena
	w.e = &w.first
	w.hdr.Root = p.rootKind
	w.stack = append(keep.stack[:0], p.root)
	w.ns = append(keep.ns[:0], p.ns...)
	if len(w.names) == 0 || w.names[0] != p.rootName {
		w.names = append(w.names[:0], p.rootName)
		w.nameIDs = map[string]int32{p.rootName: 0}
		w.qslots = [len(w.qslots)]int32{}
	}
	if cap(j.entries) < j.est {
		j.entries = make([]Entry, 0, j.est)
		j.ends = make([]int64, 0, j.est)
		j.lines = make([]int, 0, j.est)
		j.touched = 0
	}
	j.entries, j.ends, j.lines, j.pre = j.entries[:0], j.ends[:0], j.lines[:0], j.pre[:0]
	for n := 0; ; n++ {
		if n&63 == 0 && p.stop.Load() {
			return
		}
		if n < cap(j.entries) {
			j.entries = j.entries[:n+1]
		} else {
			j.entries = append(j.entries, Entry{})
		}
		w.eFresh = n >= j.touched
		j.touched = max(j.touched, n+1)
		err := w.Next(&j.entries[n])
		if err != nil {
			j.entries = j.entries[:n]
			j.fast = w.nFast
			j.ok = err == errBlockEnd && w.hdr.MDCount == 0 && len(w.hdr.Links) == 0 &&
				len(w.hdr.Extra) == 0 && len(w.hdr.Legacy) == 0 && w.nLegacy == 0
			if j.ok {
				j.nl = w.curLine() - 1
			}
			return
		}
		j.ends = append(j.ends, w.BytesRead())
		j.lines = append(j.lines, w.curLine())
		if p.pre != nil {
			j.pre = append(j.pre, entryPre{})
			p.pre.fill(&j.pre[n], &j.entries[n])
		}
	}
}

// blockEnd is atEOF for a block decoder: it accepts a block that ends between
// two entries.
func (d *Decoder) blockEnd() error {
	d.state = stDone
	if len(d.stack) == 1 && d.stack[0].kind == kRoot && d.capDepth < 0 && !d.entryOpen && len(d.rawText) == 0 {
		return errBlockEnd
	}
	return errBlockBail
}

// blockMarkup is markup for a block decoder. An item larger than MaxTokenBytes
// is left to the sequential Decoder, whose handling of it depends on its window.
func (d *Decoder) blockMarkup() error {
	start := d.pos
	err := d.markup()
	if err == nil && d.pos-start > d.maxToken {
		return errBlockBail
	}
	return err
}
