package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// rowColumns returns the columns rows have: a CSV's header in its order,
// else the fields of the first 100 objects, sorted.
func rowColumns(rows []row) []string {
	if len(rows) > 0 && rows[0].header != nil {
		return rows[0].header.names
	}
	var names []string
	for _, r := range rows[:min(len(rows), 100)] {
		for name := range r.names() {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// columnHint follows an error that names a column the rows do not have
// (wanted, or the first of several names looked for): that the header
// is data when it looks like it (dataHeader), else the column most like
// one of them (; did you mean "latitude"?), else the columns there are,
// the first ten (; the columns are zip_code, latitude, …).
func columnHint(columns []string, wanted ...string) string {
	if dataHeader(columns) {
		return dataHeaderHint(columns)
	}
	for _, w := range wanted {
		if s := didYouMean(w, columns); s != "" {
			return s
		}
	}
	if len(columns) == 0 {
		return ""
	}
	shown := columns[:min(len(columns), 10)]
	more := ""
	if len(columns) > len(shown) {
		more = ", …"
	}
	return fmt.Sprintf("; the columns are %s%s", strings.Join(shown, ", "), more)
}

// dataHeaderHint follows an error about a header that dataHeader says is
// a line of data, names: a GeoNames dump's when it has as many.
func dataHeaderHint(names []string) string {
	hint := "; the first line looks like data, not a header: name the columns with --columns"
	if len(names) == len(geonamesColumns) {
		hint += " (--columns geonames for a GeoNames dump)"
	}
	return hint
}

// geonamesColumns are the columns of GeoNames' dumps (cities15000.txt,
// allCountries.txt), as their readme lists them, in snake case:
// --columns geonames stands for them, and a geo import then takes its ids
// from geonameid.
var geonamesColumns = []string{"geonameid", "name", "asciiname", "alternatenames", "latitude", "longitude",
	"feature_class", "feature_code", "country_code", "cc2", "admin1", "admin2", "admin3", "admin4",
	"population", "elevation", "dem", "timezone", "modified"}

// dataHeader reports whether a CSV's header looks like a line of data,
// as in a headerless dump (GeoNames'): some name in it is a number.
func dataHeader(names []string) bool {
	return slices.ContainsFunc(names, func(name string) bool {
		_, err := strconv.ParseFloat(strings.TrimSpace(name), 64)
		return err == nil
	})
}
