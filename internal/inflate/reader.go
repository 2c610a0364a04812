// Package inflate undoes DEFLATE (RFC 1951) and gzip (RFC 1952) streams, faster than compress/flate.
package inflate

import (
	"compress/gzip"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
)

// How it is fast: a 64-bit bit buffer refilled 8 bytes at a time from an
// input buffer; a loop that needs no checks for the ends of input or output
// while plenty of both remain; tables whose one entry gives a symbol's
// literal or length base with its extra bits, so that a code and its extra
// bits drop in one shift; up to three literals per refill; match copies of
// up to 64 bytes a round; window and input indexed with positions masked
// to their fixed sizes, so that the loop has no bounds checks. Output goes
// into a window of 32 KiB of history and a chunk after it; when the chunk
// is full its last 32 KiB move to the front.
//
// The errors are the standard library's: flate.CorruptInputError for
// corrupt DEFLATE data, gzip.ErrHeader and gzip.ErrChecksum for gzip, and
// io.ErrUnexpectedEOF for input that ends too soon.

// Reader undoes a gzip stream: multistream, as gzip(1) writes concatenated
// members. It reads its source in blocks of 32 KiB, so it may read past
// the end of the gzip stream: fine for a file or an HTTP body that holds
// the stream and nothing else, not for a stream followed by other data.
// Output is produced on demand, at most one window chunk (96 KiB) ahead of
// the reader.
type Reader struct {
	d    decompressor
	gzip bool
	rp   int    // win[rp:d.op] is decoded but not yet read
	crc  uint32 // of the current member's output so far
	size uint32 // of the current member's output so far, modulo 2^32
	err  error  // returned once the decoded bytes are read
}

// NewReader returns a Reader that undoes the gzip stream r, or the error of
// its first member's header (io.EOF for an empty r, as compress/gzip).
func NewReader(r io.Reader) (*Reader, error) {
	z := new(Reader)
	if err := z.Reset(r); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset makes z undo the gzip stream r from its beginning, reusing z's
// buffers, and returns the error of r's first header.
func (z *Reader) Reset(r io.Reader) error {
	z.gzip = true
	z.d.reset(r)
	z.rp, z.crc, z.size, z.err = 0, 0, 0, nil
	if err := z.header(); err != nil {
		z.err = err
		return err
	}
	return nil
}

// NewFlateReader returns a reader that undoes the raw DEFLATE stream r.
// Like Reader, it may read past the end of the DEFLATE stream.
func NewFlateReader(r io.Reader) io.ReadCloser {
	z := new(Reader)
	z.d.reset(r)
	return z
}

var errClosed = errors.New("inflate: read after Close")

// Close ends z; it does not close the source.
func (z *Reader) Close() error {
	if z.err == nil || z.err == io.EOF {
		z.err = errClosed
	}
	z.rp = z.d.op
	return nil
}

// Read reads decoded bytes into p.
func (z *Reader) Read(p []byte) (int, error) {
	for {
		if z.rp < z.d.op {
			n := copy(p, z.d.win[z.rp:z.d.op])
			z.rp += n
			return n, nil
		}
		if z.err != nil {
			return 0, z.err
		}
		if len(p) == 0 {
			return 0, nil
		}
		z.step()
	}
}

// WriteTo writes the decoded bytes to w until the end of the stream or an
// error, without copying them through a buffer of the caller's.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if z.rp < z.d.op {
			n, err := w.Write(z.d.win[z.rp:z.d.op])
			z.rp += n
			total += int64(n)
			if err != nil {
				return total, err
			}
			if z.rp < z.d.op {
				return total, io.ErrShortWrite
			}
		}
		if z.err != nil {
			if z.err == io.EOF {
				return total, nil
			}
			return total, z.err
		}
		z.step()
	}
}

