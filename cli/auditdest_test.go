package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"rsx/dest/engine"
)

// The --json of audit --dest, written a list element at a time, is the
// document writeJSON writes of the whole report, byte for byte.
func TestDestAuditJSONStreamedIsWholeDocument(t *testing.T) {
	var many []string
	for i := range 70 {
		many = append(many, fmt.Sprintf("http://example.org/r/%03d?a=1&b=<2>", i))
	}
	reports := map[string]*engine.AuditReport{
		"empty": {},
		"full": {Source: "http://example.org/cap.xml", Document: "http://example.org/rl.xml", At: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC),
			Same: 3, Missing: many, Changed: []string{"http://example.org/\u202egnp.exe", "http://example.org/tab\there"},
			Extra: []string{"stray\nfile", "ok.txt"}, Damaged: []string{"http://example.org/\x1b[31mred"}, Unannounced: many[:2],
			Unverifiable: []string{"http://example.org/u"}, Problems: []engine.Failure{{URL: "http://example.org/cl.xml", Kind: engine.KindDocument}},
			Warnings: []string{"a warning with \"quotes\""}, Elapsed: 1500 * time.Millisecond},
	}
	for name, r := range reports {
		t.Run(name, func(t *testing.T) {
			var whole, streamed bytes.Buffer
			if err := writeJSON(&whole, destAuditJSONOf(r, "/copy")); err != nil {
				t.Fatal(err)
			}
			if err := writeDestAuditJSON(&streamed, r, "/copy"); err != nil {
				t.Fatal(err)
			}
			if whole.String() != streamed.String() {
				t.Errorf("streamed:\n%s\nwant:\n%s", streamed.String(), whole.String())
			}
		})
	}
}

// An audit of a copy that lost more files than the text shows: the text
// names the first maxTextLines and counts the rest, --json lists every one
// in order (read back from the report's spool).
func TestDestAuditManyMissing(t *testing.T) {
	base := startDemo(t, false)
	cap := base + "/dataset1/capabilitylist.xml"
	dest := t.TempDir()
	if code, _, errs := runCmd(t, "sync", "--dest", dest, cap); code != 0 {
		t.Fatalf("sync: exit %d: %s", code, errs)
	}
	var gone []string
	filepath.WalkDir(dest, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.Contains(p, ".rsx") && strings.Contains(p, "/res/") && len(gone) < maxTextLines+7 {
			gone = append(gone, p)
		}
		return nil
	})
	if len(gone) != maxTextLines+7 {
		t.Fatalf("the copy has %d resources", len(gone))
	}
	for _, p := range gone {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	code, out, _ := runCmd(t, "audit", "--dest", dest, cap)
	lines := strings.Split(out, "\n")
	at := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, fmt.Sprintf("%d missing:", len(gone))) })
	if code != 1 || at < 0 || len(lines) < at+maxTextLines+2 || lines[at+maxTextLines+1] != "    … and 7 more (--json lists every one)" {
		t.Fatalf("text: exit %d\n%s", code, out)
	}
	code, out, _ = runCmd(t, "audit", "--dest", dest, "--json", cap)
	a := decodeOneJSON[destAuditOut](t, out, "audit --dest")
	a.checkShape(t)
	if code != 1 || len(a.Missing) != len(gone) || len(a.Damaged) != len(gone) || !slices.IsSorted(a.Missing) {
		t.Fatalf("json: exit %d, %d missing, %d damaged of %d gone", code, len(a.Missing), len(a.Damaged), len(gone))
	}
	for i, u := range a.Missing[:maxTextLines] {
		if lines[at+1+i] != "    "+u {
			t.Fatalf("text line %d %q, json %q", i, lines[at+1+i], u)
		}
	}
}
