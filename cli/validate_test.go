package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// validateRun runs rsx with the given arguments and standard input.
func validateRun(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	args = append([]string{"--no-cache", "--rate", "0", "--retries", "0"}, args...)
	code = run(args, streams{in: strings.NewReader(stdin), out: &out, err: &errb})
	return code, out.String(), errb.String()
}

// validateJSON is the CLI contract's shape of validate --json (plus extras).
type validateJSON struct {
	Errors    *int `json:"errors"`
	Warnings  *int `json:"warnings"`
	Documents []struct {
		URL        *string `json:"url"`
		Capability *string `json:"capability"`
		Index      *bool   `json:"index"`
		Entries    *int    `json:"entries"`
		Errors     *int    `json:"errors"`
		Warnings   *int    `json:"warnings"`
		Title      string  `json:"title"`
		Error      *string `json:"error"`
		Problems   []struct {
			Severity string          `json:"severity"`
			Rule     string          `json:"rule"`
			Message  string          `json:"message"`
			Section  string          `json:"section"`
			Entry    json.RawMessage `json:"entry"`
			Line     json.RawMessage `json:"line"`
		} `json:"problems"`
	} `json:"documents"`
}

func decodeValidateJSON(t *testing.T, stdout string) validateJSON {
	t.Helper()
	v := decodeOneJSON[validateJSON](t, stdout, "validate")
	if v.Errors == nil || v.Warnings == nil || v.Documents == nil {
		t.Fatalf("required top-level fields missing:\n%s", stdout)
	}
	for _, d := range v.Documents {
		if d.URL == nil || d.Capability == nil || d.Index == nil || d.Entries == nil || d.Errors == nil || d.Warnings == nil || d.Problems == nil {
			t.Fatalf("required document fields missing:\n%s", stdout)
		}
		for _, p := range d.Problems {
			if (p.Severity != "error" && p.Severity != "warning") || p.Rule == "" || p.Message == "" || p.Section == "" || p.Entry == nil {
				t.Fatalf("problem fields wrong: %+v", p)
			}
		}
	}
	return v
}

// validateValidDir holds the specification's examples (third-party, see its README).
const validateValidDir = "../testdata/conformance/spec-examples-v1.1"
const validateInvalidDir = "../testdata/conformance/invalid"

func TestValidateCommandValidFile(t *testing.T) {
	file := filepath.Join(validateValidDir, "resourcesync_ex_20.xml")
	code, out, _ := validateRun(t, "", "validate", "--json", file)
	if code != exitOK {
		t.Fatalf("exit %d, want 0:\n%s", code, out)
	}
	v := decodeValidateJSON(t, out)
	d := v.Documents[0]
	if *v.Errors != 0 || *d.URL != file || *d.Capability != "changelist" || !*d.Index || *d.Entries != 3 || len(d.Problems) != 0 {
		t.Errorf("unexpected report:\n%s", out)
	}
}

func TestValidateCommandWarningsOnly(t *testing.T) {
	code, out, _ := validateRun(t, "", "validate", "--json", filepath.Join(validateValidDir, "resourcesync_ex_27.xml"))
	v := decodeValidateJSON(t, out)
	if code != exitOK || *v.Errors != 0 || *v.Warnings == 0 {
		t.Errorf("exit %d, want 0 with warnings:\n%s", code, out)
	}
}

