package cli

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/keyspacedb/keyspace/composite"
	ucli "github.com/urfave/cli/v2"
)

// A distanceUnit is a suffix a distance may end in and the metres it
// stands for.
type distanceUnit struct {
	suffix string
	metres float64
}

// metresPer are the distance units, longest suffix first.
var metresPer = []distanceUnit{{"km", 1000}, {"mi", 1609.344}, {"ft", 0.3048}, {"m", 1}}

// parseDistance reads "2km", "500m", "1.5mi", "300ft" or a bare number of
// metres.
func parseDistance(s string) (float64, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	scale := 1.0
	for _, u := range metresPer {
		if strings.HasSuffix(t, u.suffix) {
			t, scale = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.metres
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("distance %q: want a non-negative number with m, km, mi or ft (bare numbers are metres)", s)
	}
	return v * scale, nil
}

// parseDuration reads a duration as time.ParseDuration does ("90s",
// "15m", "1h30m") and in days and weeks too ("30d", "1w", "1d12h"), as
// retention and expiry are usually said; a day is 24 hours. Each number
// before a d or a w is read as hours by time.ParseDuration and multiplied
// in integers, so 0.1d is exactly 2h24m; the rest is left to it.
func parseDuration(s string) (time.Duration, error) {
	bad := errors.New("want a duration such as 90s, 15m, 2h, 30d or 1w")
	var b strings.Builder
	rest := s
	if rest != "" && (rest[0] == '-' || rest[0] == '+') {
		b.WriteByte(rest[0])
		rest = rest[1:]
	}
	isNumber := func(c byte) bool { return c == '.' || '0' <= c && c <= '9' }
	for rest != "" { // a number, then its unit
		i := 0
		for i < len(rest) && isNumber(rest[i]) {
			i++
		}
		j := i
		for j < len(rest) && !isNumber(rest[j]) {
			j++
		}
		number, unit := rest[:i], rest[i:j]
		rest = rest[j:]
		per := map[string]time.Duration{"d": 24, "w": 7 * 24}[unit]
		if per == 0 {
			b.WriteString(number + unit)
			continue
		}
		h, err := time.ParseDuration(number + "h")
		if err != nil || h > math.MaxInt64/per {
			return 0, bad
		}
		b.WriteString((h * per).String())
	}
	d, err := time.ParseDuration(b.String())
	if err != nil {
		return 0, bad
	}
	return d, nil
}

// durationValue is a flag's duration read by parseDuration. Its String is
// Go's form, which ucli.Context.Duration reads back.
type durationValue time.Duration

func (v *durationValue) Set(s string) error {
	d, err := parseDuration(s)
	*v = durationValue(d)
	return err
}

func (v *durationValue) String() string {
	if v == nil {
		return "0s"
	}
	return time.Duration(*v).String()
}

// durationFlag is a flag whose value is a duration in parseDuration's
// forms (read with c.Duration).
func durationFlag(name, usage, defaultText string) ucli.Flag {
	return &ucli.GenericFlag{Name: name, Value: new(durationValue), Usage: usage, DefaultText: defaultText}
}

// timeValue is a flag's time, read as an import's time column is
// (parseTimeField): RFC 3339, with or without a zone (UTC), a date (its
// midnight UTC) or Unix seconds. --since 2026-11-01 is a day's start, as
// a user types it, where RFC 3339 alone wanted 2026-11-01T00:00:00Z.
type timeValue struct {
	t   time.Time
	set bool
}

func (v *timeValue) Set(s string) error {
	t, err := parseTimeField(s)
	if err != nil {
		first, last := composite.TimeBounds()
		return fmt.Errorf("want RFC 3339 (2026-11-23T10:30:00Z; with no zone, UTC), a date (its midnight UTC) or Unix seconds, from %d to %d", first.Year(), last.Year())
	}
	v.t, v.set = t, true
	return nil
}

func (v *timeValue) String() string {
	if v == nil || !v.set {
		return ""
	}
	return v.t.Format(time.RFC3339Nano)
}

// timeFlag is a flag whose value is a time in timeValue's forms (read
// with timeOf).
func timeFlag(name, usage string) ucli.Flag {
	return &ucli.GenericFlag{Name: name, Value: new(timeValue), Usage: usage}
}

// timeOf is the time flag name was given, or nil when it was not.
func timeOf(c *ucli.Context, name string) *time.Time {
	if v, ok := c.Generic(name).(*timeValue); ok && v.set {
		t := v.t
		return &t
	}
	return nil
}
