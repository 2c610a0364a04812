package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// planItemsDoc is the part of rsx sync --dry-run --json that lists the
// plan's decisions.
type planItemsDoc struct {
	Plan struct {
		Create, Update, Delete, PendingDelete int
		Items                                 map[string][]struct {
			URL    string `json:"url"`
			Path   string `json:"path"`
			Length *int64 `json:"length"`
			Reason string `json:"reason"`
		} `json:"items"`
	} `json:"plan"`
}

// rsx sync --dry-run --delete --json names every file it would delete (and
// create, update): the same decisions as the plan's counts, each with its
// path in DEST. The text shows the first of each kind and how to see all.
func TestDryRunListsItsDecisions(t *testing.T) {
	base := startDemo(t, false)
	dest := filepath.Join(t.TempDir(), "copy")
	target := base + "/dataset1/capabilitylist.xml"
	if code, _, stderr := runCmd(t, "sync", "--dest", dest, target); code != 0 {
		t.Fatalf("sync: %d %s", code, stderr)
	}
	advanceDemo(t, base, "12")
	code, stdout, stderr := runCmd(t, "sync", "--dry-run", "--delete", "--json", "--dest", dest, target)
	if code != 0 {
		t.Fatalf("dry run: %d %s", code, stderr)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
		t.Fatalf("not one JSON document: %v\n%.500s", err, stdout)
	}
	var j planItemsDoc
	json.Unmarshal([]byte(stdout), &j)
	var pc struct {
		Create        int `json:"create"`
		Update        int `json:"update"`
		Delete        int `json:"delete"`
		PendingDelete int `json:"pending_delete"`
	}
	json.Unmarshal(raw["plan"], &pc)
	items := j.Plan.Items
	if pc.Delete == 0 || pc.Create+pc.Update == 0 {
		t.Fatalf("the demo's changes give no deletion or no fetch: %+v", pc)
	}
	if len(items["delete"]) != pc.Delete || len(items["create"]) != pc.Create || len(items["update"]) != pc.Update {
		t.Errorf("items: %d create, %d update, %d delete; the plan counts %+v", len(items["create"]), len(items["update"]), len(items["delete"]), pc)
	}
	for _, d := range items["delete"] {
		if _, err := os.Stat(filepath.Join(dest, filepath.FromSlash(d.Path))); d.Path == "" || err != nil || d.URL == "" || d.Length == nil {
			t.Errorf("a deletion that names no file of the copy: %+v (%v)", d, err)
		}
	}
	for _, c := range items["create"] {
		if c.Path == "" || c.URL == "" {
			t.Errorf("a create without its path: %+v", c)
		}
	}
	// The text: each kind's first lines, with the counts and how to see all.
	if len(items["delete"]) == 0 {
		t.FailNow()
	}
	code, stdout, _ = runCmd(t, "sync", "--dry-run", "--delete", "--dest", dest, target)
	if code != 0 || !strings.Contains(stdout, "to delete") || !strings.Contains(stdout, items["delete"][0].Path) || !strings.Contains(stdout, "--json lists every one") {
		t.Errorf("dry run text:\n%s", stdout)
	}
}
