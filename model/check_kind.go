package model

// Document types as the checker sees them, and what each allows (Appendix A).

// chkKind is the type of document, from its capability and root element.
type chkKind uint8

const (
	kUnknownDoc chkKind = iota
	kDescription
	kDescriptionIndex
	kCapabilityList
	kCapabilityListIndex
	kResourceList
	kResourceListIndex
	kResourceDump
	kResourceDumpIndex
	kResourceDumpManifest
	kChangeList
	kChangeListIndex
	kChangeDump
	kChangeDumpIndex
	kChangeDumpManifest
	// The Archives specification (1.0, sections 3–6).
	kResourceListArchive
	kResourceListArchiveIndex
	kResourceDumpArchive
	kResourceDumpArchiveIndex
	kChangeListArchive
	kChangeListArchiveIndex
	kChangeDumpArchive
	kChangeDumpArchiveIndex
)

func chkKindOf(c Capability, root RootKind) chkKind {
	idx := root == RootSitemapIndex
	pick := func(single, index chkKind) chkKind {
		if idx {
			return index
		}
		return single
	}
	switch c {
	case CapDescription:
		return pick(kDescription, kDescriptionIndex)
	case CapCapabilityList:
		return pick(kCapabilityList, kCapabilityListIndex)
	case CapResourceList:
		return pick(kResourceList, kResourceListIndex)
	case CapResourceDump:
		return pick(kResourceDump, kResourceDumpIndex)
	case CapResourceDumpManifest:
		return kResourceDumpManifest
	case CapChangeList:
		return pick(kChangeList, kChangeListIndex)
	case CapChangeDump:
		return pick(kChangeDump, kChangeDumpIndex)
	case CapChangeDumpManifest:
		return kChangeDumpManifest
	case CapResourceListArchive:
		return pick(kResourceListArchive, kResourceListArchiveIndex)
	case CapResourceDumpArchive:
		return pick(kResourceDumpArchive, kResourceDumpArchiveIndex)
	case CapChangeListArchive:
		return pick(kChangeListArchive, kChangeListArchiveIndex)
	case CapChangeDumpArchive:
		return pick(kChangeDumpArchive, kChangeDumpArchiveIndex)
	}
	return kUnknownDoc
}

// title and section of each kind of document.
func (k chkKind) title() string {
	switch k {
	case kDescription:
		return "Source Description"
	case kDescriptionIndex:
		return "Source Description Index"
	case kCapabilityList:
		return "Capability List"
	case kCapabilityListIndex:
		return "Capability List Index"
	case kResourceList:
		return "Resource List"
	case kResourceListIndex:
		return "Resource List Index"
	case kResourceDump:
		return "Resource Dump"
	case kResourceDumpIndex:
		return "Resource Dump Index"
	case kResourceDumpManifest:
		return "Resource Dump Manifest"
	case kChangeList:
		return "Change List"
	case kChangeListIndex:
		return "Change List Index"
	case kChangeDump:
		return "Change Dump"
	case kChangeDumpIndex:
		return "Change Dump Index"
	case kChangeDumpManifest:
		return "Change Dump Manifest"
	case kResourceListArchive:
		return "Resource List Archive"
	case kResourceListArchiveIndex:
		return "Resource List Archive Index"
	case kResourceDumpArchive:
		return "Resource Dump Archive"
	case kResourceDumpArchiveIndex:
		return "Resource Dump Archive Index"
	case kChangeListArchive:
		return "Change List Archive"
	case kChangeListArchiveIndex:
		return "Change List Archive Index"
	case kChangeDumpArchive:
		return "Change Dump Archive"
	case kChangeDumpArchiveIndex:
		return "Change Dump Archive Index"
	}
	return "document"
}

func (k chkKind) section() string {
	switch k {
	case kDescription, kDescriptionIndex:
		return "8"
	case kCapabilityList, kCapabilityListIndex:
		return "9"
	case kResourceList:
		return "10.1"
	case kResourceListIndex:
		return "10.2"
	case kResourceDump, kResourceDumpIndex:
		return "11.1"
	case kResourceDumpManifest:
		return "11.2"
	case kChangeList:
		return "12.1"
	case kChangeListIndex:
		return "12.2"
	case kChangeDump, kChangeDumpIndex:
		return "13.1"
	case kChangeDumpManifest:
		return "13.2"
	case kResourceListArchive, kResourceListArchiveIndex:
		return "AR3"
	case kResourceDumpArchive, kResourceDumpArchiveIndex:
		return "AR4"
	case kChangeListArchive, kChangeListArchiveIndex:
		return "AR5"
	case kChangeDumpArchive, kChangeDumpArchiveIndex:
		return "AR6"
	}
	return "7"
}

// archive: a document of the Archives specification, or an index of them.
func (k chkKind) archive() bool { return k >= kResourceListArchive && k <= kChangeDumpArchiveIndex }

// archiveIndex: an index of archive documents (Example 3.2 of the Archives
// specification), whose entries are the parts of the archive.
func (k chkKind) archiveIndex() bool {
	switch k {
	case kResourceListArchiveIndex, kResourceDumpArchiveIndex, kChangeListArchiveIndex, kChangeDumpArchiveIndex:
		return true
	}
	return false
}

// archiveAt: the entries of a Resource List Archive or a Resource Dump
// Archive are snapshots, dated by at (and completed).
func (k chkKind) archiveAt() bool { return k == kResourceListArchive || k == kResourceDumpArchive }

// archiveFrom: the entries of a Change List Archive or a Change Dump Archive
// cover an interval, from (and until).
func (k chkKind) archiveFrom() bool { return k == kChangeListArchive || k == kChangeDumpArchive }

// snapshot documents carry at/completed; change documents from/until (Table 4).
func (k chkKind) snapshot() bool {
	return k >= kResourceList && k <= kResourceDumpManifest
}

func (k chkKind) change() bool { return k >= kChangeList && k <= kChangeDumpManifest }

// entryAt: Table 4 lets entries carry at (and completed).
func (k chkKind) entryAt() bool {
	return k == kResourceListIndex || k == kResourceDump || k == kResourceDumpIndex
}

// entryFrom: Table 4 recommends from (and allows until) on entries.
func (k chkKind) entryFrom() bool {
	return k == kChangeListIndex || k == kChangeDump || k == kChangeDumpIndex
}

func (k chkKind) manifest() bool { return k == kResourceDumpManifest || k == kChangeDumpManifest }

// changeEntries: entries describe changes (change, datetime, order).
func (k chkKind) changeEntries() bool { return k == kChangeList || k == kChangeDumpManifest }

// uniqueLocs: documents that list each resource, package or document once.
func (k chkKind) uniqueLocs() bool {
	switch k {
	case kDescription, kDescriptionIndex, kResourceList, kResourceListIndex, kResourceDump,
		kResourceDumpIndex, kChangeListIndex, kChangeDump, kChangeDumpIndex:
		return true
	}
	return false
}
