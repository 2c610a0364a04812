package cli

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The README's list of commands is the one rsx --help gives, and it says
// how to install the binary the examples call.
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
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^### `rsx ([a-z-]+)").FindAllStringSubmatch(commands, -1) {
		documented = append(documented, m[1])
	}
	slices.Sort(documented)

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
	if len(listed) == 0 || !slices.Equal(documented, listed) {
		t.Errorf("README's commands %v, rsx --help lists %v", documented, listed)
	}
	for _, want := range []string{"go install", "$(go env GOPATH)/bin"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README does not say how to install the binary (%q)", want)
		}
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
