package model

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/unicode"
)

// The decoder is a hand-written byte scanner rather than encoding/xml: validating a
// 50,000-entry Resource List must cost a small fraction of what encoding/xml takes
// (see BENCHMARKS.md). It reads through one window buffer; every markup item (a tag,
// comment, CDATA section …) is scanned in place and, when it straddles the end of
// the window, rescanned from its start after the window is refilled. Items are
// bounded by DecoderOptions.MaxTokenBytes, so the window is too.

// DecoderOptions bounds the resources a Decoder may spend on one document.
// The zero value gives the defaults.
type DecoderOptions struct {
	MaxBytes      int64 // max decompressed bytes read; 0 = default 1 GiB
	MaxTokenBytes int   // max size of one attribute value, text node or name; 0 = default 4 MiB
	MaxDepth      int   // max element nesting; 0 = default 256

	// Parallel is the number of goroutines that decode the entries of a large
	// document (more than one block, see decode_parallel.go) concurrently; 0 or 1
	// decodes in the caller's goroutine. The results are those of sequential
	// decoding. A caller that stops calling Next before io.EOF or an error must
	// call Close.
	Parallel int

	blockSize int // bytes per parallel block; 0 = parDefaultBlock (tests set it)
}

const (
	defaultMaxBytes      = 1 << 30
	defaultMaxTokenBytes = 4 << 20
	defaultMaxDepth      = 256

	decInitialBuf   = 256 << 10
	decMaxAttrs     = 256  // attributes on one element
	decMaxInner     = 4096 // bytes of Element.Inner kept
	decMaxLegacy    = 1000 // LegacyTrace records kept per document
	decMaxInterned  = 4096 // distinct short strings interned per decoder
	decMaxInternLen = 64
	decSlabSize     = 32 << 10
)

// SyntaxError reports input that is not a well-formed (namespace-well-formed)
// XML document, or that breaks one of the Decoder's limits.
type SyntaxError struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return "line " + strconv.Itoa(e.Line) + ": " + e.Msg }

// errNeedMore tells the scanning loop that the current item continues past the
// end of the window.
var errNeedMore = errors.New("need more input")

// Element kinds on the open-element stack.
const (
	kRoot uint8 = iota
	kEntry
	kLoc
	kLastmod
	kChangefreq
	kMD
	kLN
	kCapture // an element kept verbatim in Extra
	kInner   // inside a captured element
	kIgnore  // inside loc, md … : skipped
)

// Namespace kinds.
const (
	nsNone uint8 = iota // unqualified
	nsSitemap
	nsRS
	nsRSLegacy
	nsXML
	nsOther
)

// Decoder states.
const (
	stInit uint8 = iota
	stProlog
	stRoot
	stEpilog
	stDone
)

// openElem is an element on the stack. It holds no pointers, which keeps pushes
// cheap while the garbage collector runs.
type openElem struct {
	qname  int32 // index of the name as written in Decoder.names
	kind   uint8
	nsMark int32 // len(Decoder.ns) before this element's declarations
	line   int   // 0 when not counted (loc, lastmod, changefreq and deeper elements)
}

type nsBinding struct {
	prefix string
	uri    string
	kind   uint8
}

// rawAttr locates one attribute of the start tag being processed, in the window.
type rawAttr struct {
	name, colon int // name start, index of ':' in the name or -1
	nameEnd     int
	val, valEnd int
	flags       uint8 // attrAmp | attrWS
}

const (
	attrAmp      = 1 << iota // value holds references
	attrWS                   // value holds tab, newline or carriage return (normalised to spaces)
	attrNonASCII             // value holds bytes >= 0x80 (to be checked as UTF-8)
)

// Decoder reads a Sitemap / ResourceSync document as a stream of entries.
//
// It is namespace-aware with any prefixes. The Sitemap elements are recognised in
// the Sitemap namespace and, leniently, in no namespace at all (Header.RootSpace
// is then "", for the checker to flag); <rs:md> and <rs:ln> in the ResourceSync
// namespace and in the beta namespace NSRSLegacy, which is recorded in
// Header.Legacy like the draft elements rs:fixity and rs:size (kept in
// Entry.Extra) and the draft attributes modified and etag of <rs:md> (kept in
// Metadata.Extra). Unknown elements and attributes, those of other namespaces and
// prefixed ResourceSync attributes (rs:capability="…", which the specification
// forbids) are kept verbatim in the Extra fields and never taken for the real
// attribute. Values that do not parse keep their raw text and are marked invalid.
//
// Input may be gzip-compressed (recognised by its magic bytes) and in any encoding
// its byte-order mark or XML declaration names; UTF-8 is read in place, others
// are transcoded. Only the five predefined entities and character references are
// expanded: a DOCTYPE that declares entities is refused. Malformed input gives a
// *SyntaxError with the line; DecoderOptions bounds memory and nesting.
//
// Every Entry it returns is independent of the Decoder: nothing in it is
// rewritten later, so callers may keep entries (and copies of them) as they are.
// Strings and hash lists of entries are carved out of shared slabs of a few tens
// of KiB, so a kept entry keeps its slab alive. A Decoder is not safe for
// concurrent use.
type Decoder struct {
	in       io.Reader
	src      io.Reader
	maxBytes int64
	maxToken int
	maxDepth int
	maxBuf   int

	buf      []byte
	pos, end int
	base     int64 // stream offset of buf[0]
	srcEOF   bool
	readErr  error
	lineN    int // line of buf[linePos]; lines are counted lazily
	linePos  int

	state       uint8
	err         error // sticky
	hdr         Header
	hdrRead     bool
	stopAtEntry bool

	stack []openElem
	ns    []nsBinding
	attrs []rawAttr

	e          *Entry // the entry being filled: the caller's, or first
	first      Entry  // holds an entry started while reading the header
	entryOpen  bool
	entryReady bool
	nEntries   int

	// The texts of an entry's <loc> and <lastmod> become one string when the entry
	// ends (one allocation per entry instead of two).
	entryText          []byte
	locA, locB         int // raw loc in entryText, -1 when none
	pendingMD          []pendingMD
	lastmodA, lastmodB int

	rawText   []byte // undecoded character data of the collecting element, when cut by the window's end
	text      []byte // decoded character data of a collecting element other than loc and lastmod
	toEntry   bool   // the collecting element's text goes to entryText, else to text
	textStart int    // where the collecting element's text starts in its target
	scratch   []byte // attribute value decoding
	strs      []byte // concatenated values of one element, made one string
	offs      []int

	capDepth int // stack index of the element being captured, -1 when none
	capElem  Element
	capInner []byte
	capEntry bool // the capture belongs to the current entry

	// Entries' strings and hash lists are carved out of slabs that are never
	// rewritten: most entries then cost no allocation of their own.
	slab       []byte
	hashBlocks []hashBlock

	altSitemapNS string // the root's namespace when it is a variant of the Sitemap one

	intern  map[string]string
	names   []string         // element names as written, by openElem.qname
	nameIDs map[string]int32 // index of names
	qslots  [64]int32        // small hash of names: index in names + 1, 0 when empty
	nLegacy int

	eofRetried bool // the item at the end of the input was scanned again
	rawLine    int  // line where rawText starts

	entryQ int32       // name as written of the last entry element, by index in names
	block  bool        // a block decoder of the parallel path (decode_parallel.go)
	par    *parDecoder // the parallel path, nil when sequential
}

