package version

import (
	"strings"
	"testing"
)

// The version is Version as the linker set it, and the program's name is
// "rsx " before it; a build that sets it empty still names a version.
func TestVersion(t *testing.T) {
	if String() != Version || Program() != "rsx "+Version {
		t.Errorf("String %q, Program %q, Version %q", String(), Program(), Version)
	}
	t.Cleanup(func(v string) func() { return func() { Version = v } }(Version))
	Version = ""
	if s := String(); s == "" || strings.ContainsAny(s, " ()") {
		t.Errorf("with Version empty: %q", s)
	}
}
