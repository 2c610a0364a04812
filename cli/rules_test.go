package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"rsx/crawl"
	"rsx/model"
)

// TestRulesListEveryRule: validate --rules lists, once each, every rule
// that can be reported: the Checker's (the archives' among them), the
// Notification draft's (rsx watch, the explorer's notifications) and the
// cross-document ones (--recursive). model's registries hold every rule its
// checks can report (model.TestEveryRuleReportedIsCatalogued), so a rule
// added there and left out of the list fails here.
func TestRulesListEveryRule(t *testing.T) {
	code, out, errs := runCmd(t, "validate", "--rules", "--json")
	var listed []struct {
		ID, Severity, Section, Summary string
	}
	if err := json.Unmarshal([]byte(out), &listed); err != nil || code != exitOK {
		t.Fatalf("exit %d, %v\n%s%s", code, err, out, errs)
	}
	byID := map[string]int{}
	for _, r := range listed {
		byID[r.ID]++
	}
	for _, set := range []struct {
		name  string
		rules []model.Rule
	}{{"model.Rules", model.Rules()}, {"model.NotificationRules", model.NotificationRules()}, {"crawl.Rules", crawl.Rules()}} {
		for _, r := range set.rules {
			if byID[r.ID] != 1 {
				t.Errorf("%s: %q is listed %d times by --rules", set.name, r.ID, byID[r.ID])
			}
		}
	}
	want := len(model.Rules()) + len(model.NotificationRules()) + len(crawl.Rules())
	if len(listed) != want {
		t.Errorf("--rules lists %d rules, want %d", len(listed), want)
	}
	// The text form lists the same IDs.
	_, text, _ := runCmd(t, "validate", "--rules")
	for _, id := range []string{model.RuleNotificationOrder, model.RuleFrameworkIndexLinkMalformed, crawl.RuleArchivesLinkCapability, "archive-entry-at-missing"} {
		if !slices.ContainsFunc(strings.Split(text, "\n"), func(l string) bool { return strings.HasPrefix(l, id+" ") }) {
			t.Errorf("the text of --rules lacks %s", id)
		}
	}
}
