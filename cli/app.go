// Package cli is the keyspace command line: import points, tables and series
// readings into the embedded bbolt file, keep logs and relations, and answer
// every query the library answers, as a table for people, CSV for
// spreadsheets, or JSON, NDJSON and GeoJSON for programs.
//
// Exit codes: 0 on success, 1 on a runtime error (a bad row, a locked or
// corrupt file, an unknown index), 2 on a usage error (an unknown flag, a
// missing argument). Errors go to stderr as one line. Notes ("keyspace:
// note: …": how a polygon was read, a --where field no row has) go to
// stderr only after a command that succeeds (addNote). Query commands
// open the file read-only.
//
// The binary is cli/keyspace; Run is the whole program, so tests can run it
// in-process.
//
// One file a command group: geo.go (geoimport.go its import, geoquery.go
// its queries, geoscope.go the scopes points are put under), fence.go
// (fenceimport.go its import, fencejson.go a fence as GeoJSON,
// fencequery.go the commands that read a set, fencefilter.go their
// --where and --match), table.go (tablecount.go
// table count, aggregate.go its --of figures, tableset.go set,
// tableincr.go incr), index.go, rel.go, log.go, series.go, stats.go,
// verify.go, backup.go, bench.go;
// drop.go is every group's drop, input.go what the imports share
// (inputformat.go an input's compression and format, jsonrows.go the
// rows of a JSON document, jsonnumber.go JSON numbers kept as written,
// geojsonin.go reading GeoJSON, longedge.go the note on a polygon's
// edges longer than 180° of longitude),
// output.go the formats (csvout.go --output csv), fields.go --fields,
// where.go --where, tableplan.go how
// table scan, count and del read the rows --where keeps (through the
// index with the fewest entries where one serves; tablerange.go the
// ranges of an index a number condition reads), tableinfo.go index list
// and table info,
// rename.go every group's rename, units.go distances, svg.go the --svg
// pictures, suggest.go the typo suggestions (a flag's, a command's, or a
// name the file holds), positional.go the flags a centre given as
// arguments stands for, columns.go the hints for a column an import's
// rows do not have.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/internal/errctx"
	ucli "github.com/urfave/cli/v2"
)

// usageError marks errors that deserve exit code 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// Run runs the command line with args (args[0] is the program name) and
// returns the exit code. Ctrl-C cancels the running command: an import in
// progress rolls back and says so, an index build stops after the batch it
// is in, for index build to finish. A command that does
// not stop within interruptGrace of it (a query, or a read of standard
// input that has not ended), or a second Ctrl-C, ends the process with
// exit code 130; nothing is half written, as an Update that does not
// commit leaves the file as it was.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(context.Background(), args, stdin, stdout, stderr)
}

