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
	"rsx/display"
	"rsx/model"
)

// discoverFlags are the options of rsx discover.
type discoverFlags struct {
	json     bool
	coverage bool
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
Description, whose Capability Lists are listed. What is wrong with the Source is
named under Problems ("problems" in the JSON); it does not change the exit status.

With --coverage, for each Capability List that URL links to, the Resource Lists
and Change Lists it advertises (and their indexes, up to 200 documents) are read
to see whether they list URL, as section 6.3.3 requires of the Capability List a
resource links to (rule discovery-link-coverage).

Exit status: 0 a Source Description or a Capability List was found; 2 URL is
not an http(s) URL, could not be reached at all, or nothing ResourceSync was
found from it (as every command exits for a target that is no ResourceSync
document and leads to none).`,
		Args: oneArg("URL", "a site root, an HTML page, any resource or a ResourceSync document"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runDiscover(cmd.Context(), f, args[0])
		},
	}
	cmd.Flags().BoolVar(&f.json, "json", false, "print one JSON document on standard output")
	cmd.Flags().BoolVar(&f.coverage, "coverage", false, "check that URL is listed by the Capability Lists it links to (reads their Resource Lists and Change Lists)")
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
	if f.coverage {
		d.CheckCoverage(ctx, client, crawl.CoverageOptions{})
	}
	if f.json {
		if err := writeDiscoverJSON(a.out, d, discoverExit(d)); err != nil {
			return failed(err)
		}
	} else {
		writeDiscoverText(a.out, d, newTextStyles(useColor(a.out)))
	}
	return discoverExit(d)
}

// discoverExit: 0 when a Source Description or Capability List was found, 2
// when the input gave no HTTP response at all or nothing ResourceSync was
// found from it (the rule of every command for a TARGET that is no
// ResourceSync document and leads to none).
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
		// Reached, and nothing ResourceSync from it: the one rule (output.go).
		// (What each method found is the report above: no hint to run
		// rsx discover.)
		return failed(fmt.Errorf("discover: %w", &notResourceSyncError{
			msg: "nothing ResourceSync was found from " + d.Input + " (the attempts say what each method found)"}))
	}
}

// JSON shapes of the CLI contract, plus root, up_chain, found and notes of
// attempts, and problems: what discovery found wrong with the Source
// (crawl.Discovery.Problems).
type jsonDiscovery struct {
	Input             string              `json:"input"`
	Found             []jsonFound         `json:"found"`
	SourceDescription *string             `json:"source_description"`
	CapabilityLists   []string            `json:"capability_lists"`
	UpChain           []string            `json:"up_chain"`
	Attempts          []jsonAttempt       `json:"attempts"`
	Problems          []jsonDiscoverIssue `json:"problems"`
	Coverage          []jsonCoverage      `json:"coverage,omitempty"`
	// Error is set when the input could not be reached, or nothing
	// ResourceSync was found from it (exit status 2).
	Error *string `json:"error,omitempty"`
}

// jsonCoverage is one answer of --coverage (crawl.LinkCoverage).
type jsonCoverage struct {
	CapabilityList string  `json:"capability_list"`
	Judged         bool    `json:"judged"`
	Covered        bool    `json:"covered"`
	Where          *string `json:"where"`
	Read           int     `json:"documents_read"`
	Reason         *string `json:"reason"`
}

type jsonDiscoverIssue struct {
	Severity string `json:"severity"`
	Rule     string `json:"rule"`
	Section  string `json:"section"`
	Message  string `json:"message"`
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

func writeDiscoverJSON(w io.Writer, d *crawl.Discovery, exit error) error {
	out := jsonDiscovery{
		Input:           d.Input,
		Found:           make([]jsonFound, 0, len(d.Found)),
		CapabilityLists: append(make([]string, 0, len(d.CapabilityLists)), d.CapabilityLists...),
		UpChain:         append(make([]string, 0, len(d.UpChain)), d.UpChain...),
		Attempts:        make([]jsonAttempt, 0, len(d.Attempts)),
		Problems:        []jsonDiscoverIssue{},
	}
	for _, p := range d.Problems() {
		out.Problems = append(out.Problems, jsonDiscoverIssue{Severity: p.Severity.String(), Rule: p.Rule, Section: p.Section, Message: p.Message})
	}
	for _, lc := range d.Coverage {
		jc := jsonCoverage{CapabilityList: lc.CapabilityList, Judged: lc.Judged, Covered: lc.Covered, Read: lc.Read}
		if lc.Where != "" {
			w := lc.Where
			jc.Where = &w
		}
		if lc.Reason != "" {
			r := lc.Reason
			jc.Reason = &r
		}
		out.Coverage = append(out.Coverage, jc)
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
	var ee *exitError
	if errors.As(exit, &ee) && ee.code == exitFailure && ee.err != nil {
		msg := ee.err.Error()
		out.Error = &msg
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
	fmt.Fprintf(&b, "%s (%s)\n", st.title("Capability Lists"), display.Count(len(d.CapabilityLists)))
	for _, c := range d.CapabilityLists {
		fmt.Fprintf(&b, "  %s\n", esc(c))
	}
	for _, lc := range d.Coverage {
		switch {
		case lc.Covered:
			fmt.Fprintf(&b, "%s %s: listed by %s\n", st.title("Coverage"), esc(lc.CapabilityList), esc(lc.Where))
		case !lc.Judged:
			fmt.Fprintf(&b, "%s %s: %s\n", st.title("Coverage"), esc(lc.CapabilityList), st.dim("not judged: "+esc(lc.Reason)))
		}
	}
	if ps := d.Problems(); len(ps) > 0 {
		b.WriteString("\n" + st.title("Problems") + "\n")
		for _, p := range ps {
			mark, sev := severityMark(st, p.Severity)
			msg := esc(strings.TrimSuffix(p.Message, " (§"+p.Section+")"))
			fmt.Fprintf(&b, "  %s %s %s %s\n", mark, sev, st.rule(p.Rule+" §"+p.Section), msg)
		}
	}
	io.WriteString(w, b.String())
}
