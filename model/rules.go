package model

// The conformance rule catalogue. Every rule the Checker implements has a stable
// ID (used in JSON output, test files testdata/conformance/invalid/<id>.xml and by
// other packages), a severity, the specification section it comes from and a
// one-line summary.
//
// Severity policy:
//   - error: a MUST, "mandatory" or "required" statement of Z39.99-2017, a value
//     that cannot be what the attribute says it is (an md5 digest that is not 32
//     hex digits), and the Sitemap limits of section 7 (50,000 entries, 50 MB);
//   - warning: SHOULD / "recommended" statements, soft wording ("is represented
//     by a hex-encoded digest"), constructs of the drafts that predate the
//     standard, values other specifications may define (unknown capability of a
//     Capability List entry, unknown hash algorithm), and questionable practice.
//
// Documented decisions:
//   - An unknown capability of the document itself is an error: the value
//     "conveys the nature of the document" and a Destination cannot process a
//     document whose nature it does not know. An unknown capability of a
//     Capability List entry is a warning, since "additional capabilities may be
//     defined in other specifications" (section 6.1).
//   - The capability values of the Notification draft (change-notification,
//     framework-notification) are known; they are accepted in Capability Lists
//     with a warning that they come from a draft, not the standard.
//   - A hex digest of the wrong length for a known algorithm is an error (it can
//     never match); a digest that is not hex is a warning (section 7 only says
//     digests are "represented by" hex), a base64 one too (resync-client-ruby
//     writes base64 md5 digests, as HTTP Content-MD5 does).
//   - Change List entries without a datetime attribute are normal (section 12.1,
//     Example 19). Only a Change List in which no entry has a datetime but
//     several carry lastmod (the ResourceSync 1.0 practice of using lastmod as
//     the change time) gets one document-level warning.
//   - A relation type that is neither in the IANA registry (as of 2025) nor a URI
//     is a warning, not an error: the registry grows, and the check mostly
//     catches typing mistakes ("dupliate").
//   - A Capability List index is a warning (section 9: "should not"); a Source
//     Description Index is allowed (section 8); a manifest index is an error.

// Rule describes one conformance rule.
type Rule struct {
	ID       string
	Section  string // section of Z39.99-2017 ("7", "12.1", "A"); "N3" is section 3 of the Notification draft
	Severity Severity
	Summary  string
}

// String returns "error" or "warning".
func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
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
	numRules // keep last
)

