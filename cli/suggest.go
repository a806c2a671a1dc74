package cli

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/keyspacedb/keyspace"
	ucli "github.com/urfave/cli/v2"
	"github.com/xrash/smetrics"
)

// Typos get a suggestion, as git's and cobra's do: an unknown command or
// flag is a usage error (exit 2) that names the nearest known name, when
// one is near enough. urfave/cli's own suggestions (App.Suggest) always
// name the nearest name however far it is, print the whole help first,
// and answer an unknown command with "No help topic for …" and exit 3;
// these use the same measure (Jaro-Winkler, from the same library) with a
// floor, and keep the one-line errors of every other usage error.

// similarEnough is the Jaro-Winkler similarity (1 for equal strings) a
// name needs to be suggested: "neer" is 0.88 from "near", "lattitude"
// 0.98 from "latitude"; "xyz" is 0.56 from "box".
const similarEnough = 0.8

// nearest returns the name in names most like typed, or "" when none is
// similarEnough.
func nearest(typed string, names []string) string {
	best, score := "", similarEnough
	for _, n := range names {
		if s := smetrics.JaroWinkler(strings.ToLower(typed), strings.ToLower(n), 0.7, 4); s >= score {
			best, score = n, s
		}
	}
	return best
}

// unknownCommand is the usage error for name, which is none of cmds, the
// commands under path ("keyspace geo").
func unknownCommand(cmds []*ucli.Command, path, name string) error {
	var names []string
	for _, cmd := range cmds {
		if !cmd.Hidden {
			names = append(names, cmd.Names()...)
		}
	}
	msg := fmt.Sprintf("unknown command %q for %q", name, path)
	s := ""
	for _, synonym := range commandSynonyms[strings.ToLower(name)] {
		if s == "" && slices.Contains(names, synonym) {
			s = synonym
		}
	}
	if s == "" {
		s = nearest(name, names)
	}
	if s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return usagef("%s (%s --help lists them)", msg, path)
}

// commandSynonyms are the commands a name from Redis or Tile38 may mean,
// in order of preference, ahead of the nearest spelling (nearest is
// knn, not near): GEOADD and SET
// put a point, GEOPOS gets one, GEOSEARCH, GEORADIUS and NEARBY are near,
// SCAN lists a fence set, INTERSECTS is intersecting, and the others
// ours under Redis's prefix (GEODIST, GEOHASH).
var commandSynonyms = map[string][]string{
	"geoadd":            {"put"},
	"add":               {"put"},
	"set":               {"put"},
	"geopos":            {"get"},
	"pos":               {"get"},
	"geosearch":         {"near"},
	"search":            {"near"},
	"georadius":         {"near"},
	"georadiusbymember": {"near"},
	"radius":            {"near"},
	"nearby":            {"near"},
	"nearest":           {"knn"},
	"geodist":           {"dist"},
	"distance":          {"dist"},
	"geohash":           {"hash"},
	"scan":              {"list"},
	"intersects":        {"intersecting"},
	"contains":          {"containing"},
}

// withFlagSuggestion adds to err, when it is an unknown flag of c's
// command, the nearest of the command's flags.
func withFlagSuggestion(c *ucli.Context, err error) error {
	if hinted, ok := coordinateValue(err); ok {
		return hinted
	}
	flags := c.App.Flags
	if c.Command != nil && c.Command.Name != "" {
		flags = c.Command.Flags
	}
	if hinted, ok := flagValueError(err, flags); ok {
		return hinted
	}
	typed, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return usageError{err}
	}
	typed = strings.TrimLeft(typed, "-")
	err = fmt.Errorf("flag provided but not defined: %s", dashed(typed))
	if c.Command != nil && c.Command.Name != "" {
		if arg, ok := argumentNamed(c.Command.ArgsUsage, typed); ok {
			// geo put --id car-7, series add --value 21.5: what was
			// typed as a flag is the command's argument.
			msg := fmt.Sprintf("%s is an argument, not a flag: %s [options] %s", arg, c.Command.HelpName, c.Command.ArgsUsage)
			if !strings.EqualFold(arg, typed) && c.Command.UsageText != "" {
				// --prefix for QUERY: show what one looks like.
				msg += ", as in " + strings.SplitN(c.Command.UsageText, "\n", 2)[0]
			}
			return usageError{fmt.Errorf("%w; %s", err, msg)}
		}
	}
	return unknownFlag(err, typed, flags)
}

// argumentNamed returns the word of argsUsage (a command's ArgsUsage, as
// "ID [FIELD=VALUE...]") that typed, a flag's name, names, if any: the
// word itself, or one argumentSynonyms gives for it.
func argumentNamed(argsUsage, typed string) (string, bool) {
	words := strings.FieldsFunc(argsUsage, func(r rune) bool { return r < 'A' || r > 'Z' })
	for _, w := range words {
		if strings.EqualFold(w, typed) || slices.Contains(argumentSynonyms[strings.ToLower(typed)], w) {
			return w, true
		}
	}
	return "", false
}

// argumentSynonyms are the arguments a flag other tools use may mean: a
// scan's prefix or pattern (Redis's SCAN MATCH, a --prefix) is table
// scan's QUERY, which ends in * for a prefix, or table count's PREFIX.
var argumentSynonyms = map[string][]string{
	"prefix":  {"QUERY"},
	"match":   {"QUERY"},
	"pattern": {"QUERY", "PREFIX"},
}

