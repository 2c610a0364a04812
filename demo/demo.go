// Package demo is the built-in demo ResourceSync Source: every document, package and resource generated on the fly, deterministically, and served on loopback.
//
// The Source has two sets of resources, "articles" (dataset1: HTML, plain text,
// JSON records and Dublin Core metadata about them) and "images" (dataset2: PNG
// and SVG), each with its Capability List. Nothing is held per resource: a
// resource's kind, length, content and last modification follow from (Seed,
// dataset, id, version), and only the change log, which grows with clock steps,
// is kept in memory.
//
// Time is a clock of steps. The change history begins historySteps steps before
// Options.Start; New replays it, so a fresh Source already has closed Change
// Lists, an open one and Change Dump packages. The Resource Dump is the snapshot
// taken when the history began, so baseline (Resource Dump) plus incremental
// (Change Lists, Change Dump) gives the current state (Resource List).
//
// URL map (N is 1 or 2; NNNN a number of at least four digits):
//
//	/                                   home page, <link rel="resourcesync"> to both Capability Lists
//	/robots.txt                         Sitemap: lines (plain /sitemap.xml, dataset 1 Resource List, dataset 2's as .xml.gz)
//	/sitemap.xml                        a plain, non-ResourceSync Sitemap
//	/.well-known/resourcesync           Source Description (also /datasetN/.well-known/resourcesync)
//	/about/source.html, /datasetN/about.html   the describedby targets
//	/datasetN/capabilitylist.xml        Capability List (dataset 2 has no Change Dump)
//	/datasetN/resourcelist.xml          Resource List Index (or a single list when it fits ListSize)
//	/datasetN/resourcelist-NNNN.xml     its parts
//	/datasetN/resourcedump.xml          Resource Dump (a Resource Dump Index beyond 200 packages: /datasetN/resourcedump-NNNN.xml)
//	/datasetN/resourcedump/part-NNNN.zip           packages, manifest.xml at the top, resources/…
//	/datasetN/resourcedump/part-NNNN-manifest.xml  the contents copies of their manifests
//	/dataset1/changelist.xml            Change List Index of the open list and the last closed ones; /dataset1/changelist/NNNN.xml the lists
//	/dataset1/changelist-archive.xml    Change List Archive: the closed lists that left the index (archives.go)
//	/dataset1/resourcelist-archive.xml  Resource List Archive; /dataset1/resourcelists/SSSS.xml (and -PPPP parts) the archived lists
//	/dataset2/changelist.xml            a single open Change List
//	/dataset1/changedump.xml            Change Dump; /dataset1/changedump/NNNN.zip (step NNNN-1) and NNNN-manifest.xml
//	/dataset1/changedump-archive.xml    Change Dump Archive (Options.LiveChangeDumps only); /dataset1/changedumps/NNNN.xml
//	                                    the archived Change Dumps, one per Change List period (archives.go)
//	/datasetN/res/NNNNNN.ext            resources (.html .txt .json .xml in dataset 1, .png .svg in dataset 2)
//	/dataset1/res/NNNNNN                generic URI of some HTML resources (canonical)
//	/dataset1/alt/NNNNNN.html           alternate representation of some JSON records
//	/mirror1/…, /mirror2/…              duplicates of /datasetN/res/… (mirror2 is stale in broken mode)
//	/datasetN/versions/vV/NNNNNN.ext    mementos; /timegate/datasetN/res/…, /timemap/datasetN/res/…
//	/dataset1/patch/NNNNNN.vV.json-patch  JSON Patch from version V-1 to V (in Change Lists)
//	/dataset1/collections/K.html        collections; /origin/images/NNNNNN.png originals (via)
//	/demo/status (GET), /demo/advance?steps=N (POST)   the clock
//	/demo/disconnect (POST)             drops every notification connection (subscribers reconnect);
//	                                    ?advance=N then advances N steps before any can reconnect
//	/channels/datasetN/change, /channels/datasetN/framework   notification channels (WebSocket; notify.go),
//	                                    and WebSub topics when fetched without an upgrade (websub.go)
//	/websub/hub (POST)                  the WebSub hub (websub.go)
//	/broken/loop-a, /broken/loop-b      redirect loop (broken mode only)
//
// Any document path + ".gz" serves it gzip-compressed as a file; documents are
// also gzip-encoded when the request accepts it. Documents, resources, pages
// and packages support conditional GET (ETag, Last-Modified).
package demo

import (
	"net/http"
	"sync"
	"time"
)

// Defaults of Options.
const (
	DefaultResources   = 2500
	DefaultListSize    = 500
	DefaultPackageSize = 250
)

