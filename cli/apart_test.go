package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"rsx/dest/engine"
)

// destFiles lists the files of a folder DEST (not .rsx), sorted.
func destFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() && rel == ".rsx" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// A Capability List that redirects to the Capability List of another
// Source that DEST holds is refused: exit 1, a message naming both, and
// nothing of the other's copy written or deleted (its --delete and
// --include do not apply to the other's copy).
func TestSyncRefusesARedirectToAnotherSourcesCapabilityList(t *testing.T) {
	base := startDemo(t, false)
	a := base + "/dataset1/capabilitylist.xml"
	other := httptest.NewServer(http.RedirectHandler(a, http.StatusFound))
	t.Cleanup(other.Close)
	b := other.URL + "/b/capabilitylist.xml"
	dest := t.TempDir()
	if code, _, errs := runCmd(t, "sync", "--dest", dest, a); code != 0 {
		t.Fatalf("A: exit %d: %s", code, errs)
	}
	before := destFiles(t, dest)
	for _, json := range []bool{false, true} {
		args := []string{"sync", "--dest", dest, "--delete", "--include", "nothing-matches", b}
		if json {
			args = append(args, "--json")
		}
		code, out, errs := runCmd(t, args...)
		msg := errs
		if json {
			msg = decodeOneJSON[struct {
				Error string `json:"error"`
			}](t, out, "sync").Error
		}
		if code != 1 || !strings.Contains(msg, a) || !strings.Contains(msg, b) || !strings.Contains(msg, "refused") {
			t.Errorf("json %v: exit %d, message %q, stderr %q", json, code, msg, errs)
		}
	}
	if got := destFiles(t, dest); !slices.Equal(got, before) {
		t.Errorf("DEST changed: %d files, were %d", len(got), len(before))
	}
	// A is as it was: its selection untouched, nothing to do.
	code, out, errs := runCmd(t, "sync", "--dest", dest, "--json", a)
	res := decodeOneJSON[struct {
		Created, Updated, Deleted int
		Selection                 struct{ Include []string }
	}](t, out, "sync")
	if code != 0 || res.Created+res.Updated+res.Deleted != 0 || len(res.Selection.Include) != 0 {
		t.Errorf("A after: exit %d, %+v: %s", code, res, errs)
	}
}

// --resource-timeout is on by default (auto: the engine's bound scaled by
// the declared length), off with 0 or none, a fixed bound with a duration.
func TestResourceTimeoutFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{nil, 0},
		{[]string{"--resource-timeout", "auto"}, 0},
		{[]string{"--resource-timeout", "0"}, engine.NoResourceTimeout},
		{[]string{"--resource-timeout", "none"}, engine.NoResourceTimeout},
		{[]string{"--resource-timeout", "90s"}, 90 * time.Second},
	} {
		f := syncFlags{maxSize: engine.DefaultMaxSize, stallTimeout: engine.DefaultStallTimeout}
		fs := pflag.NewFlagSet("sync", pflag.ContinueOnError)
		fs.Var(&f.resourceTimeout, "resource-timeout", "")
		if err := fs.Parse(tc.args); err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		o, err := f.engineOptions()
		if err != nil || o.ResourceTimeout != tc.want {
			t.Errorf("%q: %v, %v; want %v", tc.args, o.ResourceTimeout, err, tc.want)
		}
	}
}
