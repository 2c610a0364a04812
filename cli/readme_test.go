package cli

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The README's table of commands is the one rsx --help gives, docs/commands.md
// has a section for each (the README's own until issue 36 cut it to a
// tutorial), and the README says how to install the binary the examples call.
func TestREADMEMatchesHelp(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, commands, ok := strings.Cut(string(readme), "\n## Commands\n")
	if !ok {
		t.Fatal(`README has no "## Commands" section`)
	}
	if i := strings.Index(commands, "\n## "); i >= 0 {
		commands = commands[:i]
	}
	ref, err := os.ReadFile("../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := func(text, re string) []string {
		var names []string
		for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(text, -1) {
			names = append(names, m[1])
		}
		slices.Sort(names)
		return slices.Compact(names) // rsx audit, and rsx audit --dest
	}
	tabled := documented(commands, "(?m)^\\| `rsx ([a-z-]+)`")
	sections := documented(string(ref), "(?m)^## `rsx ([a-z-]+)")

	var out bytes.Buffer
	code := run([]string{"--help"}, streams{in: strings.NewReader(""), out: &out, err: &out})
	if code != exitOK {
		t.Fatalf("rsx --help: exit %d\n%s", code, out.String())
	}
	_, list, _ := strings.Cut(out.String(), "Available Commands:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	var listed []string
	for _, l := range strings.Split(list, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] != "help" {
			listed = append(listed, f[0])
		}
	}
	slices.Sort(listed)
	if len(listed) == 0 || !slices.Equal(tabled, listed) {
		t.Errorf("README's table of commands %v, rsx --help lists %v", tabled, listed)
	}
	if !slices.Equal(sections, listed) {
		t.Errorf("docs/commands.md's sections %v, rsx --help lists %v", sections, listed)
	}
	for _, want := range []string{"go install", "$(go env GOPATH)/bin"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README does not say how to install the binary (%q)", want)
		}
	}
}

// The README gives two commands, the explorer and the tests, and its test
// command is the one CI runs as "the README's test command" (.ci/run).
func TestREADMETestCommandIsCIs(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, two, ok := strings.Cut(string(readme), "\n## Two commands\n")
	if !ok {
		t.Fatal(`README has no "## Two commands" section`)
	}
	m := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(two)
	if m == nil {
		t.Fatal(`README's "Two commands" has no sh block`)
	}
	var cmds []string
	for _, l := range strings.Split(strings.TrimSpace(m[1]), "\n") {
		cmd, _, _ := strings.Cut(l, "#")
		cmds = append(cmds, strings.TrimSpace(cmd))
	}
	if len(cmds) != 2 || cmds[0] != "go run ." || !strings.HasPrefix(cmds[1], "go test ") {
		t.Fatalf("README's two commands are %q, want go run . and a go test", cmds)
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(ci), "(the README's test command)")
	if !ok {
		t.Fatal(".ci/run does not say which command is the README's test command")
	}
	lines := strings.Split(after, "\n")
	if len(lines) < 2 || strings.TrimSpace(lines[1]) != cmds[1] {
		t.Errorf(".ci/run runs %q as the README's test command, the README gives %q", strings.TrimSpace(lines[1]), cmds[1])
	}
}

// Every command's help ends with examples an archivist can copy, each
// calling that command.
func TestEveryCommandHasExamples(t *testing.T) {
	_, root := newApp(streams{in: strings.NewReader(""), out: &bytes.Buffer{}, err: &bytes.Buffer{}})
	if !strings.Contains(root.Example, "rsx ") {
		t.Error("rsx --help has no examples")
	}
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" || c.IsAdditionalHelpTopicCommand() {
			continue // a help topic (rsx help sync-guide) is read, not run
		}
		if !strings.Contains(c.Example, "rsx "+c.Name()+" ") {
			t.Errorf("rsx %s --help has no example of rsx %s", c.Name(), c.Name())
		}
	}
}