// Clock constants: one step is a quarter of an hour of demo time; every
// stepsPerList steps the open Change List is closed; the history replayed by New
// is historySteps long (four closed Change Lists and an open one two steps old;
// by default the first closed one has already moved to the Change List Archive).
const (
	stepDuration = 15 * time.Minute
	stepsPerList = 4
	historySteps = 18
)

// defaultStart is the demo clock when Options.Start is zero.
func defaultStart() time.Time { return time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC) }

// Options configure a demo Source. The zero value gives the default demo.
type Options struct {
	Resources   int           // resources at the start (both datasets); default 2,500
	ListSize    int           // entries per Resource List part; default 500, at most 50,000
	PackageSize int           // resources per Resource Dump ZIP package; default 250
	Seed        int64         // everything generated follows from it
	Broken      bool          // seed errors of many kinds, to show off the checker
	Tick        time.Duration // real-time interval between clock steps (Start only); 0: only on request
	Start       time.Time     // the demo clock after the replayed history; default 2026-01-05T09:00:00Z
	// LiveChangeLists is the number of closed Change Lists the Change List
	// Index keeps; older ones move to the Change List Archive. Default
	// DefaultLiveChangeLists (3); negative: the index keeps them all.
	LiveChangeLists int
	// LiveChangeDumps, when positive, rotates the Change Dump: it keeps the
	// packages of the open Change List's period and of the last
	// LiveChangeDumps closed ones; the older packages move, one Change Dump
	// per closed Change List period, into the Change Dump Archive. 0 (the
	// default): the Change Dump keeps every package and there is no archive.
	LiveChangeDumps int
}

func (o Options) withDefaults() Options {
	if o.Resources <= 0 {
		o.Resources = DefaultResources
	}
	if o.Resources < 2 {
		o.Resources = 2
	}
	if o.ListSize <= 0 {
		o.ListSize = DefaultListSize
	}
	if o.ListSize > 50000 {
		o.ListSize = 50000
	}
	if o.PackageSize <= 0 {
		o.PackageSize = DefaultPackageSize
	}
	if o.PackageSize > 50000 {
		o.PackageSize = 50000
	}
	if o.Start.IsZero() {
		o.Start = defaultStart()
	}
	if o.LiveChangeLists == 0 {
		o.LiveChangeLists = DefaultLiveChangeLists
	}
	if o.LiveChangeLists < 0 {
		o.LiveChangeLists = -1
	}
	if o.LiveChangeDumps < 0 {
		o.LiveChangeDumps = 0
	}
	o.Start = o.Start.UTC().Truncate(time.Second)
	return o
}

// Source is a demo ResourceSync Source. It is safe for concurrent use.
type Source struct {
	opts     Options
	logStart time.Time // when the change history begins: the Resource Dump snapshot
	sets     [2]datasetInfo
	tag      uint64 // fingerprint of the options, part of every ETag
	faults   faultPlan

	mu     sync.Mutex // guards the fields below
	steps  int        // clock steps taken since logStart
	log    [2]changeLog
	live   [2]liveState       // writer-side state, read by Advance only
	byID   [2]map[int][]int32 // per dataset: id → positions of its changes in the log (append-only)
	visits map[string]int64   // per-path request counts, for the 503-then-success fault
	sums   map[sumKey]pkgSum  // sizes and digests of Change Dump packages, which never change once made

	notify notifier  // notification subscribers (notify.go); publish is called under mu
	websub webSubHub // WebSub subscriptions (websub.go)
}

// New returns a demo Source with its history replayed up to o.Start.
func New(o Options) *Source {
	o = o.withDefaults()
	s := &Source{
		opts:     o,
		logStart: o.Start.Add(-historySteps * stepDuration),
		visits:   make(map[string]int64),
		sums:     make(map[sumKey]pkgSum),
	}
	images := o.Resources / 5
	if images < 1 {
		images = 1
	}
	s.sets[0] = datasetInfo{num: 1, name: "articles", initial: o.Resources - images}
	s.sets[1] = datasetInfo{num: 2, name: "images", initial: images}
	for i := range s.live {
		s.live[i] = liveState{maxID: s.sets[i].initial, mods: make(map[int]liveRes)}
		s.byID[i] = make(map[int][]int32)
	}
	s.tag = optionsTag(o)
	s.faults = planFaults(o, s.sets[0].initial)
	s.Advance(historySteps)
	return s
}

// Options returns the options in effect, defaults filled in.
func (s *Source) Options() Options { return s.opts }

// Now returns the demo clock.
func (s *Source) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logStart.Add(time.Duration(s.steps) * stepDuration)
}

// Handler serves the whole demo. Absolute URLs in documents are built from the
// request's Host, so the handler works on any address and port.
func (s *Source) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }
