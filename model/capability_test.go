package model

import (
	"strings"
	"testing"
)

func TestCapabilities(t *testing.T) {
	tests := []struct {
		c                                               Capability
		title                                           string
		change, snapshot, manifest, indexable, notified bool
	}{
		{CapDescription, "Source Description", false, false, false, true, false},
		{CapCapabilityList, "Capability List", false, false, false, false, false},
		{CapResourceList, "Resource List", false, true, false, true, false},
		{CapResourceDump, "Resource Dump", false, true, false, true, false},
		{CapResourceDumpManifest, "Resource Dump Manifest", false, true, true, false, false},
		{CapChangeList, "Change List", true, false, false, true, false},
		{CapChangeDump, "Change Dump", true, false, false, true, false},
		{CapChangeDumpManifest, "Change Dump Manifest", true, false, true, false, false},
		{CapResourceListArchive, "Resource List Archive", false, false, false, true, false},
		{CapResourceDumpArchive, "Resource Dump Archive", false, false, false, true, false},
		{CapChangeListArchive, "Change List Archive", false, false, false, true, false},
		{CapChangeDumpArchive, "Change Dump Archive", false, false, false, true, false},
		{CapChangeNotification, "Change Notification", false, false, false, false, true},
		{CapFrameworkNotification, "Framework Notification", false, false, false, false, true},
	}
	for _, tt := range tests {
		c := tt.c
		if !c.Known() || c.Title() != tt.title || c.IsChange() != tt.change || c.IsSnapshot() != tt.snapshot ||
			c.IsManifest() != tt.manifest || c.Indexable() != tt.indexable {
			t.Errorf("%s: known %v title %q change %v snapshot %v manifest %v indexable %v", c,
				c.Known(), c.Title(), c.IsChange(), c.IsSnapshot(), c.IsManifest(), c.Indexable())
		}
		if ParseCapability(" "+string(c)+"\n") != c {
			t.Errorf("ParseCapability(%q) = %q", c, ParseCapability(string(c)))
		}
		if c.Canonical() != c {
			t.Errorf("%s.Canonical() = %q", c, c.Canonical())
		}
	}
	if got := KnownCapabilities(); len(got) != 14 || got[0] != CapDescription || got[8] != CapResourceListArchive || got[13] != CapFrameworkNotification {
		t.Errorf("KnownCapabilities = %v", got)
	}
	for _, c := range []Capability{"", "ResourceList", "resource-list", "sitemap", "changelist "} {
		if c.Known() || c.IsChange() || c.IsSnapshot() || c.IsManifest() || c.Indexable() {
			t.Errorf("%q is known or has a family", c)
		}
	}
	if (Capability("")).Title() != "" || Capability("foo").Title() != `Unknown capability "foo"` {
		t.Errorf("unknown titles: %q %q", Capability("").Title(), Capability("foo").Title())
	}
	for in, want := range map[Capability]Capability{
		"ResourceList": CapResourceList, "resource_list": CapResourceList, "Change-Dump-Manifest": CapChangeDumpManifest,
		"CHANGEDUMP-MANIFEST": CapChangeDumpManifest, "capability list": CapCapabilityList, "sitemap": "", "": "", "-": "",
		"ChangeListArchive": CapChangeListArchive, "resource_dump_archive": CapResourceDumpArchive,
	} {
		if got := in.Canonical(); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
	}
	if ParseCapability("ResourceList") != "ResourceList" {
		t.Error("ParseCapability changed an unknown value")
	}
}

