package model

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseDatetimeValid(t *testing.T) {
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	tests := []struct {
		in       string
		want     time.Time
		prec     Precision
		zone     bool
		isUTC    bool
		fraction string
	}{
		{"2013", utc(2013, 1, 1, 0, 0, 0, 0), PrecisionYear, false, false, ""},
		{"2013-07", utc(2013, 7, 1, 0, 0, 0, 0), PrecisionMonth, false, false, ""},
		{"2013-07-16", utc(2013, 7, 16, 0, 0, 0, 0), PrecisionDay, false, false, ""},
		{"2013-07-16T19:20Z", utc(2013, 7, 16, 19, 20, 0, 0), PrecisionMinute, true, true, ""},
		{"2013-07-16T19:20+01:00", utc(2013, 7, 16, 18, 20, 0, 0), PrecisionMinute, true, false, ""},
		{"2013-01-03T09:00:00Z", utc(2013, 1, 3, 9, 0, 0, 0), PrecisionSecond, true, true, ""},
		// The offset is subtracted from local time: 09:00 at +01:00 is 08:00 UTC
		// (the Python reference implementation gets this backwards).
		{"2013-01-03T09:00:00+01:00", utc(2013, 1, 3, 8, 0, 0, 0), PrecisionSecond, true, false, ""},
		{"2013-01-03T09:00:00+05:30", utc(2013, 1, 3, 3, 30, 0, 0), PrecisionSecond, true, false, ""},
		{"2013-01-03T09:00:00-08:00", utc(2013, 1, 3, 17, 0, 0, 0), PrecisionSecond, true, false, ""},
		{"2013-01-03T20:00:00-08:00", utc(2013, 1, 4, 4, 0, 0, 0), PrecisionSecond, true, false, ""},
		{"2013-01-01T00:30:00+01:00", utc(2012, 12, 31, 23, 30, 0, 0), PrecisionSecond, true, false, ""},
		{"2013-01-03T09:00:00+00:00", utc(2013, 1, 3, 9, 0, 0, 0), PrecisionSecond, true, true, ""},
		{"2013-01-03T09:00:00-00:00", utc(2013, 1, 3, 9, 0, 0, 0), PrecisionSecond, true, true, ""},
		{"2015-06-04T08:12:45.297844Z", utc(2015, 6, 4, 8, 12, 45, 297844000), PrecisionFraction, true, true, "297844"},
		{"2015-06-04T08:12:45.5Z", utc(2015, 6, 4, 8, 12, 45, 500000000), PrecisionFraction, true, true, "5"},
		{"2015-06-04T08:12:45.123456789Z", utc(2015, 6, 4, 8, 12, 45, 123456789), PrecisionFraction, true, true, "123456789"},
		{"2015-06-04T08:12:45.1234567891234Z", utc(2015, 6, 4, 8, 12, 45, 123456789), PrecisionFraction, true, true, "1234567891234"},
		{"2015-06-04T08:12:45.000Z", utc(2015, 6, 4, 8, 12, 45, 0), PrecisionFraction, true, true, "000"},
		{"1997-07-16T19:20:30.45+01:00", utc(1997, 7, 16, 18, 20, 30, 450000000), PrecisionFraction, true, false, "45"},
		{"2012-02-29", utc(2012, 2, 29, 0, 0, 0, 0), PrecisionDay, false, false, ""},
		{"2000-02-29", utc(2000, 2, 29, 0, 0, 0, 0), PrecisionDay, false, false, ""},
		{"2013-12-31T23:59:59Z", utc(2013, 12, 31, 23, 59, 59, 0), PrecisionSecond, true, true, ""},
		{"2016-12-31T23:59:60Z", utc(2017, 1, 1, 0, 0, 0, 0), PrecisionSecond, true, true, ""},
		{"2017-01-01T00:59:60+01:00", utc(2017, 1, 1, 0, 0, 0, 0), PrecisionSecond, true, false, ""},
		{"0000-01-01", utc(0, 1, 1, 0, 0, 0, 0), PrecisionDay, false, false, ""},
		{"9999-12-31T23:59:59Z", utc(9999, 12, 31, 23, 59, 59, 0), PrecisionSecond, true, true, ""},
		{"0000-01-01T00:00:00-14:00", utc(0, 1, 1, 14, 0, 0, 0), PrecisionSecond, true, false, ""},
		{"1969-12-31T23:59:59Z", utc(1969, 12, 31, 23, 59, 59, 0), PrecisionSecond, true, true, ""},
		{"2013-01-03T09:00:00+14:00", utc(2013, 1, 2, 19, 0, 0, 0), PrecisionSecond, true, false, ""},
		{"  2013-01-03T09:00:00Z\n", utc(2013, 1, 3, 9, 0, 0, 0), PrecisionSecond, true, true, ""},
	}
	for _, tt := range tests {
		d, err := ParseDatetime(tt.in)
		if err != nil {
			t.Errorf("ParseDatetime(%q): %v", tt.in, err)
			continue
		}
		if !d.OK || !d.Present() {
			t.Errorf("ParseDatetime(%q): OK=%v Present=%v", tt.in, d.OK, d.Present())
		}
		if d.Raw != strings.TrimSpace(tt.in) {
			t.Errorf("ParseDatetime(%q).Raw = %q", tt.in, d.Raw)
		}
		if !d.Time.Equal(tt.want) || d.Time.Location() != time.UTC {
			t.Errorf("ParseDatetime(%q).Time = %v, want %v", tt.in, d.Time, tt.want)
		}
		if d.Time != tt.want {
			t.Errorf("ParseDatetime(%q).Time is not == time.Date(..., time.UTC)", tt.in)
		}
		if d.Precision != tt.prec || d.HasZone != tt.zone || d.UTC != tt.isUTC || d.Fraction != tt.fraction {
			t.Errorf("ParseDatetime(%q) = prec %d zone %v utc %v fraction %q; want %d %v %v %q",
				tt.in, d.Precision, d.HasZone, d.UTC, d.Fraction, tt.prec, tt.zone, tt.isUTC, tt.fraction)
		}
	}
}

