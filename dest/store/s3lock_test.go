package store

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestS3LockStaleRule: which bucket locks a run may take over, decided
// without a server. A run is its token: a lock naming this host and a pid
// that is no process here may be a live run in another PID namespace.
func TestS3LockStaleRule(t *testing.T) {
	s := &S3{cache: t.TempDir(), opts: Options{LockStaleAfter: time.Minute}}
	host, _ := os.Hostname()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	fresh, old := time.Now(), time.Now().Add(-2*time.Minute)

	held := newHolder(time.Now())
	hm, err := holdRunMarker(s.cache, held.Token)
	if err != nil {
		t.Fatal(err)
	}
	defer hm.release()
	ended := newHolder(time.Now())
	em, err := holdRunMarker(s.cache, ended.Token)
	if err != nil {
		t.Fatal(err)
	}
	markers := hm != nil
	if markers {
		em.f.Close() // its process ended: the kernel dropped the flock
	}

	cases := []struct {
		name    string
		h       Holder
		mod     time.Time
		want    string // a part of the reason; "" for a lock to respect
		markers bool   // needs run markers (Linux)
	}{
		{"a live twin: this host name, a pid not running here", Holder{PID: gone.Process.Pid, Host: host, Token: "feedc0de", Started: fresh}, fresh, "", false},
		{"a twin with this process's pid", Holder{PID: os.Getpid(), Host: host, Token: "feedc0de", Started: fresh}, fresh, "", false},
		{"another host, refreshed", Holder{PID: 7, Host: "elsewhere.example", Token: "beef"}, fresh, "", false},
		{"not refreshed for longer than the stale time", Holder{PID: 7, Host: host, Token: "beef"}, old, "not refreshed for", false},
		{"unreadable, fresh", Holder{}, fresh, "", false},
		{"unreadable, old", Holder{}, old, "an unreadable lock", false},
		{"a run holding its marker here", held, fresh, "", false},
		{"a run whose marker here is no longer held", ended, fresh, "its process has ended", true},
		{"a token that is no file name", Holder{Token: "../../x", Host: host}, fresh, "", false},
		{"its holder's lease is longer than this run's, not yet over", Holder{PID: 7, Host: "elsewhere.example", Token: "beef", LeaseSeconds: 600}, old, "", false},
		{"its holder's lease is shorter: this run's holds", Holder{PID: 7, Host: "elsewhere.example", Token: "beef", LeaseSeconds: 5}, time.Now().Add(-30 * time.Second), "", false},
		{"its holder's lease is over", Holder{PID: 7, Host: "elsewhere.example", Token: "beef", LeaseSeconds: 90}, time.Now().Add(-100 * time.Second), "not refreshed for", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.markers && !markers {
				t.Skip("no run markers on this system")
			}
			got := s.stale(tc.h, tc.mod)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("stale = %q, want %q", got, tc.want)
			}
		})
	}
	if markers {
		if _, err := os.Stat(markerPath(s.cache, ended.Token)); !os.IsNotExist(err) {
			t.Errorf("the ended run's marker was not removed: %v", err)
		}
		if _, err := os.Stat(markerPath(s.cache, held.Token)); err != nil {
			t.Errorf("the live run's marker: %v", err)
		}
	}
}

func TestHolderString(t *testing.T) {
	h := Holder{PID: 42, Host: "box", Token: "abc123", Started: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)}
	if got, want := h.String(), "run abc123 on host box (pid 42) since 2026-11-27T09:00:00Z"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got := (Holder{}).String(); !strings.Contains(got, "another rsx run") {
		t.Errorf("%q", got)
	}
}

// TestRunMarkersOfAnEarlierBootGo: a marker written under another boot is
// removed when a run makes its own; one of this boot stays.
func TestRunMarkersOfAnEarlierBootGo(t *testing.T) {
	cache := t.TempDir()
	m, err := holdRunMarker(cache, "aaaa")
	if err != nil || m == nil {
		t.Skipf("no run markers here: %v", err)
	}
	defer m.release()
	old := markerPath(cache, "bbbb")
	os.WriteFile(old, []byte("another-boot"), 0o644)
	m2, err := holdRunMarker(cache, "cccc")
	if err != nil {
		t.Fatal(err)
	}
	defer m2.release()
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the marker of an earlier boot stays: %v", err)
	}
	if _, err := os.Stat(markerPath(cache, "aaaa")); err != nil {
		t.Errorf("a marker of this boot was removed: %v", err)
	}
}
