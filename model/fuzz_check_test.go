package model

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzValidate: any input validates without panic, and the report is consistent:
// counts match the stored problems (all are stored below MaxProblems), problems
// are sorted document-level first then by entry, and a syntax error is reported.
func FuzzValidate(f *testing.F) {
	for _, pattern := range []string{"valid/*.xml", "spec-examples-v1.1/*.xml", "invalid/*.xml", "real-world/*/*/*.xml"} {
		files, _ := filepath.Glob(filepath.Join(chkConformanceDir, pattern))
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil && len(data) < 64<<10 {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := Validate(bytes.NewReader(data), CheckOptions{MaxProblems: 1 << 20})
		if r.Entries < 0 || r.Bytes < 0 || r.Bytes > int64(len(data))*8+1<<20 {
			t.Fatalf("entries %d, bytes %d", r.Entries, r.Bytes)
		}
		e, w := 0, 0
		for i, p := range r.Problems {
			switch p.Severity {
			case SeverityError:
				e++
			case SeverityWarning:
				w++
			default:
				t.Fatalf("problem without severity: %+v", p)
			}
			if _, ok := RuleByID(p.Rule); !ok || p.Message == "" || p.Section == "" {
				t.Fatalf("problem %+v", p)
			}
			if p.Entry < -1 || p.Entry >= r.Entries && p.Entry >= 0 {
				t.Fatalf("problem entry %d of %d entries", p.Entry, r.Entries)
			}
			if i > 0 && p.Entry < r.Problems[i-1].Entry {
				t.Fatalf("problems not sorted: %v", r.Problems)
			}
		}
		if e != r.Errors || w != r.Warnings {
			t.Fatalf("counts %d/%d, stored %d/%d", r.Errors, r.Warnings, e, w)
		}
		if r.Err != nil && !slices.Contains(chkRuleSet(r.Problems), "xml-malformed") {
			t.Fatalf("error %v without problems", r.Err)
		}
		if r.Err == nil {
			// The in-memory path agrees with streaming.
			if d, err := Parse(bytes.NewReader(data)); err == nil {
				got := CheckDocument(d)
				if len(got) != len(r.Problems) {
					t.Fatalf("CheckDocument %d problems, Validate %d", len(got), len(r.Problems))
				}
			}
		}
	})
}
