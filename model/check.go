package model

import (
	"errors"
	"hash/maphash"
	"io"
	"net/url"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The conformance checker. It is streaming: Begin with the header, Entry for each
// entry as it is decoded, End with the completed header. Memory does not grow
// with the number of entries except for the duplicate-detection sets (8 bytes
// and an index per entry, capped at chkMaxTracked entries) and the stored
// problems (capped by CheckOptions.MaxProblems; the counts stay exact).
//
// A clean entry costs a few comparisons: no regexp, no fmt, no allocation beyond
// the amortised growth of the duplicate sets. Messages are built only for
// problems that are stored.

// CheckOptions configure a Checker. The zero value gives the defaults.
type CheckOptions struct {
	// MaxProblems is the number of problems stored per document (default 10000).
	// Document-level problems are always stored; Counts stay exact.
	MaxProblems int
	// Capability is used to judge entries when the document does not say what it
	// is (e.g. the manifest.xml of a package, known to be a manifest).
	Capability Capability
	// BaseURL is the document's URL, used to explain relative <loc> values.
	BaseURL string
}

const (
	defaultMaxProblems = 10000
	chkMaxTracked      = 1 << 20 // entries remembered for duplicate detection
	chkMaxShown        = 200     // bytes of a value quoted in a message
)

// chkKind is the type of document, from its capability and root element.
type chkKind uint8

const (
	kUnknownDoc chkKind = iota
	kDescription
	kDescriptionIndex
	kCapabilityList
	kCapabilityListIndex
	kResourceList
	kResourceListIndex
	kResourceDump
	kResourceDumpIndex
	kResourceDumpManifest
	kChangeList
	kChangeListIndex
	kChangeDump
	kChangeDumpIndex
	kChangeDumpManifest
)

func chkKindOf(c Capability, root RootKind) chkKind {
	idx := root == RootSitemapIndex
	pick := func(single, index chkKind) chkKind {
		if idx {
			return index
		}
		return single
	}
	switch c {
	case CapDescription:
		return pick(kDescription, kDescriptionIndex)
	case CapCapabilityList:
		return pick(kCapabilityList, kCapabilityListIndex)
	case CapResourceList:
		return pick(kResourceList, kResourceListIndex)
	case CapResourceDump:
		return pick(kResourceDump, kResourceDumpIndex)
	case CapResourceDumpManifest:
		return kResourceDumpManifest
	case CapChangeList:
		return pick(kChangeList, kChangeListIndex)
	case CapChangeDump:
		return pick(kChangeDump, kChangeDumpIndex)
	case CapChangeDumpManifest:
		return kChangeDumpManifest
	}
	return kUnknownDoc
}

// title and section of each kind of document.
func (k chkKind) title() string {
	switch k {
	case kDescription:
		return "Source Description"
	case kDescriptionIndex:
		return "Source Description Index"
	case kCapabilityList:
		return "Capability List"
	case kCapabilityListIndex:
		return "Capability List Index"
	case kResourceList:
		return "Resource List"
	case kResourceListIndex:
		return "Resource List Index"
	case kResourceDump:
		return "Resource Dump"
	case kResourceDumpIndex:
		return "Resource Dump Index"
	case kResourceDumpManifest:
		return "Resource Dump Manifest"
	case kChangeList:
		return "Change List"
	case kChangeListIndex:
		return "Change List Index"
	case kChangeDump:
		return "Change Dump"
	case kChangeDumpIndex:
		return "Change Dump Index"
	case kChangeDumpManifest:
		return "Change Dump Manifest"
	}
	return "document"
}

func (k chkKind) section() string {
	switch k {
	case kDescription, kDescriptionIndex:
		return "8"
	case kCapabilityList, kCapabilityListIndex:
		return "9"
	case kResourceList:
		return "10.1"
	case kResourceListIndex:
		return "10.2"
	case kResourceDump, kResourceDumpIndex:
		return "11.1"
	case kResourceDumpManifest:
		return "11.2"
	case kChangeList:
		return "12.1"
	case kChangeListIndex:
		return "12.2"
	case kChangeDump, kChangeDumpIndex:
		return "13.1"
	case kChangeDumpManifest:
		return "13.2"
	}
	return "7"
}

// snapshot documents carry at/completed; change documents from/until (Table 4).
func (k chkKind) snapshot() bool {
	return k >= kResourceList && k <= kResourceDumpManifest
}

func (k chkKind) change() bool { return k >= kChangeList && k <= kChangeDumpManifest }

// entryAt: Table 4 lets entries carry at (and completed).
func (k chkKind) entryAt() bool {
	return k == kResourceListIndex || k == kResourceDump || k == kResourceDumpIndex
}

// entryFrom: Table 4 recommends from (and allows until) on entries.
func (k chkKind) entryFrom() bool {
	return k == kChangeListIndex || k == kChangeDump || k == kChangeDumpIndex
}

func (k chkKind) manifest() bool { return k == kResourceDumpManifest || k == kChangeDumpManifest }

// changeEntries: entries describe changes (change, datetime, order).
func (k chkKind) changeEntries() bool { return k == kChangeList || k == kChangeDumpManifest }

// uniqueLocs: documents that list each resource, package or document once.
func (k chkKind) uniqueLocs() bool {
	switch k {
	case kDescription, kDescriptionIndex, kResourceList, kResourceListIndex, kResourceDump,
		kResourceDumpIndex, kChangeListIndex, kChangeDump, kChangeDumpIndex:
		return true
	}
	return false
}

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
	prevRaw  string
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

	// 1.0-style Change Lists
	nDatetime, nLastmod int

	goodTypes [8]string // type attributes found valid (see mediaType)
	nGood     int
}

// chkSet remembers 64-bit hashes of values (URIs, paths) with the entry that
// first had each: open addressing with linear probing, at most half full,
// growing by doubling up to chkMaxTracked values, after which it stops
// remembering. Two values with the same 64-bit hash would be taken for
// duplicates: with maphash's seeded hash that is a 1-in-10^8 event for a
// million entries.
type chkSet struct {
	slots []uint64 // hash with the low bit set; 0 is empty
	first []int32
	n     int
}

func newChkSet() *chkSet {
	return &chkSet{slots: make([]uint64, 256), first: make([]int32, 256)}
}

// add records h for entry idx; when h was there already it returns the entry that
// had it and true.
func (s *chkSet) add(h uint64, idx int) (int, bool) {
	h |= 1
	mask := len(s.slots) - 1
	for p := int(h>>33) & mask; ; p = (p + 1) & mask {
		switch s.slots[p] {
		case 0:
			if s.n >= chkMaxTracked {
				return 0, false
			}
			s.slots[p], s.first[p] = h, int32(idx)
			s.n++
			if 2*s.n > len(s.slots) {
				s.grow()
			}
			return 0, false
		case h:
			return int(s.first[p]), true
		}
	}
}