// ruleInfo returns the catalogue entry of id. A switch of constants: immutable and
// free of allocation.
func ruleInfo(id ruleID) Rule {
	const E, W = SeverityError, SeverityWarning
	switch id {
	case rXMLMalformed:
		return Rule{"xml-malformed", "7", E, "the document is not well-formed XML (or could not be read to its end)"}
	case rRootNotSitemap:
		return Rule{"root-not-sitemap", "7", E, "the root element is not <urlset> or <sitemapindex> (e.g. an HTML page or an Atom feed)"}
	case rRootNamespace:
		return Rule{"root-namespace", "7", E, "the root element is not in the Sitemap namespace " + NSSitemap}
	case rRootCapability:
		return Rule{"root-capability-mismatch", "6.1", E, "the root element does not fit the capability (manifests are <urlset> documents)"}
	case rCapabilityListIndex:
		return Rule{"capabilitylist-index", "9", W, "a Capability List should not be a <sitemapindex>"}
	case rMDMissing:
		return Rule{"md-missing", "7", E, "the mandatory document-level <rs:md> element is missing"}
	case rMDRepeated:
		return Rule{"md-repeated", "7", E, "<rs:md> is not repeatable (document level or entry)"}
	case rCapabilityMissing:
		return Rule{"capability-missing", "7", E, "the document-level <rs:md> has no capability attribute"}
	case rCapabilityUnknown:
		return Rule{"capability-unknown", "7", E, "the document's capability is not a defined value"}
	case rCapabilityDraft:
		return Rule{"capability-draft", "N3", W, "capability value defined by the ResourceSync Notification draft, not by the standard"}
	case rMDAtMissing:
		return Rule{"md-at-missing", "A", E, "at is mandatory on the document-level <rs:md> of Resource Lists, Resource Dumps, their indexes and Resource Dump Manifests"}
	case rMDFromMissing:
		return Rule{"md-from-missing", "A", E, "from is mandatory on the document-level <rs:md> of Change Lists, Change Dumps, their indexes and Change Dump Manifests"}
	case rMDTimeNotUsed:
		return Rule{"md-time-not-used", "A", E, "at/completed are not used in change documents, from/until not in snapshot documents"}
	case rMDTimeUnexpected:
		return Rule{"md-time-unexpected", "7", W, "at/completed/from/until are not defined for Source Descriptions and Capability Lists"}
	case rCompletedBeforeAt:
		return Rule{"completed-before-at", "7", E, "completed must not be before at"}
	case rUntilBeforeFrom:
		return Rule{"until-before-from", "7", E, "until must not be before from"}
	case rUpLinkMissing:
		return Rule{"up-link-missing", "6.2", E, `every document but the Source Description must have an <rs:ln rel="up"> link to its parent`}
	case rCapabilityListUpLink:
		return Rule{"capabilitylist-up-link", "9", E, `a Capability List must have an <rs:ln rel="up"> link to the Source Description`}
	case rUpLinkRepeated:
		return Rule{"up-link-repeated", "6.2", W, `more than one document-level <rs:ln rel="up"> link`}
	case rDescribedbyRecommended:
		return Rule{"describedby-recommended", "8", W, `a Source Description or Capability List should have an <rs:ln rel="describedby"> link`}
	case rEntriesTooMany:
		return Rule{"entries-too-many", "7", E, "more than 50,000 entries in one document"}
	case rDocumentTooLarge:
		return Rule{"document-too-large", "7", E, "document larger than 50 MB"}
	case rLegacyDraft:
		return Rule{"legacy-draft", "7", W, "construct of a draft that predates the standard (beta namespace, rs:fixity, rs:size, modified, etag, …)"}
	case rAttributePrefixed:
		return Rule{"attribute-prefixed", "7", E, "ResourceSync attributes must not have a namespace prefix"}
	case rAttributeUnqualified:
		return Rule{"attribute-unqualified", "7", E, "attributes not defined by ResourceSync must be in another namespace, with a prefix"}
	case rElementUnexpected:
		return Rule{"element-unexpected", "7", E, "Sitemap or ResourceSync element where the formats do not define it"}
	case rLocMissing:
		return Rule{"loc-missing", "7", E, "an entry has no <loc>"}
	case rLocEmpty:
		return Rule{"loc-empty", "7", E, "an entry's <loc> is empty"}
	case rLocRepeated:
		return Rule{"loc-repeated", "7", E, "an entry has more than one <loc>"}
	case rLocNotAbsolute:
		return Rule{"loc-not-absolute", "7", E, "<loc> is not an absolute URI (scheme and, for http(s), host)"}
	case rLocInvalidChar:
		return Rule{"loc-invalid-char", "7", E, "<loc> holds characters a URI cannot contain (spaces, controls, <>\"{}|\\^`)"}
	case rLocWhitespace:
		return Rule{"loc-whitespace", "7", W, "whitespace around the URI in <loc>"}
	case rLocDuplicate:
		return Rule{"loc-duplicate", "10.1", W, "the same URI is listed twice in a document that lists each resource once"}
	case rEntryTimeNotUsed:
		return Rule{"entry-time-not-used", "A", E, "at/completed/from/until on an entry of a document where Table 4 does not use them"}
	case rEntryFromRecommended:
		return Rule{"entry-from-recommended", "A", W, "entries of Change List Indexes, Change Dumps and Change Dump Indexes should have <rs:md from=…>"}
	case rChangeListIndexUntilRequired:
		return Rule{"changelistindex-until-required", "12.2", E, "a closed Change List's entry in a Change List Index requires until"}
	case rIndexIntervalOutside:
		return Rule{"index-interval-outside", "12.2", W, "an entry's from/until lies outside the document's from/until"}
	case rDatetimeInInterval:
		return Rule{"md-datetime-in-interval", "7", E, "an entry's datetime must be within the document's [from, until]"}
	case rChangeListOrder:
		return Rule{"changelist-order", "12.1", E, "Change List entries must be in forward chronological order of datetime"}
	case rChangeDumpManifestOrder:
		return Rule{"changedump-manifest-order", "13.2", E, "Change Dump Manifest entries must be in forward chronological order of datetime"}
	case rChangeListIndexOrder:
		return Rule{"changelistindex-order", "12.2", E, "a Change List Index must enumerate Change Lists in forward chronological order (from)"}
	case rChangeDumpOrder:
		return Rule{"changedump-order", "13.1", W, "Change Dump (and index) entries should be in forward chronological order (from)"}
	case rChangeMissing:
		return Rule{"change-missing", "12.1", E, "Change List and Change Dump Manifest entries must have <rs:md change=…>"}
	case rChangeInvalid:
		return Rule{"change-invalid", "7", E, "change must be created, updated or deleted"}
	case rChangeUnexpected:
		return Rule{"change-unexpected", "7", W, "change is used in Change Lists and Change Dump Manifests only"}
	case rDatetimeUnexpected:
		return Rule{"datetime-unexpected", "7", W, "datetime is used in Change Lists and Change Dump Manifests only"}
	case rChangeListNoDatetime:
		return Rule{"changelist-no-datetime", "12.1", W, "no entry has a datetime attribute: ResourceSync 1.0 style, lastmod is not the change time"}
	case rPathMissing:
		return Rule{"path-missing", "11.2", E, "manifest entries must have <rs:md path=…> (except change=\"deleted\")"}
	case rPathNotAbsolute:
		return Rule{"path-not-absolute", "11.2", E, "path must be expressed with a leading slash"}
	case rPathUnsafe:
		return Rule{"path-unsafe", "11.2", E, "path escapes the package or is not a portable relative path (.., backslash, NUL, drive letter)"}
	case rPathDuplicate:
		return Rule{"path-duplicate", "11.2", E, "two bitstreams of one manifest at the same path"}
	case rPathUnexpected:
		return Rule{"path-unexpected", "7", W, "path is used in Resource Dump Manifests and Change Dump Manifests only"}
	case rCapabilityListDuplicate:
		return Rule{"capabilitylist-duplicate", "9", E, "a Capability List must only contain one entry per capability"}
	case rCapabilityListEntryCapability:
		return Rule{"capabilitylist-entry-capability", "9", E, "Capability List entries must have <rs:md capability=…>"}
	case rCapabilityListEntryInvalid:
		return Rule{"capabilitylist-entry-invalid", "9", E, "a Capability List entry must point to a capability document (resourcelist, resourcedump, changelist, changedump)"}
	case rEntryCapabilityUnknown:
		return Rule{"entry-capability-unknown", "9", W, "a Capability List entry has a capability this specification does not define"}
	case rDescriptionEntryCapability:
		return Rule{"description-entry-capability", "8", E, "a Source Description entry's <rs:md> must have capability=\"capabilitylist\""}
	case rEntryCapabilityUnexpected:
		return Rule{"entry-capability-unexpected", "7", W, "capability on an entry of a document other than a Source Description or Capability List"}
	case rHashSyntax:
		return Rule{"hash-syntax", "7", E, "hash must be a whitespace-delimited list of alg:digest tokens"}
	case rHashAlgorithmUnknown:
		return Rule{"hash-algorithm-unknown", "7", W, "hash algorithm not recognised (md5, sha-1, sha-256, sha-384, sha-512)"}
	case rHashNotHex:
		return Rule{"hash-not-hex", "7", W, "digest is not hex as section 7 requires"}
	case rHashBase64:
		return Rule{"hash-base64", "7", W, "digest is base64 (resync-client-ruby practice), not hex as section 7 requires"}
	case rHashLength:
		return Rule{"hash-length", "7", E, "hex digest of the wrong length for its algorithm"}
	case rHashRepeated:
		return Rule{"hash-repeated", "7", W, "the same hash algorithm is given twice"}
	case rLengthInvalid:
		return Rule{"length-invalid", "7", E, "length must be a non-negative integer"}
	case rTypeInvalid:
		return Rule{"type-invalid", "7", W, "type is not a media type (type/subtype)"}
	case rDatetimeInvalid:
		return Rule{"datetime-invalid", "7", E, "at, completed, from, until, datetime and modified must be W3C Datetimes (with a time zone when a time is given)"}
	case rDatetimeFormat:
		return Rule{"datetime-format-recommended", "7", W, "a complete date and time in UTC (YYYY-MM-DDThh:mm:ss[.s]Z) is recommended"}
	case rLastmodInvalid:
		return Rule{"lastmod-invalid", "7", E, "<lastmod> must be a W3C Datetime"}
	case rChangefreqInvalid:
		return Rule{"changefreq-invalid", "7", E, "<changefreq> must be always, hourly, daily, weekly, monthly, yearly or never"}
	case rLastmodAfterSnapshot:
		return Rule{"lastmod-after-snapshot", "10.1", W, "a Resource List entry's lastmod is after the snapshot (completed, or at)"}
	case rLinkRelMissing:
		return Rule{"link-rel-missing", "7", E, "<rs:ln> must have a rel attribute"}
	case rLinkHrefMissing:
		return Rule{"link-href-missing", "7", E, "<rs:ln> must have an href attribute"}
	case rLinkHrefNotAbsolute:
		return Rule{"link-href-not-absolute", "7", E, "an <rs:ln> href is not an absolute URI (scheme and, for http(s), host): links, like <loc>, convey URIs"}
	case rLinkHrefInvalidChar:
		return Rule{"link-href-invalid-char", "7", E, "an <rs:ln> href holds characters a URI cannot contain (spaces, controls, <>\"{}|\\^`)"}
	case rLinkPri:
		return Rule{"link-pri", "7", E, "pri must be an integer between 1 and 999,999"}
	case rPatchLinkType:
		return Rule{"patch-link-type", "14.4", E, "a patch link must have a type attribute"}
	case rPatchLinkPath:
		return Rule{"patch-link-path", "14.4", E, "a patch link in a Change Dump Manifest must have a path attribute"}
	case rPatchLinkContext:
		return Rule{"patch-link-context", "14.4", W, "patch links are only applicable to Change Lists and Change Dumps"}
	case rTimegateLinkAttributes:
		return Rule{"timegate-link-attributes", "14.6", W, "attributes other than rel and href should not be used on a timegate link"}
	case rDumpMixedFormats:
		return Rule{"dump-mixed-formats", "11.1", W, "a Resource Dump or Change Dump should only point to packages of the same format (type)"}
	case rAlternateLinkType:
		return Rule{"alternate-link-type", "14.3", W, "a link to an alternate representation should have a type attribute"}
	case rMementoLinkModified:
		return Rule{"memento-link-modified", "14.6", W, "a memento link conveys the version's datetime in its modified attribute"}
	case rLinkRelUnregistered:
		return Rule{"link-rel-unregistered", "7", W, "relation types must be registered with IANA or be URIs (RFC 5988, section 4.2)"}
	}
	return Rule{}
}

// Rules returns the catalogue of every rule the Checker implements, in a fixed order.
func Rules() []Rule {
	out := make([]Rule, numRules)
	for i := range out {
		out[i] = ruleInfo(ruleID(i))
	}
	return out
}

// RuleByID returns the rule with the given ID.
func RuleByID(id string) (Rule, bool) {
	for i := ruleID(0); i < numRules; i++ {
		if r := ruleInfo(i); r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}