func TestParseDatetimeErrors(t *testing.T) {
	tests := []struct{ in, reason string }{
		{"", "empty value"},
		{"   ", "empty value"},
		{"13", "year must be four digits"},
		{"20130", "year must be four digits"},
		{"2o13", "year must be four digits"},
		{"2013/01", "expected '-' after the year, found '/'"},
		{"2013-13", "month 13 out of range"},
		{"2013-00", "month 00 out of range"},
		{"2013-1", "month must be two digits"},
		{"2013-011", "month must be two digits"},
		{"2013-01-32", "day 32 out of range for 2013-01"},
		{"2013-02-29", "day 29 out of range for 2013-02"},
		{"1900-02-29", "day 29 out of range for 1900-02"},
		{"2013-04-31", "day 31 out of range for 2013-04"},
		{"2013-04-00", "day 00 out of range for 2013-04"},
		{"2013-04-1", "day must be two digits"},
		{"2013-01-03T09:00:00", "missing time zone"},
		{"2013-01-03T09:00", "missing time zone"},
		{"2013-01-03T09:00:00.5", "missing time zone"},
		{"2013-01-03Z", "time zone without a time of day"},
		{"2013-01-03+01:00", "time zone without a time of day"},
		{"2013-01-03 09:00:00Z", "date and time must be separated by 'T', found ' '"},
		{"2013-01-03t09:00:00Z", "date and time must be separated by 'T', found 't'"},
		{"2013-01-03T24:00:00Z", "hour 24 out of range"},
		{"2013-01-03T09:60:00Z", "minute 60 out of range"},
		{"2013-01-03T09:00:61Z", "second 61 out of range"},
		{"2013-01-03T09:00:60Z", "second 60 is only valid for a leap second at 23:59:60 UTC"},
		{"2013-01-03T23:59:60+01:00", "second 60 is only valid for a leap second at 23:59:60 UTC"},
		{"2013-01-03T09", "time must have hours and minutes (hh:mm)"},
		{"2013-01-03T0900Z", "time must have hours and minutes (hh:mm)"},
		{"2013-01-03T9:00Z", "hour must be two digits"},
		{"2013-01-03T09:0Z", "minute must be two digits"},
		{"2013-01-03T09:00:0Z", "second must be two digits"},
		{"2013-01-03T09:00:00.Z", "'.' must be followed by fraction digits"},
		{"2013-01-03T09:00:00,5Z", "decimal comma in seconds; the W3C profile uses '.'"},
		{"2013-01-03T09:00.5Z", "fraction of a second without seconds"},
		{"2013-01-03T09:00:00z", "time zone designator must be upper-case 'Z'"},
		{"2013-01-03T09:00:00ZZ", "unexpected text after 'Z'"},
		{"2013-01-03T09:00:00+0100", "time zone offset must be ±hh:mm"},
		{"2013-01-03T09:00:00+01", "time zone offset must be ±hh:mm"},
		{"2013-01-03T09:00:00+1:00", "time zone offset must be ±hh:mm"},
		{"2013-01-03T09:00:00+15:00", "time zone offset +15:00 out of range"},
		{"2013-01-03T09:00:00+01:60", "time zone offset +01:60 out of range"},
		{"0000-01-01T00:00:00+00:01", "instant falls outside years 0000–9999 in UTC"},
		{"9999-12-31T23:59:00-00:01", "instant falls outside years 0000–9999 in UTC"},
		{"2013-01-03T09:00:00 Z", "unexpected ' ' where the time zone was expected"},
		{"2013-01-03X", "unexpected 'X' after the date"},
		{"Thu, 03 Jan 2013 09:00:00 GMT", "year must be four digits"},
		{"2013-01-03T09:00:00\x80", "unexpected \"\\x80\" where the time zone was expected"},
	}
	for _, tt := range tests {
		d, err := ParseDatetime(tt.in)
		if err == nil {
			t.Errorf("ParseDatetime(%q) = %+v, want error %q", tt.in, d, tt.reason)
			continue
		}
		var de *DatetimeError
		if !errors.As(err, &de) {
			t.Errorf("ParseDatetime(%q) error %T is not a *DatetimeError", tt.in, err)
			continue
		}
		if de.Reason != tt.reason {
			t.Errorf("ParseDatetime(%q) reason = %q, want %q", tt.in, de.Reason, tt.reason)
		}
		if !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("ParseDatetime(%q) error %q does not contain the reason", tt.in, err)
		}
		if d.OK || d.Raw != strings.TrimSpace(tt.in) || d.Precision != PrecisionNone || !d.Time.IsZero() {
			t.Errorf("ParseDatetime(%q) on error = %+v, want only Raw", tt.in, d)
		}
	}
}

