package crawl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"rsx/display"
	"rsx/model"
)

// Cross-document rules: what can only be seen with a document and the
// documents it lists. IDs are stable, like the single-document checker's.
//
// Severity policy, as model's (model/rules.go): the words of the standard
// decide, and every rule that is not an error cites its sentence (Basis). A
// MUST, or a disagreement about what a document is (its capability, its up or
// index link pointing elsewhere, a listed document that cannot be had), is an
// error. An index entry's at, from or until that differs from the values the
// listed document gives itself is a warning: the index states them for the
// listed document, but they may simply have moved on between two fetches; an
// entry that says closed where the document is open is an error. Gaps and
// overlaps between consecutive Change Lists are hints: the standard does not
// require contiguity.
const (
	RuleIndexChildCapability        = "index-child-capability"
	RuleUpLinkParent                = "up-link-parent"
	RuleCapabilityListUpDescription = "capabilitylist-up-description"
	RuleIndexLinkParent             = "index-link-parent"
	RuleIndexLinkRecommended        = "index-link-recommended"
	RuleChangeIndexOrder            = "change-index-order"
	RuleIndexChildIndex             = "index-child-index"
	RuleChangeDumpIndexOrder        = "changedump-index-order"
	RuleChangeIndexGap              = "change-index-gap"
	RuleChangeIndexOverlap          = "change-index-overlap"
	RuleChangeIndexOpenNotLast      = "change-index-open-not-last"
	RuleIndexEntryAt                = "index-entry-at"
	RuleIndexEntryUntil             = "index-entry-until"
	RuleIndexEntryInterval          = "index-entry-interval"
	RuleCapabilityDeclared          = "capability-declared"
	RuleDescriptionEntryCapability  = "description-entry-not-capabilitylist"
	RuleChildUnreachable            = "child-unreachable"
	// Archives (archives.go), run when a walk goes into archives.
	RuleArchiveChildCapability = "archive-child-capability"
	RuleArchiveEntryAt         = "archive-entry-at"
	RuleArchiveEntryInterval   = "archive-entry-interval"
	RuleArchivesLinkCapability = "archives-link-capability"
	RuleChildUnreadable        = "child-unreadable"
	// Declared length and digests of listed documents.
	RuleDocumentDeclaredMismatch = "document-declared-mismatch"
	// Package checks, run only by a walk with FetchPackages (packages.go).
	RuleContentsManifestMismatch   = "contents-manifest-mismatch"
	RuleContentsManifestUnreadable = "contents-manifest-unreadable"
	RulePackageDeclaredMismatch    = "package-declared-mismatch"
	RulePackageManifestCapability  = "package-manifest-capability"
	RulePackageEntryTimes          = "package-entry-times"
	// Discovery (discover.go): Discovery.Problems.
	RuleSourceDescriptionUnreached    = "source-description-unreached"
	RuleSourceDescriptionNotWellKnown = "source-description-not-well-known"
	RuleDiscoveryLinkTarget           = "discovery-link-target"
	RuleCapabilityListNotListed       = "capabilitylist-not-listed"
	RuleDiscoveryLinkCoverage         = "discovery-link-coverage"
)