func (s *chkSet) grow() {
	old, oldFirst := s.slots, s.first
	s.slots = make([]uint64, 2*len(old))
	s.first = make([]int32, 2*len(old))
	mask := len(s.slots) - 1
	for i, h := range old {
		if h == 0 {
			continue
		}
		p := int(h>>33) & mask
		for s.slots[p] != 0 {
			p = (p + 1) & mask
		}
		s.slots[p], s.first[p] = h, oldFirst[i]
	}
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

// Title returns the type of document as determined at Begin ("Change List Index"),
// "document" when unknown.
func (c *Checker) Title() string { return c.kind.title() }

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
	r := ruleInfo(id)
	if r.Severity == SeverityError {
		c.nErr++
	} else {
		c.nWarn++
	}
	if section == "" {
		section = r.Section
	}
	p := Problem{Severity: r.Severity, Rule: r.ID, Section: section, Entry: entry, Line: line}
	if entry < 0 {
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

func chkClip(s string) string {
	if len(s) <= chkMaxShown {
		return s
	}
	cut := chkMaxShown
	for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}

func chkQuote(s string) string { return strconv.Quote(chkClip(s)) }

// ref names an entry in messages: `entry 3 (http://example.com/res2)`.
func chkRef(e *Entry, idx int) string {
	s := "entry " + strconv.Itoa(idx)
	if e.Loc != "" {
		return s + " (" + chkClip(e.Loc) + ")"
	}
	return s + " (line " + strconv.Itoa(e.Line) + ")"
}

// Begin starts a document. h may be completed later (elements after the entries)
// and is passed again to End.
func (c *Checker) Begin(h *Header) {
	*c = Checker{opts: c.opts}
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

// Entry checks one entry. The Checker keeps no reference to e or its slices.
func (c *Checker) Entry(e *Entry) {
	if !c.began {
		c.Begin(&Header{Root: RootURLSet})
	}
	idx := c.entries
	c.entries++
	if !c.active {
		return
	}
	k := c.kind

	// <loc>
	switch {
	case !e.HasLoc || e.LocCount == 0:
		c.report(rLocMissing, idx, e.Line, "", chkRef(e, idx)+": no <loc>: the URI of the "+c.entryNoun()+" is mandatory")
	case e.Loc == "":
		c.report(rLocEmpty, idx, e.Line, "", chkRef(e, idx)+": <loc> is empty")
	default:
		if e.LocCount > 1 {
			c.report(rLocRepeated, idx, e.Line, "", chkRef(e, idx)+": "+strconv.Itoa(e.LocCount)+" <loc> elements; an entry has exactly one")
		}
		if e.LocRaw != "" {
			c.report(rLocWhitespace, idx, e.Line, "", chkRef(e, idx)+": whitespace around the URI in <loc> "+chkQuote(e.LocRaw)+"; clients that do not trim it will request a different URI")
		}
		if bad := chkURI(e.Loc); bad != uriOK {
			c.badURI(bad, e, idx)
		}
		if c.locs != nil {
			if first, dup := c.locs.add(maphash.String(c.seed, e.Loc), idx); dup {
				c.report(rLocDuplicate, idx, e.Line, k.section(), chkRef(e, idx)+": also listed as entry "+strconv.Itoa(first)+": a "+k.title()+" lists each "+c.entryNoun()+" once")
			}
		}
	}

	// Sitemap children
	if e.Lastmod.Raw != "" {
		if !e.Lastmod.OK {
			c.report(rLastmodInvalid, idx, e.Line, "", chkRef(e, idx)+": <lastmod> "+chkQuote(e.Lastmod.Raw)+" is not a W3C Datetime: "+chkDatetimeReason(e.Lastmod.Raw))
		} else {
			c.nLastmod++
			if k == kResourceList && c.atEnd.OK && e.Lastmod.Time.After(c.atEnd.Time) && e.Lastmod.Precision >= PrecisionMinute {
				c.report(rLastmodAfterSnapshot, idx, e.Line, "", chkRef(e, idx)+": lastmod "+e.Lastmod.Raw+" is after the snapshot ("+c.atEnd.Raw+"): the Resource List cannot reflect a state the resource had after the snapshot")
			}
		}
	}
	if e.Changefreq != "" && !chkChangefreq(e.Changefreq) {
		c.report(rChangefreqInvalid, idx, e.Line, "", chkRef(e, idx)+": <changefreq> "+chkQuote(e.Changefreq)+" is not one of always, hourly, daily, weekly, monthly, yearly, never")
	}
	if e.MDCount > 1 {
		c.report(rMDRepeated, idx, e.Line, "", chkRef(e, idx)+": "+strconv.Itoa(e.MDCount)+" <rs:md> elements; the element is not repeatable (only the first was read)")
	}

	md := &e.MD
	if md.Present {
		c.entryMetadata(e, idx, md)
	}
	c.entryRequirements(e, idx, md)

	for i := range e.Links {
		c.link(&e.Links[i], e, idx)
	}
	for i := range e.Extra {
		c.element(&e.Extra[i], e, idx)
	}
}

// entryNoun is what an entry of the current document stands for.
func (c *Checker) entryNoun() string {
	switch c.kind {
	case kDescription:
		return "Capability List"
	case kCapabilityList:
		return "capability document"
	case kResourceDump, kChangeDump:
		return "package"
	case kResourceDumpManifest, kChangeDumpManifest:
		return "bitstream"
	case kResourceListIndex, kResourceDumpIndex, kChangeListIndex, kChangeDumpIndex, kDescriptionIndex, kCapabilityListIndex:
		return "document"
	}
	return "resource"
}

// entryMetadata checks the attributes of an entry's <rs:md>.
func (c *Checker) entryMetadata(e *Entry, idx int, md *Metadata) {
	k := c.kind
	line := md.Line
	if line == 0 {
		line = e.Line
	}

	// capability
	if md.Capability != "" {
		switch k {
		case kCapabilityList, kCapabilityListIndex, kDescription, kDescriptionIndex:
			// judged in entryRequirements
		case kUnknownDoc:
		default:
			c.report(rEntryCapabilityUnexpected, idx, line, "", chkRef(e, idx)+": capability="+chkQuote(string(md.Capability))+" on an entry of a "+k.title()+"; entries carry a capability in Source Descriptions and Capability Lists only")
		}
	}

	// change
	if md.Change != "" {
		if md.Change != ChangeCreated && md.Change != ChangeUpdated && md.Change != ChangeDeleted {
			c.report(rChangeInvalid, idx, line, "", chkRef(e, idx)+": change="+chkQuote(string(md.Change))+" is not created, updated or deleted")
		} else if k != kUnknownDoc && !k.changeEntries() {
			c.report(rChangeUnexpected, idx, line, "", chkRef(e, idx)+": change="+chkQuote(string(md.Change))+" on an entry of a "+k.title()+"; the attribute is used in Change Lists and Change Dump Manifests")
		}
	}

	// datetime
	if md.Datetime.Raw != "" {
		if c.timeValue("datetime", &md.Datetime, e, idx, line) {
			c.nDatetime++
			if k.changeEntries() {
				c.interval(e, idx, line, &md.Datetime)
				c.order(e, idx, line, &md.Datetime, "datetime")
			} else if k != kUnknownDoc {
				c.report(rDatetimeUnexpected, idx, line, "", chkRef(e, idx)+": datetime="+chkQuote(md.Datetime.Raw)+" on an entry of a "+k.title()+"; the attribute is used in Change Lists and Change Dump Manifests")
			}
		}
	}

	// at / completed / from / until (Table 4)
	atOK := c.timeValue("at", &md.At, e, idx, line)
	complOK := c.timeValue("completed", &md.Completed, e, idx, line)
	fromOK := c.timeValue("from", &md.From, e, idx, line)
	untilOK := c.timeValue("until", &md.Until, e, idx, line)
	if k != kUnknownDoc {
		if !k.entryAt() && (md.At.Raw != "" || md.Completed.Raw != "") {
			c.misplacedEntryTime(e, idx, line, md.At.Raw != "", md.Completed.Raw != "", "at", "completed", "Resource List Indexes, Resource Dumps and Resource Dump Indexes")
		}
		if !k.entryFrom() && (md.From.Raw != "" || md.Until.Raw != "") {
			c.misplacedEntryTime(e, idx, line, md.From.Raw != "", md.Until.Raw != "", "from", "until", "Change List Indexes, Change Dumps and Change Dump Indexes")
		}
	}
	if atOK && complOK && md.Completed.Time.Before(md.At.Time) {
		c.report(rCompletedBeforeAt, idx, line, "", chkRef(e, idx)+": completed "+md.Completed.Raw+" is before at "+md.At.Raw)
	}
	if fromOK && untilOK && md.Until.Time.Before(md.From.Time) {
		c.report(rUntilBeforeFrom, idx, line, "", chkRef(e, idx)+": until "+md.Until.Raw+" is before from "+md.From.Raw)
	}
	if k.entryFrom() {
		if fromOK {
			if c.from.OK && md.From.Time.Before(c.from.Time) {
				c.report(rIndexIntervalOutside, idx, line, k.section(), chkRef(e, idx)+": from "+md.From.Raw+" is before the "+k.title()+"'s from "+c.from.Raw)
			}
			c.order(e, idx, line, &md.From, "from")
		}
		if untilOK && c.until.OK && md.Until.Time.After(c.until.Time) {
			c.report(rIndexIntervalOutside, idx, line, k.section(), chkRef(e, idx)+": until "+md.Until.Raw+" is after the "+k.title()+"'s until "+c.until.Raw)
		}
	}

	// hash, length, type, encoding
	if md.HashRaw != "" {
		c.hash(md.HashRaw, md.Hash, e, idx, line, "")
	}
	if md.LengthRaw != "" && (!md.LengthOK || md.Length < 0) {
		c.report(rLengthInvalid, idx, line, "", chkRef(e, idx)+": length="+chkQuote(md.LengthRaw)+" is not a non-negative integer")
	}
	if md.Type != "" && !c.mediaType(md.Type) {
		c.report(rTypeInvalid, idx, line, "", chkRef(e, idx)+": type="+chkQuote(md.Type)+" is not a media type (type/subtype)")
	}

	// path
	if md.HasPath {
		if k.manifest() {
			c.path(md.Path, e, idx, line, "path", true)
		} else if k != kUnknownDoc {
			c.report(rPathUnexpected, idx, line, "", chkRef(e, idx)+": path="+chkQuote(md.Path)+" on an entry of a "+k.title()+"; the attribute is used in Resource Dump Manifests and Change Dump Manifests")
		}
	}

	c.attrs(md.Extra, e, idx, line, true)
}

func (c *Checker) misplacedEntryTime(e *Entry, idx, line int, a, b bool, an, bn, where string) {
	names := an
	switch {
	case a && b:
		names = an + " and " + bn
	case b:
		names = bn
	}
	c.report(rEntryTimeNotUsed, idx, line, "", chkRef(e, idx)+": "+names+" on an entry of a "+c.kind.title()+"; Table 4 uses "+an+"/"+bn+" on entries of "+where+" only")
}

// entryRequirements checks what entries of the document must or should have.
func (c *Checker) entryRequirements(e *Entry, idx int, md *Metadata) {
	k := c.kind
	line := e.Line
	if md.Present && md.Line != 0 {
		line = md.Line
	}
	switch k {
	case kChangeList, kChangeDumpManifest:
		if md.Change == "" {
			what := "no <rs:md>"
			if md.Present {
				what = "<rs:md> has no change attribute"
			}
			c.report(rChangeMissing, idx, line, k.section(), chkRef(e, idx)+": "+what+": every "+k.title()+" entry must have change=\"created|updated|deleted\"")
		}
		if k == kChangeDumpManifest && !md.HasPath && md.Change != ChangeDeleted {
			c.missingPath(e, idx, line, md, " (required except for change=\"deleted\")")
		}
	case kResourceDumpManifest:
		if !md.HasPath {
			c.missingPath(e, idx, line, md, "")
		}
	case kCapabilityList, kCapabilityListIndex:
		if md.Capability == "" {
			what := "no <rs:md>"
			if md.Present {
				what = "<rs:md> has no capability attribute"
			}
			c.report(rCapabilityListEntryCapability, idx, line, "", chkRef(e, idx)+": "+what+": a Capability List entry must say which capability its document implements")
			return
		}
		if k == kCapabilityListIndex {
			if md.Capability != CapCapabilityList {
				c.report(rCapabilityListEntryInvalid, idx, line, "", chkRef(e, idx)+": capability="+chkQuote(string(md.Capability))+" in a Capability List Index, whose entries are Capability Lists")
			}
			return
		}
		switch md.Capability {
		case CapResourceList, CapResourceDump, CapChangeList, CapChangeDump:
		case CapChangeNotification, CapFrameworkNotification:
			c.report(rCapabilityDraft, idx, line, "", chkRef(e, idx)+": capability="+chkQuote(string(md.Capability))+" is defined by the ResourceSync Notification draft, not by Z39.99-2017; Destinations that implement only the standard ignore it")
		case CapDescription, CapCapabilityList, CapResourceDumpManifest, CapChangeDumpManifest:
			c.report(rCapabilityListEntryInvalid, idx, line, "", chkRef(e, idx)+": capability="+chkQuote(string(md.Capability))+" is not a capability a Capability List advertises (resourcelist, resourcedump, changelist, changedump)")
		default:
			c.report(rEntryCapabilityUnknown, idx, line, "", chkRef(e, idx)+": capability="+chkQuote(string(md.Capability))+" is not defined by the specification")
		}
		for _, s := range c.caps {
			if s.c == md.Capability {
				c.report(rCapabilityListDuplicate, idx, line, "", chkRef(e, idx)+": capability "+chkQuote(string(md.Capability))+" is already listed by entry "+strconv.Itoa(s.idx)+"; a Capability List must only contain one entry per capability")
				return
			}
		}
		if len(c.caps) < 64 {
			c.caps = append(c.caps, chkCapSeen{md.Capability, idx})
		}
	case kDescription:
		if md.Present && md.Capability != CapCapabilityList {
			what := "has no capability attribute"
			if md.Capability != "" {
				what = "has capability=" + chkQuote(string(md.Capability))
			}
			c.report(rDescriptionEntryCapability, idx, line, "", chkRef(e, idx)+": <rs:md> "+what+"; in a Source Description it must be capability=\"capabilitylist\"")
		}
	case kChangeListIndex, kChangeDump, kChangeDumpIndex:
		if !md.Present || md.From.Raw == "" {
			what := "no <rs:md>"
			if md.Present {
				what = "<rs:md> has no from attribute"
			}
			c.report(rEntryFromRecommended, idx, line, "", chkRef(e, idx)+": "+what+"; a from attribute is recommended to convey the interval the "+c.entryNoun()+" covers")
		}
		if k == kChangeListIndex && md.Present {
			if c.openIdx >= 0 {
				c.report(rChangeListIndexUntilRequired, c.openIdx, c.openLine, "", "entry "+strconv.Itoa(c.openIdx)+" ("+chkClip(c.openLoc)+"): no until, but entry "+strconv.Itoa(idx)+" follows: only the last, open Change List may lack until; a closed Change List's entry requires until")
				c.openIdx = -1
			}
			if md.Until.Raw == "" && md.From.Raw != "" {
				c.openIdx, c.openLoc, c.openLine = idx, e.Loc, line
			}
		}
	}
}

func (c *Checker) missingPath(e *Entry, idx, line int, md *Metadata, note string) {
	what := "no <rs:md>"
	if md.Present {
		what = "<rs:md> has no path attribute"
	}
	c.report(rPathMissing, idx, line, c.kind.section(), chkRef(e, idx)+": "+what+": a "+c.kind.title()+" entry must give the bitstream's path in the package"+note)
}

// timeValue checks the syntax and recommended form of a datetime attribute; it
// reports whether the value is present and valid.
func (c *Checker) timeValue(name string, d *Datetime, e *Entry, idx, line int) bool {
	if d.Raw == "" {
		return false
	}
	where := ""
	if e != nil {
		where = chkRef(e, idx) + ": "
	} else {
		where = "document-level <rs:md>: "
	}
	if !d.OK {
		c.report(rDatetimeInvalid, idx, line, "", where+name+"="+chkQuote(d.Raw)+" is not a W3C Datetime: "+chkDatetimeReason(d.Raw))
		return false
	}
	if !d.UTC || d.Precision < PrecisionSecond {
		why := "not in UTC"
		if d.Precision < PrecisionSecond {
			why = "not a complete date and time"
		}
		c.report(rDatetimeFormat, idx, line, "", where+name+"="+chkQuote(d.Raw)+" is "+why+"; YYYY-MM-DDThh:mm:ss[.s]Z is recommended")
	}
	return true
}

func chkDatetimeReason(raw string) string {
	_, err := ParseDatetime(raw)
	var de *DatetimeError
	if errors.As(err, &de) {
		return de.Reason
	}
	if err != nil {
		return err.Error()
	}
	return "invalid value"
}

// interval checks that an entry's datetime lies within the document's [from, until].
func (c *Checker) interval(e *Entry, idx, line int, d *Datetime) {
	if c.from.OK && chkLatest(d).Before(c.from.Time) {
		c.report(rDatetimeInInterval, idx, line, "", chkRef(e, idx)+": datetime "+d.Raw+" is before the "+c.kind.title()+"'s from "+c.from.Raw+": a change datetime must be within [from, until]")
	}
	if c.until.OK && d.Time.After(chkLatest(&c.until)) {
		c.report(rDatetimeInInterval, idx, line, "", chkRef(e, idx)+": datetime "+d.Raw+" is after the "+c.kind.title()+"'s until "+c.until.Raw+": a change datetime must be within [from, until]")
	}
}

// chkLatest is the last instant a value of reduced precision may denote.
func chkLatest(d *Datetime) time.Time {
	if d.Precision == PrecisionFraction || d.Precision == PrecisionNone {
		return d.Time
	}
	return d.End().Add(-time.Nanosecond)
}

// order checks forward chronological order of the document's ordering key.
func (c *Checker) order(e *Entry, idx, line int, d *Datetime, attr string) {
	if c.prevOK && d.Time.Before(c.prevTime) {
		var id ruleID
		var why string
		switch c.kind {
		case kChangeList:
			id, why = rChangeListOrder, "Change List entries must be in forward chronological order"
		case kChangeDumpManifest:
			id, why = rChangeDumpManifestOrder, "Change Dump Manifest entries must be in forward chronological order"
		case kChangeListIndex:
			id, why = rChangeListIndexOrder, "a Change List Index must enumerate Change Lists in forward chronological order"
		default:
			id, why = rChangeDumpOrder, "entries of a "+c.kind.title()+" should be in forward chronological order"
		}
		c.report(id, idx, line, "", chkRef(e, idx)+": "+attr+" "+d.Raw+" is before the previous entry's "+c.prevRaw+" (entry "+strconv.Itoa(c.prevIdx)+"): "+why)
	}
	c.prevOK, c.prevTime, c.prevRaw, c.prevIdx = true, d.Time, d.Raw, idx
}

// hash checks a hash attribute. list is what the parser made of raw.
func (c *Checker) hash(raw string, list HashList, e *Entry, idx, line int, on string) {
	// Tokens without an algorithm are left out of list: when list does not
	// account for all of raw, count the tokens.
	n := len(list) - 1
	for i := range list {
		n += len(list[i].AlgRaw) + 1 + len(list[i].Value)
	}
	if len(list) == 0 || n != len(raw) {
		tokens := 0
		for i := 0; i < len(raw); {
			for i < len(raw) && isCheckSpace(raw[i]) {
				i++
			}
			if i < len(raw) {
				tokens++
			}
			for i < len(raw) && !isCheckSpace(raw[i]) {
				i++
			}
		}
		if tokens != len(list) || tokens == 0 {
			_, err := ParseHashList(raw)
			reason := "no alg:digest token"
			var le *HashListError
			if errors.As(err, &le) && len(le.Problems) > 0 {
				reason = le.Problems[0].Error()
			}
			c.report(rHashSyntax, idx, line, "", c.where(e, idx)+on+"hash "+chkQuote(raw)+": "+reason)
		}
	}
	for i := range list {
		h := &list[i]
		size := 0
		switch h.Alg {
		case "md5":
			size = 16
		case "sha-256":
			size = 32
		default:
			size = HashSize(h.Alg)
		}
		if size == 0 {
			c.report(rHashAlgorithmUnknown, idx, line, "", c.where(e, idx)+on+"hash algorithm "+chkQuote(h.AlgRaw)+" is not recognised (md5, sha-1, sha-256, sha-384, sha-512); its digest cannot be verified")
		}
		for j := 0; j < i; j++ {
			if list[j].Alg == h.Alg {
				c.report(rHashRepeated, idx, line, "", c.where(e, idx)+on+"hash algorithm "+h.Alg+" is given more than once")
				break
			}
		}
		switch h.Encoding {
		case HashHex:
		case HashBase64:
			c.report(rHashBase64, idx, line, "", c.where(e, idx)+on+"hash "+chkQuote(h.AlgRaw+":"+h.Value)+": the digest is base64 (a practice seen in the wild, e.g. resync-client-ruby), not hex as section 7 requires; it was decoded as "+h.Alg+":"+h.Hex())
		default:
			switch {
			case h.Value == "":
				c.report(rHashSyntax, idx, line, "", c.where(e, idx)+on+"hash "+chkQuote(h.AlgRaw+":")+": empty digest")
			case chkIsHex(h.Value) && size > 0:
				c.report(rHashLength, idx, line, "", c.where(e, idx)+on+"hash "+chkQuote(h.AlgRaw+":"+h.Value)+": "+h.Alg+" digest has "+strconv.Itoa(len(h.Value))+" hex digits, expected "+strconv.Itoa(2*size))
			default:
				c.report(rHashNotHex, idx, line, "", c.where(e, idx)+on+"hash "+chkQuote(h.AlgRaw+":"+h.Value)+": the digest is not hex as section 7 requires")
			}
		}
	}
}

func (c *Checker) where(e *Entry, idx int) string {
	if e == nil {
		return "document-level "
	}
	return chkRef(e, idx) + ": "
}

func isCheckSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v'
}

func chkIsHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return s != ""
}

func chkChangefreq(s string) bool {
	switch s {
	case "always", "hourly", "daily", "weekly", "monthly", "yearly", "never":
		return true
	}
	return false
}

// mediaType judges a type attribute, remembering the last good ones: a document
// uses a handful of types over and over.
func (c *Checker) mediaType(s string) bool {
	for _, g := range c.goodTypes {
		if g == s {
			return true
		}
	}
	if chkMediaType(s) {
		c.goodTypes[c.nGood%len(c.goodTypes)] = s
		c.nGood++
		return true
	}
	return false
}

// chkMediaType accepts type/subtype with optional parameters.
func chkMediaType(s string) bool {
	slash := strings.IndexByte(s, '/')
	if slash <= 0 || slash == len(s)-1 {
		return false
	}
	end := len(s)
	if semi := strings.IndexByte(s, ';'); semi >= 0 {
		end = semi
	}
	if slash >= end-1 {
		return false
	}
	for i := 0; i < end; i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// path checks a manifest path (rs:md path or rs:ln path).
func (c *Checker) path(p string, e *Entry, idx, line int, what string, track bool) {
	where := chkRef(e, idx) + ": " + what + "=" + chkQuote(p)
	if p == "" {
		c.report(rPathNotAbsolute, idx, line, c.kind.section(), where+" is empty; the bitstream's path in the package is expressed with a leading slash")
		return
	}
	if p[0] != '/' {
		c.report(rPathNotAbsolute, idx, line, c.kind.section(), where+" has no leading slash; paths are relative to the package root and written with a leading slash (e.g. /resources/res1)")
	}
	if why := chkUnsafePath(p); why != "" {
		c.report(rPathUnsafe, idx, line, c.kind.section(), where+" "+why+"; extracting it could write outside the package directory")
	}
	if track && c.paths != nil {
		if first, dup := c.paths.add(maphash.String(c.seed, p), idx); dup {
			c.report(rPathDuplicate, idx, line, c.kind.section(), where+" is also the path of entry "+strconv.Itoa(first)+"; each bitstream of a package has its own path")
		}
	}
}

// chkUnsafePath tells why a package path is unsafe, "" when it is not.
func chkUnsafePath(p string) string {
	for i := 0; i < len(p); i++ {
		switch b := p[i]; {
		case b == 0:
			return "contains a NUL byte"
		case b == '\\':
			return "contains a backslash"
		case b < 0x20 || b == 0x7f:
			return "contains a control character"
		}
	}
	q := strings.TrimLeft(p, "/")
	if len(q) >= 2 && q[1] == ':' && (q[0]|0x20 >= 'a' && q[0]|0x20 <= 'z') {
		return "is an absolute Windows path (drive letter)"
	}
	if strings.HasPrefix(p, "//") {
		return "starts with // (a network path)"
	}
	for s := p; s != ""; {
		seg := s
		if i := strings.IndexByte(s, '/'); i >= 0 {
			seg, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if seg == ".." {
			return "has a \"..\" segment"
		}
	}
	return ""
}

// link checks an <rs:ln>; e is nil for document-level links.
func (c *Checker) link(l *Link, e *Entry, idx int) {
	line := l.Line
	if line == 0 && e != nil {
		line = e.Line
	}
	where := func() string {
		w := c.where(e, idx) + "<rs:ln"
		if l.HasRel && l.Rel != "" {
			w += " rel=" + chkQuote(l.Rel)
		}
		return w + ">"
	}
	if !l.HasRel || strings.TrimSpace(l.Rel) == "" {
		c.report(rLinkRelMissing, idx, line, "", where()+" has no rel attribute: the relation is mandatory")
	}
	if !l.HasHref || l.Href == "" {
		c.report(rLinkHrefMissing, idx, line, "", where()+" has no href attribute: the URI of the related resource is mandatory")
	}
	if l.PriRaw != "" && (!l.PriOK || l.Pri < MinPri || l.Pri > MaxPri) {
		c.report(rLinkPri, idx, line, "", where()+" pri="+chkQuote(l.PriRaw)+" is not an integer between 1 and 999999")
	}
	if l.LengthRaw != "" && (!l.LengthOK || l.Length < 0) {
		c.report(rLengthInvalid, idx, line, "", where()+" length="+chkQuote(l.LengthRaw)+" is not a non-negative integer")
	}
	if l.HashRaw != "" {
		c.hash(l.HashRaw, l.Hash, e, idx, line, "<rs:ln> ")
	}
	if l.Type != "" && !c.mediaType(l.Type) {
		c.report(rTypeInvalid, idx, line, "", where()+" type="+chkQuote(l.Type)+" is not a media type (type/subtype)")
	}
	if l.Modified.Raw != "" && !l.Modified.OK {
		c.report(rDatetimeInvalid, idx, line, "", where()+" modified="+chkQuote(l.Modified.Raw)+" is not a W3C Datetime: "+chkDatetimeReason(l.Modified.Raw))
	}
	if e != nil && l.HasPath && c.kind.manifest() {
		c.path(l.Path, e, idx, line, "<rs:ln> path", false)
	}
	patch, timegate := false, false
	for s := l.Rel; s != ""; {
		for s != "" && isCheckSpace(s[0]) {
			s = s[1:]
		}
		n := 0
		for n < len(s) && !isCheckSpace(s[n]) {
			n++
		}
		tok := s[:n]
		s = s[n:]
		switch {
		case tok == relPatch:
			patch = true
		case strings.EqualFold(tok, "timegate"):
			timegate = true
		}
	}
	if e != nil && patch {
		if l.Type == "" {
			c.report(rPatchLinkType, idx, line, "", where()+" has no type: a patch link must give the media type of the change description")
		}
		switch c.kind {
		case kChangeList, kChangeDump, kChangeDumpManifest, kUnknownDoc:
		default:
			c.report(rPatchLinkContext, idx, line, "", where()+" in a "+c.kind.title()+": patch links are only applicable to Change Lists and Change Dumps")
		}
		if c.kind == kChangeDumpManifest && !l.HasPath {
			c.report(rPatchLinkPath, idx, line, "", where()+" has no path: in a Change Dump Manifest the patch link must give the path of the change description in the package")
		}
	}
	if e != nil && timegate && (l.Type != "" || l.HashRaw != "" || l.LengthRaw != "" || l.Modified.Raw != "" || l.Encoding != "" || l.HasPath) {
		c.report(rTimegateLinkAttributes, idx, line, "", where()+" carries attributes other than rel and href; they are meaningless for a TimeGate")
	}
	c.attrs(l.Extra, e, idx, line, false)
}

const relPatch = "http://www.openarchives.org/rs/terms/patch"

// attrs checks attributes the parser kept verbatim on <rs:md> (md) or <rs:ln>.
func (c *Checker) attrs(extra []Attr, e *Entry, idx, line int, md bool) {
	for i := range extra {
		a := &extra[i]
		el := "<rs:ln>"
		if md {
			el = "<rs:md>"
		}
		switch {
		case a.Space == NSRS:
			name := a.Local
			if a.Prefix != "" {
				name = a.Prefix + ":" + a.Local
			}
			c.report(rAttributePrefixed, idx, line, "", c.where(e, idx)+el+" attribute "+name+"="+chkQuote(a.Value)+" has a namespace prefix; ResourceSync attributes must not (write "+a.Local+"=…)")
		case a.Space == "" && a.Prefix == "":
			if a.Local == "etag" || (md && a.Local == "modified") {
				if e != nil { // document-level ones come from Header.Legacy
					c.report(rLegacyDraft, idx, line, "", c.where(e, idx)+el+" attribute "+a.Local+"="+chkQuote(a.Value)+" is from a draft that predates Z39.99-2017"+legacyHint("attribute "+a.Local))
				}
				continue
			}
			if a.Local == "xmlns" {
				continue
			}
			c.report(rAttributeUnqualified, idx, line, "", c.where(e, idx)+el+" attribute "+a.Local+"="+chkQuote(a.Value)+" is not defined by ResourceSync; extension attributes must be in another namespace, with a prefix")
		}
	}
}

// element checks a child element the parser kept verbatim; e is nil at document level.
func (c *Checker) element(el *Element, e *Entry, idx int) {
	line := el.Line
	name := el.Local
	if el.Prefix != "" {
		name = el.Prefix + ":" + el.Local
	}
	switch el.Space {
	case NSSitemap, "":
		if e != nil && el.Local == "priority" && c.h != nil && c.h.Root == RootURLSet {
			return // a Sitemap element ResourceSync does not use
		}
		if el.Space == "" && c.h != nil && c.h.RootSpace != "" {
			return // not in a namespace while the document uses one: a foreign element
		}
		where := "<" + name + "> inside <" + c.rootName() + ">"
		if e != nil {
			where = chkRef(e, idx) + ": <" + name + "> inside <" + c.entryName() + ">"
		}
		c.report(rElementUnexpected, idx, line, "", where+" is not an element of the Sitemap format there")
	case NSRS, NSRSLegacy:
		if el.Local == "fixity" || el.Local == "size" {
			if e != nil { // document-level ones come from Header.Legacy
				c.report(rLegacyDraft, idx, line, "", chkRef(e, idx)+": element <"+name+"> is from a draft that predates Z39.99-2017"+legacyHint("element rs:"+el.Local))
			}
			return
		}
		if el.Space == NSRSLegacy {
			return
		}
		where := "<" + name + "> inside <" + c.rootName() + ">"
		if e != nil {
			where = chkRef(e, idx) + ": <" + name + "> inside <" + c.entryName() + ">"
		}
		c.report(rElementUnexpected, idx, line, "", where+" is not a ResourceSync element (only <rs:md> and <rs:ln> are defined)")
	}
}

func (c *Checker) rootName() string {
	if c.h != nil && c.h.Root == RootSitemapIndex {
		return "sitemapindex"
	}
	return "urlset"
}

func (c *Checker) entryName() string {
	if c.h != nil && c.h.Root == RootSitemapIndex {
		return "sitemap"
	}
	return "url"
}

type uriProblem uint8

// uriBadASCII marks the ASCII bytes a URI cannot hold: controls, space, '"',
// '<', '>', '\\', '^', '`', '{', '|', '}' and DEL.
const uriBadASCII = "" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" +
	"\x01\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x01\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x01\x00" +
	"\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x01\x01\x00\x01"

const (
	uriOK uriProblem = iota
	uriNotAbsolute
	uriNoHost
	uriBadChar
)

// chkURI judges a <loc> value: an absolute URI (IRI characters allowed), with a
// host for http and https.
func chkURI(s string) uriProblem {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 128 && uriBadASCII[b] != 0 {
			return uriBadChar
		}
	}
	if len(s) == 0 || !(s[0]|0x20 >= 'a' && s[0]|0x20 <= 'z') {
		return uriNotAbsolute
	}
	i := 1
	for i < len(s) {
		b := s[i]
		if b|0x20 >= 'a' && b|0x20 <= 'z' || b >= '0' && b <= '9' || b == '+' || b == '-' || b == '.' {
			i++
			continue
		}
		break
	}
	if i >= len(s) || s[i] != ':' {
		return uriNotAbsolute
	}
	scheme := s[:i]
	if len(scheme) == 4 && scheme == "http" || len(scheme) == 5 && scheme == "https" ||
		(len(scheme) == 4 || len(scheme) == 5) && (strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https")) {
		rest := s[i+1:]
		if len(rest) < 2 || rest[0] != '/' || rest[1] != '/' {
			return uriNoHost
		}
		host := rest[2:]
		for j := 0; j < len(host); j++ {
			if b := host[j]; b == '/' || b == '?' || b == '#' {
				host = host[:j]
				break
			}
		}
		if k := strings.LastIndexByte(host, '@'); k >= 0 {
			host = host[k+1:]
		}
		if host == "" || host[0] == ':' {
			return uriNoHost
		}
	}
	return uriOK
}

func (c *Checker) badURI(bad uriProblem, e *Entry, idx int) {
	v := chkQuote(e.Loc)
	switch bad {
	case uriBadChar:
		c.report(rLocInvalidChar, idx, e.Line, "", chkRef(e, idx)+": <loc> "+v+" contains characters a URI cannot hold (spaces, control characters or <>\"{}|\\^`); percent-encode them")
	case uriNoHost:
		c.report(rLocNotAbsolute, idx, e.Line, "", chkRef(e, idx)+": <loc> "+v+" has no host")
	default:
		msg := chkRef(e, idx) + ": <loc> " + v + " is not an absolute URI"
		if c.opts.BaseURL != "" {
			if base, err := url.Parse(c.opts.BaseURL); err == nil {
				if ref, err := url.Parse(e.Loc); err == nil {
					msg += " (relative to this document it would be " + chkClip(base.ResolveReference(ref).String()) + ")"
				}
			}
		}
		c.report(rLocNotAbsolute, idx, e.Line, "", msg)
	}
}

// End finishes the document: h is the completed header, bytes the size read.
func (c *Checker) End(h *Header, bytes int64) { c.end(h, bytes, true) }

func (c *Checker) end(h *Header, bytes int64, complete bool) {
	if c.ended {
		return
	}
	if !c.began {
		c.Begin(h)
	}
	c.ended = true
	if h == nil {
		h = c.h
	}
	if h == nil {
		return
	}
	c.h = h
	if h.Root == RootUnknown {
		if (h.RootLocal == "urlset" || h.RootLocal == "sitemapindex") && h.RootSpace != NSSitemap {
			// A Sitemap root in a foreign namespace (e.g. Google's 0.84 one): the
			// decoder does not read such a document's entries.
			c.report(rRootNamespace, -1, 0, "", "the root element <"+h.RootLocal+"> is in namespace "+h.RootSpace+"; Sitemap documents use xmlns=\""+NSSitemap+"\" (the document was not checked further)")
		} else {
			c.notSitemap(h)
		}
		c.legacy(h)
		return
	}
	// The kind is re-read from the completed header: a document-level <rs:md>
	// after the entries is legal XML (its entries were judged without it).
	k := c.kind
	if h.MD.Present {
		capb := h.MD.Capability
		if capb == "" {
			capb = c.opts.Capability
		}
		k = chkKindOf(capb, h.Root)
	}
	if h.RootSpace != NSSitemap {
		ns := "no namespace"
		if h.RootSpace != "" {
			ns = "namespace " + h.RootSpace
		}
		c.report(rRootNamespace, -1, 0, "", "the root element <"+h.RootLocal+"> is in "+ns+"; Sitemap documents use xmlns=\""+NSSitemap+"\"")
	}

	// the document-level <rs:md>
	md := &h.MD
	switch {
	case h.MDCount == 0 || !md.Present:
		if complete {
			c.report(rMDMissing, -1, 0, "", "no document-level <rs:md> element: every ResourceSync document must have one, with a capability attribute saying what the document is")
		}
	default:
		if h.MDCount > 1 {
			c.report(rMDRepeated, -1, md.Line, "", strconv.Itoa(h.MDCount)+" document-level <rs:md> elements; the element is not repeatable (only the first was read)")
		}
		c.docCapability(h)
		c.docTimes(h)
		c.attrs(md.Extra, nil, -1, md.Line, true)
	}

	// root element versus capability
	if h.Root == RootSitemapIndex {
		switch k {
		case kCapabilityListIndex:
			c.report(rCapabilityListIndex, -1, 0, "", "a Capability List as a <sitemapindex>: enumerating capabilities never approaches the limits of one document and Sources should not generate such structures")
		case kResourceDumpManifest, kChangeDumpManifest:
			c.report(rRootCapability, -1, 0, k.section(), "a "+k.title()+" with a <sitemapindex> root: a manifest describes one package and is a <urlset> document")
		}
		if md.Capability == CapChangeNotification || md.Capability == CapFrameworkNotification {
			c.report(rRootCapability, -1, 0, "N4", "capability="+chkQuote(string(md.Capability))+" with a <sitemapindex> root: notifications do not use the <sitemapindex> format")
		}
	}

	// document-level links
	ups := 0
	describedby := false
	for i := range h.Links {
		l := &h.Links[i]
		c.link(l, nil, -1)
		for s := l.Rel; s != ""; {
			for s != "" && isCheckSpace(s[0]) {
				s = s[1:]
			}
			n := 0
			for n < len(s) && !isCheckSpace(s[n]) {
				n++
			}
			tok := s[:n]
			s = s[n:]
			if strings.EqualFold(tok, "up") {
				ups++
			} else if strings.EqualFold(tok, "describedby") {
				describedby = true
			}
		}
	}
	if complete && k != kUnknownDoc && k != kDescription && k != kDescriptionIndex && ups == 0 {
		if k == kCapabilityList || k == kCapabilityListIndex {
			c.report(rCapabilityListUpLink, -1, 0, "", `no <rs:ln rel="up"> link: a Capability List must link up to the Source Description that enumerates it`)
		} else {
			c.report(rUpLinkMissing, -1, 0, k.section(), `no <rs:ln rel="up"> link: a `+k.title()+" must link up to the Capability List it belongs to")
		}
	}
	if ups > 1 {
		c.report(rUpLinkRepeated, -1, 0, "", strconv.Itoa(ups)+` <rs:ln rel="up"> links; a document has one parent`)
	}
	if complete && !describedby && (k == kDescription || k == kCapabilityList) {
		what := "information about the Source"
		if k == kCapabilityList {
			what = "information about the set of resources the Capability List covers"
		}
		c.report(rDescribedbyRecommended, -1, 0, k.section(), `no <rs:ln rel="describedby"> link: a `+k.title()+" should link to "+what)
	}
	for i := range h.Extra {
		c.element(&h.Extra[i], nil, -1)
	}

	// Change List Index: a closed index has only closed Change Lists
	if k == kChangeListIndex && c.openIdx >= 0 && md.Until.Raw != "" {
		c.report(rChangeListIndexUntilRequired, c.openIdx, c.openLine, "", "entry "+strconv.Itoa(c.openIdx)+" ("+chkClip(c.openLoc)+"): no until, but the Change List Index is closed (until "+md.Until.Raw+"): the Change Lists it lists are closed and their entries require until")
	}
	// ResourceSync 1.0 style Change List
	if k == kChangeList && complete && c.entries >= 2 && c.nDatetime == 0 && c.nLastmod >= 2 {
		c.report(rChangeListNoDatetime, -1, 0, "", "none of the "+strconv.Itoa(c.entries)+" entries has a datetime attribute while "+strconv.Itoa(c.nLastmod)+" carry <lastmod> (ResourceSync 1.0 practice): since 1.1, lastmod is the resource's modification time and datetime the time of the change; provide datetime so Destinations can tell which changes they processed")
	}

	// limits
	if c.entries > MaxEntriesPerDocument {
		c.report(rEntriesTooMany, -1, 0, "", strconv.Itoa(c.entries)+" entries: more than the 50,000 a document may hold; split it and group the parts with an index")
	}
	if bytes > MaxDocumentBytes {
		c.report(rDocumentTooLarge, -1, 0, "", strconv.FormatInt(bytes, 10)+" bytes: larger than the 50 MB (50,000,000 bytes) a document may hold; split it and group the parts with an index")
	}
	c.legacy(h)
}

func (c *Checker) notSitemap(h *Header) {
	what := "<" + h.RootLocal + ">"
	if h.RootLocal == "" {
		what = "no root element"
	}
	hint := ""
	switch strings.ToLower(h.RootLocal) {
	case "html":
		hint = " (an HTML page: look for <link rel=\"resourcesync\"> in its head)"
	case "feed":
		hint = " (an Atom feed, as considered by early drafts)"
	case "resync":
		hint = " (the ResourceSync-specific format considered by early drafts)"
	}
	if h.RootSpace != "" && h.RootLocal != "" {
		what += " in namespace " + h.RootSpace
	}
	c.report(rRootNotSitemap, -1, 0, "", "the root element is "+what+hint+", not <urlset> or <sitemapindex>: this is not a ResourceSync document")
}

// docCapability checks the capability of the document-level <rs:md>.
func (c *Checker) docCapability(h *Header) {
	md := &h.MD
	switch md.Capability {
	case "":
		c.report(rCapabilityMissing, -1, md.Line, "", "the document-level <rs:md> has no capability attribute; it is mandatory and says what the document is (resourcelist, changelist, …)")
	case CapDescription, CapCapabilityList, CapResourceList, CapResourceDump, CapResourceDumpManifest,
		CapChangeList, CapChangeDump, CapChangeDumpManifest:
	case CapChangeNotification, CapFrameworkNotification:
		c.report(rCapabilityDraft, -1, md.Line, "", "capability="+chkQuote(string(md.Capability))+" is defined by the ResourceSync Notification draft for Capability List entries, not for a document; its documents are not checked further")
	default:
		c.report(rCapabilityUnknown, -1, md.Line, "", "capability="+chkQuote(string(md.Capability))+" is not a defined value (description, capabilitylist, resourcelist, resourcedump, resourcedump-manifest, changelist, changedump, changedump-manifest)")
	}
}

// docTimes checks at/completed/from/until of the document-level <rs:md> (Appendix A).
func (c *Checker) docTimes(h *Header) {
	md := &h.MD
	k := chkKindOf(md.Capability, h.Root)
	line := md.Line
	atOK := c.timeValue("at", &md.At, nil, -1, line)
	complOK := c.timeValue("completed", &md.Completed, nil, -1, line)
	fromOK := c.timeValue("from", &md.From, nil, -1, line)
	untilOK := c.timeValue("until", &md.Until, nil, -1, line)
	switch {
	case k.snapshot():
		if md.At.Raw == "" {
			c.report(rMDAtMissing, -1, line, "", "the document-level <rs:md> of a "+k.title()+" has no at attribute: the datetime its snapshot started is mandatory (Table 4)")
		}
		if md.From.Raw != "" || md.Until.Raw != "" {
			c.report(rMDTimeNotUsed, -1, line, "", c.names(md.From.Raw != "", md.Until.Raw != "", "from", "until")+" on the document-level <rs:md> of a "+k.title()+": these attributes are used for change documents, not snapshots (Table 4)")
		}
	case k.change():
		if md.From.Raw == "" {
			c.report(rMDFromMissing, -1, line, "", "the document-level <rs:md> of a "+k.title()+" has no from attribute: the start of the interval it covers is mandatory (Table 4)")
		}
		if md.At.Raw != "" || md.Completed.Raw != "" {
			c.report(rMDTimeNotUsed, -1, line, "", c.names(md.At.Raw != "", md.Completed.Raw != "", "at", "completed")+" on the document-level <rs:md> of a "+k.title()+": these attributes are used for snapshot documents, not change documents (use from/until)")
		}
	case k != kUnknownDoc:
		if md.At.Raw != "" || md.Completed.Raw != "" || md.From.Raw != "" || md.Until.Raw != "" {
			var names []string
			for _, n := range [...]struct {
				set  bool
				name string
			}{{md.At.Raw != "", "at"}, {md.Completed.Raw != "", "completed"}, {md.From.Raw != "", "from"}, {md.Until.Raw != "", "until"}} {
				if n.set {
					names = append(names, n.name)
				}
			}
			c.report(rMDTimeUnexpected, -1, line, "", strings.Join(names, ", ")+" on the document-level <rs:md> of a "+k.title()+": not defined for this document")
		}
	}
	if atOK && complOK && md.Completed.Time.Before(md.At.Time) {
		c.report(rCompletedBeforeAt, -1, line, "", "document-level completed "+md.Completed.Raw+" is before at "+md.At.Raw)
	}
	if fromOK && untilOK && md.Until.Time.Before(md.From.Time) {
		c.report(rUntilBeforeFrom, -1, line, "", "document-level until "+md.Until.Raw+" is before from "+md.From.Raw)
	}
}

func (c *Checker) names(a, b bool, an, bn string) string {
	switch {
	case a && b:
		return an + " and " + bn
	case b:
		return bn
	}
	return an
}

// legacy reports the draft constructs the decoder noticed. Those inside entries
// (rs:fixity, rs:size, etag, modified) were reported by Entry with the entry's
// URI; namespace declarations are reported here.
func (c *Checker) legacy(h *Header) {
	for _, t := range h.Legacy {
		if t.Entry >= 0 && !strings.HasPrefix(t.What, "namespace") {
			continue
		}
		where := ""
		if t.Entry >= 0 {
			where = "entry " + strconv.Itoa(t.Entry) + ": "
		}
		c.report(rLegacyDraft, t.Entry, t.Line, "", where+t.What+" is from a draft that predates Z39.99-2017"+legacyHint(t.What))
	}
}

func legacyHint(what string) string {
	switch {
	case strings.HasPrefix(what, "namespace"):
		return "; the standard's namespace is " + NSRS
	case strings.Contains(what, "fixity"):
		return "; use the hash attribute of <rs:md>"
	case strings.Contains(what, "rs:size"):
		return "; use the length attribute of <rs:md>"
	case strings.Contains(what, "modified"):
		return "; use at (document) or datetime/lastmod (entry)"
	case strings.Contains(what, "etag"):
		return "; the standard has no etag attribute (use hash)"
	}
	return ""
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

// Validate decodes r as a stream and checks it, keeping no entries.
func Validate(r io.Reader, opts CheckOptions) *Report {
	dec := NewDecoder(r, DecoderOptions{})
	c := NewChecker(opts)
	rep := &Report{}
	h, err := dec.Header()
	rep.Header = h
	if err == nil {
		c.Begin(h)
		err = checkEntries(dec, c)
		if err == io.EOF {
			err = nil
		}
	}
	if err != nil {
		rep.Err = err
		if !c.began {
			c.Begin(&Header{Root: RootUnknown})
			c.active = false
		}
		line := 0
		var se *SyntaxError
		if errors.As(err, &se) {
			line = se.Line
		}
		c.report(rXMLMalformed, -1, line, "", chkMalformedMessage(err))
		if h != nil && h.Root != RootUnknown && c.active {
			c.end(h, dec.BytesRead(), false)
		} else {
			c.ended = true
		}
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

// checkEntries feeds the decoder's entries to the checker until Next fails (io.EOF
// at the end). With more than one CPU the decoder runs in a goroutine of its own
// and hands over batches of entries, so that checking overlaps decoding; the
// batches are recycled, so memory stays bounded (3 × chkBatch entries).
func checkEntries(dec *Decoder, c *Checker) error {
	if runtime.GOMAXPROCS(0) < 2 {
		var e Entry
		for {
			if err := dec.Next(&e); err != nil {
				return err
			}
			c.Entry(&e)
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
