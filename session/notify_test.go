package session

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"rsx/demo"
	"rsx/notify"
)

// A subscription to the demo Source, as the explorer makes it: the channels
// of both Capability Lists, each connected, then a change and a framework
// notification after the clock steps; Stop ends it.
func TestSubscribeToTheDemo(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 120, ListSize: 40, PackageSize: 30})
	sub := s.Subscribe(srv.URL + "/.well-known/resourcesync")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	first, ok := sub.Next(ctx)
	if !ok || first.Found == nil || len(first.Found.Channels) != 4 {
		t.Fatalf("first event %+v, %v: want the 4 channels found", first, ok)
	}
	connected := 0
	for connected < 4 {
		e, ok := sub.Next(ctx)
		if !ok || e.Event == nil {
			t.Fatalf("event %+v, %v while connecting", e, ok)
		}
		if e.Event.Type == notify.EventConnected {
			connected++
		}
	}
	// Enough steps that a Change List of dataset 1 closes: a framework
	// notification.
	resp, err := http.Post(srv.URL+"/demo/advance?steps=8", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	kinds := map[notify.Kind]bool{}
	for !kinds[notify.KindChange] || !kinds[notify.KindFramework] {
		e, ok := sub.Next(ctx)
		if !ok {
			t.Fatalf("the subscription ended before both kinds came: %v", kinds)
		}
		if e.Event != nil && e.Event.Type == notify.EventNotification && len(e.Event.Items) > 0 {
			kinds[e.Event.Kind()] = true
		}
	}
	sub.Stop()
	sub.Stop()
	for {
		if _, ok := sub.Next(ctx); !ok {
			break // ended
		}
	}
	if ctx.Err() != nil {
		t.Fatal("Next did not report the end after Stop")
	}
}

// A Source without channels: the subscription says so and ends.
func TestSubscribeWithoutChannels(t *testing.T) {
	_, s := startDemo(t, demo.Options{Resources: 120, ListSize: 40, PackageSize: 30})
	sub := s.Subscribe("http://127.0.0.1:1/nothing.xml")
	defer sub.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	e, ok := sub.Next(ctx)
	if !ok || e.Err == nil || !strings.Contains(e.Err.Error(), "127.0.0.1:1/nothing.xml") {
		t.Fatalf("event %+v, %v: want the error", e, ok)
	}
	if _, ok := sub.Next(ctx); ok || ctx.Err() != nil {
		t.Fatal("the subscription goes on after its error")
	}
}
