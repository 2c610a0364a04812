package fetch

import (
	"bufio"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"rsx/internal/inflate"
)

// Undoing gzip, the one way fetch does it: rsx/internal/inflate (over twice
// klauspost/compress's speed and three times the standard library's; its
// errors are the standard library's compress/gzip and compress/flate
// ones), and, for Open, a goroutine that decompresses ahead of the reader,
// so that decompressing and what the reader does with the bytes (decoding
// XML) run on two cores.

// newGzipReader returns a reader that undoes the gzip stream r (multistream,
// as gzip(1) writes concatenated members), or the error of its header. It
// reads r in blocks, so it may read past the end of the gzip stream: fetch
// gives it files and bodies that hold the stream and nothing else.
func newGzipReader(r io.Reader) (*inflate.Reader, error) {
	return inflate.NewReader(r)
}

// gunzipIfMagic returns br with gzip undone when it starts with the gzip
// magic bytes 1f 8b, and whether it does; err is that of a gzip header that
// does not parse. Get's bodies and Open's files go through it alike.
func gunzipIfMagic(br *bufio.Reader) (r io.Reader, gzipped bool, err error) {
	if head, _ := br.Peek(2); !isGzip(head) {
		return br, false, nil
	}
	zr, err := newGzipReader(br)
	if err != nil {
		return nil, true, err
	}
	return zr, true, nil
}

// isGzip tells whether head starts with the gzip magic bytes 1f 8b: the
// one place fetch recognises gzip by its bytes.
func isGzip(head []byte) bool {
	return len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b
}

// readAhead reads r in a goroutine of its own, up to aheadBufs buffers ahead
// of its reader. Close stops the goroutine (calling interrupt first, when
// given, to end a Read that waits on the network) and then closes c.
type readAhead struct {
	full chan []byte // buffers read, in order
	free chan []byte
	stop chan struct{}
	done chan struct{} // closed when the goroutine has returned

	cur  []byte // what the reader has not taken of the current buffer
	held []byte // the current buffer, returned to free when used up
	err  error  // the goroutine's last error, read once full is closed

	interrupt func()
	r         io.Reader   // read by the goroutine, which starts at the first Read
	started   bool        // by Read or inline (the reader's goroutine only)
	running   atomic.Bool // the goroutine was started (Close may be called from another goroutine)
	c         io.Closer
	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

var errReadAheadClosed = errors.New("read after Close")

const (
	aheadBufs    = 4
	aheadBufSize = 128 << 10
	aheadMin     = 32 << 10 // bytes read before a buffer is handed over
)

// newReadAhead returns a readAhead of r whose goroutine (and buffers) start
// with the first Read, so that until then inline may take r back.
func newReadAhead(r io.Reader, c io.Closer, interrupt func()) *readAhead {
	return &readAhead{
		full: make(chan []byte, aheadBufs), free: make(chan []byte, aheadBufs),
		stop: make(chan struct{}), done: make(chan struct{}),
		interrupt: interrupt, r: r, c: c,
	}
}

func (a *readAhead) start() {
	a.started = true
	for range aheadBufs - 1 { // one more is the reader's while it reads
		a.free <- make([]byte, aheadBufSize)
	}
	a.running.Store(true)
	go a.run(a.r, make([]byte, aheadBufSize))
}

// inline returns a reader of r itself, closing what Close would, when
// nothing has been read yet (else nil).
func (a *readAhead) inline() io.ReadCloser {
	if a.started || a.closed.Load() {
		return nil
	}
	a.started = true // a's own Read and Close must not start the goroutine now
	if a.c == nil {
		return io.NopCloser(a.r)
	}
	return readCloser{a.r, a.c}
}

func (a *readAhead) run(r io.Reader, buf []byte) {
	defer close(a.done)
	defer close(a.full)
	for {
		n := 0
		var err error
		for n < aheadMin && err == nil {
			var k int
			k, err = r.Read(buf[n:])
			n += k
		}
		if n > 0 {
			a.full <- buf[:n] // never blocks: there are as many slots as buffers
		}
		if err != nil {
			a.err = err
			return
		}
		select {
		case buf = <-a.free:
		case <-a.stop:
			return
		}
	}
}

func (a *readAhead) Read(p []byte) (int, error) {
	if a.closed.Load() {
		return 0, errReadAheadClosed
	}
	if len(p) == 0 {
		return 0, nil
	}
	if !a.started {
		a.start()
	}
	for len(a.cur) == 0 {
		if a.held != nil {
			a.free <- a.held[:cap(a.held)]
			a.held = nil
		}
		b, ok := <-a.full
		if !ok {
			if a.err == nil {
				return 0, errReadAheadClosed
			}
			return 0, a.err
		}
		a.cur, a.held = b, b
	}
	n := copy(p, a.cur)
	a.cur = a.cur[n:]
	return n, nil
}

// Close stops the goroutine and closes what was read.
func (a *readAhead) Close() error {
	a.closeOnce.Do(func() {
		a.closed.Store(true)
		close(a.stop)
		if a.running.Load() {
			select {
			case <-a.done:
			default:
				if a.interrupt != nil {
					a.interrupt()
				}
				<-a.done
			}
		}
		if a.c != nil {
			a.closeErr = a.c.Close()
		}
	})
	return a.closeErr
}
