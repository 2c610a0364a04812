package cli

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// rsx watch lists on standard error what it subscribes to: with --websub
// the http(s) WebSub topics, not the ws:// channels it was told of.
func TestWatchListsWhatItSubscribesTo(t *testing.T) {
	base := startDemo(t, false)
	cap := base + "/dataset1/capabilitylist.xml"
	wsBase := "ws://" + strings.TrimPrefix(base, "http://")
	tests := []struct {
		name     string
		args     []string
		want     []string
		dontWant string
	}{
		{"WebSockets", []string{"watch", "--count", "1", cap},
			[]string{wsBase + "/channels/dataset1/change  (WebSocket)", wsBase + "/channels/dataset1/framework  (WebSocket)"}, "WebSub"},
		{"WebSub", []string{"watch", "--websub", "--count", "1", cap},
			[]string{base + "/channels/dataset1/change  (WebSub topic)", base + "/channels/dataset1/framework  (WebSub topic)"}, "ws://"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The demo's clock moves until the first notification ends
			// the watch.
			done := make(chan struct{})
			go func() {
				tick := time.NewTicker(200 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-done:
						return
					case <-tick.C:
						if resp, err := http.Post(base+"/demo/advance?steps=1", "text/plain", nil); err == nil {
							resp.Body.Close()
						}
					}
				}
			}()
			code, out, errs := runCmd(t, tt.args...)
			close(done)
			if code != 0 || out == "" {
				t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
			if strings.Contains(errs, tt.dontWant) {
				t.Errorf("stderr has %q:\n%s", tt.dontWant, errs)
			}
		})
	}
}
