package demo

import (
	"io"
	"strings"
	"time"

	"rsx/model"
)

// Archives (the ResourceSync Archives specification) of dataset 1:
//
//	/dataset1/changelist-archive.xml     Change List Archive: the closed Change Lists that left the
//	                                     Change List Index (it keeps the last Options.LiveChangeLists)
//	/dataset1/resourcelist-archive.xml   Resource List Archive: the Resource List as it was every
//	                                     stepsPerSnapshot steps since the history began
//	/dataset1/resourcelists/SSSS.xml     the Resource List at step SSSS (an index when the live one is),
//	                                     /dataset1/resourcelists/SSSS-PPPP.xml its parts
//
// The Capability List advertises both, and the Resource Lists, Change Lists
// and their indexes link to their archive (rel="archives"). An archived
// Change List keeps its URL (/dataset1/changelist/NNNN.xml) and its bytes:
// only the index stops listing it. So a copy brought up to date before a
// list left the index can catch up only through the archive.

// stepsPerSnapshot is the interval at which the Resource List is archived:
// every two hours of demo time, three snapshots in the replayed history.
const stepsPerSnapshot = 8

// DefaultLiveChangeLists is the number of closed Change Lists the Change List
// Index keeps by default: of the four the replayed history closes, the first
// is already in the archive.
const DefaultLiveChangeLists = 3

// hasArchives: dataset 1, which has a Change List Index, keeps archives;
// dataset 2's single open Change List never closes.
func (s *Source) hasArchives(i int) bool { return s.hasChangeIndex(i) }

func (s *Source) changeListArchivePath(i int) string {
	return s.sets[i].prefix() + "/changelist-archive.xml"
}

func (s *Source) resourceListArchivePath(i int) string {
	return s.sets[i].prefix() + "/resourcelist-archive.xml"
}

func (s *Source) archivedResourceListPath(i, step int) string {
	return s.sets[i].prefix() + "/resourcelists/" + num(step) + ".xml"
}

func (s *Source) archivedResourceListPartPath(i, step, p int) string {
	return s.sets[i].prefix() + "/resourcelists/" + num(step) + "-" + num(p) + ".xml"
}

func (s *Source) archivedResourceList(i, step int) rlLayout {
	return rlLayout{index: s.archivedResourceListPath(i, step), part: func(p int) string { return s.archivedResourceListPartPath(i, step, p) }}
}

// firstLiveList is the first Change List the index of dataset i lists: the
// open one and the last LiveChangeLists closed ones are listed, the others
// are archived.
func (s *Source) firstLiveList(sn *snapshot, i int) int {
	if !s.hasArchives(i) || s.opts.LiveChangeLists < 0 {
		return 1
	}
	closed := s.openList(sn) - 1
	return max(1, closed-s.opts.LiveChangeLists+1)
}

// changeListArchive lists the Change Lists of dataset i that left the index,
// in the order they closed. It changes when a list leaves the index, which
// happens when a list closes.
func (s *Source) changeListArchive(sn *snapshot, i int) doc {
	archived := s.firstLiveList(sn, i) - 1
	lastMod := s.logStart
	if archived > 0 {
		lastMod = s.stepStart((s.openList(sn) - 1) * stepsPerList)
	}
	return doc{lastMod: lastMod, version: uint64(archived), ctype: xmlType, write: func(w io.Writer, base string) error {
		d := s.newWriter(w, header(model.RootURLSet, model.Metadata{Capability: model.CapChangeListArchive}, s.upLink(base, i)))
		for k := 1; k <= archived; k++ {
			e := model.Entry{Loc: base + s.changeListPartPath(i, k)}
			e.MD = model.Metadata{Present: true, From: dt(s.stepStart((k - 1) * stepsPerList)), Until: dt(s.stepStart(k * stepsPerList))}
			if s.opts.Broken && k == 1 {
				e.MD.Until = dt(e.MD.Until.Time.Add(7 * time.Minute)) // not what the list says
			}
			if err := d.WriteEntry(&e); err != nil {
				return err
			}
		}
		return d.Close()
	}}
}

// snapshotCount is the number of Resource Lists archived by the step of sn:
// one at step 0, stepsPerSnapshot, … up to sn's step.
func snapshotCount(sn *snapshot) int { return sn.steps/stepsPerSnapshot + 1 }

// resourceListArchive lists the archived Resource Lists of dataset i.
func (s *Source) resourceListArchive(sn *snapshot, i int) doc {
	n := snapshotCount(sn)
	last := (n - 1) * stepsPerSnapshot
	return doc{lastMod: s.stepStart(last), version: uint64(n), ctype: xmlType, write: func(w io.Writer, base string) error {
		d := s.newWriter(w, header(model.RootURLSet, model.Metadata{Capability: model.CapResourceListArchive}, s.upLink(base, i)))
		for k := 0; k < n; k++ {
			step := k * stepsPerSnapshot
			e := model.Entry{Loc: base + s.archivedResourceListPath(i, step)}
			e.MD = model.Metadata{Present: true, At: dt(s.stepStart(step)), Completed: dt(s.stepStart(step))}
			if err := d.WriteEntry(&e); err != nil {
				return err
			}
		}
		return d.Close()
	}}
}