// Rules returns the catalogue of cross-document rules.
func Rules() []model.Rule {
	const E, W, H = model.SeverityError, model.SeverityWarning, model.SeverityHint
	return []model.Rule{
		{ID: RuleIndexChildCapability, Section: "6.1", Severity: E, Summary: "a document listed in an index must have the index's capability"},
		{ID: RuleIndexChildIndex, Section: "6.1", Severity: E, Summary: "a document listed in an index is itself an index: a <sitemapindex> groups <urlset> documents (sections 6.1, 7; the Sitemap protocol has no nested indexes)"},
		{ID: RuleUpLinkParent, Section: "6.2", Severity: E, Summary: "a capability document's up link must point to the Capability List that lists it (or that lists its index)"},
		{ID: RuleCapabilityListUpDescription, Section: "9", Severity: E, Summary: "a Capability List's up link must point to the Source Description that lists it"},
		{ID: RuleIndexLinkParent, Section: "6.2", Severity: E, Summary: "a document's index link must point to the index that lists it"},
		{ID: RuleIndexLinkRecommended, Section: "10.1", Severity: W, Summary: `a document listed in an index should link back to it with rel="index" (sections 10.1, 11.1, 12.1, 13.1)`,
			Basis: `§10.1: "In case a Resource List Index (see Section 10.2) exists, a recommended <rs:ln> child element of <urlset> points to it with the relation type index." §11.1, §12.1 and §13.1 say the same of dumps and Change Lists.`},
		{ID: RuleChangeIndexOrder, Section: "12.2", Severity: E, Summary: "a Change List Index (or Change Dump Index) must list its documents in forward chronological order"},
		{ID: RuleChangeDumpIndexOrder, Section: "13.1", Severity: W, Summary: "a Change Dump Index should list its Change Dumps in forward chronological order",
			Basis: `§13.1: "All entries in a Change Dump should be provided in forward chronological order"; a Change Dump Index groups Change Dumps "in a manner similar to what was described in Section 12.2", which words the order of a Change List Index with "must". The single-document checker holds a Change Dump Index's order as a "should" (changedump-order); so does this rule.`},
		{ID: RuleChangeIndexGap, Section: "12.2", Severity: H, Summary: "consecutive Change Lists of an index leave a gap: no list covers the changes between one's until and the next one's from",
			Basis: "No sentence requires the Change Lists of an index to be contiguous."},
		{ID: RuleChangeIndexOverlap, Section: "12.2", Severity: H, Summary: "consecutive Change Lists of an index overlap: the next one starts before the previous one's until",
			Basis: "No sentence forbids Change Lists of an index to overlap."},
		{ID: RuleChangeIndexOpenNotLast, Section: "12.2", Severity: E, Summary: "only the last Change List of an index may be open (without until)"},
		{ID: RuleIndexEntryAt, Section: "10.2", Severity: W, Summary: "an index entry's at (or completed) differs from the listed document's own",
			Basis: `§10.2: the entry's optional <rs:md> has "an at attribute and possibly a completed attribute to convey the datetime at which the process of taking a snapshot of resources for their inclusion in the Resource List respectively started and ended": the listed document's own. A warning: the values may have moved on between two fetches.`},
		{ID: RuleIndexEntryUntil, Section: "12.2", Severity: E, Summary: "an index entry says closed (until) where the listed document is open, or the reverse"},
		{ID: RuleIndexEntryInterval, Section: "12.2", Severity: W, Summary: "an index entry's from or until differs from the listed document's own",
			Basis: `§12.2: "A recommended <rs:md> child element with the from and possibly until attributes to convey the temporal interval covered by the Change List."`},
		{ID: RuleCapabilityDeclared, Section: "9", Severity: E, Summary: "the capability a Capability List entry declares differs from the capability of the document it points at"},
		{ID: RuleDescriptionEntryCapability, Section: "8", Severity: E, Summary: "a Source Description entry must point at a Capability List"},
		{ID: RuleChildUnreachable, Section: "6.2", Severity: E, Summary: "a listed document could not be fetched"},
		{ID: RuleChildUnreadable, Section: "6.2", Severity: E, Summary: "a listed document is not a readable Sitemap document"},
		{ID: RuleDocumentDeclaredMismatch, Section: "7", Severity: E, Summary: "a listed document's bytes differ from the length or hash its entry declares (section 7; the bytes as received, Content-Encoding undone, a .gz file as the file)"},
		{ID: RuleArchiveChildCapability, Section: "AR3", Severity: E, Summary: "a document listed in an archive must be of the archived capability (a Change List Archive lists Change Lists), and a part of an archive index an archive of the same capability (Archives sections 3–6; reported with the section of the archive)"},
		{ID: RuleArchiveEntryAt, Section: "AR3", Severity: W, Summary: "an archive entry's at (or completed) differs from the listed document's own (Archives sections 3, 4)",
			Basis: "Archives 1.0 §3, §4: the entry conveys the at (and completed) of the Resource List (Resource Dump) it lists; as for index entries (index-entry-at), a difference is a warning: the document may have been published again between two fetches."},
		{ID: RuleArchiveEntryInterval, Section: "AR5", Severity: W, Summary: "an archive entry's from or until differs from the listed document's own, or says closed where it is open or the reverse (Archives sections 5, 6)",
			Basis: "Archives 0.9 §1: \"a Change List Archive allows a server to list a timestamped set of historical Change Lists\"; 1.0 §5, §6: the entry conveys the from and until of the document it lists. As for index entries (index-entry-interval), a difference is a warning."},
		{ID: RuleArchivesLinkCapability, Section: "AR2", Severity: E, Summary: `a document's rel="archives" link must point to the archive of its own capability (a Change List to the Change List Archive) when the Capability List lists that document`},
		{ID: RuleContentsManifestMismatch, Section: "11.1", Severity: E, Summary: "the manifest copy a dump entry's contents link points to must match the manifest in the package (sections 11.1, 13.1)"},
		{ID: RuleContentsManifestUnreadable, Section: "11.1", Severity: E, Summary: "the manifest copy of a dump entry's contents link, or its package, could not be fetched or opened (sections 11.1, 13.1)"},
		{ID: RulePackageManifestCapability, Section: "11.2", Severity: E, Summary: "the manifest.xml of a Resource Dump's package must be a Resource Dump Manifest, of a Change Dump's package a Change Dump Manifest (sections 11.2, 13.2; reported with the dump's section)"},
		{ID: RulePackageEntryTimes, Section: "11.1", Severity: W, Summary: "a dump entry's at or completed (Resource Dump), from or until (Change Dump) differs from those of the manifest in its package (sections 11.1, 13.1)",
			Basis: `§11.1: the entry's <rs:md> "may also have an at attribute and possibly a completed attribute to convey the datetime at which the process of taking a snapshot of resources for their inclusion in the package respectively started and ended"; §11.2: the manifest's at "conveys the datetime at which the process of taking a snapshot of resources for their inclusion in the ZIP package started" (§13.1 and §13.2 alike with from and until): the same instants. As for index entries (index-entry-at), a difference is a warning.`},
		{ID: RuleSourceDescriptionUnreached, Section: "6.3.2", Severity: E, Summary: "rsx discover found ResourceSync documents but no Source Description, neither at a well-known URI nor by following up links (section 6.2: up links lead to it)"},
		{ID: RuleSourceDescriptionNotWellKnown, Section: "6.3.2", Severity: W, Summary: "the Source Description rsx discover reached is not published at the well-known URI /.well-known/resourcesync",
			Basis: `§6.3.2: "A Source must publish a Source Description, such as the one shown in Example 7, and it should be published at the well-known URI [RFC 5785] /.well-known/resourcesync".`},
		{ID: RuleDiscoveryLinkTarget, Section: "6.3.3", Severity: W, Summary: `an HTML <link rel="resourcesync"> or a Link header with rel="resourcesync" points at a ResourceSync document that is not a Capability List`,
			Basis: `§6.3.3: "a <link> element is introduced in the <head> of the document that points to a Capability List"; of the Link header: "The target of this link is the URI of a Capability List". A statement of what the link is, without "must": a warning.`},
		{ID: RuleCapabilityListNotListed, Section: "8", Severity: W, Summary: "a Capability List that rsx discover reached links up to a Source Description that does not list it",
			Basis: `§8: "One <url> child element of <urlset> should be included for each Capability List offered by the Source"; §6.1: "The Source Description enumerates all Capability Lists offered by the Source".`},
		{ID: RuleDiscoveryLinkCoverage, Section: "6.3.3", Severity: E, Summary: "the resource that links to a Capability List (HTML <link rel=\"resourcesync\"> or Link header) is in none of its Resource Lists and Change Lists: \"The Capability List that is made discoverable in this way must pertain to the resource that provides the link\" (rsx discover --coverage)"},
		{ID: RulePackageDeclaredMismatch, Section: "11.1", Severity: E, Summary: "a package's length or hash differs from what its dump entry declares (sections 11.1, 13.1)"},
	}
}

