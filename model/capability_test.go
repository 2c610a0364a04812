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
	if got := KnownCapabilities(); len(got) != 10 || got[0] != CapDescription || got[9] != CapFrameworkNotification {
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
		"collection", "via", "profile", "resourcesync"} {
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
