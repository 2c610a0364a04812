package pages

import (
	"context"
	"errors"
	"time"

	"rsx/claims"
	"rsx/fetch"
	"rsx/memento"
	"rsx/session"
)

// errIVNop is what ivNop's methods fail with.
var errIVNop = errors.New("no backend: this build cannot fetch")

// ivNop fails every call of the backends the pages ask, as rsx/ui's
// NopBackend does: the tests' fakes embed it and override what they need.
type ivNop struct{}

func (ivNop) InspectResource(_ context.Context, t claims.Target, _ func(int64, int64)) session.Inspection {
	return session.Inspection{Result: claims.Failed(t, errIVNop)}
}

func (ivNop) TimeMap(context.Context, string) (*memento.TimeMap, *fetch.Exchange, error) {
	return nil, nil, errIVNop
}

func (ivNop) TimeGate(_ context.Context, _ string, at time.Time) (session.TimeGateAnswer, error) {
	return session.TimeGateAnswer{Asked: at}, errIVNop
}

func (ivNop) CompareVersions(_ context.Context, version, current string) session.VersionDiff {
	return session.VersionDiff{Version: session.Body{URL: version, Err: errIVNop}, Current: session.Body{URL: current, Err: errIVNop},
		Note: "no comparison: " + errIVNop.Error()}
}
