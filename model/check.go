package model

import (
	"errors"
	"hash/maphash"
	"io"
	"runtime"
	"sort"
	"strconv"
	"time"
)

// The conformance checker. It is streaming: Begin with the header, Entry for each
// entry as it is decoded, End with the completed header. Memory does not grow
// with the number of entries except for the duplicate-detection sets (8 bytes
// and an index per entry, capped at chkMaxTracked entries) and the stored
// problems (capped by CheckOptions.MaxProblems; the counts stay exact).
//
// A clean entry costs a few comparisons: no regexp, no fmt, no allocation beyond
// the amortised growth of the duplicate sets. Messages are built only on the
// problem path.
//
// Files: check.go (API, problem store, Validate), check_kind.go (document types and
// what Table 4 allows them), check_entry.go (entry rules), check_document.go
// (document-level rules), check_values.go (value syntax helpers), rules.go (the
// catalogue).

// CheckOptions configure a Checker. The zero value gives the defaults.
type CheckOptions struct {
	// MaxProblems is the number of problems stored per document (default 10000),
	// for document-level problems and for entries' problems each (a
	// malformed-XML problem is always stored); Counts stay exact.
	MaxProblems int
	// Capability is used to judge entries when the document does not say what it
	// is (e.g. the manifest.xml of a package, known to be a manifest).
	Capability Capability
	// BaseURL is the document's URL, used to explain relative <loc> values.
	BaseURL string
	// Hints also reports the rules of severity SeverityHint: what the
	// standard leaves free but is worth a look. They are counted in neither
	// Counts figure.
	Hints bool
}

const (
	defaultMaxProblems = 10000
	chkMaxTracked      = 1 << 20 // entries remembered for duplicate detection
	chkMaxShown        = 200     // bytes of a value quoted in a message
)

// Checker checks one document against the rules of Rules(). Use a new Checker
// (or call Begin again) per document.
type Checker struct {
	opts CheckOptions

	h      *Header
	kind   chkKind
	active bool // the root is a Sitemap root: entries are checked
	began  bool
	ended  bool

	doc     []Problem // document-level problems, always stored
	entry   []Problem // entry problems, in entry order, up to MaxProblems
	nErr    int
	nWarn   int
	entries int

	// document values entries are judged against
	from, until, atEnd Datetime

	// ordering
	prevOK   bool
	prevTime time.Time
	prevRaw  []byte // a copy: entries' strings may be reused (DecoderOptions.Reuse)
	prevIdx  int

	// Change List Index: the latest entry without until (it must be the last one)
	openIdx  int
	openLoc  string
	openLine int

	// Capability List: capabilities seen
	caps []chkCapSeen

	// duplicates
	seed  maphash.Seed
	locs  *chkSet
	paths *chkSet

	// document-level links seen (also those handed over before End)
	ups         int
	describedby bool
	early       bool // document-level items were handed over before Begin

	// 1.0-style Change Lists
	nDatetime, nLastmod int

	goodTypes [8]string // type attributes found valid (see mediaType)

	// Resource and Change Dumps: the first package's type
	dumpType    string
	dumpTypeIdx int
	nGood       int
	notZip      bool // dump-package-format was reported (once a document)

	// Capability List: the first notification channel advertised
	channelLoc string
	channelCap Capability
	channelIdx int

	// the links of the entry being checked, also those handed over before
	// Entry (see entryLinks)
	entDescribedby bool
	entVia         int
}

type chkCapSeen struct {
	c   Capability
	idx int
}

// NewChecker returns a Checker ready for Begin.
func NewChecker(opts CheckOptions) *Checker {
	if opts.MaxProblems <= 0 {
		opts.MaxProblems = defaultMaxProblems
	}
	return &Checker{opts: opts}
}

// Counts returns the number of errors and warnings found (all of them, stored or not).
func (c *Checker) Counts() (errors, warnings int) { return c.nErr, c.nWarn }

// Entries returns the number of entries seen.
func (c *Checker) Entries() int { return c.entries }

// Title names the document being checked as DocumentTitle does ("Change List
// Index", "Sitemap", "Document").
func (c *Checker) Title() string {
	if c.h == nil {
		return DocumentTitle("", RootUnknown)
	}
	return DocumentTitle(c.h.MD.Capability, c.h.Root)
}

