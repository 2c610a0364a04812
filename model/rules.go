package model

// The conformance rule catalogue. Every rule the Checker implements has a stable
// ID (used in JSON output, test files testdata/conformance/invalid/<id>.xml and by
// other packages), a severity, the specification section it comes from and a
// one-line summary.
//
// Severity policy: the severity follows the words of Z39.99-2017, and every
// rule that is not an error cites its sentence (Rule.Basis, shown by rsx
// validate --rules).
//   - error: "must", "must not", "mandatory", "required"; a value that cannot be
//     what the attribute says it is (an md5 digest that is not 32 hex digits,
//     a change other than created/updated/deleted); the Sitemap limits of
//     section 7 (50,000 entries, 50 MB); and the uses Appendix A's normative
//     Table 4 does not give (md-time-not-used, entry-time-not-used).
//   - warning: "should", "should not", "recommended"; a restriction worded
//     without "must" ("is only used in", "is only applicable to"); and two
//     statements of form that the standard's own examples do not keep (hex
//     digests: Example 27 has none), which are therefore not held as errors.
//   - hint: what the standard leaves free ("may", "can") or does not address,
//     but which is worth a look (a Change List without datetime, an unknown
//     hash algorithm, whitespace around a URI); and two recommendations that
//     the standard's own walkthrough examples do not keep (a Resource Dump
//     entry without <rs:md> type and length: Example 4; a Resource Dump
//     Manifest entry without type: Example 5), one step lower as the hex
//     digests are. Hints are off by default
//     (CheckOptions.Hints, rsx validate --hints): they are neither errors nor
//     warnings, and are not counted as either.
//
// Documented decisions:
//   - An unknown capability of the document itself is an error: the value
//     "conveys the nature of the document" and a Destination cannot process a
//     document whose nature it does not know. An unknown capability of a
//     Capability List entry is a hint: "additional capabilities may be defined
//     in other specifications" (section 6.1). For the same reason the capability
//     values of the Notification draft (change-notification,
//     framework-notification), which rsx supports, are a hint only.
//   - A relation type that is neither in the IANA registry (rsx knows it as of
//     2025) nor a URI is an error: "valid relation types must be registered".
//     A type registered since is reported until rsx learns of it.
//   - Constructs of the drafts that predate the standard (rs:fixity, rs:size,
//     unprefixed modified and etag on <rs:md>, the beta namespace) are errors
//     (legacy-draft): each breaks a "must" of section 7 (attributes of other
//     specifications must be in another namespace, with a prefix; <rs:md> is
//     mandatory in the standard's namespace). The message says what replaced
//     them.
//   - A Capability List index is a warning (section 9: "should not"); a Source
//     Description Index is allowed (section 8); a manifest index is an error.
//   - The ResourceSync Archives specification, 1.0 (openarchives.org/rs/1.0/archives),
//     is followed; its sections are cited as "AR2" … "AR6": AR2 advertising
//     archives in the Capability List and the archives link, AR3 Resource List
//     Archive, AR4 Resource Dump Archive, AR5 Change List Archive, AR6 Change
//     Dump Archive. The 0.9 beta draft has the same content in sections 2–5,
//     with advertising in section 6; the 2013 D-Lib paper described archives as
//     <sitemapindex> documents listing the archived documents, where 1.0 makes
//     an archive a <urlset> and its <sitemapindex> form an index of archive
//     parts (Example 3.2). The four archive capabilities are known values, and a
//     Capability List entry for one is valid. An archive entry carries the times
//     of the document it lists: at and completed in Resource List and Resource
//     Dump Archives, from and until in Change List and Change Dump Archives. The
//     other pair there is entry-time-not-used, an error, because section 7 says
//     at "is not used for Change Lists" (and from not for snapshots): the entry
//     speaks for such a document. A missing at or from is a warning
//     (archive-entry-at-missing, archive-entry-from-missing): every example of
//     the Archives text gives one, but rsx could not consult its normative
//     wording in full, and an archive without them can still be read in order.
//     No rule is made of what that text does not say (the order of entries,
//     contiguity): the coverage of a Change List Archive is computed instead
//     (Coverage), not judged.

// Rule describes one conformance rule.
type Rule struct {
	ID       string
	Section  string // section of Z39.99-2017 ("7", "12.1", "A"); "N3" is section 3 of the Notification draft, "AR5" section 5 of the Archives specification 1.0
	Severity Severity
	Summary  string
	// Basis is the sentence of the specification the rule and its severity
	// rest on, quoted ("" where the summary says it).
	Basis string
}

// String returns "error", "warning" or "hint".
func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	case SeverityHint:
		return "hint"
	}
	return "unknown"
}

// ruleID indexes the catalogue; the checker refers to rules by these constants.
type ruleID uint8

