package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"rsx/model"
)

// checkExplorerTarget says why TARGET cannot be opened before the explorer
// starts: a word that is no command (rsx sync before sync existed), or
// something that is neither an http(s) URL nor an existing file. Every such
// error is bad usage (exit status 2).
func checkExplorerTarget(root *cobra.Command, target string) error {
	if model.IsHTTPURL(target) {
		return nil
	}
	local := model.IsLocal(target)
	if local {
		if _, err := os.Stat(model.LocalPath(target)); err == nil {
			return nil
		}
	}
	if root.SuggestionsMinimumDistance <= 0 {
		root.SuggestionsMinimumDistance = 2 // cobra's own default for unknown subcommands
	}
	if s := root.SuggestionsFor(target); len(s) > 0 {
		return fmt.Errorf("unknown command %q; did you mean %q? (rsx --help lists the commands)", target, s[0])
	}
	if hint := schemeHint(target); hint != "" {
		return fmt.Errorf("%q is neither a URL nor an existing file%s", target, hint)
	}
	switch {
	case isCommandWord(target):
		return fmt.Errorf("unknown command %q (rsx --help lists the commands); a file of that name does not exist", target)
	case !local:
		return fmt.Errorf("%q is neither an http(s) URL nor an existing file", target)
	}
	return fmt.Errorf("%q is neither a URL nor an existing file", target)
}

// isCommandWord tells whether s could have been meant as a subcommand: a
// lower-case word (letters and dashes).
func isCommandWord(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if (c < 'a' || c > 'z') && c != '-' {
			return false
		}
	}
	return true
}

// checkTerminal says that the explorer needs a terminal when standard input
// or output is not one, and names the commands that scripts use instead.
func checkTerminal(root *cobra.Command, in, out any) error {
	if isTerminalFile(in) && isTerminalFile(out) {
		return nil
	}
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() && c.Name() != "help" && c.Name() != "completion" && c.Name() != "serve" {
			names = append(names, "rsx "+c.Name())
		}
	}
	return fmt.Errorf("the explorer needs a terminal (standard input and output are not one); "+
		"in scripts use %s, most with --json (rsx --help lists them)", strings.Join(names, ", "))
}

// isTerminalFile tells whether v is a file that is a terminal.
func isTerminalFile(v any) bool {
	f, ok := plainWriter(v).(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// explorerPreflight checks what the explorer needs before it starts
// anything: a target it can open (none: the demo) and a terminal.
func (a *app) explorerPreflight(cmd *cobra.Command, target string) error {
	root := cmd.Root()
	if target != "" {
		if err := checkExplorerTarget(root, target); err != nil {
			return err
		}
	}
	return checkTerminal(root, a.in, a.out)
}
