package model

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryRuleReportedIsCatalogued: the checks name the rules they report
// by registry constants (ruleID for the Checker, notificationRuleID for the
// Notification draft), so the rules that can be reported are those of the
// two registries. Each of them must be complete, distinct from every other,
// and found by RuleByID, which the catalogue (rsx validate --rules) and the
// explorer's problems page read.
func TestEveryRuleReportedIsCatalogued(t *testing.T) {
	seen := map[string]string{}
	check := func(registry string, r Rule) {
		t.Helper()
		switch {
		case r.ID == "" || r.Section == "" || r.Summary == "":
			t.Errorf("%s: incomplete rule %+v", registry, r)
		case seen[r.ID] != "":
			t.Errorf("%s: rule %q is also in %s", registry, r.ID, seen[r.ID])
		}
		seen[r.ID] = registry
		if got, ok := RuleByID(r.ID); !ok || got.ID != r.ID || got.Severity != r.Severity || got.Section != r.Section {
			t.Errorf("%s: RuleByID(%q) = %+v, %v", registry, r.ID, got, ok)
		}
	}
	for _, r := range ruleTable {
		check("ruleID", r)
	}
	for _, r := range notificationRuleTable {
		check("notificationRuleID", r)
	}
	if n := len(Rules()) + len(NotificationRules()); n != len(seen) {
		t.Errorf("Rules() and NotificationRules() list %d rules, the registries hold %d", n, len(seen))
	}
}

// TestProblemsTakeTheirRuleFromARegistry keeps every Problem that model
// builds tied to a catalogued rule: its Rule field is the ID of a Rule value
// (ruleTable[id].ID, notificationRuleTable[id].ID), never a string written
// in place, which could name a rule the catalogue lacks. It reads the
// package's syntax tree (not its text), so comments and strings do not
// count.
func TestProblemsTakeTheirRuleFromARegistry(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	literals := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if id, ok := lit.Type.(*ast.Ident); !ok || id.Name != "Problem" {
				return true
			}
			literals++
			for _, el := range lit.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					t.Errorf("%s: a Problem literal without field names", fset.Position(lit.Pos()))
					continue
				}
				if k, ok := kv.Key.(*ast.Ident); !ok || k.Name != "Rule" {
					continue
				}
				if sel, ok := kv.Value.(*ast.SelectorExpr); !ok || sel.Sel.Name != "ID" {
					t.Errorf("%s: a Problem's Rule is not the ID of a catalogued Rule", fset.Position(kv.Pos()))
				}
			}
			return true
		})
	}
	if literals == 0 {
		t.Fatal("no Problem literal found: the test reads the wrong files")
	}
}

// TestRuleTableHasOneRowPerRuleID: each registry is a table indexed by its
// ID constants. The compiler already rejects two rows keyed by one constant
// in an array literal; this reads the syntax tree so that a row that is
// missing, keyed twice, or keyed by something other than a constant of the
// registry is named, whatever the table's type becomes, and checks that no
// row is left empty.
func TestRuleTableHasOneRowPerRuleID(t *testing.T) {
	for _, reg := range []struct {
		file, idType, count, table string
		rows                       []Rule
	}{
		{"rules.go", "ruleID", "numRules", "ruleTable", ruleTable[:]},
		{"notification.go", "notificationRuleID", "numNotificationRules", "notificationRuleTable", notificationRuleTable[:]},
	} {
		t.Run(reg.table, func(t *testing.T) {
			file, err := parser.ParseFile(token.NewFileSet(), reg.file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			consts := registryConstants(file, reg.idType, reg.count)
			if len(consts) == 0 {
				t.Fatalf("no constant of type %s in %s", reg.idType, reg.file)
			}
			lit := tableLiteral(file, reg.table)
			if lit == nil {
				t.Fatalf("no composite literal %s in %s", reg.table, reg.file)
			}
			keyed := map[string]int{}
			for _, el := range lit.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					t.Errorf("a row of %s without its %s key", reg.table, reg.idType)
					continue
				}
				k, ok := kv.Key.(*ast.Ident)
				if !ok || !consts[k.Name] {
					t.Errorf("a row of %s keyed by %s, not a constant of type %s", reg.table, exprName(kv.Key), reg.idType)
					continue
				}
				keyed[k.Name]++
			}
			for c := range consts {
				if keyed[c] != 1 {
					t.Errorf("%s has %d rows for %s, want 1", reg.table, keyed[c], c)
				}
			}
			if len(reg.rows) != len(consts) {
				t.Errorf("%s has %d rows, %s counts %d", reg.table, len(reg.rows), reg.count, len(consts))
			}
			for i, r := range reg.rows {
				if r.ID == "" || r.Section == "" || r.Summary == "" {
					t.Errorf("%s row %d is incomplete: %+v", reg.table, i, r)
				}
			}
		})
	}
}

// registryConstants names the constants of type idType declared in file
// (in a const block whose first constant has that type), count excepted.
func registryConstants(file *ast.File, idType, count string) map[string]bool {
	out := map[string]bool{}
	for _, decl := range file.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST || len(gd.Specs) == 0 {
			continue
		}
		first := gd.Specs[0].(*ast.ValueSpec)
		if id, ok := first.Type.(*ast.Ident); !ok || id.Name != idType {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if vs.Type != nil && exprName(vs.Type) != idType {
				continue
			}
			for _, n := range vs.Names {
				if n.Name != count && n.Name != "_" {
					out[n.Name] = true
				}
			}
		}
	}
	return out
}

// tableLiteral is the composite literal assigned to the package variable name.
func tableLiteral(file *ast.File, name string) *ast.CompositeLit {
	for _, decl := range file.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if n.Name == name && i < len(vs.Values) {
					lit, _ := vs.Values[i].(*ast.CompositeLit)
					return lit
				}
			}
		}
	}
	return nil
}

// exprName prints a short expression (an identifier or a selector) for a message.
func exprName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprName(e.X) + "." + e.Sel.Name
	}
	return "an expression"
}