func TestValidateCommandInvalidFile(t *testing.T) {
	file := filepath.Join(validateInvalidDir, "changelist-order.xml")
	code, out, _ := validateRun(t, "", "validate", "--json", file)
	if code != exitFound {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	v := decodeValidateJSON(t, out)
	p := v.Documents[0].Problems
	if *v.Errors != 1 || len(p) != 1 || p[0].Rule != "changelist-order" || string(p[0].Entry) != "1" || p[0].Section != "12.1" || string(p[0].Line) == "null" {
		t.Errorf("unexpected report:\n%s", out)
	}

	// Document-level problems have a null entry.
	_, out, _ = validateRun(t, "", "validate", "--json", filepath.Join(validateValidDir, "resourcesync_ex_1.xml"))
	v = decodeValidateJSON(t, out)
	if p := v.Documents[0].Problems; len(p) != 1 || p[0].Rule != "up-link-missing" || string(p[0].Entry) != "null" {
		t.Errorf("unexpected report:\n%s", out)
	}
}

func TestValidateCommandMissingFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.xml")
	code, out, stderr := validateRun(t, "", "validate", "--json", missing, filepath.Join(validateValidDir, "resourcesync_ex_12.xml"))
	if code != exitFailure {
		t.Fatalf("exit %d, want 2", code)
	}
	v := decodeValidateJSON(t, out)
	if len(v.Documents) != 2 || v.Documents[0].Error == nil || v.Documents[1].Error != nil || *v.Documents[1].Entries != 3 {
		t.Errorf("the other target must still be validated:\n%s", out)
	}
	if stderr != "" {
		t.Errorf("with --json nothing but the JSON: stderr %q", stderr)
	}
	// Text mode says why on stderr.
	code, _, stderr = validateRun(t, "", "validate", missing)
	if code != exitFailure || !strings.Contains(stderr, "nope.xml") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestValidateCommandMalformed(t *testing.T) {
	code, out, _ := validateRun(t, "", "validate", "--json", filepath.Join(validateInvalidDir, "xml-malformed.xml"))
	if code != exitFound {
		t.Fatalf("exit %d, want 1 (malformed XML is a validation error):\n%s", code, out)
	}
	v := decodeValidateJSON(t, out)
	found := false
	for _, p := range v.Documents[0].Problems {
		found = found || p.Rule == "xml-malformed" && string(p.Line) != "null"
	}
	if !found {
		t.Errorf("no xml-malformed problem with a line:\n%s", out)
	}
}

func TestValidateCommandStdin(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(validateValidDir, "resourcesync_ex_13.xml"))
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := validateRun(t, string(data), "validate", "--json", "-")
	v := decodeValidateJSON(t, out)
	if code != exitOK || *v.Documents[0].URL != "-" || *v.Documents[0].Capability != "capabilitylist" {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func TestValidateCommandURL(t *testing.T) {
	good, _ := os.ReadFile(filepath.Join(validateValidDir, "resourcesync_ex_14.xml"))
	bad, _ := os.ReadFile(filepath.Join(validateInvalidDir, "loc-not-absolute.xml"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/good.xml":
			w.Write(good)
		case "/bad.xml":
			w.Write(bad)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	code, out, _ := validateRun(t, "", "validate", "--json", srv.URL+"/good.xml")
	v := decodeValidateJSON(t, out)
	if code != exitOK || *v.Documents[0].URL != srv.URL+"/good.xml" || *v.Documents[0].Entries != 2 {
		t.Errorf("exit %d:\n%s", code, out)
	}

	// The relative <loc> is explained against the document's URL.
	code, out, _ = validateRun(t, "", "validate", "--json", srv.URL+"/bad.xml")
	v = decodeValidateJSON(t, out)
	if code != exitFound || len(v.Documents[0].Problems) != 1 || !strings.Contains(v.Documents[0].Problems[0].Message, srv.URL+"/res1") {
		t.Errorf("exit %d:\n%s", code, out)
	}

	code, out, _ = validateRun(t, "", "validate", "--json", srv.URL+"/missing.xml", srv.URL+"/good.xml")
	v = decodeValidateJSON(t, out)
	if code != exitFailure || v.Documents[0].Error == nil || !strings.Contains(*v.Documents[0].Error, "404") || v.Documents[1].Error != nil {
		t.Errorf("exit %d, want 2 with the 404 named and the other target checked:\n%s", code, out)
	}
}

func TestValidateCommandText(t *testing.T) {
	code, out, _ := validateRun(t, "", "validate", filepath.Join(validateInvalidDir, "changelist-order.xml"), filepath.Join(validateValidDir, "resourcesync_ex_12.xml"))
	if code != exitFound {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"Change List, 2 entries", "entry 1", "line ", "changelist-order §12.1", "Source Description, 3 entries", "2 documents, 1 error, 0 warnings"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("colour written to a non-terminal:\n%q", out)
	}
	_, out, _ = validateRun(t, "", "validate", "--quiet", filepath.Join(validateInvalidDir, "changelist-order.xml"))
	if strings.TrimSpace(out) != "1 document, 1 error, 0 warnings" {
		t.Errorf("--quiet: %q", out)
	}
}

func TestValidateCommandRulesAndUsage(t *testing.T) {
	code, out, _ := validateRun(t, "", "validate", "--rules")
	if code != exitOK || !strings.Contains(out, "changelist-order") || !strings.Contains(out, "§12.1") {
		t.Errorf("--rules: exit %d\n%s", code, out)
	}
	// The cross-document rules of --recursive are in the catalogue too.
	if !strings.Contains(out, "contents-manifest-mismatch") {
		t.Errorf("--rules lacks the cross-document rules:\n%s", out)
	}
	// And those of the Notification draft that rsx watch applies.
	if !strings.Contains(out, "framework-change-type") || !strings.Contains(out, "§N2.1") {
		t.Errorf("--rules lacks the notification rules:\n%s", out)
	}
	code, out, _ = validateRun(t, "", "validate", "--rules", "--json")
	var rules []map[string]string
	if err := json.Unmarshal([]byte(out), &rules); err != nil || code != exitOK || len(rules) < 70 {
		t.Errorf("--rules --json: exit %d, %v", code, err)
	}
	if code, _, _ := validateRun(t, "", "validate"); code != exitFailure {
		t.Errorf("no target: exit %d, want 2", code)
	}
	if code, _, _ := validateRun(t, "", "validate", "--max-problems", "x", "f.xml"); code != exitFailure {
		t.Errorf("bad flag: exit %d, want 2", code)
	}
}

func TestValidateCommandMaxProblems(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
		`<rs:ln rel="up" href="http://example.com/c.xml"/><rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>`)
	for i := 0; i < 50; i++ {
		b.WriteString("<url><loc>relative/" + strconv.Itoa(i) + "</loc></url>")
	}
	b.WriteString("</urlset>")
	code, out, _ := validateRun(t, b.String(), "validate", "--json", "--max-problems", "5", "-")
	v := decodeValidateJSON(t, out)
	if code != exitFound || *v.Errors != 50 || len(v.Documents[0].Problems) != 5 {
		t.Errorf("exit %d, errors %d, stored %d", code, *v.Errors, len(v.Documents[0].Problems))
	}
	_, out, _ = validateRun(t, b.String(), "validate", "--max-problems", "5", "-")
	if !strings.Contains(out, "45 more problems not shown") {
		t.Errorf("text output does not say problems were left out:\n%s", out)
	}
}
