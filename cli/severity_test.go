package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"rsx/crawl"
	"rsx/model"
)

// TestCleanDemoValidatesWithoutWarnings: the demo Source, which advertises
// the Notification draft's channels in its Capability Lists, is valid with
// no warning: the standard lets other specifications define capabilities.
func TestCleanDemoValidatesWithoutWarnings(t *testing.T) {
	base := startDemo(t, false)
	code, out, errs := runCmd(t, "validate", "--recursive", "--json", base+"/.well-known/resourcesync")
	var r recursiveJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if code != exitOK || r.Errors != 0 || r.Warnings != 0 {
		t.Errorf("exit %d, %d errors, %d warnings\n%s%s", code, r.Errors, r.Warnings, out, errs)
	}
	// With --hints, the draft's capabilities show, as hints.
	_, out, _ = runCmd(t, "validate", "--recursive", "--hints", base+"/.well-known/resourcesync")
	if !strings.Contains(out, "hint    ") || !strings.Contains(out, "capability-draft") || !strings.Contains(out, "0 warnings") {
		t.Errorf("--hints:\n%s", out)
	}
}

// TestRulesCiteTheSpec: --rules shows, under each warning, the sentence of
// the standard it rests on.
func TestRulesCiteTheSpec(t *testing.T) {
	_, out, _ := runCmd(t, "validate", "--rules")
	for _, want := range []string{
		`Sources should not generate such structures.`,
		`changelist-no-datetime`, `"The Source can make it easier`,
		`must be registered in the IANA Link Relation Type Registry`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--rules lacks %q", want)
		}
	}
	_, out, _ = runCmd(t, "validate", "--rules", "--json")
	var rules []struct{ ID, Severity, Basis string }
	if err := json.Unmarshal([]byte(out), &rules); err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if r.Severity != "error" && r.Basis == "" {
			t.Errorf("%s (%s) has no basis", r.ID, r.Severity)
		}
	}
}

// severityClass is a class of the severity policy (docs/conformance.md,
// model/rules.go): the kind of sentence, or of fact, a rule rests on.
type severityClass string

// The classes, and the severity each gives.
var severityOfClass = map[severityClass]model.Severity{
	"must":         model.SeverityError,   // "must", "must not", "mandatory", "required"
	"value":        model.SeverityError,   // a value (or a document) that cannot be what it says it is
	"limit":        model.SeverityError,   // the Sitemap limits of section 7
	"table4":       model.SeverityError,   // a use Appendix A's normative Table 4 does not give
	"disagreement": model.SeverityError,   // two documents disagree about what one of them is
	"unreachable":  model.SeverityError,   // a listed document that cannot be had
	"should":       model.SeverityWarning, // "should", "should not", "recommended"
	"restriction":  model.SeverityWarning, // a restriction or statement worded without "must"
	"form":         model.SeverityWarning, // a statement of form the standard's examples do not keep
	"draft":        model.SeverityWarning, // a statement of the Notification draft, not a "must"
	"moved":        model.SeverityWarning, // values that may have moved on between two fetches
	"unconsulted":  model.SeverityWarning, // the Archives text, whose normative wording rsx could not consult in full
	"free":         model.SeverityHint,    // what the standard leaves free ("may") or does not address
	"unkept":       model.SeverityHint,    // a recommendation the standard's own walkthrough examples do not keep
}

