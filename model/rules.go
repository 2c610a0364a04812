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
//     hash algorithm, whitespace around a URI). Hints are off by default
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

func mkRule(id, section string, sev Severity, summary string) Rule {
	return Rule{ID: id, Section: section, Severity: sev, Summary: summary}
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
	rDescriptionEntryDescribedby
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
	numRules // keep last
)

// ruleInfo returns the catalogue entry of id. A switch of constants: immutable and
// free of allocation.
func ruleInfo(id ruleID) Rule {
	const E, W, H = SeverityError, SeverityWarning, SeverityHint
	switch id {
	case rXMLMalformed:
		return mkRule("xml-malformed", "7", E, "the document is not well-formed XML (or could not be read to its end)")
	case rRootNotSitemap:
		return mkRule("root-not-sitemap", "7", E, "the root element is not <urlset> or <sitemapindex> (e.g. an HTML page or an Atom feed)")
	case rRootNamespace:
		return mkRule("root-namespace", "7", E, "the root element is not in the Sitemap namespace "+NSSitemap)
	case rRootCapability:
		return mkRule("root-capability-mismatch", "6.1", E, "the root element does not fit the capability (manifests are <urlset> documents)")
	case rCapabilityListIndex:
		return mkRule("capabilitylist-index", "9", W, "a Capability List should not be a <sitemapindex>")
	case rMDMissing:
		return mkRule("md-missing", "7", E, "the mandatory document-level <rs:md> element is missing")
	case rMDRepeated:
		return mkRule("md-repeated", "7", E, "<rs:md> is not repeatable (document level or entry)")
	case rCapabilityMissing:
		return mkRule("capability-missing", "7", E, "the document-level <rs:md> has no capability attribute")
	case rCapabilityUnknown:
		return mkRule("capability-unknown", "7", E, "the document's capability is not a defined value")
	case rCapabilityDraft:
		return mkRule("capability-draft", "6.1", H, "capability value defined by the ResourceSync Notification draft (change-notification, framework-notification), not by the standard")
	case rMDAtMissing:
		return mkRule("md-at-missing", "A", E, "at is mandatory on the document-level <rs:md> of Resource Lists, Resource Dumps, their indexes and Resource Dump Manifests")
	case rMDFromMissing:
		return mkRule("md-from-missing", "A", E, "from is mandatory on the document-level <rs:md> of Change Lists, Change Dumps, their indexes and Change Dump Manifests")
	case rMDTimeNotUsed:
		return mkRule("md-time-not-used", "A", E, "at/completed are not used in change documents, from/until not in snapshot documents")
	case rMDTimeUnexpected:
		return mkRule("md-time-unexpected", "7", H, "at/completed/from/until are not defined for Source Descriptions and Capability Lists")
	case rCompletedBeforeAt:
		return mkRule("completed-before-at", "7", E, "completed must not be before at")
	case rUntilBeforeFrom:
		return mkRule("until-before-from", "7", E, "until must not be before from")
	case rUpLinkMissing:
		return mkRule("up-link-missing", "6.2", E, `every document but the Source Description must have an <rs:ln rel="up"> link to its parent`)
	case rCapabilityListUpLink:
		return mkRule("capabilitylist-up-link", "9", E, `a Capability List must have an <rs:ln rel="up"> link to the Source Description`)
	case rUpLinkRepeated:
		return mkRule("up-link-repeated", "6.2", H, `more than one document-level <rs:ln rel="up"> link`)
	case rDescribedbyRecommended:
		return mkRule("describedby-recommended", "8", W, `a Source Description or Capability List should have an <rs:ln rel="describedby"> link`)
	case rEntriesTooMany:
		return mkRule("entries-too-many", "7", E, "more than 50,000 entries in one document")
	case rDocumentTooLarge:
		return mkRule("document-too-large", "7", E, "document larger than 50 MB")
	case rLegacyDraft:
		return mkRule("legacy-draft", "7", E, "construct of a draft that predates the standard (beta namespace, rs:fixity, rs:size, modified, etag, …)")
	case rAttributePrefixed:
		return mkRule("attribute-prefixed", "7", E, "ResourceSync attributes must not have a namespace prefix")
	case rAttributeUnqualified:
		return mkRule("attribute-unqualified", "7", E, "attributes not defined by ResourceSync must be in another namespace, with a prefix")
	case rElementUnexpected:
		return mkRule("element-unexpected", "7", E, "Sitemap or ResourceSync element where the formats do not define it")
	case rLocMissing:
		return mkRule("loc-missing", "7", E, "an entry has no <loc>")
	case rLocEmpty:
		return mkRule("loc-empty", "7", E, "an entry's <loc> is empty")
	case rLocRepeated:
		return mkRule("loc-repeated", "7", E, "an entry has more than one <loc>")
	case rLocNotAbsolute:
		return mkRule("loc-not-absolute", "7", E, "<loc> is not an absolute URI (scheme and, for http(s), host)")
	case rLocInvalidChar:
		return mkRule("loc-invalid-char", "7", E, "<loc> holds characters a URI cannot contain (spaces, controls, <>\"{}|\\^`)")
	case rLocWhitespace:
		return mkRule("loc-whitespace", "7", H, "whitespace around the URI in <loc>")
	case rLocDuplicate:
		return mkRule("loc-duplicate", "10.1", W, "the same URI is listed twice in a document that lists each resource once")
	case rEntryTimeNotUsed:
		return mkRule("entry-time-not-used", "A", E, "at/completed/from/until on an entry of a document where Table 4 does not use them")
	case rEntryFromRecommended:
		return mkRule("entry-from-recommended", "A", W, "entries of Change List Indexes, Change Dumps and Change Dump Indexes should have <rs:md from=…>")
	case rChangeListIndexUntilRequired:
		return mkRule("changelistindex-until-required", "12.2", E, "a closed Change List's entry in a Change List Index requires until")
	case rIndexIntervalOutside:
		return mkRule("index-interval-outside", "12.2", H, "an entry's from/until lies outside the document's from/until")
	case rDatetimeInInterval:
		return mkRule("md-datetime-in-interval", "7", E, "an entry's datetime must be within the document's [from, until]")
	case rChangeListOrder:
		return mkRule("changelist-order", "12.1", E, "Change List entries must be in forward chronological order of datetime")
	case rChangeDumpManifestOrder:
		return mkRule("changedump-manifest-order", "13.2", E, "Change Dump Manifest entries must be in forward chronological order of datetime")
	case rChangeListIndexOrder:
		return mkRule("changelistindex-order", "12.2", E, "a Change List Index must enumerate Change Lists in forward chronological order (from)")
	case rChangeDumpOrder:
		return mkRule("changedump-order", "13.1", W, "Change Dump (and index) entries should be in forward chronological order (from)")
	case rChangeMissing:
		return mkRule("change-missing", "12.1", E, "Change List and Change Dump Manifest entries must have <rs:md change=…>")
	case rChangeInvalid:
		return mkRule("change-invalid", "7", E, "change must be created, updated or deleted")
	case rChangeUnexpected:
		return mkRule("change-unexpected", "7", H, "change is used in Change Lists and Change Dump Manifests only")
	case rDatetimeUnexpected:
		return mkRule("datetime-unexpected", "7", H, "datetime is used in Change Lists and Change Dump Manifests only")
	case rChangeListNoDatetime:
		return mkRule("changelist-no-datetime", "12.1", H, "no entry has a datetime attribute: ResourceSync 1.0 style, lastmod is not the change time")
	case rPathMissing:
		return mkRule("path-missing", "11.2", E, "manifest entries must have <rs:md path=…> (except change=\"deleted\")")
	case rPathNotAbsolute:
		return mkRule("path-not-absolute", "11.2", E, "path must be expressed with a leading slash")
	case rPathUnsafe:
		return mkRule("path-unsafe", "11.2", E, "path escapes the package or is not a portable relative path (.., backslash, NUL, drive letter)")
	case rPathDuplicate:
		return mkRule("path-duplicate", "11.2", E, "two bitstreams of one manifest at the same path")
	case rPathUnexpected:
		return mkRule("path-unexpected", "7", W, "path is used in Resource Dump Manifests and Change Dump Manifests only")
	case rCapabilityListDuplicate:
		return mkRule("capabilitylist-duplicate", "9", E, "a Capability List must only contain one entry per capability")
	case rCapabilityListEntryCapability:
		return mkRule("capabilitylist-entry-capability", "9", E, "Capability List entries must have <rs:md capability=…>")
	case rCapabilityListEntryInvalid:
		return mkRule("capabilitylist-entry-invalid", "9", E, "a Capability List entry must point to a capability document (resourcelist, resourcedump, changelist, changedump, or an archive of one of them)")
	case rEntryCapabilityUnknown:
		return mkRule("entry-capability-unknown", "9", H, "a Capability List entry has a capability this specification does not define")
	case rDescriptionEntryCapability:
		return mkRule("description-entry-capability", "8", E, "a Source Description entry's <rs:md> must have capability=\"capabilitylist\"")
	case rDescriptionEntryDescribedby:
		return mkRule("description-entry-describedby", "8", W, `a Source Description entry should have an <rs:ln rel="describedby"> link to a description of its Capability List's set of resources`)
	case rEntryCapabilityUnexpected:
		return mkRule("entry-capability-unexpected", "7", H, "capability on an entry of a document other than a Source Description or Capability List")
	case rHashSyntax:
		return mkRule("hash-syntax", "7", E, "hash must be a whitespace-delimited list of alg:digest tokens")
	case rHashAlgorithmUnknown:
		return mkRule("hash-algorithm-unknown", "7", H, "hash algorithm not recognised (md5, sha-1, sha-256, sha-384, sha-512)")
	case rHashNotHex:
		return mkRule("hash-not-hex", "7", W, "digest is not hex as section 7 requires")
	case rHashBase64:
		return mkRule("hash-base64", "7", W, "digest is base64 (resync-client-ruby practice), not hex as section 7 requires")
	case rHashLength:
		return mkRule("hash-length", "7", E, "hex digest of the wrong length for its algorithm")
	case rHashRepeated:
		return mkRule("hash-repeated", "7", H, "the same hash algorithm is given twice")
	case rLengthInvalid:
		return mkRule("length-invalid", "7", E, "length must be a non-negative integer")
	case rTypeInvalid:
		return mkRule("type-invalid", "7", W, "type is not a media type (type/subtype)")
	case rDatetimeInvalid:
		return mkRule("datetime-invalid", "7", E, "at, completed, from, until, datetime and modified must be W3C Datetimes (with a time zone when a time is given)")
	case rDatetimeFormat:
		return mkRule("datetime-format-recommended", "7", W, "a complete date and time in UTC (YYYY-MM-DDThh:mm:ss[.s]Z) is recommended")
	case rLastmodInvalid:
		return mkRule("lastmod-invalid", "7", E, "<lastmod> must be a W3C Datetime")
	case rChangefreqInvalid:
		return mkRule("changefreq-invalid", "7", E, "<changefreq> must be always, hourly, daily, weekly, monthly, yearly or never")
	case rLastmodAfterSnapshot:
		return mkRule("lastmod-after-snapshot", "10.1", H, "a Resource List entry's lastmod is after the snapshot (completed, or at)")
	case rLinkRelMissing:
		return mkRule("link-rel-missing", "7", E, "<rs:ln> must have a rel attribute")
	case rLinkHrefMissing:
		return mkRule("link-href-missing", "7", E, "<rs:ln> must have an href attribute")
	case rLinkHrefNotAbsolute:
		return mkRule("link-href-not-absolute", "7", E, "an <rs:ln> href is not an absolute URI (scheme and, for http(s), host): links, like <loc>, convey URIs")
	case rLinkHrefInvalidChar:
		return mkRule("link-href-invalid-char", "7", E, "an <rs:ln> href holds characters a URI cannot contain (spaces, controls, <>\"{}|\\^`)")
	case rLinkPri:
		return mkRule("link-pri", "7", E, "pri must be an integer between 1 and 999,999")
	case rPatchLinkType:
		return mkRule("patch-link-type", "14.4", E, "a patch link must have a type attribute")
	case rPatchLinkPath:
		return mkRule("patch-link-path", "14.4", E, "a patch link in a Change Dump Manifest must have a path attribute")
	case rPatchLinkContext:
		return mkRule("patch-link-context", "14.4", W, "patch links are only applicable to Change Lists and Change Dumps")
	case rTimegateLinkAttributes:
		return mkRule("timegate-link-attributes", "14.6", W, "attributes other than rel and href should not be used on a timegate link")
	case rDumpMixedFormats:
		return mkRule("dump-mixed-formats", "11.1", W, "a Resource Dump or Change Dump should only point to packages of the same format (type)")
	case rAlternateLinkType:
		return mkRule("alternate-link-type", "14.3", W, "a link to an alternate representation should have a type attribute")
	case rMementoLinkModified:
		return mkRule("memento-link-modified", "14.6", H, "a memento link conveys the version's datetime in its modified attribute")
	case rArchiveEntryAtMissing:
		return mkRule("archive-entry-at-missing", "AR3", W, "an entry of a Resource List Archive or Resource Dump Archive has no at: when the listed document's snapshot was taken (Archives sections 3, 4)")
	case rArchiveEntryFromMissing:
		return mkRule("archive-entry-from-missing", "AR5", W, "an entry of a Change List Archive or Change Dump Archive has no from: the start of the interval the listed document covers (Archives sections 5, 6)")
	case rLinkRelUnregistered:
		return mkRule("link-rel-unregistered", "7", E, "relation types must be registered with IANA or be URIs (RFC 5988, section 4.2); rsx knows the registry as of 2025")
	}
	return Rule{}
}

