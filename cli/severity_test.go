package cli

import (
	"encoding/json"
	"strings"
	"testing"
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
