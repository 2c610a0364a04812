package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDumpCommandLocalDump: rsx dump FILE reads the packages a local dump
// lists from its folder, verified as downloaded ones are; a copy saved
// beside the dump stands in for a package's URL; a location that is
// absolute or leads out of the folder is refused, nothing of it read, with
// exit status 1.
func TestDumpCommandLocalDump(t *testing.T) {
	content := "a resource\n"
	pkg := zipOf(t, [2]string{"manifest.xml", rsOpen + `<rs:md capability="resourcedump-manifest" at="2024-01-01T00:00:00Z"/>` +
		`<url><loc>http://example.com/r</loc><rs:md hash="md5:` + md5Of([]byte(content)) + `" path="/r"/></url>` + rsClose},
		[2]string{"r", content})
	secret := t.TempDir()
	os.WriteFile(filepath.Join(secret, "p.zip"), pkg, 0o644)
	dir := filepath.Join(t.TempDir(), "saved")
	os.MkdirAll(filepath.Join(dir, "packages"), 0o755)
	os.WriteFile(filepath.Join(dir, "packages", "p.zip"), pkg, 0o644)
	os.Symlink(filepath.Join(secret, "p.zip"), filepath.Join(dir, "out.zip"))
	up, _ := filepath.Rel(dir, secret)

	for _, tc := range []struct {
		name, loc string
		code      int
		want      []string // in the text output
	}{
		{"relative", "packages/p.zip", exitOK, []string{"package " + filepath.Join(dir, "packages", "p.zip"), "✓ 1 verified", "OK: 1 package, 1 verified"}},
		{"beside", "http://127.0.0.1:1/rs/packages/p.zip", exitOK, []string{"read from the file beside the dump: " + filepath.Join(dir, "packages", "p.zip"), "✓ 1 verified"}},
		{"dotdot", "../" + filepath.ToSlash(up) + "/p.zip", exitFound, []string{`✗ refused "../`, `".." leads out of the folder`, "read from its folder " + dir + " and below only",
			"FAILED: 1 package, 0 verified, 0 problems, 1 refused (located out of the dump's folder)"}},
		{"absolute", filepath.ToSlash(filepath.Join(secret, "p.zip")), exitFound, []string{"it is an absolute path", "1 refused (located out of the dump's folder)"}},
		{"file URL", "file://" + filepath.ToSlash(filepath.Join(secret, "p.zip")), exitFound, []string{"a file URL is an absolute path"}},
		{"symlink out", "out.zip", exitFailure, []string{"✗ download package: open " + filepath.Join(dir, "out.zip"), "1 not read"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := rsOpen + `<rs:md capability="resourcedump" at="2024-01-01T00:00:00Z"/><url><loc>` + tc.loc + `</loc><rs:md length="` +
				strconv.Itoa(len(pkg)) + `" hash="md5:` + md5Of(pkg) + `"/></url>` + rsClose
			p := filepath.Join(dir, "dump.xml")
			os.WriteFile(p, []byte(d), 0o644)
			code, out, errOut := validateRun(t, "", "dump", "--verify", p)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			_, out, _ = validateRun(t, "", "dump", "--json", p)
			v := decodeDumpJSON(t, out)
			refused := strings.Contains(out, `"location_refused": true`) || strings.Contains(out, `"location_refused":true`)
			if refused != (tc.code == exitFound) || *v.OK != (tc.code == exitOK) {
				t.Errorf("--json: ok %v, location_refused %v:\n%s", *v.OK, refused, out)
			}
		})
	}
}
