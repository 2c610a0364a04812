package model

// Document-level rules: root element, the document-level rs:md and rs:ln,
// limits, and draft constructs.

import (
	"strconv"
	"strings"
)

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
		if md.Empty != 0 {
			c.emptyValues(md.Empty, -1, md.Line, "document-level <rs:md> ")
		}
		c.docCapability(h)
		c.docTimes(h)
		c.docMetadataAttributes(md)
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
			// Section 4 of the Notification draft says it of change
			// notifications, section 5 of framework notifications.
			sec := "N4"
			if md.Capability == CapFrameworkNotification {
				sec = "N5"
			}
			c.report(rRootCapability, -1, 0, sec, "capability="+chkQuote(string(md.Capability))+" with a <sitemapindex> root: notifications do not use the <sitemapindex> format")
		}
	}

	// document-level links
	c.docLinks(h.Links)
	ups, describedby := c.ups, c.describedby
	if complete && k != kUnknownDoc && k != kDescription && k != kDescriptionIndex && ups == 0 {
		if k == kCapabilityList || k == kCapabilityListIndex {
			c.report(rCapabilityListUpLink, -1, 0, "", `no <rs:ln rel="up"> link: a Capability List must link up to the Source Description that enumerates it`)
		} else {
			// An archive's own text could not be consulted in full: the rule
			// rests on the core's navigation (section 6.2) for it.
			sec := k.section()
			if k.archive() {
				sec = "6.2"
			}
			c.report(rUpLinkMissing, -1, 0, sec, `no <rs:ln rel="up"> link: a `+k.title()+" must link up to the Capability List it belongs to")
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
		c.report(rChangeListIndexUntilRequired, c.openIdx, c.openLine, "", "entry "+EntryNumber(c.openIdx)+" ("+chkClip(c.openLoc)+"): no until, but the Change List Index is closed (until "+md.Until.Raw+"): the Change Lists it lists are closed and their entries require until")
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
		if h.MDCount > 1 {
			// Only the first <rs:md> was read; another may have it
			// (md-repeated is reported).
			return
		}
		c.report(rCapabilityMissing, -1, md.Line, "", "the document-level <rs:md> has no capability attribute; it is mandatory and says what the document is (resourcelist, changelist, …)")
	case CapDescription, CapCapabilityList, CapResourceList, CapResourceDump, CapResourceDumpManifest,
		CapChangeList, CapChangeDump, CapChangeDumpManifest,
		CapResourceListArchive, CapResourceDumpArchive, CapChangeListArchive, CapChangeDumpArchive:
	case CapChangeNotification, CapFrameworkNotification:
		c.report(rCapabilityDraft, -1, md.Line, "", "capability="+chkQuote(string(md.Capability))+" is defined by the ResourceSync Notification draft for Capability List entries, not for a document; its documents are not checked further")
	default:
		msg := "capability=" + chkQuote(string(md.Capability)) + " is not a defined value (description, capabilitylist, resourcelist, resourcedump, resourcedump-manifest, changelist, changedump, changedump-manifest; the Archives specification adds resourcelist-archive, resourcedump-archive, changelist-archive, changedump-archive)"
		if fix := md.Capability.Canonical(); fix != "" {
			msg += "; did you mean " + strconv.Quote(string(fix)) + "? Values are lower case, without separators other than the hyphen of the manifests and archives"
		}
		c.report(rCapabilityUnknown, -1, md.Line, "", msg)
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
		if md.At.Raw == "" && md.Empty&AttrAt == 0 && h.MDCount <= 1 {
			c.report(rMDAtMissing, -1, line, "", "the document-level <rs:md> of a "+k.title()+" has no at attribute: the datetime its snapshot started is mandatory (Table 4)")
		}
		if md.From.Raw != "" || md.Until.Raw != "" {
			c.report(rMDTimeNotUsed, -1, line, "", c.names(md.From.Raw != "", md.Until.Raw != "", "from", "until")+" on the document-level <rs:md> of a "+k.title()+": these attributes are used for change documents, not snapshots (Table 4)")
		}
	case k.change():
		if md.From.Raw == "" && md.Empty&AttrFrom == 0 && h.MDCount <= 1 {
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
			where = "entry " + EntryNumber(t.Entry) + ": "
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
