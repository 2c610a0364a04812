package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Third-party fixtures under testdata/ are copied byte for byte from their
// origin, which their README names; a SHA256SUMS beside them (the format
// `sha256sum -c` reads) records each file as copied. These tests keep them so:
// an edit, a line-ending conversion or a file added or lost fails.

// checkFixtureSums compares the files under dir with dir/SHA256SUMS and
// returns what differs. README.md and SHA256SUMS are ours, not copied.
func checkFixtureSums(dir string) ([]string, error) {
	f, err := os.Open(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var problems []string
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != sha256.Size*2 || name == "" {
			problems = append(problems, fmt.Sprintf("SHA256SUMS line %d: not \"<sha-256>  <name>\"", n))
			continue
		}
		want[filepath.ToSlash(name)] = sum
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == "README.md" || rel == "SHA256SUMS" {
			return nil
		}
		sum, listed := want[rel]
		if !listed {
			problems = append(problems, rel+": not in SHA256SUMS")
			return nil
		}
		delete(want, rel)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if got := sha256.Sum256(data); hex.EncodeToString(got[:]) != sum {
			problems = append(problems, fmt.Sprintf("%s: changed since it was copied (sha-256 %x, SHA256SUMS says %s)", rel, got, sum))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for name := range want {
		problems = append(problems, name+": in SHA256SUMS but missing")
	}
	slices.Sort(problems)
	return problems, nil
}

func TestThirdPartyFixturesUnchanged(t *testing.T) {
	var dirs []string
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "SHA256SUMS" {
			dirs = append(dirs, filepath.ToSlash(filepath.Dir(path)))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// The folders that must have one: a lost SHA256SUMS must not pass.
	for _, want := range []string{
		"testdata/conformance/spec-examples-v1.1",
		"testdata/conformance/real-world/resync-client-ruby",
	} {
		if !slices.Contains(dirs, want) {
			t.Errorf("%s has no SHA256SUMS", want)
		}
	}
	for _, dir := range dirs {
		problems, err := checkFixtureSums(dir)
		if err != nil {
			t.Errorf("%s: %v", dir, err)
		}
		for _, p := range problems {
			t.Errorf("%s/%s", dir, p)
		}
	}
}

// The check catches an edited file, a converted line ending, a file added or
// lost and a malformed line, and passes a folder as copied.
func TestThirdPartyFixturesCatch(t *testing.T) {
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	write := func(t *testing.T, dir, name, data string) {
		t.Helper()
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sums := sum("<a/>\n") + "  a.xml\n" + sum("PK") + "  sub/p.zip\n"
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  []string
	}{
		{"as copied", func(*testing.T, string) {}, nil},
		{"edited", func(t *testing.T, dir string) { write(t, dir, "a.xml", "<b/>\n") },
			[]string{"a.xml: changed since it was copied (sha-256 " + sum("<b/>\n") + ", SHA256SUMS says " + sum("<a/>\n") + ")"}},
		{"CRLF", func(t *testing.T, dir string) { write(t, dir, "a.xml", "<a/>\r\n") },
			[]string{"a.xml: changed since it was copied (sha-256 " + sum("<a/>\r\n") + ", SHA256SUMS says " + sum("<a/>\n") + ")"}},
		{"added", func(t *testing.T, dir string) { write(t, dir, "sub/new.xml", "x") }, []string{"sub/new.xml: not in SHA256SUMS"}},
		{"lost", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "sub", "p.zip")) }, []string{"sub/p.zip: in SHA256SUMS but missing"}},
		{"malformed", func(t *testing.T, dir string) { write(t, dir, "SHA256SUMS", sums+"abc a.xml\n") },
			[]string{"SHA256SUMS line 3: not \"<sha-256>  <name>\""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "a.xml", "<a/>\n")
			write(t, dir, "sub/p.zip", "PK")
			write(t, dir, "README.md", "ours")
			write(t, dir, "SHA256SUMS", sums)
			tc.setup(t, dir)
			got, err := checkFixtureSums(dir)
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
