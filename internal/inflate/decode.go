package inflate

import (
	"compress/flate"
	"encoding/binary"
	"errors"
	"io"
)

const (
	histSize  = 32 << 10  // DEFLATE's window: the farthest a match reaches back
	winSize   = 128 << 10 // history plus the chunk decoded between slides
	inBufSize = 32 << 10

	maxMatch = 258
	// outMargin is the room the Huffman loops need before a symbol: three
	// pairs of literals and 2 bytes written beyond, a longest match, and the
	// 64 bytes a match copy may overshoot.
	outMargin = 8 + maxMatch + 64
	// inMargin is the input the fast loop needs before a symbol: three
	// refills of at most 7 bytes each, the last loading 8 bytes.
	inMargin = 32

	winMask  = winSize - 1
	inMask   = inBufSize - 1
	winSlack = 64 // after the window: masked stores of up to 64 bytes
	inSlack  = 8  // after the input buffer: masked loads of 8 bytes
)

// Decoder states, between blocks or symbols.
const (
	stateHeader  = iota // next is a block header (or the end, after the final block)
	stateStored         // inside a stored block
	stateHuffman        // inside a Huffman-coded block
	stateEnd            // the final block has ended; the bit reader is byte-aligned
)

// decompressor is the DEFLATE decoder: input buffered from src, a 64-bit
// bit buffer, and output into win, whose first histSize bytes after a
// slide are history.
type decompressor struct {
	src    io.Reader
	srcErr error // the error src returned (io.EOF at its end); no more reads after it

	buf  *[inBufSize + inSlack]byte // input buffer: inBufSize bytes, then slack for masked loads
	in   []byte                     // buf[:bytes read]
	ip   int                        // next input byte to load into bits
	base int64                      // the stream offset of buf[0], for errors

	// bits holds nbits unread bits, low first. Above them it may hold copies
	// of the bytes from in[ip:] (a refill loads 8 bytes at a time), never
	// anything else, so that or-ing those bytes in again changes nothing.
	bits  uint64
	nbits uint

	win *[winSize + winSlack]byte // winSize bytes, then slack for masked stores
	op  int                       // output written up to here

	state  int
	final  bool // the current block is the last one
	stored int  // bytes left of a stored block
	fixed  bool // lit and dist hold the fixed codes
	err    error

	lit  [litTableSize]uint32
	dist [distTableSize]uint32
	clen [clenTableSize]uint32
	tb   tableBuilder
	lens [numLitLen + numDist]uint8
}

// reset makes d ready for a new DEFLATE stream read from src.
func (d *decompressor) reset(src io.Reader) {
	if d.buf == nil {
		d.buf = new([inBufSize + inSlack]byte)
		d.win = new([winSize + winSlack]byte)
	}
	d.src, d.srcErr = src, nil
	d.in, d.ip, d.base = d.buf[:0], 0, 0
	d.bits, d.nbits = 0, 0
	d.restart()
}

// restart begins a new DEFLATE stream in the input already buffered (the
// next gzip member): empty window, first block.
func (d *decompressor) restart() {
	d.op = 0
	d.state, d.final, d.stored, d.err = stateHeader, false, 0, nil
}

// corrupt is the error for corrupt data, with the offset of the input read
// so far: the standard library's type, so callers can tell.
func (d *decompressor) corrupt() error {
	return flate.CorruptInputError(d.base + int64(d.ip))
}

// eofErr is the error for input that ends too soon.
func (d *decompressor) eofErr() error {
	if d.srcErr == nil || d.srcErr == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return d.srcErr
}

// putBack returns the whole bytes of the bit buffer to the input, leaving
// fewer than 8 bits in it.
func (d *decompressor) putBack() {
	d.ip -= int(d.nbits >> 3)
	d.nbits &= 7
	d.bits &= 1<<d.nbits - 1
}

