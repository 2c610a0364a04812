package display

import "strings"

// ShellWord is s as one word of a POSIX shell: as it is when it holds no
// character the shell reads, else in single quotes (an s3:// URL's ? and
// &, a folder with a space), so that a command rsx suggests can be pasted.
func ShellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+,-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Command is the command line of args, each a shell word (ShellWord) but
// the flags and the program's name rsx.
func Command(args ...string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.HasPrefix(a, "-") || a == "rsx" {
			out[i] = a
			continue
		}
		out[i] = ShellWord(a)
	}
	return strings.Join(out, " ")
}
