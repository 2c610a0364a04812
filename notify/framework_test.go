package notify

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rsx/demo"
	"rsx/model"
)

// TestFrameworkTargetProblems: a framework notification against the
// documents it names (§5 of the Notification draft).
func TestFrameworkTargetProblems(t *testing.T) {
	header := func(doc string) *model.Header {
		d, err := model.Parse(strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		return &d.Header
	}
	const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`
	docs := map[string]*model.Header{
		"http://example.com/rl-index.xml": header(`<sitemapindex ` + ns + `><rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/></sitemapindex>`),
		"http://example.com/rl1.xml":      header(`<urlset ` + ns + `><rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/><rs:ln rel="index" href="http://example.com/rl-index.xml"/></urlset>`),
		"http://example.com/cl.xml":       header(`<urlset ` + ns + `><rs:md capability="changelist" from="2013-01-03T09:00:00Z"/></urlset>`),
	}
	get := func(_ context.Context, u string) (*model.Header, error) {
		if h, ok := docs[u]; ok {
			return h, nil
		}
		return nil, errors.New("404")
	}
	entry := func(loc, change, links string) string {
		return fmt.Sprintf(`<url><loc>%s</loc><rs:md change=%q capability="resourcelist"/>%s</url>`, loc, change, links)
	}
	tests := []struct {
		name    string
		entries string
		want    string // rules, space-separated
	}{
		{"a document under its index, named", entry("http://example.com/rl1.xml", "created", `<rs:ln rel="index" href="http://example.com/rl-index.xml"/>`), ""},
		{"an index notified", entry("http://example.com/rl-index.xml", "updated", ""), model.RuleFrameworkIndexLevel},
		{"the index not named", entry("http://example.com/rl1.xml", "created", ""), model.RuleFrameworkIndexLinkMissing},
		{"another index named", entry("http://example.com/rl1.xml", "created", `<rs:ln rel="index" href="http://example.com/other-index.xml"/>`), model.RuleFrameworkIndexLinkMalformed},
		{"a document under no index", entry("http://example.com/cl.xml", "updated", ""), ""},
		{"a deleted document is not fetched", entry("http://example.com/rl-index.xml", "deleted", ""), ""},
		{"a document that cannot be fetched is not judged", entry("http://example.com/gone.xml", "created", ""), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := model.Parse(strings.NewReader(`<urlset ` + ns + `><rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>` + tt.entries + `</urlset>`))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range FrameworkTargetProblems(context.Background(), get, d) {
				got = append(got, p.Rule)
				if p.Entry != 0 || p.Severity != model.SeverityError || p.Section != "N5" || !strings.Contains(p.Message, "entry 1 (") || !strings.HasSuffix(p.Message, "(§N5 of the Notification draft)") {
					t.Errorf("problem %+v", p)
				}
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("rules %v, want %q", got, tt.want)
			}
		})
	}
}

// TestWatchChecksFrameworkDocuments: with Options.CheckDocuments the demo's
// framework notifications, checked against the Change Lists they name, stay
// clean (the demo names the index its Change Lists reside under).
func TestWatchChecksFrameworkDocuments(t *testing.T) {
	srv := startDemo(t, demo.Options{Resources: 200, Tick: 25 * time.Millisecond, LiveChangeLists: -1})
	found, err := Find(context.Background(), testClient(t), srv.URL+"/dataset1/capabilitylist.xml")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := fastOptions()
	var fetched atomic.Int64
	inner := HTTPHeaderFetcher(&http.Client{}, nil, 1<<20)
	o.CheckDocuments = func(ctx context.Context, u string) (*model.Header, error) {
		fetched.Add(1)
		return inner(ctx, u)
	}
	events := Watch(ctx, found.Channels, o)
	got := collect(t, events, 20*time.Second, func(es []Event) bool { return count(es, EventNotification, KindFramework) >= 2 })
	cancel()
	for range events {
	}
	for _, e := range got {
		if e.Type == EventNotification && e.Channel.Kind == KindFramework && len(e.Problems) != 0 {
			t.Errorf("framework notification %s: %v", e.Raw, e.Problems)
		}
	}
	if fetched.Load() == 0 {
		t.Error("no notified document was fetched")
	}
}
