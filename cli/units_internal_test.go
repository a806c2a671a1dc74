package cli

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	day := 24 * time.Hour
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"30d", 30 * day},
		{"1w", 7 * day},
		{"2w3d", 17 * day},
		{"1d12h", day + 12*time.Hour},
		{"1.5d", 36 * time.Hour},
		{".5w", 84 * time.Hour},
		{"-1d", -day},
		{"90s", 90 * time.Second},
		{"1h30m", 90 * time.Minute},
		{"0", 0},
	} {
		if got, err := parseDuration(tc.in); err != nil || got != tc.want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "d", "30x", "1e3d", "30 d", "1dd", "w1"} {
		if got, err := parseDuration(bad); err == nil || !strings.Contains(err.Error(), "30d or 1w") {
			t.Errorf("parseDuration(%q) = %v, %v; want an error naming the forms", bad, got, err)
		}
	}
}

// FuzzParseDuration: without a d or a w, parseDuration is
// time.ParseDuration; with them, it is time.ParseDuration of the text with
// each number of days or weeks written as hours.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"30d", "1w", "1d12h", "90s", "-1.5d", "1h30m", "", "1e3d", ".d", "3w2d1h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseDuration(s)
		if !strings.ContainsAny(s, "dw") {
			want, werr := time.ParseDuration(s)
			if (err == nil) != (werr == nil) || got != want {
				t.Fatalf("parseDuration(%q) = %v, %v; time.ParseDuration gives %v, %v", s, got, err, want, werr)
			}
			return
		}
		if err != nil {
			return
		}
		// Accepted: the days and weeks as hours give the same duration.
		var b strings.Builder
		num := ""
		for _, r := range s {
			switch {
			case r >= '0' && r <= '9' || r == '.':
				num += string(r)
			case (r == 'd' || r == 'w') && num != "":
				hours, perr := time.ParseDuration(num + "h")
				if perr != nil {
					t.Fatalf("%q: accepted, but %q is not a number", s, num)
				}
				if r == 'w' {
					hours *= 7
				}
				b.WriteString((hours * 24).String())
				num = ""
			default:
				b.WriteString(num + string(r))
				num = ""
			}
		}
		b.WriteString(num)
		want, werr := time.ParseDuration(b.String())
		if werr != nil || got != want {
			t.Fatalf("parseDuration(%q) = %v; %q gives %v, %v", s, got, b.String(), want, werr)
		}
	})
}

// TestTableEscapesControls: a table shows a cell's control characters
// and bytes that are not UTF-8 as escapes, keeps its own tabs and the
// newline that ends a row, and lines its columns up by what it shows.
func TestTableEscapesControls(t *testing.T) {
	var b strings.Builder
	tw := newTable(&b)
	fmt.Fprintln(tw, "ID\tN")
	fmt.Fprintf(tw, "%s\t%d\n", "a\x00b", 1)
	fmt.Fprintf(tw, "%s\t%d\n", "line\nbreak\r", 2)
	fmt.Fprintf(tw, "%s\t", "bad\xffutf8 é")
	fmt.Fprintf(tw, "%d\n", 3)
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	// The widest cell shown, line\nbreak\r, is 13 characters; 2 apart.
	want := "ID             N\n" +
		`a\x00b         1` + "\n" +
		`line\nbreak\r  2` + "\n" +
		`bad\xffutf8 é  3` + "\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestParseTimeField(t *testing.T) {
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{"2014-01-21T20:34:28.740Z", utc(2014, 1, 21, 20, 34, 28, 740e6)},
		{"2014-01-21T21:34:28+01:00", utc(2014, 1, 21, 20, 34, 28, 0)},
		{"2014-01-21T20:34:28.740", utc(2014, 1, 21, 20, 34, 28, 740e6)},
		{"2014-01-21 20:34:28", utc(2014, 1, 21, 20, 34, 28, 0)},
		{" 2014-01-21 20:34:28.5 ", utc(2014, 1, 21, 20, 34, 28, 5e8)},
		{"2014-01-21", utc(2014, 1, 21, 0, 0, 0, 0)},
		{"1390336468", utc(2014, 1, 21, 20, 34, 28, 0)},
		{"1390336468.25", utc(2014, 1, 21, 20, 34, 28, 25e7)},
		{"-1", utc(1969, 12, 31, 23, 59, 59, 0)},
	} {
		if got, err := parseTimeField(tc.in); err != nil || !got.Equal(tc.want) {
			t.Errorf("parseTimeField(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "yesterday", "2014-13-01", "2014-01-21T25:00:00", "NaN", "Inf", "1e300", "1e12", "2263-01-01", "1600-01-01T00:00:00Z"} {
		if got, err := parseTimeField(in); err == nil {
			t.Errorf("parseTimeField(%q) = %v, want an error", in, got)
		}
	}
}
