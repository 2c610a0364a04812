package pages

import "github.com/alecthomas/chroma/v2"

// newXMLLexer builds a chroma regex lexer for XML from chroma's own API.
//
// It is not taken from chroma's lexers registry because importing that package
// registers every language chroma knows at program start: 7 ms added to every
// rsx command, rsx validate included, for the one lexer the raw view needs.
// The token types are the ones the raw view colours (tags, attributes,
// strings, entities, comments, processing instructions and CDATA).
func newXMLLexer() chroma.Lexer {
	return chroma.MustNewLexer(&chroma.Config{
		Name:      "XML",
		Aliases:   []string{"xml"},
		MimeTypes: []string{"application/xml", "text/xml"},
		DotAll:    true,
	}, func() chroma.Rules {
		return chroma.Rules{
			"root": {
				{Pattern: `[^<&\s]+`, Type: chroma.Text},
				{Pattern: `\s+`, Type: chroma.TextWhitespace},
				{Pattern: `&[#\w]+;`, Type: chroma.NameEntity},
				{Pattern: `<!\[CDATA\[.*?\]\]>`, Type: chroma.CommentPreproc},
				{Pattern: `<!--`, Type: chroma.Comment, Mutator: chroma.Push("comment")},
				{Pattern: `<\?.*?\?>`, Type: chroma.CommentPreproc},
				{Pattern: `<![^>]*>`, Type: chroma.CommentPreproc},
				{Pattern: `</\s*[\w:.-]+\s*>`, Type: chroma.NameTag},
				{Pattern: `<\s*[\w:.-]+`, Type: chroma.NameTag, Mutator: chroma.Push("tag")},
				{Pattern: `[<&]`, Type: chroma.Text},
			},
			"comment": {
				{Pattern: `[^-]+`, Type: chroma.Comment},
				{Pattern: `-->`, Type: chroma.Comment, Mutator: chroma.Pop(1)},
				{Pattern: `-`, Type: chroma.Comment},
			},
			"tag": {
				{Pattern: `\s+`, Type: chroma.TextWhitespace},
				{Pattern: `[\w:.-]+\s*=\s*`, Type: chroma.NameAttribute, Mutator: chroma.Push("value")},
				{Pattern: `/?>`, Type: chroma.NameTag, Mutator: chroma.Pop(1)},
				{Pattern: `[^\s/>=]+`, Type: chroma.NameAttribute},
				{Pattern: `.`, Type: chroma.Text},
			},
			"value": {
				{Pattern: `"[^"]*"`, Type: chroma.LiteralString, Mutator: chroma.Pop(1)},
				{Pattern: `'[^']*'`, Type: chroma.LiteralString, Mutator: chroma.Pop(1)},
				{Pattern: `[^\s/>]+`, Type: chroma.LiteralString, Mutator: chroma.Pop(1)},
				{Pattern: ``, Type: chroma.Text, Mutator: chroma.Pop(1)},
			},
		}
	})
}
