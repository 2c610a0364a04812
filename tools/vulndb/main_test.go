package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLatestFix(t *testing.T) {
	type ev = struct{ Introduced, Fixed string }
	rangeOf := func(typ string, events ...ev) osvRange {
		r := osvRange{Type: typ}
		for _, e := range events {
			r.Events = append(r.Events, struct {
				Introduced string `json:"introduced"`
				Fixed      string `json:"fixed"`
			}{e.Introduced, e.Fixed})
		}
		return r
	}
	semverRange := func(events ...ev) osvRange { return rangeOf("SEMVER", events...) }
	tests := []struct {
		name   string
		ranges []osvRange
		want   string
	}{
		{"no ranges", nil, ""},
		{"never fixed", []osvRange{semverRange(ev{Introduced: "0"})}, ""},
		{"one fix", []osvRange{semverRange(ev{Introduced: "0"}, ev{Fixed: "0.62.0"})}, "0.62.0"},
		{"highest of several branches", []osvRange{semverRange(
			ev{Introduced: "0"}, ev{Fixed: "1.25.11"}, ev{Introduced: "1.26.0-0"}, ev{Fixed: "1.26.10"})}, "1.26.10"},
		{"semver order, not string order", []osvRange{semverRange(
			ev{Introduced: "0"}, ev{Fixed: "1.9.0"}, ev{Introduced: "1.10.0"}, ev{Fixed: "1.10.2"})}, "1.10.2"},
		{"fix in a second range", []osvRange{
			semverRange(ev{Introduced: "0"}, ev{Fixed: "1.2.0"}),
			semverRange(ev{Introduced: "2.0.0"}, ev{Fixed: "2.1.0"})}, "2.1.0"},
		{"introduced again after the last fix", []osvRange{semverRange(
			ev{Introduced: "0"}, ev{Fixed: "1.2.0"}, ev{Introduced: "1.5.0"})}, ""},
		{"pseudo-version fix", []osvRange{semverRange(
			ev{Introduced: "0"}, ev{Fixed: "0.0.0-20260225185322-738bad662b20"})}, "0.0.0-20260225185322-738bad662b20"},
		{"ECOSYSTEM ranges do not count", []osvRange{rangeOf("ECOSYSTEM", ev{Introduced: "0"}, ev{Fixed: "3.0.0"})}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := latestFix(tt.ranges); got != tt.want {
				t.Errorf("latestFix = %q, want %q", got, tt.want)
			}
		})
	}
}

const netEntry = `{"id":"GO-2026-0002","modified":"2026-10-01T00:00:00Z","aliases":["CVE-2026-2"],
 "affected":[{"package":{"name":"golang.org/x/net","ecosystem":"Go"},
   "ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"0.62.0"}]}]}]}`

const stdEntry = `{"id":"GO-2026-0001","modified":"2026-11-01T00:00:00Z",
 "affected":[{"package":{"name":"stdlib","ecosystem":"Go"},
   "ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.25.11"},{"introduced":"1.26.0-0"},{"fixed":"1.26.10"}]}]},
  {"package":{"name":"golang.org/x/net","ecosystem":"Go"},
   "ranges":[{"type":"SEMVER","events":[{"introduced":"0"}]}]}]}`

func writeOSV(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestBuild(t *testing.T) {
	osv := writeOSV(t, map[string]string{
		"GO-2026-0001.json":    stdEntry,
		"GO-2026-0002.json":    netEntry,
		"GO-2026-0002.json.gz": "not read",
	})
	out := filepath.Join(t.TempDir(), "db")
	n, err := build(osv, out, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("build counted %d entries, want 2", n)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got, want := read("index/db.json"), `{"modified":"2026-11-01T00:00:00Z"}`; got != want {
		t.Errorf("db.json = %s, want %s", got, want)
	}
	wantModules := `[{"path":"golang.org/x/net","vulns":[` +
		`{"id":"GO-2026-0001","modified":"2026-11-01T00:00:00Z"},` +
		`{"id":"GO-2026-0002","modified":"2026-10-01T00:00:00Z","fixed":"0.62.0"}]},` +
		`{"path":"stdlib","vulns":[{"id":"GO-2026-0001","modified":"2026-11-01T00:00:00Z","fixed":"1.26.10"}]}]`
	if got := read("index/modules.json"); got != wantModules {
		t.Errorf("modules.json =\n%s\nwant\n%s", got, wantModules)
	}
	wantVulns := `[{"id":"GO-2026-0001","modified":"2026-11-01T00:00:00Z"},` +
		`{"id":"GO-2026-0002","modified":"2026-10-01T00:00:00Z","aliases":["CVE-2026-2"]}]`
	if got := read("index/vulns.json"); got != wantVulns {
		t.Errorf("vulns.json =\n%s\nwant\n%s", got, wantVulns)
	}
	if got := read("ID/GO-2026-0002.json"); got != netEntry {
		t.Errorf("ID/GO-2026-0002.json is not the entry unchanged:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(out, "ID", "GO-2026-0002.json.gz")); !os.IsNotExist(err) {
		t.Errorf("a non-JSON file was copied: %v", err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".db.tmp-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary folders left: %v", leftovers)
	}

	// A second run must not write over a finished database.
	if _, err := build(osv, out, time.Time{}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("build over an existing database: err = %v", err)
	}
}

// x/vulndb's data carries zeroed modification times: the fallback stands in.
func TestBuildModifiedFallback(t *testing.T) {
	osv := writeOSV(t, map[string]string{
		"GO-2026-0003.json": `{"id":"GO-2026-0003","modified":"0001-01-01T00:00:00Z","affected":[]}`,
	})
	out := filepath.Join(t.TempDir(), "db")
	when := time.Date(2026, 11, 5, 23, 49, 57, 0, time.UTC)
	if _, err := build(osv, out, when); err != nil {
		t.Fatal(err)
	}
	var db dbMeta
	b, _ := os.ReadFile(filepath.Join(out, "index", "db.json"))
	if err := json.Unmarshal(b, &db); err != nil || !db.Modified.Equal(when) {
		t.Errorf("db.json = %s (%v), want modified %v", b, err, when)
	}
}

func TestBuildRejectsBadInput(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"empty folder", map[string]string{"README.md": "x"}, "no OSV entries"},
		{"not JSON", map[string]string{"GO-2026-0001.json": "{"}, "GO-2026-0001.json: not an OSV entry"},
		{"wrong file name", map[string]string{"GO-2026-0009.json": netEntry}, "must be named GO-2026-0002.json"},
		{"no id", map[string]string{"x.json": `{"affected":[]}`}, `bad or missing id ""`},
		{"id with a slash", map[string]string{"x.json": `{"id":"../x"}`}, `bad or missing id "../x"`},
		{"package without a name", map[string]string{"GO-1.json": `{"id":"GO-1","affected":[{"package":{}}]}`}, "has no name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			out := filepath.Join(parent, "db")
			_, err := build(writeOSV(t, tt.files), out, time.Time{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
			if left, _ := os.ReadDir(parent); len(left) != 0 {
				t.Errorf("a failed build left %v behind", left)
			}
		})
	}
	if _, err := build(filepath.Join(t.TempDir(), "missing"), filepath.Join(t.TempDir(), "db"), time.Time{}); err == nil {
		t.Error("a missing OSV folder gave no error")
	}
}
