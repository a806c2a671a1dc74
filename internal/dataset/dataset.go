// Package dataset finds and reads the real public datasets in
// ../shared/data (see SOURCES.md there) for tests and benchmarks. They are
// never copied into the repository; callers skip when they are absent.
package dataset

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// Dir returns the shared data directory, searching upwards from the working
// directory for shared/data (tests run in their package's directory). The
// environment variable KEYSPACE_DATA overrides the search.
func Dir() (string, error) {
	if d := os.Getenv("KEYSPACE_DATA"); d != "" {
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		cand := filepath.Join(dir, "shared", "data")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand, nil
		}
		if filepath.Dir(dir) == dir {
			return "", errors.New("dataset: no shared/data directory above " + wd)
		}
	}
}

// Path returns the path of a dataset file, or skips tb when it is absent.
func Path(tb testing.TB, name string) string {
	tb.Helper()
	dir, err := Dir()
	if err != nil {
		tb.Skipf("real data not available: %v", err)
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("real data not available: %v", err)
	}
	return p
}

// CitiesFile is the flat CSV of world cities (dr5hn, ODbL).
const CitiesFile = "dr5hn_cities_flat.csv"

// City is one row of CitiesFile.
type City struct {
	ID                 int64
	Name               string
	StateCode, Country string
	Lat, Lon           float64
}

// ReadCities reads CitiesFile from path.
func ReadCities(path string) ([]City, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	var out []City
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("dataset: %s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		id, err1 := strconv.ParseInt(rec[col["id"]], 10, 64)
		lat, err2 := strconv.ParseFloat(rec[col["latitude"]], 64)
		lon, err3 := strconv.ParseFloat(rec[col["longitude"]], 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("dataset: %s line %d: %w", path, line, err)
		}
		out = append(out, City{ID: id, Name: rec[col["name"]], StateCode: rec[col["state_code"]],
			Country: rec[col["country_code"]], Lat: lat, Lon: lon})
	}
}

// Cities reads the cities for a test, skipping when the file is absent.
func Cities(tb testing.TB) []City {
	tb.Helper()
	cities, err := ReadCities(Path(tb, CitiesFile))
	if err != nil {
		tb.Fatal(err)
	}
	return cities
}
