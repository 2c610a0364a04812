package model

// Notifications of the ResourceSync Notification draft (0.8, 2013): change
// notifications (section 4) and framework notifications (section 5) are
// <urlset> documents "very similar to the Change List format", with an
// <rs:ln rel="up"> to the Capability List that advertises the channel and, in
// the draft's examples, no document-level <rs:md>.
//
// A notification is checked by the Checker, with the entries of a change
// notification judged as Change List entries, less the rules that the draft's
// own examples break (md-missing: no document-level <rs:md>;
// changelist-no-datetime: they use <lastmod>), plus the rules of
// NotificationRules. The up-link rule is restated for notifications
// (notification-up-link). A NotificationChecker also compares each notification
// of a channel with the ones before it (notification-order).

import (
	"bytes"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Rules of the Notification draft that CheckNotification applies beyond the
// Checker's. Their sections are the draft's: "N4" is section 4.
const (
	RuleNotificationRoot            = "notification-root"
	RuleNotificationUpLink          = "notification-up-link"
	RuleNotificationUpMismatch      = "notification-up-mismatch"
	RuleNotificationEmpty           = "notification-empty"
	RuleNotificationOrder           = "notification-order"
	RuleFrameworkCapabilityMissing  = "framework-capability-missing"
	RuleFrameworkCapabilityInvalid  = "framework-capability-invalid"
	RuleFrameworkCapabilityUnknown  = "framework-capability-unknown"
	RuleFrameworkChangeMissing      = "framework-change-missing"
	RuleFrameworkIndexLinkMalformed = "framework-index-link"
	RuleFrameworkChangeType         = "framework-change-type"
	// Rules that need the changed document itself (notify.FrameworkTargetProblems).
	RuleFrameworkIndexLevel       = "framework-index-level"
	RuleFrameworkIndexLinkMissing = "framework-index-link-missing"
)

// notificationRuleID indexes the rules of the Notification draft. The
// checks name the rule they report by these constants, never by its string,
// so that no rule can be reported that the catalogue (NotificationRules,
// rsx validate --rules) lacks.
type notificationRuleID uint8

const (
	nrRoot notificationRuleID = iota
	nrUpLink
	nrUpMismatch
	nrEmpty
	nrOrder
	nrFrameworkCapabilityMissing
	nrFrameworkCapabilityInvalid
	nrFrameworkCapabilityUnknown
	nrFrameworkChangeMissing
	nrFrameworkIndexLink
	nrFrameworkChangeType
	nrFrameworkIndexLevel
	nrFrameworkIndexLinkMissing
	numNotificationRules
)

// notificationRuleTable is the catalogue of the Notification draft's rules:
// one row per notificationRuleID, indexed by it, as ruleTable is. Read only.
var notificationRuleTable = [numNotificationRules]Rule{
	nrRoot: {ID: RuleNotificationRoot, Section: "N4", Severity: SeverityError,
		Summary: "a notification is a <urlset> document; notifications do not use the <sitemapindex> format"},
	nrUpLink: {ID: RuleNotificationUpLink, Section: "N4", Severity: SeverityError,
		Summary: `a notification links up (<rs:ln rel="up">) to the Capability List of its channel`},
	nrUpMismatch: {ID: RuleNotificationUpMismatch, Section: "N3", Severity: SeverityWarning,
		Summary: "the up link of a notification points at a Capability List other than the one that advertises the channel",
		Basis:   `N3: "As both the Change Notification channel and the Framework Notification channel are dedicated to a particular set of resources, they are advertised in the Capability List that corresponds with the set of resources." The draft's examples link up to that Capability List; no sentence says the link must: a warning.`},
	nrEmpty: {ID: RuleNotificationEmpty, Section: "N4", Severity: SeverityWarning,
		Summary: "a notification without entries notifies nothing",
		Basis:   `N4: a change notification is sent "if a Source wishes to notify a Destination that one or more of its resources subject to synchronization have changed"; no sentence forbids one without entries: a warning.`},
	nrOrder: {ID: RuleNotificationOrder, Section: "N4", Severity: SeverityWarning,
		Summary: "a notification's changes are dated before changes an earlier notification of the channel carried (out of order)",
		Basis:   `N4: "the notifications must be split into a sequence of change notifications"; the draft says no more of the order of that sequence, which a Destination applies as it comes: a warning.`},
	nrFrameworkCapabilityMissing: {ID: RuleFrameworkCapabilityMissing, Section: "N5", Severity: SeverityError,
		Summary: "a framework notification entry says with capability which kind of document changed"},
	nrFrameworkCapabilityInvalid: {ID: RuleFrameworkCapabilityInvalid, Section: "N5", Severity: SeverityError,
		Summary: "framework notifications are about Resource Lists, Resource Dumps, Change Lists, Change Dumps, Capability Lists and Source Descriptions only"},
	nrFrameworkCapabilityUnknown: {ID: RuleFrameworkCapabilityUnknown, Section: "N5", Severity: SeverityWarning,
		Summary: "the capability of a framework notification entry is not a value the specification or the draft defines",
		Basis:   `N5: a framework notification is sent "if a Source wishes to notify a Destination about changes to Resource Lists, Change Lists, Resource Dumps, Change Dumps, Capability Lists, and Source Descriptions"; an unknown value may be a capability of another specification (Z39.99-2017 §6.1: "Additional capabilities may be defined in other specifications."): a warning.`},
	nrFrameworkChangeMissing: {ID: RuleFrameworkChangeMissing, Section: "N5", Severity: SeverityError,
		Summary: `a framework notification entry says with change="created|updated|deleted" what happened to the document`},
	nrFrameworkIndexLink: {ID: RuleFrameworkIndexLinkMalformed, Section: "N5", Severity: SeverityError,
		Summary: `the rel="index" link of a framework notification entry points at the index the changed document resides under`},
	nrFrameworkChangeType: {ID: RuleFrameworkChangeType, Section: "N2.1", Severity: SeverityWarning,
		Summary: "a framework notification entry gives a change type Table 2.1 of the draft does not list for its capability (Resource Lists and Resource Dumps: created; Change Lists and Change Dumps: created, updated; Capability Lists and Source Descriptions: any)",
		Basis:   "Notification draft §2.1: \"The following table provides an overview of the possible change types that Change Notifications and Framework Notifications inform about\"; Table 2.1 marks one change type for Resource Lists and Resource Dumps and two for Change Lists and Change Dumps, which Examples 5.1 and 5.2 show to be created, and created and updated. An overview of an alpha draft, not a \"must\": a warning."},
	nrFrameworkIndexLevel: {ID: RuleFrameworkIndexLevel, Section: "N5", Severity: SeverityError,
		Summary: "framework notifications are never sent at the index level: the notified document is a <sitemapindex> (found by fetching it; rsx watch --check-documents)"},
	nrFrameworkIndexLinkMissing: {ID: RuleFrameworkIndexLinkMissing, Section: "N5", Severity: SeverityError,
		Summary: `a framework notification about a document that resides under an index must give an <rs:ln rel="index"> to that index: the notified document links to an index the entry does not name (rsx watch --check-documents)`},
}

// NotificationRules returns the rules of the Notification draft that
// CheckNotification and NotificationChecker add to those of Rules().
func NotificationRules() []Rule {
	out := make([]Rule, numNotificationRules)
	copy(out, notificationRuleTable[:])
	return out
}

// Checker rules that do not apply to notifications: the draft's examples have
// no document-level <rs:md> and use <lastmod>; the up link is restated.
func notificationExempt(rule string) bool {
	switch rule {
	case "md-missing", "changelist-no-datetime", "up-link-missing":
		return true
	}
	return false
}

// NotificationOptions say what a notification is expected to be.
type NotificationOptions struct {
	// Kind is CapChangeNotification or CapFrameworkNotification.
	Kind Capability
	// CapabilityList is the URL of the Capability List that advertises the
	// channel; when set, the notification's up link is compared with it.
	CapabilityList string
}

// IsFramework reports whether the options describe a framework notification.
func (o NotificationOptions) IsFramework() bool { return o.Kind == CapFrameworkNotification }

func (o NotificationOptions) noun() string {
	if o.IsFramework() {
		return "framework notification"
	}
	return "change notification"
}

// CheckNotification checks one notification held in memory.
func CheckNotification(d *Document, opts NotificationOptions) []Problem {
	if d == nil {
		return nil
	}
	capb := CapChangeList // entries of a change notification are Change List entries
	if opts.IsFramework() || d.Root == RootSitemapIndex {
		// Framework entries are like no document's: only the generic rules
		// apply, and those below. An index root is wrong in itself; judging
		// its entries as index entries would only add noise.
		capb = ""
	}
	c := NewChecker(CheckOptions{Capability: capb})
	c.Begin(&d.Header)
	for i := range d.Entries {
		c.Entry(&d.Entries[i])
	}
	c.End(&d.Header, d.Bytes)
	var out []Problem
	for _, p := range c.Problems() {
		if !notificationExempt(p.Rule) {
			out = append(out, p)
		}
	}
	out = append(out, notificationProblems(d, opts)...)
	sortProblems(out)
	return out
}

// sortProblems puts document-level problems first, then by entry; stable, so
// the rules of one entry keep their order.
func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Entry < ps[j].Entry })
}

