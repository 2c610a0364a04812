package crawl

import (
	"context"
	"fmt"
	"time"

	"rsx/model"
)

// Archives (the ResourceSync Archives specification): the cross-document
// checks of an archive against the documents it lists, the archives links of
// a Capability List's documents, and a Source's change history (its live
// Change List Index and its Change List Archive) for coverage and catching up.

// archiveSection is the section of the Archives specification (1.0) that
// defines an archive of capability c: AR3 to AR6.
func archiveSection(c model.Capability) string {
	switch c {
	case model.CapResourceListArchive:
		return "AR3"
	case model.CapResourceDumpArchive:
		return "AR4"
	case model.CapChangeListArchive:
		return "AR5"
	case model.CapChangeDumpArchive:
		return "AR6"
	}
	return ""
}

// archiveProblem is problem with the section of the archive's own kind.
func archiveProblem(id string, archive model.Capability, entry int, format string, args ...any) model.Problem {
	p := problem(id, entry, format, args...)
	if sec := archiveSection(archive); sec != "" {
		p.Section = sec
	}
	return p
}

// checkArchiveChildren compares an archive (or an archive index) with the
// documents it lists.
func checkArchiveChildren(n *Node) {
	for _, c := range n.Children {
		checkArchiveChild(n, c)
	}
}

// checkArchiveChild compares one document an archive (or an archive index)
// lists with the archive.
func checkArchiveChild(n, c *Node) {
	if !usable(n, c) {
		return
	}
	pcap := n.Capability()
	archived := pcap.Archived()
	switch ccap := c.Capability(); {
	case ccap == archived:
		// The 2013 D-Lib paper's archives were <sitemapindex> documents
		// listing the archived documents themselves: accepted.
		checkArchiveEntry(n, c)
	case n.IsIndex() && ccap == pcap:
		// A part of the archive (Archives 1.0, Example 3.2); its own
		// entries are checked at its node.
	default:
		want := "a " + archived.Title()
		if n.IsIndex() {
			want += " or a part of the " + pcap.Title()
		}
		n.Cross = append(n.Cross, archiveProblem(RuleArchiveChildCapability, pcap, c.Via.Entry,
			"entry %s: %s is %s, not %s", model.EntryNumber(c.Via.Entry), c.Via.Loc, docName(c.Document), want))
	}
}

// checkArchiveEntry compares the times an archive entry declares with those
// of the document it lists.
func checkArchiveEntry(n, c *Node) {
	md := &c.Header.MD
	v := c.Via
	num := model.EntryNumber(v.Entry)
	acap := n.Capability()
	problem := func(id string, entry int, format string, args ...any) model.Problem {
		return archiveProblem(id, acap, entry, format, args...)
	}
	if md.Capability.IsSnapshot() {
		if v.At.OK && md.At.OK && v.At.Compare(md.At) != 0 {
			n.Cross = append(n.Cross, problem(RuleArchiveEntryAt, v.Entry, "entry %s: at %s, but %s has at %s", num, v.At.Raw, v.Loc, md.At.Raw))
		}
		if v.Completed.OK && md.Completed.OK && v.Completed.Compare(md.Completed) != 0 {
			n.Cross = append(n.Cross, problem(RuleArchiveEntryAt, v.Entry, "entry %s: completed %s, but %s has completed %s", num, v.Completed.Raw, v.Loc, md.Completed.Raw))
		}
		return
	}
	if !v.From.Present() && !v.Until.Present() {
		return // nothing declared to compare (the entry's own check reports it)
	}
	switch {
	case v.Until.Present() && !md.Until.Present():
		n.Cross = append(n.Cross, problem(RuleArchiveEntryInterval, v.Entry, "entry %s: until %s says closed, but %s is open (no until)", num, v.Until.Raw, v.Loc))
	case !v.Until.Present() && md.Until.Present():
		n.Cross = append(n.Cross, problem(RuleArchiveEntryInterval, v.Entry, "entry %s: no until says open, but %s is closed (until %s)", num, v.Loc, md.Until.Raw))
	}
	if v.From.OK && md.From.OK && v.From.Compare(md.From) != 0 {
		n.Cross = append(n.Cross, problem(RuleArchiveEntryInterval, v.Entry, "entry %s: from %s, but %s has from %s", num, v.From.Raw, v.Loc, md.From.Raw))
	}
	if v.Until.OK && md.Until.OK && v.Until.Compare(md.Until) != 0 {
		n.Cross = append(n.Cross, problem(RuleArchiveEntryInterval, v.Entry, "entry %s: until %s, but %s has until %s", num, v.Until.Raw, v.Loc, md.Until.Raw))
	}
}

