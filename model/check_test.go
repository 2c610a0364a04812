package model

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const chkConformanceDir = "../testdata/conformance"

// chkGeneratedCases are rules whose negative case is built in code (a 50 MB or
// 50,001-entry file does not belong in testdata); see TestCheckLimits.
var chkGeneratedCases = map[string]bool{"entries-too-many": true, "document-too-large": true}

func chkValidateFile(t *testing.T, path string) *Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Validate(f, CheckOptions{})
}

func chkRuleSet(ps []Problem) []string {
	var ids []string
	for _, p := range ps {
		if !slices.Contains(ids, p.Rule) {
			ids = append(ids, p.Rule)
		}
	}
	slices.Sort(ids)
	return ids
}

func chkDescribe(r *Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d errors, %d warnings", r.Title, r.Errors, r.Warnings)
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "\n\t%s %s entry=%d line=%d: %s", p.Severity, p.Rule, p.Entry, p.Line, p.Message)
	}
	return b.String()
}

// chkAlsoRe reads `<!-- also: rule rule -->`: other rules a negative case may fire.
var chkAlsoRe = regexp.MustCompile(`<!--\s*also:([^>]*)-->`)

// TestCheckInvalidCases runs testdata/conformance/invalid/<rule-id>.xml for every
// rule of the catalogue: that rule must fire, and no other (unless listed).
func TestCheckInvalidCases(t *testing.T) {
	for _, rule := range Rules() {
		t.Run(rule.ID, func(t *testing.T) {
			path := filepath.Join(chkConformanceDir, "invalid", rule.ID+".xml")
			if chkGeneratedCases[rule.ID] {
				if _, err := os.Stat(path); err == nil {
					t.Fatalf("%s is generated in TestCheckLimits; remove the file", rule.ID)
				}
				return
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("every rule needs a negative case: %v", err)
			}
			allowed := []string{rule.ID}
			if m := chkAlsoRe.FindSubmatch(data); m != nil {
				allowed = append(allowed, strings.Fields(string(m[1]))...)
			}
			hint := rule.Severity == SeverityHint
			if hint {
				// A hint is off by default: not reported, not counted.
				r := Validate(bytes.NewReader(data), CheckOptions{})
				if slices.Contains(chkRuleSet(r.Problems), rule.ID) {
					t.Errorf("hint %s reported without CheckOptions.Hints", rule.ID)
				}
			}
			r := Validate(bytes.NewReader(data), CheckOptions{Hints: hint})
			got := chkRuleSet(r.Problems)
			if !slices.Contains(got, rule.ID) {
				t.Fatalf("rule %s did not fire:\n%s", rule.ID, chkDescribe(r))
			}
			for _, id := range got {
				if !slices.Contains(allowed, id) {
					t.Errorf("rule %s fired too:\n%s", id, chkDescribe(r))
				}
			}
			for _, p := range r.Problems {
				if p.Rule != rule.ID {
					continue
				}
				if p.Severity != rule.Severity || p.Section == "" || !strings.HasSuffix(p.Message, "(§"+p.Section+")") {
					t.Errorf("problem %+v: severity, section or message ending wrong", p)
				}
			}
			// Counts agree with the problems (all stored here).
			e, w := 0, 0
			for _, p := range r.Problems {
				switch p.Severity {
				case SeverityError:
					e++
				case SeverityWarning:
					w++
				}
			}
			if e != r.Errors || w != r.Warnings {
				t.Errorf("counts %d/%d, problems %d/%d", r.Errors, r.Warnings, e, w)
			}
		})
	}
	// No stray files: every negative case names a rule.
	files, _ := filepath.Glob(filepath.Join(chkConformanceDir, "invalid", "*.xml"))
	for _, f := range files {
		if _, ok := RuleByID(strings.TrimSuffix(filepath.Base(f), ".xml")); !ok {
			t.Errorf("%s names no rule", f)
		}
	}
}

