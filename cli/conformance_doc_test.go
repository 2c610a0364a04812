package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"rsx/crawl"
	"rsx/model"
)

// TestConformanceDocTracesRules: docs/conformance.md names only rules that
// exist, and every rule of the standard and the Notification draft (those of
// the Archives specification, sections "AR…", are traced in model/rules.go)
// appears in it, so that the table cannot drift from the catalogues.
func TestConformanceDocTracesRules(t *testing.T) {
	doc, err := os.ReadFile("../docs/conformance.md")
	if err != nil {
		t.Fatal(err)
	}
	rules := append(append(model.Rules(), crawl.Rules()...), model.NotificationRules()...)
	known := map[string]model.Rule{}
	for _, r := range rules {
		known[r.ID] = r
	}
	named := map[string]bool{}
	idRe := regexp.MustCompile("`([a-z0-9]+(?:-[a-z0-9]+)+)`")
	for _, m := range idRe.FindAllStringSubmatch(string(doc), -1) {
		named[m[1]] = true
		if _, ok := known[m[1]]; !ok {
			t.Errorf("docs/conformance.md names %q, which is no rule", m[1])
		}
	}
	for _, r := range rules {
		if !named[r.ID] && !strings.HasPrefix(r.Section, "AR") {
			t.Errorf("rule %s (§%s) is not traced in docs/conformance.md", r.ID, r.Section)
		}
	}
}
