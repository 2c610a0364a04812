package republish

import (
	"html/template"
	"io"
	"net/http"
	"strings"
	"time"

	"rsx/display"
)

// The pages: a home page that names the Sources (with the links that make
// them discoverable, §6.3.3), a page describing each Source (the
// describedby target of its Capability List), and robots.txt (§6.3.4).

var homePage = template.Must(template.New("home").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>A copy republished as a ResourceSync Source</title>
{{range .Sources}}<link rel="resourcesync" href="{{.Cap}}">
{{end}}</head>
<body>
<h1>A copy republished as a ResourceSync Source</h1>
<p>This Source republishes what an aggregator copied from other Sources (ResourceSync, ANSI/NISO Z39.99-2017, §12.7):
each entry of its lists links to the resource it was copied from (<code>rs:ln rel="via"</code>), with what that Source declared.
Its <a href="{{.Description}}">Source Description</a> lists {{.Count}}.
Every change of the copy up to {{.Until}} is served.</p>
<ul>
{{range .Sources}}<li><a href="{{.Cap}}">{{.Title}}</a>: a copy of <a href="{{.URL}}">{{.URL}}</a> (<a href="{{.About}}">about</a>)</li>
{{end}}</ul>
<p>Served by rsx serve --dest.</p>
</body>
</html>
`))

var aboutPage = template.Must(template.New("about").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<link rel="resourcesync" href="{{.Cap}}">
</head>
<body>
<h1>{{.Title}}</h1>
<p>A copy of the ResourceSync Source <a href="{{.URL}}">{{.URL}}</a>, republished (§12.7): its
<a href="{{.Cap}}">Capability List</a> lists the <a href="{{.RL}}">Resource List</a> of what the copy holds and the
<a href="{{.CL}}">Change Lists</a> of how it changed, each entry with a <code>rs:ln rel="via"</code> to the resource it was copied from.</p>
<p>Every change of the copy up to {{.Until}} is served.</p>
<p><a href="{{.Home}}">All the Sources of this copy</a></p>
</body>
</html>
`))

type pageSource struct {
	Title, URL, Cap, About, RL, CL string
}

func (s *Server) pageSource(ss *servedSource) pageSource {
	title := ss.title
	if title == "" {
		title = "Copy of " + ss.row.URL
	}
	return pageSource{Title: title, URL: ss.row.URL, Cap: s.capURL(ss), About: s.aboutURL(ss), RL: s.rlURL(ss), CL: s.clIndexURL(ss)}
}

func untilText(t time.Time) string {
	if t.IsZero() {
		return "now"
	}
	return t.UTC().Format(time.RFC3339)
}

func (s *Server) servePage(w http.ResponseWriter, r *http.Request, g *generation, key string, write func(io.Writer) error) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	s.serveDocAs(w, r, g, key, write)
}

func (s *Server) serveHome(w http.ResponseWriter, r *http.Request, g *generation) {
	data := struct {
		Sources            []pageSource
		Description, Until string
		Count              string
	}{Description: s.opts.BaseURL + wellKnown, Until: untilText(g.until), Count: display.Plural(len(g.sources), "Capability List", "Capability Lists")}
	for _, ss := range g.sources {
		data.Sources = append(data.Sources, s.pageSource(ss))
	}
	s.servePage(w, r, g, "home", func(bw io.Writer) error { return homePage.Execute(bw, data) })
}

func (s *Server) serveAbout(w http.ResponseWriter, r *http.Request, g *generation, ss *servedSource) {
	data := struct {
		pageSource
		Until, Home string
	}{s.pageSource(ss), untilText(g.until), s.opts.BaseURL + "/"}
	s.servePage(w, r, g, "about/"+ss.slug, func(bw io.Writer) error { return aboutPage.Execute(bw, data) })
}

func (s *Server) serveRobots(w http.ResponseWriter, r *http.Request, g *generation) {
	var b strings.Builder
	b.WriteString("User-agent: *\nAllow: /\n\n")
	for _, ss := range g.sources {
		b.WriteString("Sitemap: " + s.rlURL(ss) + "\n")
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	s.serveDocAs(w, r, g, "robots", func(bw io.Writer) error {
		_, err := io.WriteString(bw, b.String())
		return err
	})
}
