package pathmap

import "testing"

func TestAllowed(t *testing.T) {
	rule, err := ParseRule("http://mirror.example/pub/=mirror")
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Authorities: []string{"http://example.org/cap.xml", "https://example.org:8443/"}, Rules: []Rule{rule}})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := New(Options{AllowOtherHosts: true})
	for _, tc := range []struct {
		uri       string
		want, any bool
	}{
		{"http://example.org/r/1", true, true},
		{"http://EXAMPLE.org:80/r/1", true, true},
		{"https://example.org:8443/x", true, true},
		{"http://example.org:8080/x", false, true},
		{"http://169.254.169.254/latest/meta-data/", false, true},
		{"http://mirror.example/pub/a", true, true},
		{"http://mirror.example/private", false, true},
		{"ftp://example.org/x", false, false},
		{"not a uri", false, false},
	} {
		if got := m.Allowed(tc.uri); got != tc.want {
			t.Errorf("Allowed(%q) = %v", tc.uri, got)
		}
		if got := all.Allowed(tc.uri); got != tc.any {
			t.Errorf("with other hosts: Allowed(%q) = %v", tc.uri, got)
		}
	}
	if !SameAuthority("http://example.org/a", "http://Example.org:80/b") || SameAuthority("http://example.org/a", "http://example.org:81/a") {
		t.Error("SameAuthority")
	}
}