// NewDecoder returns a Decoder reading from r, which may be gzip-compressed
// (recognised by its magic bytes) and in any encoding its XML declaration names.
func NewDecoder(r io.Reader, opts DecoderOptions) *Decoder {
	d := &Decoder{in: r, maxBytes: opts.MaxBytes, maxToken: opts.MaxTokenBytes, maxDepth: opts.MaxDepth, capDepth: -1, lineN: 1}
	d.e = &d.first
	if d.maxBytes <= 0 {
		d.maxBytes = defaultMaxBytes
	}
	if d.maxToken <= 0 {
		d.maxToken = defaultMaxTokenBytes
	}
	if d.maxDepth <= 0 {
		d.maxDepth = defaultMaxDepth
	}
	d.maxBuf = 2*d.maxToken + 64<<10
	if opts.Parallel > 1 {
		d.par = newParDecoder(d, opts)
	}
	return d
}

// BytesRead returns the number of decompressed XML bytes consumed so far.
func (d *Decoder) BytesRead() int64 {
	if d.par != nil && d.par.active {
		return d.par.atBytes
	}
	return d.base + int64(d.pos)
}

// Line returns the line the Decoder has reached (1-based).
func (d *Decoder) Line() int {
	if d.par != nil && d.par.active {
		return d.par.atLine
	}
	return d.curLine()
}

// curLine returns the line of buf[pos].
func (d *Decoder) curLine() int {
	if d.linePos < d.pos {
		d.lineN += countLines(d.buf[d.linePos:d.pos])
	}
	d.linePos = d.pos
	return d.lineN
}

// Header reads the document up to its first entry (or its end) and returns the
// document-level information. The same *Header is completed with document-level
// elements that follow the entries by the time Next returns io.EOF.
//
// A document whose root is not <urlset> or <sitemapindex> (HTML, Atom …) is not an
// error: Root is RootUnknown and RootLocal names what was found. On error the
// returned Header (never nil) holds what was read before it.
func (d *Decoder) Header() (*Header, error) {
	if !d.hdrRead {
		d.stopAtEntry = true
		err := d.run()
		d.stopAtEntry = false
		d.hdrRead = true
		if err != nil {
			return &d.hdr, err
		}
	}
	if d.err != nil && d.err != io.EOF {
		return &d.hdr, d.err
	}
	return &d.hdr, nil
}

// Next reads the next entry into *e, replacing all of its contents. It returns
// io.EOF after the last entry, and at once for a document that is not a Sitemap.
func (d *Decoder) Next(e *Entry) error {
	if d.par != nil && d.par.active {
		return d.parNext(e)
	}
	if !d.hdrRead {
		if _, err := d.Header(); err != nil {
			return err
		}
	}
	if d.entryOpen && d.e == &d.first {
		// The entry was started by Header: move it to the caller's Entry.
		*e = d.first
		d.first = Entry{}
	}
	d.e = e
	if !d.entryReady && d.state != stDone && d.err == nil {
		if err := d.run(); err != nil {
			return err
		}
	}
	if d.entryReady {
		d.entryReady = false
		if d.par != nil && !d.par.started {
			d.parStart()
		}
		return nil
	}
	if d.err != nil {
		return d.err
	}
	return io.EOF
}

// Parse reads a whole document into memory.
func Parse(r io.Reader) (*Document, error) {
	d := NewDecoder(r, DecoderOptions{})
	if _, err := d.Header(); err != nil {
		return nil, err
	}
	doc := &Document{}
	for {
		var e Entry
		err := d.Next(&e)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		doc.Entries = append(doc.Entries, e)
	}
	doc.Header = d.hdr
	doc.Bytes = d.BytesRead()
	return doc, nil
}

