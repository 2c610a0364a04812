package store

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Holder says which run holds a destination's lock.
//
// A run is identified by its Token alone: a host name and a process id do not
// identify a process (containers that share a host name run their processes
// in PID namespaces of their own, where the same ids recur). PID and Host are
// kept for people, in the message of a run that is refused.
type Holder struct {
	PID  int    `json:"pid"`
	Host string `json:"host"`
	// ID is the process's host id (Options.HostID: --host-id, else
	// HOSTNAME:PID), the name the run history gives it.
	ID      string    `json:"id,omitempty"`
	Started time.Time `json:"started"`
	// Token is the run's id, random to each run (crypto/rand).
	Token string `json:"token"`
	// Refreshed is when a bucket's lock was last renewed by its holder.
	Refreshed time.Time `json:"refreshed,omitzero"`
	// LeaseSeconds is how long its holder lets a bucket's lock go
	// unrefreshed before another run may take it over (Options.
	// LockStaleAfter): another run waits for the longer of its own and
	// this, so that a process given a short lease never takes over the
	// live lock of one that refreshes less often.
	LeaseSeconds float64 `json:"lease_seconds,omitempty"`
}

// lease is the holder's declared lease (0: none said).
func (h Holder) lease() time.Duration {
	return time.Duration(h.LeaseSeconds * float64(time.Second))
}

// DefaultHostID names this process when no host id is given: the host
// name and the process id, HOSTNAME:PID.
func DefaultHostID() string {
	return fmt.Sprintf("%s:%d", hostName(), os.Getpid())
}

func hostName() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	return host
}

func (h Holder) String() string {
	if h.Token == "" && h.PID == 0 && h.Host == "" {
		return "another rsx run (one that only reads, an audit or a dry run, which does not say which; or one starting)"
	}
	s := fmt.Sprintf("run %s on host %s (pid %d) since %s", h.Token, h.Host, h.PID, h.Started.UTC().Format(time.RFC3339))
	if h.ID != "" && h.ID != fmt.Sprintf("%s:%d", h.Host, h.PID) {
		s += " (host id " + h.ID + ")"
	}
	return s
}

// hostID is o.HostID, else DefaultHostID().
func (o Options) hostID() string {
	if o.HostID != "" {
		return o.HostID
	}
	return DefaultHostID()
}

func newHolder(now time.Time) Holder {
	var b [12]byte
	rand.Read(b[:])
	return Holder{PID: os.Getpid(), Host: hostName(), Started: now.UTC(), Token: hex.EncodeToString(b[:]), Refreshed: now.UTC()}
}

func (h Holder) encode() []byte {
	b, _ := json.Marshal(h)
	return append(b, '\n')
}

func decodeHolder(b []byte) (Holder, bool) {
	var h Holder
	if len(b) == 0 || json.Unmarshal(b, &h) != nil {
		return Holder{}, false
	}
	return h, true
}

// LockedError is a destination that another run holds.
type LockedError struct {
	Dest   string
	Holder Holder
	Where  string // the lock file or object
	Hint   string // what to do, when waiting is not the only way
}

func (e *LockedError) Error() string {
	msg := fmt.Sprintf("destination %s is in use by %s (lock %s)", e.Dest, e.Holder, e.Where)
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// Lock is a destination held by this run.
type Lock struct {
	Holder Holder // this run
	// TookOver is the run whose lock this one replaced because that run had
	// ended without releasing it (killed), or nil.
	TookOver *Holder
	// Removed counts the temporaries of an interrupted run that were removed.
	Removed int
	// Pruned counts the old rejected downloads removed at the start.
	Pruned int
	// Note says how the lock is kept when the store cannot do it fully
	// (a bucket without conditional writes); "" otherwise.
	Note    string
	release func() error
	lost    func() error
}

// Release gives the destination up. It is safe to call more than once.
func (l *Lock) Release() error {
	if l == nil || l.release == nil {
		return nil
	}
	r := l.release
	l.release = nil
	return r()
}

// Lost returns an error when the lock was taken from this run (a bucket's lock
// that could not be refreshed in time), nil while it is held.
func (l *Lock) Lost() error {
	if l == nil || l.lost == nil {
		return nil
	}
	return l.lost()
}