// rule returns the catalogue entry of id.
func rule(id string) model.Rule {
	for _, r := range Rules() {
		if r.ID == id {
			return r
		}
	}
	return model.Rule{ID: id, Severity: model.SeverityError}
}

func problem(id string, entry int, format string, args ...any) model.Problem {
	r := rule(id)
	return model.Problem{Severity: r.Severity, Rule: r.ID, Section: r.Section, Message: fmt.Sprintf(format, args...), Entry: entry}
}

// problemFor is problem for a rule that the sections of several capabilities
// state alike: the section is that of documents of capability c (an index
// link in a Change List is §12.1, in a Resource Dump §11.1).
func problemFor(c model.Capability, id string, entry int, format string, args ...any) model.Problem {
	p := problem(id, entry, format, args...)
	if s := capabilitySection(c); s != "" {
		p.Section = s
	}
	return p
}

// capabilitySection is the section of Z39.99-2017 that describes documents
// (and their indexes) of capability c; "" for others.
func capabilitySection(c model.Capability) string {
	switch c {
	case model.CapResourceList:
		return "10.1"
	case model.CapResourceDump:
		return "11.1"
	case model.CapChangeList:
		return "12.1"
	case model.CapChangeDump:
		return "13.1"
	}
	return ""
}

// indexSection is the section that describes the index of documents of
// capability c: §10.2 and §12.2 for Resource and Change List Indexes; the
// dump indexes are described in their dumps' sections.
func indexSection(c model.Capability) string {
	switch c {
	case model.CapResourceList:
		return "10.2"
	case model.CapChangeList:
		return "12.2"
	}
	return capabilitySection(c)
}

