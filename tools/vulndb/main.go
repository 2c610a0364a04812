// Command vulndb turns a folder of OSV entries (the data/osv folder of the
// golang.org/x/vulndb module) into the v1 layout of the Go vulnerability
// database, the one `govulncheck -db file://DIR` reads offline:
//
//	DIR/index/db.json       {"modified": time of the newest entry}
//	DIR/index/modules.json  [{"path", "vulns": [{"id", "modified", "fixed"}]}]
//	DIR/index/vulns.json    [{"id", "modified", "aliases"}]
//	DIR/ID/GO-YYYY-NNNN.json  each OSV entry, unchanged
//
// CI needs it because govulncheck cannot reach its online database there,
// while the module proxy serves x/vulndb. Usage:
//
//	go run ./vulndb -osv $(go mod download -json golang.org/x/vulndb@V | jq .Dir)/data/osv -out DIR
//
// The output is written beside DIR and renamed into place, so an interrupted
// run never leaves a half database for a later run to reuse.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/semver"
)

func main() {
	osvDir := flag.String("osv", "", "folder of OSV entries, one ID.json each (x/vulndb's data/osv)")
	out := flag.String("out", "", "folder to create with the database (must not exist)")
	modified := flag.String("modified", "", "RFC 3339 time for index/db.json when no entry carries one (x/vulndb's data has them zeroed)")
	flag.Parse()
	if *osvDir == "" || *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: vulndb -osv DIR -out DIR [-modified RFC3339]")
		os.Exit(2)
	}
	var fallback time.Time
	if *modified != "" {
		t, err := time.Parse(time.RFC3339, *modified)
		if err != nil {
			fmt.Fprintf(os.Stderr, "vulndb: -modified: %v\n", err)
			os.Exit(2)
		}
		fallback = t
	}
	n, err := build(*osvDir, *out, fallback)
	if err != nil {
		fmt.Fprintf(os.Stderr, "vulndb: %v\n", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "vulndb: %d entries into %s\n", n, *out)
}

// entry is the part of an OSV entry the index needs.
type entry struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Aliases  []string  `json:"aliases"`
	Affected []struct {
		Package struct {
			Name string `json:"name"`
		} `json:"package"`
		Ranges []osvRange `json:"ranges"`
	} `json:"affected"`
}

type osvRange struct {
	Type   string `json:"type"`
	Events []struct {
		Introduced string `json:"introduced"`
		Fixed      string `json:"fixed"`
	} `json:"events"`
}

type dbMeta struct {
	Modified time.Time `json:"modified"`
}

type moduleMeta struct {
	Path  string       `json:"path"`
	Vulns []moduleVuln `json:"vulns"`
}

type moduleVuln struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Fixed    string    `json:"fixed,omitempty"`
}

type vulnMeta struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Aliases  []string  `json:"aliases,omitempty"`
}

// build writes the database for the entries in osvDir to out and returns how
// many entries it holds.
func build(osvDir, out string, fallback time.Time) (int, error) {
	if _, err := os.Lstat(out); err == nil {
		return 0, fmt.Errorf("%s already exists", out)
	}
	files, err := os.ReadDir(osvDir)
	if err != nil {
		return 0, fmt.Errorf("read OSV folder: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if err := os.Mkdir(filepath.Join(tmp, "ID"), 0o755); err != nil {
		return 0, err
	}
	if err := os.Mkdir(filepath.Join(tmp, "index"), 0o755); err != nil {
		return 0, err
	}

	db := dbMeta{}
	modules := map[string]*moduleMeta{}
	var vulns []vulnMeta
	for _, f := range files {
		// x/vulndb's folder holds only ID.json files; skip anything else
		// (a README, the gzipped copies of a published database).
		if f.IsDir() || !strings.HasSuffix(f.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(osvDir, f.Name()))
		if err != nil {
			return 0, err
		}
		var e entry
		if err := json.Unmarshal(b, &e); err != nil {
			return 0, fmt.Errorf("%s: not an OSV entry: %w", f.Name(), err)
		}
		if e.ID == "" || strings.ContainsAny(e.ID, `/\`) {
			return 0, fmt.Errorf("%s: bad or missing id %q", f.Name(), e.ID)
		}
		if f.Name() != e.ID+".json" {
			return 0, fmt.Errorf("%s: holds entry %s: the file must be named %s.json", f.Name(), e.ID, e.ID)
		}
		if err := os.WriteFile(filepath.Join(tmp, "ID", f.Name()), b, 0o644); err != nil {
			return 0, err
		}
		if e.Modified.After(db.Modified) {
			db.Modified = e.Modified
		}
		vulns = append(vulns, vulnMeta{ID: e.ID, Modified: e.Modified, Aliases: e.Aliases})
		for _, a := range e.Affected {
			if a.Package.Name == "" {
				return 0, fmt.Errorf("%s: an affected package has no name", f.Name())
			}
			m := modules[a.Package.Name]
			if m == nil {
				m = &moduleMeta{Path: a.Package.Name}
				modules[a.Package.Name] = m
			}
			m.Vulns = append(m.Vulns, moduleVuln{ID: e.ID, Modified: e.Modified, Fixed: latestFix(a.Ranges)})
		}
	}
	if len(vulns) == 0 {
		return 0, fmt.Errorf("no OSV entries (*.json) in %s", osvDir)
	}
	if db.Modified.IsZero() {
		db.Modified = fallback
	}

	slices.SortFunc(vulns, func(a, b vulnMeta) int { return strings.Compare(a.ID, b.ID) })
	mods := make([]*moduleMeta, 0, len(modules))
	for _, m := range modules {
		slices.SortStableFunc(m.Vulns, func(a, b moduleVuln) int { return strings.Compare(a.ID, b.ID) })
		mods = append(mods, m)
	}
	slices.SortFunc(mods, func(a, b *moduleMeta) int { return strings.Compare(a.Path, b.Path) })

	for name, v := range map[string]any{"db.json": db, "modules.json": mods, "vulns.json": vulns} {
		b, err := json.Marshal(v)
		if err != nil {
			return 0, err
		}
		if err := os.WriteFile(filepath.Join(tmp, "index", name), b, 0o644); err != nil {
			return 0, err
		}
	}
	if err := os.Rename(tmp, out); err != nil {
		return 0, err
	}
	return len(vulns), nil
}

// latestFix is the version that fixes the vulnerability for good in the
// SEMVER ranges of one affected module: the highest "fixed" event, or ""
// when there is none or the vulnerability is introduced again after it.
// govulncheck only skips an entry whose fix is at or below the version in
// use, so "" (no fix) is the safe answer.
func latestFix(ranges []osvRange) string {
	fix := ""
	for _, r := range ranges {
		if r.Type != "SEMVER" {
			continue
		}
		for _, ev := range r.Events {
			if ev.Fixed != "" && (fix == "" || less(fix, ev.Fixed)) {
				fix = ev.Fixed
			}
		}
	}
	if fix == "" {
		return ""
	}
	for _, r := range ranges {
		if r.Type != "SEMVER" {
			continue
		}
		for _, ev := range r.Events {
			if ev.Introduced != "" && ev.Introduced != "0" && !less(ev.Introduced, fix) {
				return ""
			}
		}
	}
	return fix
}

// less compares OSV versions, which are semantic versions without the "v".
// A version semver cannot read sorts first, as in x/mod/semver.
func less(a, b string) bool {
	return semver.Compare("v"+a, "v"+b) < 0
}
