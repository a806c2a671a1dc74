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

// rowsHint is columnHint for the columns of rows, and for a wanted
// field of an object above a row of --each (.states.state_code) the
// plain fields the objects at that path have (lentHint).
func rowsHint(rows []row, wanted ...string) string {
	if hint := lentHint(rows, wanted); hint != "" {
		return hint
	}
	return columnHint(rowColumns(rows), wanted...)
}

// lentHint follows an error that names a field of an object above the
// rows of --each that none has: the field most like it of those the
// objects at its path have, else the first ten of them. "" when no
// wanted name is such a field (it starts with a dot) or no object at
// its path has plain fields.
func lentHint(rows []row, wanted []string) string {
	if len(rows) == 0 || rows[0].lendable == nil {
		return ""
	}
	for _, w := range wanted {
		dot := strings.LastIndex(w, ".")
		if !strings.HasPrefix(w, ".") || dot < 0 {
			continue
		}
		at := w[:dot+1] // ".states.", or "." for the top objects
		var there []string
		for _, f := range *rows[0].lendable {
			if strings.HasPrefix(f, at) && !strings.Contains(f[len(at):], ".") {
				there = append(there, f)
			}
		}
		if len(there) == 0 {
			continue
		}
		// The names compared without the path they share, which would
		// make any two alike.
		bare := make([]string, len(there))
		for i, f := range there {
			bare[i] = f[len(at):]
		}
		if s := nearest(w[len(at):], bare); s != "" && s != w[len(at):] {
			return fmt.Sprintf("; did you mean %q?", at+s)
		}
		shown, more := there[:min(len(there), 10)], ""
		if len(there) > len(shown) {
			more = ", …"
		}
		path := strings.TrimSuffix(at, ".")
		if path == "" {
			path = "the top"
		}
		return fmt.Sprintf("; the objects at %s have %s%s", path, strings.Join(shown, ", "), more)
	}
	return ""
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
