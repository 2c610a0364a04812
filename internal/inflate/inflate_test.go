package inflate

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	kflate "github.com/klauspost/compress/flate"
	kgzip "github.com/klauspost/compress/gzip"
)

// bitWriter writes DEFLATE bit fields, low bit first, for hand-made streams.
type bitWriter struct {
	out   []byte
	acc   uint64
	nbits uint
}

// bits writes the n low bits of v, low bit first (a header field, extra bits).
func (w *bitWriter) bits(v uint64, n uint) *bitWriter {
	w.acc |= v << w.nbits
	w.nbits += n
	for w.nbits >= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.nbits -= 8
	}
	return w
}

// code writes an n-bit Huffman code, high bit first.
func (w *bitWriter) code(c uint64, n uint) *bitWriter {
	for i := int(n) - 1; i >= 0; i-- {
		w.bits(c>>uint(i)&1, 1)
	}
	return w
}

func (w *bitWriter) bytes() []byte {
	if w.nbits > 0 {
		return append(w.out, byte(w.acc))
	}
	return w.out
}

// fixedLit writes litlen symbol s in the fixed code (RFC 1951, 3.2.6).
func (w *bitWriter) fixedLit(s int) *bitWriter {
	switch {
	case s < 144:
		return w.code(uint64(0x30+s), 8)
	case s < 256:
		return w.code(uint64(0x190+s-144), 9)
	case s < 280:
		return w.code(uint64(s-256), 7)
	default:
		return w.code(uint64(0xc0+s-280), 8)
	}
}

// errClass names the kind of err as callers tell them apart.
func errClass(err error) string {
	var ce flate.CorruptInputError
	switch {
	case err == nil:
		return "nil"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected EOF"
	case errors.As(err, &ce):
		return "corrupt"
	case errors.Is(err, gzip.ErrChecksum):
		return "checksum"
	case errors.Is(err, gzip.ErrHeader):
		return "header"
	case errors.Is(err, io.EOF):
		return "EOF"
	}
	return "other: " + err.Error()
}

func inflateAll(data []byte) ([]byte, error) {
	return io.ReadAll(NewFlateReader(bytes.NewReader(data)))
}

func stdInflateAll(data []byte) ([]byte, error) {
	return io.ReadAll(flate.NewReader(bytes.NewReader(data)))
}

