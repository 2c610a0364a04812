package model

import (
	"strconv"
	"time"
)

// W3C Datetime (https://www.w3.org/TR/NOTE-datetime), the ISO 8601 profile that
// ResourceSync uses for lastmod, at, completed, from, until, datetime and modified.
//
// Decisions where the profile is silent or differs from its neighbours:
//   - A time of day requires a time zone designator (Z or ±hh:mm); a date without a
//     time must not have one ("2013-01-03Z" is refused, as the profile has no such form).
//   - Hour 24 is refused (ISO 8601's end-of-day 24:00 is not in the profile).
//   - Second 60 is accepted only where a leap second can occur: at 23:59:60 UTC once
//     the offset is applied. Time then holds the following instant (00:00:00 of the
//     next day), as time.Time cannot represent a leap second.
//   - Any number of fraction digits is accepted; Time keeps nanoseconds (digits past
//     the ninth are dropped), Fraction keeps all of them for display.
//   - Offsets may range from -14:00 to +14:00, as in XML Schema.
//   - Years are exactly four digits, 0000 to 9999, and the instant must stay in that
//     range once the offset is applied, so that it can be written in UTC.
//   - Reduced precisions (year, month, day) have no zone; their Time is the start of
//     the period read as UTC.

// DatetimeError tells what is wrong with a datetime value.
type DatetimeError struct {
	Value  string // the value as given (trimmed)
	Reason string // e.g. "missing time zone", "month 13 out of range"
}

func (e *DatetimeError) Error() string {
	return "invalid datetime " + strconv.Quote(e.Value) + ": " + e.Reason
}

