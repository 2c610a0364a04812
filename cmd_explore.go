package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// runExplorer opens the terminal explorer on TARGET, or on the built-in demo
// Source when there is none. The ui package's owner replaces this placeholder.
func (a *app) runExplorer(cmd *cobra.Command, args []string) error {
	return failed(errors.New("the explorer is not built yet"))
}