func TestFlateTable(t *testing.T) {
	text := []byte(strings.Repeat("the quick brown fox jumps over the lazy dog; ", 200))
	dynamic := func() []byte {
		var b bytes.Buffer
		w, _ := flate.NewWriter(&b, 9)
		w.Write(text)
		w.Close()
		return b.Bytes()
	}()
	hdr := func() *bitWriter { return new(bitWriter).bits(1, 1).bits(2, 2) } // final, dynamic
	tests := []struct {
		name     string
		in       []byte
		want     string
		err      string // errClass
		wantType int    // of the first block, checked when >= 0
	}{
		{"stored", []byte{0x01, 5, 0, 0xfa, 0xff, 'h', 'e', 'l', 'l', 'o'}, "hello", "nil", 0},
		{"empty stored", []byte{0x01, 0, 0, 0xff, 0xff}, "", "nil", 0},
		{"stored then fixed", append([]byte{0x00, 2, 0, 0xfd, 0xff, 'h', 'i'}, 0x4b, 0x04, 0x00), "hia", "nil", 0},
		{"fixed literal", []byte{0x4b, 0x04, 0x00}, "a", "nil", 1},
		{"fixed with a match", []byte{0xca, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc0, 0x20, 0x01, 0x01, 0x00, 0x00, 0xff, 0xff},
			"hello hello hello hello", "nil", 1},
		{"dynamic", dynamic, string(text), "nil", 2},
		{"empty input", nil, "", "unexpected EOF", -1},
		{"no final block", []byte{0x00, 0, 0, 0xff, 0xff}, "", "unexpected EOF", 0},
		{"stored too short", []byte{0x01, 5, 0, 0xfa, 0xff, 'h', 'e'}, "he", "unexpected EOF", 0},
		{"stored length check", []byte{0x01, 5, 0, 0xfa, 0xfe, 'h', 'e', 'l', 'l', 'o'}, "", "corrupt", 0},
		{"reserved block type", []byte{0x07, 0, 0}, "", "corrupt", 3},
		{"distance before the start", new(bitWriter).bits(1, 1).bits(1, 2).fixedLit('a').fixedLit(257).code(1, 5).fixedLit(256).bytes(),
			"a", "corrupt", 1},
		{"distance one back", new(bitWriter).bits(1, 1).bits(1, 2).fixedLit('a').fixedLit(258).code(0, 5).fixedLit(256).bytes(),
			"aaaaa", "nil", 1},
		{"length 258 at distance 1", new(bitWriter).bits(1, 1).bits(1, 2).fixedLit('z').fixedLit(285).code(0, 5).fixedLit(256).bytes(),
			strings.Repeat("z", 259), "nil", 1},
		{"litlen symbol 286", new(bitWriter).bits(1, 1).bits(1, 2).fixedLit(286).fixedLit(256).bytes(), "", "corrupt", 1},
		{"distance symbol 30", new(bitWriter).bits(1, 1).bits(1, 2).fixedLit('a').fixedLit(257).code(30, 5).fixedLit(256).bytes(),
			"a", "corrupt", 1},
		{"too many litlen codes", hdr().bits(30, 5).bits(0, 5).bits(0, 4).bytes(), "", "corrupt", 2},
		{"too many distance codes", hdr().bits(0, 5).bits(30, 5).bits(0, 4).bytes(), "", "corrupt", 2},
		{"over-subscribed code-length code", hdr().bits(0, 5).bits(0, 5).bits(0, 4).bits(1, 3).bits(1, 3).bits(1, 3).bits(1, 3).bytes(),
			"", "corrupt", 2},
		// Code-length code: symbols 16 and 17 of one bit each; symbol 16 first repeats nothing.
		{"repeat with nothing before", hdr().bits(0, 5).bits(0, 5).bits(0, 4).bits(1, 3).bits(1, 3).bits(0, 3).bits(0, 3).code(0, 1).bits(0, 2).bytes(),
			"", "corrupt", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.wantType >= 0 && len(tt.in) > 0 && int(tt.in[0]>>1&3) != tt.wantType {
				t.Fatalf("test input's first block has type %d, want %d", tt.in[0]>>1&3, tt.wantType)
			}
			got, err := inflateAll(tt.in)
			if c := errClass(err); c != tt.err {
				t.Errorf("error %v (%s), want %s", err, c, tt.err)
			}
			if !bytes.HasPrefix([]byte(tt.want), got) || (tt.err == "nil" && string(got) != tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			std, stdErr := stdInflateAll(tt.in)
			if errClass(stdErr) != errClass(err) || !bytes.HasPrefix(got, std) && !bytes.HasPrefix(std, got) {
				t.Errorf("compress/flate gives %q, %v; inflate %q, %v", std, stdErr, got, err)
			}
		})
	}
}

// gzipMember writes a gzip member by hand, with the optional header fields.
func gzipMember(data []byte, extra []byte, name, comment string, hcrc bool) []byte {
	var flg byte
	h := []byte{0x1f, 0x8b, 8, 0, 1, 2, 3, 4, 0, 3}
	if extra != nil {
		flg |= fextra
		h = append(h, byte(len(extra)), byte(len(extra)>>8))
		h = append(h, extra...)
	}
	if name != "" {
		flg |= fname
		h = append(append(h, name...), 0)
	}
	if comment != "" {
		flg |= fcomment
		h = append(append(h, comment...), 0)
	}
	if hcrc {
		flg |= fhcrc
	}
	h[3] = flg
	if hcrc {
		c := crc32.ChecksumIEEE(h)
		h = append(h, byte(c), byte(c>>8))
	}
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, 6)
	w.Write(data)
	w.Close()
	h = append(h, b.Bytes()...)
	c, n := crc32.ChecksumIEEE(data), uint32(len(data))
	return append(h, byte(c), byte(c>>8), byte(c>>16), byte(c>>24), byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
}

