package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// auditOut is the contract's JSON of the spot audit, and some of the rest.
type auditOut struct {
	Checked    *int `json:"checked"`
	OK         *int `json:"ok"`
	Mismatched []struct {
		URL, Field, Declared, Actual *string
		Mirror                       string
	} `json:"mismatched"`
	Warnings []struct {
		URL, Field, Declared, Actual *string
	} `json:"warnings"`
	Unchecked []struct {
		URL, Field, Reason *string
	} `json:"unchecked"`
	Mirrors []struct {
		URL, Mirror *string
		OK          *bool
	} `json:"mirrors"`
	Complete *bool   `json:"complete"`
	Stopped  *string `json:"stopped"`
	Seed     uint64  `json:"seed"`
	Listed   int     `json:"listed"`
	Selected int     `json:"selected"`
	Lists    []struct {
		URL   string
		Error *string
	} `json:"lists"`
	Error *string `json:"error"`
}

// checkShape fails when a required field of the contract is absent.
func (o auditOut) checkShape(t *testing.T) {
	t.Helper()
	if o.Checked == nil || o.OK == nil || o.Mismatched == nil || o.Warnings == nil || o.Unchecked == nil || o.Mirrors == nil || o.Complete == nil {
		t.Fatalf("a required field is missing: %+v", o)
	}
	for _, m := range o.Mismatched {
		if m.URL == nil || m.Field == nil || m.Declared == nil || m.Actual == nil {
			t.Errorf("mismatched entry without url, field, declared or actual: %+v", m)
		}
	}
	for _, u := range o.Unchecked {
		if u.URL == nil || u.Field == nil || u.Reason == nil {
			t.Errorf("unchecked entry without url, field or reason: %+v", u)
		}
	}
	for _, m := range o.Mirrors {
		if m.URL == nil || m.Mirror == nil || m.OK == nil {
			t.Errorf("mirror entry without url, mirror or ok: %+v", m)
		}
	}
}

func TestAuditCommandCleanDemo(t *testing.T) {
	base := startDemo(t, false)
	code, out, errs := runCmd(t, "audit", "--sample", "all", "--json", base+"/.well-known/resourcesync")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	o := decodeOneJSON[auditOut](t, out, "audit")
	o.checkShape(t)
	if *o.Checked != o.Listed || *o.OK != *o.Checked || len(o.Mismatched) > 0 || !*o.Complete || o.Stopped != nil || o.Error != nil || len(o.Mirrors) == 0 {
		t.Errorf("clean demo: %s", out)
	}
	for _, m := range o.Mirrors {
		if !*m.OK {
			t.Errorf("mirror not ok: %s", *m.Mirror)
		}
	}
}

func TestAuditCommandBrokenDemo(t *testing.T) {
	base := startDemo(t, true)
	code, out, errs := runCmd(t, "audit", "--sample", "all", "--json", base+"/.well-known/resourcesync")
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, errs)
	}
	o := decodeOneJSON[auditOut](t, out, "audit")
	o.checkShape(t)
	fields := map[string]bool{}
	for _, m := range o.Mismatched {
		fields[*m.Field] = true
	}
	for _, f := range []string{"status", "length", "type", "md5", "sha-256"} {
		if !fields[f] {
			t.Errorf("no %s among the false claims of the broken demo", f)
		}
	}
	notOK := 0
	for _, m := range o.Mirrors {
		if !*m.OK {
			notOK++
			if !strings.Contains(*m.Mirror, "/mirror2/") {
				t.Errorf("mirror %s not ok", *m.Mirror)
			}
		}
	}
	if notOK == 0 {
		t.Error("the stale mirror was not found")
	}

	// The same seed draws the same sample: the same findings.
	var runs []string
	for range 2 {
		code, out, _ := runCmd(t, "audit", "--sample", "60", "--seed", "5", "--json", base+"/.well-known/resourcesync")
		o := decodeOneJSON[auditOut](t, out, "audit")
		if code != 1 || o.Seed != 5 || o.Selected != 60 {
			t.Fatalf("--sample 60 --seed 5: exit %d, seed %d, %d selected", code, o.Seed, o.Selected)
		}
		b, _ := json.Marshal([]any{o.Mismatched, o.Mirrors, o.Unchecked})
		runs = append(runs, string(b))
	}
	if runs[0] != runs[1] {
		t.Errorf("the same seed gave different findings:\n%s\n%s", runs[0], runs[1])
	}

	// Text: a summary line per kind of finding, then the table.
	code, out, _ = runCmd(t, "audit", "--sample", "all", base+"/.well-known/resourcesync")
	if code != 1 {
		t.Errorf("text: exit %d", code)
	}
	for _, want := range []string{"false claims in", "mirrors not ok", "could not be compared", "resources checked ok", "  FIELD", "DECLARED", "ACTUAL", "/broken/loop-a"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("colour codes written to a file")
	}
}

