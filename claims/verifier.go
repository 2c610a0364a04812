package claims

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync/atomic"

	"rsx/model"
)

// DefaultMargin is how far past its declared length a body is read before
// reading stops: enough to tell "a little longer" from "much longer"
// without reading gigabytes.
const DefaultMargin = 64 << 10

// Errors a Verifier stops with.
var (
	// ErrTooLong: the body went past its limit (the declared length plus a
	// margin, or Limits.MaxBytes when no length is declared).
	ErrTooLong = errors.New("the body is longer than the limit")
	// ErrBudgetSpent: the shared byte Budget has nothing left.
	ErrBudgetSpent = errors.New("the byte budget is spent")
	// ErrNotFetchable: the target is not an http or https URL.
	ErrNotFetchable = errors.New("only http and https URLs are fetched")
)

// Budget is a number of body bytes shared by many checks running at once:
// a spot audit's --max-total-bytes. It is safe for concurrent use.
type Budget struct{ left atomic.Int64 }

// NewBudget returns a budget of n bytes.
func NewBudget(n int64) *Budget {
	b := &Budget{}
	b.left.Store(max(n, 0))
	return b
}

// Left returns the bytes not spent yet.
func (b *Budget) Left() int64 { return b.left.Load() }

// take spends up to n bytes and returns how many it could.
func (b *Budget) take(n int64) int64 {
	for {
		left := b.left.Load()
		g := min(left, n)
		if g <= 0 {
			return 0
		}
		if b.left.CompareAndSwap(left, left-g) {
			return g
		}
	}
}

// Limits bound what a Verifier accepts.
type Limits struct {
	// Margin is read past a declared length before reading stops; 0 means
	// DefaultMargin, a negative value none.
	Margin int64
	// MaxBytes bounds a body whose length is not declared; 0: no bound.
	MaxBytes int64
	// Budget, when not nil, is spent by every byte accepted.
	Budget *Budget
}

// Verifier judges a body against its claims as it streams past: it counts
// the bytes and computes every declared digest in one pass, and refuses
// bytes beyond its limit. Write to it (or wrap a writer or reader with
// Writer or Reader), then ask Verify or Checks. A sync engine writes a
// download to a temporary file through Writer and renames the file into
// place only when Verify returns nil.
//
// A Verifier is not safe for concurrent use.
type Verifier struct {
	claims Claims
	hashes *model.Verifier
	limit  int64 // 0: none
	budget *Budget
	err    error // ErrTooLong or ErrBudgetSpent (wrapped) once refused
}

// NewVerifier returns a Verifier of a body held to c.
func NewVerifier(c Claims, l Limits) *Verifier {
	return &Verifier{claims: c, hashes: model.NewVerifier(c.Hash), limit: limitFor(c, l), budget: l.Budget}
}

// limitFor is the most bytes of a body read under l: the declared length
// plus the margin, or l.MaxBytes when no length is declared; 0 for none.
func limitFor(c Claims, l Limits) int64 {
	margin := l.Margin
	if margin == 0 {
		margin = DefaultMargin
	}
	margin = max(margin, 0)
	if c.LengthRaw != "" && c.LengthOK && c.Length >= 0 && !c.Gone {
		if c.Length > math.MaxInt64-margin-1 {
			return 0
		}
		return c.Length + margin
	}
	return max(l.MaxBytes, 0)
}

// Limit returns the most bytes accepted; 0 when there is no limit.
func (v *Verifier) Limit() int64 { return v.limit }

// Write counts and hashes p. Past the limit, or when the budget is spent,
// it accepts what fits and returns an error wrapping ErrTooLong or
// ErrBudgetSpent; it accepts nothing more after that.
func (v *Verifier) Write(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	n := int64(len(p))
	var err error
	if v.limit > 0 && v.hashes.Bytes()+n > v.limit {
		n = v.limit - v.hashes.Bytes()
		err = fmt.Errorf("more than %d bytes: %w", v.limit, ErrTooLong)
	}
	if v.budget != nil && n > 0 {
		if g := v.budget.take(n); g < n {
			n, err = g, ErrBudgetSpent
		}
	}
	_, _ = v.hashes.Write(p[:n])
	v.err = err
	return int(n), err
}

// Writer returns a writer that passes to w what v accepts, so that w never
// receives bytes past the limit. After an error of w the Verifier's results
// do not describe what w holds.
func (v *Verifier) Writer(w io.Writer) io.Writer { return verifiedWriter{v, w} }

type verifiedWriter struct {
	v *Verifier
	w io.Writer
}

func (t verifiedWriter) Write(p []byte) (int, error) {
	n, verr := t.v.Write(p)
	if n > 0 {
		if m, err := t.w.Write(p[:n]); err != nil {
			return m, err
		}
	}
	return n, verr
}

// Reader returns a reader of r that feeds v every byte read, and fails
// with v's error once v refuses more.
func (v *Verifier) Reader(r io.Reader) io.Reader { return verifiedReader{v, r} }

type verifiedReader struct {
	v *Verifier
	r io.Reader
}

func (t verifiedReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		if m, verr := t.v.Write(p[:n]); verr != nil {
			return m, verr
		}
	}
	return n, err
}

// Bytes returns the bytes accepted so far.
func (v *Verifier) Bytes() int64 { return v.hashes.Bytes() }

// Truncated reports whether bytes past the limit were refused.
func (v *Verifier) Truncated() bool { return errors.Is(v.err, ErrTooLong) }

// Err returns why v refused bytes (wrapping ErrTooLong or ErrBudgetSpent),
// nil when it has not.
func (v *Verifier) Err() error { return v.err }

// Digests compares the digests of the bytes accepted so far with the
// declared ones: one result per declared hash, in order.
func (v *Verifier) Digests() []model.HashResult { return v.hashes.Results() }

// received describes the body so far as Compare reads it.
func (v *Verifier) received() Received {
	return Received{Local: true, Bytes: v.Bytes(), Digests: v.Digests(), Truncated: v.Truncated(), Limit: v.limit, Err: v.err}
}

// Checks judges the body written so far, taken to be the whole body,
// against the declared length and digests: the "length" check, then one per
// declared digest ("hash" when none is declared).
func (v *Verifier) Checks() []Check {
	r := v.received()
	complete, why := r.complete(), r.whyIncomplete()
	return append([]Check{lengthCheck(v.claims, r, complete, why)}, digestChecks(v.claims, r, complete, why)...)
}

// Verify returns nil when nothing contradicts the claims: the length, when
// declared, and every declared digest rsx can compute match the body
// written so far (digests in algorithms it does not know are left
// unchecked). Otherwise it returns a *MismatchError naming each field, or
// v's own error when the body was refused before a field could be judged.
func (v *Verifier) Verify() error {
	var bad []Check
	for _, c := range v.Checks() {
		if c.Verdict == Mismatch {
			bad = append(bad, c)
		}
	}
	if len(bad) > 0 {
		return &MismatchError{Checks: bad}
	}
	return v.err
}

// MismatchError lists the claims a body contradicts.
type MismatchError struct {
	Checks []Check // each with Verdict Mismatch
}

func (e *MismatchError) Error() string {
	var b strings.Builder
	b.WriteString("the body does not match its claims: ")
	for i, c := range e.Checks {
		if i > 0 {
			b.WriteString("; ")
		}
		actual := c.Actual
		if actual == "" {
			actual = c.Reason
		}
		fmt.Fprintf(&b, "%s declared %s, got %s", c.Field, c.Declared, actual)
	}
	return b.String()
}
