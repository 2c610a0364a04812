package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/pflag"

	"rsx/dest/state"
)

// The README and the pages of docs/ link to each other and to their
// sections; a page moved or a heading renamed breaks a link silently. Every
// relative link (to a file, or to a heading of a Markdown page, by GitHub's
// anchors) must lead somewhere.
func TestDocsLinksResolve(t *testing.T) {
	pages := []string{"../README.md", "../BENCHMARKS.md", "../BENCHMARKS-history.md"}
	more, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, more...)
	for _, page := range pages {
		for _, l := range mdLinks(t, page) {
			t.Run(fmt.Sprintf("%s:%d", page, l.line), func(t *testing.T) {
				file, anchor, _ := strings.Cut(l.target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
					if _, err := os.Stat(path); err != nil {
						t.Fatalf("link %q: %v", l.target, err)
					}
				}
				if anchor == "" || !strings.HasSuffix(path, ".md") {
					return
				}
				if !mdAnchors(t, path)[anchor] {
					t.Errorf("link %q: %s has no heading with that anchor", l.target, path)
				}
			})
		}
	}
}

// A state's schema is documented where archivists read it: the SQL block of
// docs/destination.md is the schema rsx creates, word for word.
func TestDestinationDocHasTheSchema(t *testing.T) {
	doc, err := os.ReadFile("../docs/destination.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```sql\n(.*?)\n```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/destination.md has no sql block")
	}
	if got, want := string(m[1]), strings.TrimRight(state.Schema(), "\n"); got != want {
		t.Errorf("docs/destination.md's schema is not dest/state/schema.sql:\n%s", firstDiff(got, want))
	}
}

// Every HTTP option the commands share is in the table of docs/http.md.
func TestHTTPOptionsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/http.md")
	if err != nil {
		t.Fatal(err)
	}
	_, root := newApp(streams{in: strings.NewReader(""), out: &bytes.Buffer{}, err: &bytes.Buffer{}})
	n := 0
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		n++
		if !bytes.Contains(doc, []byte("`--"+f.Name)) && (f.Shorthand == "" || !bytes.Contains(doc, []byte("`-"+f.Shorthand+" "))) {
			t.Errorf("docs/http.md does not document --%s", f.Name)
		}
	})
	if n == 0 {
		t.Error("rsx has no persistent flags: the test no longer looks at the HTTP options")
	}
}

type mdLink struct {
	line   int
	target string
}

var (
	mdLinkRe = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdCodeRe = regexp.MustCompile("`[^`]*`")
)

// mdLinks returns the relative links of a Markdown page, outside code.
func mdLinks(t *testing.T, page string) []mdLink {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var links []mdLink
	fence := false
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if fence {
			continue
		}
		for _, m := range mdLinkRe.FindAllStringSubmatch(mdCodeRe.ReplaceAllString(line, ""), -1) {
			if regexp.MustCompile(`^[a-z]+:`).MatchString(m[1]) {
				continue // http:, https:, mailto:
			}
			links = append(links, mdLink{i + 1, m[1]})
		}
	}
	return links
}

// mdAnchors returns the anchors GitHub gives a page's headings: lower case,
// punctuation dropped, spaces as '-', a repeated one numbered.
func mdAnchors(t *testing.T, page string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	seen := map[string]int{}
	fence := false
	heading := regexp.MustCompile(`^#{1,6} (.*)$`)
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		m := heading.FindStringSubmatch(line)
		if fence || m == nil {
			continue
		}
		var s strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(m[1])) {
			switch {
			case r == ' ':
				s.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
				s.WriteRune(r)
			}
		}
		a := s.String()
		if k := seen[a]; k > 0 {
			anchors[fmt.Sprintf("%s-%d", a, k)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n  doc:    %q\n  schema: %q", i+1, a, b)
		}
	}
	return ""
}
