package fetch

import (
	"net/url"
	"testing"
)

func TestRequestURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://h/a.txt", "http://h/a.txt"},
		{" http://h/a.txt\n", "http://h/a.txt"},
		{"http://h/100%.txt", "http://h/100%25.txt"},
		{"http://h/100%25.txt", "http://h/100%25.txt"},
		{"http://h/a%zz/b%4", "http://h/a%25zz/b%254"},
		{"http://h/%41%/x?q=50%&r=%20", "http://h/%41%25/x?q=50%25&r=%20"},
		{"http://h/ctl\x01%", "http://h/ctl%01%25"},
		{"http://h/é%", "http://h/%C3%A9%25"},
		{"http://h/a%#frag%", "http://h/a%25#frag%25"},
		{"http://h:8080/x%", "http://h:8080/x%25"},
		{"http://h", "http://h"},
	} {
		got := RequestURL(c.in)
		if got != c.want {
			t.Errorf("RequestURL(%q) = %q, want %q", c.in, got, c.want)
		}
		if _, err := url.Parse(got); err != nil {
			t.Errorf("RequestURL(%q) = %q, which net/url refuses: %v", c.in, got, err)
		}
	}
}

func FuzzRequestURL(f *testing.F) {
	for _, s := range []string{"http://h/100%.txt", "http://h/a b", "https://x/é?%", "%", "http://[::1]/%g"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := RequestURL(s)
		if _, err := url.Parse(s); err == nil {
			return
		}
		// What is escaped parses, unless the part before the path (scheme
		// and host) was itself bad: that is left alone.
		if _, err := url.Parse(got); err != nil {
			u, herr := url.Parse(got[:hostEnd(got)])
			if herr == nil && u != nil {
				t.Errorf("RequestURL(%q) = %q, refused: %v", s, got, err)
			}
		}
	})
}

func hostEnd(s string) int {
	i := 0
	for k := 0; k+1 < len(s); k++ {
		if s[k] == '/' && s[k+1] == '/' {
			i = k + 2
			break
		}
	}
	for ; i < len(s); i++ {
		if s[i] == '/' || s[i] == '?' || s[i] == '#' {
			return i
		}
	}
	return len(s)
}
