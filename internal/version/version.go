// Package version is rsx's version: one string for --version, the
// User-Agent and the run history, whichever part of rsx runs.
package version

import "runtime/debug"

// Version is set at build time:
//
//	go build -ldflags "-X rsx/internal/version.Version=1.2.3" .
//
// It is a variable only so that the linker can set it; nothing assigns it.
var Version = "0.1.0-dev"

// String is the version: Version, or, when a build set it empty, the main
// module's version from the build information ("devel" when it has none).
func String() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// Program names the program and its version as the run history records
// it: "rsx 0.1.0-dev".
func Program() string { return "rsx " + String() }
