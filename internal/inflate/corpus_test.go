package inflate

import (
	"fmt"
	"math/rand/v2"
)

// sitemapLike returns a text-like corpus: a sitemap of n entries with
// varying URLs, dates and digests, as the documents rsx reads.
func sitemapLike(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var b []byte
	b = append(b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">`+"\n"...)
	words := []string{"alpha", "beta", "gamma", "delta", "res", "data", "item", "record", "page", "doc"}
	for i := range n {
		b = fmt.Appendf(b, "<url><loc>http://example.com/%s/%s/%d.xml</loc><lastmod>2013-01-%02dT%02d:%02d:%02dZ</lastmod><rs:md hash=\"md5:%016x%016x\" length=\"%d\" type=\"text/xml\"/></url>\n",
			words[rng.IntN(len(words))], words[rng.IntN(len(words))], i, 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60), rng.Uint64(), rng.Uint64(), rng.IntN(100000))
	}
	b = append(b, "</urlset>\n"...)
	return b
}
