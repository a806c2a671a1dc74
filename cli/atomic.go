package cli

import (
	"context"
	"path/filepath"

	"github.com/keyspacedb/keyspace"
	ucli "github.com/urfave/cli/v2"
)

// A shell --atomic script runs every line in one write transaction, as
// Redis's MULTI … EXEC runs its commands, but across every structure:
// a table row, its index entries, a geo point and a log item change
// together or not at all. The shell opens the file, begins the
// transaction and runs each line as a command of its own (run) whose
// context carries the transaction; the commands open the database
// through openWrite and openView, which hand them a txStore on it. A line
// that fails ends the script, and the transaction rolls back: nothing the
// script wrote is in the file. The commands that read the file itself
// (stats, verify, backup) are refused inside a script (openRead).

// shared is what a script's lines share: its transaction, the file it is
// on, and the cancelling of the transaction's context, which a line's
// Ctrl-C calls (txStore): the command stops at its next write, and the
// transaction, which it leaves half done, rolls back.
type shared struct {
	tx     keyspace.Tx
	path   string
	cancel context.CancelFunc
}

// sharedKey is the context key of a script's shared.
type sharedKey struct{}

// sharedTx returns the transaction of the shell --atomic script c's
// command is a line of, if it is one.
func sharedTx(c *ucli.Context) (shared, bool) {
	if c == nil || c.Context == nil {
		return shared{}, false
	}
	sh, ok := c.Context.Value(sharedKey{}).(shared)
	return sh, ok
}

// sharedStore returns a txStore on the script's transaction, when c's
// command is a line of a shell --atomic script. A line naming another
// file with --db is refused: its writes would land in the script's.
func sharedStore(c *ucli.Context) (keyspace.Store, bool, error) {
	sh, ok := sharedTx(c)
	if !ok {
		return nil, false, nil
	}
	if a, b := filepath.Clean(common(c, "db")), filepath.Clean(sh.path); a != b {
		return nil, true, usagef("--db %s: a shell --atomic script writes to one file, %s", common(c, "db"), sh.path)
	}
	return txStore{sh}, true, nil
}

// txStore is a Store all of whose transactions are one: a shell --atomic
// script's. Update, View and Batch run fn in it (an error fails the
// command, and so the script, whose transaction then rolls back), and
// Close leaves it open for the next line. The Context forms stop the
// shared transaction when their context is done (a Ctrl-C of the line).
type txStore struct{ sh shared }

func (s txStore) View(fn func(tx keyspace.Tx) error) error   { return fn(s.sh.tx) }
func (s txStore) Update(fn func(tx keyspace.Tx) error) error { return fn(s.sh.tx) }
func (s txStore) Batch(fn func(tx keyspace.Tx) error) error  { return fn(s.sh.tx) }
func (s txStore) ViewContext(ctx context.Context, fn func(tx keyspace.Tx) error) error {
	return s.under(ctx, fn)
}
func (s txStore) UpdateContext(ctx context.Context, fn func(tx keyspace.Tx) error) error {
	return s.under(ctx, fn)
}
func (s txStore) BatchContext(ctx context.Context, fn func(tx keyspace.Tx) error) error {
	return s.under(ctx, fn)
}
func (s txStore) Close() error { return nil }

// under runs fn in the shared transaction, stopping it if ctx is done
// before fn returns.
func (s txStore) under(ctx context.Context, fn func(tx keyspace.Tx) error) error {
	stop := context.AfterFunc(ctx, s.sh.cancel)
	defer stop()
	return fn(s.sh.tx)
}
