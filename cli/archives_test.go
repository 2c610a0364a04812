package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// archiveDocs is crawlDocs with a Change List Archive of two Change Lists in
// the Capability List; the second list's until differs from its entry's.
func archiveDocs() map[string]string {
	docs := crawlDocs()
	docs["/cl.xml"] = strings.Replace(docs["/cl.xml"], rsClose,
		`<url><loc>{{base}}/cla.xml</loc><rs:md capability="changelist-archive"/></url>`+rsClose, 1)
	docs["/cla.xml"] = rsOpen + `<rs:md capability="changelist-archive"/><rs:ln rel="up" href="{{base}}/cl.xml"/>` +
		`<url><loc>{{base}}/c1.xml</loc><rs:md from="2013-01-01T00:00:00Z" until="2013-01-02T00:00:00Z"/></url>` +
		`<url><loc>{{base}}/c2.xml</loc><rs:md from="2013-01-02T00:00:00Z" until="2013-01-03T00:00:00Z"/></url>` + rsClose
	for _, c := range []struct{ path, from, until string }{
		{"/c1.xml", "2013-01-01T00:00:00Z", "2013-01-02T00:00:00Z"},
		{"/c2.xml", "2013-01-02T00:00:00Z", "2013-01-03T06:00:00Z"},
	} {
		docs[c.path] = rsOpen + `<rs:md capability="changelist" from="` + c.from + `" until="` + c.until + `"/><rs:ln rel="up" href="{{base}}/cl.xml"/>` +
			`<url><loc>{{base}}/r1</loc><rs:md change="updated" datetime="` + c.from + `"/></url>` + rsClose
	}
	return docs
}

func TestTreeArchives(t *testing.T) {
	srv := crawlSite(t, archiveDocs())
	target := srv.URL + "/.well-known/resourcesync"

	// Without --archives: the archive is a node, its Change Lists are not loaded.
	code, out, errs := runCmd(t, "tree", target)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	for _, want := range []string{"Change List Archive  " + srv.URL + "/cla.xml  2 entries  from 2013-01-01T00:00:00Z until 2013-01-03T00:00:00Z  … 2 archived documents not loaded (--archives)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "c1.xml") || strings.Contains(errs, "bound") {
		t.Errorf("archived documents loaded, or a bound said:\n%s\n%s", out, errs)
	}

	code, out, _ = runCmd(t, "tree", "--json", target)
	var root struct {
		Children []struct {
			Children []struct {
				URL, Capability, Title string
				Archived               string `json:"archived"`
				ArchiveNotWalked       bool   `json:"archive_not_walked"`
				Entries                int
				Children               []json.RawMessage
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &root); err != nil || code != 0 {
		t.Fatalf("exit %d, %v\n%s", code, err, out)
	}
	arch := root.Children[0].Children[1]
	if arch.Capability != "changelist-archive" || arch.Title != "Change List Archive" || arch.Archived != "changelist" ||
		!arch.ArchiveNotWalked || arch.Entries != 2 || len(arch.Children) != 0 {
		t.Errorf("archive node %+v", arch)
	}

	// With --archives: the Change Lists are loaded and checked against the archive.
	code, out, _ = runCmd(t, "tree", "--archives", target)
	if code != 0 || !strings.Contains(out, srv.URL+"/c2.xml  1 entry  from 2013-01-02T00:00:00Z until 2013-01-03T06:00:00Z (closed)") ||
		!strings.Contains(out, "until 2013-01-03T00:00:00Z  ! 1\n") || strings.Contains(out, "--archives)") {
		t.Errorf("--archives: exit %d\n%s", code, out)
	}
}

func TestValidateRecursiveArchives(t *testing.T) {
	srv := crawlSite(t, archiveDocs())
	target := srv.URL + "/.well-known/resourcesync"
	type result struct {
		Errors, Warnings  int
		ArchivesNotWalked []string `json:"archives_not_walked"`
		Documents         []struct {
			URL, Capability string
			Problems        []struct{ Rule, Section string }
		}
	}
	code, out, _ := runCmd(t, "validate", "--json", "--recursive", target)
	var r result
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 {
		t.Fatalf("exit %d, %v\n%s", code, err, out)
	}
	if len(r.Documents) != 4 || len(r.ArchivesNotWalked) != 1 || r.ArchivesNotWalked[0] != srv.URL+"/cla.xml" {
		t.Errorf("without --archives: %s", out)
	}
	warnings := r.Warnings // the Source Description and Capability List have no describedby link

	code, out, _ = runCmd(t, "validate", "--json", "--recursive", "--archives", target)
	r = result{}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 {
		t.Fatalf("exit %d, %v\n%s", code, err, out)
	}
	found := false
	for _, d := range r.Documents {
		for _, p := range d.Problems {
			if p.Rule == "archive-entry-interval" && d.URL == srv.URL+"/cla.xml" && p.Section == "AR5" {
				found = true
			}
		}
	}
	if len(r.Documents) != 6 || r.Warnings != warnings+1 || !found || r.ArchivesNotWalked != nil {
		t.Errorf("with --archives: %s", out)
	}

	code, text, _ := runCmd(t, "validate", "--recursive", target)
	if code != 0 || !strings.Contains(text, "the documents of 1 archive were not checked (--archives checks them): "+srv.URL+"/cla.xml") {
		t.Errorf("text: exit %d\n%s", code, text)
	}
	if code, _, errs := runCmd(t, "validate", "--archives", target); code != 2 || !strings.Contains(errs, "--archives needs --recursive") {
		t.Errorf("--archives alone: exit %d %s", code, errs)
	}
}