const (
	rXMLMalformed ruleID = iota
	rRootNotSitemap
	rRootNamespace
	rRootCapability
	rCapabilityListIndex
	rMDMissing
	rMDRepeated
	rCapabilityMissing
	rCapabilityUnknown
	rCapabilityDraft
	rMDAtMissing
	rMDFromMissing
	rMDTimeNotUsed
	rMDTimeUnexpected
	rCompletedBeforeAt
	rUntilBeforeFrom
	rUpLinkMissing
	rCapabilityListUpLink
	rUpLinkRepeated
	rDescribedbyRecommended
	rEntriesTooMany
	rDocumentTooLarge
	rLegacyDraft
	rAttributePrefixed
	rAttributeUnqualified
	rElementUnexpected
	rLocMissing
	rLocEmpty
	rLocRepeated
	rLocNotAbsolute
	rLocInvalidChar
	rLocWhitespace
	rLocDuplicate
	rEntryTimeNotUsed
	rEntryFromRecommended
	rChangeListIndexUntilRequired
	rIndexIntervalOutside
	rDatetimeInInterval
	rChangeListOrder
	rChangeDumpManifestOrder
	rChangeListIndexOrder
	rChangeDumpOrder
	rChangeMissing
	rChangeInvalid
	rChangeUnexpected
	rDatetimeUnexpected
	rChangeListNoDatetime
	rPathMissing
	rPathNotAbsolute
	rPathUnsafe
	rPathDuplicate
	rPathUnexpected
	rCapabilityListDuplicate
	rCapabilityListEntryCapability
	rCapabilityListEntryInvalid
	rEntryCapabilityUnknown
	rDescriptionEntryCapability
	rEntryCapabilityUnexpected
	rHashSyntax
	rHashAlgorithmUnknown
	rHashNotHex
	rHashBase64
	rHashLength
	rHashRepeated
	rLengthInvalid
	rTypeInvalid
	rDatetimeInvalid
	rDatetimeFormat
	rLastmodInvalid
	rChangefreqInvalid
	rLastmodAfterSnapshot
	rLinkRelMissing
	rLinkHrefMissing
	rLinkHrefNotAbsolute
	rLinkHrefInvalidChar
	rLinkPri
	rPatchLinkType
	rPatchLinkPath
	rPatchLinkContext
	rTimegateLinkAttributes
	rLinkRelUnregistered
	rDumpMixedFormats
	rAlternateLinkType
	rMementoLinkModified
	rArchiveEntryAtMissing
	rArchiveEntryFromMissing
	rDescriptionEntryDescribedby
	rDumpEntryTypeLength
	rDumpPackageFormat
	rManifestTypeRecommended
	rChangeDumpManifestType
	rDuplicateLinkAttributes
	rViaLinkRepeated
	rAttributeUnexpected
	rNotificationChannelShared
	rTypeUnregistered
	rLinkAttributeUnexpected
	rChangeDumpEntryTypeLength
	numRules // keep last
)