// problemInIndex is problem with the section of an index of capability c.
func problemInIndex(c model.Capability, id string, entry int, format string, args ...any) model.Problem {
	p := problem(id, entry, format, args...)
	if s := indexSection(c); s != "" {
		p.Section = s
	}
	return p
}

// CheckTree runs the cross-document checks on a walked tree and sets
// Node.Cross on the nodes the problems concern: a listing's problems (a
// broken entry, an entry disagreeing with the document it lists, the order of
// an index) go to the listing document at the entry's position; a document's
// own links that do not point back go to that document. It replaces any
// earlier results.
//
// Problems of the rules of severity hint are left out (see checkTree).
func CheckTree(root *Node) { checkTree(root, false) }

// checkTree is CheckTree, keeping the hints when hints is set.
func checkTree(root *Node, hints bool) {
	root.Walk(func(n *Node) bool {
		n.Cross = nil
		return true
	})
	root.Walk(func(n *Node) bool {
		if n.Document != nil && !n.Repeat {
			checkChildren(n)
		}
		n.Cross = append(n.Cross, n.pkgProblems...)
		if !hints {
			n.Cross = slices.DeleteFunc(n.Cross, func(p model.Problem) bool { return p.Severity == model.SeverityHint })
		}
		for i := range n.Cross {
			n.Cross[i].Message = withSection(n.Cross[i])
		}
		return true
	})
}

// withSection ends p's message with its section, "(§12.2)", as the
// single-document checker's messages end (once the section is final: some
// rules take the section of the document they are found in).
func withSection(p model.Problem) string {
	suffix := " (§" + p.Section + ")"
	if p.Section == "" || strings.HasSuffix(p.Message, suffix) {
		return p.Message
	}
	return p.Message + suffix
}

// checkChildren checks n against the documents it lists.
func checkChildren(n *Node) {
	if n.Header == nil {
		return
	}
	checkDeclared(n)
	pcap := n.Capability()
	switch {
	case pcap.IsArchive(): // an archive, or an archive index
		checkArchiveChildren(n)
	case n.IsIndex():
		for _, c := range n.Children {
			if !usable(n, c) {
				continue
			}
			checkIndexChild(n, c)
		}
		if pcap == model.CapChangeList || pcap == model.CapChangeDump {
			checkChangeSequence(n)
		}
	case pcap == model.CapDescription:
		for _, c := range n.Children {
			checkDescriptionChild(n, c)
		}
	case pcap == model.CapCapabilityList:
		for _, c := range n.Children {
			checkCapabilityListChild(n, c)
		}
		checkArchivesLinks(n)
	}
}

// checkDescriptionChild checks one document a Source Description lists.
func checkDescriptionChild(n, c *Node) {
	if !usable(n, c) {
		return
	}
	if c.Capability() != model.CapCapabilityList {
		n.Cross = append(n.Cross, problem(RuleDescriptionEntryCapability, c.Via.Entry,
			"entry %s: %s is %s, not a Capability List", model.EntryNumber(c.Via.Entry), c.Via.Loc, docName(c.Document)))
		return
	}
	checkUp(c, RuleCapabilityListUpDescription, n, "the Source Description")
}

// checkCapabilityListChild checks one document a Capability List lists
// (its archives links apart: checkArchivesLinks).
func checkCapabilityListChild(n, c *Node) {
	if !usable(n, c) {
		return
	}
	if c.Via.Capability != "" && c.Capability() != c.Via.Capability {
		n.Cross = append(n.Cross, problem(RuleCapabilityDeclared, c.Via.Entry,
			"entry %s: declares capability %q but %s is %s", model.EntryNumber(c.Via.Entry), c.Via.Capability, c.Via.Loc, docName(c.Document)))
	}
	checkUp(c, RuleUpLinkParent, n, "the Capability List")
}