func (d *Decoder) syntaxErr(line int, format string, args ...any) error {
	return &SyntaxError{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// lineAt returns the line of buf[i] for i >= pos.
func (d *Decoder) lineAt(i int) int {
	if i > d.end {
		i = d.end
	}
	line := d.curLine()
	if i <= d.pos {
		return line
	}
	return line + countLines(d.buf[d.pos:i])
}

// countLines returns the number of line feeds in b.
func countLines(b []byte) int { return bytes.Count(b, []byte{'\n'}) }

// run scans until an entry is complete, an entry starts (in Header mode), or the
// document ends. Errors are sticky.
func (d *Decoder) run() error {
	if d.err != nil {
		if d.err == io.EOF {
			return nil
		}
		return d.err
	}
	err := d.loop()
	if err != nil {
		d.err = err
		d.state = stDone
		return err
	}
	return nil
}

func (d *Decoder) loop() error {
	if d.state == stInit {
		if err := d.start(); err != nil {
			return err
		}
		if d.state == stDone {
			return nil
		}
	}
	for {
		if d.entryReady || (d.stopAtEntry && d.entryOpen) || d.state == stDone {
			return nil
		}
		if d.pos >= d.end {
			if err := d.fill(); err != nil {
				if err == io.EOF {
					return d.atEOF()
				}
				return err
			}
			continue
		}
		var err error
		if c := d.buf[d.pos]; c == '<' {
			if d.block {
				err = d.blockMarkup()
			} else {
				err = d.markup()
			}
		} else if decIsSpace(c) && d.state == stRoot && !d.collecting() && d.capDepth < 0 {
			// Indentation between elements: skip it without ceremony.
			i := d.pos + 1
			for i < d.end && decIsSpace(d.buf[i]) {
				i++
			}
			d.pos = i
			continue
		} else {
			err = d.textRun()
		}
		if err == errNeedMore {
			if ferr := d.fill(); ferr != nil {
				if ferr == io.EOF && d.srcEOF && !d.eofRetried {
					// Scan the item again knowing that the input ends: an
					// item judged on its first bytes (invalid markup, text
					// before the root) is then judged on all of them, however
					// the reads fell.
					d.eofRetried = true
					continue
				}
				if ferr == io.EOF {
					return d.syntaxErr(d.curLine(), "unexpected end of input inside %s", d.describeItem())
				}
				return ferr
			}
			continue
		}
		if err != nil {
			return err
		}
	}
}

// describeItem names the markup at pos for truncation errors.
func (d *Decoder) describeItem() string {
	b := d.buf[d.pos:d.end]
	switch {
	case bytes.HasPrefix(b, []byte("<!--")):
		return "a comment"
	case bytes.HasPrefix(b, []byte("<![CDATA[")):
		return "a CDATA section"
	case bytes.HasPrefix(b, []byte("<!")):
		return "a declaration"
	case bytes.HasPrefix(b, []byte("<?")):
		return "a processing instruction"
	case bytes.HasPrefix(b, []byte("</")):
		return "an end tag"
	}
	n := 1
	for n < len(b) && n < 60 && !decIsSpace(b[n]) && b[n] != '>' && b[n] != '/' {
		n++
	}
	return "start tag " + strconv.Quote(string(b[:n]))
}

func (d *Decoder) atEOF() error {
	if d.block {
		return d.blockEnd()
	}
	switch d.state {
	case stProlog:
		return d.syntaxErr(d.curLine(), "document has no root element")
	case stRoot:
		top := d.stack[len(d.stack)-1]
		return d.syntaxErr(d.curLine(), "unexpected end of input: <%s> %s is not closed", d.names[top.qname], d.openedOn(len(d.stack)-1))
	}
	d.state = stDone
	return nil
}

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
			d.readErr = d.syntaxErr(d.curLine(), "document exceeds %d bytes (the decoder's limit)", d.maxBytes)
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
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader):
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

// start sniffs gzip, byte-order marks and the declared encoding.
func (d *Decoder) start() error {
	d.state = stProlog
	var head [2]byte
	n, err := io.ReadFull(d.in, head[:])
	switch {
	case err == io.EOF:
		return d.syntaxErr(1, "empty document")
	case errors.Is(err, gzip.ErrHeader):
		// A source that undoes gzip itself (fetch.Open) and met a corrupt
		// header: malformed, as when the gzip is undone here.
		return d.syntaxErr(1, "corrupt gzip data: %v", err)
	case err != nil && err != io.ErrUnexpectedEOF:
		return fmt.Errorf("read XML document: %w", err)
	}
	src := io.MultiReader(bytes.NewReader(head[:n:n]), d.in)
	if n == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(src)
		if err != nil {
			if errors.Is(err, gzip.ErrHeader) || errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
				return d.syntaxErr(1, "corrupt gzip data: %v", err)
			}
			return fmt.Errorf("read gzip XML document: %w", err)
		}
		zr.Multistream(true)
		src = zr
	}
	d.src = src

	// Read enough to see a byte-order mark and the start of the XML declaration.
	for d.end < 8 && !d.srcEOF {
		if err := d.fill(); err != nil {
			if err == io.EOF {
				break
			}
			return err
		}
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

// consume advances pos to i, counting lines and feeding a capture's inner XML.
func (d *Decoder) consume(i int) {
	if d.capInnerOpen() {
		seg := d.buf[d.pos:i]
		if room := decMaxInner - len(d.capInner); room > 0 {
			if len(seg) > room {
				seg = seg[:room]
			}
			d.capInner = append(d.capInner, seg...)
		}
	}
	d.pos = i
}

// capInnerOpen reports whether consumed bytes are inside the captured element
// (the element's own start and end tags are not).
func (d *Decoder) capInnerOpen() bool {
	return d.capDepth >= 0 && len(d.stack) > d.capDepth
}

func decIsSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

func isAllSpace(b []byte) bool {
	for _, c := range b {
		if !decIsSpace(c) {
			return false
		}
	}
	return true
}

// textRun handles character data up to the next '<' (or the end of the window).
func (d *Decoder) textRun() error {
	b := d.buf[d.pos:d.end]
	n := bytes.IndexByte(b, '<')
	if n < 0 {
		n = len(b)
	}
	seg := b[:n]
	switch d.state {
	case stProlog, stEpilog:
		if !isAllSpace(seg) {
			i := 0
			for i < len(seg) && decIsSpace(seg[i]) {
				i++
			}
			if n == len(b) && len(seg)-i < 24 && !d.srcEOF {
				return d.needMore() // the message quotes 24 bytes
			}
			line := d.lineAt(d.pos + i)
			if d.state == stProlog {
				return d.syntaxErr(line, "not an XML document: text %q before the root element", clip(seg[i:], 24))
			}
			return d.syntaxErr(line, "text %q after the end of the root element", clip(seg[i:], 24))
		}
	default:
		top := &d.stack[len(d.stack)-1]
		switch top.kind {
		case kLoc, kLastmod, kChangefreq, kCapture:
			tgt := d.textTarget()
			if len(*tgt)-d.textStart+len(d.rawText)+len(seg) > d.maxToken {
				return d.syntaxErr(d.curLine(), "text of <%s> exceeds %d bytes", d.names[top.qname], d.maxToken)
			}
			if n < len(b) && len(d.rawText) == 0 {
				// The run is whole: decode it in place.
				var err error
				if *tgt, err = d.appendDecoded(*tgt, seg, false, -1); err != nil {
					return err
				}
			} else {
				// A run cut by the window's end: decoded when it ends (at
				// the next markup), so that its errors come at the same
				// point and line as for a run read whole.
				if len(d.rawText) == 0 {
					d.rawLine = d.curLine()
				}
				d.rawText = append(d.rawText, seg...)
			}
		}
	}
	d.consume(d.pos + n)
	return nil
}

// textTarget returns the buffer the collecting element's text goes to.
func (d *Decoder) textTarget() *[]byte {
	if d.toEntry {
		return &d.entryText
	}
	return &d.text
}

// flushText decodes the collected raw character data into the text target.
func (d *Decoder) flushText() error {
	if len(d.rawText) == 0 {
		return nil
	}
	tgt := d.textTarget()
	var err error
	*tgt, err = d.appendDecoded(*tgt, d.rawText, false, d.rawLine)
	d.rawText = d.rawText[:0]
	return err
}

// markup dispatches on the item at pos (buf[pos] == '<').
func (d *Decoder) markup() error {
	if len(d.rawText) != 0 {
		if err := d.flushText(); err != nil {
			return err
		}
	}
	b := d.buf[d.pos:d.end]
	if len(b) < 2 {
		return d.needMore()
	}
	switch b[1] {
	case '/':
		return d.endTag()
	case '?':
		return d.procInst()
	case '!':
		return d.bang()
	}
	return d.startTag()
}

func (d *Decoder) needMore() error {
	if d.srcEOF && d.readErr == nil {
		return d.syntaxErr(d.curLine(), "unexpected end of input inside %s", d.describeItem())
	}
	return errNeedMore
}

func (d *Decoder) procInst() error {
	b := d.buf[d.pos:d.end]
	i := bytes.Index(b[2:], []byte("?>"))
	if i < 0 {
		if len(b) > d.maxToken {
			return d.syntaxErr(d.curLine(), "processing instruction exceeds %d bytes", d.maxToken)
		}
		return d.needMore()
	}
	d.consume(d.pos + 2 + i + 2)
	return nil
}

func (d *Decoder) bang() error {
	b := d.buf[d.pos:d.end]
	switch {
	case len(b) >= 4 && string(b[:4]) == "<!--":
		i := bytes.Index(b[4:], []byte("-->"))
		if i < 0 {
			if len(b) > d.maxToken {
				return d.syntaxErr(d.curLine(), "comment exceeds %d bytes", d.maxToken)
			}
			return d.needMore()
		}
		d.consume(d.pos + 4 + i + 3)
		return nil
	case len(b) >= 9 && string(b[:9]) == "<![CDATA[":
		i := bytes.Index(b[9:], []byte("]]>"))
		if i < 0 {
			if len(b) > d.maxToken {
				return d.syntaxErr(d.curLine(), "CDATA section exceeds %d bytes", d.maxToken)
			}
			return d.needMore()
		}
		if d.state != stRoot {
			return d.syntaxErr(d.curLine(), "CDATA section outside the root element")
		}
		switch top := &d.stack[len(d.stack)-1]; top.kind {
		case kLoc, kLastmod, kChangefreq, kCapture:
			if err := d.flushText(); err != nil {
				return err
			}
			content := b[9 : 9+i]
			tgt := d.textTarget()
			if len(*tgt)-d.textStart+len(content) > d.maxToken {
				return d.syntaxErr(d.curLine(), "text of <%s> exceeds %d bytes", d.names[top.qname], d.maxToken)
			}
			if !utf8.Valid(content) {
				return d.syntaxErr(d.curLine(), "invalid UTF-8 in a CDATA section")
			}
			*tgt = append(*tgt, content...)
		}
		d.consume(d.pos + 9 + i + 3)
		return nil
	case len(b) >= 9 && strings.EqualFold(string(b[:9]), "<!DOCTYPE"):
		return d.doctype()
	case len(b) < 9 && (bytes.HasPrefix([]byte("<![CDATA["), b) || bytes.HasPrefix([]byte("<!DOCTYPE"), bytes.ToUpper(b)) || bytes.HasPrefix([]byte("<!--"), b)):
		return d.needMore()
	}
	if len(b) < 12 && !d.srcEOF {
		return d.needMore() // the message quotes 12 bytes
	}
	return d.syntaxErr(d.curLine(), "invalid markup %q", clip(b, 12))
}

func clip(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

// doctype skips a document type declaration. Entity declarations are refused: the
// decoder expands only the five predefined entities and character references.
func (d *Decoder) doctype() error {
	if d.state != stProlog {
		return d.syntaxErr(d.curLine(), "DOCTYPE declaration after the root element started")
	}
	b := d.buf[d.pos:d.end]
	var quote byte
	depth := 0
	for i := 9; i < len(b); i++ {
		c := b[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[':
			depth++
		case c == ']':
			depth--
		case c == '<' && depth > 0 && bytes.HasPrefix(b[i:], []byte("<!ENTITY")):
			return d.syntaxErr(d.lineAt(d.pos+i), "DOCTYPE declares entities; entity declarations are not supported (possible entity-expansion attack)")
		case c == '>' && depth <= 0:
			d.consume(d.pos + i + 1)
			return nil
		}
	}
	if len(b) > d.maxToken {
		return d.syntaxErr(d.curLine(), "DOCTYPE declaration exceeds %d bytes", d.maxToken)
	}
	return d.needMore()
}

// attrSpecial marks the bytes of an attribute value that need a closer look:
// control characters, '&', '<' and the bytes of non-ASCII characters.
const attrSpecial = "" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01"

// anySpecial reports whether b (at most 8 bytes) may hold a byte that attrSpecial
// marks, testing 8 bytes at once; a true answer can be wrong, a false one cannot.
func anySpecial(b []byte) bool {
	if len(b) < 8 {
		for _, c := range b {
			if attrSpecial[c] != 0 {
				return true
			}
		}
		return false
	}
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	w := binary.LittleEndian.Uint64(b)
	amp, lt := w^(lo*'&'), w^(lo*'<')
	return (w|(w-lo*0x20)&^w|(amp-lo)&^amp|(lt-lo)&^lt)&hi != 0
}

// nameChars marks the bytes that can be part of an XML name (bytes >= 0x80 are
// accepted as parts of non-ASCII name characters).
const nameChars = "" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x01\x00\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x00\x00\x00\x00\x00" +
	"\x00\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x00\x00\x00\x00\x01" +
	"\x00\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x00\x00\x00\x00\x00" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01"

// nameByte reports whether c can be part of an XML name.
func nameByte(c byte) bool { return nameChars[c] != 0 }

func nameStartByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

// scanName scans a name starting at b[i]; it returns the index after it and the
// index of its first colon (-1 if none).
func scanName(b []byte, i int) (int, int) {
	colon := -1
	for ; i < len(b); i++ {
		c := b[i]
		if !nameByte(c) {
			break
		}
		if c == ':' && colon < 0 {
			colon = i
		}
	}
	return i, colon
}

// nameOK validates a scanned qualified name b[start:end].
func nameOK(b []byte, start, end, colon int) bool {
	if start == end || !nameStartByte(b[start]) {
		return false
	}
	if colon >= 0 && (colon == start || colon == end-1 || !nameStartByte(b[colon+1]) || bytes.IndexByte(b[colon+1:end], ':') >= 0) {
		return false
	}
	return nameRunesOK(b[start:end])
}

// nameErr reports an invalid name b[start:end] found in what.
func (d *Decoder) nameErr(b []byte, start, end int, what string) error {
	if start == end {
		return d.syntaxErr(d.lineAt(d.pos+start), "expected a name in %s, found %q", what, clip(b[start:], 1))
	}
	if r, bad := badNameRune(b[start:end]); bad {
		if r == utf8.RuneError {
			return d.syntaxErr(d.lineAt(d.pos+start), "invalid name %q in %s: not UTF-8", b[start:end], what)
		}
		return d.syntaxErr(d.lineAt(d.pos+start), "invalid name %q in %s: character %U is not allowed in an XML name (inside a tag XML allows only space, tab, CR and LF between names)",
			b[start:end], what, r)
	}
	return d.syntaxErr(d.lineAt(d.pos+start), "invalid name %q in %s", b[start:end], what)
}

// startTag scans a start tag; the whole tag must be in the window.
func (d *Decoder) startTag() error {
	b := d.buf[d.pos:d.end]
	i, colon := scanName(b, 1)
	if i == len(b) {
		if i > d.maxToken {
			return d.syntaxErr(d.curLine(), "element name exceeds %d bytes", d.maxToken)
		}
		return d.needMore()
	}
	nameEnd := i
	if !nameOK(b, 1, nameEnd, colon) {
		if d.state == stProlog && i == 1 {
			return d.syntaxErr(d.curLine(), "not an XML document: invalid character %q after '<'", clip(b[1:], 1))
		}
		return d.nameErr(b, 1, nameEnd, "a start tag")
	}
	if d.state == stEpilog {
		return d.syntaxErr(d.curLine(), "second root element <%s> after the end of the first", b[1:nameEnd])
	}
	attrs := d.attrs[:0]
	selfClose := false
	for {
		ws := i
		for i < len(b) && decIsSpace(b[i]) {
			i++
		}
		if i == len(b) {
			d.attrs = attrs
			return d.needMore()
		}
		c := b[i]
		if c == '>' {
			i++
			break
		}
		if c == '/' {
			if i+1 == len(b) {
				d.attrs = attrs
				return d.needMore()
			}
			if b[i+1] != '>' {
				return d.tagErr(b, nameEnd, d.syntaxErr(d.lineAt(d.pos+i), "expected '>' after '/' in <%s>", b[1:nameEnd]))
			}
			selfClose = true
			i += 2
			break
		}
		if i == ws {
			return d.tagErr(b, nameEnd, d.syntaxErr(d.lineAt(d.pos+i), "expected whitespace, '>' or '/>' in <%s>, found %q", b[1:nameEnd], clip(b[i:], 1)))
		}
		a := rawAttr{name: i}
		i, a.colon = scanName(b, i)
		a.nameEnd = i
		if i == len(b) {
			if i-a.name > d.maxToken {
				return d.syntaxErr(d.curLine(), "attribute name exceeds %d bytes", d.maxToken)
			}
			d.attrs = attrs
			return d.needMore()
		}
		if !nameOK(b, a.name, a.nameEnd, a.colon) {
			return d.tagErr(b, nameEnd, d.nameErr(b, a.name, a.nameEnd, "an attribute of <"+string(b[1:nameEnd])+">"))
		}
		for i < len(b) && decIsSpace(b[i]) {
			i++
		}
		if i < len(b) && b[i] != '=' {
			return d.tagErr(b, nameEnd, d.syntaxErr(d.lineAt(d.pos+i), "attribute %s of <%s> has no value", b[a.name:a.nameEnd], b[1:nameEnd]))
		}
		i++
		for i < len(b) && decIsSpace(b[i]) {
			i++
		}
		if i >= len(b) {
			d.attrs = attrs
			return d.needMore()
		}
		q := b[i]
		if q != '"' && q != '\'' {
			return d.tagErr(b, nameEnd, d.syntaxErr(d.lineAt(d.pos+i), "value of attribute %s of <%s> is not quoted", b[a.name:a.nameEnd], b[1:nameEnd]))
		}
		i++
		a.val = i
		j := bytes.IndexByte(b[i:], q)
		if j < 0 {
			if len(b)-i > d.maxToken {
				return d.syntaxErr(d.curLine(), "attribute value exceeds %d bytes (attribute %s of <%s>)", d.maxToken, b[a.name:a.nameEnd], b[1:nameEnd])
			}
			d.attrs = attrs
			return d.needMore()
		}
		if j > d.maxToken {
			return d.syntaxErr(d.curLine(), "attribute value exceeds %d bytes (attribute %s of <%s>)", d.maxToken, b[a.name:a.nameEnd], b[1:nameEnd])
		}
		a.valEnd = i + j
		for k := a.val; k < a.valEnd; k += 8 {
			chunk := b[k:min(k+8, a.valEnd)]
			if !anySpecial(chunk) {
				continue
			}
			for m, c := range chunk {
				if attrSpecial[c] == 0 {
					continue
				}
				switch {
				case c == '&':
					a.flags |= attrAmp
				case c == '\t' || c == '\n' || c == '\r':
					a.flags |= attrWS
				case c >= 0x80:
					a.flags |= attrNonASCII
				case c == '<':
					return d.syntaxErr(d.lineAt(d.pos+k+m), "'<' in the value of attribute %s of <%s>", b[a.name:a.nameEnd], b[1:nameEnd])
				default:
					return d.syntaxErr(d.lineAt(d.pos+k+m), "invalid character U+%04X in the value of attribute %s of <%s>", c, b[a.name:a.nameEnd], b[1:nameEnd])
				}
			}
		}
		i = a.valEnd + 1
		for _, o := range attrs {
			if bytes.Equal(b[o.name:o.nameEnd], b[a.name:a.nameEnd]) {
				return d.syntaxErr(d.lineAt(d.pos+a.name), "attribute %s repeated in <%s>", b[a.name:a.nameEnd], b[1:nameEnd])
			}
		}
		if len(attrs) == decMaxAttrs {
			return d.syntaxErr(d.curLine(), "more than %d attributes in <%s>", decMaxAttrs, b[1:nameEnd])
		}
		attrs = append(attrs, a)
	}
	d.attrs = attrs
	return d.element(b, nameEnd, colon, i, selfClose)
}

// tagErr turns a malformed root start tag of something that is not a Sitemap (an
// HTML page, say) into an unknown root instead of an error.
func (d *Decoder) tagErr(b []byte, nameEnd int, err error) error {
	if d.state != stProlog {
		return err
	}
	name := b[1:nameEnd]
	if k := bytes.LastIndexByte(name, ':'); k >= 0 {
		name = name[k+1:]
	}
	if string(name) == "urlset" || string(name) == "sitemapindex" {
		return err
	}
	d.hdr.Root = RootUnknown
	d.hdr.RootLocal = string(name)
	d.state = stDone
	return nil
}

// lookupNS resolves a prefix ("" for the default namespace).
func (d *Decoder) lookupNS(prefix []byte) (string, uint8, bool) {
	for k := len(d.ns) - 1; k >= 0; k-- {
		if d.ns[k].prefix == string(prefix) {
			return d.ns[k].uri, d.ns[k].kind, true
		}
	}
	if len(prefix) == 0 {
		return "", nsNone, true
	}
	if string(prefix) == "xml" {
		return NSXML, nsXML, true
	}
	return "", nsNone, false
}

func nsKindOf(uri string) uint8 {
	switch uri {
	case "":
		return nsNone
	case NSSitemap:
		return nsSitemap
	case NSRS:
		return nsRS
	case NSRSLegacy:
		return nsRSLegacy
	case NSXML:
		return nsXML
	}
	return nsOther
}

// internBytes returns b as a string, sharing one copy for repeated short values.
func (d *Decoder) internBytes(b []byte) string {
	if len(b) > decMaxInternLen {
		return string(b)
	}
	if s, ok := d.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	if d.intern == nil {
		d.intern = make(map[string]string, 64)
	}
	if len(d.intern) < decMaxInterned {
		d.intern[s] = s
	}
	return s
}

// qname returns the index in d.names of an element name as written.
func (d *Decoder) qname(b []byte) (int32, error) {
	h := (len(b)*7 + int(b[0])*3 + int(b[len(b)-1])) & (len(d.qslots) - 1)
	if q := d.qslots[h] - 1; q >= 0 && d.names[q] == string(b) {
		return q, nil
	}
	q, ok := d.nameIDs[string(b)]
	if !ok {
		if len(d.names) >= 1<<16 {
			return 0, d.syntaxErr(d.curLine(), "more than %d distinct element names", 1<<16)
		}
		if d.nameIDs == nil {
			d.nameIDs = make(map[string]int32)
		}
		q = int32(len(d.names))
		name := string(b)
		d.names = append(d.names, name)
		d.nameIDs[name] = q
	}
	d.qslots[h] = q + 1
	return q, nil
}

// attrValue returns the decoded value of a; the result is valid until the next
// call or window refill.
func (d *Decoder) attrValue(b []byte, a *rawAttr) ([]byte, error) {
	v := b[a.val:a.valEnd]
	if a.flags&^attrNonASCII == 0 {
		if a.flags != 0 && !utf8.Valid(v) {
			return nil, d.syntaxErr(d.lineAt(d.pos+a.val), "invalid UTF-8 in the value of attribute %s", b[a.name:a.nameEnd])
		}
		return v, nil
	}
	var err error
	d.scratch, err = d.appendDecoded(d.scratch[:0], v, true, d.lineAt(d.pos+a.val))
	return d.scratch, err
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// appendDecoded appends raw character data with references expanded; line is
// the line errors are reported on (-1: the current line, counted only then). In attribute
// values tab, newline and carriage return become spaces (XML attribute-value
// normalisation); in text, CR LF becomes LF.
func (d *Decoder) appendDecoded(dst, raw []byte, attr bool, line int) ([]byte, error) {
	clean := true
	for k := 0; k < len(raw); k += 8 {
		if anySpecial(raw[k:min(k+8, len(raw))]) {
			clean = false
			break
		}
	}
	if clean {
		return append(dst, raw...), nil
	}
	if line < 0 {
		line = d.curLine()
	}
	if !isASCII(raw) && !utf8.Valid(raw) {
		return dst, d.syntaxErr(line, "invalid UTF-8 in character data")
	}
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '&':
			j := bytes.IndexByte(raw[i:], ';')
			if j < 0 || j > 12 {
				return dst, d.syntaxErr(line, "'&' not followed by an entity or character reference (write &amp;)")
			}
			ref := raw[i+1 : i+j]
			var ok bool
			dst, ok = appendRef(dst, ref)
			if !ok {
				if len(ref) > 0 && ref[0] == '#' {
					return dst, d.syntaxErr(line, "invalid character reference &%s;", ref)
				}
				return dst, d.syntaxErr(line, "undefined entity &%s; (only &lt; &gt; &amp; &apos; &quot; are defined)", ref)
			}
			i += j + 1
		case c == '\r':
			if attr {
				dst = append(dst, ' ')
			} else {
				dst = append(dst, '\n')
			}
			if i+1 < len(raw) && raw[i+1] == '\n' {
				i++
			}
			i++
		case attr && (c == '\n' || c == '\t'):
			dst = append(dst, ' ')
			i++
		case c < 0x20 && c != '\n' && c != '\t':
			return dst, d.syntaxErr(line, "invalid character U+%04X", c)
		default:
			j := i + 1
			for j < len(raw) && raw[j] != '&' && raw[j] >= 0x20 {
				j++
			}
			dst = append(dst, raw[i:j]...)
			i = j
		}
	}
	return dst, nil
}

// appendRef expands a predefined entity or a character reference (without & and ;).
func appendRef(dst, ref []byte) ([]byte, bool) {
	switch string(ref) {
	case "lt":
		return append(dst, '<'), true
	case "gt":
		return append(dst, '>'), true
	case "amp":
		return append(dst, '&'), true
	case "apos":
		return append(dst, '\''), true
	case "quot":
		return append(dst, '"'), true
	}
	if len(ref) < 2 || ref[0] != '#' {
		return dst, false
	}
	var r int64
	digits := ref[1:]
	base := 10
	if digits[0] == 'x' {
		base = 16
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 8 {
		return dst, false
	}
	for _, c := range digits {
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case base == 16 && c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case base == 16 && c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			return dst, false
		}
		r = r*int64(base) + int64(v)
	}
	if !xmlChar(r) {
		return dst, false
	}
	return utf8.AppendRune(dst, rune(r)), true
}

// xmlChar reports whether r is a Char of XML 1.0.
func xmlChar(r int64) bool {
	return r == 0x9 || r == 0xA || r == 0xD || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// element processes a complete start tag b[0:end] (relative to pos).
func (d *Decoder) element(b []byte, nameEnd, colon, end int, selfClose bool) error {
	// Lines are counted only for the elements that record one: counting costs.
	line := 0
	nsMark := len(d.ns)
	depth := len(d.stack)
	if depth >= d.maxDepth {
		return d.syntaxErr(d.curLine(), "elements nested more than %d deep", d.maxDepth)
	}
	// Namespace declarations first: they apply to the element's own name.
	for k := range d.attrs {
		a := &d.attrs[k]
		name := b[a.name:a.nameEnd]
		var prefix string
		switch {
		case string(name) == "xmlns":
		case a.colon >= 0 && string(b[a.name:a.colon]) == "xmlns":
			prefix = d.internBytes(b[a.colon+1 : a.nameEnd])
		default:
			continue
		}
		v, err := d.attrValue(b, a)
		if err != nil {
			return err
		}
		uri := d.internBytes(bytes.TrimSpace(v))
		if prefix != "" && uri == "" {
			return d.syntaxErr(d.lineAt(d.pos+a.name), "namespace prefix %s bound to an empty URI", prefix)
		}
		if prefix == "xmlns" || (prefix == "xml") != (uri == NSXML) {
			return d.syntaxErr(d.lineAt(d.pos+a.name), "reserved namespace prefix or URI misused in xmlns:%s=%q", prefix, uri)
		}
		kind := nsKindOf(uri)
		d.ns = append(d.ns, nsBinding{prefix: prefix, uri: uri, kind: kind})
		if depth == 0 {
			d.hdr.Namespaces = append(d.hdr.Namespaces, Namespace{Prefix: prefix, URI: uri})
		}
		if kind == nsRSLegacy {
			d.legacy("namespace "+NSRSLegacy, d.lineAt(d.pos+a.name))
		}
	}
	var prefix, local []byte
	if colon >= 0 {
		prefix, local = b[1:colon], b[colon+1:nameEnd]
	} else {
		local = b[1:nameEnd]
	}
	uri, nsk, ok := d.lookupNS(prefix)
	if !ok {
		if depth == 0 {
			d.hdr.Root = RootUnknown
			d.hdr.RootLocal = string(local)
			d.state = stDone
			return nil
		}
		return d.syntaxErr(d.curLine(), "undeclared namespace prefix %q in <%s>", prefix, b[1:nameEnd])
	}
	// Attribute prefixes must be declared too.
	for k := range d.attrs {
		a := &d.attrs[k]
		if a.colon < 0 || string(b[a.name:a.colon]) == "xmlns" {
			continue
		}
		if _, _, ok := d.lookupNS(b[a.name:a.colon]); !ok {
			return d.syntaxErr(d.lineAt(d.pos+a.name), "undeclared namespace prefix %q in attribute %s of <%s>", b[a.name:a.colon], b[a.name:a.nameEnd], b[1:nameEnd])
		}
	}

	qname, err := d.qname(b[1:nameEnd])
	if err != nil {
		return err
	}
	kind := kIgnore
	sm := nsk == nsSitemap || nsk == nsNone || (nsk == nsOther && uri == d.altSitemapNS)
	rs := nsk == nsRS || nsk == nsRSLegacy
	if depth == 0 && nsk == nsOther && strings.Contains(strings.ToLower(uri), "sitemap") {
		// A variant Sitemap namespace (Google's early ones, a trailing slash …):
		// read the document, RootSpace tells the checker.
		d.altSitemapNS, sm = uri, true
	}
	if depth < 2 || (depth == 2 && d.capDepth < 0 && d.stack[1].kind == kEntry && !(sm && (string(local) == "loc" || string(local) == "lastmod" || string(local) == "changefreq"))) {
		line = d.curLine()
	}
	switch {
	case depth == 0:
		d.hdr.RootLocal = string(local)
		d.hdr.RootSpace = uri
		switch {
		case sm && string(local) == "urlset":
			d.hdr.Root = RootURLSet
		case sm && string(local) == "sitemapindex":
			d.hdr.Root = RootSitemapIndex
		default:
			d.hdr.Root = RootUnknown
			d.state = stDone
			d.consume(d.pos + end)
			return nil
		}
		d.state = stRoot
		kind = kRoot
	case d.capDepth >= 0:
		kind = kInner
	case depth == 1:
		entryName := "url"
		if d.hdr.Root == RootSitemapIndex {
			entryName = "sitemap"
		}
		switch {
		case sm && string(local) == entryName:
			kind = kEntry
			d.entryQ = qname
			*d.e = Entry{Index: d.nEntries, Line: line}
			d.entryText = d.entryText[:0]
			d.pendingMD = d.pendingMD[:0]
			d.locA, d.lastmodA = -1, -1
			d.entryOpen = true
		case rs && string(local) == "md":
			kind = kMD
			d.hdr.MDCount++
			if d.hdr.MDCount == 1 {
				err = d.fillMetadata(&d.hdr.MD, b, line, false)
			}
		case rs && string(local) == "ln":
			kind = kLN
			var ln Link
			err = d.fillLink(&ln, b, line)
			d.hdr.Links = append(d.hdr.Links, ln)
		default:
			kind = kCapture
			err = d.beginCapture(b, prefix, local, uri, line, false)
		}
	case depth == 2 && d.stack[1].kind == kEntry:
		e := d.e
		switch {
		case sm && string(local) == "loc":
			e.LocCount++
			e.HasLoc = true
			if e.LocCount == 1 {
				kind = kLoc
			}
		case sm && string(local) == "lastmod":
			if d.lastmodA < 0 {
				kind = kLastmod
			}
		case sm && string(local) == "changefreq":
			if e.Changefreq == "" {
				kind = kChangefreq
			}
		case rs && string(local) == "md":
			kind = kMD
			e.MDCount++
			if e.MDCount == 1 {
				err = d.fillMetadata(&e.MD, b, line, true)
			}
		case rs && string(local) == "ln":
			kind = kLN
			var ln Link
			err = d.fillLink(&ln, b, line)
			e.Links = append(e.Links, ln)
		default:
			kind = kCapture
			err = d.beginCapture(b, prefix, local, uri, line, true)
		}
	}
	if err != nil {
		return err
	}
	switch kind {
	case kLoc, kLastmod:
		d.rawText = d.rawText[:0]
		d.toEntry, d.textStart = true, len(d.entryText)
	case kChangefreq, kCapture:
		d.rawText = d.rawText[:0]
		d.text = d.text[:0]
		d.toEntry, d.textStart = false, 0
	}
	d.consume(d.pos + end)
	d.stack = append(d.stack, openElem{qname: qname, kind: kind, nsMark: int32(nsMark), line: line})
	if selfClose {
		return d.closeElement()
	}
	if kind == kLoc || kind == kLastmod || kind == kChangefreq {
		return d.leafText(qname)
	}
	return nil
}

// collecting reports whether the innermost element collects its text.
func (d *Decoder) collecting() bool {
	if len(d.stack) == 0 {
		return false
	}
	switch d.stack[len(d.stack)-1].kind {
	case kLoc, kLastmod, kChangefreq, kCapture:
		return true
	}
	return false
}

// leafText is the fast path for <loc>text</loc> and the like: when the text and
// the end tag are in the window, they are handled at once. Anything else (a
// comment, CDATA, a child, the window's end) is left to the general loop.
func (d *Decoder) leafText(qname int32) error {
	rest := d.buf[d.pos:d.end]
	k := bytes.IndexByte(rest, '<')
	name := d.names[qname]
	if k < 0 || k > d.maxToken || len(rest) < k+3+len(name) || rest[k+1] != '/' || string(rest[k+2:k+2+len(name)]) != name || rest[k+2+len(name)] != '>' {
		return nil
	}
	tgt := d.textTarget()
	var err error
	if *tgt, err = d.appendDecoded(*tgt, rest[:k], false, -1); err != nil {
		return err
	}
	d.pos += k + 3 + len(name)
	return d.closeElement()
}

func (d *Decoder) legacy(what string, line int) {
	entry := -1
	if d.entryOpen {
		entry = d.e.Index
	}
	if d.nLegacy >= decMaxLegacy {
		return
	}
	d.nLegacy++
	d.hdr.Legacy = append(d.hdr.Legacy, LegacyTrace{What: what, Line: line, Entry: entry})
}

// elementStrings decodes the values of the non-namespace attributes of the current
// start tag into one string (one allocation per element) and returns it with the
// offsets of each value: value k is s[offs[2k]:offs[2k+1]].
func (d *Decoder) elementStrings(b []byte) (string, []int, error) {
	d.strs = d.strs[:0]
	d.offs = d.offs[:0]
	for k := range d.attrs {
		a := &d.attrs[k]
		start := len(d.strs)
		if !isNSDecl(b, a) {
			v, err := d.attrValue(b, a)
			if err != nil {
				return "", nil, err
			}
			d.strs = append(d.strs, v...)
		}
		d.offs = append(d.offs, start, len(d.strs))
	}
	return string(d.strs), d.offs, nil
}

func isNSDecl(b []byte, a *rawAttr) bool {
	if a.colon >= 0 {
		return string(b[a.name:a.colon]) == "xmlns"
	}
	return string(b[a.name:a.nameEnd]) == "xmlns"
}

// extraAttr builds the verbatim record of attribute a.
func (d *Decoder) extraAttr(b []byte, a *rawAttr, value string) Attr {
	at := Attr{Value: value}
	if a.colon >= 0 {
		at.Prefix = d.internBytes(b[a.name:a.colon])
		at.Local = d.internBytes(b[a.colon+1 : a.nameEnd])
		at.Space, _, _ = d.lookupNS(b[a.name:a.colon])
	} else {
		at.Local = d.internBytes(b[a.name:a.nameEnd])
	}
	return at
}

func (d *Decoder) datetime(s string) Datetime {
	if s == "" {
		// Present but empty: keep a marker that the checker can see is invalid.
		return Datetime{}
	}
	dt, err := ParseDatetime(s)
	if err != nil {
		dt.OK = false
		if dt.Raw == "" {
			dt.Raw = s
		}
	}
	return dt
}

// parseLength reads a non-negative decimal integer (surrounding whitespace allowed).
func parseLength(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 19 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if n < 0 {
		return 0, false
	}
	return n, true
}

func capabilityOf(v string) Capability {
	switch Capability(v) {
	case CapDescription:
		return CapDescription
	case CapCapabilityList:
		return CapCapabilityList
	case CapResourceList:
		return CapResourceList
	case CapResourceDump:
		return CapResourceDump
	case CapResourceDumpManifest:
		return CapResourceDumpManifest
	case CapChangeList:
		return CapChangeList
	case CapChangeDump:
		return CapChangeDump
	case CapChangeDumpManifest:
		return CapChangeDumpManifest
	case CapChangeNotification:
		return CapChangeNotification
	case CapFrameworkNotification:
		return CapFrameworkNotification
	}
	return Capability(v)
}

func changeOf(v string) Change {
	switch Change(v) {
	case ChangeCreated:
		return ChangeCreated
	case ChangeUpdated:
		return ChangeUpdated
	case ChangeDeleted:
		return ChangeDeleted
	}
	return Change(v)
}

// Metadata attributes, as classified by mdField.
const (
	mfExtra uint8 = iota
	mfCapability
	mfChange
	mfAt
	mfCompleted
	mfFrom
	mfUntil
	mfDatetime
	mfHash
	mfLength
	mfType
	mfEncoding
	mfPath
)

// mdField classifies an attribute of <rs:md>; legacy ones are reported.
func (d *Decoder) mdField(b []byte, a *rawAttr) uint8 {
	if a.colon >= 0 {
		return mfExtra
	}
	switch string(b[a.name:a.nameEnd]) {
	case "capability":
		return mfCapability
	case "change":
		return mfChange
	case "at":
		return mfAt
	case "completed":
		return mfCompleted
	case "from":
		return mfFrom
	case "until":
		return mfUntil
	case "datetime":
		return mfDatetime
	case "hash":
		return mfHash
	case "length":
		return mfLength
	case "type":
		return mfType
	case "encoding":
		return mfEncoding
	case "path":
		return mfPath
	case "modified", "etag":
		d.legacy("attribute "+string(b[a.name:a.nameEnd]), d.lineAt(d.pos+a.name))
	}
	return mfExtra
}

// setMDField sets one attribute of md; extra is the index in md.Extra of an
// extra attribute whose value is v.
func (d *Decoder) setMDField(md *Metadata, field uint8, v string, extra int) {
	switch field {
	case mfCapability:
		md.Capability = capabilityOf(v)
	case mfChange:
		md.Change = changeOf(v)
	case mfAt:
		md.At = d.datetime(v)
	case mfCompleted:
		md.Completed = d.datetime(v)
	case mfFrom:
		md.From = d.datetime(v)
	case mfUntil:
		md.Until = d.datetime(v)
	case mfDatetime:
		md.Datetime = d.datetime(v)
	case mfHash:
		md.HashRaw = v
		md.Hash = d.parseHashAttr(v)
	case mfLength:
		md.LengthRaw = v
		md.Length, md.LengthOK = parseLength(v)
	case mfType:
		md.Type = v
	case mfEncoding:
		md.Encoding = v
	case mfPath:
		md.Path = v
		md.HasPath = true
	case mfExtra:
		md.Extra[extra].Value = v
	}
}

// pendingMD is an attribute of an entry's <rs:md> whose value waits in
// entryText for the entry's one string.
type pendingMD struct {
	field uint8
	a, b  int
	extra int
}

// fillMetadata reads the attributes of an <rs:md> start tag. In an entry
// (deferred), the values are set when the entry ends, sharing its one string.
func (d *Decoder) fillMetadata(md *Metadata, b []byte, line int, deferred bool) error {
	if deferred {
		// The entry was zeroed when it started.
		md.Present, md.Line = true, line
	} else {
		*md = Metadata{Present: true, Line: line}
	}
	var s string
	var offs []int
	if !deferred {
		var err error
		if s, offs, err = d.elementStrings(b); err != nil {
			return err
		}
	}
	for k := range d.attrs {
		a := &d.attrs[k]
		if isNSDecl(b, a) {
			continue
		}
		field := d.mdField(b, a)
		extra := -1
		if field == mfExtra {
			extra = len(md.Extra)
			md.Extra = append(md.Extra, d.extraAttr(b, a, ""))
		}
		if !deferred {
			d.setMDField(md, field, s[offs[2*k]:offs[2*k+1]], extra)
			continue
		}
		v, err := d.attrValue(b, a)
		if err != nil {
			return err
		}
		p := pendingMD{field: field, a: len(d.entryText), extra: extra}
		d.entryText = append(d.entryText, v...)
		p.b = len(d.entryText)
		d.pendingMD = append(d.pendingMD, p)
	}
	return nil
}

// fillLink reads the attributes of an <rs:ln> start tag.
func (d *Decoder) fillLink(ln *Link, b []byte, line int) error {
	*ln = Link{Line: line}
	s, offs, err := d.elementStrings(b)
	if err != nil {
		return err
	}
	for k := range d.attrs {
		a := &d.attrs[k]
		if isNSDecl(b, a) {
			continue
		}
		v := s[offs[2*k]:offs[2*k+1]]
		if a.colon >= 0 {
			ln.Extra = append(ln.Extra, d.extraAttr(b, a, v))
			continue
		}
		switch string(b[a.name:a.nameEnd]) {
		case "rel":
			ln.Rel = v
			ln.HasRel = true
		case "href":
			ln.Href = strings.TrimSpace(v)
			ln.HasHref = true
		case "pri":
			ln.PriRaw = v
			if n, ok := parseLength(v); ok && n <= 1<<31-1 {
				ln.Pri, ln.PriOK = int(n), true
			}
		case "type":
			ln.Type = v
		case "encoding":
			ln.Encoding = v
		case "path":
			ln.Path = v
			ln.HasPath = true
		case "length":
			ln.LengthRaw = v
			ln.Length, ln.LengthOK = parseLength(v)
		case "hash":
			ln.HashRaw = v
			ln.Hash = d.parseHashAttr(v)
		case "modified":
			ln.Modified = d.datetime(v)
		case "etag":
			ln.Extra = append(ln.Extra, d.extraAttr(b, a, v))
			d.legacy("attribute etag", d.lineAt(d.pos+a.name))
		default:
			ln.Extra = append(ln.Extra, d.extraAttr(b, a, v))
		}
	}
	return nil
}

// beginCapture starts keeping an element verbatim.
func (d *Decoder) beginCapture(b, prefix, local []byte, uri string, line int, inEntry bool) error {
	el := Element{Space: uri, Prefix: d.internBytes(prefix), Local: d.internBytes(local), Line: line}
	s, offs, err := d.elementStrings(b)
	if err != nil {
		return err
	}
	for k := range d.attrs {
		a := &d.attrs[k]
		if isNSDecl(b, a) {
			continue
		}
		el.Attrs = append(el.Attrs, d.extraAttr(b, a, s[offs[2*k]:offs[2*k+1]]))
	}
	if nsk := nsKindOf(uri); (nsk == nsRS || nsk == nsRSLegacy) && (el.Local == "fixity" || el.Local == "size") {
		d.legacy("element rs:"+el.Local, line)
	}
	d.capDepth = len(d.stack)
	d.capElem = el
	d.capInner = d.capInner[:0]
	d.capEntry = inEntry
	return nil
}

// finishEntryText sets the entry's fields that come from character data.
func (d *Decoder) finishEntryText() {
	if d.locA < 0 && d.lastmodA < 0 && len(d.pendingMD) == 0 {
		return
	}
	s := d.slabString(d.entryText)
	if d.locA >= 0 {
		raw := s[d.locA:d.locB]
		d.e.Loc = strings.TrimSpace(raw)
		if len(d.e.Loc) != len(raw) {
			d.e.LocRaw = raw
		}
	}
	if d.lastmodA >= 0 {
		if raw := strings.TrimSpace(s[d.lastmodA:d.lastmodB]); raw != "" {
			d.e.Lastmod = d.datetime(raw)
		}
	}
	for _, p := range d.pendingMD {
		d.setMDField(&d.e.MD, p.field, s[p.a:p.b], p.extra)
	}
}

// slabString returns b as a string stored in the decoder's slab. The slab's bytes
// are never written again once a string refers to them, which is what makes the
// unsafe.String conversion sound; an old slab lives as long as any of its strings.
func (d *Decoder) slabString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > decSlabSize/8 {
		return string(b)
	}
	if cap(d.slab)-len(d.slab) < len(b) {
		d.slab = make([]byte, 0, decSlabSize)
	}
	off := len(d.slab)
	d.slab = append(d.slab, b...)
	return unsafe.String(&d.slab[off], len(b))
}

// openedOn describes where the open element k started, for error messages.
func (d *Decoder) openedOn(k int) string {
	if d.stack[k].line > 0 {
		return "opened on line " + strconv.Itoa(d.stack[k].line)
	}
	for j := k - 1; j >= 0; j-- {
		if d.stack[j].line > 0 {
			return "opened after line " + strconv.Itoa(d.stack[j].line)
		}
	}
	return "opened earlier"
}

// endTag scans and processes an end tag.
func (d *Decoder) endTag() error {
	b := d.buf[d.pos:d.end]
	i, colon := scanName(b, 2)
	if i == len(b) {
		if i > d.maxToken {
			return d.syntaxErr(d.curLine(), "element name exceeds %d bytes", d.maxToken)
		}
		return d.needMore()
	}
	name := b[2:i]
	// A name equal to the open element's was checked in its start tag.
	if len(d.stack) == 0 || d.names[d.stack[len(d.stack)-1].qname] != string(name) {
		if !nameOK(b, 2, i, colon) {
			return d.nameErr(b, 2, i, "an end tag")
		}
	}
	for i < len(b) && decIsSpace(b[i]) {
		i++
	}
	if i == len(b) {
		return d.needMore()
	}
	if b[i] != '>' {
		return d.syntaxErr(d.lineAt(d.pos+i), "expected '>' to end </%s>", name)
	}
	if len(d.stack) == 0 {
		return d.syntaxErr(d.curLine(), "end tag </%s> without a matching start tag", name)
	}
	top := d.stack[len(d.stack)-1]
	if d.names[top.qname] != string(name) {
		return d.syntaxErr(d.curLine(), "end tag </%s> does not match <%s> %s", name, d.names[top.qname], d.openedOn(len(d.stack)-1))
	}
	if d.capDepth >= 0 && len(d.stack)-1 == d.capDepth {
		// The end tag of the captured element is not part of its inner XML.
		d.pos += i + 1
	} else {
		d.consume(d.pos + i + 1)
	}
	return d.closeElement()
}

// closeElement pops the innermost element and finishes what it carried.
func (d *Decoder) closeElement() error {
	top := d.stack[len(d.stack)-1]
	d.stack = d.stack[:len(d.stack)-1]
	d.ns = d.ns[:top.nsMark]
	switch top.kind {
	case kRoot:
		d.state = stEpilog
	case kEntry:
		d.finishEntryText()
		d.entryOpen = false
		d.entryReady = true
		d.nEntries++
	case kLoc:
		if err := d.flushText(); err != nil {
			return err
		}
		d.locA, d.locB = d.textStart, len(d.entryText)
	case kLastmod:
		if err := d.flushText(); err != nil {
			return err
		}
		d.lastmodA, d.lastmodB = d.textStart, len(d.entryText)
	case kChangefreq:
		if err := d.flushText(); err != nil {
			return err
		}
		d.e.Changefreq = d.internBytes(bytes.TrimSpace(d.text))
	case kCapture:
		if err := d.flushText(); err != nil {
			return err
		}
		el := d.capElem
		el.Text = strings.TrimSpace(string(d.text))
		if len(d.capInner) > 0 {
			el.Inner = string(d.capInner)
		}
		if d.capEntry {
			d.e.Extra = append(d.e.Extra, el)
		} else {
			d.hdr.Extra = append(d.hdr.Extra, el)
		}
		d.capDepth = -1
		d.capElem = Element{}
	}
	return nil
}
