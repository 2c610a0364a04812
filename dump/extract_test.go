package dump

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rsx/scratch"
)

func TestExtractGood(t *testing.T) {
	p := openBytes(t, goodPackage(t), Options{})
	dir := filepath.Join(t.TempDir(), "new", "dest")
	r, err := p.Extract(context.Background(), dir, nil)
	if err != nil || !r.OK() || r.Extracted != 2 || r.Verified != 2 {
		t.Fatalf("%+v %v", r, err)
	}
	for name, want := range map[string]string{"resources/res1": res1, "resources/res2": res2} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(b) != want {
			t.Errorf("%s: %q %v", name, b, err)
		}
	}
	// Only the two files: no temporary file left, no manifest.
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if !slices.Equal(files, []string{"resources/res1", "resources/res2"}) {
		t.Errorf("files %v", files)
	}
}

// TestExtractKeepsGoodFile: a member whose hash does not match never replaces
// the file already at its path.
func TestExtractKeepsGoodFile(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "resources"), 0o755)
	good := filepath.Join(dir, "resources", "res1")
	if err := os.WriteFile(good, []byte(res1), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := []byte("tampered content\n")
	z := buildZip(t, zm{name: ManifestName, data: manifest(entry("http://example.com/res1", "/resources/res1", []byte(res1)))},
		zm{name: "resources/res1", data: bad})
	r, err := openBytes(t, z, Options{}).Extract(context.Background(), dir, nil)
	if err != nil || len(r.Mismatched) != 3 || r.Extracted != 0 {
		t.Fatalf("%+v %v", r, err)
	}
	if b, _ := os.ReadFile(good); string(b) != res1 {
		t.Fatalf("good file overwritten: %q", b)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "resources"))
	if len(ents) != 1 {
		t.Fatalf("left behind: %v", ents)
	}
}

