package fetch

import (
	"sync"
	"time"
)

// watchdog fails a download that does not move: with min <= 1 when no body
// byte arrives for d (an idle timeout), with min > 1 when fewer than min
// bytes arrive in a stretch of d (a stall timeout: a body that drips a byte
// now and then is as stuck as one that sends nothing, and would otherwise
// hold the download for ever). Time spent in the download's writer is not
// counted: a slow destination is not a stuck server.
type watchdog struct {
	d    time.Duration
	min  int64
	fire func()

	mu       sync.Mutex
	timer    *time.Timer
	end      time.Time // when the current stretch ends
	got      int64     // bytes in the current stretch
	pausedAt time.Time // zero unless the writer is writing
	fired    bool
}

// newWatchdog starts a watchdog that calls fire (once) when the download
// stalls.
func newWatchdog(d time.Duration, min int64, fire func()) *watchdog {
	w := &watchdog{d: d, min: min, fire: fire, end: time.Now().Add(d)}
	w.timer = time.AfterFunc(d, w.check)
	return w
}

func (w *watchdog) check() {
	w.mu.Lock()
	if w.fired || !w.pausedAt.IsZero() {
		w.mu.Unlock()
		return
	}
	now := time.Now()
	switch {
	case now.Before(w.end):
		w.timer.Reset(w.end.Sub(now))
	case w.min > 1 && w.got >= w.min:
		w.got = 0
		w.end = now.Add(w.d)
		w.timer.Reset(w.d)
	default:
		w.fired = true
	}
	fired := w.fired
	w.mu.Unlock()
	if fired {
		w.fire()
	}
}

// add counts n body bytes received.
func (w *watchdog) add(n int) {
	w.mu.Lock()
	w.got += int64(n)
	if w.min <= 1 {
		w.end = time.Now().Add(w.d) // the timer, when it goes off, waits on
	}
	w.mu.Unlock()
}

// pause stops the clock while the writer writes; resume starts it again,
// the stretch made longer by the pause.
func (w *watchdog) pause() {
	w.mu.Lock()
	w.pausedAt = time.Now()
	w.mu.Unlock()
}

func (w *watchdog) resume() {
	w.mu.Lock()
	if !w.pausedAt.IsZero() {
		now := time.Now()
		w.end = w.end.Add(now.Sub(w.pausedAt))
		w.pausedAt = time.Time{}
		if !w.fired {
			w.timer.Reset(w.end.Sub(now))
		}
	}
	w.mu.Unlock()
}

// stop ends the watch; fired reports whether it had failed the download.
func (w *watchdog) stop() { w.timer.Stop() }

func (w *watchdog) hasFired() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fired
}