// checkDeclared compares the length and digests the entries of n declare
// with the bytes received of the documents they list.
func checkDeclared(n *Node) {
	for _, c := range n.Children {
		checkDeclaredChild(n, c)
	}
}

// checkDeclaredChild is checkDeclared for one document n lists.
func checkDeclaredChild(n, c *Node) {
	if c.Repeat || c.Via == nil || c.Document == nil || c.Content == nil || !c.Via.Declares() {
		return
	}
	var diffs []string
	if c.Via.LengthOK && c.Via.Length != c.Content.Length {
		diffs = append(diffs, fmt.Sprintf("length %s declared, %s received", display.Count(c.Via.Length), display.Count(c.Content.Length)))
	}
	for _, h := range c.Via.Hash {
		got, ok := c.Content.Digests[h.Alg]
		if !ok || h.Digest == nil {
			continue // not computed: an unknown algorithm, or a digest that does not parse
		}
		if !strings.EqualFold(got, h.Hex()) {
			diffs = append(diffs, fmt.Sprintf("%s %s declared, %s received", h.Alg, h.Hex(), got))
		}
	}
	if len(diffs) > 0 {
		n.Cross = append(n.Cross, problem(RuleDocumentDeclaredMismatch, c.Via.Entry,
			"entry %s: %s: %s", model.EntryNumber(c.Via.Entry), c.Via.Loc, strings.Join(diffs, "; ")))
	}
}

// ChildUnreachable is the problem (child-unreachable) of a listed document,
// entry of its parent at loc, that could not be fetched: status is the
// HTTP status it answered, 0 when no response came. The message names loc
// and why; the caller says where it is listed. The cross-document checks
// and the explorer's view of all parts of an index report it alike.
func ChildUnreachable(entry int, loc string, status int, err error) model.Problem {
	what := "could not be fetched"
	if status != 0 {
		what = fmt.Sprintf("answered HTTP %d", status)
	}
	return problem(RuleChildUnreachable, entry, "%s %s: %v", loc, what, err)
}

// usable reports a child that cannot be compared (unreachable, unreadable)
// on the parent and tells whether it can be.
func usable(parent, c *Node) bool {
	if c.Document == nil || c.Via == nil {
		return false
	}
	if c.Header == nil {
		if c.Err == nil {
			return false
		}
		if c.Status != 0 || c.FinalURL == "" {
			p := ChildUnreachable(c.Via.Entry, c.Via.Loc, c.Status, c.Err)
			p.Message = fmt.Sprintf("entry %s: %s", model.EntryNumber(c.Via.Entry), p.Message)
			parent.Cross = append(parent.Cross, p)
		} else {
			parent.Cross = append(parent.Cross, problem(RuleChildUnreadable, c.Via.Entry,
				"entry %s: %s: %v", model.EntryNumber(c.Via.Entry), c.Via.Loc, c.Err))
		}
		return false
	}
	if c.Header.Root == model.RootUnknown {
		if c.Err != nil && !errors.Is(c.Err, ErrNotSitemap) {
			parent.Cross = append(parent.Cross, problem(RuleChildUnreadable, c.Via.Entry,
				"entry %s: %s could not be read: %v", model.EntryNumber(c.Via.Entry), c.Via.Loc, c.Err))
		} else {
			parent.Cross = append(parent.Cross, problem(RuleChildUnreadable, c.Via.Entry,
				"entry %s: %s is not a Sitemap document (%s)", model.EntryNumber(c.Via.Entry), c.Via.Loc, describeHeader(c.Header)))
		}
		return false
	}
	return true
}