// The rules of the Notification draft that checks outside this package
// report (notify.FrameworkTargetProblems), for NotificationProblem.
const (
	NotificationFrameworkIndexLevel       = nrFrameworkIndexLevel
	NotificationFrameworkIndexLinkMissing = nrFrameworkIndexLinkMissing
	NotificationFrameworkIndexLink        = nrFrameworkIndexLink
)

// NotificationProblem is a problem of the rule id of NotificationRules, its
// message ending with the draft's section.
func NotificationProblem(id notificationRuleID, entry, line int, msg string) Problem {
	return notificationProblem(id, entry, line, msg)
}

func notificationProblem(id notificationRuleID, entry, line int, msg string) Problem {
	r := &notificationRuleTable[id]
	return Problem{Severity: r.Severity, Rule: r.ID, Section: r.Section, Entry: entry, Line: line,
		Message: msg + " (§" + r.Section + " of the Notification draft)"}
}

// kindProblem is notificationProblem for a rule that both sections state:
// section 4 for change notifications, 5 for framework notifications.
func kindProblem(opts NotificationOptions, id notificationRuleID, entry, line int, msg string) Problem {
	p := notificationProblem(id, entry, line, msg)
	if opts.IsFramework() && p.Section == "N4" {
		p.Section = "N5"
		p.Message = strings.Replace(p.Message, "(§N4 ", "(§N5 ", 1)
	}
	return p
}

