package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The layout's import rules (docs/layout.md), checked on
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
			// display is a leaf (it imports nothing of ours): model shares its
			// rule of which characters a terminal acts on, for the path of a
			// bitstream in a package (model.PackageMember).
			name: "model imports nothing of ours but rsx/display",
			from: is(module + "/model"),
			forbidden: func(_, imported string) bool {
				return ours(imported) && imported != module+"/display"
			},
		},
		{
			// display (a leaf) writes its byte sizes, as everywhere else.
			name: "fetch imports nothing of ours but rsx/internal/inflate and rsx/display",
			from: is(module + "/fetch"),
			forbidden: func(_, imported string) bool {
				return ours(imported) && imported != module+"/internal/inflate" && imported != module+"/display"
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
		{
			// The pages are built from what the root gives them (ui/doc.go):
			// of the explorer they know the contract, the shared styles and
			// keys, the widgets, and in their tests the shared fakes.
			name: "ui/pages and its tests import of the explorer only ui/nav, ui/common, ui/components (and ui/internal/uitest), never rsx/ui",
			from: is(module + "/ui/pages"), tests: true,
			forbidden: func(_, imported string) bool {
				return imported == module+"/ui" || (strings.HasPrefix(imported, module+"/ui/") && !slices.Contains(
					[]string{module + "/ui/nav", module + "/ui/common", module + "/ui/components", module + "/ui/internal/uitest"}, imported))
			},
		},
		{
			name: "ui/nav, ui/common and ui/components import neither the root (rsx/ui) nor the pages",
			from: func(p string) bool {
				return p == module+"/ui/nav" || p == module+"/ui/common" || p == module+"/ui/components"
			},
			tests: true,
			forbidden: func(_, imported string) bool {
				return imported == module+"/ui" || imported == module+"/ui/pages"
			},
		},
		{
			name: "only tests import ui/internal/uitest (the fakes the root's and the pages' tests share)",
			from: every,
			forbidden: func(_, imported string) bool {
				return imported == module+"/ui/internal/uitest"
			},
		},
		{
			// The job layer (one way into the engine for a sync and an
			// audit of a copy) is below everything that starts one: the
			// command line, the explorer's session and the fleet.
			name: "dest/job imports none of rsx/cli, rsx/ui, rsx/session, rsx/fleet, nor its tests",
			from: is(module + "/dest/job"), tests: true,
			forbidden: func(_, imported string) bool {
				return imported == module+"/cli" || imported == module+"/session" || imported == module+"/fleet" ||
					imported == module+"/ui" || strings.HasPrefix(imported, module+"/ui/")
			},
		},
		{
			// The fleet schedules typed requests through the runner: it
			// builds no command line and prints nothing.
			name: "fleet imports none of rsx/cli, rsx/ui, rsx/session, nor its tests",
			from: is(module + "/fleet"), tests: true,
			forbidden: func(_, imported string) bool {
				return imported == module+"/cli" || imported == module+"/session" ||
					imported == module+"/ui" || strings.HasPrefix(imported, module+"/ui/")
			},
		},
		{
			// The metrics room is told of runs as values (metrics.Run, or
			// the job layer's and the engine's results): it is below what
			// starts the long-running modes (the command line, serve) and
			// knows neither the fleet nor the explorer.
			name: "metrics imports of ours only rsx/dest/job, rsx/dest/engine, rsx/dest/store, rsx/display and rsx/internal/version, nor do its tests",
			from: is(module + "/metrics"), tests: true,
			forbidden: func(_, imported string) bool {
				return ours(imported) && !slices.Contains([]string{module + "/dest/job", module + "/dest/engine", module + "/dest/store", module + "/display",
					module + "/internal/version", module + "/metrics"}, imported)
			},
		},
		{
			// Metrics are the program's business, not the domain's: the
			// engine, the job layer, the fleet and the explorer are told
			// nothing of them (the command line hands them each run).
			name: "rsx/metrics is imported by none of dest/…, fleet, session, ui",
			from: func(p string) bool {
				return strings.HasPrefix(p, module+"/dest/") || p == module+"/fleet" || p == module+"/session" ||
					p == module+"/ui" || strings.HasPrefix(p, module+"/ui/")
			},
			tests:     true,
			forbidden: func(_, imported string) bool { return imported == module+"/metrics" },
		},
		{
			// The configuration file is read, not acted on: cli applies it.
			// display and internal/suggest are leaves: the rule of what a
			// header value may hold, and the "did you mean" of a setting.
			name: "config imports nothing of ours but rsx/display and rsx/internal/suggest",
			from: is(module + "/config"),
			forbidden: func(_, imported string) bool {
				return ours(imported) && imported != module+"/display" && imported != module+"/internal/suggest"
			},
		},
		{
			// A copy republished is read from the state and the store, as a
			// Source's documents are written: no engine, no fetching, no
			// explorer or command line.
			name: "republish imports of ours only rsx/dest/state, rsx/dest/store, rsx/model and rsx/display",
			from: is(module + "/republish"),
			forbidden: func(_, imported string) bool {
				return ours(imported) && !slices.Contains([]string{module + "/dest/state", module + "/dest/store", module + "/model", module + "/display"}, imported)
			},
		},
		{
			name: "only tests import internal/s3test (the S3 server the bucket tests start)",
			from: every,
			forbidden: func(_, imported string) bool {
				return imported == module+"/internal/s3test"
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
	for _, want := range []string{module, module + "/cli", module + "/ui", module + "/ui/pages", module + "/ui/nav", module + "/ui/common",
		module + "/ui/components", module + "/ui/internal/uitest", module + "/model", module + "/fetch", module + "/internal/inflate",
		module + "/dest/job", module + "/fleet", module + "/metrics", module + "/republish"} {
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
		{2, listedPackage{ImportPath: "rsx/model", Imports: []string{"io", "rsx/fetch"}}, listedPackage{ImportPath: "rsx/model", Imports: []string{"io", "net/url", "rsx/display"}}, "rsx/model imports rsx/fetch"},
		{3, listedPackage{ImportPath: "rsx/fetch", Imports: []string{"rsx/model"}}, listedPackage{ImportPath: "rsx/fetch", Imports: []string{"net/http", "os", "rsx/internal/inflate", "rsx/display"}}, "rsx/fetch imports rsx/model"},
		{4, listedPackage{ImportPath: "rsx/memento", Imports: []string{"rsx/fetch"}}, listedPackage{ImportPath: "rsx/memento", Imports: []string{"rsx/model", "net/url"}}, "rsx/memento imports rsx/fetch"},
		{5, listedPackage{ImportPath: "rsx/ui", Imports: []string{"compress/gzip"}}, listedPackage{ImportPath: "rsx/ui", Imports: []string{"io"}, TestImports: []string{"os"}}, "rsx/ui imports compress/gzip"},
		{6, listedPackage{ImportPath: "rsx/display", Imports: []string{"rsx/model"}}, listedPackage{ImportPath: "rsx/scratch", Imports: []string{"os", "syscall"}}, "rsx/display imports rsx/model"},
		{7, listedPackage{ImportPath: "rsx/internal/inflate", TestImports: []string{"rsx/fetch"}}, listedPackage{ImportPath: "rsx/internal/inflate", Imports: []string{"compress/flate", "hash/crc32"}}, "rsx/internal/inflate (tests) imports rsx/fetch"},
		{8, listedPackage{ImportPath: "rsx/ui/pages", TestImports: []string{"rsx/ui"}}, listedPackage{ImportPath: "rsx/ui/pages", Imports: []string{"rsx/ui/nav", "rsx/ui/common", "rsx/ui/components", "rsx/session"}, TestImports: []string{"rsx/ui/internal/uitest"}}, "rsx/ui/pages (tests) imports rsx/ui"},
		{8, listedPackage{ImportPath: "rsx/ui/pages", Imports: []string{"rsx/ui/other"}}, listedPackage{ImportPath: "rsx/ui", Imports: []string{"rsx/ui/pages"}}, "rsx/ui/pages imports rsx/ui/other"},
		{9, listedPackage{ImportPath: "rsx/ui/components", Imports: []string{"rsx/ui/pages"}}, listedPackage{ImportPath: "rsx/ui/components", Imports: []string{"rsx/fetch", "rsx/display"}}, "rsx/ui/components imports rsx/ui/pages"},
		{10, listedPackage{ImportPath: "rsx/ui", Imports: []string{"rsx/ui/internal/uitest"}}, listedPackage{ImportPath: "rsx/ui", TestImports: []string{"rsx/ui/internal/uitest"}}, "rsx/ui imports rsx/ui/internal/uitest"},
		{11, listedPackage{ImportPath: "rsx/dest/job", Imports: []string{"rsx/session"}}, listedPackage{ImportPath: "rsx/dest/job", Imports: []string{"rsx/dest/engine", "rsx/fetch"}, TestImports: []string{"rsx/demo"}}, "rsx/dest/job imports rsx/session"},
		{11, listedPackage{ImportPath: "rsx/dest/job", TestImports: []string{"rsx/fleet"}}, listedPackage{ImportPath: "rsx/fleet", Imports: []string{"rsx/dest/job"}}, "rsx/dest/job (tests) imports rsx/fleet"},
		{12, listedPackage{ImportPath: "rsx/fleet", Imports: []string{"rsx/cli"}}, listedPackage{ImportPath: "rsx/fleet", Imports: []string{"rsx/dest/job", "rsx/notify"}}, "rsx/fleet imports rsx/cli"},
		{12, listedPackage{ImportPath: "rsx/fleet", XTestImports: []string{"rsx/ui/pages"}}, listedPackage{ImportPath: "rsx/session", Imports: []string{"rsx/fleet"}}, "rsx/fleet (external tests) imports rsx/ui/pages"},
		{13, listedPackage{ImportPath: "rsx/metrics", Imports: []string{"rsx/fleet"}}, listedPackage{ImportPath: "rsx/metrics", Imports: []string{"rsx/dest/job", "rsx/dest/engine", "rsx/display", "github.com/prometheus/client_golang/prometheus"}}, "rsx/metrics imports rsx/fleet"},
		{13, listedPackage{ImportPath: "rsx/metrics", TestImports: []string{"rsx/cli"}}, listedPackage{ImportPath: "rsx/cli", Imports: []string{"rsx/metrics"}}, "rsx/metrics (tests) imports rsx/cli"},
		{14, listedPackage{ImportPath: "rsx/dest/engine", Imports: []string{"rsx/metrics"}}, listedPackage{ImportPath: "rsx/cli", Imports: []string{"rsx/metrics"}}, "rsx/dest/engine imports rsx/metrics"},
		{14, listedPackage{ImportPath: "rsx/fleet", XTestImports: []string{"rsx/metrics"}}, listedPackage{ImportPath: "rsx/metrics", Imports: []string{"rsx/dest/job"}}, "rsx/fleet (external tests) imports rsx/metrics"},
		{15, listedPackage{ImportPath: "rsx/config", Imports: []string{"rsx/ui"}}, listedPackage{ImportPath: "rsx/config", Imports: []string{"os", "github.com/BurntSushi/toml", "rsx/display"}}, "rsx/config imports rsx/ui"},
		{16, listedPackage{ImportPath: "rsx/republish", Imports: []string{"rsx/dest/engine"}}, listedPackage{ImportPath: "rsx/republish", Imports: []string{"net/http", "rsx/dest/state", "rsx/dest/store", "rsx/model", "rsx/display"}}, "rsx/republish imports rsx/dest/engine"},
		{17, listedPackage{ImportPath: "rsx/dest/store", Imports: []string{"rsx/internal/s3test"}}, listedPackage{ImportPath: "rsx/dest/store", TestImports: []string{"rsx/internal/s3test"}}, "rsx/dest/store imports rsx/internal/s3test"},
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

// The folder the development machines keep beside the repository, the shared folder one level up,
// is not in a user's fresh clone: no code and no test may read it, or its
// tests would skip (or fail) there. What tests need of it is copied under
// testdata/ with its licence (testdata/conformance/README.md).
// sharedPathUses finds where a Go file names a path into it.

// besideFolder is the name of that folder, one level above the repository.
const besideFolder = "shared"

// intoBesideFolder tells whether a path, read as elements split at / or \,
// steps up (..) and then into besideFolder.
func intoBesideFolder(path string) bool {
	elems := strings.FieldsFunc(path, func(r rune) bool { return r == '/' || r == '\\' })
	for i := 1; i < len(elems); i++ {
		if elems[i-1] == ".." && elems[i] == besideFolder {
			return true
		}
	}
	return false
}

// stringConstant is the value of a string literal, or of literals joined
// with +; ok is false for anything else.
func stringConstant(e ast.Expr) (s string, ok bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.ParenExpr:
		return stringConstant(e.X)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		x, okx := stringConstant(e.X)
		y, oky := stringConstant(e.Y)
		return x + y, okx && oky
	}
	return "", false
}

// sharedPathUses returns "file:line: text" for every string constant of a Go
// source that names a path into that folder, and for every call whose
// arguments do as path elements in order (filepath.Join("..", "..",
// "shared", …)); an argument that is no constant counts as an unknown
// element. Comments are not read: they may name the folder. A source that
// does not parse is searched as text.
func sharedPathUses(name string, src []byte) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		var out []string
		for i, line := range strings.Split(string(src), "\n") {
			words := strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune("\"'`,;()[]{}+= \t", r) })
			if slices.ContainsFunc(words, intoBesideFolder) {
				out = append(out, fmt.Sprintf("%s:%d: %s", name, i+1, strings.TrimSpace(line)))
			}
		}
		return out
	}
	seen := map[token.Pos]bool{}
	var out []string
	report := func(n ast.Node, what string) {
		if !seen[n.Pos()] {
			seen[n.Pos()] = true
			out = append(out, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), what))
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			elems := make([]string, len(n.Args))
			argUses := false // an argument is reported on its own
			for i, a := range n.Args {
				if s, ok := stringConstant(a); ok {
					elems[i] = s
					argUses = argUses || intoBesideFolder(s)
				} else {
					elems[i] = "\x00" // unknown: neither .. nor the folder
				}
			}
			if joined := strings.Join(elems, "/"); !argUses && intoBesideFolder(joined) {
				report(n, strconv.Quote(strings.ReplaceAll(joined, "\x00", "…")))
			}
		case ast.Expr:
			if s, ok := stringConstant(n); ok {
				if intoBesideFolder(s) {
					report(n, strconv.Quote(s))
				}
				return false // its parts are read as a whole
			}
		}
		return true
	})
	return out
}

