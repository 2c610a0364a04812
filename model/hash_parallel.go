package model

import (
	"hash"
	"sync"
	"sync/atomic"
)

// Hashing large content on several cores: one goroutine per algorithm, each
// fed the same chunks, so that md5 (the slowest) and sha-256 run side by side
// and the writer (a download, an unzip) a few chunks ahead of them.

const (
	parHashChunk  = 64 << 10
	parHashChunks = 8 // chunks in flight
)

// hashChunk is content handed to every algorithm's goroutine; the last one to
// finish with it returns it to the pool.
type hashChunk struct {
	b    []byte
	refs atomic.Int32
	mark chan struct{} // a barrier instead of content: closed when every goroutine reached it
}

type verifierPar struct {
	free   chan *hashChunk
	made   int // chunks made so far (made as needed, up to parHashChunks)
	feeds  []chan *hashChunk
	cur    *hashChunk // being filled by Write
	wg     sync.WaitGroup
	closed bool
}

// NewParallelVerifier is NewVerifier whose algorithms each run in a goroutine
// of their own when there are several: Write copies the content into chunks
// and returns at once (unless parHashChunks chunks wait), Results waits until
// every algorithm has seen all of it. Close must be called to stop the
// goroutines. With one algorithm or none it is a plain Verifier.
func NewParallelVerifier(declared HashList) *Verifier {
	v := NewVerifier(declared)
	if len(v.hashers) < 2 {
		return v
	}
	p := &verifierPar{free: make(chan *hashChunk, parHashChunks)}
	for _, h := range v.hashers {
		feed := make(chan *hashChunk, parHashChunks)
		p.feeds = append(p.feeds, feed)
		p.wg.Add(1)
		go p.run(h, feed)
	}
	v.par = p
	return v
}

func (p *verifierPar) run(h hash.Hash, feed <-chan *hashChunk) {
	defer p.wg.Done()
	for c := range feed {
		if c.mark == nil {
			h.Write(c.b)
		}
		if c.refs.Add(-1) == 0 {
			if c.mark != nil {
				close(c.mark)
			} else {
				c.b = c.b[:0]
				p.free <- c
			}
		}
	}
}

// write copies b into chunks and hands full ones over.
func (p *verifierPar) write(b []byte) {
	for len(b) > 0 {
		if p.cur == nil {
			select {
			case p.cur = <-p.free:
			default:
				if p.made < parHashChunks {
					p.made++
					p.cur = &hashChunk{b: make([]byte, 0, parHashChunk)}
				} else {
					p.cur = <-p.free
				}
			}
		}
		n := copy(p.cur.b[len(p.cur.b):cap(p.cur.b)], b)
		p.cur.b = p.cur.b[:len(p.cur.b)+n]
		b = b[n:]
		if len(p.cur.b) == cap(p.cur.b) {
			p.send(p.cur)
			p.cur = nil
		}
	}
}

func (p *verifierPar) send(c *hashChunk) {
	c.refs.Store(int32(len(p.feeds)))
	for _, f := range p.feeds {
		f <- c
	}
}

// sync hands over what Write holds and waits until every algorithm has
// hashed everything written.
func (p *verifierPar) sync() {
	if p.closed {
		return
	}
	if p.cur != nil && len(p.cur.b) > 0 {
		p.send(p.cur)
		p.cur = nil
	}
	m := &hashChunk{mark: make(chan struct{})}
	p.send(m)
	<-m.mark
}

func (p *verifierPar) close() {
	if p.closed {
		return
	}
	p.sync()
	p.closed = true
	for _, f := range p.feeds {
		close(f)
	}
	p.wg.Wait()
}