// chkSpecExample asserts what the specification's examples must give: examples
// 12–33 no error (27 only its non-hex digest warnings), the walkthrough examples
// 1–5 and 8 exactly one error, the missing up link, and examples 6–7 nothing.
func chkSpecExample(t *testing.T, n int, r *Report) {
	t.Helper()
	switch {
	case n <= 5 || n == 8:
		if r.Errors != 1 || r.Warnings != 0 || len(r.Problems) != 1 || r.Problems[0].Rule != "up-link-missing" ||
			!strings.Contains(r.Problems[0].Message, `rel="up"`) {
			t.Errorf("example %d: want exactly the missing up link error:\n%s", n, chkDescribe(r))
		}
	case n == 27:
		if r.Errors != 0 {
			t.Errorf("example 27: no error expected:\n%s", chkDescribe(r))
		}
		for _, p := range r.Problems {
			if p.Rule != "hash-not-hex" && p.Rule != "hash-base64" {
				t.Errorf("example 27: only digest warnings expected:\n%s", chkDescribe(r))
			}
		}
		if r.Warnings == 0 {
			t.Errorf("example 27: its digests are not hex, a warning is expected")
		}
	default:
		if r.Errors != 0 || r.Warnings != 0 {
			t.Errorf("example %d: no problem expected:\n%s", n, chkDescribe(r))
		}
	}
}

var chkExampleRe = regexp.MustCompile(`resourcesync_ex_(\d+)\.xml$`)

func chkRunSpecExamples(t *testing.T, dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "resourcesync_ex_*.xml"))
	if len(files) < 28 {
		t.Fatalf("%s: %d examples, want 28 (1–8, 12–33)", dir, len(files))
	}
	for _, f := range files {
		m := chkExampleRe.FindStringSubmatch(f)
		n, _ := strconv.Atoi(m[1])
		t.Run(filepath.Base(f), func(t *testing.T) {
			chkSpecExample(t, n, chkValidateFile(t, f))
		})
	}
}

func TestCheckSpecExamples(t *testing.T) {
	chkRunSpecExamples(t, filepath.Join(chkConformanceDir, "spec-examples-v1.1"))
}

func TestCheckRealWorld(t *testing.T) {
	chkRealWorld(t, filepath.Join(chkConformanceDir, "real-world", "resync-client-ruby"))
}

// chkRealWorld: resync-client-ruby's files, with the problems they really have.
func chkRealWorld(t *testing.T, dir string) {
	want := map[string][]string{
		"simulator/capability-list.xml": nil,
		// its entry has no describedby link (section 8: recommended).
		"simulator/source-description.xml": {"description-entry-describedby"},
		// base64 md5 digests. Its 1.0-style entries (lastmod, no datetime)
		// are only a hint: datetime "may be used" (section 7).
		"simulator/change-list.xml": {"hash-base64"},
		// until before from, at document level and on the entry.
		"resourcedump/changedump.xml": {"until-before-from"},
		// completed before at, likewise.
		"resourcedump/resourcedump.xml": {"completed-before-at"},
		// a manifest without its up link.
		"resourcedump/manifest.xml": {"up-link-missing"},
	}
	for name, rules := range want {
		t.Run(name, func(t *testing.T) {
			r := chkValidateFile(t, filepath.Join(dir, name))
			if got := chkRuleSet(r.Problems); !slices.Equal(got, rules) {
				t.Errorf("rules %v, want %v:\n%s", got, rules, chkDescribe(r))
			}
		})
	}
	r := chkValidateFile(t, filepath.Join(dir, "simulator/change-list.xml"))
	if r.Errors != 0 || r.Entries != 1000 {
		t.Errorf("change-list.xml: %d entries, %d errors", r.Entries, r.Errors)
	}
}

