// Command rsx is a terminal explorer and inspector for ResourceSync endpoints.
package main

import (
	"os"

	"rsx/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
