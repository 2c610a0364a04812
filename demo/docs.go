package demo

import (
	"io"
	"strconv"
	"strings"
	"time"

	"rsx/model"
)

// doc is a generated document, ready to be served.
type doc struct {
	lastMod time.Time
	// version changes whenever the bytes change for the same Host; with the
	// options tag and the Host it makes the ETag.
	version uint64
	ctype   string
	write   func(w io.Writer, base string) error
}

const xmlType = "application/xml"

// Numbered names: part-0001, 0001.xml …
func appendNum(b []byte, n int) []byte {
	var d [20]byte
	k := len(strconv.AppendInt(d[:0], int64(n), 10))
	for ; k < 4; k++ {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, int64(n), 10)
}

func num(n int) string { return string(appendNum(nil, n)) }

// parseNum reads a number written by num; it refuses other spellings so that
// every document has exactly one URL.
func parseNum(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || num(n) != s {
		return 0, false
	}
	return n, true
}

func header(root model.RootKind, md model.Metadata, links ...model.Link) *model.Header {
	md.Present = true
	return &model.Header{Root: root, MD: md, Links: links}
}

func link(rel, href string) model.Link { return model.Link{Rel: rel, Href: href} }

func (s *Source) capPath(i int) string { return s.sets[i].prefix() + "/capabilitylist.xml" }

// Paths of the capability documents of dataset i.
func (s *Source) resourceListPath(i int) string { return s.sets[i].prefix() + "/resourcelist.xml" }
func (s *Source) resourceListPartPath(i, p int) string {
	return s.sets[i].prefix() + "/resourcelist-" + num(p) + ".xml"
}
func (s *Source) resourceDumpPath(i int) string { return s.sets[i].prefix() + "/resourcedump.xml" }
func (s *Source) resourceDumpPartPath(i, p int) string {
	return s.sets[i].prefix() + "/resourcedump-" + num(p) + ".xml"
}
func (s *Source) packagePath(i, p int) string {
	return s.sets[i].prefix() + "/resourcedump/part-" + num(p) + ".zip"
}
func (s *Source) packageManifestPath(i, p int) string {
	return s.sets[i].prefix() + "/resourcedump/part-" + num(p) + "-manifest.xml"
}
func (s *Source) changeListPath(i int) string { return s.sets[i].prefix() + "/changelist.xml" }
func (s *Source) changeListPartPath(i, k int) string {
	return s.sets[i].prefix() + "/changelist/" + num(k) + ".xml"
}
func (s *Source) changeDumpPath(i int) string { return s.sets[i].prefix() + "/changedump.xml" }
func (s *Source) changePackagePath(i, k int) string {
	return s.sets[i].prefix() + "/changedump/" + num(k) + ".zip"
}
func (s *Source) changeManifestPath(i, k int) string {
	return s.sets[i].prefix() + "/changedump/" + num(k) + "-manifest.xml"
}

// Dataset 1 offers all four capabilities with indexes; dataset 2 offers a
// Resource List, a Resource Dump and a single open Change List, no Change Dump.
func (s *Source) hasChangeDump(i int) bool  { return i == 0 }
func (s *Source) hasChangeIndex(i int) bool { return i == 0 }

// Resource List layout: parts of ListSize ids; an index when the initial
// resources do not fit in one list.
func (s *Source) resourceListIsIndex(i int) bool { return s.sets[i].initial > s.opts.ListSize }

func (s *Source) resourceListParts(sn *snapshot, i int) int {
	l := s.opts.ListSize
	return (sn.logs[i].maxID + l - 1) / l
}

// Resource Dump layout: packages of PackageSize initial resources; a dump
// document lists at most packagesPerDump packages, so that computing their
// lengths and hashes stays bounded; more need a Resource Dump Index.
func (s *Source) packages(i int) int {
	p := s.opts.PackageSize
	return (s.sets[i].initial + p - 1) / p
}

func (s *Source) packagesPerDump() int {
	n := model.MaxEntriesPerDocument / s.opts.PackageSize
	if n > 200 {
		n = 200
	}
	if n < 1 {
		n = 1
	}
	return n
}

