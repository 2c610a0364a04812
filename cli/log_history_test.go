package cli

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// syncDemo syncs the demo's dataset2 into a new folder: the folder and the
// Capability List.
func syncDemo(t *testing.T, runs int) (dest, target string) {
	t.Helper()
	url := startDemo(t, false)
	dest = filepath.Join(t.TempDir(), "copy")
	target = url + "/dataset2/capabilitylist.xml"
	for range runs {
		if code, _, stderr := runCmd(t, "sync", "--dest", dest, target); code != 0 {
			t.Fatalf("sync: %d %s", code, stderr)
		}
	}
	return dest, target
}

// --run N finds run N whatever its age: with --limit 1 too (it said the
// copy had no run 1 when it was older than the newest --limit runs).
func TestLogRunWhateverItsAge(t *testing.T) {
	dest, _ := syncDemo(t, 3)
	code, stdout, stderr := runCmd(t, "log", "--run", "1", "--limit", "1", dest)
	if code != 0 || !strings.Contains(stdout, "#1 ") {
		t.Errorf("log --run 1 --limit 1: %d %s %s", code, stdout, stderr)
	}
	code, stdout, _ = runCmd(t, "log", "--json", "--run", "1", "--limit", "1", dest)
	if j := decodeOneJSON[logJSON](t, stdout, "log --run 1"); code != 0 || len(j.Runs) != 1 || j.Runs[0].ID != 1 {
		t.Errorf("log --json --run 1 --limit 1: %d %+v", code, j)
	}
}

