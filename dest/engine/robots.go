package engine

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/temoto/robotstxt"

	"rsx/fetch"
)

const maxRobotsBytes = 512 << 10

// robotsLocation returns the host name of rawURL and the URL of its
// robots.txt, or "" when rawURL is not an http(s) URL.
func robotsLocation(rawURL string) (host, robots string) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", ""
	}
	return strings.ToLower(u.Hostname()), (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}).String()
}

// readCrawlDelay reads a robots.txt and returns the Crawl-delay of the
// group for agent, capped at limit, with a note for the plan when there is
// one to say. A robots.txt that is missing or unreadable asks for nothing.
func readCrawlDelay(ctx context.Context, g fetch.Getter, robotsURL, agent string, limit time.Duration) (time.Duration, string) {
	resp, err := g.Get(ctx, robotsURL)
	if err != nil {
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		return 0, ""
	}
	defer resp.Body.Close()
	if resp.Status < 200 || resp.Status > 299 {
		return 0, ""
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRobotsBytes))
	if err != nil {
		return 0, ""
	}
	data, err := robotstxt.FromStatusAndBytes(http.StatusOK, body)
	if err != nil || data == nil {
		return 0, ""
	}
	grp := data.FindGroup(agent)
	if grp == nil || grp.CrawlDelay <= 0 {
		return 0, ""
	}
	if grp.CrawlDelay > limit {
		return limit, fmt.Sprintf("Crawl-delay %v capped at %v", grp.CrawlDelay, limit)
	}
	return grp.CrawlDelay, fmt.Sprintf("Crawl-delay %v honoured", grp.CrawlDelay)
}
