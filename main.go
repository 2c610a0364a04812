// Command rsx is a terminal explorer and inspector for ResourceSync endpoints.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// Exit statuses of the command-line contract.
const (
	exitOK      = 0 // done, nothing wrong found
	exitFound   = 1 // done, and something is wrong
	exitFailure = 2 // could not do the job
)

// exitError carries an exit status out of a command. A nil err means the
// command has already reported what it found and only the status is left.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// foundProblems is returned by a command that finished its job and found
// something wrong (exit status 1); it has printed its findings already.
func foundProblems() error { return &exitError{code: exitFound} }

// failed wraps an error that stopped a command from doing its job (exit status 2).
func failed(err error) error { return &exitError{code: exitFailure, err: err} }

// streams are the standard streams a command writes to; tests replace them.
type streams struct {
	in  io.Reader
	out io.Writer
	err io.Writer
}

// app is what every command shares: the streams and the HTTP client settings.
type app struct {
	streams
	http httpFlags // persistent flags for fetching, see cli_fetch.go
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
	root.RunE = a.runExplorer // cmd_explore.go
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return failed(err)
	})
	a.http.register(root.PersistentFlags())
	// One line per command; each lives in cmd_<name>.go.
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
			fmt.Fprintln(s.err, "rsx:", ee.err)
		}
		return ee.code
	}
	// Anything else comes from cobra itself: unknown command, bad arguments.
	fmt.Fprintln(s.err, "rsx:", err)
	return exitFailure
}

func main() {
	os.Exit(run(os.Args[1:], streams{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
}
