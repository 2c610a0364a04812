package session

import (
	"os"
	"path/filepath"
	"strings"
)

// maxCompletions bounds what CompletePath returns: a folder of 100,000
// files completes to its first names, not to a list the prompt cannot show.
const maxCompletions = 200

// CompletePath returns the local files and folders whose path begins with
// prefix, as a shell's tab does: the folder part of prefix is kept as
// typed (relative to the working folder when it is relative), a folder
// ends with a separator, and names that begin with "." are left out unless
// prefix's last part begins with one. Sorted by name; nil when the folder
// cannot be read. It reads one folder and follows symbolic links only to
// tell a folder from a file.
func (s *Session) CompletePath(prefix string) []string {
	dir, base := filepath.Split(prefix)
	read := dir
	if read == "" {
		read = "."
	}
	entries, err := os.ReadDir(read)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		p := dir + name
		isDir := e.IsDir()
		if e.Type()&os.ModeSymlink != 0 {
			if fi, err := os.Stat(filepath.Join(read, name)); err == nil {
				isDir = fi.IsDir()
			}
		}
		if isDir {
			p += string(filepath.Separator)
		}
		out = append(out, p)
		if len(out) == maxCompletions {
			break
		}
	}
	return out
}
