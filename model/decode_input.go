package model

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/unicode"
)

// Reading the input: the window buffer, its refills, and what the first bytes
// say (byte-order marks, the declared encoding).

// fill compacts the window and reads more input. It returns io.EOF when the input
// is exhausted.
func (d *Decoder) fill() error {
	if d.readErr != nil {
		return d.readErr
	}
	if d.srcEOF {
		return io.EOF
	}
	if d.pos > 0 {
		d.curLine()
		d.linePos = 0
		n := copy(d.buf, d.buf[d.pos:d.end])
		d.base += int64(d.pos)
		d.end = n
		d.pos = 0
	}
	if d.end == len(d.buf) {
		size := 2 * len(d.buf)
		if size == 0 {
			size = decInitialBuf
		}
		if size > d.maxBuf {
			size = d.maxBuf
		}
		if size <= len(d.buf) {
			return d.syntaxErr(d.curLine(), "%s exceeds %d bytes", d.describeItem(), d.maxBuf)
		}
		nb := make([]byte, size)
		copy(nb, d.buf[:d.end])
		d.buf = nb
	}
	for tries := 0; ; tries++ {
		n, err := d.src.Read(d.buf[d.end:])
		d.end += n
		if d.base+int64(d.end) > d.maxBytes {
			d.readErr = &SizeLimitError{Limit: d.maxBytes, Line: d.curLine()}
			d.end -= n
			return d.readErr
		}
		if err != nil {
			if err == io.EOF {
				d.srcEOF = true
			} else {
				d.readErr = d.readError(err)
			}
			if n > 0 {
				return nil
			}
			if d.readErr != nil {
				return d.readErr
			}
			return io.EOF
		}
		if n > 0 {
			return nil
		}
		if tries > 100 {
			d.readErr = fmt.Errorf("read XML document: %w", io.ErrNoProgress)
			return d.readErr
		}
	}
}

func (d *Decoder) readError(err error) error {
	switch {
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader), errors.As(err, new(flate.CorruptInputError)):
		// The source undoes gzip (fetch.Open) and met corrupt data.
		return d.syntaxErr(d.curLine(), "corrupt gzip data: %v", err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return d.syntaxErr(d.curLine(), "input is truncated: %v", err)
	}
	var se *SyntaxError
	if errors.As(err, &se) {
		return err
	}
	return fmt.Errorf("read XML document: %w", err)
}

// start sniffs byte-order marks and the declared encoding.
func (d *Decoder) start() error {
	d.state = stProlog
	d.src = d.in

	// Read enough to see a byte-order mark and the start of the XML declaration.
	for d.end < 8 && !d.srcEOF {
		if err := d.fill(); err != nil {
			if err == io.EOF {
				break
			}
			return err
		}
	}
	if d.end == 0 {
		return d.syntaxErr(1, "empty document")
	}
	b := d.buf[:d.end]
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		d.pos = 3
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}), bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		d.hdr.XMLEncoding = "UTF-16"
		return d.transcode(unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM), "UTF-16")
	case bytes.HasPrefix(b, []byte{0, '<', 0, '?'}):
		d.hdr.XMLEncoding = "UTF-16"
		return d.transcode(unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "UTF-16")
	case bytes.HasPrefix(b, []byte{'<', 0, '?', 0}):
		d.hdr.XMLEncoding = "UTF-16"
		return d.transcode(unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "UTF-16")
	}
	if !bytes.HasPrefix(d.buf[d.pos:d.end], []byte("<?xml")) {
		return nil
	}
	// Find the end of the declaration (bounded).
	for {
		if i := bytes.Index(d.buf[d.pos:d.end], []byte("?>")); i >= 0 {
			break
		}
		if d.end-d.pos > 1024 || d.srcEOF {
			return nil // the scanner reports it
		}
		if err := d.fill(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
	decl := d.buf[d.pos:d.end]
	decl = decl[:bytes.Index(decl, []byte("?>"))]
	label := declPseudoAttr(decl, "encoding")
	d.hdr.XMLEncoding = label
	switch strings.ToLower(label) {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
		return nil
	case "utf-16", "utf-16le", "utf-16be", "ucs-2", "iso-10646-ucs-2":
		// Bytes read as ASCII so far: the declaration is wrong (the document was
		// transcoded on its way). Read it as UTF-8.
		return nil
	}
	enc, err := ianaindex.IANA.Encoding(label)
	if err != nil || enc == nil {
		enc, err = htmlindex.Get(label)
	}
	if err != nil || enc == nil {
		return d.syntaxErr(1, "unsupported encoding %q in the XML declaration", label)
	}
	return d.transcode(enc, label)
}

// transcode makes the rest of the input (from pos) be read through enc's decoder.
func (d *Decoder) transcode(enc encoding.Encoding, label string) error {
	rest := append([]byte(nil), d.buf[d.pos:d.end]...)
	d.curLine()
	d.base += int64(d.pos)
	d.pos, d.end, d.linePos = 0, 0, 0
	var src io.Reader = bytes.NewReader(rest)
	if !d.srcEOF {
		src = io.MultiReader(src, d.src)
	}
	d.srcEOF = false
	d.src = &labelledReader{r: enc.NewDecoder().Reader(src), label: label}
	return nil
}

// labelledReader names the encoding in transcoding errors.
type labelledReader struct {
	r     io.Reader
	label string
}

func (l *labelledReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("decode %s: %w", l.label, err)
	}
	return n, err
}

// declPseudoAttr returns the value of name="…" in an XML declaration.
func declPseudoAttr(decl []byte, name string) string {
	i := bytes.Index(decl, []byte(name))
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(decl[i+len(name):], " \t\r\n")
	if len(rest) == 0 || rest[0] != '=' {
		return ""
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) == 0 || (rest[0] != '"' && rest[0] != '\'') {
		return ""
	}
	q := rest[0]
	j := bytes.IndexByte(rest[1:], q)
	if j < 0 || j > 64 {
		return ""
	}
	return string(rest[1 : 1+j])
}
