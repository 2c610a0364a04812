package store

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/minio/minio-go/v7"
)

// The bucket's lock (s3lock.go) rests on conditional writes being atomic:
// of runs that create the lock at once (If-None-Match: *), or take over the
// same stale lock at once (If-Match on its ETag), exactly one succeeds and
// the others get 412 Precondition Failed. Checked here against the server
// itself, with writers at the same moment, a few rounds of each.
func TestS3ConditionalWritesRace(t *testing.T) {
	g := startGateway(t, "race")
	s := openS3(t, g, "race/p", Options{})
	defer s.Close()
	ctx := context.Background()
	const writers, rounds = 8, 3
	// race runs the writers at once and returns the tokens that succeeded
	// and the ETag the winner's write was given.
	race := func(key, ifMatch string) (won []string, etag string) {
		t.Helper()
		var mu sync.Mutex
		var wg sync.WaitGroup
		start := make(chan struct{})
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				h := Holder{Token: fmt.Sprintf("writer-%d", w)}
				<-start
				e, err := s.putLock(ctx, key, h, ifMatch == "", ifMatch)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					won, etag = append(won, h.Token), e
				case !isPreconditionFailed(err):
					t.Errorf("%s: %s: %v (want success or 412)", key, h.Token, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		return won, etag
	}
	for r := range rounds {
		key := s.loc.Key(fmt.Sprintf("%s/race-%d", ReservedDir, r))
		won, etag := race(key, "")
		if len(won) != 1 {
			t.Fatalf("%s, round %d: %d of %d writers created the object with If-None-Match: * (%q), want one", g.srv.Kind, r, len(won), writers, won)
		}
		info, err := g.client.StatObject(ctx, "race", key, minio.StatObjectOptions{})
		cur, _ := decodeHolder([]byte(getObject(t, g, "race", key)))
		if curETag := info.ETag; err != nil || cur.Token != won[0] || curETag != etag {
			t.Fatalf("%s, round %d: the object holds %q (ETag %s, %v), the winner was %q (ETag %s)", g.srv.Kind, r, cur.Token, info.ETag, err, won[0], etag)
		}
		won, _ = race(key, etag)
		if len(won) != 1 {
			t.Fatalf("%s, round %d: %d of %d writers replaced the object with If-Match on its ETag (%q), want one", g.srv.Kind, r, len(won), writers, won)
		}
	}
}