// past is the snapshot of the Source as it was at the start of step, which
// must not be after sn's: the changes of the steps before it.
func (s *Source) past(sn *snapshot, step int) *snapshot {
	p := &snapshot{steps: step, now: s.stepStart(step)}
	for i := range s.sets {
		changes := stepRange(sn.logs[i].changes, 0, step)
		maxID := s.sets[i].initial
		for _, c := range changes {
			if c.kind == model.ChangeCreated && c.id > maxID {
				maxID = c.id
			}
		}
		p.logs[i] = changeLog{changes: changes, maxID: maxID}
	}
	return p
}

// archivedResourceListDoc serves /dataset1/resourcelists/rest: the Resource
// List (or index, or part) archived at a step.
func (s *Source) archivedResourceListDoc(sn *snapshot, i int, rest string) (doc, bool) {
	name := between(rest, "/resourcelists/", ".xml")
	stepS, partS, hasPart := strings.Cut(name, "-")
	step, ok := parseNum(stepS)
	if !ok || step%stepsPerSnapshot != 0 || step > sn.steps {
		return doc{}, false
	}
	old := s.past(sn, step)
	lay := s.archivedResourceList(i, step)
	var d doc
	switch {
	case !hasPart && s.resourceListIsIndex(i):
		d = s.resourceListIndex(old, i, lay)
	case !hasPart:
		d = s.resourceList(old, i, 0, lay)
	default:
		p, ok := parseNum(partS)
		if !ok || !s.resourceListIsIndex(i) || p < 1 || p > s.resourceListParts(old, i) {
			return doc{}, false
		}
		d = s.resourceList(old, i, p, lay)
	}
	d.version = 0 // an archived list never changes
	return d, true
}

// The Change Dump Archive of dataset 1 (Options.LiveChangeDumps > 0):
//
//	/dataset1/changedump-archive.xml   Change Dump Archive: the Change Dumps that left the Change Dump
//	/dataset1/changedumps/KKKK.xml     archived Change Dump K: the packages of Change List K's period
//
// The live Change Dump keeps the packages of the open Change List's period
// and of the last LiveChangeDumps closed ones. The packages of an older
// period move into a closed Change Dump of their own (from and until those
// of Change List K), which the archive lists; the packages keep their URLs
// and bytes. A copy whose point is before the live Change Dump's from can
// catch up from dumps only through the archive.

// hasChangeDumpArchive: dataset 1's Change Dump rotates when asked to.
func (s *Source) hasChangeDumpArchive(i int) bool {
	return s.hasChangeDump(i) && s.opts.LiveChangeDumps > 0
}

func (s *Source) changeDumpArchivePath(i int) string {
	return s.sets[i].prefix() + "/changedump-archive.xml"
}

func (s *Source) archivedChangeDumpPath(i, k int) string {
	return s.sets[i].prefix() + "/changedumps/" + num(k) + ".xml"
}

// firstLiveDumpList is the first Change List period whose packages the live
// Change Dump of dataset i lists.
func (s *Source) firstLiveDumpList(sn *snapshot, i int) int {
	if !s.hasChangeDumpArchive(i) {
		return 1
	}
	closed := s.openList(sn) - 1
	return max(1, closed-s.opts.LiveChangeDumps+1)
}

// firstLiveDumpStep is the step of the first package the live Change Dump
// lists.
func (s *Source) firstLiveDumpStep(sn *snapshot, i int) int {
	return (s.firstLiveDumpList(sn, i) - 1) * stepsPerList
}

// changeDumpLinks are the document-level links of dataset i's Change Dumps
// besides up: to the Change Dump Archive, when there is one.
func (s *Source) changeDumpLinks(base string, i int) []model.Link {
	if !s.hasChangeDumpArchive(i) {
		return nil
	}
	return []model.Link{link(model.RelArchives, base+s.changeDumpArchivePath(i))}
}

// changeDumpArchive lists the archived Change Dumps of dataset i, in order.
func (s *Source) changeDumpArchive(sn *snapshot, i int) doc {
	archived := s.firstLiveDumpList(sn, i) - 1
	lastMod := s.logStart
	if archived > 0 {
		lastMod = s.stepStart(archived * stepsPerList)
	}
	return doc{lastMod: lastMod, version: uint64(archived), ctype: xmlType, write: func(w io.Writer, base string) error {
		d := s.newWriter(w, header(model.RootURLSet, model.Metadata{Capability: model.CapChangeDumpArchive}, s.upLink(base, i)))
		for k := 1; k <= archived; k++ {
			e := model.Entry{Loc: base + s.archivedChangeDumpPath(i, k)}
			e.MD = model.Metadata{Present: true, From: dt(s.stepStart((k - 1) * stepsPerList)), Until: dt(s.stepStart(k * stepsPerList))}
			if err := d.WriteEntry(&e); err != nil {
				return err
			}
		}
		return d.Close()
	}}
}

// archivedChangeDump is archived Change Dump k of dataset i: a closed Change
// Dump of the packages of Change List k's period. It never changes.
func (s *Source) archivedChangeDump(sn *snapshot, i, k int) doc {
	from, until := (k-1)*stepsPerList, k*stepsPerList
	return doc{lastMod: s.stepStart(until), ctype: xmlType, write: func(w io.Writer, base string) error {
		md := model.Metadata{Capability: model.CapChangeDump, From: dt(s.stepStart(from)), Until: dt(s.stepStart(until))}
		d := s.newWriter(w, header(model.RootURLSet, md, s.upLink(base, i), link(model.RelArchives, base+s.changeDumpArchivePath(i))))
		if err := s.writeChangePackages(d, sn, base, i, from, until); err != nil {
			return err
		}
		return d.Close()
	}}
}
