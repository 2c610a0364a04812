package cli

import (
	"bytes"
	"strings"
	"testing"
)

// rsx sync --help is read at once: under 60 lines, its flags and five
// examples, naming where the long explanations went; rsx help sync-guide
// and rsx help sync-follow hold them (issue 36: it was about 200 lines).
func TestSyncHelpIsShortAndTopicsHoldTheRest(t *testing.T) {
	help := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if code := run(args, streams{in: strings.NewReader(""), out: &out, err: &out}); code != exitOK {
			t.Fatalf("rsx %s: exit %d\n%s", strings.Join(args, " "), code, out.String())
		}
		return out.String()
	}
	sync := help("sync", "--help")
	if n := strings.Count(sync, "\n"); n >= 60 {
		t.Errorf("rsx sync --help has %d lines, want under 60:\n%s", n, sync)
	}
	_, ex, _ := strings.Cut(sync, "Examples:\n")
	ex, _, _ = strings.Cut(ex, "\n\n")
	if n := strings.Count(ex, "  rsx sync "); n != 5 {
		t.Errorf("rsx sync --help has %d examples, want 5:\n%s", n, ex)
	}
	for _, want := range []string{"rsx help sync-guide", "rsx help sync-follow", "docs/sync.md", "--checksum", "--rate"} {
		if !strings.Contains(sync, want) {
			t.Errorf("rsx sync --help does not mention %s", want)
		}
	}
	for topic, wants := range map[string][]string{
		"sync-guide":  {"reconciles", "--baseline-from dump", "DEST/.rsx/rejected/", "Exit status:", "--stall-timeout"},
		"sync-follow": {"--poll-interval", "--debounce", "--every D", "JSON Lines"},
	} {
		text := help("help", topic)
		for _, want := range wants {
			if !strings.Contains(text, want) {
				t.Errorf("rsx help %s does not say %q", topic, want)
			}
		}
	}
	if root := help("--help"); !strings.Contains(root, "rsx help sync-guide") {
		t.Errorf("rsx --help does not list the help topic sync-guide:\n%s", root)
	}
}