// ParseDatetime parses a W3C Datetime at any of its granularities.
//
// On failure the returned Datetime keeps Raw (OK is false) and the error, a
// *DatetimeError, says what is wrong. Surrounding ASCII whitespace is ignored.
// On success nothing is allocated: Raw and Fraction share the caller's string.
//
// One function on purpose, in three parts (the date, the time of day, the
// time zone): it runs for every lastmod, at, from, datetime … of a
// document, 50,000 times or more in a Resource List. Split into parseDate,
// parseClock and parseZone (2026-11-27), which the compiler cannot inline,
// it took 36-43 % more CPU time in BenchmarkParseDatetime, with or without
// a *Datetime passed to the parts.
func ParseDatetime(s string) (Datetime, error) {
	s = trimASCIISpace(s)
	d := Datetime{Raw: s}
	if s == "" {
		return d, &DatetimeError{Value: s, Reason: "empty value"}
	}
	fail := func(reason string) (Datetime, error) {
		return Datetime{Raw: s}, &DatetimeError{Value: s, Reason: reason}
	}

	// The date: YYYY[-MM[-DD]].
	year, ok := digits4(s, 0)
	if !ok {
		return fail("year must be four digits")
	}
	month, day := 1, 1
	d.Precision = PrecisionYear
	if len(s) > 4 {
		if s[4] != '-' {
			if isDigit(s[4]) {
				return fail("year must be four digits")
			}
			return fail("expected '-' after the year, found " + quoteByte(s[4]))
		}
		if month, ok = digits2(s, 5); !ok || (len(s) > 7 && isDigit(s[7])) {
			return fail("month must be two digits")
		}
		if month < 1 || month > 12 {
			return fail("month " + s[5:7] + " out of range")
		}
		d.Precision = PrecisionMonth
	}
	if len(s) > 7 {
		if s[7] != '-' {
			return fail("expected '-' after the month, found " + quoteByte(s[7]))
		}
		if day, ok = digits2(s, 8); !ok || (len(s) > 10 && isDigit(s[10])) {
			return fail("day must be two digits")
		}
		if day < 1 || day > daysIn(month, year) {
			return fail("day " + s[8:10] + " out of range for " + s[:7])
		}
		d.Precision = PrecisionDay
	}
	days := daysFromCivil(year, month, day)
	if len(s) == 4 || len(s) == 7 || len(s) == 10 {
		d.Time = time.Unix(days*86400, 0).UTC()
		d.OK = true
		return d, nil
	}

	// A time of day follows the date.
	switch c := s[10]; c {
	case 'T':
	case 'Z', '+', '-':
		return fail("time zone without a time of day")
	case 't', ' ':
		return fail("date and time must be separated by 'T', found " + quoteByte(c))
	default:
		return fail("unexpected " + quoteByte(c) + " after the date")
	}
	hour, ok := digits2(s, 11)
	if !ok {
		return fail("hour must be two digits")
	}
	if hour > 23 {
		return fail("hour " + s[11:13] + " out of range")
	}
	if len(s) < 14 || s[13] != ':' {
		return fail("time must have hours and minutes (hh:mm)")
	}
	minute, ok := digits2(s, 14)
	if !ok || (len(s) > 16 && isDigit(s[16])) {
		return fail("minute must be two digits")
	}
	if minute > 59 {
		return fail("minute " + s[14:16] + " out of range")
	}
	d.Precision = PrecisionMinute
	i := 16
	second, nanos := 0, 0
	if i < len(s) && s[i] == ':' {
		if second, ok = digits2(s, 17); !ok || (len(s) > 19 && isDigit(s[19])) {
			return fail("second must be two digits")
		}
		if second > 60 {
			return fail("second " + s[17:19] + " out of range")
		}
		d.Precision = PrecisionSecond
		i = 19
		if i < len(s) && (s[i] == '.' || s[i] == ',') {
			if s[i] == ',' {
				return fail("decimal comma in seconds; the W3C profile uses '.'")
			}
			j := i + 1
			for j < len(s) && isDigit(s[j]) {
				if j-i <= 9 {
					nanos = nanos*10 + int(s[j]-'0')
				}
				j++
			}
			if j == i+1 {
				return fail("'.' must be followed by fraction digits")
			}
			for k := j - i - 1; k < 9; k++ {
				nanos *= 10
			}
			d.Fraction = s[i+1 : j]
			d.Precision = PrecisionFraction
			i = j
		}
	}

	// Time zone designator.
	offset := 0
	if i >= len(s) {
		return fail("missing time zone")
	}
	switch s[i] {
	case 'Z':
		if i+1 != len(s) {
			return fail("unexpected text after 'Z'")
		}
		d.UTC = true
	case '+', '-':
		if len(s)-i != 6 || s[i+3] != ':' {
			return fail("time zone offset must be ±hh:mm")
		}
		oh, ok1 := digits2(s, i+1)
		om, ok2 := digits2(s, i+4)
		if !ok1 || !ok2 {
			return fail("time zone offset must be ±hh:mm")
		}
		if om > 59 || oh*60+om > 14*60 {
			return fail("time zone offset " + s[i:] + " out of range")
		}
		offset = (oh*60 + om) * 60
		if s[i] == '-' {
			offset = -offset
		}
		d.UTC = offset == 0
	case 'z':
		return fail("time zone designator must be upper-case 'Z'")
	default:
		if d.Precision == PrecisionMinute && s[i] == '.' {
			return fail("fraction of a second without seconds")
		}
		return fail("unexpected " + quoteByte(s[i]) + " where the time zone was expected")
	}
	d.HasZone = true

	// Local time minus its offset is UTC: 09:00+01:00 is 08:00Z.
	sec := days*86400 + int64(hour*3600+minute*60+second) - int64(offset)
	if second == 60 {
		// Only 23:59:60 UTC can be a leap second.
		if (sec-1)%86400 != 86399 && (sec-1)%86400 != -1 {
			return fail("second 60 is only valid for a leap second at 23:59:60 UTC")
		}
	}
	if sec < minDatetimeUnix || sec >= maxDatetimeUnix {
		return fail("instant falls outside years 0000–9999 in UTC")
	}
	d.Time = time.Unix(sec, int64(nanos)).UTC()
	d.OK = true
	return d, nil
}

// The instants a W3C Datetime can denote once written in UTC (FormatDatetime):
// 0000-01-01T00:00:00Z up to, not including, 10000-01-01T00:00:00Z.
const (
	minDatetimeUnix = -62167219200
	maxDatetimeUnix = 253402300800
)

// Present reports whether the value was there at all (valid or not).
func (d Datetime) Present() bool { return d.Raw != "" }

// Compare orders datetimes by instant: -1 if d is before o, 0 if they are the same
// instant, +1 if d is after o. Reduced precisions compare as the start of their
// period ("2013" equals "2013-01-01T00:00:00Z"). A value that is absent or invalid
// sorts before every valid one; two such values compare equal.
func (d Datetime) Compare(o Datetime) int {
	switch {
	case !d.OK && !o.OK:
		return 0
	case !d.OK:
		return -1
	case !o.OK:
		return 1
	}
	return d.Time.Compare(o.Time)
}

// End is the first instant after the period the value denotes: the next year,
// month or day for reduced precisions, the next minute or second for those
// precisions, and Time itself for a fraction (the zero Time when not OK).
// With Time it bounds the period [Time, End) a reduced-precision value covers.
func (d Datetime) End() time.Time {
	if !d.OK {
		return time.Time{}
	}
	switch d.Precision {
	case PrecisionYear:
		return d.Time.AddDate(1, 0, 0)
	case PrecisionMonth:
		return d.Time.AddDate(0, 1, 0)
	case PrecisionDay:
		return d.Time.AddDate(0, 0, 1)
	case PrecisionMinute:
		return d.Time.Add(time.Minute)
	case PrecisionSecond:
		return d.Time.Add(time.Second)
	}
	return d.Time
}