func TestAuditCommandCannotRun(t *testing.T) {
	base := startDemo(t, false)
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"sample 0", []string{"--sample", "0", base + "/dataset1/resourcelist.xml"}},
		{"sample word", []string{"--sample", "some", base + "/dataset1/resourcelist.xml"}},
		{"bad pattern", []string{"--include", "(", base + "/dataset1/resourcelist.xml"}},
		{"negative budget", []string{"--max-total-bytes", "-5", base + "/dataset1/resourcelist.xml"}},
		{"unreachable", []string{"http://127.0.0.1:9/rl.xml"}},
		{"not a list", []string{base + "/dataset1/resourcedump.xml"}},
		{"no URL", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := runCmd(t, append([]string{"audit"}, tt.args...)...)
			if code != 2 || !strings.Contains(errs, "rsx:") {
				t.Errorf("exit %d, want 2; stderr %s", code, errs)
			}
		})
	}
	// With --json, a run that cannot start still prints its document.
	code, out, _ := runCmd(t, "audit", "--json", base+"/dataset1/resourcedump.xml")
	if o := decodeOneJSON[auditOut](t, out, "audit"); code != 2 || o.Error == nil || *o.Complete {
		t.Errorf("exit %d: %s", code, out)
	}
}

// A byte budget ends the run early, which is said plainly; what was checked
// decides the exit status.
func TestAuditCommandBudget(t *testing.T) {
	base := startDemo(t, false)
	code, out, _ := runCmd(t, "audit", "--sample", "all", "--max-total-bytes", "3KB", "--json", base+"/dataset1/resourcelist.xml")
	o := decodeOneJSON[auditOut](t, out, "audit")
	if code != 0 || *o.Complete || o.Stopped == nil || *o.Stopped != "byte budget" || *o.Checked == 0 || *o.Checked >= o.Selected {
		t.Errorf("exit %d: %s", code, out)
	}
	code, out, _ = runCmd(t, "audit", "--sample", "all", "--max-total-bytes", "3KB", base+"/dataset1/resourcelist.xml")
	if code != 0 || !strings.Contains(out, "incomplete: stopped by the byte budget after") {
		t.Errorf("text: exit %d:\n%s", code, out)
	}
}

// On loopback the audit does not keep to the public per-host rate (10 a
// second would take a minute here) unless --rate says so (the kinds of host
// are fetch.NearHost's).
func TestAuditCommandLoopbackDefaults(t *testing.T) {
	base := startDemo(t, false)
	var out, errb bytes.Buffer
	start := time.Now()
	code := run([]string{"--no-cache", "audit", "--sample", "300", "--json", base + "/.well-known/resourcesync"}, streams{in: strings.NewReader(""), out: &out, err: &errb})
	if took := time.Since(start); code != 0 || took > 15*time.Second {
		t.Errorf("exit %d after %v: %s", code, took, errb.String())
	}
}

// What a Source wrote reaches the terminal escaped.
func TestAuditCommandEscapes(t *testing.T) {
	docs := map[string]string{
		"/rl.xml": rsOpen + `<rs:md capability="resourcelist"/>` +
			"<url><loc>{{base}}/r\u202eevil</loc><rs:md type=\"text/html\u009b31m\" length=\"3\"/></url>" + rsClose,
		"/r\u202eevil": "abc",
	}
	srv := crawlSite(t, docs)
	code, out, _ := runCmd(t, "audit", srv.URL+"/rl.xml")
	if code != 1 {
		t.Errorf("exit %d", code)
	}
	if strings.ContainsAny(out, "\u202e\u009b") || !strings.Contains(out, `/r\u202eevil`) || !strings.Contains(out, `text/html\u009b31m`) {
		t.Errorf("not escaped:\n%q", out)
	}
}
