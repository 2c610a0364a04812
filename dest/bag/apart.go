package bag

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// checkApart refuses a bag inside the copy's folder (the next audit would
// count it as extra files; one under .rsx would be removed by the next
// sync), and a copy inside the bag's folder. Paths are compared as the file
// system resolves them: symbolic links followed, ".." after them, and folders
// compared by identity, not by name (a case-insensitive file system, a bind
// mount). local is "" for a bucket: nothing to compare.
func checkApart(local, out string) error {
	if local == "" {
		return nil
	}
	dest, err := filepath.EvalSymlinks(local)
	if err != nil {
		return fmt.Errorf("bag: resolve the copy's folder %s: %w", local, err)
	}
	destInfo, err := os.Stat(dest)
	if err != nil {
		return fmt.Errorf("bag: %w", err)
	}
	outPath, err := resolve(out)
	if err != nil {
		return fmt.Errorf("bag: resolve %s: %w", out, err)
	}
	if within(outPath, destInfo) {
		return fmt.Errorf("bag: %s is inside the copy %s (rsx audit --dest would count the bag as extra files, and rsx sync --delete could remove them): give a folder outside it", out, local)
	}
	if outInfo, err := os.Stat(outPath); err == nil && within(dest, outInfo) {
		return fmt.Errorf("bag: the copy %s is inside the bag's folder %s: give a folder outside it", local, out)
	}
	return nil
}

// within reports whether p, a resolved absolute path, is the folder dir or
// inside it.
func within(p string, dir os.FileInfo) bool {
	for {
		if fi, err := os.Stat(p); err == nil && os.SameFile(fi, dir) {
			return true
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		p = parent
	}
}

// resolve is p made absolute with its symbolic links resolved, as far as it
// exists (what does not exist yet cannot be a link). ".." is taken as the
// file system takes it: after the link before it, not by cutting the name
// before it (filepath.Abs would).
func resolve(p string) (string, error) {
	if !filepath.IsAbs(p) {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		p = wd + string(filepath.Separator) + p
	}
	parts := strings.Split(p, string(filepath.Separator))
	for n := len(parts); n > 0; n-- {
		head := strings.Join(parts[:n], string(filepath.Separator))
		if head == "" {
			head = string(filepath.Separator)
		}
		real, err := filepath.EvalSymlinks(head)
		if err != nil {
			continue
		}
		return filepath.Join(append([]string{real}, parts[n:]...)...), nil
	}
	return filepath.Clean(p), nil
}
