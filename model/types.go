// Package model is the ResourceSync domain: documents, entries, metadata, links, capabilities, datetimes and hashes; their parsing, writing and conformance rules.
//
// It does no network, terminal or file I/O beyond an io.Reader or io.Writer.
package model

import "time"

// XML namespaces that ResourceSync documents use or used.
const (
	NSSitemap  = "http://www.sitemaps.org/schemas/sitemap/0.9"
	NSRS       = "http://www.openarchives.org/rs/terms/"
	NSRSLegacy = "http://www.openarchives.org/rs/" // beta-era namespace (2013 paper)
	NSXML      = "http://www.w3.org/XML/1998/namespace"
)

// Spec limits of section 7 (community-defined Sitemap limits).
const (
	MaxEntriesPerDocument = 50000
	MaxDocumentBytes      = 50 * 1000 * 1000 // 50 MB
	MaxPri                = 999999
	MinPri                = 1
)

// Capability is the value of a capability attribute.
type Capability string

// Capability values defined by the specification (section 7) and the Notification draft.
const (
	CapDescription           Capability = "description"
	CapCapabilityList        Capability = "capabilitylist"
	CapResourceList          Capability = "resourcelist"
	CapResourceDump          Capability = "resourcedump"
	CapResourceDumpManifest  Capability = "resourcedump-manifest"
	CapChangeList            Capability = "changelist"
	CapChangeDump            Capability = "changedump"
	CapChangeDumpManifest    Capability = "changedump-manifest"
	CapChangeNotification    Capability = "change-notification"    // Notification draft 0.8
	CapFrameworkNotification Capability = "framework-notification" // Notification draft 0.8
)

// Capability values of the ResourceSync Archives specification (1.0; sections
// 3–6): documents that list the Resource Lists, Resource Dumps, Change Lists
// and Change Dumps a Source published over time.
const (
	CapResourceListArchive Capability = "resourcelist-archive"
	CapResourceDumpArchive Capability = "resourcedump-archive"
	CapChangeListArchive   Capability = "changelist-archive"
	CapChangeDumpArchive   Capability = "changedump-archive"
)

// RootKind is the root element of a document.
type RootKind uint8

const (
	RootUnknown      RootKind = iota // not a Sitemap root (or not XML at all)
	RootURLSet                       // <urlset>
	RootSitemapIndex                 // <sitemapindex>
)

// Change is the value of a change attribute.
type Change string

const (
	ChangeCreated Change = "created"
	ChangeUpdated Change = "updated"
	ChangeDeleted Change = "deleted"
)

// Attr is an attribute kept verbatim: unknown ones, those of other namespaces,
// prefixed ResourceSync attributes and legacy attributes.
type Attr struct {
	Space  string // namespace URI ("" when unqualified)
	Prefix string // prefix as written ("" when none)
	Local  string
	Value  string
}

// Element is a child element kept verbatim because the model has no field for it
// (other namespaces, legacy rs:fixity / rs:size, unknown Sitemap children).
type Element struct {
	Space  string
	Prefix string
	Local  string
	Attrs  []Attr
	Text   string // character data directly inside the element, trimmed
	Inner  string // inner XML, verbatim, possibly truncated to a bounded size
	Line   int
}

// Metadata is an <rs:md> element, at document level or in an entry.
//
// Every ResourceSync attribute is kept as written (the *Raw fields and Datetime.Raw)
// and as parsed; a value that does not parse keeps its Raw text and has its parsed
// form marked invalid, so that the checker can report it with the offending value.
type Metadata struct {
	Present bool // the element was there
	// Empty are the attributes written with an empty value (length=""):
	// present, unlike absent ones, and no value of their kind.
	Empty AttrSet
	Line  int

	Capability Capability
	Change     Change

	At        Datetime
	Completed Datetime
	From      Datetime
	Until     Datetime
	Datetime  Datetime

	Hash    HashList
	HashRaw string // "" when absent

	Length    int64
	LengthRaw string // "" when absent; Length is valid when LengthOK
	LengthOK  bool

	Type     string
	Encoding string
	Path     string
	HasPath  bool // path attribute present (it may be present and empty)

	Extra []Attr // every other attribute, verbatim
}

// AttrSet is a set of the ResourceSync attributes of <rs:md> and <rs:ln>.
type AttrSet uint16

// The attributes of an AttrSet.
const (
	AttrCapability AttrSet = 1 << iota
	AttrChange
	AttrAt
	AttrCompleted
	AttrFrom
	AttrUntil
	AttrDatetime
	AttrHash
	AttrLength
	AttrType
	AttrEncoding
	AttrPri
	AttrModified
)

// Link is an <rs:ln> element, at document level or in an entry.
type Link struct {
	Line int

	Rel     string // as written (may hold several space-separated tokens)
	Href    string // as written, trimmed
	HasRel  bool
	HasHref bool
	Empty   AttrSet // attributes written with an empty value, as Metadata.Empty

	Pri    int    // 0 when absent; spec default is MaxPri
	PriRaw string // "" when absent
	PriOK  bool

	Type     string
	Encoding string
	Path     string
	HasPath  bool

	Length    int64
	LengthRaw string
	LengthOK  bool

	Hash    HashList
	HashRaw string

	Modified Datetime

	Extra []Attr
}