// notificationProblems are the rules of NotificationRules on one document.
func notificationProblems(d *Document, opts NotificationOptions) []Problem {
	var out []Problem
	noun := opts.noun()
	if d.Root == RootUnknown {
		return nil // root-not-sitemap says it all
	}
	if d.Root == RootSitemapIndex {
		out = append(out, kindProblem(opts, nrRoot, -1, 0,
			"a "+noun+" with a <sitemapindex> root: notifications are <urlset> documents and do not use the <sitemapindex> format"))
	}
	var ups []string
	for _, l := range d.Links {
		for _, tok := range strings.Fields(l.Rel) {
			if strings.EqualFold(tok, "up") {
				ups = append(ups, l.Href)
			}
		}
	}
	switch {
	case len(ups) == 0:
		out = append(out, kindProblem(opts, nrUpLink, -1, 0,
			`no <rs:ln rel="up"> link: a `+noun+" must link up to the Capability List of its channel"))
	case opts.CapabilityList != "" && !sameURL(ups[0], opts.CapabilityList):
		out = append(out, notificationProblem(nrUpMismatch, -1, 0,
			"the up link points at "+chkQuote(ups[0])+", but the channel is advertised by the Capability List "+chkQuote(opts.CapabilityList)))
	}
	if len(d.Entries) == 0 {
		out = append(out, kindProblem(opts, nrEmpty, -1, 0, "a "+noun+" without entries: it notifies nothing"))
	}
	if !opts.IsFramework() {
		return out
	}
	for i := range d.Entries {
		e := &d.Entries[i]
		line := e.Line
		if e.MD.Line != 0 {
			line = e.MD.Line
		}
		switch capb := e.MD.Capability; {
		case capb == "":
			out = append(out, notificationProblem(nrFrameworkCapabilityMissing, i, line,
				chkRef(e, i)+": no capability attribute: a framework notification entry must say which kind of document changed (resourcelist, changelist, …)"))
		case !capb.Known():
			out = append(out, notificationProblem(nrFrameworkCapabilityUnknown, i, line,
				chkRef(e, i)+": capability="+chkQuote(string(capb))+" is not defined by the specification or the Notification draft"))
		case !frameworkDocument(capb):
			out = append(out, notificationProblem(nrFrameworkCapabilityInvalid, i, line,
				chkRef(e, i)+": capability="+chkQuote(string(capb))+": framework notifications are about Resource Lists, Resource Dumps, Change Lists, Change Dumps, Capability Lists and Source Descriptions"))
		}
		if e.MD.Change == "" {
			out = append(out, notificationProblem(nrFrameworkChangeMissing, i, line,
				chkRef(e, i)+`: no change attribute: a framework notification entry must say what happened to the document (change="created|updated|deleted")`))
		} else if allowed := frameworkChanges(e.MD.Capability); allowed != "" && !strings.Contains(" "+allowed+" ", " "+string(e.MD.Change)+" ") {
			out = append(out, notificationProblem(nrFrameworkChangeType, i, line,
				chkRef(e, i)+": change="+chkQuote(string(e.MD.Change))+" for a "+string(e.MD.Capability)+" document: Table 2.1 lists only "+allowed+" for it"))
		}
		for _, l := range e.Links {
			if !HasRel(l.Rel, "index") {
				continue
			}
			if l.Href == "" || sameURL(l.Href, e.Loc) {
				out = append(out, notificationProblem(nrFrameworkIndexLink, i, l.Line,
					chkRef(e, i)+`: the rel="index" link must point at the index the changed document resides under, not `+chkQuote(l.Href)))
			}
		}
	}
	return out
}