// ruleTable is the catalogue: one row per ruleID, indexed by it. The
// compiler rejects two rows for one ruleID and a ruleID past numRules; a
// ruleID left without a row is caught by TestRuleTableHasOneRowPerRuleID.
// A rule's Basis quotes the sentence of Z39.99-2017 it rests on: for every
// warning and hint the words that make it one (see the severity policy
// above), and for errors where the summary does not say it.
//
// Read only: nothing writes to it after initialisation; Rules and RuleByID
// hand out copies.
var ruleTable = [numRules]Rule{
	rXMLMalformed: {ID: "xml-malformed", Section: "7", Severity: SeverityError,
		Summary: "the document is not well-formed XML (or could not be read to its end)"},
	rRootNotSitemap: {ID: "root-not-sitemap", Section: "7", Severity: SeverityError,
		Summary: "the root element is not <urlset> or <sitemapindex> (e.g. an HTML page or an Atom feed)"},
	rRootNamespace: {ID: "root-namespace", Section: "7", Severity: SeverityError,
		Summary: "the root element is not in the Sitemap namespace " + NSSitemap},
	rRootCapability: {ID: "root-capability-mismatch", Section: "6.1", Severity: SeverityError,
		Summary: "the root element does not fit the capability (manifests are <urlset> documents)"},
	rCapabilityListIndex: {ID: "capabilitylist-index", Section: "9", Severity: SeverityWarning,
		Summary: "a Capability List should not be a <sitemapindex>",
		Basis:   "§9: \"no <sitemapindex> document structure is necessary and Sources should not generate such structures.\""},
	rMDMissing: {ID: "md-missing", Section: "7", Severity: SeverityError,
		Summary: "the mandatory document-level <rs:md> element is missing"},
	rMDRepeated: {ID: "md-repeated", Section: "7", Severity: SeverityError,
		Summary: "<rs:md> is not repeatable (document level or entry)"},
	rCapabilityMissing: {ID: "capability-missing", Section: "7", Severity: SeverityError,
		Summary: "the document-level <rs:md> has no capability attribute"},
	rCapabilityUnknown: {ID: "capability-unknown", Section: "7", Severity: SeverityError,
		Summary: "the document's capability is not a defined value"},
	rCapabilityDraft: {ID: "capability-draft", Section: "6.1", Severity: SeverityHint,
		Summary: "capability value defined by the ResourceSync Notification draft (change-notification, framework-notification), not by the standard",
		Basis:   "§6.1: \"Additional capabilities may be defined in other specifications.\" The Notification draft defines these; rsx supports them."},
	rMDAtMissing: {ID: "md-at-missing", Section: "A", Severity: SeverityError,
		Summary: "at is mandatory on the document-level <rs:md> of Resource Lists, Resource Dumps, their indexes and Resource Dump Manifests"},
	rMDFromMissing: {ID: "md-from-missing", Section: "A", Severity: SeverityError,
		Summary: "from is mandatory on the document-level <rs:md> of Change Lists, Change Dumps, their indexes and Change Dump Manifests"},
	rMDTimeNotUsed: {ID: "md-time-not-used", Section: "A", Severity: SeverityError,
		Summary: "at/completed are not used in change documents, from/until not in snapshot documents",
		Basis:   "§7: at \"is not used for Change Lists, Change List Indexes, Change Dumps, Change Dump Indexes, and Change Dump Manifests\" (from, likewise, for the snapshot documents); Appendix A, Table 4, which is normative."},
	rMDTimeUnexpected: {ID: "md-time-unexpected", Section: "7", Severity: SeverityHint,
		Summary: "at/completed/from/until are not defined for Source Descriptions and Capability Lists",
		Basis:   "§7 lists the documents at, completed, from and until are used for; Source Descriptions and Capability Lists are in neither list, and no sentence forbids them there."},
	rCompletedBeforeAt: {ID: "completed-before-at", Section: "7", Severity: SeverityError,
		Summary: "completed must not be before at",
		Basis:   "§7: at conveys when \"the process of taking a snapshot ... started\", completed when it \"completed\". No sentence says \"must\", but a process does not complete before it starts: the values cannot be what the attributes say, an error by the severity policy."},
	rUntilBeforeFrom: {ID: "until-before-from", Section: "7", Severity: SeverityError,
		Summary: "until must not be before from",
		Basis:   "§7: from and until bound \"the temporal interval covered\" (§12.1): all changes \"since\" from and \"up until\" until. No sentence says \"must\", but an interval does not end before it starts: the values cannot be what the attributes say, an error by the severity policy."},
	rUpLinkMissing: {ID: "up-link-missing", Section: "6.2", Severity: SeverityError,
		Summary: `every document but the Source Description must have an <rs:ln rel="up"> link to its parent`},
	rCapabilityListUpLink: {ID: "capabilitylist-up-link", Section: "9", Severity: SeverityError,
		Summary: `a Capability List must have an <rs:ln rel="up"> link to the Source Description`},
	rUpLinkRepeated: {ID: "up-link-repeated", Section: "6.2", Severity: SeverityHint,
		Summary: `more than one document-level <rs:ln rel="up"> link`,
		Basis:   "§6.2, §9–13: one up link is mandatory; no sentence forbids a second."},
	rDescribedbyRecommended: {ID: "describedby-recommended", Section: "8", Severity: SeverityWarning,
		Summary: `a Source Description or Capability List should have an <rs:ln rel="describedby"> link`,
		Basis:   "§8: \"A recommended <rs:ln> child element of <urlset> with the relation type describedby points to a document that provides information about the Source.\" §9 says the same of a Capability List."},
	rEntriesTooMany: {ID: "entries-too-many", Section: "7", Severity: SeverityError,
		Summary: "more than 50,000 entries in one document"},
	rDocumentTooLarge: {ID: "document-too-large", Section: "7", Severity: SeverityError,
		Summary: "document larger than 50 MB"},
	rLegacyDraft: {ID: "legacy-draft", Section: "7", Severity: SeverityError,
		Summary: "construct of a draft that predates the standard (beta namespace, rs:fixity, rs:size, modified, etag, …)",
		Basis:   "§7: \"these attributes must not have an XML Namespace prefix\"; \"Communities may introduce additional attributes when needed but must use an XML Namespace other than that of ResourceSync and must appropriately use namespace prefixes for those attributes.\" Draft elements and the beta namespace are not the standard's <rs:md> and <rs:ln>."},
	rAttributePrefixed: {ID: "attribute-prefixed", Section: "7", Severity: SeverityError,
		Summary: "ResourceSync attributes must not have a namespace prefix"},
	rAttributeUnqualified: {ID: "attribute-unqualified", Section: "7", Severity: SeverityError,
		Summary: "attributes not defined by ResourceSync must be in another namespace, with a prefix"},
	rElementUnexpected: {ID: "element-unexpected", Section: "7", Severity: SeverityError,
		Summary: "Sitemap or ResourceSync element where the formats do not define it"},
	rLocMissing: {ID: "loc-missing", Section: "7", Severity: SeverityError,
		Summary: "an entry has no <loc>"},
	rLocEmpty: {ID: "loc-empty", Section: "7", Severity: SeverityError,
		Summary: "an entry's <loc> is empty"},
	rLocRepeated: {ID: "loc-repeated", Section: "7", Severity: SeverityError,
		Summary: "an entry has more than one <loc>"},
	rLocNotAbsolute: {ID: "loc-not-absolute", Section: "7", Severity: SeverityError,
		Summary: "<loc> is not an absolute URI (scheme and, for http(s), host)"},
	rLocInvalidChar: {ID: "loc-invalid-char", Section: "7", Severity: SeverityError,
		Summary: "<loc> holds characters a URI cannot contain (spaces, controls, <>\"{}|\\^`, a % not followed by two hex digits)"},
	rLocWhitespace: {ID: "loc-whitespace", Section: "7", Severity: SeverityHint,
		Summary: "whitespace around the URI in <loc>",
		Basis:   "No sentence: the Sitemap schema's <loc> is an xsd:anyURI, whose white space is collapsed, so clients that follow the schema trim it."},
	rLocDuplicate: {ID: "loc-duplicate", Section: "10.1", Severity: SeverityWarning,
		Summary: "the same URI is listed twice in a document that lists each resource once",
		Basis:   "§10.1: \"One <url> child element of <urlset> should be included for each resource\" (and likewise for each Capability List, package and Change List in §8, §11.1, §12.2, §13.1)."},
	rEntryTimeNotUsed: {ID: "entry-time-not-used", Section: "A", Severity: SeverityError,
		Summary: "at/completed/from/until on an entry of a document where Table 4 does not use them",
		Basis:   "§7: at \"is not used for Change Lists, Change List Indexes, Change Dumps, Change Dump Indexes, and Change Dump Manifests\" (from, likewise, for the snapshot documents); Appendix A, Table 4, which is normative."},
	rEntryFromRecommended: {ID: "entry-from-recommended", Section: "A", Severity: SeverityWarning,
		Summary: "entries of Change List Indexes, Change Dumps and Change Dump Indexes should have <rs:md from=…>",
		Basis:   "Appendix A, Table 4: /top/child/rs:md/@from is \"Recommended\" in Change List Indexes, Change Dumps and Change Dump Indexes; §12.2: \"A recommended <rs:md> child element with the from and possibly until attributes\"."},
	rChangeListIndexUntilRequired: {ID: "changelistindex-until-required", Section: "12.2", Severity: SeverityError,
		Summary: "a closed Change List's entry in a Change List Index requires until"},
	rIndexIntervalOutside: {ID: "index-interval-outside", Section: "12.2", Severity: SeverityHint,
		Summary: "an entry's from/until lies outside the document's from/until",
		Basis:   "No sentence requires the entries of a Change List Index to lie within its own from and until."},
	rDatetimeInInterval: {ID: "md-datetime-in-interval", Section: "7", Severity: SeverityError,
		Summary: "an entry's datetime must be within the document's [from, until]"},
	rChangeListOrder: {ID: "changelist-order", Section: "12.1", Severity: SeverityError,
		Summary: "Change List entries must be in forward chronological order of datetime"},
	rChangeDumpManifestOrder: {ID: "changedump-manifest-order", Section: "13.2", Severity: SeverityError,
		Summary: "Change Dump Manifest entries must be in forward chronological order of datetime"},
	rChangeListIndexOrder: {ID: "changelistindex-order", Section: "12.2", Severity: SeverityError,
		Summary: "a Change List Index must enumerate Change Lists in forward chronological order (from)"},
	rChangeDumpOrder: {ID: "changedump-order", Section: "13.1", Severity: SeverityWarning,
		Summary: "Change Dump (and index) entries should be in forward chronological order (from)",
		Basis:   "§13.1: \"All entries in a Change Dump should be provided in forward chronological order\"."},
	rChangeMissing: {ID: "change-missing", Section: "12.1", Severity: SeverityError,
		Summary: "Change List and Change Dump Manifest entries must have <rs:md change=…>"},
	rChangeInvalid: {ID: "change-invalid", Section: "7", Severity: SeverityError,
		Summary: "change must be created, updated or deleted"},
	rChangeUnexpected: {ID: "change-unexpected", Section: "7", Severity: SeverityHint,
		Summary: "change is used in Change Lists and Change Dump Manifests only",
		Basis:   "§7: change \"is used in Change Lists (Section 12.1) and Change Dump Manifests (Section 13.2)\": a use, not a restriction."},
	rDatetimeUnexpected: {ID: "datetime-unexpected", Section: "7", Severity: SeverityHint,
		Summary: "datetime is used in Change Lists and Change Dump Manifests only",
		Basis:   "§7: datetime \"may be used in Change Lists (Section 12.1) and Change Dump Manifests (Section 13.2).\""},
	rChangeListNoDatetime: {ID: "changelist-no-datetime", Section: "12.1", Severity: SeverityHint,
		Summary: "no entry has a datetime attribute: ResourceSync 1.0 style, lastmod is not the change time",
		Basis:   "§7: datetime \"may be used in Change Lists\"; §12.1: \"The Source can make it easier for a Destination to determine which change event it has last processed by providing a datetime attribute for each event.\""},
	rPathMissing: {ID: "path-missing", Section: "11.2", Severity: SeverityError,
		Summary: "manifest entries must have <rs:md path=…> (except change=\"deleted\")"},
	rPathNotAbsolute: {ID: "path-not-absolute", Section: "11.2", Severity: SeverityError,
		Summary: "path must be expressed with a leading slash"},
	rPathUnsafe: {ID: "path-unsafe", Section: "11.2", Severity: SeverityError,
		Summary: "path escapes the package or is not a clean, portable relative path (.., . or empty segment, trailing slash, backslash, NUL, control or bidirectional character, not UTF-8, drive letter)"},
	rPathDuplicate: {ID: "path-duplicate", Section: "11.2", Severity: SeverityError,
		Summary: "two bitstreams of one manifest at the same path",
		Basis:   "§7: path is \"the relative file system path where the bitstream would reside if the ZIP were unpacked\"; §13.2: a resource changed twice has \"two bitstreams ..., available at different paths in the package\". Two bitstreams cannot reside at one path: an error."},
	rPathUnexpected: {ID: "path-unexpected", Section: "7", Severity: SeverityWarning,
		Summary: "path is used in Resource Dump Manifests and Change Dump Manifests only",
		Basis:   "§7: \"The attribute is only used in Resource Dump Manifests (Section 11.2) and Change Dump Manifests (Section 13.2).\" A restriction without \"must\": a warning."},
	rCapabilityListDuplicate: {ID: "capabilitylist-duplicate", Section: "9", Severity: SeverityError,
		Summary: "a Capability List must only contain one entry per capability"},
	rCapabilityListEntryCapability: {ID: "capabilitylist-entry-capability", Section: "9", Severity: SeverityError,
		Summary: "Capability List entries must have <rs:md capability=…>"},
	rCapabilityListEntryInvalid: {ID: "capabilitylist-entry-invalid", Section: "9", Severity: SeverityError,
		Summary: "a Capability List entry must point to a capability document (resourcelist, resourcedump, changelist, changedump, or an archive of one of them)"},
	rEntryCapabilityUnknown: {ID: "entry-capability-unknown", Section: "9", Severity: SeverityHint,
		Summary: "a Capability List entry has a capability this specification does not define",
		Basis:   "§6.1: \"Additional capabilities may be defined in other specifications.\""},
	rDescriptionEntryCapability: {ID: "description-entry-capability", Section: "8", Severity: SeverityError,
		Summary: "a Source Description entry's <rs:md> must have capability=\"capabilitylist\""},
	rEntryCapabilityUnexpected: {ID: "entry-capability-unexpected", Section: "7", Severity: SeverityHint,
		Summary: "capability on an entry of a document other than a Source Description or Capability List",
		Basis:   "§7: capability \"is mandatory in Source Descriptions and Capability Lists\"; no sentence forbids it elsewhere."},
	rHashSyntax: {ID: "hash-syntax", Section: "7", Severity: SeverityError,
		Summary: "hash must be a whitespace-delimited list of alg:digest tokens"},
	rHashAlgorithmUnknown: {ID: "hash-algorithm-unknown", Section: "7", Severity: SeverityHint,
		Summary: "hash algorithm not recognised (md5, sha-1, sha-256, sha-384, sha-512)",
		Basis:   "§7: a digest \"is preceded by a token that identifies the utilized hash algorithm, e.g., md5:, sha-256:\" — examples, not a closed list."},
	rHashNotHex: {ID: "hash-not-hex", Section: "7", Severity: SeverityWarning,
		Summary: "digest is not hex as section 7 requires",
		Basis:   "§7: \"Each hash value is represented by a hex-encoded digest\". A statement of form that the standard's own Example 27 does not keep, so a warning, not an error."},
	rHashBase64: {ID: "hash-base64", Section: "7", Severity: SeverityWarning,
		Summary: "digest is base64 (resync-client-ruby practice), not hex as section 7 requires",
		Basis:   "§7: \"Each hash value is represented by a hex-encoded digest\". A statement of form that the standard's own Example 27 does not keep, so a warning, not an error."},
	rHashLength: {ID: "hash-length", Section: "7", Severity: SeverityError,
		Summary: "hex digest of the wrong length for its algorithm"},
	rHashRepeated: {ID: "hash-repeated", Section: "7", Severity: SeverityHint,
		Summary: "the same hash algorithm is given twice",
		Basis:   "No sentence forbids giving one algorithm twice in the hash attribute's list."},
	rLengthInvalid: {ID: "length-invalid", Section: "7", Severity: SeverityError,
		Summary: "length must be a non-negative integer"},
	rTypeInvalid: {ID: "type-invalid", Section: "7", Severity: SeverityError,
		Summary: "type is not a media type (type/subtype)",
		Basis:   "§7: \"The value of the attribute conveys the Media Type of a resource representation\". A value without the type/subtype form of a Media Type (RFC 6838, section 4.2) cannot be one: a value that cannot be what the attribute says it is, an error by the severity policy (an unregistered top-level type is type-unregistered, a warning)."},
	rDatetimeInvalid: {ID: "datetime-invalid", Section: "7", Severity: SeverityError,
		Summary: "at, completed, from, until, datetime and modified must be W3C Datetimes (with a time zone when a time is given)"},
	rDatetimeFormat: {ID: "datetime-format-recommended", Section: "7", Severity: SeverityWarning,
		Summary: "a complete date and time in UTC (YYYY-MM-DDThh:mm:ss[.s]Z) is recommended",
		Basis:   "§7: \"the use of a complete date and time expressed in UTC using the format YYYY-MM-DDThh:mm:ss[.s]Z is recommended.\""},
	rLastmodInvalid: {ID: "lastmod-invalid", Section: "7", Severity: SeverityError,
		Summary: "<lastmod> must be a W3C Datetime"},
	rChangefreqInvalid: {ID: "changefreq-invalid", Section: "7", Severity: SeverityError,
		Summary: "<changefreq> must be always, hourly, daily, weekly, monthly, yearly or never"},
	rLastmodAfterSnapshot: {ID: "lastmod-after-snapshot", Section: "10.1", Severity: SeverityHint,
		Summary: "a Resource List entry's lastmod is after the snapshot (completed, or at)",
		Basis:   "§7: \"there is significant variation in practices for the use and maintenance of last modification times\"; no sentence bounds lastmod by at or completed."},
	rLinkRelMissing: {ID: "link-rel-missing", Section: "7", Severity: SeverityError,
		Summary: "<rs:ln> must have a rel attribute"},
	rLinkHrefMissing: {ID: "link-href-missing", Section: "7", Severity: SeverityError,
		Summary: "<rs:ln> must have an href attribute"},
	rLinkHrefNotAbsolute: {ID: "link-href-not-absolute", Section: "7", Severity: SeverityError,
		Summary: "an <rs:ln> href is not an absolute URI (scheme and, for http(s), host): links, like <loc>, convey URIs",
		Basis:   "§7: href is \"A mandatory attribute to convey the URI of the related resource\" (\"of the other document\" at document level), as <loc> \"conveys the URI of the resource\": a URI, not a relative reference (RFC 3986)."},
	rLinkHrefInvalidChar: {ID: "link-href-invalid-char", Section: "7", Severity: SeverityError,
		Summary: "an <rs:ln> href holds characters a URI cannot contain (spaces, controls, <>\"{}|\\^`, a % not followed by two hex digits)",
		Basis:   "§7: href is \"A mandatory attribute to convey the URI of the related resource\" (\"of the other document\" at document level), as <loc> \"conveys the URI of the resource\": a URI, not a relative reference (RFC 3986)."},
	rLinkPri: {ID: "link-pri", Section: "7", Severity: SeverityError,
		Summary: "pri must be an integer between 1 and 999,999"},
	rPatchLinkType: {ID: "patch-link-type", Section: "14.4", Severity: SeverityError,
		Summary: "a patch link must have a type attribute"},
	rPatchLinkPath: {ID: "patch-link-path", Section: "14.4", Severity: SeverityError,
		Summary: "a patch link in a Change Dump Manifest must have a path attribute"},
	rPatchLinkContext: {ID: "patch-link-context", Section: "14.4", Severity: SeverityWarning,
		Summary: "patch links are only applicable to Change Lists and Change Dumps",
		Basis:   "§14.4: \"Expressing resource changes in this manner is only applicable to Change Lists (as in Example 27) and Change Dumps.\" A restriction without \"must\": a warning."},
	rTimegateLinkAttributes: {ID: "timegate-link-attributes", Section: "14.6", Severity: SeverityWarning,
		Summary: "attributes other than rel and href should not be used on a timegate link",
		Basis:   "§14.6: \"The other attributes described for the <rs:ln> child element of <url> in Section 7 should not be used as they are meaningless for TimeGates.\""},
	rLinkRelUnregistered: {ID: "link-rel-unregistered", Section: "7", Severity: SeverityError,
		Summary: "relation types must be registered with IANA or be URIs (RFC 5988, section 4.2); rsx knows the registry as of 2025",
		Basis:   "§7: \"Valid relation types must be registered in the IANA Link Relation Type Registry or expressed as URIs as specified in RFC 5988, Sec. 4.2.\""},
	rDumpMixedFormats: {ID: "dump-mixed-formats", Section: "11.1", Severity: SeverityWarning,
		Summary: "a Resource Dump or Change Dump should only point to packages of the same format (type)",
		Basis:   "§11.1: \"A Resource Dump should only point to packages of the same format.\" §13.1 says the same of a Change Dump."},
	rAlternateLinkType: {ID: "alternate-link-type", Section: "14.3", Severity: SeverityWarning,
		Summary: "a link to an alternate representation should have a type attribute",
		Basis:   "§14.3: \"A recommended type attribute that conveys the Media Type of the alternate representation.\""},
	rMementoLinkModified: {ID: "memento-link-modified", Section: "14.6", Severity: SeverityHint,
		Summary: "a memento link conveys the version's datetime in its modified attribute",
		Basis:   "§14.6: \"The last modified datetime of the resource version identified by the time-specific URI is conveyed by the value of the modified attribute\": where it is conveyed, not that it must be."},
	rArchiveEntryAtMissing: {ID: "archive-entry-at-missing", Section: "AR3", Severity: SeverityWarning,
		Summary: "an entry of a Resource List Archive or Resource Dump Archive has no at: when the listed document's snapshot was taken (Archives sections 3, 4)",
		Basis:   "Archives 1.0 §3, §4 (0.9 §2, §3): an archive lists the Resource Lists (Resource Dumps) a Source published over time, each entry's <rs:md> conveying the at (and completed) of the document it lists, as in Examples 3.1 and 4.1, where every entry has one. rsx could not consult the normative wording in full: a missing at is held as a warning, not an error."},
	rArchiveEntryFromMissing: {ID: "archive-entry-from-missing", Section: "AR5", Severity: SeverityWarning,
		Summary: "an entry of a Change List Archive or Change Dump Archive has no from: the start of the interval the listed document covers (Archives sections 5, 6)",
		Basis:   "Archives 0.9 §1: \"a Change List Archive allows a server to list a timestamped set of historical Change Lists\"; 1.0 §5, §6 (0.9 §4, §5): each entry's <rs:md> conveys the from and until of the document it lists, as in Examples 5.1 and 6.1, where every entry has them. rsx could not consult the normative wording in full: a missing from is held as a warning, not an error."},
	rDescriptionEntryDescribedby: {ID: "description-entry-describedby", Section: "8", Severity: SeverityWarning,
		Summary: `a Source Description entry should have an <rs:ln rel="describedby"> link to a document that describes the Capability List's set of resources`,
		Basis:   "§8: \"A recommended <rs:ln> child element with a describedby relation type points to a document that describes the set of resources described by the Capability List.\""},
	rDumpEntryTypeLength: {ID: "dump-entry-type-length", Section: "11.1", Severity: SeverityHint,
		Summary: "a Resource Dump entry has no <rs:md> with the type and length of its package (recommended; a Change Dump's is changedump-entry-type-length)",
		Basis:   "§11.1: \"A recommended <rs:md> child element to convey the Media Type and the length of the package using the type and length attribute, respectively\". A recommendation, hence a warning by the policy, but the standard's own Example 4 (the walkthrough's Resource Dump) has an entry without <rs:md>: held as a hint, as the policy holds statements the examples do not keep one step lower. A Change Dump's example keeps it (changedump-entry-type-length, a warning)."},
	rDumpPackageFormat: {ID: "dump-package-format", Section: "11.1", Severity: SeverityWarning,
		Summary: "a package of a Resource Dump or Change Dump is not a ZIP file (type is not application/zip), the format the framework recommends (sections 11.1, 13.1)",
		Basis:   "§11.1: \"The ResourceSync framework recommends the use of the ZIP file format as the packaging format. Communities may define their own packaging format, but need to be aware that doing so will have a negative impact on cross-community interoperability.\" §13.1: \"The ResourceSync framework specifies the use of the ZIP file format as the packaging format. Communities may define their own packaging format.\" Allowed, so not an error."},
	rManifestTypeRecommended: {ID: "manifest-type-recommended", Section: "11.2", Severity: SeverityHint,
		Summary: "a Resource Dump Manifest entry has no type attribute, whose use is recommended",
		Basis:   "§11.2: \"The use of the type attribute in the <rs:md> element is recommended to help Destinations determine the Media Type of the bitstream.\" A recommendation, but the standard's own Example 5 (the walkthrough's Resource Dump Manifest) has no type: held as a hint (compare changedump-manifest-type, \"strongly recommended\", a warning)."},
	rChangeDumpManifestType: {ID: "changedump-manifest-type", Section: "13.2", Severity: SeverityWarning,
		Summary: "a Change Dump Manifest entry other than change=\"deleted\" has no type attribute, whose use is strongly recommended",
		Basis:   "§13.2: \"The use of the type attribute in the <rs:md> element is strongly recommended to help Destinations determine the Media Type of the bitstream.\" A deleted resource has no bitstream, so change=\"deleted\" entries are left out."},
	rDuplicateLinkAttributes: {ID: "duplicate-link-attributes", Section: "14.2", Severity: SeverityWarning,
		Summary: "a duplicate (mirror) link repeats <rs:md> attributes (hash, length, type, encoding, path), which should be omitted from it",
		Basis:   "§14.2: \"the values for each of the attributes of <rs:md> are expected to be identical for the resource and its mirrors. Hence, they should be omitted from the <rs:ln> elements.\" The modified attribute is not one of them: \"their last modified datetimes may vary\"."},
	rViaLinkRepeated: {ID: "via-link-repeated", Section: "14.8", Severity: SeverityWarning,
		Summary: "an entry has more than one via link: an aggregator should keep only the existing via link to the original resource",
		Basis:   "§14.8: \"In this case each aggregator should maintain only the existing via link in order to convey information about the origin of the resource.\""},
	rAttributeUnexpected: {ID: "attribute-unexpected", Section: "7", Severity: SeverityWarning,
		Summary: "a ResourceSync attribute on the document-level <rs:md> other than those Table 3 gives it (at, capability, completed, from, until)",
		Basis:   "§7: the document-level <rs:md> \"may have the following attributes: at, capability, completed, from, until\"; Table 3 lists the attributes \"defined by ResourceSync that may be used with\" each element. A use outside that list, worded without \"must\": a warning. (The document-level <rs:ln> is link-attribute-unexpected.)"},
	rNotificationChannelShared: {ID: "notification-channels-shared", Section: "N2", Severity: SeverityWarning,
		Summary: "a Capability List advertises one channel for both change and framework notifications (Notification draft, section 2)",
		Basis:   "Notification draft §2: \"Change Notifications and Framework Notifications are sent on different notification channels.\" A statement of the draft, not a \"must\": a warning."},
	rLinkAttributeUnexpected: {ID: "link-attribute-unexpected", Section: "7", Severity: SeverityHint,
		Summary: "a document-level <rs:ln> carries a ResourceSync attribute Table 3 gives only to an entry's <rs:ln> (type, length, hash, encoding, path, modified, pri)",
		Basis:   "§7: the document-level <rs:ln> \"may have several attributes and the ones defined by ResourceSync are as follows\": href and rel. Table 3 gives it no others, but the list is open and no sentence restricts it: what the standard leaves free, a hint."},
	rChangeDumpEntryTypeLength: {ID: "changedump-entry-type-length", Section: "13.1", Severity: SeverityWarning,
		Summary: "a Change Dump entry has no <rs:md> with the type and length of its package (recommended)",
		Basis:   "§13.1: \"A recommended <rs:md> child element to convey the Media Type and the length of the package using the type and length attribute, respectively.\" Example 22, the Change Dump, gives both on every entry: a recommendation the standard keeps, a warning (compare dump-entry-type-length, a hint: the Resource Dump of Example 4 has neither)."},
	rTypeUnregistered: {ID: "type-unregistered", Section: "7", Severity: SeverityWarning,
		Summary: "type has a top-level type the IANA Media Types registry does not have (the subtype is not checked: rsx carries no copy of the registry)",
		Basis:   "§7: type \"conveys the Media Type of a resource representation\"; \"Registered values are listed in the IANA MIME Media Type registry.\" The top-level types are few (RFC 6838, section 4.2); a value outside them is no registered Media Type. A statement without \"must\": a warning, as type-invalid."},
}

// Rules returns the catalogue of every rule the Checker implements, in a fixed order.
func Rules() []Rule {
	out := make([]Rule, numRules)
	copy(out, ruleTable[:])
	return out
}

// RuleByID returns the rule with the given ID: one of Rules() or of
// NotificationRules().
func RuleByID(id string) (Rule, bool) {
	for i := range ruleTable {
		if ruleTable[i].ID == id {
			return ruleTable[i], true
		}
	}
	for i := range notificationRuleTable {
		if notificationRuleTable[i].ID == id {
			return notificationRuleTable[i], true
		}
	}
	return Rule{}, false
}
