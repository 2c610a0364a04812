package model

import "strings"

// capabilityInfo is one row of the immutable capability table.
type capabilityInfo struct {
	c         Capability
	title     string
	change    bool // from/until family
	snapshot  bool // at/completed family
	manifest  bool
	indexable bool       // may take the <sitemapindex> form
	archived  Capability // archives: the capability of the documents listed
}

// capabilities lists the values of section 7, the Archives specification and
// the Notification draft, in the order the specifications introduce them.
var capabilities = [...]capabilityInfo{
	{c: CapDescription, title: "Source Description", indexable: true},
	{c: CapCapabilityList, title: "Capability List"},
	{c: CapResourceList, title: "Resource List", snapshot: true, indexable: true},
	{c: CapResourceDump, title: "Resource Dump", snapshot: true, indexable: true},
	{c: CapResourceDumpManifest, title: "Resource Dump Manifest", snapshot: true, manifest: true},
	{c: CapChangeList, title: "Change List", change: true, indexable: true},
	{c: CapChangeDump, title: "Change Dump", change: true, indexable: true},
	{c: CapChangeDumpManifest, title: "Change Dump Manifest", change: true, manifest: true},
	// Archives 1.0, sections 3–6; each may be an index (Example 3.2).
	{c: CapResourceListArchive, title: "Resource List Archive", indexable: true, archived: CapResourceList},
	{c: CapResourceDumpArchive, title: "Resource Dump Archive", indexable: true, archived: CapResourceDump},
	{c: CapChangeListArchive, title: "Change List Archive", indexable: true, archived: CapChangeList},
	{c: CapChangeDumpArchive, title: "Change Dump Archive", indexable: true, archived: CapChangeDump},
	{c: CapChangeNotification, title: "Change Notification"},
	{c: CapFrameworkNotification, title: "Framework Notification"},
}

func (c Capability) info() *capabilityInfo {
	for i := range capabilities {
		if capabilities[i].c == c {
			return &capabilities[i]
		}
	}
	return nil
}

// KnownCapabilities returns the capability values of the specification, the
// Archives specification and the Notification draft, in the order the
// specifications introduce them.
func KnownCapabilities() []Capability {
	out := make([]Capability, len(capabilities))
	for i, ci := range capabilities {
		out[i] = ci.c
	}
	return out
}

// ParseCapability returns the value of a capability attribute, trimmed of
// surrounding whitespace. The value is kept as written otherwise: "ResourceList"
// is not a known value (see Canonical for a suggestion).
func ParseCapability(s string) Capability {
	s = trimASCIISpace(s)
	if ci := Capability(s).info(); ci != nil {
		return ci.c // share the constant's string
	}
	return Capability(s)
}

// Known reports whether c is one of the eight values of section 7, one of the
// four of the Archives specification or one of the two of the Notification
// draft.
func (c Capability) Known() bool { return c.info() != nil }

// Canonical returns the known value that c matches ignoring case, hyphens and
// underscores ("ResourceList", "resource_list" → resourcelist; "ChangeDump-Manifest"
// → changedump-manifest), or "" when there is none. The checker uses it to suggest
// a fix; c itself is unknown unless it is already canonical.
func (c Capability) Canonical() Capability {
	key := func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			ch := s[i]
			switch {
			case ch == '-' || ch == '_' || ch == ' ':
			case ch >= 'A' && ch <= 'Z':
				b.WriteByte(ch + 'a' - 'A')
			default:
				b.WriteByte(ch)
			}
		}
		return b.String()
	}
	k := key(string(c))
	if k == "" {
		return ""
	}
	for _, ci := range capabilities {
		if key(string(ci.c)) == k {
			return ci.c
		}
	}
	return ""
}

// Title is the name of the document type for display: "Resource List",
// "Change Dump Manifest", "Source Description" … It is "" for an empty value and
// `Unknown capability "x"` for an unknown one.
func (c Capability) Title() string {
	if ci := c.info(); ci != nil {
		return ci.title
	}
	if c == "" {
		return ""
	}
	return `Unknown capability "` + string(c) + `"`
}

// IsChange reports whether c describes changes over a period (changelist,
// changedump, changedump-manifest): documents that use from and until. An
// archive is neither: its entries carry the times (see Archived).
func (c Capability) IsChange() bool {
	ci := c.info()
	return ci != nil && ci.change
}

// IsSnapshot reports whether c describes a state at a moment (resourcelist,
// resourcedump, resourcedump-manifest): documents that use at and completed.
func (c Capability) IsSnapshot() bool {
	ci := c.info()
	return ci != nil && ci.snapshot
}

// IsManifest reports whether c is resourcedump-manifest or changedump-manifest.
func (c Capability) IsManifest() bool {
	ci := c.info()
	return ci != nil && ci.manifest
}