// Problems returns the stored problems: document-level ones first, then by entry.
func (c *Checker) Problems() []Problem {
	out := make([]Problem, 0, len(c.doc)+len(c.entry))
	out = append(out, c.doc...)
	out = append(out, c.entry...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Entry < out[j].Entry })
	return out
}

// flag counts a problem and, when it is to be stored, returns it for the caller to
// fill in its Message (with msg). A nil result means: counted, not stored.
func (c *Checker) flag(id ruleID, entry, line int, section string) *Problem {
	r := &ruleTable[id]
	switch r.Severity {
	case SeverityError:
		c.nErr++
	case SeverityWarning:
		c.nWarn++
	default:
		if !c.opts.Hints {
			return nil
		}
	}
	if section == "" {
		section = r.Section
	}
	p := Problem{Severity: r.Severity, Rule: r.ID, Section: section, Entry: entry, Line: line}
	if entry < 0 {
		if len(c.doc) >= c.opts.MaxProblems && id != rXMLMalformed {
			return nil
		}
		c.doc = append(c.doc, p)
		return &c.doc[len(c.doc)-1]
	}
	if len(c.entry) >= c.opts.MaxProblems {
		return nil
	}
	c.entry = append(c.entry, p)
	return &c.entry[len(c.entry)-1]
}

// report counts and stores a problem with its message (for callers whose message
// is cheap or that are off the hot path).
func (c *Checker) report(id ruleID, entry, line int, section, msg string) {
	if p := c.flag(id, entry, line, section); p != nil {
		p.Message = msg + " (§" + p.Section + ")"
	}
}

// Begin starts a document. h may be completed later (elements after the entries)
// and is passed again to End.
func (c *Checker) Begin(h *Header) {
	early := c.keepEarly()
	*c = Checker{opts: c.opts}
	c.restoreEarly(early)
	c.began = true
	c.h = h
	c.openIdx = -1
	if h == nil {
		return
	}
	if h.Root == RootUnknown {
		return
	}
	c.active = true
	capb := h.MD.Capability
	if capb == "" {
		capb = c.opts.Capability
	}
	c.kind = chkKindOf(capb, h.Root)
	c.from, c.until = h.MD.From, h.MD.Until
	c.atEnd = h.MD.Completed
	if !c.atEnd.OK {
		c.atEnd = h.MD.At
	}
	if c.kind.uniqueLocs() {
		c.seed = maphash.MakeSeed()
		c.locs = newChkSet()
	}
	if c.kind.manifest() {
		c.seed = maphash.MakeSeed()
		c.paths = newChkSet()
	}
}

// CheckDocument checks a document held in memory.
func CheckDocument(d *Document) []Problem {
	if d == nil {
		return nil
	}
	c := NewChecker(CheckOptions{})
	c.Begin(&d.Header)
	for i := range d.Entries {
		c.Entry(&d.Entries[i])
	}
	c.End(&d.Header, d.Bytes)
	return c.Problems()
}

// Report is the outcome of validating one document.
type Report struct {
	Header   *Header
	Title    string // type of document (DocumentTitle), e.g. "Change List Index"
	Entries  int
	Bytes    int64
	Problems []Problem // stored problems, document-level first, then by entry
	Errors   int       // exact counts, stored or not
	Warnings int
	// Err is the syntax or read error that stopped parsing, if any. It is also
	// reported as an error Problem with rule "xml-malformed".
	Err error
}

// Validate decodes r as a stream and checks it, keeping no entries: the
// decoder reuses each entry's memory for the next (DecoderOptions.Reuse) and
// hands over the links and extra elements of an entry, or of the document,
// that has hundreds of them, so memory does not grow with the document
// whatever its shape. A large document is decoded on all CPUs
// (DecoderOptions.Parallel), which gives what sequential decoding gives.
func Validate(r io.Reader, opts CheckOptions) *Report {
	return ValidateWith(r, opts, DecoderOptions{Parallel: runtime.GOMAXPROCS(0)})
}