// checkIndexChild compares one document listed in the index n with n.
func checkIndexChild(n, c *Node) {
	pcap := n.Capability()
	if c.Capability() != pcap {
		c.Cross = append(c.Cross, problem(RuleIndexChildCapability, -1,
			"this is %s, but the index %s that lists it (entry %s) is %s", docName(c.Document), n.Base(), model.EntryNumber(c.Via.Entry), docName(n.Document)))
	}
	if c.Header.Root == model.RootSitemapIndex {
		n.Cross = append(n.Cross, problem(RuleIndexChildIndex, c.Via.Entry,
			"entry %s: %s is itself an index (<sitemapindex>): an index groups <urlset> documents, it does not list other indexes", model.EntryNumber(c.Via.Entry), c.Via.Loc))
	}
	// index link back to n
	if c.Header.Root == model.RootURLSet {
		if idx := c.IndexLinks(); len(idx) == 0 {
			c.Cross = append(c.Cross, problemFor(pcap, RuleIndexLinkRecommended, -1,
				`no <rs:ln rel="index"> link to the index %s that lists it`, n.Base()))
		} else if !matchesAny(idx, n) {
			c.Cross = append(c.Cross, problem(RuleIndexLinkParent, -1,
				`<rs:ln rel="index"> points to %s, but the index that lists it is %s`, idx[0], n.Base()))
		}
	}
	// up link: the Capability List above the index, or the index's own up.
	if c.Capability() != model.CapDescription {
		if gp := n.Parent; gp != nil && gp.Document != nil && gp.Capability() == model.CapCapabilityList {
			checkUp(c, RuleUpLinkParent, gp, "the Capability List that lists its index")
		} else if ups := n.UpLinks(); len(ups) > 0 {
			if mine := c.UpLinks(); len(mine) > 0 && !containsURL(mine, ups[0]) {
				c.Cross = append(c.Cross, problem(RuleUpLinkParent, -1,
					`<rs:ln rel="up"> points to %s, but its index %s points up to %s`, mine[0], n.Base(), ups[0]))
			}
		}
	}
	// the index entry's metadata against the document's own
	md := &c.Header.MD
	switch pcap {
	case model.CapResourceList, model.CapResourceDump:
		if c.Via.At.OK && md.At.OK && c.Via.At.Compare(md.At) != 0 {
			n.Cross = append(n.Cross, problemInIndex(pcap, RuleIndexEntryAt, c.Via.Entry,
				"entry %s: at %s, but %s has at %s", model.EntryNumber(c.Via.Entry), c.Via.At.Raw, c.Via.Loc, md.At.Raw))
		}
		if c.Via.Completed.OK && md.Completed.OK && c.Via.Completed.Compare(md.Completed) != 0 {
			n.Cross = append(n.Cross, problemInIndex(pcap, RuleIndexEntryAt, c.Via.Entry,
				"entry %s: completed %s, but %s has completed %s", model.EntryNumber(c.Via.Entry), c.Via.Completed.Raw, c.Via.Loc, md.Completed.Raw))
		}
	case model.CapChangeList, model.CapChangeDump:
		if c.Via.From.Present() || c.Via.Until.Present() { // the entry has an interval to compare
			if c.Via.Until.Present() != md.Until.Present() {
				if c.Via.Until.Present() {
					n.Cross = append(n.Cross, problemInIndex(pcap, RuleIndexEntryUntil, c.Via.Entry,
						"entry %s: until %s says closed, but %s is open (no until)", model.EntryNumber(c.Via.Entry), c.Via.Until.Raw, c.Via.Loc))
				} else {
					n.Cross = append(n.Cross, problemInIndex(pcap, RuleIndexEntryUntil, c.Via.Entry,
						"entry %s: no until says open, but %s is closed (until %s)", model.EntryNumber(c.Via.Entry), c.Via.Loc, md.Until.Raw))
				}
			}
			if c.Via.From.OK && md.From.OK && c.Via.From.Compare(md.From) != 0 {
				n.Cross = append(n.Cross, problemInIndex(pcap, RuleIndexEntryInterval, c.Via.Entry,
					"entry %s: from %s, but %s has from %s", model.EntryNumber(c.Via.Entry), c.Via.From.Raw, c.Via.Loc, md.From.Raw))
			}
			if c.Via.Until.OK && md.Until.OK && c.Via.Until.Compare(md.Until) != 0 {
				n.Cross = append(n.Cross, problemInIndex(pcap, RuleIndexEntryInterval, c.Via.Entry,
					"entry %s: until %s, but %s has until %s", model.EntryNumber(c.Via.Entry), c.Via.Until.Raw, c.Via.Loc, md.Until.Raw))
			}
		}
	}
}

// checkUp checks that c's up link, when it has one, points at want. A
// missing up link is the single-document checker's business.
func checkUp(c *Node, ruleID string, want *Node, wantName string) {
	ups := c.UpLinks()
	if len(ups) == 0 || matchesAny(ups, want) {
		return
	}
	c.Cross = append(c.Cross, problem(ruleID, -1,
		`<rs:ln rel="up"> points to %s, but %s that lists it is %s`, ups[0], wantName, want.Base()))
}

