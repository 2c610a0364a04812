package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rootType is the root model, whose methods live in the app*.go files.
const rootType = "App"

// misplacedRootMethods returns "file: App.method" for every method of the
// root model declared in a file not named app*.go, so that a newcomer finds
// the root's code in the app files and a page's file holds only its page.
func misplacedRootMethods(fset *token.FileSet, files map[string]*ast.File) []string {
	var out []string
	for name, f := range files {
		if strings.HasPrefix(filepath.Base(name), "app") {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) == 0 {
				continue
			}
			t := fd.Recv.List[0].Type
			if star, ok := t.(*ast.StarExpr); ok {
				t = star.X
			}
			if id, ok := t.(*ast.Ident); ok && id.Name == rootType {
				out = append(out, fset.Position(fd.Pos()).String()+": "+rootType+"."+fd.Name.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestAppMethodsInAppFiles keeps the root model's methods in the app*.go
// files (doc.go, "Shape").
func TestAppMethodsInAppFiles(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	for _, name := range names {
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