// TestCheckLimits covers the section 7 limits with generated documents.
func TestCheckLimits(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
		`<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/><rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>`)
	for i := 0; i <= MaxEntriesPerDocument; i++ {
		b.WriteString("<url><loc>http://example.com/r")
		b.WriteString(strconv.Itoa(i))
		b.WriteString("</loc></url>\n")
	}
	b.WriteString("</urlset>")
	r := Validate(&b, CheckOptions{})
	if got := chkRuleSet(r.Problems); !slices.Equal(got, []string{"entries-too-many"}) || r.Entries != 50001 {
		t.Errorf("50,001 entries: %v\n%s", got, chkDescribe(r))
	}

	h := &Header{Root: RootURLSet, RootLocal: "urlset", RootSpace: NSSitemap, MDCount: 1,
		MD:    Metadata{Present: true, Capability: CapResourceList, At: chkMustDatetime(t, "2013-01-03T09:00:00Z")},
		Links: []Link{{Rel: "up", HasRel: true, Href: "http://example.com/c.xml", HasHref: true}}}
	c := NewChecker(CheckOptions{})
	c.Begin(h)
	c.End(h, MaxDocumentBytes+1)
	if got := chkRuleSet(c.Problems()); !slices.Equal(got, []string{"document-too-large"}) {
		t.Errorf("50 MB + 1: %v", got)
	}
	c.Begin(h)
	c.End(h, MaxDocumentBytes)
	if e, w := c.Counts(); e+w != 0 {
		t.Errorf("exactly 50 MB: %v", c.Problems())
	}
}

