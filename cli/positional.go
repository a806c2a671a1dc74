package cli

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// coordinatesHint returns the flags a command that takes its centre as
// --lat and --lon most likely meant when it was given the centre as
// arguments, as Redis's commands take it (GEOSEARCH quakes FROMLONLAT
// -116.3 36.7 BYRADIUS 50 km), and whether the arguments read as one:
//
//	geo near quakes 36.7 -116.3 50km      →  --index quakes --lat 36.7 --lon -116.3 --radius 50km
//	geo knn -i quakes -116.3 36.7 5       →  --lat 36.7 --lon -116.3 -k 5
//	geo box -i quakes 36.7 -116.3 4km 2km →  --lat 36.7 --lon -116.3 --width 4km --height 2km
//	geo put fleet 13.41 52.52 car-7       →  --index fleet --lat 13.41 --lon 52.52 car-7
//
// A word before the two numbers is the value of the flag name (the
// index, the fence set) when name is not "". A command that takes an ID
// (geo put, fence put) keeps as that argument the word before the
// numbers, when name took none, or the word after them, where Redis's
// GEOADD writes its member. After the numbers comes the radius (one
// word, or a number and its unit as Redis writes it), the width and
// height, or, for a command with -k, how many. The first number is the
// latitude unless it cannot be one and the second can, when the two are
// the other way round, as Redis writes them; where both can be a
// latitude the first is taken, and the flags the hint spells out say
// which is which. The hint only ever names flags the command has and
// that were not set, and every argument must have found its flag: a
// guess at some of them would mislead.
func coordinatesHint(c *ucli.Context, name string, args []string) (string, bool) {
	unset := func(flag string) bool { return unsetFlag(c, flag) }
	if !unset("lat") || !unset("lon") {
		return "", false
	}
	var flags []string
	take := func(flag, value string) {
		dashes := "--"
		if len(flag) == 1 {
			dashes = "-"
		}
		flags = append(flags, dashes+flag+" "+value)
	}
	if len(args) > 0 && name != "" {
		if _, ok := finite(args[0]); !ok {
			take(name, args[0])
			args = args[1:]
		}
	}
	id := ""
	if c.Command.ArgsUsage == "ID" && len(args) > 0 {
		if _, ok := finite(args[0]); !ok {
			id, args = args[0], args[1:]
		} else if _, ok := finite(args[len(args)-1]); !ok {
			id, args = args[len(args)-1], args[:len(args)-1]
		}
	}
	if len(args) < 2 {
		return "", false
	}
	lat, latOK := finite(args[0])
	lon, lonOK := finite(args[1])
	if !latOK || !lonOK {
		return "", false
	}
	latText, lonText := args[0], args[1]
	if math.Abs(lat) > 90 && math.Abs(lon) <= 90 {
		lat, lon, latText, lonText = lon, lat, lonText, latText
	}
	if math.Abs(lat) > 90 || math.Abs(lon) > 180 {
		return "", false
	}
	take("lat", latText)
	take("lon", lonText)
	distances := joinUnits(args[2:])
	switch {
	case len(distances) == 0:
	case len(distances) == 1 && unset("radius") && isDistance(distances[0]):
		take("radius", distances[0])
	case len(distances) == 2 && unset("width") && unset("height") && isDistance(distances[0]) && isDistance(distances[1]):
		take("width", distances[0])
		take("height", distances[1])
	case len(args) == 3 && unset("k"):
		k, err := strconv.Atoi(args[2])
		if err != nil || k <= 0 {
			return "", false
		}
		take("k", args[2])
	default:
		return "", false
	}
	if id != "" {
		flags = append(flags, id)
	}
	return strings.Join(flags, " "), true
}

// wantsOneID is the usage error of a command that takes one ID and was
// given none or more, with the flags a centre among them stands for
// (coordinatesHint).
func wantsOneID(c *ucli.Context) error {
	msg := commandName(c) + " wants one ID"
	if hint, ok := coordinatesHint(c, "", c.Args().Slice()); ok {
		msg += "; did you mean " + hint + "?"
	}
	return usagef("%s", msg)
}

// joinUnits returns args with each unit written apart from its number
// (50 km, as Redis writes a radius) joined to it (50km).
func joinUnits(args []string) []string {
	var joined []string
	for i := 0; i < len(args); i++ {
		if i+1 < len(args) && isDistanceUnit(args[i+1]) {
			joined = append(joined, args[i]+strings.ToLower(args[i+1]))
			i++
			continue
		}
		joined = append(joined, args[i])
	}
	return joined
}

// finite returns s read as a number, and whether it is a finite one.
func finite(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
}

// isDistance reports whether parseDistance reads s.
func isDistance(s string) bool {
	_, err := parseDistance(s)
	return err == nil
}

// isDistanceUnit reports whether s is one of the units parseDistance
// reads (km, m, mi, ft), in any case.
func isDistanceUnit(s string) bool {
	for _, u := range metresPer {
		if strings.EqualFold(s, u.suffix) {
			return true
		}
	}
	return false
}

// unsetFlag reports whether c's command has the flag name and it was not
// set.
func unsetFlag(c *ucli.Context, name string) bool {
	for _, f := range c.Command.Flags {
		if slices.Contains(f.Names(), name) {
			return !c.IsSet(name)
		}
	}
	return false
}

// invalidValue matches urfave/cli's error for a flag's value that does
// not parse, capturing the value and the flag's name.
var invalidValue = regexp.MustCompile(`^invalid value "(.*)" for flag -([a-z-]+): `)

// coordinateValue is the usage error for a --lat or --lon whose value is
// not a number, with what it most likely meant, and whether err was
// one: a pair as maps copy it (--lat "36.7, -116.3"), or a hemisphere's
// letter (--lat 33.9S is --lat -33.9).
func coordinateValue(err error) (error, bool) {
	m := invalidValue.FindStringSubmatch(err.Error())
	if m == nil || m[2] != "lat" && m[2] != "lon" {
		return nil, false
	}
	value, flag := m[1], m[2]
	what := map[string]string{"lat": "a latitude", "lon": "a longitude"}[flag]
	pair := strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ' ' || r == ';' })
	if len(pair) == 2 {
		_, latOK := finite(pair[0])
		_, lonOK := finite(pair[1])
		if latOK && lonOK {
			return usagef("--%s %q: %s is one number; did you mean --lat %s --lon %s?", flag, value, what, pair[0], pair[1]), true
		}
	}
	t := strings.TrimSpace(value)
	if n := len(t); n > 1 {
		if v, ok := finite(strings.TrimSpace(t[:n-1])); ok && v >= 0 {
			hemisphere := strings.ToUpper(t[n-1:])
			want := map[string]string{"N": "lat", "S": "lat", "E": "lon", "W": "lon"}[hemisphere]
			if want != "" {
				if hemisphere == "S" || hemisphere == "W" {
					v = -v
				}
				return usagef("--%s %q: %s is a number of degrees, north and east positive; did you mean --%s %s?", flag, value, what, want, strconv.FormatFloat(v, 'f', -1, 64)), true
			}
		}
	}
	return usagef("--%s %q: want %s in degrees, a number (north and east positive: --lat -33.9 for 33.9°S)", flag, value, what), true
}
