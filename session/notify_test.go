package session

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
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

// The log file (--log-file) keeps a channel that dropped while the explorer
// followed a Source: the demo ends under the subscription, and the log has
// a JSON line naming the channel and the next attempt.
func TestSubscribeLogsDroppedChannels(t *testing.T) {
	srv, s := startDemo(t, demo.Options{Resources: 120, ListSize: 40, PackageSize: 30})
	var buf syncBuffer
	s.opts.Log = slog.New(slog.NewJSONHandler(&buf, nil))
	sub := s.Subscribe(srv.URL + "/.well-known/resourcesync")
	defer sub.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for connected := 0; connected < 4; {
		e, ok := sub.Next(ctx)
		if !ok {
			t.Fatal("the subscription ended while connecting")
		}
		if e.Event != nil && e.Event.Type == notify.EventConnected {
			connected++
		}
	}
	if strings.Contains(buf.String(), "dropped") {
		t.Fatalf("a drop logged while every channel was up: %s", buf.String())
	}
	srv.Close()
	for {
		e, ok := sub.Next(ctx)
		if !ok {
			t.Fatal("no drop reported after the Source ended")
		}
		if e.Event != nil && e.Event.Type == notify.EventDisconnected {
			break
		}
	}
	var line struct {
		Msg, Channel, Retry string
		Attempt             int
	}
	first, _, _ := strings.Cut(buf.String(), "\n")
	if err := json.Unmarshal([]byte(first), &line); err != nil {
		t.Fatalf("log line %q: %v", first, err)
	}
	if line.Msg != "notification channel dropped" || !strings.HasPrefix(line.Channel, "ws://") || line.Attempt < 1 || line.Retry == "" {
		t.Fatalf("log line %q", first)
	}
}

// syncBuffer is a bytes.Buffer safe for the subscription's goroutine and
// the test's.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