// Indexable reports whether documents of capability c may be grouped under a
// <sitemapindex> of the same capability: Source Description, Resource List,
// Resource Dump, Change List, Change Dump and the four archives. A Capability
// List should not be (section 8) and a manifest describes exactly one package.
func (c Capability) Indexable() bool {
	ci := c.info()
	return ci != nil && ci.indexable
}

// IsArchive reports whether c is one of the four archive capabilities of the
// ResourceSync Archives specification.
func (c Capability) IsArchive() bool {
	ci := c.info()
	return ci != nil && ci.archived != ""
}

// Archived is the capability of the documents an archive of capability c
// lists (changelist-archive → changelist), "" when c is not an archive.
func (c Capability) Archived() Capability {
	if ci := c.info(); ci != nil {
		return ci.archived
	}
	return ""
}

// ArchiveCapability is the capability of the archive that keeps the documents
// of capability c (changelist → changelist-archive), "" when the Archives
// specification defines none for c.
func (c Capability) ArchiveCapability() Capability {
	if c == "" {
		return ""
	}
	for _, ci := range capabilities {
		if ci.archived == c {
			return ci.c
		}
	}
	return ""
}

// DocumentTitle names a document by its capability and root element:
// "Resource List", "Resource List Index", "Source Description Index", … For a
// document without a capability it is "Sitemap" or "Sitemap index" (plain
// Sitemaps), and "Document" when the root is neither.
func DocumentTitle(c Capability, root RootKind) string {
	if c == "" {
		switch root {
		case RootURLSet:
			return "Sitemap"
		case RootSitemapIndex:
			return "Sitemap index"
		}
		return "Document"
	}
	if ci := c.info(); ci != nil {
		if root == RootSitemapIndex {
			return ci.title + " Index"
		}
		return ci.title
	}
	if root == RootSitemapIndex {
		return `Sitemap index with unknown capability "` + string(c) + `"`
	}
	return c.Title()
}

// Known reports whether ch is created, updated or deleted.
func (ch Change) Known() bool {
	return ch == ChangeCreated || ch == ChangeUpdated || ch == ChangeDeleted
}

// RelPatch is the relation type of a link to a patch (section 14.4).
const RelPatch = "http://www.openarchives.org/rs/terms/patch"

// RelArchives is the relation type of a link from a document of a core
// capability to its archive (Archives specification, section 2; registered
// with IANA).
const RelArchives = "archives"

// relations explains the link relations of sections 7 and 14, those of
// discovery (section 5) and that of the Archives specification, for the UI.
var relations = [...]struct{ rel, text string }{
	{"up", "Up the hierarchy: from a capability document to its Capability List, or from a Capability List to the Source Description."},
	{"index", "To the index document (e.g. a Resource List Index) that this document is one part of."},
	{"describedby", "To a document describing this: information about the Source, about the set of resources of a Capability List, or metadata about a resource."},
	{"describes", "From metadata to the resource that it describes."},
	{"contents", "From a package of a Resource Dump or Change Dump to the manifest listing its contents."},
	{"duplicate", "To a mirror copy of the resource; pri orders mirrors, lowest first."},
	{"alternate", "To an alternate representation of the resource at its own specific URI; type gives its media type."},
	{"canonical", "From a specific representation to the generic URI of the resource."},
	{RelPatch, "To a description of the changes from the previous to the current version, in the patch format named by type."},
	{"memento", "To the prior version of the resource (a Memento) matching its last modification; modified gives that version's datetime."},
	{"timegate", "To a Memento TimeGate that negotiates prior versions of the resource by datetime."},
	{"timemap", "To a Memento TimeMap listing the prior versions of the resource."},
	{"collection", "To a collection the resource is a member of, e.g. an OAI-ORE Aggregation or an OAI-PMH Set."},
	{"via", "To the resource at the original Source it was republished from (provenance, for aggregators)."},
	{"profile", "To the profile, e.g. the metadata format or schema, that the resource conforms to."},
	{RelArchives, "To the archive of this document's capability (ResourceSync Archives): the documents of this kind the Source published over time, e.g. the Change Lists that left the Change List Index."},
	{"resourcesync", "Discovery: from an HTML page or HTTP response to the Capability List (or Source Description) of its Source."},
}

// RelationDescription explains a link relation in words for the UI, or returns ""
// when the relation is not one the specification uses. Registered relation names
// compare case-insensitively (RFC 8288; see RelMatches); a rel of several
// space-separated types gets the descriptions of those it knows, joined by a
// space.
func RelationDescription(rel string) string {
	var parts []string
	for tok := range RelTokens(rel) {
		for _, r := range relations {
			if RelMatches(tok, r.rel) {
				parts = append(parts, r.text)
				break
			}
		}
	}
	return strings.Join(parts, " ")
}
