package ui

import (
	"fmt"
	"math"
	"strconv"

	"rsx/display"
	"rsx/fetch"
	"rsx/ui/components"
)

// Politeness shown: while anything loads, the status bar says which host's
// rate (or robots.txt Crawl-delay) holds the requests back just now, as the
// commands say it on standard error (rsx: polite: …).

// checkThrottle asks the backend which hosts are held back now and gives
// the document page what its status bar says of it; nothing while nothing
// loads.
func (a *App) checkThrottle() {
	full, short := a.throttleText()
	if a.dv != nil {
		a.dv.throttle, a.dv.throttleShort = full, short
	}
}

// throttleText says which host's politeness holds fetching back just now,
// in full ("⏱ throttled: 1 req/s to example.org (--rate)") and short
// ("⏱ throttled: 1 req/s"); "" when none does or nothing is fetched.
func (a *App) throttleText() (full, short string) {
	if !a.busy() {
		return "", ""
	}
	var active []fetch.Throttle
	for _, t := range a.backend.Throttled() {
		if t.Active {
			active = append(active, t)
		}
	}
	if len(active) == 0 {
		return "", ""
	}
	t := active[0]
	full = "⏱ throttled: " + throttlePace(t) + " to " + components.Escape(t.Host)
	if t.CrawlDelay > 0 {
		full += " (robots.txt Crawl-delay)"
	} else {
		full += " (--rate)"
	}
	if n := len(active) - 1; n > 0 {
		full += fmt.Sprintf(" and %s more", display.Count(n))
	}
	return full, "⏱ throttled: " + throttlePace(t)
}

// throttlePace is a host's pace in words: "10 req/s", or "1 req/5s" for
// less than one a second.
func throttlePace(t fetch.Throttle) string {
	switch {
	case t.Rate <= 0:
		return "one request at a time"
	case t.Rate >= 1:
		return roundTo2(t.Rate) + " req/s"
	}
	return "1 req/" + roundTo2(1/t.Rate) + "s"
}

// roundTo2 writes x with at most two decimals (3, 2.5, 0.33).
func roundTo2(x float64) string { return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64) }
