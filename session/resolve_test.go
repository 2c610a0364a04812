package session

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"rsx/demo"
	"rsx/model"
)

// The explorer's :sync, :dest and :audit take the configuration file's
// named destinations: DestOptions.Resolve turns the name into the folder
// before the destination is opened, and its error is the job's.
func TestDestResolve(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 20, ListSize: 1000})
	rl := srv.URL + "/dataset1/resourcelist.xml"
	entries := demoEntries(t, rl)
	dir := t.TempDir()
	var asked []string
	s.opts.Dest.Resolve = func(dest string) (string, func(string) string, error) {
		asked = append(asked, dest)
		name, sub, ok := strings.Cut(dest, ":")
		if !ok || name != "shelf" {
			return "", nil, errors.New("no destination named " + name)
		}
		return filepath.Join(dir, sub), nil, nil
	}
	ctx := context.Background()
	j := s.NewSync(SyncRequest{Dest: "shelf:sub", Target: rl, Only: []string{entries[0].Loc}})
	if _, err := j.Plan(ctx, false); err != nil {
		t.Fatal(err)
	}
	if res, err := j.Run(ctx); err != nil || !res.OK() {
		t.Fatalf("sync: %v %+v", err, res)
	}
	j.Close()
	tbl := model.NewEntryTable()
	tbl.Append(&entries[0])
	if got := localStates(t, s, LocalRequest{Dest: "shelf:sub", Target: rl, Base: rl, Entries: tbl}); got != "same" {
		t.Errorf("the copy in shelf:sub: %s", got)
	}
	if r, err := s.AuditCopy(ctx, AuditRequest{Dest: "shelf:sub", Target: rl}); err != nil || r == nil {
		t.Errorf("audit of shelf:sub: %v", err)
	}
	if _, err := s.AuditCopy(ctx, AuditRequest{Dest: "attic:", Target: rl}); err == nil || !strings.Contains(err.Error(), "no destination named attic") {
		t.Errorf("audit of an unknown name: %v", err)
	}
	if len(asked) < 4 || asked[0] != "shelf:sub" {
		t.Errorf("Resolve was asked %q", asked)
	}
}