func gunzipAll(data []byte) ([]byte, error) {
	return gunzipFrom(bytes.NewReader(data))
}

func gunzipFrom(r io.Reader) ([]byte, error) {
	z, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(z)
}

func stdGunzipAll(data []byte) ([]byte, error) {
	z, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(z)
}

func TestGzipTable(t *testing.T) {
	hello := []byte("hello, world\n")
	plain := gzipMember(hello, nil, "", "", false)
	withAll := gzipMember(hello, []byte("xx\x02\x00ab"), "hello.txt", "a comment", true)
	badHCRC := bytes.Clone(withAll)
	badHCRC[10+2+6+10+10] ^= 1 // first byte of the header CRC
	badCRC := bytes.Clone(plain)
	badCRC[len(badCRC)-8] ^= 1
	badSize := bytes.Clone(plain)
	badSize[len(badSize)-4] ^= 1
	tests := []struct {
		name string
		in   []byte
		want string
		err  string // of NewReader, else of reading
	}{
		{"plain", plain, "hello, world\n", "nil"},
		{"FEXTRA FNAME FCOMMENT FHCRC", withAll, "hello, world\n", "nil"},
		{"bad header CRC", badHCRC, "", "header"},
		{"multistream", append(append(bytes.Clone(plain), withAll...), gzipMember([]byte("bye\n"), nil, "", "", false)...),
			"hello, world\nhello, world\nbye\n", "nil"},
		{"empty member", gzipMember(nil, nil, "", "", false), "", "nil"},
		{"empty input", nil, "", "EOF"},
		{"not gzip", []byte("hello, world, not gzipped"), "", "header"},
		{"method not deflate", append([]byte{0x1f, 0x8b, 7}, plain[3:]...), "", "header"},
		{"bad CRC", badCRC, "hello, world\n", "checksum"},
		{"bad size", badSize, "hello, world\n", "checksum"},
		{"garbage after a member", append(bytes.Clone(plain), "garbage!!!!"...), "hello, world\n", "header"},
		{"part of a header after a member", append(bytes.Clone(plain), 0x1f, 0x8b), "hello, world\n", "unexpected EOF"},
		{"name too long", gzipMember(hello, nil, strings.Repeat("n", 600), "", false), "", "header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gunzipAll(tt.in)
			if c := errClass(err); c != tt.err {
				t.Errorf("error %v (%s), want %s", err, c, tt.err)
			}
			if string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			std, stdErr := stdGunzipAll(tt.in)
			if errClass(stdErr) != errClass(err) || string(std) != string(got) {
				t.Errorf("compress/gzip gives %q, %v; inflate %q, %v", std, stdErr, got, err)
			}
		})
	}
}

// compressors are the writers the differential tests compress with.
var compressors = []struct {
	name  string
	write func(w io.Writer, level int) io.WriteCloser
}{
	{"stdlib", func(w io.Writer, level int) io.WriteCloser { z, _ := gzip.NewWriterLevel(w, level); return z }},
	{"klauspost", func(w io.Writer, level int) io.WriteCloser { z, _ := kgzip.NewWriterLevel(w, level); return z }},
}

// testInputs are random, text-like and repetitive data of several sizes.
func testInputs() map[string][]byte {
	rng := rand.New(rand.NewPCG(7, 8))
	random := make([]byte, 300<<10)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	runs := make([]byte, 0, 400<<10)
	for len(runs) < 400<<10 {
		runs = append(runs, bytes.Repeat([]byte{byte(rng.IntN(4))}, 1+rng.IntN(700))...)
		for range rng.IntN(20) {
			runs = append(runs, byte(rng.Uint32()))
		}
	}
	return map[string][]byte{
		"empty":    nil,
		"one byte": {'x'},
		"random":   random,
		"text":     sitemapLike(3000),
		"runs":     runs,
	}
}