// moreInput reads from src into the input buffer, after what is left in
// it, first returning the bit buffer's whole bytes to it. It returns an
// error (src's, io.EOF at its end, kept in srcErr) only when no new byte
// came; then the bytes returned from the bit buffer may still be there.
func (d *decompressor) moreInput() error {
	if d.srcErr != nil {
		return d.srcErr
	}
	d.putBack()
	n := copy(d.buf[:inBufSize], d.in[d.ip:])
	d.base += int64(d.ip)
	d.ip = 0
	for tries := 0; ; tries++ {
		k, err := d.src.Read(d.buf[n:inBufSize])
		if k < 0 || k > inBufSize-n {
			err = errors.New("inflate: source returned an impossible count")
			k = 0
		}
		n += k
		d.in = d.buf[:n]
		if err != nil {
			d.srcErr = err
		}
		if k > 0 {
			return nil
		}
		if err != nil {
			return err
		}
		if tries >= 100 {
			d.srcErr = io.ErrNoProgress
			return d.srcErr
		}
	}
}

// peekBits loads bits until there are n (at most 56), or as many as the
// input has; it reports how many there are, which is fewer than n only at
// the end of the input.
func (d *decompressor) peekBits(n uint) (uint, error) {
	for d.nbits < n {
		if d.ip < len(d.in) {
			d.bits |= uint64(d.in[d.ip]) << d.nbits
			d.ip++
			d.nbits += 8
			continue
		}
		if err := d.moreInput(); err != nil && d.ip == len(d.in) {
			if err == io.EOF {
				return d.nbits, nil
			}
			return d.nbits, err
		}
	}
	return d.nbits, nil
}

// readBits reads an n-bit field (n at most 32).
func (d *decompressor) readBits(n uint) (uint32, error) {
	have, err := d.peekBits(n)
	if err != nil {
		return 0, err
	}
	if have < n {
		return 0, d.eofErr()
	}
	v := uint32(d.bits & (1<<n - 1))
	d.bits >>= n
	d.nbits -= n
	return v, nil
}

// readSym decodes one symbol with a table of tb primary bits whose codes
// need no subtables beyond one level, bit by bit near the end of the input.
func (d *decompressor) readSym(table []uint32, tb uint) (uint32, error) {
	have, err := d.peekBits(maxCodeLen)
	if err != nil {
		return 0, err
	}
	e := table[d.bits&(1<<tb-1)]
	if e&flagSub != 0 {
		e = table[e>>16+uint32(d.bits>>tb)&(1<<((e>>8)&15)-1)]
	}
	cl := uint(e>>8) & 15
	if cl > have {
		return 0, d.eofErr()
	}
	if e&flagInvalid != 0 {
		return 0, d.corrupt()
	}
	d.bits >>= cl
	d.nbits -= cl
	return e, nil
}

// fill decodes into win until fewer than outMargin bytes of it are free,
// the stream ends (state stateEnd) or an error, which it returns and keeps.
func (d *decompressor) fill() error {
	for d.err == nil && winSize-d.op >= outMargin {
		switch d.state {
		case stateHeader:
			if d.final {
				d.putBack()
				d.bits, d.nbits = 0, 0
				d.state = stateEnd
				return nil
			}
			d.err = d.blockHeader()
		case stateStored:
			d.err = d.copyStored()
		case stateHuffman:
			d.err = d.huffman()
		case stateEnd:
			return nil
		}
	}
	return d.err
}

