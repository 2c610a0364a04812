package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"rsx/crawl"
	"rsx/model"
)

// discoverFlags are the options of rsx discover.
type discoverFlags struct {
	json bool
}

func newDiscoverCmd(a *app) *cobra.Command {
	var f discoverFlags
	cmd := &cobra.Command{
		Use: "discover [--json] URL",
		Example: `  rsx serve --addr 127.0.0.1:8080 &    # the demo Source, which these examples use
  rsx discover http://127.0.0.1:8080/
  rsx discover --json http://127.0.0.1:8080/dataset1/res/000001.html`,
		Short: "Find a Source's ResourceSync documents from any URL",
		Long: `Find ResourceSync from any URL — a site root, an HTML page, any resource, robots.txt
or a ResourceSync document — by every method of section 6.3 of the specification:
the well-known URI /.well-known/resourcesync at the host root and under each path
prefix of URL, the Sitemap lines of robots.txt (whose Crawl-delay is honoured),
<link rel="resourcesync"> in an HTML page, rel="resourcesync" in HTTP Link headers,
and URL itself. Every request is reported. Up links are then followed to the Source
Description, whose Capability Lists are listed.

Exit status: 0 a Source Description or a Capability List was found; 1 URL was
reached but nothing ResourceSync was found from it; 2 URL is not an http(s) URL or
could not be reached at all.`,
		Args: oneArg("URL", "a site root, an HTML page, any resource or a ResourceSync document"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runDiscover(cmd.Context(), f, args[0])
		},
	}
	cmd.Flags().BoolVar(&f.json, "json", false, "print one JSON document on standard output")
	return cmd
}

func (a *app) runDiscover(ctx context.Context, f discoverFlags, target string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	client, err := a.http.client(target)
	if err != nil {
		return failed(err)
	}
	d, err := crawl.Discover(ctx, client, target, crawl.DiscoverOptions{UserAgent: client.Options().UserAgent})
	if err != nil {
		return failed(err)
	}
	if f.json {
		if err := writeDiscoverJSON(a.out, d); err != nil {
			return failed(err)
		}
	} else {
		writeDiscoverText(a.out, d, newTextStyles(useColor(a.out)))
	}
	return discoverExit(d)
}

// discoverExit: 0 when a Source Description or Capability List was found, 2
// when the input gave no HTTP response at all, 1 otherwise.
func discoverExit(d *crawl.Discovery) error {
	switch {
	case d.OK():
		return nil
	case !d.InputReached:
		msg := "discover: " + d.Input + " could not be reached"
		for _, at := range d.Attempts {
			if at.Method == crawl.MethodInput && at.Err != "" {
				msg = "discover: " + at.Err
			}
		}
		return failed(errors.New(msg))
	default:
		return foundProblems()
	}
}

// JSON shapes of the CLI contract, plus root, up_chain, found and notes of
// attempts.
type jsonDiscovery struct {
	Input             string        `json:"input"`
	Found             []jsonFound   `json:"found"`
	SourceDescription *string       `json:"source_description"`
	CapabilityLists   []string      `json:"capability_lists"`
	UpChain           []string      `json:"up_chain"`
	Attempts          []jsonAttempt `json:"attempts"`
}

type jsonFound struct {
	Method     string `json:"method"`
	URL        string `json:"url"`
	Capability string `json:"capability"`
	Index      bool   `json:"index"`
	Title      string `json:"title"`
}

type jsonAttempt struct {
	Method string   `json:"method"`
	URL    string   `json:"url"`
	Status *int     `json:"status"`
	Error  *string  `json:"error"`
	Found  []string `json:"found"`
	Notes  []string `json:"notes"`
}

func writeDiscoverJSON(w io.Writer, d *crawl.Discovery) error {
	out := jsonDiscovery{
		Input:           d.Input,
		Found:           make([]jsonFound, 0, len(d.Found)),
		CapabilityLists: append(make([]string, 0, len(d.CapabilityLists)), d.CapabilityLists...),
		UpChain:         append(make([]string, 0, len(d.UpChain)), d.UpChain...),
		Attempts:        make([]jsonAttempt, 0, len(d.Attempts)),
	}
	if d.SourceDescription != "" {
		sd := d.SourceDescription
		out.SourceDescription = &sd
	}
	for _, f := range d.Found {
		out.Found = append(out.Found, jsonFound{
			Method: f.Method, URL: f.URL, Capability: string(f.Capability),
			Index: f.Root == model.RootSitemapIndex, Title: model.DocumentTitle(f.Capability, f.Root),
		})
	}
	for _, at := range d.Attempts {
		ja := jsonAttempt{
			Method: at.Method, URL: at.URL,
			Found: append(make([]string, 0, len(at.Found)), at.Found...),
			Notes: append(make([]string, 0, len(at.Notes)), at.Notes...),
		}
		if at.Status != 0 {
			st := at.Status
			ja.Status = &st
		}
		if at.Err != "" {
			e := at.Err
			ja.Error = &e
		}
		out.Attempts = append(out.Attempts, ja)
	}
	return writeJSON(w, out)
}

func writeDiscoverText(w io.Writer, d *crawl.Discovery, st textStyles) {
	var b strings.Builder
	b.WriteString(st.title("Discovery from "+esc(d.Input)) + "\n\n")
	b.WriteString(st.title("Attempts") + "\n")
	for _, at := range d.Attempts {
		status := "---"
		if at.Status != 0 {
			status = strconv.Itoa(at.Status)
		}
		mark := st.dim("·")
		switch {
		case at.Err != "":
			mark = st.err("✗")
		case len(at.Found) > 0:
			mark = st.rule("✓")
		}
		fmt.Fprintf(&b, "  %s %s %s %s\n", mark, pad(at.Method, 11), st.dim(pad(status, 3)), esc(at.URL))
		if at.Err != "" {
			fmt.Fprintf(&b, "      %s\n", st.err(esc(at.Err)))
		}
		for _, f := range at.Found {
			if f != at.URL {
				fmt.Fprintf(&b, "      → %s\n", esc(f))
			}
		}
		for _, n := range at.Notes {
			fmt.Fprintf(&b, "      %s\n", st.dim(esc(n)))
		}
	}
	b.WriteString("\n" + st.title("Found") + "\n")
	if len(d.Found) == 0 {
		b.WriteString("  " + st.err("no ResourceSync document") + "\n")
	}
	for _, f := range d.Found {
		fmt.Fprintf(&b, "  %s %s %s\n", pad(f.Method, 11), pad(esc(model.DocumentTitle(f.Capability, f.Root)), 22), esc(f.URL))
	}
	b.WriteString("\n")
	if len(d.UpChain) > 1 {
		b.WriteString(st.title("Up links") + "\n")
		for i, u := range d.UpChain {
			fmt.Fprintf(&b, "  %s%s\n", strings.Repeat("  ", i), esc(u))
		}
		b.WriteString("\n")
	}
	if d.SourceDescription != "" {
		fmt.Fprintf(&b, "%s %s\n", st.title("Source Description"), esc(d.SourceDescription))
	} else {
		fmt.Fprintf(&b, "%s %s\n", st.title("Source Description"), st.err("not reached"))
	}
	fmt.Fprintf(&b, "%s (%d)\n", st.title("Capability Lists"), len(d.CapabilityLists))
	for _, c := range d.CapabilityLists {
		fmt.Fprintf(&b, "  %s\n", esc(c))
	}
	io.WriteString(w, b.String())
}
