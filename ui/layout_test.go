package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"rsx/ui/nav"
)

// rootType is the root model, whose methods live in the app*.go files.
const rootType = "App"

// methodsOf returns the methods declared in f.
func methodsOf(f *ast.File) []*ast.FuncDecl {
	var out []*ast.FuncDecl
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && len(fd.Recv.List) > 0 {
			out = append(out, fd)
		}
	}
	return out
}

// receiver is the name of a method's receiver type, pointer or not ("" for
// a generic one).
func receiver(fd *ast.FuncDecl) string {
	t := fd.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// misplacedRootMethods returns "file: App.method" for every method of the
// root model declared in a file not named app*.go, so that a newcomer finds
// the root's code in the app files and a page's file holds only its page.
func misplacedRootMethods(fset *token.FileSet, files map[string]*ast.File) []string {
	var out []string
	for name, f := range files {
		if strings.HasPrefix(filepath.Base(name), "app") {
			continue
		}
		for _, fd := range methodsOf(f) {
			if receiver(fd) == rootType {
				out = append(out, fset.Position(fd.Pos()).String()+": "+rootType+"."+fd.Name.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// parseDir parses the package's Go files, its tests left out when tests is
// false.
func parseDir(t *testing.T, tests bool) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	for _, name := range names {
		if !tests && strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
	}
	if len(files) == 0 {
		t.Fatal("no Go files found in the package directory")
	}
	return fset, files
}

// pageTypes returns the types declared with every method of nav.Page (by
// name) in files: the pages of the package.
func pageTypes(files map[string]*ast.File) []string {
	page := reflect.TypeFor[nav.Page]()
	methods := map[string]map[string]bool{} // by receiver type
	for _, f := range files {
		for _, fd := range methodsOf(f) {
			typ := receiver(fd)
			if methods[typ] == nil {
				methods[typ] = map[string]bool{}
			}
			methods[typ][fd.Name.Name] = true
		}
	}
	var out []string
	for typ, ms := range methods {
		all := true
		for i := range page.NumMethod() {
			all = all && ms[page.Method(i).Name]
		}
		if all {
			out = append(out, typ)
		}
	}
	slices.Sort(out)
	return out
}

// TestOnlyTheDocumentPageHere: every page but the document's is in
// rsx/ui/pages (doc.go, "The page still here"), built from what the root
// gives it; a new one belongs there too.
func TestOnlyTheDocumentPageHere(t *testing.T) {
	_, files := parseDir(t, false)
	if got := pageTypes(files); !slices.Equal(got, []string{"docPage"}) {
		t.Errorf("the pages of rsx/ui are %q: only the document page (docPage) stays here, the others belong in rsx/ui/pages", got)
	}
}

// TestPageTypesFindsThem checks the check: a type with every method of
// nav.Page is a page, pointer receiver or not; one that lacks a method is
// not.
func TestPageTypesFindsThem(t *testing.T) {
	page := reflect.TypeFor[nav.Page]()
	var all, allButClose strings.Builder
	for i := range page.NumMethod() {
		name := page.Method(i).Name
		all.WriteString("func (p *xPage) " + name + "() {}\n")
		if name != "Close" {
			allButClose.WriteString("func (p yPage) " + name + "() {}\n")
		}
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "page_x.go", "package ui\n"+all.String()+allButClose.String(), parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	if got := pageTypes(map[string]*ast.File{"page_x.go": f}); !slices.Equal(got, []string{"xPage"}) {
		t.Errorf("pages %q, want [xPage]", got)
	}
}

// TestAppMethodsInAppFiles keeps the root model's methods in the app*.go
// files (doc.go, "Shape").
func TestAppMethodsInAppFiles(t *testing.T) {
	fset, files := parseDir(t, true)
	for _, m := range misplacedRootMethods(fset, files) {
		t.Errorf("%s: a method of the root model belongs in an app*.go file (app_<concern>.go)", m)
	}
}

// TestMisplacedRootMethodsFindsThem checks the check: a method of App in a
// page's file is reported, whether its receiver is a pointer or not; one in
// an app file, a page's own method and a function are not.
func TestMisplacedRootMethodsFindsThem(t *testing.T) {
	tests := []struct {
		file, src string
		want      []string
	}{
		{"page_x.go", "package ui\nfunc (a *App) openX() {}", []string{"page_x.go:2:1: App.openX"}},
		{"page_x.go", "package ui\nfunc (a App) width() int { return 0 }", []string{"page_x.go:2:1: App.width"}},
		{"app_x.go", "package ui\nfunc (a *App) openX() {}", nil},
		{"page_x.go", "package ui\nfunc (p *xPage) View() string { return \"\" }\nfunc openX(a *App) {}", nil},
	}
	for _, tt := range tests {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, tt.file, tt.src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		got := misplacedRootMethods(fset, map[string]*ast.File{tt.file: f})
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s %q: got %q, want %q", tt.file, tt.src, got, tt.want)
		}
	}
}
