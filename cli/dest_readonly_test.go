package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// treeOf describes every file and folder under root, .rsx included: path,
// mode, size and modification time (root, whom modes do not stop, is
// caught writing by it too).
func treeOf(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d %d\n", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSyncThatDoesNotStartLeavesNothing: a dry run, and a run that cannot
// start (unreachable, not ResourceSync, a bad option), make nothing in DEST:
// not the folder, not DEST/.rsx; a dry run into a DEST that does not exist
// still shows the plan (everything is new).
func TestSyncThatDoesNotStartLeavesNothing(t *testing.T) {
	source := startDemo(t, false) + "/dataset1/capabilitylist.xml"
	dead := closedPort(t) + "/capabilitylist.xml"
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>a home page</body></html>")
	}))
	defer html.Close()
	cases := []struct {
		name   string
		exists bool // DEST is an empty folder before
		args   []string
		code   int
		stdout string
	}{
		{"unreachable", false, []string{dead}, 2, ""},
		{"unreachable, empty DEST", true, []string{dead}, 2, ""},
		{"unreachable, --json", false, []string{"--json", dead}, 2, `"error"`},
		{"not ResourceSync", false, []string{html.URL + "/"}, 2, ""},
		{"a bad --include", false, []string{"--include", "(", source}, 2, ""},
		{"a bad --mode", false, []string{"--mode", "sideways", source}, 2, ""},
		{"dry run", false, []string{"--dry-run", source}, 0, "plan (dry run: nothing is written)"},
		{"dry run, empty DEST", true, []string{"--dry-run", source}, 0, "to create"},
		{"dry run, --json", false, []string{"--dry-run", "--json", source}, 0, `"dry_run": true`},
		{"dry run, unreachable", false, []string{"--dry-run", dead}, 2, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dest := filepath.Join(t.TempDir(), "copy")
			if tc.exists {
				os.Mkdir(dest, 0o755)
			}
			code, out, errs := runCmd(t, append([]string{"sync", "--dest", dest}, tc.args...)...)
			if code != tc.code || !strings.Contains(out, tc.stdout) {
				t.Fatalf("exit %d (want %d), stdout %q (want %q); stderr %s", code, tc.code, out, tc.stdout, errs)
			}
			entries, err := os.ReadDir(dest)
			switch {
			case tc.exists && (err != nil || len(entries) != 0):
				t.Errorf("DEST holds %v (%v)", entries, err)
			case !tc.exists && !errors.Is(err, fs.ErrNotExist):
				t.Errorf("DEST was made: %v %v", entries, err)
			}
		})
	}

	// A dry run on a copy changes nothing in it.
	dest := t.TempDir()
	if code, _, errs := runCmd(t, "sync", "--dest", dest, source); code != 0 {
		t.Fatalf("sync: %d %s", code, errs)
	}
	before := treeOf(t, dest)
	if code, out, errs := runCmd(t, "sync", "--dry-run", "--mode", "baseline", "--dest", dest, source); code != 0 || !strings.Contains(out, "dry run") {
		t.Fatalf("dry run: %d %s %s", code, out, errs)
	}
	if after := treeOf(t, dest); after != before {
		t.Errorf("a dry run changed the copy:\n%s\nafter:\n%s", before, after)
	}
}
