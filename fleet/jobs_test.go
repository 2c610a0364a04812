package fleet

import (
	"slices"
	"strings"
	"testing"

	"rsx/dest/engine"
	"rsx/dest/job"
	"rsx/dest/state"
)

// Every setting of the file becomes the typed request: the Source's own,
// then the file's, then the command line's (whose repeated include and
// exclude the file's add to).
func TestJobs(t *testing.T) {
	f, err := Read(writeFile(t, `rate = 1.5
delete = true
mode = "baseline"
[[source]]
name = "a"
url = "http://A.example/c"
concurrency = 2
include = ["x"]
checksum = true
allow_other_hosts = true
[[source]]
url = "http://b.example/c"
dest = "/b"
delete = false
rate = 0.0
mode = "incremental"
exclude = ["y"]
every = "2h"
`))
	if err != nil {
		t.Fatal(err)
	}
	rate := 9.0
	base := Base{Dest: "/d", Sync: job.SyncRequest{Selection: &state.Selection{Include: []string{"cmd"}}, DryRun: true, Limits: job.Limits{Rate: &rate}}}
	jobs, err := Jobs(f, CommandSync, base)
	if err != nil || len(jobs) != 2 {
		t.Fatalf("%+v %v", jobs, err)
	}
	a, b := jobs[0].Sync, jobs[1].Sync
	if a.Target != "http://A.example/c" || a.Dest != "/d" || !a.Delete || !a.Checksum || !a.AllowOtherHosts || !a.DryRun ||
		a.Mode != engine.ModeBaseline || *a.Limits.Rate != 1.5 || *a.Limits.Concurrency != 2 ||
		!slices.Equal(a.Selection.Include, []string{"cmd", "x"}) || jobs[0].Host != "a.example" || jobs[0].Name() != "a" {
		t.Errorf("a: %+v %+v", jobs[0], a.Selection)
	}
	if b.Dest != "/b" || b.Delete || b.Mode != engine.ModeIncremental || *b.Limits.Rate != 0 || b.Limits.Concurrency != nil ||
		!slices.Equal(b.Selection.Exclude, []string{"y"}) || !slices.Equal(b.Selection.Include, []string{"cmd"}) || jobs[1].Every.Hours() != 2 {
		t.Errorf("b: %+v %+v", jobs[1], b.Selection)
	}
	// The base's selection is not shared between the Sources' requests.
	if base.Sync.Selection.Include[0] != "cmd" || len(base.Sync.Selection.Include) != 1 {
		t.Errorf("the base changed: %+v", base.Sync.Selection)
	}
	// Each request names the other Sources' Capability Lists.
	if !slices.Equal(a.OtherSources, []string{"http://b.example/c"}) || !slices.Equal(b.OtherSources, []string{"http://A.example/c"}) {
		t.Errorf("other Sources: %q %q", a.OtherSources, b.OtherSources)
	}
	// An audit takes allow_other_hosts and the limits.
	audits, err := Jobs(f, CommandAudit, Base{Dest: "/d", Audit: job.AuditRequest{Keep: 5}})
	if err != nil || !audits[0].Audit.AllowOtherHosts || audits[0].Audit.Keep != 5 || *audits[0].Audit.Limits.Concurrency != 2 || audits[1].Audit.Dest != "/b" {
		t.Errorf("audits: %+v %v", audits, err)
	}
	// An audit names the other Sources too, and a sync's do not leak into it.
	if err == nil && (!slices.Equal(audits[0].Audit.OtherSources, []string{"http://b.example/c"}) || audits[0].Sync.OtherSources != nil) {
		t.Errorf("an audit's other Sources: %q (sync %q)", audits[0].Audit.OtherSources, audits[0].Sync.OtherSources)
	}
	// Without a destination anywhere.
	if _, err := Jobs(f, CommandSync, Base{}); err == nil || !strings.Contains(err.Error(), "no destination") {
		t.Errorf("no dest: %v", err)
	}
	// The command line's --dest written out in the file too: one DEST.
	f2, err := Read(writeFile(t, "[[source]]\nurl = \"http://x/\"\n[[source]]\nurl = \"http://x/\"\ndest = \"/d/\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Jobs(f2, CommandSync, Base{Dest: "/d"}); err == nil || !strings.Contains(err.Error(), "listed twice") {
		t.Errorf("a duplicate once --dest applies: %v", err)
	}
}
