package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"rsx/crawl"
)

func isPackageRule(rule string) bool {
	switch rule {
	case crawl.RuleContentsManifestMismatch, crawl.RuleContentsManifestUnreadable, crawl.RulePackageDeclaredMismatch:
		return true
	}
	return false
}

func TestValidateRecursivePackagesDemo(t *testing.T) {
	base := startDemo(t, false)
	code, out, errs := validateRun(t, "", "validate", "--recursive", "--packages", "--json", base+"/.well-known/resourcesync")
	v := decodeValidateJSON(t, out)
	if code != exitOK || *v.Errors != 0 {
		t.Errorf("exit %d, %d errors, stderr %s", code, *v.Errors, errs)
	}
	dumps := 0
	for _, d := range v.Documents {
		if *d.Capability == "resourcedump" || *d.Capability == "changedump" {
			dumps++
		}
		for _, p := range d.Problems {
			if isPackageRule(p.Rule) || p.Severity == "error" {
				t.Errorf("%s: %s %s", *d.URL, p.Rule, p.Message)
			}
		}
	}
	if dumps == 0 {
		t.Errorf("no dump documents reached:\n%s", out)
	}
}

func TestValidateRecursivePackagesBrokenDemo(t *testing.T) {
	base := startDemo(t, true)
	code, out, _ := validateRun(t, "", "validate", "--recursive", "--packages", "--json", base+"/.well-known/resourcesync")
	v := decodeValidateJSON(t, out)
	if code != exitFound {
		t.Errorf("exit %d, want %d", code, exitFound)
	}
	found := 0
	for _, d := range v.Documents {
		for _, p := range d.Problems {
			if !isPackageRule(p.Rule) {
				continue
			}
			t.Logf("%s: %s %s §%s %s", *d.URL, p.Severity, p.Rule, p.Section, p.Message)
			if p.Rule != crawl.RuleContentsManifestMismatch || *d.Capability != "resourcedump" ||
				!strings.Contains(*d.URL, "/dataset1/") || !strings.Contains(p.Message, "part-0002") ||
				p.Severity != "error" || p.Section != "11.1" || string(p.Entry) == "null" {
				t.Errorf("unexpected package problem on %s: %+v", *d.URL, p)
				continue
			}
			found++
		}
	}
	if found != 1 {
		t.Errorf("%d contents-manifest-mismatch problems, want 1", found)
	}
	// Without --packages nothing is downloaded and no such problem is reported.
	_, out, _ = validateRun(t, "", "validate", "--recursive", "--json", base+"/.well-known/resourcesync")
	for _, d := range decodeValidateJSON(t, out).Documents {
		for _, p := range d.Problems {
			if isPackageRule(p.Rule) {
				t.Errorf("without --packages: %s %s", *d.URL, p.Rule)
			}
		}
	}
}

func TestValidatePackagesNeedsRecursive(t *testing.T) {
	if code, _, errs := validateRun(t, "", "validate", "--packages", validateValidDir+"/resourcesync_ex_20.xml"); code != exitFailure || !strings.Contains(errs, "--recursive") {
		t.Errorf("exit %d, %s", code, errs)
	}
}

func TestTreePackagesBrokenDemo(t *testing.T) {
	base := startDemo(t, true)
	_, plain, _ := runCmd(t, "tree", "--json", base+"/.well-known/resourcesync")
	code, withPackages, errs := runCmd(t, "tree", "--packages", "--json", base+"/.well-known/resourcesync")
	if code != exitFound {
		t.Errorf("exit %d: %s", code, errs)
	}
	// The dump document of dataset 1 counts one error more with --packages.
	before, after := dumpErrors(t, plain), dumpErrors(t, withPackages)
	if after != before+1 {
		t.Errorf("dataset 1 Resource Dump: %d errors without --packages, %d with", before, after)
	}
	_, help, _ := runCmd(t, "tree", "--help")
	if !strings.Contains(help, "downloads every package that has a contents link") {
		t.Errorf("tree --help does not say what --packages costs")
	}
	_, help, _ = runCmd(t, "validate", "--help")
	if !strings.Contains(help, "downloads every package that has a contents link") {
		t.Errorf("validate --help does not say what --packages costs")
	}
}

// dumpErrors finds dataset 1's Resource Dump in a tree --json document and
// returns its error count.
func dumpErrors(t *testing.T, treeJSON string) int {
	t.Helper()
	var root jsonTreeNode
	if err := json.Unmarshal([]byte(treeJSON), &root); err != nil {
		t.Fatalf("%v\n%s", err, treeJSON)
	}
	n := -1
	var walk func(j *jsonTreeNode)
	walk = func(j *jsonTreeNode) {
		if j.Capability == "resourcedump" && !j.Index && strings.Contains(j.URL, "/dataset1/") && !j.Repeat {
			n = j.Errors
		}
		for _, c := range j.Children {
			walk(c)
		}
	}
	walk(&root)
	if n < 0 {
		t.Fatalf("no dataset 1 Resource Dump in the tree")
	}
	return n
}
