package model

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// The decoder is a hand-written byte scanner rather than encoding/xml: validating a
// 50,000-entry Resource List must cost a small fraction of what encoding/xml takes
// (see BENCHMARKS.md). It reads through one window buffer; every markup item (a tag,
// comment, CDATA section …) is scanned in place and, when it straddles the end of
// the window, rescanned from its start after the window is refilled. Items are
// bounded by DecoderOptions.MaxTokenBytes, so the window is too.
//
// Files: decode.go (API, the scanning loop), decode_input.go (window refills,
// byte-order marks, encodings), decode_scan.go (tags, text, comments,
// CDATA, DOCTYPE), decode_chars.go (references, normalisation),
// decode_element.go (namespaces, names, what each element means),
// decode_fields.go (attribute values made into fields), decode_arena.go (the
// memory of entries' strings), decode_hold.go (what an entry holds, and hands
// over), decode_hash.go (the hash fast path), decode_parallel.go (decoding
// blocks on all CPUs).

// DecoderOptions bounds the resources a Decoder may spend on one document.
// The zero value gives the defaults.
type DecoderOptions struct {
	// MaxBytes bounds the decompressed bytes read (a *SizeLimitError past
	// it); 0 = default 1 GiB, negative: no bound (for a caller whose reader
	// is bounded already and says so in its own error).
	MaxBytes      int64
	MaxTokenBytes int // max size of one attribute value, text node or name; 0 = default 4 MiB
	MaxDepth      int // max element nesting; 0 = default 256

	// Parallel is the number of goroutines that decode the entries of a large
	// document (more than one block, see decode_parallel.go) concurrently; 0 or 1
	// decodes in the caller's goroutine. The results are those of sequential
	// decoding. A caller that stops calling Next before io.EOF or an error must
	// call Close.
	Parallel int

	// Reuse lets Next reuse the memory of the entries it returned before:
	// an Entry's strings, hash lists, Links and Extra are then valid only
	// until the next call to Next (copy what must outlive it). A document is
	// then decoded with almost no allocation per entry.
	Reuse bool

	blockSize int // bytes per parallel block; 0 = parDefaultBlock (tests set it)
}

const (
	defaultMaxBytes      = 1 << 30
	defaultMaxTokenBytes = 4 << 20
	defaultMaxDepth      = 256

	decInitialBuf   = 64 << 10
	decMaxAttrs     = 256  // attributes on one element
	decMaxInner     = 4096 // bytes of Element.Inner kept
	decMaxLegacy    = 1000 // LegacyTrace records kept per document
	decMaxInterned  = 4096 // distinct short strings interned per decoder
	decMaxInternLen = 64
)

// SyntaxError reports input that is not a well-formed (namespace-well-formed)
// XML document, or that breaks one of the Decoder's limits.
type SyntaxError struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return "line " + strconv.Itoa(e.Line) + ": " + e.Msg }

// SizeLimitError reports a document longer than DecoderOptions.MaxBytes: the
// decoder stopped there. It is not a SyntaxError: what was read may be
// well-formed, the rest was not looked at.
type SizeLimitError struct {
	Limit int64 // the bound, in decompressed bytes
	Line  int   // the line reading stopped at
}

func (e *SizeLimitError) Error() string {
	return "the size limit was reached: the document is larger than " + strconv.FormatInt(e.Limit, 10) + " bytes, the decoder's limit"
}

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
// Input is XML in any encoding its byte-order mark or XML declaration names;
// UTF-8 is read in place, others are transcoded. Compressed input is undone
// by its source (fetch.Open recognises gzip): a read error of the source that
// says the compressed data is corrupt (compress/gzip's ErrHeader and
// ErrChecksum, compress/flate's CorruptInputError) or cut short
// (io.ErrUnexpectedEOF) is malformed input, a *SyntaxError. Only the five predefined entities and character references are
// expanded: a DOCTYPE that declares entities is refused. Malformed input gives a
// *SyntaxError with the line; DecoderOptions bounds memory and nesting.
//
// Every Entry it returns is independent of the Decoder: nothing in it is
// rewritten later, so callers may keep entries (and copies of them) as they are
// (unless DecoderOptions.Reuse says otherwise). Strings and hash lists of
// entries are carved out of shared chunks of a few tens of KiB (see arena), so
// a kept entry keeps its chunk alive. A Decoder is not safe for
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

	// Entries' strings and hash lists are carved out of arenas: ent for the
	// entry's own fields, lnk for its links and extra elements (rewound when
	// they are handed over). Without reuse both are arenas[0].
	ent, lnk *arena
	arenas   [2]arena
	reuse    bool

	// spill, when set, is given the links and extra elements of an entry
	// (e non-nil) or of the document as they reach decMaxHeld (see handOver).
	spill      func(e *Entry, h *Header, links []Link, extra []Element)
	bailAtHeld bool // a block decoder whose Decoder has a spill function

	altSitemapNS string // the root's namespace when it is a variant of the Sitemap one

	intern  map[string]string
	names   []string         // element names as written, by openElem.qname
	nameIDs map[string]int32 // index of names
	qslots  [64]int32        // small hash of names: index in names + 1, 0 when empty
	nLegacy int

	eofRetried bool // the item at the end of the input was scanned again
	rawLine    int  // line where rawText starts

	entryQ int32 // name as written of the last entry element, by index in names
	block  bool  // a block decoder of the parallel path (decode_parallel.go)
	// eFresh says the Entry the next entry is decoded into was never touched
	// (memory fresh from the kernel): startEntry must then write it before
	// reading it, as a first read maps the shared zero page and the write
	// that follows becomes a copy-on-write fault, which flushes the TLB of
	// every core running the process (an IPI; on a VM about 9 µs a page).
	eFresh bool
	par    *parDecoder // the parallel path, nil when sequential
	shape  *entryShape // a block decoder's entry fast path (decode_fast.go), nil when off
	nFast  int         // entries the fast path decoded (for tests)
	pre    *preCheck   // what block decoders compute for the checker (check_pre.go), nil when nothing
}

// NewDecoder returns a Decoder reading the XML document r (in any encoding its
// XML declaration names; gzip is undone by the source, see Decoder).
func NewDecoder(r io.Reader, opts DecoderOptions) *Decoder {
	d := &Decoder{in: r, maxBytes: opts.MaxBytes, maxToken: opts.MaxTokenBytes, maxDepth: opts.MaxDepth, capDepth: -1, lineN: 1}
	d.e = &d.first
	d.reuse = opts.Reuse
	d.ent, d.lnk = &d.arenas[0], &d.arenas[0]
	if d.reuse {
		d.arenas[0].reuse, d.arenas[1].reuse = true, true
		d.lnk = &d.arenas[1]
	}
	switch {
	case d.maxBytes < 0:
		d.maxBytes = math.MaxInt64
	case d.maxBytes == 0:
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
				if d.shape != nil && len(d.stack) == 1 && d.fastEntry() {
					continue
				}
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
