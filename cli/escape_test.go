package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONKeepsHTMLAsWritten: a field holding HTML or a URL is printed as
// it was imported, in every output a person or a program reads it from,
// not with encoding/json's escapes for HTML pages (\u003c, \u0026).
func TestJSONKeepsHTMLAsWritten(t *testing.T) {
	dir := t.TempDir()
	db, file := filepath.Join(dir, "k.db"), filepath.Join(dir, "rows.csv")
	const body, url = "<p>Stouts & porters</p>", "https://example.com/?a=1&b=2"
	csv := "id,lat,lon,user,time,body,url\n1,1,2,u1,2016-01-01T00:00:00Z,\"" + body + "\"," + url + "\n"
	if err := os.WriteFile(file, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"table", "import", "--table", "t", "--key-cols", "id", file},
		{"geo", "import", "--index", "p", file},
		{"log", "import", "--log", "l", "--parent-col", "user", "--time-col", "time", file},
		{"fence", "put", "--fences", "z", "--lat", "1", "--lon", "2", "--radius", "1km", "--payload", `{"body":"` + body + `","url":"` + url + `"}`, "f"},
	} {
		if _, stderr, code := run(t, "", append([]string{"--db", db}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	for _, args := range [][]string{
		{"table", "get", "--table", "t", "1"},
		{"--output", "json", "table", "get", "--table", "t", "1"},
		{"--output", "ndjson", "table", "scan", "--table", "t"},
		{"--output", "json", "geo", "get", "--index", "p", "1"},
		{"--output", "json", "geo", "near", "--index", "p", "--lat", "1", "--lon", "2", "--radius", "1km"},
		{"--output", "ndjson", "geo", "scan", "--index", "p"},
		{"log", "latest", "--log", "l", "--parent", "u1"},
		{"--output", "json", "log", "latest", "--log", "l", "--parent", "u1"},
		{"--output", "geojson", "geo", "near", "--index", "p", "--lat", "1", "--lon", "2", "--radius", "1km"},
		{"--output", "geojson", "fence", "list", "--fences", "z"},
	} {
		out, stderr, code := run(t, "", append([]string{"--db", db}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		// The log's data is JSON text inside a JSON string: its quotes
		// are escaped, its < and & need not be.
		if !strings.Contains(out, body) || !strings.Contains(out, url) {
			t.Errorf("%v prints the fields otherwise than written:\n%s", args, out)
		}
	}
}