// --source tells a Source the copy does not hold (naming those it holds)
// from a state that cannot be read (it said "holds no Source" for both).
func TestLogSourceErrors(t *testing.T) {
	dest, target := syncDemo(t, 1)
	code, _, stderr := runCmd(t, "log", "--source", "http://elsewhere/cap.xml", dest)
	if code != 2 || !strings.Contains(stderr, "holds no Source http://elsewhere/cap.xml") || !strings.Contains(stderr, target) {
		t.Errorf("unknown Source: %d %s", code, stderr)
	}
	// A state whose source table cannot be read: a database error, said
	// as one.
	db, err := sql.Open("sqlite", filepath.Join(dest, ".rsx", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`ALTER TABLE source RENAME TO source_gone`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	code, _, stderr = runCmd(t, "log", "--source", target, dest)
	if code != 2 || strings.Contains(stderr, "holds no Source") || !strings.Contains(stderr, "source") {
		t.Errorf("a state that cannot be read: %d %s", code, stderr)
	}
}

// --document writes the bytes as received to standard output when it is
// no terminal, or to -o FILE.
func TestLogDocumentToFile(t *testing.T) {
	dest, target := syncDemo(t, 1)
	out := filepath.Join(t.TempDir(), "cl.xml")
	code, stdout, stderr := runCmd(t, "log", "--run", "1", "--document", target, "-o", out, dest)
	b, _ := os.ReadFile(out)
	if code != 0 || stdout != "" || !strings.Contains(string(b), `capability="capabilitylist"`) {
		t.Errorf("log --document -o: %d %q %s; file: %.200s", code, stdout, stderr, b)
	}
	if code, _, stderr := runCmd(t, "log", "--run", "1", "-o", out, dest); code != 2 || !strings.Contains(stderr, "--document") {
		t.Errorf("-o without --document: %d %s", code, stderr)
	}
}

// --run N --files lists what the run created, updated and deleted, as text
// and as JSON with each file's URI, path, length, digests, time, media type
// and provenance.
func TestLogRunFiles(t *testing.T) {
	dest, target := syncDemo(t, 1)
	code, stdout, stderr := runCmd(t, "log", "--json", "--run", "1", "--files", dest)
	var j struct {
		Runs  []runJSON `json:"runs"`
		Files []struct {
			Kind    string            `json:"kind"`
			URL     *string           `json:"url"`
			Path    *string           `json:"path"`
			Length  *int64            `json:"length"`
			Digests map[string]string `json:"digests"`
			At      string            `json:"at"`
			Type    *string           `json:"type"`
			Via     *struct {
				Href     string            `json:"href"`
				Modified *string           `json:"modified"`
				Hash     map[string]string `json:"hash"`
				Length   *int64            `json:"length"`
				Type     *string           `json:"type"`
			} `json:"via"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(stdout), &j); err != nil || code != 0 {
		t.Fatalf("log --files --json: %d %v %s %s", code, err, stdout, stderr)
	}
	if len(j.Runs) != 1 || len(j.Files) == 0 || len(j.Files) != j.Runs[0].Created {
		t.Fatalf("%d files for a run that created %+v", len(j.Files), j.Runs)
	}
	f := j.Files[0]
	if f.Kind != "created" || f.URL == nil || !strings.HasPrefix(*f.URL, strings.TrimSuffix(target, "/dataset2/capabilitylist.xml")) ||
		f.Path == nil || f.Length == nil || *f.Length <= 0 || f.Digests["md5"] == "" || f.At == "" {
		t.Errorf("first file: %+v", f)
	}
	// Where each came from: the resource itself, or the origin its via link
	// names (the demo's images republish some), with the type, lastmod,
	// length and digests declared (the demo's are what it serves).
	own, origin := 0, 0
	for _, f := range j.Files {
		v := f.Via
		if f.Type == nil || v == nil || v.Modified == nil || v.Length == nil || *v.Length != *f.Length ||
			v.Type == nil || *v.Type != *f.Type || v.Hash["md5"] != f.Digests["md5"] {
			t.Fatalf("%s: type and via %v %+v", *f.URL, f.Type, f.Via)
		}
		switch {
		case v.Href == *f.URL:
			own++
		case strings.Contains(v.Href, "/origin/"):
			origin++
		}
	}
	if own == 0 || origin == 0 || own+origin != len(j.Files) {
		t.Errorf("%d files with their own URL as via, %d with an origin's, of %d", own, origin, len(j.Files))
	}
	if _, err := os.Stat(filepath.Join(dest, filepath.FromSlash(*f.Path))); err != nil {
		t.Errorf("the file's path is not the copy's: %v", err)
	}
	code, stdout, _ = runCmd(t, "log", "--run", "1", "--files", dest)
	if code != 0 || strings.Count(stdout, "\n  created  ") != len(j.Files) || !strings.Contains(stdout, *f.Path) {
		t.Errorf("log --files: %d\n%.2000s", code, stdout)
	}
	if code, _, stderr := runCmd(t, "log", "--files", dest); code != 2 || !strings.Contains(stderr, "--run") {
		t.Errorf("--files without --run: %d %s", code, stderr)
	}
}

// --sources FILE shows the runs of each Source of a fleet file under its
// name.
func TestLogFleetNames(t *testing.T) {
	dest, target := syncDemo(t, 2)
	fleet := filepath.Join(t.TempDir(), "fleet.toml")
	other := strings.Replace(target, "dataset2", "dataset1", 1)
	os.WriteFile(fleet, []byte("dest = \""+dest+"\"\n[[source]]\nname = \"images\"\nurl = \""+target+"\"\n[[source]]\nname = \"articles\"\nurl = \""+other+"\"\n"), 0o644)
	code, stdout, stderr := runCmd(t, "log", "--sources", fleet)
	if code != 0 || !strings.Contains(stdout, "images") || !strings.Contains(stdout, "articles") || !strings.Contains(stdout, "#2 ") ||
		!strings.Contains(stdout, "no run") {
		t.Errorf("log --sources: %d %s %s", code, stdout, stderr)
	}
	code, stdout, _ = runCmd(t, "log", "--json", "--sources", fleet)
	var j struct {
		Sources []struct {
			Name string    `json:"name"`
			URL  string    `json:"url"`
			Dest string    `json:"dest"`
			Runs []runJSON `json:"runs"`
		} `json:"sources"`
	}
	if err := json.Unmarshal([]byte(stdout), &j); err != nil || code != 0 || len(j.Sources) != 2 || j.Sources[0].Name != "images" ||
		len(j.Sources[0].Runs) != 2 || len(j.Sources[1].Runs) != 0 || j.Sources[0].Dest != dest {
		t.Errorf("log --sources --json: %d %v %s", code, err, stdout)
	}
}