// blockHeader reads a block's header, and for a dynamic block its code.
func (d *decompressor) blockHeader() error {
	h, err := d.readBits(3)
	if err != nil {
		return err
	}
	d.final = h&1 != 0
	switch h >> 1 {
	case 0:
		d.putBack()
		d.bits, d.nbits = 0, 0
		if err := d.need(4, nil); err != nil {
			return err
		}
		n := binary.LittleEndian.Uint16(d.in[d.ip:])
		nn := binary.LittleEndian.Uint16(d.in[d.ip+2:])
		d.ip += 4
		if n != ^nn {
			return d.corrupt()
		}
		d.stored = int(n)
		d.state = stateStored
		return nil
	case 1:
		if !d.fixed {
			l := d.lens[:numLitLen]
			for i := range l {
				switch {
				case i < 144:
					l[i] = 8
				case i < 256:
					l[i] = 9
				case i < 280:
					l[i] = 7
				default:
					l[i] = 8
				}
			}
			d.tb.build(d.lit[:], l, litBits, litLenEntries, 7)
			dl := d.lens[numLitLen : numLitLen+numDist]
			for i := range dl {
				dl[i] = 5
			}
			d.tb.build(d.dist[:], dl, distBits, distEntries, 5)
			d.fixed = true
		}
		d.state = stateHuffman
		return nil
	case 2:
		d.fixed = false
		if err := d.dynamicCode(); err != nil {
			return err
		}
		d.state = stateHuffman
		return nil
	default:
		return d.corrupt()
	}
}

// clenOrder is the order code-length code lengths come in (RFC 1951, 3.2.7).
var clenOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// dynamicCode reads a dynamic block's code lengths and builds its tables.
func (d *decompressor) dynamicCode() error {
	h, err := d.readBits(14)
	if err != nil {
		return err
	}
	nlit := int(h&31) + 257
	ndist := int(h>>5&31) + 1
	nclen := int(h>>10) + 4
	if nlit > 286 || ndist > 30 {
		return d.corrupt()
	}
	var cl [19]uint8
	for i := range nclen {
		v, err := d.readBits(3)
		if err != nil {
			return err
		}
		cl[clenOrder[i]] = uint8(v)
	}
	if !d.tb.build(d.clen[:], cl[:], clenBits, clenEntries, 0) {
		return d.corrupt()
	}
	lens := d.lens[:nlit+ndist]
	for i := 0; i < len(lens); {
		// With 8 bytes of input at hand, a refill of the bit buffer
		// leaves at least 56 bits: the symbol (at most 7) and its extra
		// bits (at most 7), decoded without readSym's checks.
		if d.nbits < 14 && len(d.in)-d.ip >= 8 {
			d.bits |= binary.LittleEndian.Uint64(d.in[d.ip:]) << d.nbits
			d.ip += int((63 - d.nbits) >> 3)
			d.nbits |= 56
		}
		var e uint32
		if d.nbits >= 14 {
			e = d.clen[d.bits&(1<<clenBits-1)]
			if e&flagInvalid != 0 {
				return d.corrupt()
			}
			cl := uint(e>>8) & 15
			d.bits >>= cl
			d.nbits -= cl
		} else if e, err = d.readSym(d.clen[:], clenBits); err != nil {
			return err
		}
		sym := e >> 16
		if sym < 16 {
			lens[i] = uint8(sym)
			i++
			continue
		}
		var rep, nb uint32
		var v uint8
		switch sym {
		case 16:
			if i == 0 {
				return d.corrupt()
			}
			rep, nb, v = 3, 2, lens[i-1]
		case 17:
			rep, nb = 3, 3
		default:
			rep, nb = 11, 7
		}
		x, err := d.readBits(uint(nb))
		if err != nil {
			return err
		}
		rep += x
		if i+int(rep) > len(lens) {
			return d.corrupt()
		}
		for range rep {
			lens[i] = v
			i++
		}
	}
	litLens, distLens := lens[:nlit], lens[nlit:]
	if !d.tb.build(d.lit[:], litLens, litBits, litLenEntries, uint(litLens[256])) ||
		!d.tb.build(d.dist[:], distLens, distBits, distEntries, 0) {
		return d.corrupt()
	}
	pairLiterals((*[1 << litBits]uint32)(d.lit[:1<<litBits]))
	return nil
}

