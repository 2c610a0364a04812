package session

import (
	"rsx/dump"
	"rsx/model"
)

// packageBeside finds the ZIP package of ref next to the dump it is listed
// in, when that dump is a local file: a Resource Dump saved with its
// packages is read from the disk, not from the network. dump.Beside says
// where it looks; "" when there is no copy.
func packageBeside(ref dump.PackageRef) string {
	if ref.Dump == "" || !model.IsLocal(ref.Dump) || model.IsLocal(ref.URL) {
		return ""
	}
	return dump.Beside(model.LocalPath(ref.Dump), ref.URL)
}
