package cli

// --dry-run: an import that does everything but commit. Its writes run
// in the transaction they would commit in, so what it reports (rows,
// bad rows, a unique index's conflicts, --nx's left-out ids, --fences'
// crossings) is what the import would do, and then the transaction rolls
// back: the file is as it was, and one the import would have created is
// not left behind (writeStore).

import (
	"context"
	"errors"

	"github.com/keyspacedb/keyspace"
	ucli "github.com/urfave/cli/v2"
)

// dryRunFlag is an import's --dry-run.
func dryRunFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "dry-run", Usage: "read and write everything in a transaction, report what would be imported, and roll it back: the file is left as it was"}
}

// errDryRun rolls a dry run's transaction back.
var errDryRun = errors.New("dry run: rolled back")

// dryRunStore is a Store whose writes roll back once they have run.
type dryRunStore struct{ keyspace.Store }

func (s dryRunStore) Update(fn func(tx keyspace.Tx) error) error {
	return s.UpdateContext(context.Background(), fn)
}

func (s dryRunStore) UpdateContext(ctx context.Context, fn func(tx keyspace.Tx) error) error {
	err := s.Store.UpdateContext(ctx, func(tx keyspace.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errDryRun
	})
	if errors.Is(err, errDryRun) {
		return nil
	}
	return err
}

func (s dryRunStore) Batch(fn func(tx keyspace.Tx) error) error { return s.Update(fn) }

func (s dryRunStore) BatchContext(ctx context.Context, fn func(tx keyspace.Tx) error) error {
	return s.UpdateContext(ctx, fn)
}

// dryRun reports whether the command runs with --dry-run.
func dryRun(c *ucli.Context) bool { return c.Bool("dry-run") }
