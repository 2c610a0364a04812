package config

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"rsx/display"
)

// nested writes n levels of each kind of nesting TOML has.
func nested(kind string, n int) string {
	switch kind {
	case "inline tables":
		return "theme = " + strings.Repeat("{a = ", n) + "1" + strings.Repeat("}", n) + "\n"
	case "arrays":
		return "[keys]\nquit = " + strings.Repeat("[", n) + `"q"` + strings.Repeat("]", n) + "\n"
	case "dotted key":
		return strings.Repeat("a.", n) + "a = 1\n"
	case "table header":
		return "[" + strings.Repeat("a.", n) + "a]\nb = 1\n"
	case "array of tables":
		return "[[" + strings.Repeat("a.", n) + "a]]\nb = 1\n"
	case "header and keys":
		return "[" + strings.Repeat("a.", n/2) + "a]\nb = " + strings.Repeat("{c = ", n/2) + "1" + strings.Repeat("}", n/2) + "\n"
	}
	panic(kind)
}

// A configuration file nested 100,000 levels deep (inline tables, arrays,
// a dotted key, a table header) took gigabytes in the TOML library and
// killed every command for want of memory; one of more than MaxFileBytes
// (/dev/zero given as the file) was read until memory ran out. Both are
// refused with an error naming the file and the limit.
func TestLoadRefusesHugeOrDeepFiles(t *testing.T) {
	dir := t.TempDir()
	for _, kind := range []string{"inline tables", "arrays", "dotted key", "table header", "array of tables", "header and keys"} {
		t.Run(kind, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(kind, " ", "-")+".toml")
			if err := os.WriteFile(p, []byte(nested(kind, 100000)), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(p)
			if err == nil || !strings.Contains(err.Error(), "nested deeper than 64 levels") || !strings.Contains(err.Error(), p) {
				t.Fatalf("Load: %v; want an error saying it nests too deep", err)
			}
		})
	}
	t.Run("larger than the limit", func(t *testing.T) {
		p := filepath.Join(dir, "big.toml")
		text := "theme = \"auto\"\n" + strings.Repeat("# a comment line to fill the file\n", MaxFileBytes/30)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "larger than "+display.Size(MaxFileBytes)) {
			t.Fatalf("Load: %v; want an error naming the limit", err)
		}
		if err := os.WriteFile(p, []byte(text[:MaxFileBytes]), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p); err != nil {
			t.Fatalf("a file of exactly %d bytes: %v", MaxFileBytes, err)
		}
	})
	t.Run("/dev/zero", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("no /dev/zero")
		}
		if _, err := Load("/dev/zero"); err == nil || !strings.Contains(err.Error(), "larger than "+display.Size(MaxFileBytes)) {
			t.Fatalf("Load(/dev/zero): %v; want an error naming the limit", err)
		}
	})
}

func TestCheckDepth(t *testing.T) {
	tests := []struct {
		name, text string
		ok         bool
	}{
		{"a real file", "theme = \"auto\"\n[defaults]\nrate = 2.5\n[dest.archive]\nurl = \"s3://b/p?endpoint=http://h:1\"\n[keys]\nquit = [\"q\", \"ctrl+q\"]\n", true},
		{"a plain list of URLs", "# Sources\nhttps://a.b.c.example.org/x.y/capabilitylist.xml\nhttp://127.0.0.1:8080/dataset1/capabilitylist.xml\n", true},
		{"64 inline tables", nested("inline tables", 64), true},
		{"65 inline tables", nested("inline tables", 65), false},
		{"64 arrays", "x = " + strings.Repeat("[", 64) + strings.Repeat("]", 64), true},
		{"65 arrays", "x = " + strings.Repeat("[", 65) + strings.Repeat("]", 65), false},
		{"a dotted key of 65 parts", nested("dotted key", 64), true},
		{"a dotted key of 66 parts", nested("dotted key", 65), false},
		{"many floats in an array", "x = [" + strings.Repeat("1.5, ", 1000) + "2.5]\n", true},
		{"many dotted keys, one a line", strings.Repeat("a.b.c.d = 1\n", 1000), true},
		{"many inline tables side by side", "x = [" + strings.Repeat("{a.b = 1}, ", 1000) + "]\n", true},
		{"brackets in strings", "x = \"" + strings.Repeat("[{.", 100) + "\"\ny = '" + strings.Repeat("[{.", 100) + "'\n", true},
		{"brackets in a comment", "# " + strings.Repeat("[{.", 100) + "\n", true},
		{"brackets in multi-line strings", "x = \"\"\"\n" + strings.Repeat("[{.\"\n", 100) + "\"\"\"\ny = '''" + strings.Repeat("[{.'\n", 100) + "'''\n", true},
		{"an escaped quote does not end a string", `x = "a\"` + strings.Repeat("[", 100) + `"`, true},
		// The closing quotes of a multi-line string may be followed by two
		// more that are text: what follows is TOML again, and counted.
		{"quotes after a multi-line string", `x = ["""a"""", ` + strings.Repeat("[", 100) + strings.Repeat("]", 101), false},
		{"quotes after a literal multi-line string", `x = ['''a'''', ` + strings.Repeat("[", 100) + strings.Repeat("]", 101), false},
		// A one-line string ends at its line's end: TOML refuses the line
		// break, and the next line is counted.
		{"a one-line string not closed", "x = \"abc\n" + strings.Repeat("[", 100), false},
		{"a header's depth goes on below it", "[" + strings.Repeat("a.", 40) + "a]\nb = " + strings.Repeat("[", 30) + strings.Repeat("]", 30) + "\n", false},
		{"a new header starts again", "[" + strings.Repeat("a.", 40) + "a]\n[b]\nc = " + strings.Repeat("[", 30) + strings.Repeat("]", 30) + "\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckDepth([]byte(tt.text), MaxDepth)
			if (err == nil) != tt.ok {
				t.Fatalf("CheckDepth = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

// FuzzCheckDepth: whatever text CheckDepth lets through, what the TOML
// library makes of it nests no deeper than the limit allows (a container
// more than the levels counted: the document's own table).
func FuzzCheckDepth(f *testing.F) {
	for _, s := range []string{
		"a.b.c = {d.e = [1, [2, {f = 3}]]}\n",
		"[a.b]\nc.d = [[1]]\n[[e.f]]\ng = {h = 1}\n",
		"x = \"\"\"a\"\"\"\"\ny = '''b''''\n",
		"x = [\n  [1],\n  [2, [3]],\n]\n",
		"\"a.b\".c = 1\n'd.e'.f = {g = 2}\n",
		"https://example.org/a.b/capabilitylist.xml\n",
	} {
		f.Add(s)
	}
	const limit = 6
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 || CheckDepth([]byte(s), limit) != nil {
			return
		}
		var v map[string]any
		if _, err := toml.Decode(s, &v); err != nil {
			return
		}
		if d := treeDepth(v); d > limit+1 {
			t.Fatalf("CheckDepth let %q through: it decodes %d levels deep", s, d)
		}
	})
}

func treeDepth(v any) int {
	d := 0
	switch v := v.(type) {
	case map[string]any:
		for _, x := range v {
			d = max(d, treeDepth(x))
		}
	case []map[string]any:
		for _, x := range v {
			d = max(d, treeDepth(x))
		}
	case []any:
		for _, x := range v {
			d = max(d, treeDepth(x))
		}
	default:
		return 0
	}
	return d + 1
}