func (s *Source) resourceDumpIsIndex(i int) bool { return s.packages(i) > s.packagesPerDump() }

// sourceDescription is the document at the well-known URI.
func (s *Source) sourceDescription() doc {
	return doc{lastMod: s.logStart, ctype: xmlType, write: func(w io.Writer, base string) error {
		d := s.newWriter(w, header(model.RootURLSet, model.Metadata{Capability: model.CapDescription},
			link("describedby", base+"/about/source.html")))
		for i := range s.sets {
			e := model.Entry{Loc: base + s.capPath(i)}
			e.MD = model.Metadata{Present: true, Capability: model.CapCapabilityList}
			e.Links = []model.Link{{Rel: "describedby", Href: base + s.sets[i].prefix() + "/about.html", Type: "text/html"}}
			if err := d.WriteEntry(&e); err != nil {
				return err
			}
		}
		return d.Close()
	}}
}

func (s *Source) capabilityList(i int) doc {
	return doc{lastMod: s.logStart, ctype: xmlType, write: func(w io.Writer, base string) error {
		d := s.newWriter(w, header(model.RootURLSet, model.Metadata{Capability: model.CapCapabilityList},
			link("up", base+"/.well-known/resourcesync"),
			link("describedby", base+s.sets[i].prefix()+"/about.html")))
		caps := []struct {
			path string
			c    model.Capability
		}{
			{s.resourceListPath(i), model.CapResourceList},
			{s.resourceDumpPath(i), model.CapResourceDump},
			{s.changeListPath(i), model.CapChangeList},
		}
		if s.hasChangeDump(i) {
			caps = append(caps, struct {
				path string
				c    model.Capability
			}{s.changeDumpPath(i), model.CapChangeDump})
		}
		if s.hasArchives(i) { // Archives section 2: advertised like the core capabilities
			caps = append(caps, []struct {
				path string
				c    model.Capability
			}{{s.resourceListArchivePath(i), model.CapResourceListArchive}, {s.changeListArchivePath(i), model.CapChangeListArchive}}...)
		}
		if s.hasChangeDumpArchive(i) {
			caps = append(caps, struct {
				path string
				c    model.Capability
			}{s.changeDumpArchivePath(i), model.CapChangeDumpArchive})
		}
		for _, c := range caps {
			e := model.Entry{Loc: base + c.path}
			e.MD = model.Metadata{Present: true, Capability: c.c}
			if err := d.WriteEntry(&e); err != nil {
				return err
			}
		}
		// The notification channels (Notification draft, section 3).
		for _, k := range []notifKind{notifChange, notifFramework} {
			e := model.Entry{Loc: wsBase(base) + s.channelPath(i, k)}
			e.MD = model.Metadata{Present: true, Capability: k.capability()}
			if err := d.WriteEntry(&e); err != nil {
				return err
			}
		}
		return d.Close()
	}}
}

// upLink is the up link of a capability document of dataset i.
func (s *Source) upLink(base string, i int) model.Link { return link("up", base+s.capPath(i)) }

// rlLayout says where the documents of one Resource List of dataset i are:
// the live one, or one kept in the Resource List Archive (archives.go).
type rlLayout struct {
	index string             // path of the list, or of its index
	part  func(p int) string // path of part p of an index
	live  bool               // the broken demo's faults are in the live list only
}

func (s *Source) liveResourceList(i int) rlLayout {
	return rlLayout{index: s.resourceListPath(i), part: func(p int) string { return s.resourceListPartPath(i, p) }, live: true}
}

// resourceListLinks are the document-level links of a Resource List (or its
// index) besides up and index: to the Resource List Archive.
func (s *Source) resourceListLinks(base string, i int) []model.Link {
	if !s.hasArchives(i) {
		return nil
	}
	return []model.Link{link(model.RelArchives, base+s.resourceListArchivePath(i))}
}