// frameworkChanges is the change types Table 2.1 of the draft lists for
// framework notifications about documents of capability c, space-separated;
// "" when the table allows all three or does not cover c.
func frameworkChanges(c Capability) string {
	switch c {
	case CapResourceList, CapResourceDump:
		return "created"
	case CapChangeList, CapChangeDump:
		return "created updated"
	}
	return ""
}

// frameworkDocument reports whether documents of capability c are what
// framework notifications are about (Table 2.1 of the draft).
func frameworkDocument(c Capability) bool {
	switch c {
	case CapResourceList, CapResourceDump, CapChangeList, CapChangeDump, CapCapabilityList, CapDescription:
		return true
	}
	return false
}

// SameURL compares two URLs as written, ignoring surrounding space and the
// case of the scheme and host.
func SameURL(a, b string) bool { return sameURL(a, b) }

func sameURL(a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if a == b {
		return true
	}
	split := func(s string) (string, string) {
		i := strings.Index(s, "://")
		if i < 0 {
			return "", s
		}
		j := strings.IndexByte(s[i+3:], '/')
		if j < 0 {
			return strings.ToLower(s), ""
		}
		return strings.ToLower(s[:i+3+j]), s[i+3+j:]
	}
	ah, ap := split(a)
	bh, bp := split(b)
	return ah == bh && ap == bp
}

// ParseNotification reads one notification (bounded by opts) into memory and
// checks it. When the bytes are not a well-formed document the Document is nil
// and the problems hold the syntax error (rule xml-malformed).
func ParseNotification(r io.Reader, nopts NotificationOptions, dopts DecoderOptions) (*Document, []Problem) {
	d, err := ParseWith(r, dopts)
	if err != nil {
		c := NewChecker(CheckOptions{})
		c.Abort(nil, 0, err)
		return nil, c.Problems()
	}
	return d, CheckNotification(d, nopts)
}

// ChangeTime is when an entry of a notification says its change happened: the
// datetime attribute, or <lastmod> as in the draft's examples. The result is the
// zero Datetime when neither is valid.
func ChangeTime(e *Entry) Datetime {
	if e.MD.Datetime.OK {
		return e.MD.Datetime
	}
	if e.Lastmod.OK {
		return e.Lastmod
	}
	return Datetime{}
}

// NotificationChecker checks the notifications of one channel in the order
// they arrive: each with CheckNotification, and each against the ones before
// it (notification-order). It is not safe for concurrent use.
type NotificationChecker struct {
	opts    NotificationOptions
	last    time.Time
	lastRaw string
	seen    bool
}

// NewNotificationChecker returns a checker for one channel.
func NewNotificationChecker(opts NotificationOptions) *NotificationChecker {
	return &NotificationChecker{opts: opts}
}

// Check parses and checks the next notification of the channel. The Document
// is nil when raw is not a well-formed document.
func (c *NotificationChecker) Check(raw []byte, dopts DecoderOptions) (*Document, []Problem) {
	d, ps := ParseNotification(bytes.NewReader(raw), c.opts, dopts)
	if d == nil {
		return nil, ps
	}
	// The earliest change of this notification against the latest of the
	// ones before it.
	first := -1
	var earliest, latest Datetime
	for i := range d.Entries {
		t := ChangeTime(&d.Entries[i])
		if !t.OK {
			continue
		}
		if first < 0 || t.Time.Before(earliest.Time) {
			first, earliest = i, t
		}
		if !latest.OK || t.Time.After(latest.Time) {
			latest = t
		}
	}
	if first >= 0 && c.seen && earliest.Time.Before(c.last) {
		e := &d.Entries[first]
		ps = append(ps, kindProblem(c.opts, nrOrder, first, e.Line,
			chkRef(e, first)+": dated "+earliest.Raw+", before "+c.lastRaw+" of an earlier notification of this channel: notifications arrive out of order, or this one repeats changes already notified"))
		sortProblems(ps)
	}
	if latest.OK && (!c.seen || latest.Time.After(c.last)) {
		c.last, c.lastRaw, c.seen = latest.Time, latest.Raw, true
	}
	return d, ps
}

// DescribeProblem is a one-line rendering of a problem for logs:
// `error notification-up-link: …`.
func DescribeProblem(p Problem) string {
	s := p.Severity.String() + " " + p.Rule
	if p.Entry >= 0 {
		s += " (entry " + strconv.Itoa(p.Entry+1) + ")"
	}
	return s + ": " + p.Message
}
