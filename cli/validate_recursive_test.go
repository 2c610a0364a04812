package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

type recursiveJSON struct {
	Errors    int `json:"errors"`
	Warnings  int `json:"warnings"`
	Documents []struct {
		URL      string  `json:"url"`
		Errors   int     `json:"errors"`
		Error    *string `json:"error"`
		Problems []struct {
			Severity, Rule, Message string
			Entry                   *int
		} `json:"problems"`
	} `json:"documents"`
}

func TestValidateRecursiveClean(t *testing.T) {
	srv := crawlSite(t, crawlDocs())
	code, out, errs := runCmd(t, "validate", "--json", "--recursive", srv.URL+"/.well-known/resourcesync")
	var r recursiveJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if code != 0 || r.Errors != 0 || len(r.Documents) != 3 {
		t.Errorf("exit %d, %s %s", code, out, errs)
	}
	if r.Documents[0].URL != srv.URL+"/.well-known/resourcesync" || r.Documents[2].URL != srv.URL+"/rl.xml" {
		t.Errorf("documents: %s", out)
	}
}

func TestValidateRecursiveCrossProblems(t *testing.T) {
	docs := crawlDocs()
	docs["/cl.xml"] = strings.Replace(docs["/cl.xml"], rsClose,
		`<url><loc>{{base}}/gone.xml</loc><rs:md capability="changelist"/></url>`+rsClose, 1)
	docs["/rl.xml"] = strings.Replace(docs["/rl.xml"], `href="{{base}}/cl.xml"`, `href="{{base}}/other.xml"`, 1)
	srv := crawlSite(t, docs)
	code, out, errs := runCmd(t, "validate", "--json", "--recursive", srv.URL+"/.well-known/resourcesync")
	var r recursiveJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if code != 1 {
		t.Errorf("exit %d, want 1 (%s)", code, errs)
	}
	if len(r.Documents) != 3 {
		t.Fatalf("documents: %s", out)
	}
	got := map[string]string{}
	total := 0
	for _, d := range r.Documents {
		total += d.Errors
		for _, p := range d.Problems {
			entry := "doc"
			if p.Entry != nil {
				entry = string(rune('0' + *p.Entry))
			}
			got[strings.TrimPrefix(d.URL, srv.URL)+" "+p.Rule] = entry
		}
	}
	if got["/cl.xml child-unreachable"] != "1" || got["/rl.xml up-link-parent"] != "doc" {
		t.Errorf("problems = %v", got)
	}
	if total != r.Errors {
		t.Errorf("errors %d, sum of documents %d", r.Errors, total)
	}
	// text output names the rule too
	code, text, _ := runCmd(t, "validate", "--recursive", srv.URL+"/.well-known/resourcesync")
	if code != 1 || !strings.Contains(text, "child-unreachable") || !strings.Contains(text, "3 documents") {
		t.Errorf("text: exit %d\n%s", code, text)
	}
}

func TestValidateRecursiveUnreachableRoot(t *testing.T) {
	srv := crawlSite(t, crawlDocs())
	if code, _, _ := runCmd(t, "validate", "--recursive", srv.URL+"/nothing.xml"); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
}