// resourceListIndex lists the parts of a Resource List of dataset i.
func (s *Source) resourceListIndex(sn *snapshot, i int, lay rlLayout) doc {
	return doc{lastMod: sn.now, version: uint64(sn.steps), ctype: xmlType, write: func(w io.Writer, base string) error {
		md := model.Metadata{Capability: model.CapResourceList, At: dt(sn.now), Completed: dt(sn.now)}
		d := s.newWriter(w, header(model.RootSitemapIndex, md, append([]model.Link{s.upLink(base, i)}, s.resourceListLinks(base, i)...)...))
		n := s.resourceListParts(sn, i)
		var e model.Entry
		for p := 1; p <= n; p++ {
			e = model.Entry{Loc: base + lay.part(p)}
			e.MD = model.Metadata{Present: true, At: dt(sn.now), Completed: dt(sn.now)}
			if err := d.WriteEntry(&e); err != nil {
				return err
			}
		}
		if s.opts.Broken && i == 0 && lay.live {
			// A part that is listed but not served.
			e = model.Entry{Loc: base + s.resourceListPartPath(i, 0)}
			e.MD = model.Metadata{Present: true, At: dt(sn.now)}
			if err := d.WriteEntry(&e); err != nil {
				return err
			}
		}
		return d.Close()
	}}
}

// resourceList is part p (1-based) of a Resource List of dataset i, or the
// whole list (p == 0) when there is no index.
func (s *Source) resourceList(sn *snapshot, i, p int, lay rlLayout) doc {
	return doc{lastMod: sn.now, version: uint64(sn.steps), ctype: xmlType, write: func(w io.Writer, base string) error {
		md := model.Metadata{Capability: model.CapResourceList, At: dt(sn.now), Completed: dt(sn.now)}
		links := []model.Link{s.upLink(base, i)}
		lo, hi := 1, sn.logs[i].maxID
		if p > 0 {
			links = append(links, link("index", base+lay.index))
			lo = (p-1)*s.opts.ListSize + 1
			hi = min(hi, p*s.opts.ListSize)
			if s.opts.Broken && i == 0 && lay.live && p == s.faults.wrongCapabilityPart(s.resourceListParts(sn, i)) {
				md.Capability = model.CapResourceDump
			}
		}
		links = append(links, s.resourceListLinks(base, i)...)
		d := s.newWriter(w, header(model.RootURLSet, md, links...))
		if err := s.writeResources(d, sn, base, i, lo, hi, lay.live); err != nil {
			return err
		}
		return d.Close()
	}}
}

// writeResources writes the Resource List entries of ids lo..hi. (Filling
// entries in parallel workers was tried: on two cores it cost 40% more CPU per
// byte, in allocations and synchronisation, and gained nothing on a busy machine.)
func (s *Source) writeResources(d entryWriter, sn *snapshot, base string, i, lo, hi int, live bool) error {
	mods := sn.stateRange(i, lo, hi)
	var b entryBuf
	for id := lo; id <= hi; id++ {
		if s.fillListed(&b, base, i, id, mods, live) {
			if err := d.WriteEntry(&b.e); err != nil {
				return err
			}
		}
	}
	return nil
}

// fillListed fills the Resource List entry of one id; it reports false when the
// resource does not exist (deleted) in the snapshot.
func (s *Source) fillListed(b *entryBuf, base string, i, id int, mods map[int]change, live bool) bool {
	ds := s.sets[i].num
	version, lastmod := 1, time.Time{}
	if c, ok := mods[id]; ok {
		if c.kind == model.ChangeDeleted {
			return false
		}
		version, lastmod = c.version, c.at
	} else {
		lastmod = s.baseLastmod(ds, id)
	}
	s.fillResource(b, base, ds, id, version, lastmod, nil, useResourceList)
	if s.opts.Broken && live {
		s.faults.apply(b, base, ds, id)
	}
	return true
}

// Change Lists of dataset 1: list k (1-based) covers steps [(k-1)E, kE) and is
// closed once the clock has passed them; the last one is open. The index lists
// the open one and the last LiveChangeLists closed ones (firstLiveList on);
// the older ones are in the Change List Archive (archives.go).
func (s *Source) openList(sn *snapshot) int { return sn.steps/stepsPerList + 1 }

// changeListLinks are the document-level links of dataset i's Change Lists
// and their index besides up and index: to the Change List Archive.
func (s *Source) changeListLinks(base string, i int) []model.Link {
	if !s.hasArchives(i) {
		return nil
	}
	return []model.Link{link(model.RelArchives, base+s.changeListArchivePath(i))}
}

