package fetch

import (
	"net/url"
	"reflect"
	"testing"
)

func TestParseNetrc(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []netrcEntry
	}{
		{"one line", "machine example.org login me password secret",
			[]netrcEntry{{Machine: "example.org", Login: "me", Password: "secret"}}},
		{"several lines, comments, case", "# mine\nmachine A.Example.org\n  login me # trailing\n  password p1\n\nmachine b login you password p2 account acc\n",
			[]netrcEntry{{Machine: "a.example.org", Login: "me", Password: "p1"}, {Machine: "b", Login: "you", Password: "p2", Account: "acc"}}},
		{"quoted", `machine h login "my name" password "a \"q\" b"`,
			[]netrcEntry{{Machine: "h", Login: "my name", Password: `a "q" b`}}},
		{"default", "default login x password y\nmachine h login l password p",
			[]netrcEntry{{Login: "x", Password: "y"}, {Machine: "h", Login: "l", Password: "p"}}},
		{"macdef skipped", "machine h login l password p\nmacdef init\ncd /pub\nbinary\n\nmachine k login m password q\n",
			[]netrcEntry{{Machine: "h", Login: "l", Password: "p"}, {Machine: "k", Login: "m", Password: "q"}}},
		{"CRLF", "machine h\r\nlogin l\r\npassword p\r\n",
			[]netrcEntry{{Machine: "h", Login: "l", Password: "p"}}},
		{"empty", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseNetrc(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseNetrcErrors(t *testing.T) {
	for _, in := range []string{
		"machine",
		"machine h login",
		"login l password p",
		`machine h password "open`,
		"machine h frobnicate x",
	} {
		if _, err := parseNetrc(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestLookupNetrc(t *testing.T) {
	entries := []netrcEntry{{Login: "d", Password: "d"}, {Machine: "example.org", Login: "u", Password: "p"},
		{Machine: "example.org:8443", Login: "admin", Password: "q"}, {Machine: "[::1]:9000", Login: "v6", Password: "r"}}
	for raw, want := range map[string]string{
		"https://EXAMPLE.org/x":     "u",
		"http://example.org/x":      "u",
		"https://example.org:443/x": "u",
		"http://example.org:80/x":   "u",
		"https://example.org:8443/": "admin", // an entry with the port
		"http://example.org:8080/":  "",      // another service on the same host: not its credentials
		"http://example.org:443/":   "",      // http on 443 is not the default port
		"http://[::1]:9000/":        "v6",
		"http://other.org/":         "", // the default entry is never used
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		e, err := lookupNetrc(entries, u)
		if got := e.Login; (err != nil) != (want == "") || got != want {
			t.Errorf("%s: %q %v, want %q", raw, got, err, want)
		}
	}
}

func FuzzParseNetrc(f *testing.F) {
	f.Add("machine h login l password p")
	f.Add("macdef x\nline\n\nmachine \"q\\\"\" login")
	f.Add("# c\ndefault login a password b account c")
	f.Fuzz(func(t *testing.T, in string) {
		entries, err := parseNetrc(in)
		if err != nil && entries != nil {
			t.Fatal("entries returned with an error")
		}
	})
}
