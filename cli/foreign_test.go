package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A Change List on another host whose up link names the demo Source's
// Capability List is not that Source's: sync and audit --dest refuse it
// (exit 2), naming the document and the Capability List.
func TestSyncRefusesAForeignChangeList(t *testing.T) {
	base := startDemo(t, false)
	capList := base + "/dataset1/capabilitylist.xml"
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="`+capList+`"/>
<rs:md capability="changelist" from="2020-01-01T00:00:00Z"/>
</urlset>
`)
	}))
	t.Cleanup(foreign.Close)
	target := foreign.URL + "/changelist.xml"
	dest := t.TempDir()
	if code, _, errs := runCmd(t, "sync", "--dest", dest, capList); code != 0 {
		t.Fatalf("baseline: exit %d: %s", code, errs)
	}
	for _, args := range [][]string{
		{"sync", "--dest", dest, "--delete", "--json", target},
		{"audit", "--dest", dest, "--json", target},
	} {
		code, out, errs := runCmd(t, args...)
		msg := errs
		if out != "" {
			// The JSON document of a command that could not run.
			var o struct {
				Error string `json:"error"`
			}
			if err := json.Unmarshal([]byte(out), &o); err != nil {
				t.Fatalf("%s: exit %d: %v: %q", args[0], code, err, out)
			}
			msg = o.Error
		}
		if code != 2 || !strings.Contains(msg, target) || !strings.Contains(msg, capList) || !strings.Contains(msg, "does not list it") {
			t.Errorf("%s: exit %d, error %q, stderr %q", args[0], code, msg, errs)
		}
	}
}