// checkArchivesLinks checks the archives links of the documents below a
// Capability List (its capability documents and the parts of their indexes)
// against the archives the Capability List lists.
func checkArchivesLinks(cl *Node) {
	archives := archivesOf(cl.Children)
	if len(archives) == 0 {
		return
	}
	for _, c := range cl.Children {
		if c.Capability().IsArchive() {
			continue
		}
		c.Walk(func(x *Node) bool {
			if x.Document == nil || x.Header == nil || x.Repeat {
				return false
			}
			checkArchivesLinksOf(cl, archives, x)
			return true
		})
	}
}

// archivesOf maps the normalised URLs of the archives among a Capability
// List's children to them.
func archivesOf(children []*Node) map[string]*Node {
	archives := map[string]*Node{}
	for _, c := range children {
		if c.Document == nil || c.Header == nil || c.Via == nil || !c.Capability().IsArchive() {
			continue
		}
		archives[NormalizeURL(c.Via.Loc)] = c
		if c.FinalURL != "" {
			archives[NormalizeURL(c.FinalURL)] = c
		}
	}
	return archives
}

// checkArchivesLinksOf checks the archives links of x, a document below the
// Capability List cl, against the archives cl lists.
func checkArchivesLinksOf(cl *Node, archives map[string]*Node, x *Node) {
	want := x.Capability().ArchiveCapability()
	for _, href := range x.ArchivesLinks() {
		a, ok := archives[NormalizeURL(href)]
		if !ok || want == "" || a.Capability() == want {
			continue
		}
		x.Cross = append(x.Cross, problem(RuleArchivesLinkCapability, -1,
			`<rs:ln rel="archives"> points to %s, which the Capability List %s lists as %s; the archive of %s is a %s`,
			href, cl.Base(), docName(a.Document), docName(x.Document), want.Title()))
	}
}

// Periods are the intervals of the Change Lists (or Change Dump packages) a
// document declares: the entries of a Change List Index, a Change Dump (when
// its entries were kept, as Graph.Load keeps them), an index of them or a
// Change List (Change Dump) Archive, or a single Change List's own from and
// until. Entries without a valid from are left out; an archive index's
// entries (archive parts) have none.
func Periods(d *Document) []model.Period {
	if d == nil || d.Header == nil || d.Header.Root == model.RootUnknown {
		return nil
	}
	c := d.Capability()
	archived := c.IsArchive()
	var out []model.Period
	add := func(loc string, entry int, from, until model.Datetime) {
		if !from.OK {
			return
		}
		p := model.Period{URL: loc, From: from.Time, Archived: archived, Entry: entry}
		if until.OK {
			p.Until = until.Time
		}
		out = append(out, p)
	}
	switch {
	case archived || d.IsIndex():
		for _, dl := range d.Down {
			add(dl.Loc, dl.Entry, dl.From, dl.Until)
		}
	case c == model.CapChangeDump:
		if t := d.Entries; t != nil {
			for i := 0; i < t.Len(); i++ {
				add(model.ResolveHref(d.Base(), t.Loc(i)), i, t.From(i), t.Until(i))
			}
		}
	case c == model.CapChangeList:
		add(d.Base(), -1, d.Header.MD.From, d.Header.MD.Until)
	}
	return out
}

// History is what a Source publishes of its changes: the live Change List
// (or Change List Index, or Change Dump), and the archive of the documents
// that left it.
type History struct {
	Live *Document
	// Archive is the archive, then its parts when it is an index; empty when
	// the Source offers none.
	Archive []*Document
	// LivePeriods and ArchivedPeriods are the intervals the live document and
	// the archive declare (Periods).
	LivePeriods, ArchivedPeriods []model.Period
}