// run is Run under parent, whose values the command sees: the script's
// transaction, for a line of shell --atomic (sharedTx).
func run(parent context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	handling := new(interruptHandling)
	ctx, cancel := context.WithCancel(context.WithValue(context.WithValue(parent, interruptKey{}, handling), argsKey{}, args))
	defer cancel()
	interrupts := make(chan os.Signal, 2)
	signal.Notify(interrupts, os.Interrupt)
	defer signal.Stop(interrupts)
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		for {
			select {
			case <-interrupts:
			case <-finished:
				return
			}
			if !handling.passed.Load() {
				break
			}
		}
		cancel()
		select {
		case <-interrupts:
		case <-time.After(interruptGrace):
		case <-finished:
			return
		}
		fmt.Fprintln(stderr, "keyspace: interrupted")
		os.Exit(130)
	}()
	app := newApp(stdin, stdout, stderr)
	var unknown error // an unknown command, which urfave/cli reports by calling CommandNotFound (keyspace help nope)
	app.CommandNotFound = func(c *ucli.Context, name string) {
		cmds, path := c.App.Commands, c.App.Name
		if c.Command != nil && len(c.Command.Subcommands) > 0 {
			cmds, path = c.Command.Subcommands, c.Command.HelpName
		}
		unknown = unknownCommand(cmds, path, name)
	}
	args, err := intersperse(app, args)
	if err == nil {
		err = app.RunContext(ctx, args)
	}
	if feed, ok := app.Writer.(*csvFeed); ok {
		// What the command wrote, as CSV: all of it when it failed
		// part way, as NDJSON would have been.
		if ferr := feed.Flush(); err == nil {
			err = ferr
		}
	}
	if err == nil {
		err = unknown
	}
	if err == nil {
		if notes, ok := app.Metadata[notesKey].(*[]string); ok {
			for _, n := range *notes {
				fmt.Fprintf(stderr, "keyspace: note: %s\n", n)
			}
		}
		return 0
	}
	if errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "interrupted") {
		// A transaction stopped by Ctrl-C, where the command had no
		// message of its own for it (stoppedUpdate).
		err = fmt.Errorf("interrupted: %w", context.Canceled)
	}
	var damaged damagedError
	if errors.Is(err, keyspace.ErrCorrupt) && !errors.As(err, &damaged) {
		err = damagedError{err: err} // found after Open, by a query
	}
	fmt.Fprintf(stderr, "keyspace: %s\n", strings.TrimPrefix(oneLine(err), "keyspace: "))
	var ue usageError
	msg := err.Error()
	if errors.As(err, &ue) || strings.HasPrefix(msg, "Required flag") || strings.HasPrefix(msg, "flag provided but not defined") ||
		strings.Contains(msg, "invalid value") || strings.HasPrefix(msg, "Required flags") {
		return 2
	}
	return 1
}

// interruptHandling is how a Run treats Ctrl-C. The interactive shell
// passes it on (passed): each of its lines is a Run of its own, which
// stops that line's command, and the shell goes on to its next prompt.
// Without that, the shell's own Run would cancel and, interruptGrace
// later, end the process under the prompt.
type interruptHandling struct{ passed atomic.Bool }

// interruptKey is the context key of a Run's interruptHandling.
type interruptKey struct{}

// passInterrupts makes the Run whose context c carries hand Ctrl-C on to
// the Runs it makes (the interactive shell's lines).
func passInterrupts(c *ucli.Context) {
	if h, ok := c.Context.Value(interruptKey{}).(*interruptHandling); ok {
		h.passed.Store(true)
	}
}

// interruptGrace is how long Run waits, after Ctrl-C, for the command to
// stop by itself before it ends the process.
const interruptGrace = 2 * time.Second

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }

// commandName is the command c runs, as a message names it: "geo sweep",
// without the program's name.
func commandName(c *ucli.Context) string {
	return strings.TrimPrefix(c.Command.HelpName, c.App.Name+" ")
}

// commonFlags are accepted before the command and after it alike.
//
// Only the keyspace command's own --db reads $KEYSPACE_DB. A leaf
// command's copy that read it too would count as given whenever the
// variable is set, and common, which takes the copy nearest the leaf that
// was given, would let the environment win over a --db on the command
// line (KEYSPACE_DB=a.db keyspace --db b.db stats read a.db).
func commonFlags(leaf bool) []ucli.Flag {
	db := &ucli.StringFlag{Name: "db", Value: "keyspace.db", EnvVars: []string{"KEYSPACE_DB"}, Usage: "the database `FILE`"}
	if leaf {
		db.EnvVars, db.Usage = nil, "the database `FILE`, or $KEYSPACE_DB when no --db is given"
	}
	return []ucli.Flag{
		db,
		&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "table", Usage: "table, json, ndjson, csv (the NDJSON's fields as columns, a payload's or record's own) or geojson; a geo query or scan also count or ids (Tile38's COUNT and IDS: how many, or an id a line), table scan, index lookup and index scan count"},
		&ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress bars"},
	}
}