// unknownFlag is the usage error err for the flag typed (without its
// dashes), with the nearest of flags when one is near.
func unknownFlag(err error, typed string, flags []ucli.Flag) error {
	if s := nearestFlag(typed, flags); s != "" {
		return usageError{fmt.Errorf("%w; did you mean %s?", err, dashed(s))}
	}
	return usageError{err}
}

// dashed is a flag's name as it is typed: -k, --limit.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// badFlagValue matches the flag package's errors for a flag's value that
// does not parse, a bool's and the others', capturing the value, the
// flag's name and why.
var badFlagValue = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-([A-Za-z0-9-]+): (.*)$`)

// flagValueError is the usage error for a flag value that does not parse,
// in the words of the flag's kind, and whether err was one: the flag
// package says "invalid value "2.5" for flag -n: parse error", which
// names the flag with one dash and says nothing of what it wants.
func flagValueError(err error, flags []ucli.Flag) (error, bool) {
	m := badFlagValue.FindStringSubmatch(err.Error())
	if m == nil {
		return nil, false
	}
	value, name, why := m[1], m[2], m[3]
	var flag ucli.Flag
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			flag = f
		}
	}
	switch f := flag.(type) {
	case *ucli.IntFlag, *ucli.Uint64Flag:
		want := "a whole number"
		if _, unsigned := f.(*ucli.Uint64Flag); unsigned {
			want = "a whole number, 0 or more"
		}
		if why == "value out of range" {
			want += " small enough for the flag"
		}
		return usagef("%s %q: want %s", dashed(name), value, want), true
	case *ucli.Float64Flag:
		return usagef("%s %q: want a number", dashed(name), value), true
	case *ucli.BoolFlag:
		return usagef("%s=%s: %s is a switch, true or false (or give it alone for true)", dashed(name), value, dashed(name)), true
	}
	return usagef("%s %q: %s", dashed(name), value, why), true
}

// flagSynonyms are the flags a word other tools use for them may mean,
// in order of preference, where the spelling is too far for nearest:
// Redis and Tile38 say COUNT for --limit and -k, and Tile38 LIMIT for
// what fence near and geo knn call -k; a distance for --radius, and
// GeoJSON and many CSVs lng; a slice of a circle is
// spoken of by its bearings or a heading; an index's fields are the
// columns other commands key by, and the index commands name theirs by
// --name where geo commands say --index.
var flagSynonyms = map[string][]string{
	"distance":  {"radius"},
	"dist":      {"radius"},
	"meters":    {"radius"},
	"metres":    {"radius"},
	"count":     {"limit", "k"},
	"limit":     {"k"},
	"n":         {"k"},
	"latitude":  {"lat", "lat-col"},
	"longitude": {"lon", "lon-col"},
	"lng":       {"lon", "lon-col"},
	"keys":      {"key-cols"},
	"cols":      {"fields", "key-cols"},
	"columns":   {"fields", "key-cols"},
	"bearing":   {"sector"},
	"bearings":  {"sector"},
	"heading":   {"sector"},
	"index":     {"name"},
}

// nearestFlag returns the name among flags's that typed (without its
// dashes) most likely meant, or "" when none is near. A synonym of typed
// (flagSynonyms) wins; then a name that begins with typed as a whole
// word (--id meant --id-col, --lat on an import --lat-col), the shortest
// such first; otherwise the nearest by nearest, leaving out one-letter
// aliases unless typed is one letter, since Jaro-Winkler rates "i" close
// to any "i…" (--id is not -i).
func nearestFlag(typed string, flags []ucli.Flag) string {
	var names []string
	for _, f := range flags {
		for _, n := range f.Names() {
			if len(n) > 1 || len(typed) == 1 {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	for _, n := range flagSynonyms[strings.ToLower(typed)] {
		if slices.ContainsFunc(flags, func(f ucli.Flag) bool { return slices.Contains(f.Names(), n) }) {
			return n
		}
	}
	word := ""
	for _, n := range names {
		if strings.HasPrefix(strings.ToLower(n), strings.ToLower(typed)+"-") && (word == "" || len(n) < len(word)) {
			word = n
		}
	}
	if word != "" {
		return word
	}
	return nearest(typed, names)
}

// didYouMean is "; did you mean "quakes"?" for the name among names most
// like typed (a misspelt geo index, table, fence set or column), or ""
// when none is near.
func didYouMean(typed string, names []string) string {
	names = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == typed })
	if s := nearest(typed, names); s != "" {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return ""
}

// didYouMeanIn is didYouMean among the names list finds in the file
// (geoIndexNames, tableNames): none when they cannot be read, since they
// only adorn an error.
func didYouMeanIn(tx keyspace.Tx, typed string, list func(keyspace.Tx) ([]string, error)) string {
	names, _ := list(tx)
	return didYouMean(typed, names)
}

// choiceHint follows the usage error for a flag's value that is none of
// allowed (an --output, a --format): the one most like it, or the one a
// name other tools use stands for (jsonl is ndjson), "" when none is near
// or allowed.
func choiceHint(typed string, allowed []string) string {
	if s := choiceSynonyms[strings.ToLower(typed)]; slices.Contains(allowed, s) {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return didYouMean(typed, allowed)
}

// choiceSynonyms are the values other tools' names for them stand for.
var choiceSynonyms = map[string]string{
	"jsonl": "ndjson", "jsonlines": "ndjson", "json-lines": "ndjson", "ldjson": "ndjson",
	"geo-json": "geojson", "text": "table", "txt": "tsv", "tab": "tsv", "gpx": "xml", "osm": "xml",
}