// copyStored copies a stored block's bytes from the input to the window.
func (d *decompressor) copyStored() error {
	for d.stored > 0 && d.op < winSize {
		if d.ip == len(d.in) {
			if err := d.moreInput(); err != nil {
				if err == io.EOF {
					return io.ErrUnexpectedEOF
				}
				return err
			}
		}
		n := copy(d.win[d.op:d.op+min(d.stored, winSize-d.op)], d.in[d.ip:])
		d.ip += n
		d.op += n
		d.stored -= n
	}
	if d.stored == 0 {
		d.state = stateHeader
	}
	return nil
}

// huffman decodes the symbols of a Huffman-coded block until its end, or
// until fewer than outMargin bytes of the window are free.
//
// The fast loop indexes the window and the input buffer with positions
// masked to their sizes: a no-op, as the loop's limits keep op below
// winSize-outMargin and ip below len(in)-inMargin, that lets the compiler
// drop the bounds checks (the arrays' slack covers the bytes after a
// masked position).
func (d *decompressor) huffman() error {
	ip := d.ip // d.in changes only in moreInput
	bits, nbits := d.bits, d.nbits
	buf, win, op := d.buf, d.win, d.op
	lit, dist := &d.lit, &d.dist

	for {
		// The fast loop: enough input for three 8-byte refills, enough room
		// for three literals and a longest match with overshoot. The entry
		// of the next symbol is looked up early, before a match's copy.
		inLimit, outLimit := len(d.in)-inMargin, winSize-outMargin
		if ip <= inLimit && op <= outLimit {
			i := ip & inMask
			bits |= binary.LittleEndian.Uint64(buf[i:i+8]) << (nbits & 63)
			ip += int((63 - nbits&63) >> 3)
			nbits |= 56
			e := lit[bits&(1<<litBits-1)]
			for {
				if e&flagLit != 0 {
					// At least 56 bits: up to three literals of at most 15 bits,
					// or two and a length of at most 20 bits.
					bits >>= e & 63
					nbits -= uint(e)
					o := op & winMask
					binary.LittleEndian.PutUint16(win[o:o+2], uint16(e>>16))
					op += int(e>>8) & 3
					e = lit[bits&(1<<litBits-1)]
					if e&flagLit != 0 {
						bits >>= e & 63
						nbits -= uint(e)
						o := op & winMask
						binary.LittleEndian.PutUint16(win[o:o+2], uint16(e>>16))
						op += int(e>>8) & 3
						e = lit[bits&(1<<litBits-1)]
						if e&flagLit != 0 {
							bits >>= e & 63
							nbits -= uint(e)
							o := op & winMask
							binary.LittleEndian.PutUint16(win[o:o+2], uint16(e>>16))
							op += int(e>>8) & 3
							if ip > inLimit || op > outLimit {
								break
							}
							i := ip & inMask
							bits |= binary.LittleEndian.Uint64(buf[i:i+8]) << (nbits & 63)
							ip += int((63 - nbits&63) >> 3)
							nbits |= 56
							e = lit[bits&(1<<litBits-1)]
							continue
						}
					}
				}
				if e&(flagSub|flagEOB|flagInvalid) != 0 { // rare: one test for a length
					if e&flagSub != 0 {
						e = lit[e>>16+uint32(bits>>litBits)&(1<<((e>>8)&15)-1)]
						if e&flagLit != 0 {
							bits >>= e & 63
							nbits -= uint(e)
							o := op & winMask
							binary.LittleEndian.PutUint16(win[o:o+2], uint16(e>>16))
							op += int(e>>8) & 3
							if ip > inLimit || op > outLimit {
								break
							}
							i := ip & inMask
							bits |= binary.LittleEndian.Uint64(buf[i:i+8]) << (nbits & 63)
							ip += int((63 - nbits&63) >> 3)
							nbits |= 56
							e = lit[bits&(1<<litBits-1)]
							continue
						}
					}
					if e&(flagEOB|flagInvalid) != 0 {
						if e&flagInvalid != 0 {
							d.ip, d.bits, d.nbits, d.op = ip, bits, nbits&63, op
							return d.corrupt()
						}
						bits >>= e & 63
						nbits -= uint(e)
						d.ip, d.bits, d.nbits, d.op = ip, bits, nbits&63, op
						d.state = stateHeader
						return nil
					}
				}
				// A length: code and extra bits dropped in one shift.
				total := e & 63
				length := int(e>>16) + int((bits&(1<<total-1))>>((e>>8)&15))
				bits >>= total
				nbits -= uint(e)

				i := ip & inMask
				bits |= binary.LittleEndian.Uint64(buf[i:i+8]) << (nbits & 63)
				ip += int((63 - nbits&63) >> 3)
				nbits |= 56

				e = dist[bits&(1<<distBits-1)]
				if e&(flagSub|flagInvalid) != 0 { // rare: one test for most
					if e&flagSub != 0 {
						e = dist[e>>16+uint32(bits>>distBits)&(1<<((e>>8)&15)-1)]
					}
					if e&flagInvalid != 0 {
						d.ip, d.bits, d.nbits, d.op = ip, bits, nbits&63, op
						return d.corrupt()
					}
				}
				total = e & 63
				dst := int(e>>16) + int((bits&(1<<total-1))>>((e>>8)&15))
				bits >>= total
				nbits -= uint(e)
				if dst > op {
					d.ip, d.bits, d.nbits, d.op = ip, bits, nbits&63, op
					return d.corrupt()
				}

				// The next symbol's entry, while the copy runs.
				i = ip & inMask
				bits |= binary.LittleEndian.Uint64(buf[i:i+8]) << (nbits & 63)
				ip += int((63 - nbits&63) >> 3)
				nbits |= 56
				e = lit[bits&(1<<litBits-1)]

				if dst >= 64 {
					// 64 bytes a round, within the margin; a round's source
					// ends before its destination starts. Most matches take
					// one round.
					src := op - dst
					end := op + length
					for op < end {
						o, s := op&winMask, src&winMask
						to, from := (*[64]byte)(win[o:o+64]), (*[64]byte)(win[s:s+64])
						*(*[16]byte)(to[:16]) = *(*[16]byte)(from[:16])
						*(*[16]byte)(to[16:32]) = *(*[16]byte)(from[16:32])
						*(*[16]byte)(to[32:48]) = *(*[16]byte)(from[32:48])
						*(*[16]byte)(to[48:]) = *(*[16]byte)(from[48:])
						op += 64
						src += 64
					}
					op = end
				} else if dst >= 16 {
					src := op - dst
					end := op + length
					for op < end {
						o, s := op&winMask, src&winMask
						*(*[16]byte)(win[o : o+16]) = *(*[16]byte)(win[s : s+16])
						op += 16
						src += 16
					}
					op = end
				} else if dst >= 8 {
					src := op - dst
					end := op + length
					for op < end {
						o, s := op&winMask, src&winMask
						binary.LittleEndian.PutUint64(win[o:o+8], binary.LittleEndian.Uint64(win[s:s+8]))
						op += 8
						src += 8
					}
					op = end
				} else {
					// A distance under 8, here and not in a call (which
					// would make the loop keep its state on the stack):
					// byte by byte until the output holds a whole number of
					// periods at least 8 bytes back, then 8 bytes a round
					// from that far back.
					far := int(shortFar[dst&7])
					end := op + length
					for stop := min(op+far-dst, end); op < stop; op++ {
						win[op&winMask] = win[(op-dst)&winMask]
					}
					for op < end {
						o, s := op&winMask, (op-far)&winMask
						binary.LittleEndian.PutUint64(win[o:o+8], binary.LittleEndian.Uint64(win[s:s+8]))
						op += 8
					}
					op = end
				}
				if ip > inLimit || op > outLimit {
					break
				}
			}
		}
		nbits &= 63 // the fast loop's subtractions leave garbage above the low byte

		if op > winSize-outMargin {
			d.ip, d.bits, d.nbits, d.op = ip, bits, nbits, op
			return nil
		}
		// Short of input: read more unless the source has ended.
		if d.srcErr == nil {
			d.ip, d.bits, d.nbits, d.op = ip, bits, nbits, op
			d.moreInput() // an error stays in srcErr, for when the bits run out
			ip, bits, nbits = d.ip, d.bits, d.nbits
			continue
		}
		// The last bytes of the input: one symbol at a time.
		d.ip, d.bits, d.nbits, d.op = ip, bits, nbits, op
		done, err := d.slowSymbol()
		if err != nil || done {
			return err
		}
		ip, bits, nbits, op = d.ip, d.bits, d.nbits, d.op
	}
}