// prepare gives every leaf command the common flags and no help
// subcommand, and turns flag errors into usage errors (exit 2) without
// printing the whole help.
func prepare(cmds []*ucli.Command) {
	for _, cmd := range cmds {
		cmd.OnUsageError = func(c *ucli.Context, err error, _ bool) error { return withFlagSuggestion(c, err) }
		if len(cmd.Subcommands) > 0 {
			prepare(cmd.Subcommands)
			continue
		}
		// urfave/cli gives every command a help subcommand, h, which a
		// leaf's first argument would name: geo put … h, a point whose id
		// is h (or help), printed help, wrote nothing and exited 0.
		// --help and -h still print it.
		cmd.HideHelpCommand = true
		cmd.Flags = append(cmd.Flags, commonFlags(true)...)
		cmd.BashComplete = completeWords(cmd)
		needed := takeRequired(cmd.Flags)
		// A command that takes no arguments, or one at most ("[QUERY]"),
		// refuses more.
		most := -1
		switch {
		case cmd.ArgsUsage == "":
			most = 0
		case strings.HasPrefix(cmd.ArgsUsage, "[") && strings.HasSuffix(cmd.ArgsUsage, "]") && !strings.Contains(cmd.ArgsUsage, "..."):
			most = 1
		}
		if cmd.Action != nil {
			action := cmd.Action
			cmd.Action = func(c *ucli.Context) error {
				if err := missingFlags(c, needed); err != nil {
					return err
				}
				if err := emptyName(c); err != nil {
					return err
				}
				if most >= 0 && c.NArg() > most {
					return strayArgument(c, most)
				}
				return action(c)
			}
		}
	}
}

// takeRequired returns the flags of flags that are Required and makes
// them not so for urfave/cli, so that missingFlags, not urfave/cli, says
// when one is missing: urfave/cli prints the command's whole help to
// standard output ahead of a bare `Required flag "index" not set` (or,
// when the command was given an argument, looks that up as a command to
// show the help of and prints nothing), where missingFlags names the
// flag with its value and what it is, and the argument that may have
// been meant as its value.
func takeRequired(flags []ucli.Flag) []ucli.Flag {
	var needed []ucli.Flag
	for _, f := range flags {
		switch f := f.(type) {
		case *ucli.StringFlag:
			if f.Required {
				f.Required = false
				needed = append(needed, f)
			}
		case *ucli.Float64Flag:
			if f.Required {
				f.Required = false
				needed = append(needed, f)
			}
		}
	}
	return needed
}