func TestDocumentTitle(t *testing.T) {
	tests := []struct {
		c    Capability
		root RootKind
		want string
	}{
		{CapResourceList, RootURLSet, "Resource List"},
		{CapResourceList, RootSitemapIndex, "Resource List Index"},
		{CapChangeDump, RootSitemapIndex, "Change Dump Index"},
		{CapChangeList, RootSitemapIndex, "Change List Index"},
		{CapResourceDump, RootSitemapIndex, "Resource Dump Index"},
		{CapDescription, RootSitemapIndex, "Source Description Index"},
		{CapDescription, RootURLSet, "Source Description"},
		{CapCapabilityList, RootURLSet, "Capability List"},
		{CapChangeDumpManifest, RootURLSet, "Change Dump Manifest"},
		{CapChangeListArchive, RootURLSet, "Change List Archive"},
		{CapChangeListArchive, RootSitemapIndex, "Change List Archive Index"},
		{CapResourceDumpArchive, RootSitemapIndex, "Resource Dump Archive Index"},
		{CapResourceList, RootUnknown, "Resource List"},
		{"", RootURLSet, "Sitemap"},
		{"", RootSitemapIndex, "Sitemap index"},
		{"", RootUnknown, "Document"},
		{"foo", RootURLSet, `Unknown capability "foo"`},
		{"foo", RootSitemapIndex, `Sitemap index with unknown capability "foo"`},
	}
	for _, tt := range tests {
		if got := DocumentTitle(tt.c, tt.root); got != tt.want {
			t.Errorf("DocumentTitle(%q, %d) = %q, want %q", tt.c, tt.root, got, tt.want)
		}
	}
}

func TestChangeKnown(t *testing.T) {
	for _, c := range []Change{ChangeCreated, ChangeUpdated, ChangeDeleted} {
		if !c.Known() {
			t.Errorf("%s not known", c)
		}
	}
	for _, c := range []Change{"", "Created", "modified", "delete"} {
		if c.Known() {
			t.Errorf("%q known", c)
		}
	}
}

func TestRelationDescription(t *testing.T) {
	for _, rel := range []string{"up", "index", "describedby", "describes", "contents", "duplicate", "alternate",
		"canonical", "http://www.openarchives.org/rs/terms/patch", "memento", "timegate", "timemap",
		"collection", "via", "profile", "resourcesync", "archives"} {
		d := RelationDescription(rel)
		if d == "" || !strings.HasSuffix(d, ".") {
			t.Errorf("RelationDescription(%q) = %q", rel, d)
		}
	}
	if RelationDescription("UP") != RelationDescription("up") || RelationDescription(" via ") == "" {
		t.Error("registered relation names are not case-insensitive or not trimmed")
	}
	for _, rel := range []string{"", "next", "HTTP://WWW.OPENARCHIVES.ORG/RS/TERMS/PATCH", "patch", "http://example.com/rel"} {
		if d := RelationDescription(rel); d != "" {
			t.Errorf("RelationDescription(%q) = %q, want \"\"", rel, d)
		}
	}
	if d := RelationDescription("alternate canonical next"); d != RelationDescription("alternate")+" "+RelationDescription("canonical") {
		t.Errorf("multi-token rel = %q", d)
	}
}

func TestArchiveCapabilities(t *testing.T) {
	tests := []struct {
		archive, archived Capability
	}{
		{CapResourceListArchive, CapResourceList},
		{CapResourceDumpArchive, CapResourceDump},
		{CapChangeListArchive, CapChangeList},
		{CapChangeDumpArchive, CapChangeDump},
	}
	for _, tt := range tests {
		if !tt.archive.IsArchive() || tt.archive.Archived() != tt.archived || tt.archived.ArchiveCapability() != tt.archive {
			t.Errorf("%s: IsArchive %v, Archived %q, %s.ArchiveCapability %q", tt.archive, tt.archive.IsArchive(),
				tt.archive.Archived(), tt.archived, tt.archived.ArchiveCapability())
		}
		if tt.archived.IsArchive() || tt.archived.Archived() != "" || tt.archive.ArchiveCapability() != "" {
			t.Errorf("%s is taken for an archive, or %s archived again", tt.archived, tt.archive)
		}
	}
	for _, c := range []Capability{"", CapDescription, CapCapabilityList, CapResourceDumpManifest, CapChangeDumpManifest,
		CapChangeNotification, "changelist-archives", "ChangeList-Archive"} {
		if c.IsArchive() || c.Archived() != "" || c.ArchiveCapability() != "" {
			t.Errorf("%q: IsArchive %v, Archived %q, ArchiveCapability %q", c, c.IsArchive(), c.Archived(), c.ArchiveCapability())
		}
	}
}
