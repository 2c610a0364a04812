package model

import (
	"reflect"
	"strings"
	"testing"
)

// TestParseLinkValues is the one link-value parser, read both ways: the
// links a lenient reader (crawl's Link header) keeps, and the first error a
// strict one (memento's TimeMaps) stops at. The rows marked "disagreed" are
// where the two old parsers parted: the header parser took links from text
// that the link-format parser refused; both answers are now the same
// parse's.
func TestParseLinkValues(t *testing.T) {
	type L = LinkValue
	type P = LinkParam
	v := func(name, value string) P { return P{Name: name, Value: value, HasValue: true} }
	for _, tc := range []struct {
		name string
		in   string
		want []L
		err  string // part of the first error, "" for none
	}{
		{"empty", "", nil, ""},
		{"white space", " \n\t", nil, ""},
		{"RFC 8288 header", "<http://www.example.com/dataset1/capabilitylist.xml>;\n         rel=\"resourcesync\"",
			[]L{{Target: "http://www.example.com/dataset1/capabilitylist.xml", Params: []P{v("rel", "resourcesync")}}}, ""},
		{"RFC 6690 example", `</sensors>;ct=40;title="Sensor Index",</t>;anchor="/sensors/temp";rel="describedby"`, []L{
			{Target: "/sensors", Params: []P{v("ct", "40"), v("title", "Sensor Index")}},
			{Target: "/t", Offset: 38, Params: []P{v("anchor", "/sensors/temp"), v("rel", "describedby")}},
		}, ""},
		{"comma and semicolon in a quoted value", `<a>; title="x, y; z"; rel=next, <b>`,
			[]L{{Target: "a", Params: []P{v("title", "x, y; z"), v("rel", "next")}}, {Target: "b", Offset: 32}}, ""},
		{"comma in target", `<http://h/a,b>; rel=x`, []L{{Target: "http://h/a,b", Params: []P{v("rel", "x")}}}, ""},
		{"escapes and a bare parameter", `<x>;title="a \"b\" \\c";obs;rel=first`,
			[]L{{Target: "x", Params: []P{v("title", `a "b" \c`), {Name: "obs"}, v("rel", "first")}}}, ""},
		{"white space around separators", "< a > ; rel = \"x\" ;\n type = y ,\n", []L{{Target: "a", Params: []P{v("rel", "x"), v("type", "y")}}}, ""},
		{"names as written", `<a>; REL=x`, []L{{Target: "a", Params: []P{v("REL", "x")}}}, ""},
		{"trailing comma", `<a>,`, []L{{Target: "a"}}, ""},

		{"empty elements (disagreed)", ` , ,<a>;rel=x,,`, []L{{Target: "a", Offset: 4, Params: []P{v("rel", "x")}}}, "expected '<' to start a link, found ','"},
		{"junk element skipped (disagreed)", `garbage; rel=x, <b>; rel=y`, []L{{Target: "b", Offset: 16, Params: []P{v("rel", "y")}}}, "expected '<'"},
		{"junk with a quoted comma and a target (disagreed)", `x "a,b" <c,d>, <e>`, []L{{Target: "e", Offset: 15}}, "expected '<'"},
		{"target never closed", `<a; rel=x`, nil, "never closed with '>'"},
		{"quote never closed (disagreed)", `<a>; rel="resourcesync`, []L{{Target: "a", Params: []P{v("rel", "resourcesync")}}}, "quoted string is never closed"},
		{"a backslash at the end (disagreed)", `<a>; t="x\`, []L{{Target: "a", Params: []P{v("t", `x\`)}}}, "quoted string is never closed"},
		{"value missing at the end (disagreed)", `<x>;rel=`, []L{{Target: "x", Params: []P{v("rel", "")}}}, "value of rel is missing"},
		{"empty value (disagreed)", `<x>;rel=,<y>`, []L{{Target: "x", Params: []P{v("rel", "")}}, {Target: "y", Offset: 9}}, "neither a token nor a quoted string"},
		{"value not a token (disagreed)", `<a>; rel=café`, []L{{Target: "a", Params: []P{v("rel", "café")}}}, "neither a token nor a quoted string"},
		{"name missing (disagreed)", `<x>;="a";rel=y`, []L{{Target: "x", Params: []P{v("rel", "y")}}}, "expected a parameter name"},
		{"empty parameter (disagreed)", `<a>;;rel=x`, []L{{Target: "a", Params: []P{v("rel", "x")}}}, "expected a parameter name"},
		{"name missing at the end (disagreed)", `<a>;`, []L{{Target: "a"}}, "parameter name is missing at the end"},
		{"name not a token (disagreed)", `<a>; r"el=x`, []L{{Target: "a", Params: []P{v(`r"el`, "x")}}}, "in the parameter name"},
		{"newline in target (disagreed)", "<x\ny>", []L{{Target: "x\ny"}}, "inside a link target"},
		{"no comma between links (disagreed)", `<x> <y>, <z>`, []L{{Target: "x"}, {Target: "z", Offset: 9}}, "expected ',' or the end after a link"},
		{"junk after a parameter (disagreed)", `<a>; title=foo bar; rel=x, <b>`, []L{{Target: "a", Params: []P{v("title", "foo")}}, {Target: "b", Offset: 27}}, "expected ','"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, errs := ParseLinkValues(tc.in)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("links\n got  %+v\n want %+v", got, tc.want)
			}
			switch {
			case tc.err == "" && len(errs) > 0:
				t.Errorf("errors %v, want none", errs)
			case tc.err != "" && (len(errs) == 0 || !strings.Contains(errs[0].Msg, tc.err)):
				t.Errorf("errors %v, want the first about %q", errs, tc.err)
			}
		})
	}
}

// FuzzParseLinkValues: any text parses without a panic into links whose
// offsets are their '<', in order, with errors inside the text in order;
// text without errors writes back (LinkValue.String) to the same links.
func FuzzParseLinkValues(f *testing.F) {
	for _, s := range []string{
		`<a>; rel="x, y", <b>; rel=z`, `<a;`, `"<a>`, ` , ,<a>;rel=x,,`, `<a>; t="x\`, `<x>;="a";rel=y`,
		`</sensors>;ct=40;title="Sensor Index",</t>;anchor="/x";rel="describedby"`,
		"<http://a.example/tm>\n ; rel=\"self\";type=\"application/link-format\"\n ; from=\"Tue, 20 Jun 2000 18:02:59 GMT\",\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		links, errs := ParseLinkValues(s)
		last := -1
		for i, l := range links {
			if l.Offset <= last || l.Offset >= len(s) || s[l.Offset] != '<' {
				t.Fatalf("link %d offset %d is not its '<' after the last (%d)", i, l.Offset, last)
			}
			last = l.Offset
			if strings.Contains(l.Target, ">") {
				t.Fatalf("link %d target %q holds '>'", i, l.Target)
			}
		}
		last = 0
		for _, e := range errs {
			if e.Offset < last || e.Offset > len(s) || e.Msg == "" {
				t.Fatalf("error %v out of order (after byte %d) or outside the text", e, last)
			}
			last = e.Offset
		}
		if len(errs) > 0 {
			return
		}
		parts := make([]string, len(links))
		for i, l := range links {
			parts[i] = l.String()
		}
		back := strings.Join(parts, ",")
		again, errs := ParseLinkValues(back)
		if len(errs) > 0 {
			t.Fatalf("written back %q does not parse: %v", back, errs)
		}
		if len(again) != len(links) {
			t.Fatalf("%d links written back as %d", len(links), len(again))
		}
		for i := range links {
			if again[i].Target != links[i].Target || !reflect.DeepEqual(again[i].Params, links[i].Params) {
				t.Fatalf("link %d: %+v written back as %+v", i, links[i], again[i])
			}
		}
	})
}
