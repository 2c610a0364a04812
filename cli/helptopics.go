package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// globalFlagsBlock is the section of cobra's usage template that lists a
// command's inherited flags, one line and a description each.
const globalFlagsBlock = `{{if .HasAvailableInheritedFlags}}

Global Flags:
{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}`

// compactGlobalFlags lists the help topics as rsx help TOPIC, and makes every command's --help name the options all
// commands share (the HTTP options, --log-file) in a few lines instead of
// describing each again: rsx --help and docs/http.md describe them, and a
// command's help stays its own (rsx sync --help under 60 lines, issue 36).
// Should cobra's template change so that the block is not found, the help
// stays cobra's.
func compactGlobalFlags(root *cobra.Command) {
	var names []string
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		n := "--" + f.Name
		if f.Shorthand != "" {
			n = "-" + f.Shorthand + "/" + n
		}
		names = append(names, n)
	})
	if len(names) == 0 {
		return
	}
	var b strings.Builder
	b.WriteString("{{if .HasAvailableInheritedFlags}}\n\nGlobal Flags (every command's; rsx --help and docs/http.md say what each does):")
	line := 0
	for i, n := range names {
		if i > 0 {
			b.WriteString(",")
			line++
		}
		if i == 0 || line+1+len(n) > 78 {
			b.WriteString("\n ")
			line = 1
		}
		b.WriteString(" " + n)
		line += 1 + len(n)
	}
	b.WriteString("{{end}}")
	t := root.UsageTemplate()
	if !strings.Contains(t, globalFlagsBlock) {
		return
	}
	t = strings.Replace(t, globalFlagsBlock, b.String(), 1)
	// A help topic is read with rsx help TOPIC: the list says so.
	t = strings.Replace(t, "{{rpad .CommandPath .CommandPathPadding}}", "rsx help {{rpad .Name .NamePadding}}", 1)
	root.SetUsageTemplate(t)
}