func chkMustDatetime(t *testing.T, s string) Datetime {
	t.Helper()
	d, err := ParseDatetime(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestRulesCatalogue(t *testing.T) {
	rules := Rules()
	if len(rules) != int(numRules) {
		t.Fatalf("%d rules, want %d", len(rules), numRules)
	}
	idRe := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	seen := map[string]bool{}
	for _, r := range rules {
		if !idRe.MatchString(r.ID) || seen[r.ID] {
			t.Errorf("bad or repeated ID %q", r.ID)
		}
		seen[r.ID] = true
		if r.Section == "" || r.Summary == "" || (r.Severity != SeverityError && r.Severity != SeverityWarning && r.Severity != SeverityHint) {
			t.Errorf("incomplete rule %+v", r)
		}
		if got, ok := RuleByID(r.ID); !ok || got != r {
			t.Errorf("RuleByID(%q) = %+v, %v", r.ID, got, ok)
		}
	}
	if _, ok := RuleByID("no-such-rule"); ok {
		t.Error("RuleByID found a rule that does not exist")
	}
	if SeverityError.String() != "error" || SeverityWarning.String() != "warning" {
		t.Error("Severity.String")
	}
	// Rules other packages name.
	for _, id := range []string{"capabilitylist-up-link", "changelist-order", "md-datetime-in-interval", "xml-malformed", "up-link-missing"} {
		if !seen[id] {
			t.Errorf("rule %s missing", id)
		}
	}
}

// TestCheckMessages pins the shape of messages: entry, loc, value, section.
func TestCheckMessages(t *testing.T) {
	tests := []struct {
		file, rule string
		want       []string
	}{
		{"changelist-order", "changelist-order", []string{"entry 2 (http://example.com/res2)", "(entry 1)", "datetime 2013-01-02T12:00:00Z is before the previous entry's 2013-01-02T13:00:00Z", "forward chronological order", "(§12.1)"}},
		{"up-link-missing", "up-link-missing", []string{`no <rs:ln rel="up"> link`, "Resource List", "(§10.1)"}},
		{"capabilitylist-up-link", "capabilitylist-up-link", []string{`rel="up"`, "Source Description", "(§9)"}},
		{"md-datetime-in-interval", "md-datetime-in-interval", []string{"entry 1 (http://example.com/res1)", "2013-01-03T12:00:00Z", "until 2013-01-03T00:00:00Z"}},
		{"hash-length", "hash-length", []string{"md5 digest has 30 hex digits, expected 32"}},
		{"hash-not-hex", "hash-not-hex", []string{"not hex as section 7 requires"}},
		{"hash-base64", "hash-base64", []string{"base64", "resync-client-ruby", "md5:631f26e82a960498ca4f9541820a1679"}},
		{"datetime-invalid", "datetime-invalid", []string{`at="2013-01-03T09:00:00"`, "missing time zone"}},
		{"path-unsafe", "path-unsafe", []string{`"/resources/../../etc/passwd"`, `".."`, "(§11.2)"}},
		{"attribute-prefixed", "attribute-prefixed", []string{"rs:length", "must not"}},
		{"xml-malformed", "xml-malformed", []string{"line "}},
		{"legacy-draft", "legacy-draft", []string{"etag", "draft"}},
		{"capabilitylist-duplicate", "capabilitylist-duplicate", []string{`"resourcelist"`, "is already listed by entry 1"}},
	}
	for _, tt := range tests {
		r := chkValidateFile(t, filepath.Join(chkConformanceDir, "invalid", tt.file+".xml"))
		found := false
		for _, p := range r.Problems {
			if p.Rule != tt.rule {
				continue
			}
			found = true
			for _, w := range tt.want {
				if !strings.Contains(p.Message, w) {
					t.Errorf("%s: message %q lacks %q", tt.rule, p.Message, w)
				}
			}
		}
		if !found {
			t.Errorf("%s: rule did not fire", tt.rule)
		}
	}
}

// TestCheckMaxProblems: storage is capped, counts stay exact, order holds.
func TestCheckMaxProblems(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
		`<rs:md capability="resourcelist"/>`)
	for i := 0; i < 100; i++ {
		b.WriteString("<url><loc>relative/" + strconv.Itoa(i) + "</loc></url>")
	}
	b.WriteString("</urlset>")
	r := Validate(&b, CheckOptions{MaxProblems: 10})
	// 100 loc-not-absolute, plus md-at-missing and up-link-missing (document level).
	if r.Errors != 102 || r.Entries != 100 {
		t.Fatalf("errors %d, entries %d", r.Errors, r.Entries)
	}
	if len(r.Problems) != 12 {
		t.Fatalf("%d problems stored, want 10 entry problems + 2 document-level", len(r.Problems))
	}
	for i, p := range r.Problems {
		if (i < 2) != (p.Entry < 0) || i > 0 && p.Entry < r.Problems[i-1].Entry {
			t.Fatalf("problems out of order: %v", r.Problems)
		}
	}
}

// TestCheckBaseURL: a relative loc is explained against the document's URL.
func TestCheckBaseURL(t *testing.T) {
	data, _ := os.ReadFile(filepath.Join(chkConformanceDir, "invalid", "loc-not-absolute.xml"))
	r := Validate(bytes.NewReader(data), CheckOptions{BaseURL: "http://example.com/dataset1/resourcelist.xml"})
	if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Message, "http://example.com/res1") {
		t.Errorf("%s", chkDescribe(r))
	}
}