// TestExtractNeverOutside: hostile names in every form; afterwards the
// parent of DEST holds nothing but DEST, and DEST only safe files.
func TestExtractNeverOutside(t *testing.T) {
	parent := t.TempDir()
	dest := filepath.Join(parent, "dest")
	outside := filepath.Join(parent, "outside")
	os.MkdirAll(outside, 0o755)
	os.MkdirAll(dest, 0o755)
	// A symlink already in DEST pointing outside: never followed.
	if err := os.Symlink(outside, filepath.Join(dest, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "target"), filepath.Join(dest, "file-link")); err != nil {
		t.Fatal(err)
	}
	d := []byte("x\n")
	paths := []string{"/../../evil", "/../outside/evil", "//etc/evil", `/..\evil`, "/a/../../evil", "/escape/evil", "/file-link", "/C:/evil", "/ok/./x", "/ok//x", "/ok/"}
	var entries []string
	members := []zm{}
	for i, p := range paths {
		entries = append(entries, entry("http://example.com/"+string(rune('a'+i)), p, d))
		if !strings.HasSuffix(p, "/") {
			members = append(members, zm{name: strings.TrimPrefix(p, "/"), data: d})
		}
	}
	entries = append(entries, entry("http://example.com/good", "/good/file", d))
	members = append(members, zm{name: "good/file", data: d},
		zm{name: "../../evil2", data: d}, zm{name: "/abs/evil3", data: d}, zm{name: "nul\x00/evil4", data: d}, zm{name: "lnk", data: []byte("../../outside"), mode: fs.ModeSymlink | 0o777})
	members = append([]zm{{name: ManifestName, data: manifest(entries...)}}, members...)
	z := buildZip(t, members...)
	p, err := OpenPackage(strings.NewReader(string(z)), int64(len(z)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Extract(context.Background(), dest, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Extracted != 1 {
		t.Errorf("extracted %d: %+v", r.Extracted, r)
	}
	if len(r.Refused) < len(paths) {
		t.Errorf("refused %d: %+v", len(r.Refused), r.Refused)
	}
	for _, f := range r.Refused {
		t.Logf("refused %q: %s", f.Path, f.Reason)
		if f.Reason == "" {
			t.Errorf("no reason: %+v", f)
		}
	}
	var found []string
	filepath.WalkDir(parent, func(p string, de fs.DirEntry, err error) error {
		if err == nil && p != parent {
			rel, _ := filepath.Rel(parent, p)
			found = append(found, filepath.ToSlash(rel))
		}
		return nil
	})
	want := []string{"dest", "dest/escape", "dest/file-link", "dest/good", "dest/good/file", "outside"}
	if !slices.Equal(found, want) {
		t.Errorf("after extraction:\n%v\nwant\n%v", found, want)
	}
}

func TestExtractDuplicatePath(t *testing.T) {
	d := []byte(res1)
	z := buildZip(t, zm{name: ManifestName, data: manifest(entry("http://example.com/a", "/r", d), entry("http://example.com/b", "/r", d))}, zm{name: "r", data: d})
	r, err := openBytes(t, z, Options{}).Extract(context.Background(), t.TempDir(), nil)
	if err != nil || r.Extracted != 1 || len(r.Refused) != 1 || !strings.Contains(r.Refused[0].Reason, "repeated") {
		t.Fatalf("%+v %v", r, err)
	}
}

func TestExtractTotalLimit(t *testing.T) {
	dir := t.TempDir()
	r, err := openBytes(t, goodPackage(t), Options{MaxTotalBytes: int64(len(res1)) + 1}).Extract(context.Background(), dir, nil)
	if err != nil || r.Extracted != 1 || len(r.Refused) != 1 || !strings.Contains(r.Refused[0].Reason, "limit") {
		t.Fatalf("%+v %v", r, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "resources", "res2")); err == nil {
		t.Fatal("res2 written beyond the limit")
	}
}

func TestExtractFileInTheWay(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "resources"), []byte("a file"), 0o644)
	r, err := openBytes(t, goodPackage(t), Options{}).Extract(context.Background(), dir, nil)
	if err != nil || r.Extracted != 0 || len(r.Refused) != 2 {
		t.Fatalf("%+v %v", r, err)
	}
}

// TestExtractRefusesHostileNames: a manifest path that a terminal would act
// on when shown is refused, and nothing is written under it.
func TestExtractRefusesHostileNames(t *testing.T) {
	name := "resources/invoice\u202egpj.exe"
	z := buildZip(t, zm{name: ManifestName, data: manifest(entry("http://example.com/x", "/"+name, []byte(res1)))},
		zm{name: name, data: []byte(res1)})
	dir := t.TempDir()
	r, err := openBytes(t, z, Options{}).Extract(context.Background(), dir, nil)
	if err != nil || r.Extracted != 0 || len(r.Refused) == 0 || !strings.Contains(r.Refused[0].Reason, "bidirectional") {
		t.Fatalf("%+v %v", r, err)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name))); err == nil {
		t.Fatal("written under a hostile name")
	}
}

// TestExtractSweepsStaleParts: an extraction killed outright leaves its
// temporary file beside the destination; the next extraction into that
// directory removes it, and leaves alone the temporary file of an
// extraction that is still running.
func TestExtractSweepsStaleParts(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "resources")
	os.MkdirAll(res, 0o755)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(res, ".rsx-"+strconv.Itoa(cmd.Process.Pid)+"-0-00112233.part")
	running := filepath.Join(res, ".rsx-"+scratch.Self()+"-44556677.part")
	other := filepath.Join(res, ".rsx-notes.part")
	for _, f := range []string{stale, running, other} {
		os.WriteFile(f, []byte("partial"), 0o644)
	}
	r, err := openBytes(t, goodPackage(t), Options{}).Extract(context.Background(), dir, nil)
	if err != nil || r.Extracted != 2 {
		t.Fatalf("%+v %v", r, err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale temporary file is still there")
	}
	for _, f := range []string{running, other} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s removed", filepath.Base(f))
		}
	}
}
