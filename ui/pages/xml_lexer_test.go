package pages

import (
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/chroma/v2"
)

func lexXML(t *testing.T, text string) []chroma.Token {
	t.Helper()
	done := make(chan []chroma.Token, 1)
	go func() {
		it, err := newXMLLexer().Tokenise(&chroma.TokeniseOptions{State: "root"}, text)
		if err != nil {
			t.Errorf("tokenise %q: %v", text, err)
			done <- nil
			return
		}
		done <- it.Tokens()
	}()
	select {
	case toks := <-done:
		return toks
	case <-time.After(5 * time.Second):
		t.Fatalf("tokenising %q did not finish", text)
		return nil
	}
}

func TestXMLLexerClasses(t *testing.T) {
	doc := `<?xml version="1.0"?>
<!-- a comment -->
<urlset xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:md capability='resourcelist' at=2013-01-03T09:00:00Z/>
  <url><loc>http://example.com/a?x=1&amp;y=2</loc></url>
  <![CDATA[ <not a tag> ]]>
</urlset>`
	toks := lexXML(t, doc)
	var rebuilt strings.Builder
	got := map[string]chroma.TokenType{}
	for _, tok := range toks {
		rebuilt.WriteString(tok.Value)
		if v := strings.TrimSpace(tok.Value); v != "" {
			if _, seen := got[v]; !seen {
				got[v] = tok.Type
			}
		}
	}
	if rebuilt.String() != doc {
		t.Fatalf("tokens do not rebuild the text:\n%s", rebuilt.String())
	}
	want := map[string]chroma.TokenType{
		`<?xml version="1.0"?>`:     chroma.CommentPreproc,
		`<!--`:                      chroma.Comment,
		`a comment`:                 chroma.Comment,
		`-->`:                       chroma.Comment,
		`<urlset`:                   chroma.NameTag,
		`<rs:md`:                    chroma.NameTag,
		`capability=`:               chroma.NameAttribute,
		`'resourcelist'`:            chroma.LiteralString,
		`2013-01-03T09:00:00Z`:      chroma.LiteralString,
		`/>`:                        chroma.NameTag,
		`&amp;`:                     chroma.NameEntity,
		`</urlset>`:                 chroma.NameTag,
		`<![CDATA[ <not a tag> ]]>`: chroma.CommentPreproc,
		`"http://www.openarchives.org/rs/terms/"`: chroma.LiteralString,
	}
	for text, typ := range want {
		if got[text] != typ {
			t.Errorf("%q lexed as %v, want %v", text, got[text], typ)
		}
	}
}

func TestXMLLexerMalformedTerminates(t *testing.T) {
	for _, text := range []string{
		`<a b=>`, `<a b= `, `<a "x">`, `<<<>>>`, `&&;`, `<!-- open`, `<![CDATA[ open`, `<a/`, `=`, "<a\x00b>", `<a b='x`, "",
	} {
		var rebuilt strings.Builder
		for _, tok := range lexXML(t, text) {
			rebuilt.WriteString(tok.Value)
		}
		if rebuilt.String() != text {
			t.Errorf("tokens of %q rebuild %q", text, rebuilt.String())
		}
	}
}
