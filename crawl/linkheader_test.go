package crawl

import (
	"reflect"
	"testing"
)

func TestParseLinkHeader(t *testing.T) {
	type want struct {
		target string
		rel    []string
	}
	tests := []struct {
		name   string
		values []string
		want   []want
	}{
		{"spec example", []string{`<http://www.example.com/dataset1/capabilitylist.xml>;
         rel="resourcesync"`}, []want{{"http://www.example.com/dataset1/capabilitylist.xml", []string{"resourcesync"}}}},
		{"unquoted rel", []string{`</cl.xml>; rel=resourcesync`}, []want{{"/cl.xml", []string{"resourcesync"}}}},
		{"several rel tokens", []string{`<cl.xml>; rel="ResourceSync describedby"`}, []want{{"cl.xml", []string{"resourcesync", "describedby"}}}},
		{"several links in one header", []string{`<a>; rel="next", <b>; rel="resourcesync"`},
			[]want{{"a", []string{"next"}}, {"b", []string{"resourcesync"}}}},
		{"several headers", []string{`<a>; rel=up`, `<b>; rel=resourcesync`},
			[]want{{"a", []string{"up"}}, {"b", []string{"resourcesync"}}}},
		{"comma in quoted title", []string{`<a>; title="x, y; z"; rel="resourcesync", <b>; rel=next`},
			[]want{{"a", []string{"resourcesync"}}, {"b", []string{"next"}}}},
		{"comma in target", []string{`<http://h/a,b>; rel=resourcesync`}, []want{{"http://h/a,b", []string{"resourcesync"}}}},
		{"escaped quote", []string{`<a>; title="say \"hi\", ok"; rel=x`}, []want{{"a", []string{"x"}}}},
		{"first rel wins", []string{`<a>; rel=one; rel=two`}, []want{{"a", []string{"one"}}}},
		{"junk element skipped", []string{`garbage; rel=x, <b>; rel=resourcesync`}, []want{{"b", []string{"resourcesync"}}}},
		{"empty elements", []string{` , ,<a>;rel=x,,`}, []want{{"a", []string{"x"}}}},
		{"no rel", []string{`<a>`}, []want{{"a", nil}}},
		{"unterminated target", []string{`<a; rel=x`}, nil},
		{"unterminated quote", []string{`<a>; rel="resourcesync`}, []want{{"a", []string{"resourcesync"}}}},
		{"space around equals", []string{`<a> ; rel = "resourcesync" ; type = "application/xml"`}, []want{{"a", []string{"resourcesync"}}}},
		{"valueless param", []string{`<a>; crossorigin; rel=x`}, []want{{"a", []string{"x"}}}},
		{"empty", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseLinkHeader(tt.values)
			var gw []want
			for _, l := range got {
				gw = append(gw, want{l.Target, l.Rel})
			}
			if !reflect.DeepEqual(gw, tt.want) {
				t.Errorf("got %#v, want %#v", gw, tt.want)
			}
		})
	}
}

func TestWebLinkParamsAndResolve(t *testing.T) {
	ls := ParseLinkHeader([]string{`<../cl.xml>; rel="resourcesync"; anchor="#x"; Type="application/xml"; crossorigin`})
	if len(ls) != 1 {
		t.Fatalf("got %d links", len(ls))
	}
	l := ls[0]
	if v, ok := l.Param("type"); !ok || v != "application/xml" {
		t.Errorf("type = %q %v", v, ok)
	}
	if l.Anchor != "#x" {
		t.Errorf("anchor = %q", l.Anchor)
	}
	if !l.HasRel("RESOURCESYNC") {
		t.Error("HasRel is not case-insensitive")
	}
	if p := l.Params[len(l.Params)-1]; p.Name != "crossorigin" || !p.NoValue {
		t.Errorf("last param = %+v", p)
	}
	got, err := l.Resolve("http://127.0.0.1:8080/a/b/page.html")
	if err != nil || got != "http://127.0.0.1:8080/a/cl.xml" {
		t.Errorf("Resolve = %q, %v", got, err)
	}
}

func FuzzParseLinkHeader(f *testing.F) {
	f.Add(`<a>; rel="x, y", <b>; rel=z`)
	f.Add(`<a;`)
	f.Add(`"<a>`)
	f.Fuzz(func(t *testing.T, s string) {
		for _, l := range ParseLinkHeader([]string{s}) {
			_ = l.HasRel("resourcesync")
		}
	})
}