// ValidateWith is Validate with the decoder's limits and parallelism given by
// dopts (Reuse is always on): a source that decompresses on a goroutine of its
// own, for instance, leaves a core to it with one goroutine fewer.
func ValidateWith(r io.Reader, opts CheckOptions, dopts DecoderOptions) *Report {
	dopts.Reuse = true
	return validate(r, opts, dopts)
}

func validate(r io.Reader, opts CheckOptions, dopts DecoderOptions) *Report {
	dec := NewDecoder(r, dopts)
	defer dec.Close()
	c := NewChecker(opts)
	if dopts.Reuse {
		dec.HandOver(c)
	}
	rep := &Report{}
	h, err := dec.Header()
	rep.Header = h
	if err == nil {
		c.Begin(h)
		dec.precheck(c)
		err = checkEntries(dec, c, dopts.Reuse || dopts.Parallel > 1)
		if err == io.EOF {
			err = nil
		}
	}
	if err != nil {
		rep.Err = err
		c.Abort(h, dec.BytesRead(), err)
	} else {
		c.End(h, dec.BytesRead())
	}
	rep.Title = "Document"
	if h != nil {
		rep.Title = DocumentTitle(h.MD.Capability, h.Root)
	}
	rep.Entries = c.entries
	rep.Bytes = dec.BytesRead()
	rep.Problems = c.Problems()
	rep.Errors, rep.Warnings = c.Counts()
	return rep
}

// Abort ends a document that could not be read to its end: err (a *SyntaxError or
// a read error) becomes an "xml-malformed" error problem, and the document-level
// rules run on what h holds, except those about something missing (it may have
// come later). Use it instead of End when decoding fails; before Begin, only the
// error is reported.
func (c *Checker) Abort(h *Header, bytes int64, err error) {
	if c.ended {
		return
	}
	began := c.began
	if !began {
		c.Begin(&Header{Root: RootUnknown})
	}
	line := 0
	var se *SyntaxError
	if errors.As(err, &se) {
		line = se.Line
	}
	c.report(rXMLMalformed, -1, line, "", chkMalformedMessage(err))
	if began && h != nil && h.Root != RootUnknown && c.active {
		c.end(h, bytes, false)
	} else {
		c.ended = true
	}
}

// checkEntries feeds the decoder's entries to the checker until Next fails (io.EOF
// at the end). Unless inline, with more than one CPU the decoder runs in a
// goroutine of its own and hands over batches of entries, so that checking
// overlaps decoding; the batches are recycled, so memory stays bounded (3 ×
// chkBatch entries). Inline (a decoder that reuses entries, or decodes on
// several goroutines of its own) it is a plain loop.
func checkEntries(dec *Decoder, c *Checker, inline bool) error {
	if inline || runtime.GOMAXPROCS(0) < 2 {
		var buf Entry
		next := func() (*Entry, error) { return &buf, dec.Next(&buf) }
		if dec.reuse {
			next = func() (*Entry, error) { return dec.nextShared(&buf) }
		}
		for {
			e, err := next()
			if err != nil {
				return err
			}
			if b := dec.blockPre(); b != nil && c.locs != nil && c.active {
				c.locs.touch(b)
			}
			c.checkEntry(e, dec.lastPre())
		}
	}
	const chkBatch = 128
	type batch struct {
		entries []Entry
		err     error
	}
	free := make(chan []Entry, 3)
	full := make(chan batch, 3)
	for i := 0; i < cap(free); i++ {
		free <- make([]Entry, chkBatch)
	}
	go func() {
		defer close(full)
		for buf := range free {
			n := 0
			var err error
			for n < len(buf) {
				if err = dec.Next(&buf[n]); err != nil {
					break
				}
				n++
			}
			full <- batch{buf[:n], err}
			if err != nil {
				return
			}
		}
	}()
	var err error
	for b := range full {
		for i := range b.entries {
			c.Entry(&b.entries[i])
		}
		if b.err != nil {
			err = b.err
			continue
		}
		free <- b.entries[:chkBatch]
	}
	return err
}

func chkMalformedMessage(err error) string {
	var se *SyntaxError
	if errors.As(err, &se) {
		return "not well-formed XML at line " + strconv.Itoa(se.Line) + ": " + se.Msg
	}
	return "could not read the document to its end: " + err.Error()
}
