// Package cli is rsx's command line: the root command (the explorer), one
// file per subcommand, the HTTP flags they share and their output helpers.
package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// version is set at build time with
// -ldflags "-X rsx/cli.version=…".
var version = "0.1.0-dev"

// streams are the standard streams a command writes to; tests replace them.
type streams struct {
	in  io.Reader
	out io.Writer
	err io.Writer
}

// app is what every command shares: the streams and the HTTP client settings.
type app struct {
	streams
	http httpFlags // persistent flags for fetching, see httpflags.go
}

func newRootCmd(s streams) *cobra.Command {
	a := &app{streams: s}
	root := &cobra.Command{
		Use:           "rsx [TARGET]",
		Short:         "Explore, validate and copy ResourceSync Sources",
		Long:          "rsx is a terminal explorer and inspector for ResourceSync (ANSI/NISO Z39.99-2017) endpoints.",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.MaximumNArgs(1),
	}
	root.RunE = a.runExplorer // explore.go
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return failed(err)
	})
	a.http.register(root.PersistentFlags())
	// One line per command; each lives in the file of its name.
	root.AddCommand(
		newValidateCmd(a),
		newServeCmd(a),
		newDiscoverCmd(a),
		newTreeCmd(a),
		newDumpCmd(a),
		newWatchCmd(a),
	)
	return root
}

// Main runs the command line args (without the program name) and returns
// the process exit status of the command-line contract: 0 nothing wrong
// found, 1 something wrong found, 2 the job could not be done.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(args, streams{in: stdin, out: stdout, err: stderr})
}

// run executes the command line and returns the process exit status.
func run(args []string, s streams) int {
	root := newRootCmd(s)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(s.err, "rsx:", esc(ee.err.Error()))
		}
		return ee.code
	}
	// Anything else comes from cobra itself: unknown command, bad arguments.
	fmt.Fprintln(s.err, "rsx:", esc(err.Error()))
	return exitFailure
}
