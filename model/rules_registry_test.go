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
	for i := ruleID(0); i < numRules; i++ {
		check("ruleID", ruleInfo(i))
	}
	for i := notificationRuleID(0); i < numNotificationRules; i++ {
		check("notificationRuleID", notificationRuleInfo(i))
	}
	if n := len(Rules()) + len(NotificationRules()); n != len(seen) {
		t.Errorf("Rules() and NotificationRules() list %d rules, the registries hold %d", n, len(seen))
	}
}

// TestProblemsTakeTheirRuleFromARegistry keeps every Problem that model
// builds tied to a catalogued rule: its Rule field is the ID of a Rule value
// (ruleInfo(id).ID, notificationRuleInfo(id).ID), never a string written
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