// Rules returns the catalogue of every rule the Checker implements, in a fixed order.
func Rules() []Rule {
	out := make([]Rule, numRules)
	for i := range out {
		out[i] = ruleInfo(ruleID(i))
		out[i].Basis = ruleBasis(ruleID(i))
	}
	return out
}

// RuleByID returns the rule with the given ID: one of Rules() or of
// NotificationRules().
func RuleByID(id string) (Rule, bool) {
	for i := ruleID(0); i < numRules; i++ {
		if r := ruleInfo(i); r.ID == id {
			r.Basis = ruleBasis(i)
			return r, true
		}
	}
	for i := notificationRuleID(0); i < numNotificationRules; i++ {
		if r := notificationRuleInfo(i); r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

// ruleBasis quotes the sentence of Z39.99-2017 a rule rests on: for every
// warning and hint the words that make it one (see the severity policy
// above), and for errors where the summary does not say it.
func ruleBasis(id ruleID) string {
	switch id {
	// Warnings.
	case rCapabilityListIndex:
		return "§9: \"no <sitemapindex> document structure is necessary and Sources should not generate such structures.\""
	case rDescriptionEntryDescribedby:
		return "§8, of each <url> child of a Source Description's <urlset>: \"A recommended <rs:ln> child element with a describedby relation type points to a document that describes the set of resources described by the Capability List.\""
	case rDescribedbyRecommended:
		return "§8: \"A recommended <rs:ln> child element of <urlset> with the relation type describedby points to a document that provides information about the Source.\" §9 says the same of a Capability List."
	case rLocDuplicate:
		return "§10.1: \"One <url> child element of <urlset> should be included for each resource\" (and likewise for each Capability List, package and Change List in §8, §11.1, §12.2, §13.1)."
	case rEntryFromRecommended:
		return "Appendix A, Table 4: /top/child/rs:md/@from is \"Recommended\" in Change List Indexes, Change Dumps and Change Dump Indexes; §12.2: \"A recommended <rs:md> child element with the from and possibly until attributes\"."
	case rChangeDumpOrder:
		return "§13.1: \"All entries in a Change Dump should be provided in forward chronological order\"."
	case rPathUnexpected:
		return "§7: \"The attribute is only used in Resource Dump Manifests (Section 11.2) and Change Dump Manifests (Section 13.2).\" A restriction without \"must\": a warning."
	case rHashNotHex, rHashBase64:
		return "§7: \"Each hash value is represented by a hex-encoded digest\". A statement of form that the standard's own Example 27 does not keep, so a warning, not an error."
	case rTypeInvalid:
		return "§7: \"The value of the attribute conveys the Media Type of a resource representation\"; \"Registered values are listed in the IANA MIME Media Type registry.\" rsx checks only the type/subtype form."
	case rDatetimeFormat:
		return "§7: \"the use of a complete date and time expressed in UTC using the format YYYY-MM-DDThh:mm:ss[.s]Z is recommended.\""
	case rPatchLinkContext:
		return "§14.4: \"Expressing resource changes in this manner is only applicable to Change Lists (as in Example 27) and Change Dumps.\" A restriction without \"must\": a warning."
	case rTimegateLinkAttributes:
		return "§14.6: \"The other attributes described for the <rs:ln> child element of <url> in Section 7 should not be used as they are meaningless for TimeGates.\""
	case rDumpMixedFormats:
		return "§11.1: \"A Resource Dump should only point to packages of the same format.\" §13.1 says the same of a Change Dump."
	case rAlternateLinkType:
		return "§14.3: \"A recommended type attribute that conveys the Media Type of the alternate representation.\""
	case rArchiveEntryAtMissing:
		return "Archives 1.0 §3, §4 (0.9 §2, §3): an archive lists the Resource Lists (Resource Dumps) a Source published over time, each entry's <rs:md> conveying the at (and completed) of the document it lists, as in Examples 3.1 and 4.1, where every entry has one. rsx could not consult the normative wording in full: a missing at is held as a warning, not an error."
	case rArchiveEntryFromMissing:
		return "Archives 0.9 §1: \"a Change List Archive allows a server to list a timestamped set of historical Change Lists\"; 1.0 §5, §6 (0.9 §4, §5): each entry's <rs:md> conveys the from and until of the document it lists, as in Examples 5.1 and 6.1, where every entry has them. rsx could not consult the normative wording in full: a missing from is held as a warning, not an error."
	// Hints: the standard leaves these free, or does not address them.
	case rCapabilityDraft:
		return "§6.1: \"Additional capabilities may be defined in other specifications.\" The Notification draft defines these; rsx supports them."
	case rEntryCapabilityUnknown:
		return "§6.1: \"Additional capabilities may be defined in other specifications.\""
	case rMDTimeUnexpected:
		return "§7 lists the documents at, completed, from and until are used for; Source Descriptions and Capability Lists are in neither list, and no sentence forbids them there."
	case rUpLinkRepeated:
		return "§6.2, §9–13: one up link is mandatory; no sentence forbids a second."
	case rLocWhitespace:
		return "No sentence: the Sitemap schema's <loc> is an xsd:anyURI, whose white space is collapsed, so clients that follow the schema trim it."
	case rIndexIntervalOutside:
		return "No sentence requires the entries of a Change List Index to lie within its own from and until."
	case rChangeUnexpected:
		return "§7: change \"is used in Change Lists (Section 12.1) and Change Dump Manifests (Section 13.2)\": a use, not a restriction."
	case rDatetimeUnexpected:
		return "§7: datetime \"may be used in Change Lists (Section 12.1) and Change Dump Manifests (Section 13.2).\""
	case rChangeListNoDatetime:
		return "§7: datetime \"may be used in Change Lists\"; §12.1: \"The Source can make it easier for a Destination to determine which change event it has last processed by providing a datetime attribute for each event.\""
	case rEntryCapabilityUnexpected:
		return "§7: capability \"is mandatory in Source Descriptions and Capability Lists\"; no sentence forbids it elsewhere."
	case rHashAlgorithmUnknown:
		return "§7: a digest \"is preceded by a token that identifies the utilized hash algorithm, e.g., md5:, sha-256:\" — examples, not a closed list."
	case rHashRepeated:
		return "No sentence forbids giving one algorithm twice in the hash attribute's list."
	case rLastmodAfterSnapshot:
		return "§7: \"there is significant variation in practices for the use and maintenance of last modification times\"; no sentence bounds lastmod by at or completed."
	case rMementoLinkModified:
		return "§14.6: \"The last modified datetime of the resource version identified by the time-specific URI is conveyed by the value of the modified attribute\": where it is conveyed, not that it must be."
	// Errors whose summary does not say the word.
	case rLinkRelUnregistered:
		return "§7: \"Valid relation types must be registered in the IANA Link Relation Type Registry or expressed as URIs as specified in RFC 5988, Sec. 4.2.\""
	case rLegacyDraft:
		return "§7: \"these attributes must not have an XML Namespace prefix\"; \"Communities may introduce additional attributes when needed but must use an XML Namespace other than that of ResourceSync and must appropriately use namespace prefixes for those attributes.\" Draft elements and the beta namespace are not the standard's <rs:md> and <rs:ln>."
	case rLinkHrefNotAbsolute, rLinkHrefInvalidChar:
		return "§7: href is \"A mandatory attribute to convey the URI of the related resource\" (\"of the other document\" at document level), as <loc> \"conveys the URI of the resource\": a URI, not a relative reference (RFC 3986)."
	case rMDTimeNotUsed, rEntryTimeNotUsed:
		return "§7: at \"is not used for Change Lists, Change List Indexes, Change Dumps, Change Dump Indexes, and Change Dump Manifests\" (from, likewise, for the snapshot documents); Appendix A, Table 4, which is normative."
	}
	return ""
}
