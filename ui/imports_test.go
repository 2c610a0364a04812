package ui

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoIOImports keeps the explorer (this package and its common and
// components) free of I/O of its own: files, processes, HTTP and archives
// belong to packages session, claims, fetch and dump, which it reaches
// through the interfaces of backend.go.
func TestNoIOImports(t *testing.T) {
	forbidden := map[string]bool{
		"os": true, "os/exec": true, "net/http": true,
		"archive/zip": true, "compress/gzip": true, "compress/flate": true,
	}
	var files []string
	for _, dir := range []string{".", "common", "components"} {
		fs, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(fs) == 0 {
			t.Fatalf("list the files of %s: %v", dir, err)
		}
		files = append(files, fs...)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); forbidden[p] || strings.HasPrefix(p, "compress/") {
				t.Errorf("%s imports %s", name, p)
			}
		}
	}
}