// TestCheckDocument: the in-memory entry point agrees with Validate.
func TestCheckDocument(t *testing.T) {
	for _, name := range []string{"changelist-order", "path-duplicate", "capabilitylist-duplicate", "loc-duplicate"} {
		data, _ := os.ReadFile(filepath.Join(chkConformanceDir, "invalid", name+".xml"))
		d, err := Parse(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		got := CheckDocument(d)
		want := Validate(bytes.NewReader(data), CheckOptions{}).Problems
		if !slices.Equal(got, want) {
			t.Errorf("%s: CheckDocument %v, Validate %v", name, got, want)
		}
	}
}

// TestCheckUnits covers helpers on values the files do not reach.
func TestCheckUnits(t *testing.T) {
	for s, want := range map[string]uriProblem{
		"http://example.com/res1":    uriOK,
		"HTTPS://example.com":        uriOK,
		"gsiftp://grid.example/res1": uriOK,
		"urn:uuid:1234":              uriOK,
		"http://":                    uriNoHost,
		"http:/res1":                 uriNoHost,
		"http://user@:80/x":          uriNoHost,
		"/res1":                      uriNotAbsolute,
		"res1":                       uriNotAbsolute,
		"1http://x":                  uriNotAbsolute,
		"http://example.com/a b":     uriBadChar,
		"http://example.com/a\x00":   uriBadChar,
		"http://example.com/{x}":     uriBadChar,
		"http://example.com/ü":       uriOK,
		"http://example.com/a%20b":   uriOK,
		"http://example.com/a%zz":    uriBadPercent,
		"http://example.com/a%2":     uriBadPercent,
		"http://example.com/%":       uriBadPercent,
	} {
		if got := chkURI(s); got != want {
			t.Errorf("chkURI(%q) = %d, want %d", s, got, want)
		}
	}
	// uriHasBad against the table a byte at a time: every byte value at every
	// place of strings long enough for the eight-byte steps and the tail.
	for b := 0; b < 256; b++ {
		for at := 0; at < 19; at++ {
			s := []byte("http://example.com/")
			s[at] = byte(b)
			want := b < 128 && uriBadASCII[b] != 0
			if got := uriHasBad(string(s)); got != want {
				t.Errorf("uriHasBad with byte %#x at %d = %v, want %v", b, at, got, want)
			}
			if got := uriScan(string(s))&2 != 0; got != (b == '%') {
				t.Errorf("uriScan with byte %#x at %d: a %% found %v", b, at, got)
			}
		}
	}
	for s, ok := range map[string]bool{"text/html": true, "application/json-patch": true, "text/html; charset=utf-8": true,
		"html": false, "/html": false, "text/": false, "text /html": false} {
		if chkMediaType(s) != ok {
			t.Errorf("chkMediaType(%q) != %v", s, ok)
		}
	}
}

// TestCheckSequentialAndPipelined: the decoder goroutine changes nothing.
func TestCheckSequentialAndPipelined(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(chkConformanceDir, "real-world", "resync-client-ruby", "simulator", "change-list.xml"))
	if err != nil {
		t.Fatal(err)
	}
	piped := Validate(bytes.NewReader(data), CheckOptions{})
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	seq := Validate(bytes.NewReader(data), CheckOptions{})
	if !slices.Equal(piped.Problems, seq.Problems) || piped.Entries != seq.Entries || piped.Errors != seq.Errors || piped.Warnings != seq.Warnings {
		t.Errorf("pipelined %s\nsequential %s", chkDescribe(piped), chkDescribe(seq))
	}
}

