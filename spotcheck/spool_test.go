package spotcheck

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"rsx/demo"
)

// A Spool gives back what it was given, in the order a Report sorts its
// lists, whether the findings fit in one run in memory or were merged from
// runs on disk; Close leaves no file behind.
func TestSpoolOrder(t *testing.T) {
	for _, n := range []int{0, 1, 100, spoolRun, 3*spoolRun + 17} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dir := t.TempDir()
			s := NewSpool(dir)
			rng := rand.New(rand.NewPCG(uint64(n), 7))
			var want Report
			for i := range n {
				url := fmt.Sprintf("http://example.org/res/%06d", rng.IntN(n/3+1))
				f := Finding{URL: url, Mirror: "", Field: "md5", Declared: "a\x00b", Actual: fmt.Sprint(i), Reason: "r", Changed: i%2 == 0,
					order: [2]int{rng.IntN(3), rng.IntN(4)}}
				u := Unchecked{URL: url, Mirror: "m", Field: "sha-3", Reason: fmt.Sprint(i), order: f.order}
				m := Mirror{URL: url, Mirror: fmt.Sprintf("http://mirror/%d", i), Pri: rng.IntN(10) - 2, OK: i%3 == 0, order: rng.IntN(5)}
				s.Mismatch(f)
				s.Warning(f)
				s.Unchecked(u)
				s.Mirror(m)
				want.Mismatched = append(want.Mismatched, f)
				want.Warnings = append(want.Warnings, f)
				want.Unchecked = append(want.Unchecked, u)
				want.Mirrors = append(want.Mirrors, m)
			}
			want.sortFindings()
			var got Report
			for _, err := range []error{
				s.EachMismatched(func(f Finding) error { got.Mismatched = append(got.Mismatched, f); return nil }),
				s.EachWarning(func(f Finding) error { got.Warnings = append(got.Warnings, f); return nil }),
				s.EachUnchecked(func(u Unchecked) error { got.Unchecked = append(got.Unchecked, u); return nil }),
				s.EachMirror(func(m Mirror) error { got.Mirrors = append(got.Mirrors, m); return nil }),
				s.Err(),
			} {
				if err != nil {
					t.Fatal(err)
				}
			}
			// Equal keys may come in either order: compare the keys' order
			// and the multisets.
			checkSame(t, "mismatched", keysF(want.Mismatched), keysF(got.Mismatched))
			checkSame(t, "warnings", keysF(want.Warnings), keysF(got.Warnings))
			checkSame(t, "mirrors", keysM(want.Mirrors), keysM(got.Mirrors))
			if len(got.Unchecked) != n {
				t.Errorf("%d unchecked of %d", len(got.Unchecked), n)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*"))
			if n > spoolRun && len(files) == 0 {
				t.Errorf("%d findings, and no file: the runs were not spooled", n)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if files, _ := os.ReadDir(dir); len(files) != 0 {
				t.Errorf("%d files left after Close", len(files))
			}
		})
	}
}

func keysF(fs []Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = fmt.Sprintf("%s %d %d", f.URL, f.order[0], f.order[1])
	}
	return out
}

func keysM(ms []Mirror) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = fmt.Sprintf("%s %d", m.URL, m.order)
	}
	return out
}

func checkSame(t *testing.T, what string, want, got []string) {
	t.Helper()
	if len(want) == 0 && len(got) == 0 {
		return
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("%s: the order differs from the Report's (%d, %d items)", what, len(want), len(got))
	}
}

// A run with a Sink finds what a run without finds, keeps none of it in the
// Report, and counts it.
func TestAuditWithASpool(t *testing.T) {
	base := startDemo(t, demo.Options{Resources: 1200, ListSize: 200, Seed: 11, Broken: true})
	url := base + "/dataset1/resourcelist.xml"
	kept := runAudit(t, url, Options{Seed: 3})
	s := NewSpool(t.TempDir())
	defer s.Close()
	streamed := runAudit(t, url, Options{Seed: 3, Sink: s})
	if len(streamed.Mismatched)+len(streamed.Warnings)+len(streamed.Unchecked)+len(streamed.Mirrors) != 0 {
		t.Errorf("the Report kept findings a Sink received")
	}
	if streamed.Counts != kept.Counts || streamed.Counts.Mismatched == 0 || streamed.Counts.Mirrors != kept.MirrorsChecked || !streamed.Wrong() {
		t.Errorf("counts %+v, without a sink %+v (mirrors checked %d)", streamed.Counts, kept.Counts, kept.MirrorsChecked)
	}
	var got []Finding
	if err := s.EachMismatched(func(f Finding) error { got = append(got, f); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(findings(base, got), findings(base, kept.Mismatched)) {
		t.Errorf("spooled %q\nkept %q", findings(base, got), findings(base, kept.Mismatched))
	}
}

// The spool's records read back what was written, and any bytes are read
// without a panic (a corrupt file is an error).
func FuzzSpoolRecords(f *testing.F) {
	f.Add(appendFinding(nil, &Finding{URL: "http://a/", Field: "md5", Declared: "x", Actual: "y", Changed: true, order: [2]int{1, 2}}))
	f.Add(appendMirror(nil, &Mirror{URL: "http://a/", Mirror: "http://m/", Pri: -3, OK: true, order: 4}))
	f.Add(appendUnchecked(nil, &Unchecked{URL: "u", Field: "sha-3", Reason: "unknown"}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		var fi Finding
		if readFinding(b, &fi) == nil {
			if again := appendFinding(nil, &fi); !bytes.Equal(again, b) {
				var f2 Finding
				if err := readFinding(again, &f2); err != nil || f2 != fi {
					t.Errorf("a finding does not survive its encoding: %+v", fi)
				}
			}
		}
		var m Mirror
		_ = readMirror(b, &m)
		var u Unchecked
		_ = readUnchecked(b, &u)
	})
}
