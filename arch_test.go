package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The layout's import rules (README, "How the code is laid out"), checked on
// what `go list` says each package imports.

// module is this module's path.
const module = "rsx"

// listedPackage is what the rules need of `go list -json`.
type listedPackage struct {
	ImportPath   string
	Imports      []string // of the package's own files
	TestImports  []string // of its _test.go files in the same package
	XTestImports []string // of its external test package
}

// importRule names what some packages may not import: from picks the
// packages it applies to, forbidden tells whether an import breaks it.
type importRule struct {
	name      string
	from      func(p string) bool
	tests     bool // the imports of the package's tests count too
	forbidden func(importer, imported string) bool
}

func ours(p string) bool { return p == module || strings.HasPrefix(p, module+"/") }

func importRules() []importRule {
	every := func(string) bool { return true }
	is := func(want string) func(string) bool { return func(p string) bool { return p == want } }
	return []importRule{
		{
			name: "only the root main package imports rsx/cli",
			from: every, tests: true,
			forbidden: func(importer, imported string) bool {
				return imported == module+"/cli" && importer != module && importer != module+"/cli"
			},
		},
		{
			name: "only cli and the root main package (and ui's own tests) import rsx/ui",
			from: every, tests: true,
			forbidden: func(importer, imported string) bool {
				return imported == module+"/ui" && importer != module && importer != module+"/cli" && importer != module+"/ui"
			},
		},
		{
			name: "model imports nothing of ours",
			from: is(module + "/model"),
			forbidden: func(_, imported string) bool {
				return ours(imported)
			},
		},
		{
			name: "fetch imports nothing of ours but rsx/internal/inflate",
			from: is(module + "/fetch"),
			forbidden: func(_, imported string) bool {
				return ours(imported) && imported != module+"/internal/inflate"
			},
		},
		{
			name: "memento reads bytes only: of ours it imports model, and no os or net/http",
			from: is(module + "/memento"),
			forbidden: func(_, imported string) bool {
				return (ours(imported) && imported != module+"/model") || imported == "os" || imported == "net/http"
			},
		},
		{
			name: "ui and its sub-packages perform no I/O of their own: no os, os/exec, net/http, archive/zip or compress/*",
			from: func(p string) bool { return p == module+"/ui" || strings.HasPrefix(p, module+"/ui/") },
			forbidden: func(_, imported string) bool {
				return imported == "os" || imported == "os/exec" || imported == "net/http" ||
					imported == "archive/zip" || strings.HasPrefix(imported, "compress/")
			},
		},
		{
			name: "display and scratch import nothing of ours",
			from: func(p string) bool { return p == module+"/display" || p == module+"/scratch" },
			forbidden: func(_, imported string) bool {
				return ours(imported)
			},
		},
		{
			name: "internal/inflate imports nothing of ours, nor do its tests",
			from: is(module + "/internal/inflate"), tests: true,
			forbidden: func(_, imported string) bool {
				return ours(imported)
			},
		},
	}
}

// importList is one list of a package's imports, and whose they are.
type importList struct {
	who     string
	imports []string
}

// violations returns "importer imports imported" for every import of pkgs
// that breaks r.
func (r importRule) violations(pkgs []listedPackage) []string {
	var out []string
	for _, p := range pkgs {
		if !r.from(p.ImportPath) {
			continue
		}
		lists := []importList{{p.ImportPath, p.Imports}}
		if r.tests {
			lists = append(lists,
				importList{p.ImportPath + " (tests)", p.TestImports},
				importList{p.ImportPath + " (external tests)", p.XTestImports})
		}
		for _, l := range lists {
			for _, imp := range l.imports {
				if r.forbidden(p.ImportPath, imp) {
					out = append(out, l.who+" imports "+imp)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// goList lists the module's packages.
func goList(t *testing.T) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -json ./...: %v\n%s", err, stderr.String())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("read go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func TestImportRules(t *testing.T) {
	pkgs := goList(t)
	// The rules name these packages: a rename must not leave them checking nothing.
	for _, want := range []string{module, module + "/cli", module + "/ui", module + "/model", module + "/fetch", module + "/internal/inflate"} {
		if !slices.ContainsFunc(pkgs, func(p listedPackage) bool { return p.ImportPath == want }) {
			t.Fatalf("go list does not list %s; the rules below would check nothing", want)
		}
	}
	for _, r := range importRules() {
		t.Run(r.name, func(t *testing.T) {
			for _, v := range r.violations(pkgs) {
				t.Error(v)
			}
		})
	}
}

// The rules catch what they are for: each is shown a package list that
// breaks it, and one that does not.
func TestImportRulesCatch(t *testing.T) {
	for _, tc := range []struct {
		rule     int // index into importRules()
		breaks   listedPackage
		passes   listedPackage
		wantText string
	}{
		{0, listedPackage{ImportPath: "rsx/crawl", XTestImports: []string{"rsx/cli"}}, listedPackage{ImportPath: "rsx", Imports: []string{"rsx/cli"}}, "rsx/crawl (external tests) imports rsx/cli"},
		{1, listedPackage{ImportPath: "rsx/session", Imports: []string{"rsx/ui"}}, listedPackage{ImportPath: "rsx/ui", XTestImports: []string{"rsx/ui"}}, "rsx/session imports rsx/ui"},
		{2, listedPackage{ImportPath: "rsx/model", Imports: []string{"io", "rsx/fetch"}}, listedPackage{ImportPath: "rsx/model", Imports: []string{"io", "net/url"}}, "rsx/model imports rsx/fetch"},
		{3, listedPackage{ImportPath: "rsx/fetch", Imports: []string{"rsx/model"}}, listedPackage{ImportPath: "rsx/fetch", Imports: []string{"net/http", "os", "rsx/internal/inflate"}}, "rsx/fetch imports rsx/model"},
		{4, listedPackage{ImportPath: "rsx/memento", Imports: []string{"rsx/fetch"}}, listedPackage{ImportPath: "rsx/memento", Imports: []string{"rsx/model", "net/url"}}, "rsx/memento imports rsx/fetch"},
		{5, listedPackage{ImportPath: "rsx/ui", Imports: []string{"compress/gzip"}}, listedPackage{ImportPath: "rsx/ui", Imports: []string{"io"}, TestImports: []string{"os"}}, "rsx/ui imports compress/gzip"},
		{6, listedPackage{ImportPath: "rsx/display", Imports: []string{"rsx/model"}}, listedPackage{ImportPath: "rsx/scratch", Imports: []string{"os", "syscall"}}, "rsx/display imports rsx/model"},
		{7, listedPackage{ImportPath: "rsx/internal/inflate", TestImports: []string{"rsx/fetch"}}, listedPackage{ImportPath: "rsx/internal/inflate", Imports: []string{"compress/flate", "hash/crc32"}}, "rsx/internal/inflate (tests) imports rsx/fetch"},
	} {
		r := importRules()[tc.rule]
		if got := r.violations([]listedPackage{tc.breaks}); !slices.Equal(got, []string{tc.wantText}) {
			t.Errorf("%s: violations = %q, want %q", r.name, got, tc.wantText)
		}
		if got := r.violations([]listedPackage{tc.passes}); len(got) > 0 {
			t.Errorf("%s: violations of an allowed import: %q", r.name, got)
		}
	}
}