// TestCheckCases pins decisions on small documents: what fires, and what must not.
func TestCheckCases(t *testing.T) {
	const head = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
		`<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>`
	const ihead = `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
		`<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>`
	tests := []struct {
		name, doc string
		want      []string
	}{
		{"datetime equal to from and until", head + `<rs:md capability="changelist" from="2013-01-03T00:00:00Z" until="2013-01-04T00:00:00Z"/>` +
			`<url><loc>http://example.com/a</loc><rs:md change="created" datetime="2013-01-03T00:00:00Z"/></url>` +
			`<url><loc>http://example.com/b</loc><rs:md change="deleted" datetime="2013-01-04T00:00:00Z"/></url></urlset>`, nil},
		{"datetime within a day-precision until", head + `<rs:md capability="changelist" from="2013-01-03" until="2013-01-03"/>` +
			`<url><loc>http://example.com/a</loc><rs:md change="created" datetime="2013-01-03T10:00:00Z"/></url></urlset>`,
			[]string{"datetime-format-recommended"}},
		{"equal datetimes keep order", head + `<rs:md capability="changelist" from="2013-01-03T00:00:00Z"/>` +
			`<url><loc>http://example.com/a</loc><rs:md change="created" datetime="2013-01-03T10:00:00Z"/></url>` +
			`<url><loc>http://example.com/a</loc><rs:md change="updated"/></url>` +
			`<url><loc>http://example.com/b</loc><rs:md change="updated" datetime="2013-01-03T10:00:00Z"/></url></urlset>`, nil},
		{"order after a gap without datetime", head + `<rs:md capability="changelist" from="2013-01-03T00:00:00Z"/>` +
			`<url><loc>http://example.com/a</loc><rs:md change="created" datetime="2013-01-03T10:00:00Z"/></url>` +
			`<url><loc>http://example.com/a</loc><rs:md change="updated"/></url>` +
			`<url><loc>http://example.com/b</loc><rs:md change="updated" datetime="2013-01-03T09:00:00Z"/></url></urlset>`,
			[]string{"changelist-order"}},
		{"deleted entry of a Change Dump Manifest needs no path", head + `<rs:md capability="changedump-manifest" from="2013-01-03T00:00:00Z"/>` +
			`<url><loc>http://example.com/a</loc><rs:md change="deleted"/></url></urlset>`, nil},
		{"updated entry of a Change Dump Manifest needs a path", head + `<rs:md capability="changedump-manifest" from="2013-01-03T00:00:00Z"/>` +
			`<url><loc>http://example.com/a</loc><rs:md change="updated" type="text/html"/></url></urlset>`, []string{"path-missing"}},
		{"Source Description Index is allowed", `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
			`<rs:md capability="description"/><sitemap><loc>http://example.com/sd1.xml</loc></sitemap></sitemapindex>`, nil},
		{"Source Description entry without rs:md", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
			`<rs:ln rel="describedby" href="http://example.com/about"/><rs:md capability="description"/><url><loc>http://example.com/cl.xml</loc></url></urlset>`,
			[]string{"description-entry-describedby"}},
		{"Source Description entry's describedby after its rs:md", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
			`<rs:ln rel="describedby" href="http://example.com/about"/><rs:md capability="description"/>` +
			`<url><loc>http://example.com/cl1.xml</loc><rs:md capability="capabilitylist"/><rs:ln rel="describedby" href="http://example.com/about1"/></url>` +
			`<url><loc>http://example.com/cl2.xml</loc><rs:ln rel="describedby collection" href="http://example.com/about2"/><rs:md capability="capabilitylist"/></url></urlset>`, nil},
		{"Source Description entry's describedby among hundreds of links", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
			`<rs:ln rel="describedby" href="http://example.com/about"/><rs:md capability="description"/>` +
			`<url><loc>http://example.com/cl1.xml</loc><rs:md capability="capabilitylist"/><rs:ln rel="describedby" href="http://example.com/about1"/>` +
			strings.Repeat(`<rs:ln rel="related" href="http://example.com/r"/>`, 600) + `</url>` +
			`<url><loc>http://example.com/cl2.xml</loc><rs:md capability="capabilitylist"/>` +
			strings.Repeat(`<rs:ln rel="related" href="http://example.com/r"/>`, 600) +
			`<rs:ln rel="describedby" href="http://example.com/about2"/></url></urlset>`, nil},
		{"closed Change List Index lists only closed Change Lists", ihead + `<rs:md capability="changelist" from="2013-01-01T00:00:00Z" until="2013-01-03T00:00:00Z"/>` +
			`<sitemap><loc>http://example.com/cl1.xml</loc><rs:md from="2013-01-01T00:00:00Z" until="2013-01-02T00:00:00Z"/></sitemap>` +
			`<sitemap><loc>http://example.com/cl2.xml</loc><rs:md from="2013-01-02T00:00:00Z"/></sitemap></sitemapindex>`,
			[]string{"changelistindex-until-required"}},
		{"hint: Change List Index entry until after the index's", ihead + `<rs:md capability="changelist" from="2013-01-01T00:00:00Z" until="2013-01-02T00:00:00Z"/>` +
			`<sitemap><loc>http://example.com/cl1.xml</loc><rs:md from="2013-01-01T00:00:00Z" until="2013-01-03T00:00:00Z"/></sitemap></sitemapindex>`,
			[]string{"index-interval-outside"}},
		{"at on a Resource List Index entry, from on it is wrong", ihead + `<rs:md capability="resourcelist" at="2013-01-01T00:00:00Z"/>` +
			`<sitemap><loc>http://example.com/rl1.xml</loc><rs:md at="2013-01-01T00:00:00Z" completed="2013-01-01T00:01:00Z"/></sitemap>` +
			`<sitemap><loc>http://example.com/rl2.xml</loc><rs:md from="2013-01-01T00:00:00Z"/></sitemap></sitemapindex>`,
			[]string{"entry-time-not-used"}},
		{"contents link with hash, length and type", head + `<rs:md capability="resourcedump" at="2013-01-01T00:00:00Z"/>` +
			`<url><loc>http://example.com/p1.zip</loc><rs:md type="application/zip" length="10"/><rs:ln rel="contents" href="http://example.com/m1.xml" type="application/xml" length="20" hash="md5:1584abdf8ebdc9802ac0c6a7402c03b6"/></url></urlset>`, nil},
		{"extension attribute in another namespace", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/" xmlns:x="http://example.org/x">` +
			`<rs:ln rel="up" href="http://example.com/c.xml"/><rs:md capability="resourcelist" at="2013-01-01T00:00:00Z" x:source="y"/>` +
			`<url><loc>http://example.com/a</loc><rs:md x:note="z" xml:lang="en"/><x:thing/></url></urlset>`, nil},
		{"plain Sitemap without capability", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://example.com/a</loc><priority>0.5</priority></url></urlset>`,
			[]string{"md-missing"}},
		{"capability hint judges a manifest without rs:md", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
			`<url><loc>http://example.com/a</loc></url></urlset>`, []string{"md-missing", "path-missing", "up-link-missing"}},
		{"several rel tokens, up among them", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
			`<rs:ln rel="index up" href="http://example.com/c.xml"/><rs:md capability="resourcelist" at="2013-01-01T00:00:00Z"/></urlset>`, nil},
		{"truncated document reports what it can", head + `<rs:md capability="resourcelist" at="2013-01-01T00:00:00Z"/><url><loc>relative</loc></url><url><loc>http://exa`,
			[]string{"loc-not-absolute", "xml-malformed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := CheckOptions{}
			if strings.HasPrefix(tt.name, "capability hint") {
				opts.Capability = CapResourceDumpManifest
			}
			opts.Hints = strings.HasPrefix(tt.name, "hint:")
			r := Validate(strings.NewReader(tt.doc), opts)
			if got := chkRuleSet(r.Problems); !slices.Equal(got, tt.want) {
				t.Errorf("rules %v, want %v\n%s", got, tt.want, chkDescribe(r))
			}
		})
	}
}

