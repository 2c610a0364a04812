package model

// Entry-level rules: loc, lastmod, changefreq, rs:md attributes, rs:ln links,
// order and intervals, and what each type of document requires of its entries.

import (
	"errors"
	"hash/maphash"
	"net/url"
	"strconv"
	"strings"
)

// Entry checks one entry. The Checker keeps no reference to e or its slices.
func (c *Checker) Entry(e *Entry) { c.checkEntry(e, nil) }

// checkEntry is Entry with what a block decoder computed beside e (nil: nothing).
func (c *Checker) checkEntry(e *Entry, pre *entryPre) {
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
		var bad uriProblem
		if pre != nil && pre.ok {
			bad = pre.bad
		} else {
			bad = chkURI(e.Loc)
		}
		if bad != uriOK {
			c.badURI(bad, e, idx)
		}
		if c.locs != nil {
			var h uint64
			if pre != nil && pre.hashed {
				h = pre.h
			} else {
				h = maphash.String(c.seed, e.Loc)
			}
			if first, dup := c.locs.add(h, idx); dup {
				c.report(rLocDuplicate, idx, e.Line, k.section(), chkRef(e, idx)+": also listed as entry "+EntryNumber(first)+": a "+k.title()+" lists each "+c.entryNoun()+" once")
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
	if e.Empty&ChildLastmod != 0 {
		c.report(rLastmodInvalid, idx, e.Line, "", chkRef(e, idx)+": <lastmod> is empty: not a W3C Datetime (leave the element out when the time is not known)")
	}
	if e.Empty&ChildChangefreq != 0 {
		c.report(rChangefreqInvalid, idx, e.Line, "", chkRef(e, idx)+": <changefreq> is empty: not one of always, hourly, daily, weekly, monthly, yearly, never")
	}
	if e.Changefreq != "" && !chkChangefreq(e.Changefreq) {
		c.report(rChangefreqInvalid, idx, e.Line, "", chkRef(e, idx)+": <changefreq> "+chkQuote(e.Changefreq)+" is not one of always, hourly, daily, weekly, monthly, yearly, never")
	}
	if e.Changefreq != "" && c.h != nil && c.h.Root == RootSitemapIndex {
		// The Sitemap index format's <sitemap> has <loc> and <lastmod> only,
		// and §10.2 and §12.2 give index entries no <changefreq>.
		c.report(rElementUnexpected, idx, e.Line, "", chkRef(e, idx)+": <changefreq> inside <sitemap> is not an element of the Sitemap index format (a <sitemap> has <loc>, <lastmod> and, for ResourceSync, <rs:md> and <rs:ln>)")
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
	c.entryLinks(e, idx)
}

// emptyValues reports the attributes of set, written with an empty value,
// under the rule of their values: an empty value is no value of their kind
// (an absent attribute is another matter, judged where it is required).
// The message starts with where.
func (c *Checker) emptyValues(set AttrSet, idx, line int, where string) {
	for _, a := range [...]struct {
		attr AttrSet
		rule ruleID
		name string
		why  string
	}{
		{AttrChange, rChangeInvalid, "change", "is not created, updated or deleted"},
		{AttrAt, rDatetimeInvalid, "at", "is not a W3C Datetime: empty value"},
		{AttrCompleted, rDatetimeInvalid, "completed", "is not a W3C Datetime: empty value"},
		{AttrFrom, rDatetimeInvalid, "from", "is not a W3C Datetime: empty value"},
		{AttrUntil, rDatetimeInvalid, "until", "is not a W3C Datetime: empty value"},
		{AttrDatetime, rDatetimeInvalid, "datetime", "is not a W3C Datetime: empty value"},
		{AttrModified, rDatetimeInvalid, "modified", "is not a W3C Datetime: empty value"},
		{AttrHash, rHashSyntax, "hash", "is empty: a whitespace-delimited list of alg:digest tokens is expected"},
		{AttrLength, rLengthInvalid, "length", "is not a non-negative integer"},
		{AttrType, rTypeInvalid, "type", "is not a media type (type/subtype)"},
		{AttrPri, rLinkPri, "pri", "is not an integer between 1 and 999999"},
	} {
		if set&a.attr != 0 {
			c.report(a.rule, idx, line, "", where+a.name+`="" `+a.why)
		}
	}
}

// entryLinks judges what the entry's links say together (counted by link,
// also for links handed over before Entry), and forgets them for the next
// entry.
func (c *Checker) entryLinks(e *Entry, idx int) {
	if c.kind == kDescription && !c.entDescribedby {
		c.report(rDescriptionEntryDescribedby, idx, e.Line, "", chkRef(e, idx)+`: no <rs:ln rel="describedby"> link: a Source Description entry should link to a document that describes the set of resources its Capability List covers`)
	}
	if c.entVia > 1 {
		c.report(rViaLinkRepeated, idx, e.Line, "", chkRef(e, idx)+": "+strconv.Itoa(c.entVia)+` <rs:ln rel="via"> links: a republished resource keeps only the existing via link to the resource at the original Source`)
	}
	c.entDescribedby, c.entVia = false, 0
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
	case kResourceListArchive:
		return "Resource List"
	case kResourceDumpArchive:
		return "Resource Dump"
	case kChangeListArchive:
		return "Change List"
	case kChangeDumpArchive:
		return "Change Dump"
	case kResourceListArchiveIndex, kResourceDumpArchiveIndex, kChangeListArchiveIndex, kChangeDumpArchiveIndex:
		return "archive part"
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
	if md.Empty != 0 {
		c.emptyValues(md.Empty, idx, line, chkRef(e, idx)+": ")
	}

	// capability
	if md.Capability != "" {
		switch k {
		case kCapabilityList, kCapabilityListIndex, kDescription, kDescriptionIndex:
			// judged in entryRequirements
		case kUnknownDoc:
		case kResourceListIndex, kResourceDumpIndex, kChangeListIndex, kChangeDumpIndex:
			// An index's entries are documents of the index's capability: saying so
			// is harmless, saying otherwise is not.
			if c.h != nil && md.Capability != c.h.MD.Capability {
				c.report(rEntryCapabilityUnexpected, idx, line, "", chkRef(e, idx)+": capability="+chkQuote(string(md.Capability))+" on an entry of a "+k.title()+", whose entries are "+string(c.h.MD.Capability)+" documents")
			}
		case kResourceListArchive, kResourceDumpArchive, kChangeListArchive, kChangeDumpArchive,
			kResourceListArchiveIndex, kResourceDumpArchiveIndex, kChangeListArchiveIndex, kChangeDumpArchiveIndex:
			// An archive's entries are documents of the archived capability (an
			// archive index's, parts of the archive).
			if c.h != nil {
				want := c.h.MD.Capability
				if !k.archiveIndex() {
					want = want.Archived()
				}
				if md.Capability != want {
					c.report(rEntryCapabilityUnexpected, idx, line, "", chkRef(e, idx)+": capability="+chkQuote(string(md.Capability))+" on an entry of a "+k.title()+", whose entries are "+string(want)+" documents")
				}
			}
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
		if !k.entryAt() && !k.archiveAt() && (md.At.Raw != "" || md.Completed.Raw != "") {
			c.misplacedEntryTime(e, idx, line, md.At.Raw != "", md.Completed.Raw != "", "at", "completed", "Resource List Indexes, Resource Dumps and Resource Dump Indexes (and the Archives specification on entries of Resource List and Resource Dump Archives)")
		}
		if !k.entryFrom() && !k.archiveFrom() && (md.From.Raw != "" || md.Until.Raw != "") {
			c.misplacedEntryTime(e, idx, line, md.From.Raw != "", md.Until.Raw != "", "from", "until", "Change List Indexes, Change Dumps and Change Dump Indexes (and the Archives specification on entries of Change List and Change Dump Archives)")
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
	if md.Type != "" {
		switch c.mediaType(md.Type) {
		case mtBadForm:
			c.report(rTypeInvalid, idx, line, "", chkRef(e, idx)+": type="+chkQuote(md.Type)+" is not a media type (type/subtype)")
		case mtUnregistered:
			c.report(rTypeUnregistered, idx, line, "", chkRef(e, idx)+": type="+chkQuote(md.Type)+" has a top-level type the IANA Media Types registry does not have ("+chkTopTypes+")")
		}
	}
	if md.Type != "" && (k == kResourceDump || k == kChangeDump) {
		switch {
		case c.dumpType == "":
			c.dumpType, c.dumpTypeIdx = strings.Clone(md.Type), idx
		case md.Type != c.dumpType && !chkSameMediaType(md.Type, c.dumpType):
			c.report(rDumpMixedFormats, idx, line, k.section(), chkRef(e, idx)+": package type="+chkQuote(md.Type)+" differs from "+chkQuote(c.dumpType)+" of entry "+EntryNumber(c.dumpTypeIdx)+"; a "+k.title()+" should only point to packages of the same format")
		}
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
	// With several <rs:md> only the first was read: an attribute it lacks
	// may be on another, so none is reported missing (md-repeated is).
	lacks := func(missing bool) bool { return missing && e.MDCount <= 1 }
	switch k {
	case kChangeList, kChangeDumpManifest:
		if lacks(md.Change == "" && md.Empty&AttrChange == 0) {
			what := "no <rs:md>"
			if md.Present {
				what = "<rs:md> has no change attribute"
			}
			c.report(rChangeMissing, idx, line, k.section(), chkRef(e, idx)+": "+what+": every "+k.title()+" entry must have change=\"created|updated|deleted\"")
		}
		if k == kChangeDumpManifest && md.Change != ChangeDeleted {
			if lacks(!md.HasPath) {
				c.missingPath(e, idx, line, md, " (required except for change=\"deleted\")")
			}
			if lacks(md.Type == "" && md.Empty&AttrType == 0) {
				c.report(rChangeDumpManifestType, idx, line, "", chkRef(e, idx)+": "+chkNoAttr(md, "type")+"; the Media Type of the bitstream is strongly recommended")
			}
		}
	case kResourceDumpManifest:
		if lacks(!md.HasPath) {
			c.missingPath(e, idx, line, md, "")
		}
		if lacks(md.Type == "" && md.Empty&AttrType == 0) {
			c.report(rManifestTypeRecommended, idx, line, "", chkRef(e, idx)+": "+chkNoAttr(md, "type")+"; the Media Type of the bitstream is recommended")
		}
	case kResourceDump:
		c.packageEntry(e, idx, line, md)
	case kCapabilityListIndex:
		// Its entries are Capability Lists; Table 4 asks nothing of their <rs:md>.
		if md.Capability != "" && md.Capability != CapCapabilityList {
			c.report(rCapabilityListEntryInvalid, idx, line, "", chkRef(e, idx)+": capability="+chkQuote(string(md.Capability))+" in a Capability List Index, whose entries are Capability Lists")
		}
	case kCapabilityList:
		if md.Capability == "" {
			if !lacks(true) {
				return
			}
			what := "no <rs:md>"
			if md.Present {
				what = "<rs:md> has no capability attribute"
			}
			c.report(rCapabilityListEntryCapability, idx, line, "", chkRef(e, idx)+": "+what+": a Capability List entry must say which capability its document implements")
			return
		}
		switch md.Capability {
		case CapResourceList, CapResourceDump, CapChangeList, CapChangeDump,
			// Archives 1.0 section 2 (0.9 section 6): archives are advertised
			// in the Capability List like the core capabilities.
			CapResourceListArchive, CapResourceDumpArchive, CapChangeListArchive, CapChangeDumpArchive:
		case CapChangeNotification, CapFrameworkNotification:
			c.report(rCapabilityDraft, idx, line, "", chkRef(e, idx)+": capability="+chkQuote(string(md.Capability))+" is defined by the ResourceSync Notification draft, not by Z39.99-2017; Destinations that implement only the standard ignore it")
		case CapDescription, CapCapabilityList, CapResourceDumpManifest, CapChangeDumpManifest:
			c.report(rCapabilityListEntryInvalid, idx, line, "", chkRef(e, idx)+": capability="+chkQuote(string(md.Capability))+" is not a capability a Capability List advertises (resourcelist, resourcedump, changelist, changedump, and their archives)")
		default:
			msg := chkRef(e, idx) + ": capability=" + chkQuote(string(md.Capability)) + " is not defined by the specification"
			if fix := md.Capability.Canonical(); fix != "" {
				msg += "; did you mean " + strconv.Quote(string(fix)) + "?"
			}
			c.report(rEntryCapabilityUnknown, idx, line, "", msg)
		}
		for _, s := range c.caps {
			if s.c == md.Capability {
				c.report(rCapabilityListDuplicate, idx, line, "", chkRef(e, idx)+": capability "+chkQuote(string(md.Capability))+" is already listed by entry "+EntryNumber(s.idx)+"; a Capability List must only contain one entry per capability")
				return
			}
		}
		if md.Capability == CapChangeNotification || md.Capability == CapFrameworkNotification {
			c.notificationChannel(e, idx, line, md.Capability)
		}
		if len(c.caps) < 64 {
			c.caps = append(c.caps, chkCapSeen{Capability(strings.Clone(string(md.Capability))), idx})
		}
	case kDescription:
		if md.Present && md.Capability != CapCapabilityList && (md.Capability != "" || lacks(true)) {
			what := "has no capability attribute"
			if md.Capability != "" {
				what = "has capability=" + chkQuote(string(md.Capability))
			}
			c.report(rDescriptionEntryCapability, idx, line, "", chkRef(e, idx)+": <rs:md> "+what+"; in a Source Description it must be capability=\"capabilitylist\"")
		}
	case kResourceListArchive, kResourceDumpArchive:
		if !md.Present || lacks(md.At.Raw == "" && md.Empty&AttrAt == 0) {
			what := "no <rs:md>"
			if md.Present {
				what = "<rs:md> has no at attribute"
			}
			c.report(rArchiveEntryAtMissing, idx, line, k.section(), chkRef(e, idx)+": "+what+"; the entry of a "+k.title()+" conveys when the "+c.entryNoun()+"'s snapshot was taken (at)")
		}
	case kChangeListArchive, kChangeDumpArchive:
		if !md.Present || lacks(md.From.Raw == "" && md.Empty&AttrFrom == 0) {
			what := "no <rs:md>"
			if md.Present {
				what = "<rs:md> has no from attribute"
			}
			c.report(rArchiveEntryFromMissing, idx, line, k.section(), chkRef(e, idx)+": "+what+"; the entry of a "+k.title()+" conveys the interval the "+c.entryNoun()+" covers (from, and until once it is closed)")
		}
	case kChangeListIndex, kChangeDump, kChangeDumpIndex:
		if k == kChangeDump {
			c.packageEntry(e, idx, line, md)
		}
		if !md.Present || lacks(md.From.Raw == "" && md.Empty&AttrFrom == 0) {
			what := "no <rs:md>"
			if md.Present {
				what = "<rs:md> has no from attribute"
			}
			c.report(rEntryFromRecommended, idx, line, "", chkRef(e, idx)+": "+what+"; a from attribute is recommended to convey the interval the "+c.entryNoun()+" covers")
		}
		if k == kChangeListIndex && md.Present {
			if c.openIdx >= 0 {
				c.report(rChangeListIndexUntilRequired, c.openIdx, c.openLine, "", "entry "+EntryNumber(c.openIdx)+" ("+chkClip(c.openLoc)+"): no until, but entry "+EntryNumber(idx)+" follows: only the last, open Change List may lack until; a closed Change List's entry requires until")
				c.openIdx = -1
			}
			if lacks(md.Until.Raw == "" && md.Empty&AttrUntil == 0) && md.From.Raw != "" {
				c.openIdx, c.openLoc, c.openLine = idx, strings.Clone(e.Loc), line
			}
		}
	}
}

// notificationChannel remembers the channel a Capability List advertises
// for change or framework notifications and reports the second kind on the
// channel of the first: the Notification draft sends them "on different
// notification channels".
func (c *Checker) notificationChannel(e *Entry, idx, line int, capb Capability) {
	if c.channelLoc == "" {
		c.channelLoc, c.channelCap, c.channelIdx = strings.Clone(e.Loc), capb, idx
		return
	}
	if capb != c.channelCap && e.Loc != "" && sameURL(e.Loc, c.channelLoc) {
		c.report(rNotificationChannelShared, idx, line, "", chkRef(e, idx)+": the "+string(capb)+" channel is the "+string(c.channelCap)+" channel of entry "+EntryNumber(c.channelIdx)+"; change and framework notifications are sent on different channels")
	}
}

// chkNoAttr says that md lacks the attribute name: "no <rs:md>" or
// "<rs:md> has no NAME attribute".
func chkNoAttr(md *Metadata, name string) string {
	if !md.Present {
		return "no <rs:md>"
	}
	return "<rs:md> has no " + name + " attribute"
}

// packageEntry checks what an entry of a Resource Dump or Change Dump
// should say of its package.
func (c *Checker) packageEntry(e *Entry, idx, line int, md *Metadata) {
	k := c.kind
	// (An empty type or length is reported as such: type-invalid, length-invalid.)
	noType, noLength := md.Type == "" && md.Empty&AttrType == 0, md.LengthRaw == "" && md.Empty&AttrLength == 0
	rule := rDumpEntryTypeLength
	if k == kChangeDump {
		rule = rChangeDumpEntryTypeLength
	}
	switch {
	case !md.Present:
		c.report(rule, idx, line, "", chkRef(e, idx)+": no <rs:md>: the Media Type (type) and length of the package are recommended")
	case e.MDCount > 1:
		// Only the first <rs:md> was read: the others may carry them
		// (md-repeated says so).
	case noType, noLength:
		c.report(rule, idx, line, "", chkRef(e, idx)+": <rs:md> has no "+c.names(noType, noLength, "type", "length")+" attribute: the Media Type and length of the package are recommended")
	}
	if md.Type != "" && !c.notZip && c.mediaType(md.Type) != mtBadForm && !chkZipType(md.Type) {
		c.notZip = true
		c.report(rDumpPackageFormat, idx, line, k.section(), chkRef(e, idx)+": package type="+chkQuote(md.Type)+" is not ZIP (application/zip), the packaging format of the framework; other formats hurt interoperability (reported for the first such package only)")
	}
}

// chkZipType tells whether a media type names the ZIP format: the registered
// application/zip, or the unregistered names some servers send for it.
func chkZipType(t string) bool {
	return chkSameMediaType(t, "application/zip") || chkSameMediaType(t, "application/x-zip-compressed") || chkSameMediaType(t, "application/x-zip")
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

// interval checks that an entry's datetime lies within the document's [from, until].
func (c *Checker) interval(e *Entry, idx, line int, d *Datetime) {
	if c.from.OK && chkLatest(d).Before(c.from.Time) {
		c.report(rDatetimeInInterval, idx, line, "", chkRef(e, idx)+": datetime "+d.Raw+" is before the "+c.kind.title()+"'s from "+c.from.Raw+": a change datetime must be within [from, until]")
	}
	if c.until.OK && d.Time.After(chkLatest(&c.until)) {
		c.report(rDatetimeInInterval, idx, line, "", chkRef(e, idx)+": datetime "+d.Raw+" is after the "+c.kind.title()+"'s until "+c.until.Raw+": a change datetime must be within [from, until]")
	}
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
		c.report(id, idx, line, "", chkRef(e, idx)+": "+attr+" "+d.Raw+" is before the previous entry's "+string(c.prevRaw)+" (entry "+EntryNumber(c.prevIdx)+"): "+why)
	}
	c.prevOK, c.prevTime, c.prevRaw, c.prevIdx = true, d.Time, append(c.prevRaw[:0], d.Raw...), idx
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
				reason = le.Problems[0].Reason
				if tok := le.Problems[0].Token; tok != "" && tok != raw {
					reason = chkQuote(tok) + ": " + reason
				}
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

// mtVerdict is what mediaType makes of a type attribute.
type mtVerdict uint8

const (
	mtOK           mtVerdict = iota
	mtBadForm                // not type/subtype
	mtUnregistered           // a top-level type IANA does not register
)

// mediaType judges a type attribute, remembering the last good ones: a document
// uses a handful of types over and over.
func (c *Checker) mediaType(s string) mtVerdict {
	for _, g := range c.goodTypes {
		if g == s {
			return mtOK
		}
	}
	switch {
	case !chkMediaType(s):
		return mtBadForm
	case !chkRegisteredTopType(s):
		return mtUnregistered
	}
	c.goodTypes[c.nGood%len(c.goodTypes)] = strings.Clone(s)
	c.nGood++
	return mtOK
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
	if _, why := PackageMember(p); why != "" {
		c.report(rPathUnsafe, idx, line, c.kind.section(), where+" "+why+"; a bitstream's path names a file inside the package by a clean relative name, and rsx dump --extract refuses this one")
	}
	if track && c.paths != nil {
		if first, dup := c.paths.add(maphash.String(c.seed, p), idx); dup {
			c.report(rPathDuplicate, idx, line, c.kind.section(), where+" is also the path of entry "+EntryNumber(first)+"; each bitstream of a package has its own path")
		}
	}
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
	if l.Empty != 0 {
		c.emptyValues(l.Empty, idx, line, where()+" ")
	}
	if !l.HasRel || strings.TrimSpace(l.Rel) == "" {
		c.report(rLinkRelMissing, idx, line, "", where()+" has no rel attribute: the relation is mandatory")
	}
	if !l.HasHref || l.Href == "" {
		c.report(rLinkHrefMissing, idx, line, "", where()+" has no href attribute: the URI of the related resource is mandatory")
	} else if href := strings.TrimSpace(l.Href); href != "" {
		switch chkURI(href) {
		case uriOK:
		case uriBadChar:
			c.report(rLinkHrefInvalidChar, idx, line, "", where()+" href="+chkQuote(l.Href)+" contains characters a URI cannot hold (spaces, control characters or <>\"{}|\\^`); percent-encode them")
		case uriBadPercent:
			c.report(rLinkHrefInvalidChar, idx, line, "", where()+" href="+chkQuote(l.Href)+" has a % that is not followed by two hex digits; a URI holds % only to percent-encode an octet (write a literal % as %25)")
		case uriNoHost:
			c.report(rLinkHrefNotAbsolute, idx, line, "", where()+" href="+chkQuote(l.Href)+" has no host")
		default:
			msg := where() + " href=" + chkQuote(l.Href) + " is not an absolute URI"
			if c.opts.BaseURL != "" {
				if _, err := url.Parse(c.opts.BaseURL); err == nil {
					if _, err := url.Parse(href); err == nil {
						msg += " (relative to this document it would be " + chkClip(ResolveHref(c.opts.BaseURL, href)) + ")"
					}
				}
			}
			c.report(rLinkHrefNotAbsolute, idx, line, "", msg)
		}
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
	if l.Type != "" {
		switch c.mediaType(l.Type) {
		case mtBadForm:
			c.report(rTypeInvalid, idx, line, "", where()+" type="+chkQuote(l.Type)+" is not a media type (type/subtype)")
		case mtUnregistered:
			c.report(rTypeUnregistered, idx, line, "", where()+" type="+chkQuote(l.Type)+" has a top-level type the IANA Media Types registry does not have ("+chkTopTypes+")")
		}
	}
	if l.Modified.Raw != "" && !l.Modified.OK {
		c.report(rDatetimeInvalid, idx, line, "", where()+" modified="+chkQuote(l.Modified.Raw)+" is not a W3C Datetime: "+chkDatetimeReason(l.Modified.Raw))
	}
	if e != nil && l.HasPath && c.kind.manifest() {
		c.path(l.Path, e, idx, line, "<rs:ln> path", false)
	}
	if e == nil {
		c.docLinkAttributes(l, line, where)
	}
	patch, timegate, alternate, memento, duplicate := false, false, false, false, false
	for tok := range RelTokens(l.Rel) {
		switch chkRelKindOf(tok) {
		case relDuplicate:
			duplicate = true
		case relDescribedby:
			if e != nil {
				c.entDescribedby = true
			}
		case relVia:
			if e != nil {
				c.entVia++
			}
		case relPatch:
			patch = true
		case relTimegate:
			timegate = true
		case relAlternate:
			alternate = true
		case relMemento:
			memento = true
		default:
			switch {
			case strings.IndexByte(tok, ':') >= 0:
				if chkURI(tok) != uriOK {
					c.report(rLinkRelUnregistered, idx, line, "", where()+" relation type "+chkQuote(tok)+" is neither a registered name nor an absolute URI")
				}
			case !chkRegisteredRel(tok):
				c.report(rLinkRelUnregistered, idx, line, "", where()+" relation type "+chkQuote(tok)+" is not in the IANA Link Relation Type Registry; unregistered types must be URIs (RFC 5988, section 4.2)")
			}
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
	if e != nil && alternate && l.Type == "" {
		c.report(rAlternateLinkType, idx, line, "", where()+" has no type: the media type of an alternate representation is recommended")
	}
	if e != nil && memento && l.Modified.Raw == "" {
		c.report(rMementoLinkModified, idx, line, "", where()+" has no modified attribute: it conveys the datetime of the prior version the memento link points to")
	}
	if e != nil && timegate && (l.Type != "" || l.HashRaw != "" || l.LengthRaw != "" || l.Modified.Raw != "" || l.Encoding != "" || l.HasPath || l.PriRaw != "") {
		c.report(rTimegateLinkAttributes, idx, line, "", where()+" carries "+chkLinkAttrNames(l, true)+"; attributes other than rel and href are meaningless for a TimeGate and should not be used")
	}
	if e != nil && duplicate && (l.Type != "" || l.HashRaw != "" || l.LengthRaw != "" || l.Encoding != "" || l.HasPath) {
		c.report(rDuplicateLinkAttributes, idx, line, "", where()+" carries "+chkLinkAttrNames(l, false)+": a mirror has the resource's own metadata, so these attributes of <rs:md> should be omitted from the duplicate link")
	}
	c.attrs(l.Extra, e, idx, line, false)
}

// chkRelKind is a relation type some rule of the checker is about.
type chkRelKind uint8

const (
	relOther chkRelKind = iota
	relDuplicate
	relDescribedby
	relVia
	relPatch
	relTimegate
	relAlternate
	relMemento
)

// chkRelKindOf classifies a relation type as RelMatches compares them:
// registered names in any case, URIs exactly. Lower-case names, the common
// case, take one switch.
func chkRelKindOf(tok string) chkRelKind {
	switch tok {
	case "duplicate":
		return relDuplicate
	case "describedby":
		return relDescribedby
	case "via":
		return relVia
	case RelPatch:
		return relPatch
	case "timegate":
		return relTimegate
	case "alternate":
		return relAlternate
	case "memento":
		return relMemento
	}
	upper := false
	for i := 0; i < len(tok); i++ {
		if 'A' <= tok[i] && tok[i] <= 'Z' {
			upper = true
			break
		}
	}
	if !upper {
		return relOther
	}
	for _, r := range [...]struct {
		name string
		kind chkRelKind
	}{{"duplicate", relDuplicate}, {"describedby", relDescribedby}, {"via", relVia}, {"timegate", relTimegate}, {"alternate", relAlternate}, {"memento", relMemento}} {
		if RelMatches(tok, r.name) {
			return r.kind
		}
	}
	return relOther
}

// chkLinkAttrNames lists the attributes of l other than rel and href that
// Section 7 defines for <rs:ln> (modified and pri only when all).
func chkLinkAttrNames(l *Link, all bool) string {
	var names []string
	for _, a := range [...]struct {
		set  bool
		name string
	}{{l.HashRaw != "", "hash"}, {l.LengthRaw != "", "length"}, {l.Type != "", "type"}, {l.Encoding != "", "encoding"}, {l.HasPath, "path"},
		{all && l.Modified.Raw != "", "modified"}, {all && l.PriRaw != "", "pri"}} {
		if a.set {
			names = append(names, a.name)
		}
	}
	return strings.Join(names, ", ")
}

// docLinkAttributes reports attributes Table 3 does not give a
// document-level <rs:ln> (it has href and rel).
func (c *Checker) docLinkAttributes(l *Link, line int, where func() string) {
	if l.Type == "" && l.HashRaw == "" && l.LengthRaw == "" && l.Encoding == "" && !l.HasPath && l.Modified.Raw == "" && l.PriRaw == "" {
		return
	}
	c.report(rLinkAttributeUnexpected, -1, line, "", where()+" carries "+chkLinkAttrNames(l, true)+": Table 3 gives a document-level <rs:ln> only href and rel; these attributes describe a resource an entry links to")
}

// docMetadataAttributes reports attributes Table 3 does not give the
// document-level <rs:md> (at, capability, completed, from, until).
func (c *Checker) docMetadataAttributes(md *Metadata) {
	var names []string
	for _, a := range [...]struct {
		set  bool
		name string
	}{{md.Change != "", "change"}, {md.Datetime.Raw != "", "datetime"}, {md.HashRaw != "", "hash"}, {md.LengthRaw != "", "length"},
		{md.Type != "", "type"}, {md.Encoding != "", "encoding"}, {md.HasPath, "path"}} {
		if a.set {
			names = append(names, a.name)
		}
	}
	if len(names) == 0 {
		return
	}
	c.report(rAttributeUnexpected, -1, md.Line, "", "document-level <rs:md> carries "+strings.Join(names, ", ")+": Table 3 gives it only at, capability, completed, from and until; the other attributes describe an entry's resource")
}

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

func (c *Checker) badURI(bad uriProblem, e *Entry, idx int) {
	v := chkQuote(e.Loc)
	switch bad {
	case uriBadChar:
		c.report(rLocInvalidChar, idx, e.Line, "", chkRef(e, idx)+": <loc> "+v+" contains characters a URI cannot hold (spaces, control characters or <>\"{}|\\^`); percent-encode them")
	case uriBadPercent:
		c.report(rLocInvalidChar, idx, e.Line, "", chkRef(e, idx)+": <loc> "+v+" has a % that is not followed by two hex digits; a URI holds % only to percent-encode an octet (write a literal % as %25)")
	case uriNoHost:
		c.report(rLocNotAbsolute, idx, e.Line, "", chkRef(e, idx)+": <loc> "+v+" has no host")
	default:
		msg := chkRef(e, idx) + ": <loc> " + v + " is not an absolute URI"
		if c.opts.BaseURL != "" {
			if _, err := url.Parse(c.opts.BaseURL); err == nil {
				if _, err := url.Parse(e.Loc); err == nil {
					msg += " (relative to this document it would be " + chkClip(ResolveHref(c.opts.BaseURL, e.Loc)) + ")"
				}
			}
		}
		c.report(rLocNotAbsolute, idx, e.Line, "", msg)
	}
}
