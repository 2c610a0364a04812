package demo

import (
	"crypto/md5"
	"crypto/sha256"
	"slices"
	"time"

	"rsx/model"
)

// Broken mode seeds errors of many kinds, each at one deterministic place:
//
//	/dataset1/resourcelist-0001.xml  entry faults below, on ids chosen from the seed
//	/dataset1/resourcelist-0002.xml  503 Service Unavailable on every other request
//	/dataset1/resourcelist-0003.xml  wrong capability (resourcedump) in a Resource List part
//	/dataset1/resourcelist.xml       lists resourcelist-0000.xml, which is not served (404)
//	/dataset1/changelist/0001.xml    an at attribute on a Change List
//	/dataset1/changelist/0002.xml    no up link; the first two changes out of chronological order
//	/dataset1/changelist/0003.xml    the first change dated before the list's from
//	/dataset1/changelist.xml         a gap before its second list, an overlap of its second and third, its last closed list listed open (two open lists)
//	/dataset1/changelist-archive.xml its first entry's until differs from the archived Change List's own
//	/dataset1/resourcedump/part-0001.zip  a manifest path /../../etc/passwd and a member named ../../evil.txt
//	/dataset1/resourcedump/part-0002-manifest.xml  a contents copy that differs from the manifest in the package
//	/dataset2/resourcedump.xml       an up link to a document that does not exist
//	/mirror2/…                       a stale mirror: it serves the previous version
//	/broken/loop-a, /broken/loop-b   a redirect loop (listed as a loc)
//	one text resource of part 1      answers after a delay (slow)

// entryFault is an error seeded into one Resource List entry.
type entryFault uint8

const (
	faultNone entryFault = iota
	faultHashSyntax
	faultHashMismatch
	faultLength
	faultType
	faultPrefixedAttr
	faultRelativeLoc
	faultWhitespaceLoc
	faultPri
	faultDatetime
	faultRedirectLoop
	faultSlow
	numEntryFaults
)

func (f entryFault) String() string {
	return [...]string{"none", "bad hash syntax", "hash mismatch", "wrong length", "wrong type",
		"prefixed rs attribute", "relative loc", "whitespace around loc", "invalid pri",
		"invalid datetime", "redirect loop", "slow resource"}[f]
}

// slowDelay is how long the slow resource takes to answer.
const slowDelay = 3 * time.Second

// faultPlan says where the broken demo's errors are. The zero value has none.
type faultPlan struct {
	on  bool
	ids [numEntryFaults]int // dataset 1 ids (in the first Resource List part) carrying each entry fault
}

func planFaults(o Options, initial int) faultPlan {
	if !o.Broken {
		return faultPlan{}
	}
	p := faultPlan{on: true}
	n := min(o.ListSize, initial)
	r := rng{mix(o.Seed, saltFault, 0, 0)}
	var taken []int
	for f := faultHashSyntax; f < numEntryFaults; f++ {
		for try := 0; try < 64; try++ {
			id := 1 + r.intn(n)
			switch f {
			case faultPri: // needs the mirror links, on ids ≡ 1 (mod 7)
				id = 1 + 7*r.intn((n+6)/7)
			case faultSlow: // a text resource
				id = 2 + 10*r.intn((n+8)/10)
			}
			if id > n || id%10 == 9 || id%10 == 0 || slices.Contains(taken, id) {
				continue
			}
			p.ids[f] = id
			taken = append(taken, id)
			break
		}
	}
	return p
}

// protected reports whether an id carries a fault (it is never deleted).
func (p *faultPlan) protected(ds, id int) bool {
	return p.on && ds == 1 && slices.Contains(p.ids[1:], id)
}

func (p *faultPlan) faultOf(ds, id int) entryFault {
	if !p.on || ds != 1 {
		return faultNone
	}
	for f := faultHashSyntax; f < numEntryFaults; f++ {
		if p.ids[f] == id {
			return f
		}
	}
	return faultNone
}

func (p *faultPlan) slow(ds, id int) bool { return p.on && ds == 1 && p.ids[faultSlow] == id }

// wrongCapabilityPart is the Resource List part that declares a wrong capability.
func (p *faultPlan) wrongCapabilityPart(parts int) int { return min(3, parts) }

// unavailablePart is the Resource List part that fails every other request, 0 if none.
func (p *faultPlan) unavailablePart(parts int) int {
	if parts < 2 {
		return 0
	}
	return 2
}

// apply seeds the entry fault of a resource, if it has one.
func (p *faultPlan) apply(b *entryBuf, base string, ds, id int) {
	e := &b.e
	switch p.faultOf(ds, id) {
	case faultHashSyntax:
		e.MD.HashRaw = "md5:zz84abdf8ebdc98-not-hex sha-256"
	case faultHashMismatch:
		wrong := append([]byte("stale "), b.content...)
		m, h := md5.Sum(wrong), sha256.Sum256(wrong)
		copy(e.MD.Hash[0].Digest, m[:])
		copy(e.MD.Hash[1].Digest, h[:])
	case faultLength:
		e.MD.Length += 17
	case faultType:
		e.MD.Type = "image/png"
	case faultPrefixedAttr:
		e.MD.Extra = append(e.MD.Extra, model.Attr{Space: model.NSRS, Prefix: "rs", Local: "type", Value: e.MD.Type})
		e.MD.Type = ""
	case faultRelativeLoc:
		e.Loc = e.Loc[len(base)+1:]
	case faultWhitespaceLoc:
		e.LocRaw = "\n      " + e.Loc + "  \n    "
	case faultPri:
		for i := range e.Links {
			if model.HasRel(e.Links[i].Rel, "duplicate") {
				e.Links[i].PriRaw = []string{"0", "high"}[min(i, 1)]
			}
		}
	case faultDatetime:
		e.Lastmod = model.Datetime{Raw: "2025-02-30T25:61:00Z"}
	case faultRedirectLoop:
		e.Loc = base + "/broken/loop-a"
	}
}

// changeList seeds the document-level faults of Change List k and returns the
// changes to list (a reordered copy for the out-of-order fault).
func (p *faultPlan) changeList(h *model.Header, k int, list []change) []change {
	switch k {
	case 1:
		h.MD.At = h.MD.From
	case 2:
		h.Links = slices.DeleteFunc(h.Links, func(l model.Link) bool { return model.HasRel(l.Rel, "up") })
		if len(list) >= 2 {
			list = slices.Clone(list)
			list[0], list[1] = list[1], list[0]
		}
	}
	return list
}

// changeEntry seeds the entry faults of Change List k.
func (p *faultPlan) changeEntry(e *model.Entry, k, j int, from time.Time) {
	if k == 3 && j == 0 {
		e.MD.Datetime = dt(from.Add(-7 * time.Minute))
	}
}

// changeIndexEntry seeds the faults of the Change List Index into the entry
// at 1-based position pos (the lists it keeps move on as lists close);
// lastClosed: the entry is that of the last closed list.
func (p *faultPlan) changeIndexEntry(e *model.Entry, pos int, lastClosed bool) {
	switch pos {
	case 2:
		e.MD.From = dt(e.MD.From.Time.Add(10 * time.Minute)) // gap after the first listed
	case 3:
		e.MD.From = dt(e.MD.From.Time.Add(-10 * time.Minute)) // overlaps the second listed
	}
	if lastClosed && pos > 1 {
		e.MD.Until = model.Datetime{} // a second open list
	}
}
