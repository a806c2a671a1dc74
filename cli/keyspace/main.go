// Command keyspace is the keyspace command line; see package cli and
// `keyspace --help`.
package main

import (
	"os"

	"github.com/keyspacedb/keyspace/cli"
)

func main() {
	os.Exit(cli.Run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
