package cli_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/keyspacedb/keyspace/cli"
)

// Run is the whole keyspace program: its arguments as the shell passes
// them (the program's name first), with stdin, stdout and stderr given.
// Here two points go into a geo index and a radius query finds them,
// nearest first; then a CSV read from stdin becomes a table keyed
// state:city:zip, and a scan lists one state's rows in key order.
func ExampleRun() {
	dir, err := os.MkdirTemp("", "keyspace-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "example.db")
	keyspace := func(stdin string, args ...string) {
		args = append([]string{"keyspace", "--db", db}, args...)
		if code := cli.Run(args, strings.NewReader(stdin), os.Stdout, io.Discard); code != 0 {
			fmt.Println("exit", code)
		}
	}

	keyspace("", "geo", "put", "--index", "cafes", "--lat", "52.5200", "--lon", "13.4050", "mitte")
	keyspace("", "geo", "put", "--index", "cafes", "--lat", "52.5163", "--lon", "13.3777", "--payload", `{"name":"Brandenburger"}`, "tor")
	keyspace("", "geo", "near", "--index", "cafes", "--lat", "52.5190", "--lon", "13.4010", "--radius", "3km", "--output", "ndjson")

	zips := "zip,city,state\n02134,Allston,MA\n94960,San Anselmo,CA\n02101,Boston,MA\n"
	keyspace(zips, "--quiet", "table", "import", "--table", "zips", "--key-cols", "state,city,zip", "-")
	keyspace("", "table", "scan", "--table", "zips", "--output", "csv", "MA:*")
	// Output:
	// {"id":"mitte","lat":52.52,"lon":13.405,"distance_m":292.5970919724451}
	// {"id":"tor","lat":52.5163,"lon":13.3777,"distance_m":1604.9049703662342,"payload":{"name":"Brandenburger"}}
	// key,city,state,zip
	// MA:Allston:02134,Allston,MA,02134
	// MA:Boston:02101,Boston,MA,02101
}
