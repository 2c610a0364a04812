package suggest

import "testing"

func TestNearest(t *testing.T) {
	names := []string{"theme", "defaults", "dest", "keys", "help", "hist_back", "quit", "quit_cmd"}
	for _, c := range []struct{ in, want string }{
		{"themes", "theme"},
		{"them", "theme"},
		{"hlp", "help"},
		{"qit", "quit"},
		{"dst", "dest"},
		{"hist", "hist_back"}, // a prefix
		{"colour", ""},        // nothing near
		{"", ""},
	} {
		if got := Nearest(c.in, names); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"f1", "F1", 1}, {"same", "same", 0}} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
