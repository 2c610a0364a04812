package session

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestCompletePath(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"index.xml", "indexes/a.xml", "other.xml", ".hidden.xml"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "indexes"), filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	s := New(nil, Options{})
	sep := string(filepath.Separator)
	for _, tc := range []struct {
		prefix string
		want   []string
	}{
		{dir + sep + "ind", []string{dir + sep + "index.xml", dir + sep + "indexes" + sep}},
		{dir + sep + "indexes" + sep, []string{dir + sep + "indexes" + sep + "a.xml"}},
		{dir + sep + "li", []string{dir + sep + "linked" + sep}},
		{dir + sep, []string{dir + sep + "index.xml", dir + sep + "indexes" + sep, dir + sep + "linked" + sep, dir + sep + "other.xml"}},
		{dir + sep + ".h", []string{dir + sep + ".hidden.xml"}},
		{dir + sep + "zzz", nil},
		{dir + sep + "nowhere" + sep + "x", nil},
	} {
		if got := s.CompletePath(tc.prefix); !slices.Equal(got, tc.want) {
			t.Errorf("CompletePath(%q) = %q, want %q", tc.prefix, got, tc.want)
		}
	}
	// A relative prefix is completed from the working folder and stays relative.
	t.Chdir(dir)
	if got := s.CompletePath("oth"); !slices.Equal(got, []string{"other.xml"}) {
		t.Errorf("relative: %q", got)
	}
}