func (s *Source) changeListIndex(sn *snapshot, i int) doc {
	// The index changes only when a list closes and the next one opens (and
	// the oldest one leaves for the archive).
	open := s.openList(sn)
	first := s.firstLiveList(sn, i)
	lastMod := s.stepStart((open - 1) * stepsPerList)
	return doc{lastMod: lastMod, version: uint64(open), ctype: xmlType, write: func(w io.Writer, base string) error {
		md := model.Metadata{Capability: model.CapChangeList, From: dt(s.stepStart((first - 1) * stepsPerList))}
		d := s.newWriter(w, header(model.RootSitemapIndex, md, append([]model.Link{s.upLink(base, i)}, s.changeListLinks(base, i)...)...))
		for k := first; k <= open; k++ {
			e := model.Entry{Loc: base + s.changeListPartPath(i, k)}
			e.MD = model.Metadata{Present: true, From: dt(s.stepStart((k - 1) * stepsPerList))}
			if k < open {
				e.MD.Until = dt(s.stepStart(k * stepsPerList))
			}
			if s.opts.Broken {
				s.faults.changeIndexEntry(&e, k-first+1, k == open-1)
			}
			if err := d.WriteEntry(&e); err != nil {
				return err
			}
		}
		return d.Close()
	}}
}

// changeList is Change List k of dataset i; k == 0 is the single open Change
// List of a dataset without an index, which holds every change.
func (s *Source) changeList(sn *snapshot, i, k int) doc {
	open := k == 0 || k == s.openList(sn)
	from, until := s.logStart, time.Time{}
	changes := sn.logs[i].changes
	if k > 0 {
		from = s.stepStart((k - 1) * stepsPerList)
		if !open {
			until = s.stepStart(k * stepsPerList)
		}
		changes = stepRange(changes, (k-1)*stepsPerList, k*stepsPerList)
	}
	// An open list changes only when a change is appended, so that polling
	// it with a conditional GET costs nothing while nothing happens.
	d := doc{lastMod: until, ctype: xmlType}
	if open {
		d.lastMod, d.version = from, uint64(len(changes))+1
		if len(changes) > 0 {
			d.lastMod = changes[len(changes)-1].at
		}
	}
	d.write = func(w io.Writer, base string) error {
		md := model.Metadata{Capability: model.CapChangeList, From: dt(from), Until: dt(until)}
		links := []model.Link{s.upLink(base, i)}
		if k > 0 {
			links = append(links, link("index", base+s.changeListPath(i)))
		}
		links = append(links, s.changeListLinks(base, i)...)
		h := header(model.RootURLSet, md, links...)
		list := changes
		if s.opts.Broken && i == 0 {
			list = s.faults.changeList(h, k, list)
		}
		dw := s.newWriter(w, h)
		var b entryBuf
		ds := s.sets[i].num
		for j := range list {
			c := &list[j]
			s.fillResource(&b, base, ds, c.id, c.version, c.at, c, useChangeList)
			if s.opts.Broken && i == 0 {
				s.faults.changeEntry(&b.e, k, j, from)
			}
			if err := dw.WriteEntry(&b.e); err != nil {
				return err
			}
		}
		return dw.Close()
	}
	return d
}

// plainSitemap is an ordinary (non-ResourceSync) Sitemap of the HTML pages.
func (s *Source) plainSitemap() doc {
	return doc{lastMod: s.logStart, ctype: xmlType, write: func(w io.Writer, base string) error {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
		b.WriteString(`<urlset xmlns="` + model.NSSitemap + `">` + "\n")
		for _, p := range []string{"/", "/about/source.html", "/dataset1/about.html", "/dataset2/about.html"} {
			b.WriteString("  <url>\n    <loc>" + base + p + "</loc>\n    <lastmod>" + model.FormatDatetime(s.logStart) +
				"</lastmod>\n    <changefreq>monthly</changefreq>\n  </url>\n")
		}
		b.WriteString("</urlset>\n")
		_, err := io.WriteString(w, b.String())
		return err
	}}
}
