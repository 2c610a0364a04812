package memento

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseLinks(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Link
		err  string // part of the error, "" for none
	}{
		{"empty", "", nil, ""},
		{"white space", " \n\t", nil, ""},
		{"RFC 6690 example", `</sensors>;ct=40;title="Sensor Index",</sensors/temp>;rt="temperature-c";if="sensor",</t>;anchor="/sensors/temp";rel="describedby"`, []Link{
			{Target: "/sensors", Offset: 0, Params: []Param{{"ct", "40", true}, {"title", "Sensor Index", true}}},
			{Target: "/sensors/temp", Offset: 38, Params: []Param{{"rt", "temperature-c", true}, {"if", "sensor", true}}},
			{Target: "/t", Offset: 85, Params: []Param{{"anchor", "/sensors/temp", true}, {"rel", "describedby", true}}},
		}, ""},
		{"RFC 7089 TimeMap lines", "<http://a.example/x>;rel=\"original\",\n<http://a.example/tm>\n ; rel=\"self\";type=\"application/link-format\"\n ; from=\"Tue, 20 Jun 2000 18:02:59 GMT\",\n", []Link{
			{Target: "http://a.example/x", Params: []Param{{"rel", "original", true}}},
			{Target: "http://a.example/tm", Offset: 37, Params: []Param{{"rel", "self", true}, {"type", "application/link-format", true}, {"from", "Tue, 20 Jun 2000 18:02:59 GMT", true}}},
		}, ""},
		{"escapes and bare params", `<x>;title="a \"b\" \\c";obs;rel=first`, []Link{
			{Target: "x", Params: []Param{{"title", `a "b" \c`, true}, {"obs", "", false}, {"rel", "first", true}}},
		}, ""},
		{"unclosed target", `<http://a`, nil, "never closed"},
		{"no target", `rel="x"`, nil, "expected '<'"},
		{"unclosed quote", `<x>;rel="memento`, nil, "quoted string is never closed"},
		{"bad separator", `<x> <y>`, nil, "expected ','"},
		{"empty value", `<x>;rel=`, nil, "value of rel is missing"},
		{"bad value", `<x>;rel=,`, nil, "neither a token nor a quoted string"},
		{"missing name", `<x>;="a"`, nil, "expected a parameter name"},
		{"newline in target", "<x\ny>", nil, "inside a link target"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseLinks([]byte(tt.in))
			if tt.err != "" {
				var se *SyntaxError
				if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.As(err, &se) {
					t.Fatalf("error %v, want one about %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// The demo's TimeMap, as rsx serve writes it.
const demoTimeMap = `<http://127.0.0.1:8421/dataset1/res/000005.json>;rel="original",
<http://127.0.0.1:8421/timemap/dataset1/res/000005.json>;rel="self";type="application/link-format",
<http://127.0.0.1:8421/timegate/dataset1/res/000005.json>;rel="timegate",
<http://127.0.0.1:8421/dataset1/versions/v2/000005.json>;rel="memento";datetime="Mon, 05 Jan 2026 06:00:00 GMT",
<http://127.0.0.1:8421/dataset1/versions/v1/000005.json>;rel="first memento";datetime="Sun, 04 Jan 2026 09:00:00 GMT",
</versions/v3/000005.json>;rel="last memento";datetime="Mon, 05 Jan 2026 08:45:00 GMT"
`

func TestParseTimeMap(t *testing.T) {
	tm, err := ParseTimeMap([]byte(demoTimeMap), "http://127.0.0.1:8421/timemap/dataset1/res/000005.json")
	if err != nil {
		t.Fatal(err)
	}
	if tm.Original != "http://127.0.0.1:8421/dataset1/res/000005.json" || tm.TimeGate != "http://127.0.0.1:8421/timegate/dataset1/res/000005.json" ||
		tm.Self != "http://127.0.0.1:8421/timemap/dataset1/res/000005.json" || len(tm.Problems) != 0 {
		t.Errorf("timemap %+v", tm)
	}
	var got []string
	for _, m := range tm.Mementos {
		got = append(got, m.Datetime.Format(time.RFC3339)+" "+m.URL)
	}
	want := []string{
		"2026-01-04T09:00:00Z http://127.0.0.1:8421/dataset1/versions/v1/000005.json",
		"2026-01-05T06:00:00Z http://127.0.0.1:8421/dataset1/versions/v2/000005.json",
		"2026-01-05T08:45:00Z http://127.0.0.1:8421/versions/v3/000005.json", // relative, resolved
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mementos:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !tm.Mementos[0].IsFirst() || !tm.Mementos[2].IsLast() || tm.Mementos[1].IsFirst() {
		t.Error("first/last relations lost")
	}
	for _, tc := range []struct {
		at   string
		want int
	}{{"2020-01-01T00:00:00Z", 0}, {"2026-01-04T09:00:00Z", 0}, {"2026-01-05T07:00:00Z", 1}, {"2030-01-01T00:00:00Z", 2}} {
		at, _ := time.Parse(time.RFC3339, tc.at)
		if got := tm.At(at); got != tc.want {
			t.Errorf("At(%s) = %d, want %d", tc.at, got, tc.want)
		}
	}
	if tm.Index("http://127.0.0.1:8421/dataset1/versions/v2/000005.json") != 1 || tm.Index("x") != -1 {
		t.Error("Index")
	}
}

func TestParseTimeMapProblems(t *testing.T) {
	tm, err := ParseTimeMap([]byte(`<a>;rel=memento;datetime="yesterday",<b>;rel=memento,<c>;rel=memento;datetime="Mon, 05 Jan 2026 06:00:00 GMT"`), "http://x.example/tm")
	if err != nil {
		t.Fatal(err)
	}
	if len(tm.Problems) != 3 { // two bad mementos, no original
		t.Errorf("problems %q", tm.Problems)
	}
	if tm.Mementos[0].URL != "http://x.example/c" || tm.Mementos[1].URL != "http://x.example/a" {
		t.Errorf("mementos without a datetime go last, in document order: %+v", tm.Mementos)
	}
	if _, err := ParseTimeMap([]byte("<a"), ""); err == nil || !strings.Contains(err.Error(), "read the TimeMap") {
		t.Errorf("a broken TimeMap: %v", err)
	}
}

func TestParseWhen(t *testing.T) {
	for in, want := range map[string]string{
		"2026":                          "2026-01-01T00:00:00Z",
		"2026-01-05":                    "2026-01-05T00:00:00Z",
		"2026-01-05T10:30Z":             "2026-01-05T10:30:00Z",
		"2026-01-05T10:30":              "2026-01-05T10:30:00Z",
		"2026-01-05 10:30:15":           "2026-01-05T10:30:15Z",
		"2026-01-05T10:30:00+02:00":     "2026-01-05T08:30:00Z",
		"Mon, 05 Jan 2026 06:00:00 GMT": "2026-01-05T06:00:00Z",
	} {
		got, err := ParseWhen(in)
		if err != nil || got.Format(time.RFC3339) != want {
			t.Errorf("ParseWhen(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "yesterday", "2026-13-01", "05/01/2026"} {
		if _, err := ParseWhen(in); err == nil {
			t.Errorf("ParseWhen(%q) took it", in)
		}
	}
	at := time.Date(2026, 1, 5, 6, 0, 0, 0, time.UTC)
	if s := FormatHTTPDate(at.In(time.FixedZone("x", 3600))); s != "Mon, 05 Jan 2026 06:00:00 GMT" {
		t.Errorf("FormatHTTPDate = %q", s)
	}
}

// FuzzParseLinks: any input parses or fails with a SyntaxError, never
// panics, and what parses writes back (Link.String) to the same links.
func FuzzParseLinks(f *testing.F) {
	f.Add([]byte(demoTimeMap))
	f.Add([]byte(`</sensors>;ct=40;title="Sensor Index",</t>;anchor="/x";rel="describedby"`))
	f.Add([]byte(`<x>;title="a \"b\" \\c";obs;rel=first`))
	f.Add([]byte("<a"))
	f.Fuzz(func(t *testing.T, in []byte) {
		links, err := ParseLinks(in)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(in) {
				t.Fatalf("error %v is not a SyntaxError within the input", err)
			}
			return
		}
		parts := make([]string, len(links))
		for i, l := range links {
			if l.Offset < 0 || l.Offset >= len(in) || in[l.Offset] != '<' {
				t.Fatalf("link %d offset %d is not its '<'", i, l.Offset)
			}
			parts[i] = l.String()
		}
		again, err := ParseLinks([]byte(strings.Join(parts, ",")))
		if err != nil {
			t.Fatalf("written back %q does not parse: %v", strings.Join(parts, ","), err)
		}
		if len(again) != len(links) {
			t.Fatalf("%d links written back as %d", len(links), len(again))
		}
		for i := range links {
			if again[i].Target != links[i].Target || !reflect.DeepEqual(again[i].Params, links[i].Params) {
				t.Fatalf("link %d: %+v written back as %+v", i, links[i], again[i])
			}
		}
		_, _ = ParseTimeMap(in, "http://example.org/tm")
	})
}
