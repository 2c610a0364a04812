package cli

import (
	"fmt"
	"strings"
	"testing"
)

// TestIncludeDryRunCountsEachExcludedOnce: over a copy of the whole Source,
// a dry run with a new --include counts every resource it leaves out once:
// excluded and unchanged add up to the Source's resources, as the audit of
// the copy counts them (it said "2817 excluded" for 2,012 resources: a
// resource listed by the Source and held by the state was counted twice,
// and one changed several times once per change).
func TestIncludeDryRunCountsEachExcludedOnce(t *testing.T) {
	base := startDemo(t, false)
	dest := t.TempDir()
	cap := base + "/dataset1/capabilitylist.xml"
	if code, out, errs := runCmd(t, "sync", "--dest", dest, cap); code != 0 {
		t.Fatalf("baseline: exit %d\n%s\n%s", code, out, errs)
	}
	// Changes, several to some resources, then the copy catches up.
	advanceDemo(t, base, "12")
	if code, out, errs := runCmd(t, "sync", "--dest", dest, "--delete", cap); code != 0 {
		t.Fatalf("incremental: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ := runCmd(t, "audit", "--dest", dest, "--json", cap)
	a := decodeOneJSON[destAuditOut](t, out, "audit --dest")
	if code != 0 || !*a.InSync {
		t.Fatalf("the copy is not in sync: exit %d\n%s", code, out)
	}
	resources := *a.Same
	const include = `/00\d*[02468]\.` // the even-numbered resources

	code, out, errs := runCmd(t, "sync", "--dest", dest, "--dry-run", "--json", "--include", include, cap)
	o := decodeOneJSON[syncOut](t, out, "sync")
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, out, errs)
	}
	if got := *o.Created + *o.Updated + *o.Unchanged + o.Excluded; got != resources || o.Excluded == 0 || o.Excluded >= resources {
		t.Errorf("dry run: %d created, %d updated, %d unchanged, %d excluded: %d in all, want the Source's %d resources",
			*o.Created, *o.Updated, *o.Unchanged, o.Excluded, got, resources)
	}
	// The same in words.
	code, out, _ = runCmd(t, "sync", "--dest", dest, "--dry-run", "--include", include, cap)
	if want := fmt.Sprintf("%d excluded", o.Excluded); code != 0 || !strings.Contains(out, want) {
		t.Errorf("the dry run's text does not say %q:\n%s", want, out)
	}
	// And the audit of the copy with that selection stored counts as many
	// out of it.
	if code, out, errs := runCmd(t, "sync", "--dest", dest, "--include", include, cap); code != 0 {
		t.Fatalf("sync with --include: exit %d\n%s\n%s", code, out, errs)
	}
	_, out, _ = runCmd(t, "audit", "--dest", dest, "--json", cap)
	a = decodeOneJSON[destAuditOut](t, out, "audit --dest")
	if *a.OutOfSelection != o.Excluded || *a.Same+*a.OutOfSelection != resources {
		t.Errorf("audit with the selection: %d same, %d out of it; the dry run excluded %d of %d", *a.Same, *a.OutOfSelection, o.Excluded, resources)
	}
}
