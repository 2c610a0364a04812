package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"strings"

	"rsx/crawl"
	"rsx/fetch"
	"rsx/model"
)

// treeTargetKind tells what rsx tree was given: an http(s) URL, an
// existing local file, or neither (an error in words).
func treeTargetKind(target string) (local bool, err error) {
	switch {
	case model.IsHTTPURL(target):
		return false, nil
	case model.IsLocal(target):
		if _, err := os.Stat(model.LocalPath(target)); errors.Is(err, fs.ErrNotExist) {
			return true, fmt.Errorf("%q is neither an http(s) URL nor an existing file%s", target, schemeHint(target))
		} else if err != nil {
			return true, fmt.Errorf("cannot read %s: %w", target, err)
		}
		return true, nil
	}
	return false, fmt.Errorf("%q is neither an http(s) URL nor a local file%s", target, schemeHint(target))
}

// schemeHint is what an error about target, which is no URL, adds when
// target reads as one written without its scheme (example.org/cap.xml):
// the URL meant; "" otherwise.
func schemeHint(target string) string {
	if meant := fetch.SchemeFor(target); meant != "" {
		return "; for the web, give the scheme: " + meant
	}
	return ""
}

// rsx tree takes what rsx sync and the explorer take: a ResourceSync
// document is walked as it is; a local file is read (the documents it lists
// are fetched over HTTP); an http(s) URL that is no ResourceSync document
// (a site root, an HTML page, robots.txt) starts discovery, crawl.Discover as
// sync's resolver and the explorer run it, and the tree starts at the Source
// Description it reaches, or at the one Capability List it finds.

// discoveredRoot runs discovery from target, which was read and is no
// ResourceSync document, and returns the document the tree starts at and a
// note saying how it was found. An error wraps errNotResourceSync when
// discovery found nothing; several Capability Lists without a Source
// Description to hold them are named, one to give.
func discoveredRoot(ctx context.Context, client *fetch.Client, target string, why error) (string, string, error) {
	d, err := crawl.Discover(ctx, client, target, crawl.DiscoverOptions{UserAgent: client.Options().UserAgent})
	if err != nil {
		return "", "", fmt.Errorf("discover the Source of %s: %w", target, err)
	}
	switch {
	case d.SourceDescription != "":
		return d.SourceDescription, "discovery from " + target + " found the Source Description " + d.SourceDescription, nil
	case len(d.CapabilityLists) == 1:
		return d.CapabilityLists[0], "discovery from " + target + " found the Capability List " + d.CapabilityLists[0], nil
	case len(d.CapabilityLists) > 1:
		return "", "", fmt.Errorf("discovery from %s found %d Capability Lists and no Source Description: give one of them: %s", target, len(d.CapabilityLists), strings.Join(d.CapabilityLists, ", "))
	}
	return "", "", notResourceSync(target, why, true)
}

// localTarget is the client of a tree whose TARGET is a local file: that
// file (and only it: a document cannot make rsx read other local files) is
// read from disk, everything else is fetched, and packages downloaded, with
// the client.
type localTarget struct {
	*fetch.Client
	path string
}

func (l localTarget) Get(ctx context.Context, url string) (*fetch.Response, error) {
	if url != l.path {
		return l.Client.Get(ctx, url)
	}
	o, err := fetch.Open(ctx, nil, url) // gzip undone
	if err != nil {
		return nil, err
	}
	return &fetch.Response{URL: url, Status: http.StatusOK, Header: http.Header{}, Body: o.Body}, nil
}