// missingFlags is the usage error of a command run without some of the
// flags it needs, nil when it has them all:
//
//	geo near needs --index NAME: the geo index NAME
//	geo near needs --index NAME and --radius DISTANCE (keyspace geo near --help says what they are)
//
// A command given more arguments than it takes (geo near quakes ...),
// or two or more of a list of them (geo get quakes car-7), was most
// likely given the one flag missing as an argument, and is asked
// whether it meant it (did you mean --index quakes?); one given its
// centre as arguments, as Redis's commands take it, is shown the flags
// (coordinatesHint).
func missingFlags(c *ucli.Context, needed []ucli.Flag) error {
	var missing, usages []string
	for _, f := range needed {
		if name := f.Names()[0]; !c.IsSet(name) {
			value, usage := placeholder(f.(ucli.DocGenerationFlag).GetUsage())
			usage = strings.TrimPrefix(usage, value+": ") // "DISTANCE: 500m, 2km" says what DISTANCE is
			missing = append(missing, "--"+name+" "+value)
			usages = append(usages, usage)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	// The name of the first flag missing that names something (--index
	// NAME, --fences NAME) is what a word before a centre given as
	// arguments stands for.
	name := ""
	if i := slices.IndexFunc(missing, func(m string) bool { return strings.HasSuffix(m, " NAME") }); i >= 0 {
		name = strings.TrimSuffix(strings.TrimPrefix(missing[i], "--"), " NAME")
	}
	hint, isCentre := coordinatesHint(c, name, c.Args().Slice())
	if len(missing) > 1 {
		msg := fmt.Sprintf("%s needs %s (keyspace %s --help says what they are)", commandName(c), strings.Join(missing, " and "), commandName(c))
		if isCentre {
			msg += "; did you mean " + hint + "?"
		}
		return usagef("%s", msg)
	}
	msg := fmt.Sprintf("%s needs %s: %s", commandName(c), missing[0], usages[0])
	if isCentre {
		msg += "; did you mean " + hint + "?"
	} else if arg, ok := surplusArgument(c.Command.ArgsUsage, c.Args().Slice()); ok {
		flag, _, _ := strings.Cut(missing[0], " ")
		msg += fmt.Sprintf("; did you mean %s %s?", flag, arg)
	}
	return usagef("%s", msg)
}

// emptyName refuses a flag that names a table, index, log, relation,
// series or fence set (its value NAME) given as "": the library takes any
// string, but a thing named "" is listed with no name by stats and
// verify, and is easily made by a shell variable that was never set
// (--index "$IDX"). drop and rename take it, for a file that holds one.
func emptyName(c *ucli.Context) error {
	if c.Command.Name == "drop" || c.Command.Name == "rename" {
		return nil
	}
	for _, f := range c.Command.Flags {
		sf, ok := f.(*ucli.StringFlag)
		if !ok || !c.IsSet(sf.Name) || c.String(sf.Name) != "" {
			continue
		}
		if value, usage := placeholder(sf.Usage); value == "NAME" {
			if !strings.HasPrefix(usage, "the ") {
				usage = "a NAME"
			}
			return usagef("%s: --%s is empty; give %s", commandName(c), sf.Name, usage)
		}
	}
	return nil
}

// placeholder returns the name of a flag's value from its usage, where it
// is in backquotes as urfave/cli writes it in the help ("the geo index
// `NAME`"), "value" when none is, and the usage without the backquotes.
func placeholder(usage string) (string, string) {
	before, rest, ok := strings.Cut(usage, "`")
	if !ok {
		return "value", usage
	}
	name, after, ok := strings.Cut(rest, "`")
	if !ok {
		return "value", usage
	}
	return name, before + name + after
}

// surplusArgument returns an argument of args that may have been meant
// as a flag's value, and whether there was one: when there are more of
// them than argsUsage names (FILE, ID ID, none), or two or more where it
// names a list (ID...). That is the first, as Redis's commands take the
// key first (GEODIST key member member), unless the first is a file
// (geo import points.csv quakes), when it is the last.
func surplusArgument(argsUsage string, args []string) (string, bool) {
	if strings.Contains(argsUsage, "...") {
		if len(args) < 2 {
			return "", false
		}
	} else if len(args) <= len(strings.Fields(argsUsage)) {
		return "", false
	}
	if _, err := os.Stat(args[0]); err == nil || args[0] == "-" {
		return args[len(args)-1], true
	}
	return args[0], true
}

// strayArgument is the usage error of a command that takes most
// arguments (0 or 1) and was given more: said, not ignored, since
// "--radius 1 km" would otherwise search 1 metre and drop the "km"
// without a word.
func strayArgument(c *ucli.Context, most int) error {
	arg := c.Args().Get(most)
	hint := fmt.Sprintf("keyspace %s --help lists its flags", commandName(c))
	named := slices.IndexFunc(c.Command.Flags, func(f ucli.Flag) bool { return slices.Contains(f.Names(), strings.TrimLeft(arg, "-")) })
	coordinates, isCentre := coordinatesHint(c, "", c.Args().Slice())
	switch {
	case commandName(c) == "shell":
		hint = "it reads its commands from standard input, as in keyspace shell < script.txt"
	case isCentre:
		hint = "did you mean " + coordinates + "?"
	case isDistanceUnit(arg):
		hint = "a distance is one word, as in --radius 1" + strings.ToLower(arg)
	case unsetFlag(c, "left") && unsetFlag(c, "right") && named < 0 && !strings.HasPrefix(arg, "-") && c.Args().Len() == most+1:
		// rel list --rel likes u1, as Redis's SMEMBERS likes:u1.
		hint = fmt.Sprintf("did you mean --left %s, or --right %s?", arg, arg)
	case named >= 0 && !strings.HasPrefix(arg, "-"):
		// A flag's name without its dashes: rel count --rel likes left u1.
		hint = "did you mean --" + arg + "?"
		if _, isBool := c.Command.Flags[named].(*ucli.BoolFlag); !isBool && c.Args().Get(most+1) != "" {
			hint = fmt.Sprintf("did you mean --%s %s?", arg, c.Args().Get(most+1))
		}
	case keyWords(c.Command.ArgsUsage, c.Args().Slice()):
		// index lookup … NY 1, table scan … US CA: one value a column,
		// where the command takes them joined, as composite text.
		escape := strings.NewReplacer(`\`, `\\`, ":", `\:`, "*", `\*`)
		parts := make([]string, c.Args().Len())
		for i, a := range c.Args().Slice() {
			parts[i] = escape.Replace(a)
		}
		hint = fmt.Sprintf("the values of several columns are one %s, joined by colons: did you mean '%s'?", strings.Trim(c.Command.ArgsUsage, "[]"), strings.Join(parts, ":"))
	}
	if most == 1 {
		return usagef("%s takes one %s at most, and %q is another (%s)", commandName(c), strings.Trim(c.Command.ArgsUsage, "[]"), arg, hint)
	}
	return usagef("%s takes no arguments, got %q (%s)", commandName(c), arg, hint)
}

// keyWords says whether args, given to a command that takes one key-like
// argument (argsUsage [QUERY], [PREFIX] or [VALUE]), look like a key's
// columns given apart: two or more words, none a flag, none with a colon.
func keyWords(argsUsage string, args []string) bool {
	if !slices.Contains([]string{"[QUERY]", "[PREFIX]", "[VALUE]"}, argsUsage) || len(args) < 2 {
		return false
	}
	return !slices.ContainsFunc(args, func(a string) bool { return a == "" || strings.HasPrefix(a, "-") || strings.ContainsAny(a, ":'") })
}

// common returns a common flag's value: where it was set, after or before
// the command, else its default.
func common(c *ucli.Context, name string) string {
	for _, ctx := range c.Lineage() {
		for _, n := range ctx.LocalFlagNames() {
			if n == name {
				return ctx.String(name)
			}
		}
	}
	return c.String(name)
}

// commands are the keyspace command's commands as they are written,
// before prepare gives them the common flags and checks.
func commands() []*ucli.Command {
	return []*ucli.Command{benchCommand(), geoCommand(), fenceCommand(), tableCommand(), indexCommand(), relCommand(), logCommand(), seriesCommand(), statsCommand(), verifyCommand(), backupCommand(), shellCommand(), completionCommand()}
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *ucli.App {
	cmds := commands()
	prepare(cmds)
	return &ucli.App{
		Name:                 "keyspace",
		Usage:                "geospatial and composite-key indexing over one ordered keyspace",
		Reader:               stdin,
		Writer:               stdout,
		ErrWriter:            stderr,
		EnableBashCompletion: true,
		HideHelpCommand:      true,
		// A repeatable flag's value is taken whole: --where 'name=Smith, J'
		// is one condition, not "name=Smith" and " J". A flag that takes a
		// list in one value (--detect enter,exit) splits it itself.
		DisableSliceFlagSeparator: true,
		ExitErrHandler:            func(*ucli.Context, error) {}, // Run reports errors and picks the code
		OnUsageError: func(c *ucli.Context, err error, _ bool) error {
			return withFlagSuggestion(c, err)
		},
		Flags:    commonFlags(false),
		Commands: cmds,
		Metadata: map[string]any{notesKey: new([]string)},
	}
}

// notesKey holds, in the App's Metadata, the notes a command queued.
const notesKey = "notes"

// addNote queues a note for stderr, "keyspace: note: …", said when the
// command succeeds (run): a command that fails says one line, its error,
// and a note of how it read its input would be a second.
func addNote(c *ucli.Context, format string, args ...any) {
	if notes, ok := c.App.Metadata[notesKey].(*[]string); ok {
		*notes = append(*notes, fmt.Sprintf(format, args...))
	}
}

// openRead opens the database read-only for a query: it must exist. A
// command that reads the file itself (stats, verify, backup) opens it so,
// and is refused in a shell --atomic script, whose writes are not in the
// file until the script ends; the others open it with openView.
func openRead(c *ucli.Context) (*keyspace.BoltStore, error) {
	if _, ok := sharedTx(c); ok {
		return nil, usagef("%s reads the file, which holds none of a shell --atomic script's writes until it ends: run it before or after the script", c.Command.FullName())
	}
	path := common(c, "db")
	s, err := keyspace.Open(path, &keyspace.Options{ReadOnly: true})
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("database %s does not exist (import something first, or pass --db)", path)
	}
	return s, explainOpen(path, err)
}

// openView opens the database for a command that reads it through
// transactions: the file read-only, or, in a shell --atomic script, the
// script's transaction.
func openView(c *ucli.Context) (keyspace.Store, error) {
	if s, ok, err := sharedStore(c); ok || err != nil {
		return s, err
	}
	s, err := openRead(c)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// openWrite opens (or creates) the database for writing: the file, or,
// in a shell --atomic script, the script's transaction.
func openWrite(c *ucli.Context) (keyspace.Store, error) {
	if s, ok, err := sharedStore(c); ok || err != nil {
		if err == nil && dryRun(c) {
			return nil, usagef("--dry-run inside one transaction (shell --atomic, begin): the script's transaction is what commits or rolls back")
		}
		return s, err
	}
	path := common(c, "db")
	_, statErr := os.Stat(path)
	s, err := keyspace.Open(path, nil)
	if err != nil {
		return nil, explainOpen(path, err)
	}
	ws := &writeStore{BoltStore: s, created: errors.Is(statErr, os.ErrNotExist)}
	if dryRun(c) {
		return dryRunStore{ws}, nil
	}
	return ws, nil
}

// A writeStore is a database a command opened to write. Its Close removes
// a file the command created and left without a key (its write failed and
// rolled back, or wrote nothing), so that a command that changes nothing
// leaves no empty database behind: the next command says the database
// does not exist, as before. It checks for keys while it still holds the
// file's lock; a process that opens the file between the close and the
// removal finds it empty, as it would have been.
type writeStore struct {
	*keyspace.BoltStore
	created bool // by this command's open
}

func (s *writeStore) Close() error {
	empty := false
	if s.created {
		s.View(func(tx keyspace.Tx) error {
			for range tx.Scan(keyspace.Range{}) {
				return nil
			}
			empty = tx.Err() == nil
			return nil
		})
	}
	err := s.BoltStore.Close()
	if empty && err == nil {
		err = os.Remove(s.Path())
	}
	return err
}

// damagedError is a damaged database file (keyspace.ErrCorrupt), said in
// one line with what bbolt found: "database k.db is damaged or is not a
// database file (page 55: has unexpected type/flags: ff); restore it from
// a backup (keyspace backup makes them)".
type damagedError struct {
	path string // "" when not known
	err  error
}

func (d damagedError) Error() string {
	what := "the database"
	if d.path != "" {
		what = "database " + d.path
	}
	cause := d.err.Error()
	if i := strings.LastIndex(cause, keyspace.ErrCorrupt.Error()); i >= 0 {
		cause = strings.Trim(cause[i+len(keyspace.ErrCorrupt.Error()):], " :()")
	}
	cause = strings.TrimPrefix(strings.TrimPrefix(cause, "a damaged page (bbolt: "), "assertion failed: ")
	return fmt.Sprintf("%s is damaged or is not a database file (%s); restore it from a backup (keyspace backup makes them)", what, strings.TrimSuffix(cause, ")"))
}

func (d damagedError) Unwrap() error { return d.err }

func explainOpen(path string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, keyspace.ErrLocked):
		return fmt.Errorf("database %s is locked by another process (a writer holds it; try again when it is done)", path)
	case errors.Is(err, keyspace.ErrEmptyFile):
		// Not wrapped: run would take ErrCorrupt for damage found later.
		return fmt.Errorf("database %s is an empty file (0 bytes), not a database yet (import something into it first, or pass --db)", path)
	case errors.Is(err, keyspace.ErrCorrupt):
		return damagedError{path, err}
	case errors.Is(err, keyspace.ErrNotKeyspace):
		return fmt.Errorf("%s is not a keyspace database: %w", path, err)
	}
	return errctx.Bare("keyspace", err) // keyspace.Open's errors say "open PATH: …"
}

// output returns the --output format, checked against those allowed.
func output(c *ucli.Context, allowed ...string) (string, error) {
	f := common(c, "output")
	if f == "csv" && slices.Contains(allowed, "ndjson") {
		// The command writes NDJSON, which the CSV is made from when
		// it ends (csvFeed; run flushes it).
		if _, ok := c.App.Writer.(*csvFeed); !ok {
			c.App.Writer = &csvFeed{out: c.App.Writer}
		}
		return "ndjson", nil
	}
	for _, a := range allowed {
		if f == a {
			return f, nil
		}
	}
	if slices.Contains(allowed, "ndjson") {
		allowed = append(allowed, "csv")
	}
	return "", usagef("--output %q: this command writes %s%s", f, strings.Join(allowed, ", "), choiceHint(f, allowed))
}

// intersperse moves the flags that follow a command's positional arguments
// in front of them, so `table scan 'CA:*' --limit 5` works as people type
// it (urfave/cli v2 stops reading flags at the first argument). "--" ends
// the flags. A word where a command or subcommand belongs that names none
// is returned as an unknown-command error (urfave/cli would read the
// flags after it as the parent command's, and blame one of them).
func intersperse(app *ucli.App, args []string) ([]string, error) {
	if len(args) < 2 {
		return args, nil
	}
	out := []string{args[0]}
	cmds := app.Commands
	path := app.Name
	var leaf *ucli.Command
	help := false // the word help came where a command belongs
	i := 1
	takesValue := func(flags []ucli.Flag, tok string) bool {
		name := strings.TrimLeft(tok, "-")
		if strings.Contains(name, "=") {
			return false
		}
		for _, f := range flags {
			if slices.Contains(f.Names(), name) {
				_, isBool := f.(*ucli.BoolFlag)
				return !isBool
			}
		}
		return false
	}
	for i < len(args) {
		tok := args[i]
		if strings.HasPrefix(tok, "-") && tok != "-" {
			// Before the command, only the common flags (and help) are
			// known: an unknown one here would make the next word look
			// like its value or like an unknown command.
			name, _, _ := strings.Cut(strings.TrimLeft(tok, "-"), "=")
			if !slices.ContainsFunc(app.Flags, func(f ucli.Flag) bool { return slices.Contains(f.Names(), name) }) &&
				!slices.Contains([]string{"help", "h", "generate-bash-completion", "version", "v"}, name) && name != "" {
				return nil, unknownFlag(fmt.Errorf("flag provided but not defined: -%s", name), name, app.Flags)
			}
			out = append(out, tok)
			if takesValue(app.Flags, tok) && i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
			i++
			continue
		}
		var next *ucli.Command
		for _, c := range cmds {
			if c.HasName(tok) {
				next = c
			}
		}
		if next == nil && !help && (tok == "help" || tok == "h") {
			// "keyspace help", "keyspace help geo near", "keyspace geo
			// help near": the help of the command the words after it name.
			help = true
			i++
			continue
		}
		if next == nil {
			return nil, unknownCommand(cmds, path, tok)
		}
		out = append(out, tok)
		i++
		path += " " + tok
		leaf, cmds = next, next.Subcommands
		if len(cmds) == 0 {
			break
		}
	}
	if help {
		return append(out, "--help"), nil
	}
	if leaf == nil {
		return args, nil
	}
	var flags, positional []string
	dangling := "" // a last flag that wants a value and has none
	helpFlag := false
	for ; i < len(args); i++ {
		tok := args[i]
		if tok == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if _, err := strconv.ParseFloat(tok, 64); err == nil || !strings.HasPrefix(tok, "-") || tok == "-" {
			positional = append(positional, tok)
			continue
		}
		if isHelpFlag(tok) {
			helpFlag = true
		}
		flags = append(flags, tok)
		if takesValue(leaf.Flags, tok) {
			if i+1 == len(args) || isHelpFlag(args[i+1]) {
				// urfave/cli would take the "--" before the arguments
				// for its value, or say "-limit" for "--limit".
				dangling = tok
				flags = flags[:len(flags)-1]
				continue
			}
			flags = append(flags, args[i+1])
			i++
		}
	}
	out = append(out, flags...)
	if helpFlag {
		// The help of the command, whatever its arguments: urfave/cli
		// reads the words after --help as the name of a subcommand
		// (geo get --index x car-7 --help answered "unknown command").
		return out, nil
	}
	if dangling != "" {
		return nil, usagef("flag needs an argument: --%s", strings.TrimLeft(dangling, "-"))
	}
	if len(positional) > 0 {
		out = append(append(out, "--"), positional...)
	}
	return out, nil
}

// isHelpFlag says whether a word is one of the help flag's spellings.
func isHelpFlag(word string) bool {
	return slices.Contains([]string{"-h", "--h", "-help", "--help"}, word)
}

// completionScripts are printed by `keyspace completion SHELL`; each asks
// the binary itself (urfave/cli's --generate-bash-completion) for the
// words that can follow the ones before the cursor, with the word at the
// cursor too when it is a flag being typed (as urfave/cli's own scripts
// do: its flag completion reads the word before the request).
var completionScripts = map[string]string{
	"bash": `_keyspace_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}"
  local opts
  if [[ "$cur" == "-"* ]]; then
    opts=$("${COMP_WORDS[@]:0:COMP_CWORD}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${COMP_WORDS[@]:0:COMP_CWORD}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
}
complete -o default -F _keyspace_complete keyspace
`,
	"zsh": `#compdef keyspace
_keyspace() {
  local -a opts
  local cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  _describe 'values' opts
}
compdef _keyspace keyspace
`,
	// fish filters what the function prints by the word at the cursor.
	"fish": `function __keyspace_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    if string match -q -- '-*' $cur
        $words $cur --generate-bash-completion 2>/dev/null
    else
        $words --generate-bash-completion 2>/dev/null
    end
end
complete -c keyspace -f -a '(__keyspace_complete)'
`,
}

func completionCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
		UsageText: "source <(keyspace completion bash)\nkeyspace completion fish > ~/.config/fish/completions/keyspace.fish",
		ArgsUsage: "bash|zsh|fish",
		Action: func(c *ucli.Context) error {
			script, ok := completionScripts[c.Args().First()]
			if !ok || c.NArg() > 1 {
				return usagef("completion wants bash, zsh or fish")
			}
			_, err := fmt.Fprint(c.App.Writer, script)
			return err
		},
	}
}

// viewDB runs fn in a read transaction on the database, opened read-only.
func viewDB(c *ucli.Context, fn func(tx keyspace.Tx) error) error {
	s, err := openView(c)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.ViewContext(c.Context, fn)
}

// updateDB runs fn in a write transaction on the database, which Ctrl-C
// stops and rolls back.
func updateDB(c *ucli.Context, fn func(tx keyspace.Tx) error) error {
	s, err := openWrite(c)
	if err != nil {
		return err
	}
	defer s.Close()
	return stoppedUpdate(s.UpdateContext(c.Context, fn), "nothing written")
}