// slowSymbol decodes one symbol of a Huffman block at the end of the input,
// where there may be fewer bits left than the longest symbol takes. It
// reports whether the block has ended.
func (d *decompressor) slowSymbol() (bool, error) {
	have, err := d.peekBits(56)
	if err != nil {
		return false, err
	}
	e := d.lit[d.bits&(1<<litBits-1)]
	if e&flagSub != 0 {
		e = d.lit[e>>16+uint32(d.bits>>litBits)&(1<<((e>>8)&15)-1)]
	}
	if e&flagLit == 0 && uint((e>>8)&15) > have {
		return false, d.eofErr()
	}
	if e&flagInvalid != 0 {
		return false, d.corrupt()
	}
	total := uint(e & 31)
	if total > have {
		return false, d.eofErr()
	}
	v := d.bits & (1<<total - 1) >> ((e >> 8) & 15)
	d.bits >>= total
	d.nbits -= total
	switch {
	case e&flagLit != 0:
		binary.LittleEndian.PutUint16(d.win[d.op:], uint16(e>>16))
		d.op += int(e>>8) & 3
		return false, nil
	case e&flagEOB != 0:
		d.state = stateHeader
		return true, nil
	}
	length := int(e>>16) + int(v)

	if have, err = d.peekBits(56); err != nil {
		return false, err
	}
	e = d.dist[d.bits&(1<<distBits-1)]
	if e&flagSub != 0 {
		e = d.dist[e>>16+uint32(d.bits>>distBits)&(1<<((e>>8)&15)-1)]
	}
	if uint((e>>8)&15) > have {
		return false, d.eofErr()
	}
	if e&flagInvalid != 0 {
		return false, d.corrupt()
	}
	total = uint(e & 31)
	if total > have {
		return false, d.eofErr()
	}
	dst := int(e>>16) + int(d.bits&(1<<total-1)>>((e>>8)&15))
	d.bits >>= total
	d.nbits -= total
	if dst > d.op {
		return false, d.corrupt()
	}
	copyMatch(d.win[:], d.op, dst, length)
	d.op += length
	return false, nil
}

// shortFar[d], for a distance d from 1 to 7, is the least multiple of d of
// at least 8.
var shortFar = [8]uint8{0, 8, 8, 9, 8, 10, 12, 14}

// copyMatch copies length bytes from dist bytes back to win[op:], which has
// room for length+8 bytes: 8 at a time when the distance allows.
func copyMatch(win []byte, op, dist, length int) {
	src := op - dist
	switch {
	case dist >= 8:
		for i := 0; i < length; i += 8 {
			binary.LittleEndian.PutUint64(win[op+i:], binary.LittleEndian.Uint64(win[src+i:]))
		}
	case dist == 1:
		v := uint64(win[src]) * 0x0101010101010101
		for i := 0; i < length; i += 8 {
			binary.LittleEndian.PutUint64(win[op+i:], v)
		}
	default:
		w := win[src : op+length]
		for i := dist; i < len(w); i++ {
			w[i] = w[i-dist]
		}
	}
}