// readWith reads r to its end with Reads of n bytes at most.
func readWith(r io.Reader, n int) ([]byte, error) {
	var out []byte
	buf := make([]byte, n)
	for {
		k, err := r.Read(buf)
		out = append(out, buf[:k]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

func TestDifferential(t *testing.T) {
	levels := []int{gzip.HuffmanOnly, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	for name, data := range testInputs() {
		for _, c := range compressors {
			for _, level := range levels {
				var b bytes.Buffer
				w := c.write(&b, level)
				w.Write(data)
				w.Close()
				gz := b.Bytes()
				want, err := stdGunzipAll(gz)
				if err != nil || !bytes.Equal(want, data) {
					t.Fatalf("%s %s level %d: compress/gzip cannot read it back: %v", name, c.name, level, err)
				}
				for _, size := range []int{1, 7, 4096, 1 << 20} {
					if size == 1 && len(data) > 100<<10 && level != 1 {
						continue // one-byte reads of the large inputs take long; level 1 covers them
					}
					z, err := NewReader(bytes.NewReader(gz))
					if err != nil {
						t.Fatalf("%s %s level %d: %v", name, c.name, level, err)
					}
					got, err := readWith(z, size)
					if err != nil || !bytes.Equal(got, data) {
						t.Errorf("%s %s level %d, reads of %d: %d bytes, %v; want %d bytes", name, c.name, level, size, len(got), err, len(data))
					}
				}
				z, err := NewReader(iotestOneByte{bytes.NewReader(gz)})
				if err != nil {
					t.Fatalf("%s %s level %d: %v", name, c.name, level, err)
				}
				var out bytes.Buffer
				if n, err := z.WriteTo(&out); err != nil || n != int64(len(data)) || !bytes.Equal(out.Bytes(), data) {
					t.Errorf("%s %s level %d, WriteTo from a one-byte source: %d, %v", name, c.name, level, n, err)
				}
				// The raw DEFLATE stream inside, through NewFlateReader.
				raw := gz[10 : len(gz)-8]
				got, err := inflateAll(raw)
				if err != nil || !bytes.Equal(got, data) {
					t.Errorf("%s %s level %d raw: %d bytes, %v", name, c.name, level, len(got), err)
				}
			}
		}
	}
}

// iotestOneByte reads one byte at a time, as a slow network would.
type iotestOneByte struct{ r io.Reader }

func (o iotestOneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

func TestKlauspostFlateRaw(t *testing.T) {
	data := sitemapLike(2000)
	for _, level := range []int{kflate.HuffmanOnly, kflate.BestSpeed, 4, kflate.DefaultCompression, kflate.BestCompression} {
		var b bytes.Buffer
		w, _ := kflate.NewWriter(&b, level)
		w.Write(data)
		w.Close()
		got, err := inflateAll(b.Bytes())
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("level %d: %d bytes, %v", level, len(got), err)
		}
	}
}

// TestTruncated cuts a small gzip stream at every byte: each cut must give
// the standard library's error, after a prefix of the data.
func TestTruncated(t *testing.T) {
	data := []byte(strings.Repeat("truncate me, truncate me <url>x</url>\n", 40) + "the end")
	for _, gz := range [][]byte{gzipMember(data, []byte("ex"), "name", "comment", true), gzipMember(data[:20], nil, "", "", false)} {
		for n := range len(gz) {
			got, err := gunzipAll(gz[:n])
			for _, wrap := range []func(io.Reader) io.Reader{iotest.DataErrReader, iotest.OneByteReader, iotest.HalfReader} {
				got2, err2 := gunzipFrom(wrap(bytes.NewReader(gz[:n])))
				if errClass(err2) != errClass(err) || !bytes.Equal(got2, got) {
					t.Errorf("cut at %d, through %T: %d bytes, %v; from a bytes.Reader %d, %v", n, wrap(nil), len(got2), err2, len(got), err)
				}
			}
			want := "unexpected EOF"
			if n == 0 {
				want = "EOF"
			}
			if c := errClass(err); c != want {
				t.Errorf("cut at %d of %d: error %v, want %s", n, len(gz), err, want)
			}
			if !bytes.HasPrefix(data, got) {
				t.Errorf("cut at %d: output is not a prefix of the data", n)
			}
			_, stdErr := stdGunzipAll(gz[:n])
			if errClass(stdErr) != errClass(err) {
				t.Errorf("cut at %d: compress/gzip gives %v, inflate %v", n, stdErr, err)
			}
		}
	}
}

// TestFlippedBits flips every bit of a small gzip stream in turn: the
// result must be the standard library's (an error of the same kind, or
// the same bytes).
func TestFlippedBits(t *testing.T) {
	data := []byte(strings.Repeat("flip a bit, <url>flip</url> another\n", 30))
	for _, level := range []int{1, 9, gzip.HuffmanOnly} {
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, level)
		w.Write(data)
		w.Close()
		gz := b.Bytes()
		for i := range len(gz) * 8 {
			bad := bytes.Clone(gz)
			bad[i/8] ^= 1 << (i % 8)
			got, err := gunzipAll(bad)
			std, stdErr := stdGunzipAll(bad)
			if errClass(err) != errClass(stdErr) {
				t.Errorf("level %d, bit %d flipped: inflate %v, compress/gzip %v", level, i, err, stdErr)
			}
			if err == nil && !bytes.Equal(got, std) {
				t.Errorf("level %d, bit %d flipped: different bytes", level, i)
			}
		}
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestBomb reads a stream that inflates 1,000 times: output comes on
// demand, a window at a time, and memory stays that of the reader.
func TestBomb(t *testing.T) {
	const size = 256 << 20
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestSpeed)
	zeros := make([]byte, 1<<20)
	for range size / len(zeros) {
		w.Write(zeros)
	}
	w.Close()
	src := &countingReader{r: bytes.NewReader(b.Bytes())}
	r := NewFlateReader(src)
	buf := make([]byte, 4096)
	if _, err := io.ReadFull(r, buf); err != nil {
		t.Fatal(err)
	}
	if src.n > inBufSize {
		t.Errorf("read %d bytes of input for 4 KiB of output, want at most one buffer (%d)", src.n, inBufSize)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	total := int64(len(buf))
	for {
		n, err := r.Read(buf)
		total += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if total != size {
		t.Errorf("inflated %d bytes, want %d", total, size)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("allocated %d bytes while inflating %d", alloc, size)
	}
}

// TestReset reuses a Reader for a second stream.
func TestReset(t *testing.T) {
	a, b := gzipMember([]byte("first"), nil, "", "", false), gzipMember([]byte("second"), nil, "n", "", false)
	z, err := NewReader(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(z); err != nil || string(got) != "first" {
		t.Fatalf("first: %q, %v", got, err)
	}
	if err := z.Reset(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(z); err != nil || string(got) != "second" {
		t.Fatalf("second: %q, %v", got, err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := z.Read(make([]byte, 1)); err == nil {
		t.Error("Read after Close gave no error")
	}
}

// FuzzInflate compares NewFlateReader with compress/flate on any input:
// the same bytes up to the first error, and an error of the same kind
// exactly when compress/flate gives one.
func FuzzInflate(f *testing.F) {
	for _, in := range testInputs() {
		for _, level := range []int{flate.HuffmanOnly, 1, 6, 9} {
			var b bytes.Buffer
			w, _ := flate.NewWriter(&b, level)
			w.Write(in[:min(len(in), 4000)])
			w.Close()
			f.Add(b.Bytes())
		}
	}
	f.Add([]byte{0x4b, 0x04, 0x00})
	f.Add([]byte{0x01, 5, 0, 0xfa, 0xff, 'h', 'e', 'l', 'l', 'o'})
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := inflateAll(in)
		want, stdErr := stdInflateAll(in)
		if errClass(err) != errClass(stdErr) {
			t.Fatalf("inflate: %v; compress/flate: %v", err, stdErr)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("different output: %d bytes, compress/flate %d", len(got), len(want))
		}
		if n := min(len(got), len(want)); !bytes.Equal(got[:n], want[:n]) {
			t.Fatalf("output differs before the error")
		}
	})
}

func ExampleNewReader() {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	io.WriteString(w, "hello\n")
	w.Close()
	z, err := NewReader(&b)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := io.ReadAll(z)
	fmt.Printf("%q %v\n", out, err)
	// Output: "hello\n" <nil>
}
