package claims

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestVerifier(t *testing.T) {
	body := testBody
	tests := []struct {
		name     string
		claims   func(*testing.T) Claims
		limits   Limits
		write    string
		wantErr  string // "" for nil; else a substring
		wantMark string // marks of Checks
		trunc    bool
	}{
		{"the body declared", func(t *testing.T) Claims { return claimsOf(t, body) }, Limits{}, body, "", "length✓ md5✓ sha-256✓", false},
		{"another body", func(t *testing.T) Claims { return claimsOf(t, body) }, Limits{}, "another body", "length declared 42, got 12 bytes", "length✗ md5✗ sha-256✗", false},
		{"one byte more", func(t *testing.T) Claims { return claimsOf(t, body) }, Limits{}, body + "!", "md5 declared", "length✗ md5✗ sha-256✗", false},
		{"longer than declared plus margin", func(t *testing.T) Claims { return claimsOf(t, body) }, Limits{Margin: 8}, body + strings.Repeat("x", 100),
			"length declared 42, got more than 50 bytes", "length✗ md5? sha-256?", true},
		{"no length: a digest alone", func(t *testing.T) Claims { return Claims{Hash: hashes(t, "md5:"+md5Hex(body))} }, Limits{}, body, "", "length– md5✓", false},
		{"unknown algorithm is not an error", func(t *testing.T) Claims {
			return Claims{Hash: hashes(t, "sha3-256:"+sha256Hex(body))}
		}, Limits{}, body, "", "length– sha3-256?", false},
		{"no length, longer than MaxBytes", func(t *testing.T) Claims { return Claims{Hash: hashes(t, "md5:"+md5Hex(body))} }, Limits{MaxBytes: 10}, body,
			"more than 10 bytes", "length– md5?", true},
		{"nothing declared", func(*testing.T) Claims { return Claims{} }, Limits{}, body, "", "length– hash–", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := NewVerifier(tt.claims(t), tt.limits)
			var sink bytes.Buffer
			// Small writes, as a download makes them.
			w := v.Writer(&sink)
			var werr error
			for p := []byte(tt.write); len(p) > 0 && werr == nil; {
				n := min(len(p), 7)
				_, werr = w.Write(p[:n])
				p = p[n:]
			}
			if tt.trunc != (werr != nil) || tt.trunc != v.Truncated() {
				t.Errorf("write error %v, truncated %v, want truncated %v", werr, v.Truncated(), tt.trunc)
			}
			if tt.trunc && !errors.Is(werr, ErrTooLong) {
				t.Errorf("write error %v, want ErrTooLong", werr)
			}
			if lim := v.Limit(); lim > 0 && int64(sink.Len()) > lim {
				t.Errorf("the writer got %d bytes, past the limit %d", sink.Len(), lim)
			}
			if int64(sink.Len()) != v.Bytes() {
				t.Errorf("writer got %d bytes, verifier counted %d", sink.Len(), v.Bytes())
			}
			if m := marks(v.Checks()); m != tt.wantMark {
				t.Errorf("checks %s, want %s", m, tt.wantMark)
			}
			err := v.Verify()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Verify: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Verify: %v, want %q", err, tt.wantErr)
			}
			var me *MismatchError
			if err != nil && strings.Contains(tt.wantMark, "✗") && !errors.As(err, &me) {
				t.Errorf("Verify: %T, want *MismatchError", err)
			}
		})
	}
}

func TestVerifierReader(t *testing.T) {
	c := claimsOf(t, testBody)
	v := NewVerifier(c, Limits{})
	got, err := io.ReadAll(v.Reader(strings.NewReader(testBody)))
	if err != nil || string(got) != testBody || v.Verify() != nil {
		t.Fatalf("read %q, %v; verify %v", got, err, v.Verify())
	}
	v = NewVerifier(c, Limits{Margin: 1})
	_, err = io.ReadAll(v.Reader(strings.NewReader(testBody + "more bytes")))
	if !errors.Is(err, ErrTooLong) || v.Bytes() != int64(len(testBody)+1) {
		t.Errorf("long body: %v after %d bytes", err, v.Bytes())
	}
}

func TestBudget(t *testing.T) {
	b := NewBudget(50)
	c := Claims{}
	v1 := NewVerifier(c, Limits{Budget: b})
	v2 := NewVerifier(c, Limits{Budget: b})
	if n, err := v1.Write(make([]byte, 30)); n != 30 || err != nil {
		t.Fatalf("first write: %d %v", n, err)
	}
	n, err := v2.Write(make([]byte, 30))
	if n != 20 || !errors.Is(err, ErrBudgetSpent) {
		t.Errorf("second write: %d %v, want 20 and the budget spent", n, err)
	}
	if b.Left() != 0 {
		t.Errorf("left %d", b.Left())
	}
	if n, err := v1.Write([]byte("x")); n != 0 || !errors.Is(err, ErrBudgetSpent) {
		t.Errorf("write past the budget: %d %v", n, err)
	}
	if err := v2.Verify(); !errors.Is(err, ErrBudgetSpent) {
		t.Errorf("Verify after the budget ran out: %v", err)
	}
	if NewBudget(-5).Left() != 0 {
		t.Error("a negative budget")
	}
}