// step decodes more (all that was decoded has been read): the next chunk of
// the window, or at the end of a gzip member its trailer and the next
// member's header. Errors go to z.err.
func (z *Reader) step() {
	d := &z.d
	if d.state == stateEnd {
		if !z.gzip {
			z.err = io.EOF
			return
		}
		if err := z.trailer(); err != nil {
			z.err = err
			return
		}
		if err := z.header(); err != nil {
			z.err = err // io.EOF when no member follows
			return
		}
		d.restart()
		z.rp = 0
		return
	}
	if winSize-d.op < outMargin {
		n := copy(d.win[:], d.win[d.op-histSize:d.op])
		d.op, z.rp = n, n
	}
	start := d.op
	err := d.fill()
	if z.gzip {
		z.crc = crc32.Update(z.crc, crc32.IEEETable, d.win[start:d.op])
		z.size += uint32(d.op - start)
	}
	if err != nil {
		z.err = err
	}
}

// need makes sure n bytes (at most the input buffer) are buffered at in[ip:],
// or returns an error: io.ErrUnexpectedEOF, unless eof is given and no byte
// at all is left.
func (d *decompressor) need(n int, eof error) error {
	for len(d.in)-d.ip < n {
		if err := d.moreInput(); err != nil && len(d.in)-d.ip < n {
			if err == io.EOF {
				if len(d.in) == d.ip && eof != nil {
					return eof
				}
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// trailer reads and checks a gzip member's CRC-32 and size.
func (z *Reader) trailer() error {
	d := &z.d
	if err := d.need(8, nil); err != nil {
		return err
	}
	crc := binary.LittleEndian.Uint32(d.in[d.ip:])
	size := binary.LittleEndian.Uint32(d.in[d.ip+4:])
	d.ip += 8
	if crc != z.crc || size != z.size {
		return gzip.ErrChecksum
	}
	z.crc, z.size = 0, 0
	return nil
}

// gzip header flags (RFC 1952, 2.3.1).
const (
	fhcrc    = 1 << 1
	fextra   = 1 << 2
	fname    = 1 << 3
	fcomment = 1 << 4
)

// maxHeaderString is the longest file name or comment accepted, with its
// terminating zero: compress/gzip's limit.
const maxHeaderString = 512

// header reads a gzip member's header; io.EOF when the input has ended
// before it (zero or more members, as compress/gzip).
func (z *Reader) header() error {
	d := &z.d
	if err := d.need(10, io.EOF); err != nil {
		return err
	}
	h := d.in[d.ip : d.ip+10]
	if h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 {
		return gzip.ErrHeader
	}
	flg := h[3]
	hcrc := crc32.Update(0, crc32.IEEETable, h)
	d.ip += 10
	if flg&fextra != 0 {
		if err := d.need(2, nil); err != nil {
			return err
		}
		xlen := int(binary.LittleEndian.Uint16(d.in[d.ip:]))
		hcrc = crc32.Update(hcrc, crc32.IEEETable, d.in[d.ip:d.ip+2])
		d.ip += 2
		for xlen > 0 {
			if err := d.need(1, nil); err != nil {
				return err
			}
			n := min(xlen, len(d.in)-d.ip)
			hcrc = crc32.Update(hcrc, crc32.IEEETable, d.in[d.ip:d.ip+n])
			d.ip += n
			xlen -= n
		}
	}
	for _, f := range [2]byte{fname, fcomment} {
		if flg&f == 0 {
			continue
		}
		for n := 0; ; n++ {
			if n >= maxHeaderString {
				return gzip.ErrHeader
			}
			if err := d.need(1, nil); err != nil {
				return err
			}
			c := d.in[d.ip]
			hcrc = crc32.Update(hcrc, crc32.IEEETable, d.in[d.ip:d.ip+1])
			d.ip++
			if c == 0 {
				break
			}
		}
	}
	if flg&fhcrc != 0 {
		if err := d.need(2, nil); err != nil {
			return err
		}
		if binary.LittleEndian.Uint16(d.in[d.ip:]) != uint16(hcrc) {
			return gzip.ErrHeader
		}
		d.ip += 2
	}
	return nil
}
