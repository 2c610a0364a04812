package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rsx/dest/store"
)

// A copy with two stray files in the Source's folders, after an audit that
// found them: the dry run names them (text, and plan.trash in JSON) and
// moves nothing; --max-delete 1 holds them (exit 1, the count said);
// sync --delete moves them; rsx trash lists and empties the trash, and
// --trash-keep empties what is older than it.
func TestSyncDeleteTrashCommandLine(t *testing.T) {
	base := startDemo(t, false)
	cap := base + "/dataset1/capabilitylist.xml"
	dest := t.TempDir()
	if code, _, errs := runCmd(t, "sync", "--dest", dest, cap); code != 0 {
		t.Fatalf("sync: exit %d: %s", code, errs)
	}
	res := filepath.Join(dest, strings.ReplaceAll(strings.TrimPrefix(base, "http://"), ":", "+"), "dataset1", "res")
	strays := []string{filepath.Join(res, "a-stray.txt"), filepath.Join(res, "b-stray.txt")}
	for _, p := range strays {
		if err := os.WriteFile(p, []byte("stray"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, _ := runCmd(t, "audit", "--dest", dest, cap); code != 1 || !strings.Contains(out, "2 extra files are stray files") ||
		!strings.Contains(out, "rsx sync --delete --dest "+dest+" "+cap) {
		t.Fatalf("audit: exit %d\n%s", code, out)
	}

	code, out, _ := runCmd(t, "sync", "--dest", dest, "--delete", "--dry-run", cap)
	if code != 0 || !strings.Contains(out, "2 stray files to the trash") || !strings.Contains(out, "would go to the trash: ") || !strings.Contains(out, "a-stray.txt") {
		t.Errorf("dry run: exit %d\n%s", code, out)
	}
	code, out, _ = runCmd(t, "sync", "--dest", dest, "--delete", "--dry-run", "--json", cap)
	var dry struct {
		Plan struct {
			Trash []string `json:"trash"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(out), &dry); err != nil || code != 0 || len(dry.Plan.Trash) != 2 || !strings.HasSuffix(dry.Plan.Trash[0], "/a-stray.txt") {
		t.Errorf("dry run --json: exit %d, %v, %+v", code, err, dry)
	}
	code, out, _ = runCmd(t, "sync", "--dest", dest, "--delete", "--max-delete", "1", "--json", cap)
	var held struct {
		DeletesHeld int `json:"deletes_held"`
		Trashed     int `json:"trashed"`
	}
	if err := json.Unmarshal([]byte(out), &held); err != nil || code != 1 || held.DeletesHeld != 2 || held.Trashed != 0 {
		t.Errorf("--max-delete 1: exit %d, %v, %+v", code, err, held)
	}
	for _, p := range strays {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("moved by a dry run or a held run: %v", err)
		}
	}
	code, out, _ = runCmd(t, "sync", "--dest", dest, "--delete", cap)
	if code != 0 || !strings.Contains(out, "2 stray files moved to the trash, .rsx/trash/") {
		t.Fatalf("sync --delete: exit %d\n%s", code, out)
	}
	if code, out, _ := runCmd(t, "trash", "--files", dest); code != 0 || !strings.Contains(out, "2 files") || !strings.Contains(out, "a-stray.txt") {
		t.Errorf("trash: exit %d\n%s", code, out)
	}
	if code, out, _ := runCmd(t, "log", dest); code != 0 || !strings.Contains(out, "2 to the trash") {
		t.Errorf("log: exit %d\n%s", code, out)
	}
	// Not older than a day: kept by --trash-keep and --older-than.
	if code, _, errs := runCmd(t, "sync", "--dest", dest, "--trash-keep", "1d", cap); code != 0 || strings.Contains(errs, "trash removed") {
		t.Errorf("--trash-keep 1d: exit %d: %s", code, errs)
	}
	if code, out, _ := runCmd(t, "trash", "--empty", "--older-than", "1d", "--json", dest); code != 0 || !strings.Contains(out, `"emptied": []`) {
		t.Errorf("trash --empty --older-than 1d: exit %d\n%s", code, out)
	}
	// A trash folder of 40 days ago goes with --trash-keep 30d.
	old := filepath.Join(dest, filepath.FromSlash(store.TrashDir), store.TrashName(time.Now().Add(-40*24*time.Hour), 1), "x")
	os.MkdirAll(old, 0o755)
	os.WriteFile(filepath.Join(old, "f"), []byte("x"), 0o644)
	if code, _, errs := runCmd(t, "sync", "--dest", dest, "--trash-keep", "30d", cap); code != 0 || !strings.Contains(errs, "1 folder of the trash removed") {
		t.Errorf("--trash-keep 30d: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the old trash folder: %v", err)
	}
	if code, out, _ := runCmd(t, "trash", "--empty", dest); code != 0 || !strings.Contains(out, "emptied: 1 folder, 2 files") {
		t.Errorf("trash --empty: exit %d\n%s", code, out)
	}
}

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "1d12h": 36 * time.Hour, "90m": 90 * time.Minute, "0": 0, "2h30m": 150 * time.Minute} {
		if got, err := parseAge(in); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "d", "-1d", "3x", "1d-2h", "abc"} {
		if _, err := parseAge(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