func TestCheckSet(t *testing.T) {
	s := newChkSet()
	for i := 0; i < 10000; i++ {
		if _, dup := s.add(uint64(i)*0x9E3779B97F4A7C15, i); dup {
			t.Fatalf("%d: false duplicate", i)
		}
	}
	for i := 0; i < 10000; i++ {
		if first, dup := s.add(uint64(i)*0x9E3779B97F4A7C15, 20000+i); !dup || first != i {
			t.Fatalf("%d: duplicate not found (%d, %v)", i, first, dup)
		}
	}
	if s.n != 10000 {
		t.Fatalf("n %d", s.n)
	}
	// Every segment is found where its values' top bits lead, is at most
	// chkSegFull full, and holds the values it counts.
	segs := map[*chkSeg]bool{}
	total := 0
	for i, g := range s.dir {
		if g.n > chkSegFull {
			t.Fatalf("segment of %d values", g.n)
		}
		for _, sl := range g.slots {
			if sl != 0 && sl>>(64-g.depth) != uint64(i)>>(s.depth-g.depth) {
				t.Fatalf("value %x in the segment of directory entry %d (depth %d of %d)", sl, i, g.depth, s.depth)
			}
		}
		if !segs[g] {
			segs[g] = true
			total += g.n
		}
	}
	if total != s.n {
		t.Fatalf("segments hold %d values, the set counts %d", total, s.n)
	}
	if len(segs)*chkSegSlots > 10000*2 {
		t.Errorf("%d segments for 10,000 values", len(segs))
	}
	// Hashes that differ only in their low bits (which once held the entry
	// number) are different values.
	t2 := newChkSet()
	for i := range uint64(1 << 12) {
		h := i * 0x9E3779B97F4A7C15 &^ (1<<24 - 1)
		for j, low := range []uint64{0, 0x100, 0xFF0000} {
			if first, dup := t2.add(h|low, int(3*i)+j); dup {
				t.Fatalf("%x: taken for a duplicate of entry %d", h|low, first)
			}
		}
	}
	// Entry numbers past 32 bits are not remembered, never misnumbered.
	if _, dup := s.add(42, 1<<32); dup {
		t.Fatal("an entry past 1<<32 was remembered")
	}
	if _, dup := s.add(42, 1<<32+1); dup {
		t.Fatal("an entry past 1<<32 was taken for a duplicate")
	}
}