// interval is the from/until of one child of a change index: the child's own
// when it could be read, the index entry's otherwise; entry and loc are the
// index entry's.
type interval struct {
	entry       int
	loc         string
	from, until model.Datetime
}

// checkChangeSequence checks the order and the continuity of the documents
// of a Change List Index or Change Dump Index.
func checkChangeSequence(n *Node) {
	s := newChangeSequence(n)
	for _, c := range n.Children {
		s.add(c)
	}
	s.finish()
}

// changeSequence checks the order and the continuity of the documents of a
// Change List Index or Change Dump Index as they come, one at a time: it
// needs only the interval of the one before (a streamed walk of an index of a
// million parts keeps no more). The problems go to the index's Cross in the
// order a check of the whole list gives them: at each document, whether it
// is open though not the last, then its order against the one before.
type changeSequence struct {
	n         *Node
	pcap      model.Capability
	orderRule string
	prev      interval
	count     int
	noHints   bool            // leave out the gaps and overlaps (a streamed walk without Hints)
	pending   []model.Problem // the order problems of prev, said once it is known whether prev is the last
}

func newChangeSequence(n *Node) *changeSequence {
	pcap := n.Capability()
	orderRule := RuleChangeIndexOrder
	if pcap == model.CapChangeDump {
		orderRule = RuleChangeDumpIndexOrder
	}
	return &changeSequence{n: n, pcap: pcap, orderRule: orderRule}
}

// add takes the next document of the index.
func (s *changeSequence) add(c *Node) {
	if c.Via == nil {
		return
	}
	cur := interval{entry: c.Via.Entry, loc: c.Via.Loc, from: c.Via.From, until: c.Via.Until}
	if c.Document != nil && c.Header != nil && c.Header.Root != model.RootUnknown && c.Header.MD.From.Present() {
		cur.from, cur.until = c.Header.MD.From, c.Header.MD.Until
	}
	if !cur.from.OK {
		return // nothing to order by; the missing from is reported per document
	}
	n, pcap := s.n, s.pcap
	if s.count > 0 {
		prev := s.prev
		if !prev.until.Present() {
			n.Cross = append(n.Cross, problemInIndex(pcap, RuleChangeIndexOpenNotLast, prev.entry,
				"entry %s: %s is open (no until) but is not the last one listed", model.EntryNumber(prev.entry), prev.loc))
		}
		n.Cross = append(n.Cross, s.pending...)
		s.pending = s.pending[:0]
		switch {
		case cur.from.Compare(prev.from) < 0:
			s.pending = append(s.pending, problemInIndex(pcap, s.orderRule, cur.entry,
				"entry %s: %s (from %s) is listed after %s (from %s)", model.EntryNumber(cur.entry), cur.loc, cur.from.Raw, prev.loc, prev.from.Raw))
		case !prev.until.OK, s.noHints:
		default:
			switch cur.from.Compare(prev.until) {
			case 1:
				s.pending = append(s.pending, problemInIndex(pcap, RuleChangeIndexGap, cur.entry,
					"entry %s: gap from %s to %s between %s and %s", model.EntryNumber(cur.entry), prev.until.Raw, cur.from.Raw, prev.loc, cur.loc))
			case -1:
				s.pending = append(s.pending, problemInIndex(pcap, RuleChangeIndexOverlap, cur.entry,
					"entry %s: %s starts at %s, before %s ends at %s", model.EntryNumber(cur.entry), cur.loc, cur.from.Raw, prev.loc, prev.until.Raw))
			}
		}
	}
	// The strings outlive the child's node: copies, not views of it.
	cur.loc = strings.Clone(cur.loc)
	s.prev = cur
	s.count++
}

// finish says the problems of the last document.
func (s *changeSequence) finish() {
	s.n.Cross = append(s.n.Cross, s.pending...)
	s.pending = nil
}

// matchesAny tells whether one of urls is the document of n (as asked or
// after redirects).
func matchesAny(urls []string, n *Node) bool {
	for _, u := range urls {
		k := NormalizeURL(u)
		if k == NormalizeURL(n.URL) || (n.FinalURL != "" && k == NormalizeURL(n.FinalURL)) {
			return true
		}
		if n.Via != nil && k == NormalizeURL(n.Via.Loc) {
			return true
		}
	}
	return false
}