// String returns the value as written.
func (d Datetime) String() string { return d.Raw }

// Format returns the value for display: RFC 3339 in UTC with the fraction digits
// as written ("2015-06-04T08:12:45.297844Z") for times of day, the date as written
// ("2013", "2013-01", "2013-01-03") for reduced precisions, and Raw when the value
// did not parse.
func (d Datetime) Format() string {
	if !d.OK {
		return d.Raw
	}
	switch d.Precision {
	case PrecisionYear, PrecisionMonth, PrecisionDay:
		var buf [40]byte
		return string(appendDatetime(buf[:0], d.Time, false)[:datePrefixLen(d.Precision)])
	}
	var buf [40]byte
	b := appendDatetime(buf[:0], d.Time, d.Precision == PrecisionFraction && d.Fraction == "")
	if d.Precision == PrecisionFraction && d.Fraction != "" {
		b = b[:len(b)-1]
		b = append(b, '.')
		b = append(b, d.Fraction...)
		b = append(b, 'Z')
	}
	return string(b)
}

func datePrefixLen(p Precision) int {
	switch p {
	case PrecisionYear:
		return 4
	case PrecisionMonth:
		return 7
	}
	return 10
}

// FormatDatetime writes t in the form the specification recommends, in UTC:
// "2013-01-03T09:00:00Z", with a fraction (trailing zeros dropped) only when t has
// one. Years outside 0000–9999 cannot be written as W3C Datetimes; they are written
// with as many digits as needed and will not parse back.
func FormatDatetime(t time.Time) string {
	var buf [40]byte
	return string(AppendDatetime(buf[:0], t))
}

// AppendDatetime appends FormatDatetime(t) to b (for writers that avoid allocation).
func AppendDatetime(b []byte, t time.Time) []byte {
	return appendDatetime(b, t, true)
}

func appendDatetime(b []byte, t time.Time, withFraction bool) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	hour, min, sec := t.Clock()
	if year < 0 {
		b = append(b, '-')
		year = -year
	}
	if year > 9999 {
		b = strconv.AppendInt(b, int64(year), 10)
	} else {
		b = append(b, byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10))
	}
	b = append(b, '-')
	b = append2(b, int(month))
	b = append(b, '-')
	b = append2(b, day)
	b = append(b, 'T')
	b = append2(b, hour)
	b = append(b, ':')
	b = append2(b, min)
	b = append(b, ':')
	b = append2(b, sec)
	if ns := t.Nanosecond(); ns != 0 && withFraction {
		var frac [9]byte
		for i := 8; i >= 0; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 9
		for n > 1 && frac[n-1] == '0' {
			n--
		}
		b = append(b, '.')
		b = append(b, frac[:n]...)
	}
	return append(b, 'Z')
}

func append2(b []byte, v int) []byte {
	return append(b, byte('0'+v/10), byte('0'+v%10))
}

// DatetimeOf returns t as a Datetime, as if FormatDatetime(t) had been parsed.
func DatetimeOf(t time.Time) Datetime {
	raw := FormatDatetime(t)
	d, err := ParseDatetime(raw)
	if err != nil {
		// Only years outside 0000–9999 get here: keep the instant, mark it unparsable.
		return Datetime{Raw: raw, Time: t.UTC(), HasZone: true, UTC: true}
	}
	return d
}

// daysFromCivil returns the number of days from 1970-01-01 to the given date of the
// proleptic Gregorian calendar (H. Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digits2(s string, i int) (int, bool) {
	if i+2 > len(s) || !isDigit(s[i]) || !isDigit(s[i+1]) {
		return 0, false
	}
	return int(s[i]-'0')*10 + int(s[i+1]-'0'), true
}

func digits4(s string, i int) (int, bool) {
	a, ok1 := digits2(s, i)
	b, ok2 := digits2(s, i+2)
	return a*100 + b, ok1 && ok2
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return "'" + string(rune(c)) + "'"
	}
	return strconv.Quote(string([]byte{c}))
}

// asciiSpace is an immutable lookup table of the ASCII whitespace bytes.
var asciiSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '\f': true, '\v': true}

func isASCIISpace(c byte) bool { return asciiSpace[c] }

func trimASCIISpace(s string) string {
	for len(s) > 0 && isASCIISpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isASCIISpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}
