package session

import (
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"rsx/dump"
	"rsx/model"
)

// packageBeside finds the ZIP package of ref next to the dump it is listed
// in, when that dump is a local file: a Resource Dump saved with its
// packages is read from the disk, not from the network. It tries the last
// segments of the package's URL path under the dump's folder, longest
// first ("resourcedump/part-0001.zip", then "part-0001.zip"), and returns
// the path of the first regular file found, "" when there is none.
func packageBeside(ref dump.PackageRef) string {
	if ref.Dump == "" || !model.IsLocal(ref.Dump) || model.IsLocal(ref.URL) {
		return ""
	}
	u, err := url.Parse(ref.URL)
	if err != nil || u.Path == "" {
		return ""
	}
	segs := strings.Split(strings.Trim(path.Clean(u.Path), "/"), "/")
	dir := filepath.Dir(model.LocalPath(ref.Dump))
	for n := min(3, len(segs)); n >= 1; n-- {
		rel := segs[len(segs)-n:]
		if !safeSegments(rel) {
			continue
		}
		p := filepath.Join(append([]string{dir}, rel...)...)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// safeSegments tells whether path segments stay inside the folder they are
// joined to.
func safeSegments(segs []string) bool {
	for _, s := range segs {
		if s == "" || s == "." || s == ".." || strings.ContainsAny(s, `/\`) {
			return false
		}
	}
	return true
}