// Entry is a <url> (in a urlset) or <sitemap> (in a sitemapindex) element.
type Entry struct {
	Index    int    // 0-based position in the document
	Line     int    // line of the opening tag, 1-based
	Loc      string // trimmed
	LocRaw   string // as written when it differs from Loc (surrounding whitespace), else ""
	HasLoc   bool
	Empty    ChildSet // children written without a value (<lastmod/>): present, unlike absent ones
	LocCount int      // number of <loc> children (more than one is an error)

	Lastmod    Datetime
	Changefreq string

	MD      Metadata
	MDCount int // number of <rs:md> children (the element is not repeatable)
	Links   []Link

	Extra []Element // unknown children, other namespaces, legacy elements
}

// ChildSet is a set of the Sitemap children of an entry.
type ChildSet uint8

// The children of a ChildSet.
const (
	ChildLastmod ChildSet = 1 << iota
	ChildChangefreq
)

// Namespace is a namespace declaration seen on the root element.
type Namespace struct {
	Prefix string // "" for the default namespace
	URI    string
}

// Header is everything in a document that is not an entry: the root element, its
// namespaces, the document-level <rs:md> and <rs:ln> elements and any other children.
// A Decoder fills it before the first entry; elements that follow the entries are
// added by the time Next returns io.EOF.
type Header struct {
	Root        RootKind
	RootLocal   string // local name of the root element as found ("urlset", "feed", "html" …)
	RootSpace   string // namespace URI of the root element
	Namespaces  []Namespace
	XMLEncoding string // encoding named in the XML declaration, "" when none

	MD      Metadata // document-level <rs:md>
	MDCount int
	Links   []Link // document-level <rs:ln>

	Extra []Element // other document-level children

	// Legacy reports traces of draft versions noticed anywhere in the document:
	// the beta namespace, rs:fixity, rs:size, modified/etag attributes, …
	Legacy []LegacyTrace
}

// LegacyTrace is one use of a construct from a draft of the specification.
type LegacyTrace struct {
	What  string // e.g. `namespace http://www.openarchives.org/rs/`, `element rs:fixity`, `attribute modified`
	Line  int
	Entry int // -1 at document level
}

// Document is a whole parsed document held in memory. Large documents should be
// streamed with a Decoder instead, or kept in an EntryTable.
type Document struct {
	Header
	Entries []Entry
	Bytes   int64 // bytes of XML read (after gzip decompression)
}

// Severity of a conformance problem.
type Severity uint8

const (
	SeverityError   Severity = iota + 1 // a MUST or mandatory rule is broken
	SeverityWarning                     // a SHOULD / recommended rule
	// SeverityHint: what the standard leaves free (may, can) or does not
	// address, worth a look; reported only when asked (CheckOptions.Hints).
	SeverityHint
)

// Problem is one conformance finding.
type Problem struct {
	Severity Severity
	Rule     string // stable rule ID, e.g. "capabilitylist-up-link"
	Section  string // spec section, e.g. "9" or "A"
	Message  string // names the offending entry and value
	Entry    int    // 0-based entry index, -1 for document-level problems
	Line     int    // 0 when unknown
}

// CountProblems counts the errors and the warnings among ps (hints are
// neither).
func CountProblems(ps []Problem) (errors, warnings int) {
	for i := range ps {
		switch ps[i].Severity {
		case SeverityError:
			errors++
		case SeverityWarning:
			warnings++
		}
	}
	return errors, warnings
}

// RuleCount is one rule among problems: the first problem of that rule and
// how many problems it has.
type RuleCount struct {
	First *Problem
	Count int
}

// ProblemsByRule groups the errors and warnings of ps (hints are left out)
// by rule, in the order each rule first appears; First points into ps.
func ProblemsByRule(ps []Problem) []RuleCount {
	var out []RuleCount
	at := map[string]int{}
	for i := range ps {
		p := &ps[i]
		if p.Severity != SeverityError && p.Severity != SeverityWarning {
			continue
		}
		j, ok := at[p.Rule]
		if !ok {
			j = len(out)
			at[p.Rule] = j
			out = append(out, RuleCount{First: p})
		}
		out[j].Count++
	}
	return out
}

// Precision is the granularity a W3C Datetime was written with.
type Precision uint8

const (
	PrecisionNone     Precision = iota // absent or invalid
	PrecisionYear                      // YYYY
	PrecisionMonth                     // YYYY-MM
	PrecisionDay                       // YYYY-MM-DD
	PrecisionMinute                    // YYYY-MM-DDThh:mmTZD
	PrecisionSecond                    // YYYY-MM-DDThh:mm:ssTZD
	PrecisionFraction                  // YYYY-MM-DDThh:mm:ss.sTZD
)

// Datetime is a W3C Datetime (a profile of ISO 8601) as found in a document.
type Datetime struct {
	Raw       string    // as written, trimmed; "" when absent
	Time      time.Time // the instant in UTC (the start of the period for reduced precisions)
	Precision Precision
	HasZone   bool   // written with Z or an offset (required for precisions finer than a day)
	UTC       bool   // written with Z or +00:00 / -00:00
	OK        bool   // Raw parsed
	Fraction  string // fractional-second digits as written, kept for display
}

// HashEncoding tells how a digest was written.
type HashEncoding uint8

const (
	HashHex     HashEncoding = iota // as the specification requires
	HashBase64                      // found in the wild (e.g. resync-client-ruby); decoded and flagged
	HashInvalid                     // neither: Digest is nil
)

// Hash is one algorithm:digest token of a hash attribute.
type Hash struct {
	Alg      string // algorithm token as normalised: lower case ("md5", "sha-1", "sha-256", "sha-512", …)
	AlgRaw   string // as written
	Value    string // the digest text as written
	Digest   []byte // decoded digest; nil when HashInvalid
	Encoding HashEncoding
}

// HashList is the whitespace-delimited list of a hash attribute.
type HashList []Hash