// ruleClasses pins every rule to its class. A rule added without a class,
// or whose severity is not its class's, fails TestEveryRuleFollowsTheSeverityPolicy.
var ruleClasses = map[severityClass][]string{
	"must": {"md-missing", "capability-missing", "md-at-missing", "md-from-missing", "up-link-missing",
		"capabilitylist-up-link", "attribute-prefixed", "attribute-unqualified", "legacy-draft", "loc-missing",
		"changelistindex-until-required", "md-datetime-in-interval", "changelist-order", "changedump-manifest-order",
		"changelistindex-order", "change-missing", "path-missing", "capabilitylist-duplicate",
		"capabilitylist-entry-capability", "description-entry-capability", "length-invalid", "link-rel-missing",
		"link-href-missing", "patch-link-type", "patch-link-path", "link-rel-unregistered",
		"change-index-order", "change-index-open-not-last", "index-entry-until", "source-description-unreached",
		"discovery-link-coverage", "contents-manifest-mismatch", "package-manifest-capability",
		"notification-root", "notification-up-link", "framework-capability-missing", "framework-capability-invalid",
		"framework-change-missing", "framework-index-link", "framework-index-level", "framework-index-link-missing"},
	"value": {"xml-malformed", "root-not-sitemap", "root-namespace", "root-capability-mismatch", "md-repeated",
		"capability-unknown", "completed-before-at", "until-before-from", "element-unexpected", "loc-empty",
		"loc-repeated", "loc-not-absolute", "loc-invalid-char", "change-invalid", "path-not-absolute", "path-unsafe",
		"path-duplicate", "capabilitylist-entry-invalid", "hash-syntax", "hash-length", "datetime-invalid",
		"lastmod-invalid", "changefreq-invalid", "link-href-not-absolute", "link-href-invalid-char", "link-pri",
		"type-invalid", "document-declared-mismatch", "package-declared-mismatch"},
	"limit":  {"entries-too-many", "document-too-large"},
	"table4": {"md-time-not-used", "entry-time-not-used"},
	"disagreement": {"index-child-capability", "index-child-index", "up-link-parent", "capabilitylist-up-description",
		"index-link-parent", "capability-declared", "description-entry-not-capabilitylist", "archive-child-capability",
		"archives-link-capability"},
	"unreachable": {"child-unreachable", "child-unreadable", "contents-manifest-unreadable"},
	"should": {"capabilitylist-index", "describedby-recommended", "loc-duplicate", "entry-from-recommended",
		"changedump-order", "datetime-format-recommended", "timegate-link-attributes", "dump-mixed-formats",
		"alternate-link-type", "description-entry-describedby", "dump-package-format", "changedump-manifest-type",
		"duplicate-link-attributes", "via-link-repeated", "changedump-entry-type-length", "index-link-recommended",
		"changedump-index-order", "source-description-not-well-known", "capabilitylist-not-listed"},
	"restriction": {"path-unexpected", "patch-link-context", "attribute-unexpected", "discovery-link-target", "type-unregistered"},
	"form":        {"hash-not-hex", "hash-base64"},
	"draft": {"notification-channels-shared", "notification-up-mismatch", "notification-empty", "notification-order",
		"framework-capability-unknown", "framework-change-type"},
	"moved":       {"index-entry-at", "index-entry-interval", "package-entry-times", "archive-entry-at", "archive-entry-interval"},
	"unconsulted": {"archive-entry-at-missing", "archive-entry-from-missing"},
	"free": {"capability-draft", "md-time-unexpected", "up-link-repeated", "loc-whitespace", "index-interval-outside",
		"change-unexpected", "datetime-unexpected", "changelist-no-datetime", "entry-capability-unknown",
		"entry-capability-unexpected", "hash-algorithm-unknown", "hash-repeated", "lastmod-after-snapshot",
		"memento-link-modified", "link-attribute-unexpected", "change-index-gap", "change-index-overlap"},
	"unkept": {"dump-entry-type-length", "manifest-type-recommended"},
}

// severityDisagreements are the rules whose severity is known not to be
// their class's, each with the reason it stays: the list the severity
// policy still owes.
var severityDisagreements = map[string]string{}

// TestEveryRuleFollowsTheSeverityPolicy: every rule rsx can report (the
// checker's, the Notification draft's, the cross-document ones) is in one
// class of the severity policy, and has the severity of that class.
func TestEveryRuleFollowsTheSeverityPolicy(t *testing.T) {
	classOf := map[string]severityClass{}
	for class, ids := range ruleClasses {
		if _, ok := severityOfClass[class]; !ok {
			t.Errorf("class %q has no severity", class)
		}
		for _, id := range ids {
			if prev, ok := classOf[id]; ok {
				t.Errorf("%s is in two classes, %s and %s", id, prev, class)
			}
			classOf[id] = class
		}
	}
	all := append(append(model.Rules(), model.NotificationRules()...), crawl.Rules()...)
	seen := map[string]bool{}
	for _, r := range all {
		seen[r.ID] = true
		class, ok := classOf[r.ID]
		if !ok {
			t.Errorf("%s (%s) has no class of the severity policy: add it to ruleClasses", r.ID, r.Severity)
			continue
		}
		want := severityOfClass[class]
		if why, known := severityDisagreements[r.ID]; known {
			if r.Severity == want {
				t.Errorf("%s is a %s as its class %q says: remove it from severityDisagreements", r.ID, r.Severity, class)
			}
			t.Logf("%s: %s", r.ID, why)
			continue
		}
		if r.Severity != want {
			t.Errorf("%s is a %s, but its class %q makes it a %s", r.ID, r.Severity, class, want)
		}
	}
	for id := range classOf {
		if !seen[id] {
			t.Errorf("ruleClasses names %s, which is no rule", id)
		}
	}
}