func containsURL(urls []string, u string) bool {
	k := NormalizeURL(u)
	for _, x := range urls {
		if NormalizeURL(x) == k {
			return true
		}
	}
	return false
}

// docName names a document for a message: "a Resource List Index",
// "a Sitemap without a capability".
func docName(d *Document) string {
	if d == nil || d.Header == nil {
		return "an unreadable document"
	}
	if d.Capability() == "" {
		return "a " + strings.ToLower(model.DocumentTitle("", d.Header.Root)) + " without a capability"
	}
	t := model.DocumentTitle(d.Capability(), d.Header.Root)
	if strings.ContainsRune("AEIOU", rune(t[0])) {
		return "an " + t
	}
	return "a " + t
}

// ListingProblems returns the cross-document problems a checked walk found
// at n, as a view of n's entries shows them: n's own (Cross) and, at the
// entry that lists each document below n, the problems placed on that
// document (index-child-capability, up-link-parent, index-link-parent, …),
// its message led by the entry. Walks that report per document (rsx
// validate --recursive, rsx tree) print the latter under the listed
// document; a view of n alone would otherwise not show them.
func (n *Node) ListingProblems() []model.Problem {
	out := slices.Clip(n.Cross)
	for _, c := range n.Children {
		if c.Repeat || c.Via == nil {
			continue
		}
		for _, p := range c.Cross {
			if p.Entry >= 0 {
				continue // a problem of one of c's own entries: c's business
			}
			p.Entry = c.Via.Entry
			p.Message = fmt.Sprintf("entry %s (%s): %s", model.EntryNumber(c.Via.Entry), c.Via.Loc, p.Message)
			out = append(out, p)
		}
	}
	return out
}

// CheckListed checks the document at target as the documents above it list
// it: path runs from where the walk starts (a Capability List, or the
// document that lists target) down to the document that lists target. Only
// the documents on the path, target and, in a Capability List, its archives
// are loaded, and the cross-document problems placed on target are returned
// (index-child-capability, up-link-parent, archives-link-capability, …):
// those a walk from path[0] reports under target. reached is false when the
// path does not lead to target (a document on it does not list the next).
func (g *Graph) CheckListed(ctx context.Context, path []string, target string, hints bool) (problems []model.Problem, reached bool, err error) {
	if len(path) == 0 {
		return nil, false, nil
	}
	n, err := g.walkPath(ctx, path, target, len(path), hints)
	if n == nil {
		return nil, false, err
	}
	return n.Cross, true, err
}

// CheckListing is the cross-document check of the document at target and
// the documents it lists, reached from above by path (as CheckListed; empty
// to start at target): the problems of target's view (Node.ListingProblems).
// The checks that need a document above (the Capability List's archives,
// the up links of an index's parts) see it. reached is false when the path
// does not lead to target.
func (g *Graph) CheckListing(ctx context.Context, path []string, target string, hints bool) (problems []model.Problem, reached bool, err error) {
	if len(path) == 0 {
		root, err := g.Walk(ctx, target, WalkOptions{Depth: 1, Check: true, Hints: hints})
		if root.Document == nil || root.Header == nil {
			return nil, true, err
		}
		return root.ListingProblems(), true, err
	}
	n, err := g.walkPath(ctx, path, target, len(path)+1, hints)
	if n == nil {
		return nil, false, err
	}
	return n.ListingProblems(), true, err
}

// walkPath walks from path[0] along path[1:] to target, checked, to depth,
// and returns target's node (nil when the path does not lead there).
func (g *Graph) walkPath(ctx context.Context, path []string, target string, depth int, hints bool) (*Node, error) {
	along := append(slices.Clone(path[1:]), target)
	root, err := g.Walk(ctx, path[0], WalkOptions{Depth: depth, Check: true, Hints: hints, Path: along})
	if root.Document == nil || root.Header == nil {
		return nil, err
	}
	n := root
	for _, u := range along {
		var next *Node
		for _, c := range n.Children {
			if c.Document != nil && !c.Repeat && c.Via != nil && NormalizeURL(c.Via.Loc) == NormalizeURL(u) {
				next = c
				break
			}
		}
		if next == nil || next.Header == nil {
			return nil, err
		}
		n = next
	}
	return n, err
}