func TestNothingReadsBesideFolder(t *testing.T) {
	n := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir // .git and the like
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		for _, use := range sharedPathUses(path, src) {
			t.Errorf("%s: a fresh clone has no ../%s; copy what the test needs under testdata/", use, besideFolder)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("only %d Go files read: is the walk in the right place?", n)
	}
}

// The check catches the forms a path takes, and passes over comments, other
// uses of the word and other folders. The sources are written with SHARED so
// that this file does not break the rule itself.
func TestNothingReadsBesideFolderCatch(t *testing.T) {
	for _, tc := range []struct {
		src  string
		uses int
	}{
		{`const dir = "../../SHARED/conformance"`, 1},
		{`var p = filepath.Join("..", "..", "SHARED", "conformance", name)`, 1},
		{`var p = filepath.Join(root, "..", "SHARED")`, 1},
		{"var p = `..\\SHARED\\x`", 1},
		{`var p = ".." + "/SHARED/x.zip"`, 1},
		{`func f() { os.ReadFile("../SHARED") }`, 1},
		{`var a, b = "../SHARED/a", "../SHARED/b"`, 2},
		{`const broken = "../SHARED/x" +`, 1}, // does not parse: read as text
		{`// Tests once read ../SHARED/conformance.
var p = "testdata/conformance"`, 0},
		{`var rule = "notification-channels-SHARED"`, 0},
		{`var p = filepath.Join("..", "testdata", "SHARED")`, 0},
		{`var p = "SHARED/conformance"`, 0},
		{`var p = filepath.Join(dir, "SHARED")`, 0},
		{`var n = strings.Count(s, "..") + len("SHARED")`, 0},
	} {
		src := "package p\n\n" + strings.ReplaceAll(tc.src, "SHARED", besideFolder) + "\n"
		if got := sharedPathUses("x.go", []byte(src)); len(got) != tc.uses {
			t.Errorf("%s: %d uses found, want %d: %q", tc.src, len(got), tc.uses, got)
		}
	}
}