// CatchUp is the plan that brings a copy up to date from since: the archived
// lists, then the live ones, that cover every change after it, or the gap
// nothing covers (model.PlanCatchUp).
func (h *History) CatchUp(since time.Time) model.CatchUp {
	return model.PlanCatchUp(since, h.ArchivedPeriods, h.LivePeriods)
}

// Coverage is every period, the archived ones first, and the segments they
// cut time into (model.Coverage): what the explorer's coverage page draws.
func (h *History) Coverage() ([]model.Period, []model.Segment) {
	all := append(append([]model.Period(nil), h.ArchivedPeriods...), h.LivePeriods...)
	return all, model.Coverage(all)
}

// HistoryOptions tell LoadHistory where to look.
type HistoryOptions struct {
	// CapabilityList is the Capability List that advertises the archive,
	// when the live document has no archives link; "" follows the live
	// document's up link.
	CapabilityList string
	// MaxParts bounds the parts of an archive index that are loaded; 0 means
	// DefaultMaxDocuments.
	MaxParts int
}

// LoadHistory loads the live change document at url (a Change List, a Change
// List Index, a Change Dump or an index of them) and its archive: the target
// of its archives link, or else the entry of the archive capability in the
// Capability List (HistoryOptions.CapabilityList, or the live document's up
// link), and the parts of the archive when it is an index.
//
// The History is nil only when url itself could not be loaded; the error
// then says why. When the archive cannot be had, the History holds the live
// document and the error says what failed; a Source without an archive is
// no error (History.Archive is empty).
func LoadHistory(ctx context.Context, g *Graph, url string, o HistoryOptions) (*History, error) {
	live, err := g.Load(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", url, err)
	}
	capb := live.Capability()
	if !capb.IsChange() || capb.IsManifest() {
		return nil, fmt.Errorf("load %s: %s is not a Change List, Change Dump or an index of them", url, docName(live))
	}
	h := &History{Live: live, LivePeriods: Periods(live)}
	want := capb.ArchiveCapability()
	archiveURL := ""
	if links := live.ArchivesLinks(); len(links) > 0 {
		archiveURL = links[0]
	} else {
		cl := o.CapabilityList
		if cl == "" {
			if ups := live.UpLinks(); len(ups) > 0 {
				cl = ups[0]
			}
		}
		if cl == "" {
			return h, nil
		}
		cld, err := g.Load(ctx, cl)
		if err != nil {
			return h, fmt.Errorf("look for the %s in the Capability List %s: %w", want.Title(), cl, err)
		}
		for _, dl := range cld.Down {
			if dl.Capability == want {
				archiveURL = dl.Loc
				break
			}
		}
		if archiveURL == "" {
			return h, nil
		}
	}
	arch, err := g.Load(ctx, archiveURL)
	if err != nil {
		return h, fmt.Errorf("load the %s %s: %w", want.Title(), archiveURL, err)
	}
	if arch.Capability() != want {
		return h, fmt.Errorf("load the %s %s: it is %s", want.Title(), archiveURL, docName(arch))
	}
	h.Archive = append(h.Archive, arch)
	if !arch.IsIndex() {
		h.ArchivedPeriods = Periods(arch)
		return h, nil
	}
	max := o.MaxParts
	if max <= 0 {
		max = DefaultMaxDocuments
	}
	for i, dl := range arch.Down {
		if i >= max {
			return h, fmt.Errorf("load the %s %s: more than %d parts", want.Title(), archiveURL, max)
		}
		part, err := g.Load(ctx, dl.Loc)
		if err != nil {
			return h, fmt.Errorf("load part %s of the %s %s: %w", model.EntryNumber(dl.Entry), want.Title(), archiveURL, err)
		}
		if part.Capability() != want {
			return h, fmt.Errorf("load part %s of the %s %s: %s is %s", model.EntryNumber(dl.Entry), want.Title(), archiveURL, dl.Loc, docName(part))
		}
		h.Archive = append(h.Archive, part)
		h.ArchivedPeriods = append(h.ArchivedPeriods, Periods(part)...)
	}
	return h, nil
}