// TestCheckAbort: a read error ends the document with xml-malformed, judging what
// was read but not what is missing.
func TestCheckAbort(t *testing.T) {
	c := NewChecker(CheckOptions{})
	c.Abort(nil, 0, &SyntaxError{Line: 3, Msg: "unexpected EOF"})
	if p := c.Problems(); len(p) != 1 || p[0].Rule != "xml-malformed" || p[0].Line != 3 || !strings.Contains(p[0].Message, "line 3") {
		t.Errorf("before Begin: %v", p)
	}
	h := &Header{Root: RootURLSet, RootLocal: "urlset", RootSpace: NSSitemap} // no rs:md yet, no up link
	c.Begin(h)
	c.Entry(&Entry{HasLoc: true, LocCount: 1, Loc: "relative", Line: 4})
	c.Abort(h, 100, io.ErrUnexpectedEOF)
	if got := chkRuleSet(c.Problems()); !slices.Equal(got, []string{"loc-not-absolute", "xml-malformed"}) {
		t.Errorf("after an entry: %v", c.Problems())
	}
	if e, _ := c.Counts(); e != 2 {
		t.Errorf("errors %d", e)
	}
}

// TestRuleSeverityFollowsTheSpec: every warning and hint cites the sentence
// it rests on, and the rules whose sentence says "may" or "can", or that no
// sentence supports, are hints, not warnings.
func TestRuleSeverityFollowsTheSpec(t *testing.T) {
	for _, r := range Rules() {
		if r.Severity != SeverityError && r.Basis == "" {
			t.Errorf("%s (%s) cites no sentence of the specification", r.ID, r.Severity)
		}
	}
	for _, id := range []string{"changelist-no-datetime", "datetime-unexpected", "capability-draft", "entry-capability-unknown",
		"hash-algorithm-unknown", "up-link-repeated", "loc-whitespace", "lastmod-after-snapshot"} {
		if r, ok := RuleByID(id); !ok || r.Severity != SeverityHint {
			t.Errorf("%s: severity %v, want hint", id, r.Severity)
		}
	}
	for _, id := range []string{"link-rel-unregistered", "legacy-draft", "link-href-not-absolute"} {
		if r, ok := RuleByID(id); !ok || r.Severity != SeverityError {
			t.Errorf("%s: severity %v, want error (a must)", id, r.Severity)
		}
	}
	// A Change List whose entries have no datetime draws no warning.
	cl := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">` +
		`<rs:ln rel="up" href="http://example.com/cl.xml"/><rs:md capability="changelist" from="2013-01-03T00:00:00Z"/>` +
		`<url><loc>http://example.com/a</loc><lastmod>2013-01-03T01:00:00Z</lastmod><rs:md change="updated"/></url>` +
		`<url><loc>http://example.com/b</loc><lastmod>2013-01-03T02:00:00Z</lastmod><rs:md change="created"/></url></urlset>`
	if r := Validate(strings.NewReader(cl), CheckOptions{}); r.Errors+r.Warnings != 0 {
		t.Errorf("a Change List without datetime:\n%s", chkDescribe(r))
	}
}
