// Package notify subscribes to a Source's change and framework notification channels (ResourceSync Notification draft) and reports each notification, checked, as a value.
package notify

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"rsx/crawl"
	"rsx/fetch"
	"rsx/model"
)

// Kind is the kind of a notification channel.
type Kind string

const (
	KindChange    Kind = "change"    // Change Notification channel: resources changed
	KindFramework Kind = "framework" // Framework Notification channel: documents changed
)

// Capability is the capability value that advertises channels of kind k.
func (k Kind) Capability() model.Capability {
	if k == KindFramework {
		return model.CapFrameworkNotification
	}
	return model.CapChangeNotification
}

// Channel is a notification channel advertised in a Capability List.
type Channel struct {
	URL            string // the entry's loc: ws:// or wss:// (WebSocket), http(s):// (a WebSub topic)
	Kind           Kind
	CapabilityList string // the Capability List that advertises it
}

// ErrNoChannels is returned by Find when the Capability Lists it read
// advertise no notification channel.
var ErrNoChannels = errors.New("no notification channel advertised")

// Found is what Find read: the Capability Lists and the channels they advertise.
type Found struct {
	CapabilityLists []string
	Channels        []Channel
}

// Find returns the notification channels that target advertises: target is a
// Capability List, a Source Description (every Capability List it lists is
// read), or any URL from which discovery reaches them. The error is
// ErrNoChannels (wrapped) when they advertise none, and says what could not
// be fetched otherwise.
func Find(ctx context.Context, g fetch.Getter, target string) (*Found, error) {
	graph := crawl.NewGraph(g, crawl.GraphOptions{})
	doc, err := graph.Load(ctx, target)
	if err != nil && doc.Status == 0 && doc.Header == nil {
		return nil, fmt.Errorf("find notification channels: %w", err) // no answer at all
	}
	var lists []string
	switch {
	case doc.Header != nil && doc.Capability() == model.CapCapabilityList:
		lists = []string{doc.Base()}
	case doc.Header != nil && doc.Capability() == model.CapDescription:
		for _, d := range doc.Down {
			lists = append(lists, d.Loc)
		}
	default:
		disc, derr := crawl.Discover(ctx, g, target, crawl.DiscoverOptions{})
		if derr != nil {
			return nil, fmt.Errorf("find notification channels from %s: %w", target, derr)
		}
		if !disc.OK() {
			return nil, fmt.Errorf("find notification channels: %s is not a Capability List or Source Description, and discovery from it found none", target)
		}
		lists = disc.CapabilityLists
	}
	found := &Found{}
	var failed []string
	for _, l := range lists {
		cl := doc
		if l != doc.Base() {
			cl, err = graph.Load(ctx, l)
			if err != nil && cl.Header == nil {
				failed = append(failed, fmt.Sprintf("%s: %v", l, err))
				continue
			}
		}
		if cl.Capability() != model.CapCapabilityList {
			failed = append(failed, l+": not a Capability List")
			continue
		}
		found.CapabilityLists = append(found.CapabilityLists, cl.Base())
		found.Channels = append(found.Channels, channelsOf(cl)...)
	}
	if len(found.Channels) == 0 {
		if len(failed) > 0 {
			return found, fmt.Errorf("find notification channels: %s", strings.Join(failed, "; "))
		}
		return found, fmt.Errorf("find notification channels in %s: %w", strings.Join(found.CapabilityLists, ", "), ErrNoChannels)
	}
	return found, nil
}

// channelsOf returns the channel entries of a Capability List, their locs
// resolved against its URL.
func channelsOf(cl *crawl.Document) []Channel {
	if cl.Entries == nil {
		return nil
	}
	var out []Channel
	for i := 0; i < cl.Entries.Len(); i++ {
		var k Kind
		switch cl.Entries.Capability(i) {
		case model.CapChangeNotification:
			k = KindChange
		case model.CapFrameworkNotification:
			k = KindFramework
		default:
			continue
		}
		out = append(out, Channel{URL: model.ResolveHref(cl.Base(), cl.Entries.Loc(i)), Kind: k, CapabilityList: cl.Base()})
	}
	return out
}
