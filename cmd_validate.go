package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// newValidateCmd is replaced by the conformance checker's command.
func newValidateCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "validate [--json] TARGET...",
		Short: "Check ResourceSync documents against the specification",
		RunE: func(cmd *cobra.Command, args []string) error {
			return failed(errors.New("validate: not built yet"))
		},
	}
}