func TestDatetimeCompare(t *testing.T) {
	p := func(s string) Datetime {
		d, err := ParseDatetime(s)
		if err != nil && s != "" && s != "bad" {
			t.Fatalf("ParseDatetime(%q): %v", s, err)
		}
		return d
	}
	tests := []struct {
		a, b string
		want int
	}{
		{"2013", "2014", -1},
		{"2014", "2013", 1},
		{"2013", "2013", 0},
		{"2013", "2013-01", 0},
		{"2013", "2013-01-01T00:00:00Z", 0},
		{"2013", "2013-06", -1},
		{"2013-12-31", "2013", 1},
		{"2013-01-03T09:00:00+01:00", "2013-01-03T08:00:00Z", 0},
		{"2013-01-03T09:00:00+01:00", "2013-01-03T08:30:00Z", -1},
		{"2013-01-03T09:00:00-08:00", "2013-01-03T16:59:59Z", 1},
		{"2015-06-04T08:12:45.297844Z", "2015-06-04T08:12:45Z", 1},
		{"2015-06-04T08:12:45.5Z", "2015-06-04T08:12:45.50Z", 0},
		{"bad", "2013", -1},
		{"2013", "", 1},
		{"bad", "", 0},
	}
	for _, tt := range tests {
		if got := p(tt.a).Compare(p(tt.b)); got != tt.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestDatetimeEnd(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2012", "2013-01-01T00:00:00Z"},
		{"2012-12", "2013-01-01T00:00:00Z"},
		{"2012-02-28", "2012-02-29T00:00:00Z"},
		{"2012-02-28T10:00Z", "2012-02-28T10:01:00Z"},
		{"2012-02-28T10:00:59Z", "2012-02-28T10:01:00Z"},
		{"2012-02-28T10:00:59.5Z", "2012-02-28T10:00:59.5Z"},
	}
	for _, tt := range tests {
		d, _ := ParseDatetime(tt.in)
		if got := FormatDatetime(d.End()); got != tt.want {
			t.Errorf("End(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if !(Datetime{}).End().IsZero() {
		t.Error("End of an absent datetime is not zero")
	}
}

func TestDatetimeFormat(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2013", "2013"},
		{"2013-07", "2013-07"},
		{"2013-07-16", "2013-07-16"},
		{"2013-07-16T19:20+01:00", "2013-07-16T18:20:00Z"},
		{"2013-01-03T09:00:00+05:30", "2013-01-03T03:30:00Z"},
		{"2015-06-04T08:12:45.297844Z", "2015-06-04T08:12:45.297844Z"},
		{"2015-06-04T08:12:45.2978440-08:00", "2015-06-04T16:12:45.2978440Z"},
		{"2016-12-31T23:59:60Z", "2017-01-01T00:00:00Z"},
		{"2013-13", "2013-13"},
		{"", ""},
	}
	for _, tt := range tests {
		d, _ := ParseDatetime(tt.in)
		if got := d.Format(); got != tt.want {
			t.Errorf("Format(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if d.String() != tt.in {
			t.Errorf("String(%q) = %q", tt.in, d.String())
		}
	}
}

// Format must not depend on Raw: a Datetime may be built by hand.
func TestDatetimeFormatWithoutRaw(t *testing.T) {
	if got := (Datetime{Time: time.Date(2013, 7, 16, 0, 0, 0, 5e8, time.UTC), Precision: PrecisionFraction, OK: true}).Format(); got != "2013-07-16T00:00:00.5Z" {
		t.Errorf("Format(fraction, no digits) = %q", got)
	}
	tm := time.Date(2013, 7, 16, 0, 0, 0, 0, time.UTC)
	for p, want := range map[Precision]string{
		PrecisionYear: "2013", PrecisionMonth: "2013-07", PrecisionDay: "2013-07-16",
		PrecisionSecond: "2013-07-16T00:00:00Z", PrecisionFraction: "2013-07-16T00:00:00Z",
	} {
		if got := (Datetime{Time: tm, Precision: p, OK: true}).Format(); got != want {
			t.Errorf("Format(precision %d) = %q, want %q", p, got, want)
		}
	}
}

func TestFormatDatetime(t *testing.T) {
	cet := time.FixedZone("CET", 3600)
	tests := []struct {
		t    time.Time
		want string
	}{
		{time.Date(2013, 1, 3, 9, 0, 0, 0, time.UTC), "2013-01-03T09:00:00Z"},
		{time.Date(2013, 1, 3, 9, 0, 0, 0, cet), "2013-01-03T08:00:00Z"},
		{time.Date(2015, 6, 4, 8, 12, 45, 297844000, time.UTC), "2015-06-04T08:12:45.297844Z"},
		{time.Date(2015, 6, 4, 8, 12, 45, 1, time.UTC), "2015-06-04T08:12:45.000000001Z"},
		{time.Date(2015, 6, 4, 8, 12, 45, 500000000, time.UTC), "2015-06-04T08:12:45.5Z"},
		{time.Date(5, 6, 4, 8, 12, 45, 0, time.UTC), "0005-06-04T08:12:45Z"},
		{time.Date(12345, 6, 4, 8, 12, 45, 0, time.UTC), "12345-06-04T08:12:45Z"},
	}
	for _, tt := range tests {
		if got := FormatDatetime(tt.t); got != tt.want {
			t.Errorf("FormatDatetime(%v) = %q, want %q", tt.t, got, tt.want)
		}
		if got := tt.t.UTC().Format(time.RFC3339Nano); tt.t.Year() <= 9999 && got != tt.want {
			t.Errorf("FormatDatetime(%v) differs from RFC3339Nano %q", tt.t, got)
		}
	}
}

func TestDatetimeOf(t *testing.T) {
	in := time.Date(2015, 6, 4, 10, 12, 45, 297844000, time.FixedZone("", 2*3600))
	d := DatetimeOf(in)
	if !d.OK || d.Raw != "2015-06-04T08:12:45.297844Z" || !d.Time.Equal(in) || d.Precision != PrecisionFraction ||
		!d.UTC || !d.HasZone || d.Fraction != "297844" {
		t.Errorf("DatetimeOf = %+v", d)
	}
	d = DatetimeOf(time.Date(2013, 1, 3, 9, 0, 0, 0, time.UTC))
	if d.Precision != PrecisionSecond || d.Raw != "2013-01-03T09:00:00Z" {
		t.Errorf("DatetimeOf whole second = %+v", d)
	}
	// A monotonic clock reading must not leak into the value.
	now := time.Now()
	if d := DatetimeOf(now); d.Time != now.UTC().Round(0) {
		t.Errorf("DatetimeOf(now).Time = %v, want %v", d.Time, now.UTC().Round(0))
	}
}

// daysFromCivil against the standard library over a wide range of dates.
func TestDaysFromCivil(t *testing.T) {
	for y := 0; y <= 9999; y += 7 {
		for m := 1; m <= 12; m++ {
			for _, d := range []int{1, 28, daysIn(m, y)} {
				want := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400
				if r := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() % 86400; r != 0 {
					want--
				}
				if got := daysFromCivil(y, m, d); got != want {
					t.Fatalf("daysFromCivil(%d, %d, %d) = %d, want %d", y, m, d, got, want)
				}
			}
		}
	}
}

func TestParseDatetimeAllocs(t *testing.T) {
	inputs := []string{"2013-01-03T09:00:00+01:00", "2015-06-04T08:12:45.297844Z", "2013", "2013-01-03"}
	allocs := testing.AllocsPerRun(100, func() {
		for _, s := range inputs {
			if _, err := ParseDatetime(s); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("ParseDatetime allocates %.1f times on success", allocs)
	}
}

func BenchmarkParseDatetime(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ParseDatetime("2015-06-04T08:12:45.297844Z")
		ParseDatetime("2013-01-03T09:00:00+01:00")
	}
}

func BenchmarkFormatDatetime(b *testing.B) {
	b.ReportAllocs()
	t := time.Date(2015, 6, 4, 8, 12, 45, 297844000, time.UTC)
	buf := make([]byte, 0, 64)
	for b.Loop() {
		buf = AppendDatetime(buf[:0], t)
	}
}
