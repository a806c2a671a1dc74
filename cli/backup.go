package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/keyspacedb/keyspace"
	ucli "github.com/urfave/cli/v2"
)

func backupCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "backup",
		Usage: "write a consistent copy of the database to a new file; --compact rewrites it in key order, leaving free pages out",
		UsageText: "keyspace backup --to keyspace-2026-11-23.db\n" +
			"keyspace --db cities.db backup --to cities-small.db --compact",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "to", Required: true, Usage: "the new `FILE` (it must not exist)"},
			&ucli.BoolFlag{Name: "compact", Usage: "copy the keys, not the pages: a smaller file after deletes and drops, and every key read on the way"},
		},
		Action: backup,
	}
}

// backup writes the copy into a temporary file beside --to and links it
// into place only when it is whole and synced, so that a failure or an
// interrupted run leaves no file at --to, and an existing one is never
// overwritten.
func backup(c *ucli.Context) error {
	from, to := common(c, "db"), c.String("to")
	if same, err := sameFile(from, to); err != nil {
		return err
	} else if same {
		return usagef("--to %s is the database itself", to)
	}
	if _, err := os.Lstat(to); err == nil {
		return fmt.Errorf("%s exists: backup writes a new file (remove it, or choose another name)", to)
	}
	src, err := openRead(c)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp, err := os.CreateTemp(filepath.Dir(to), filepath.Base(to)+".*.partial")
	if err != nil {
		// Name --to and its directory, not the temporary file.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("backup --to %s: cannot create a file in %s: %w", to, filepath.Dir(to), err)
	}
	tmpPath := tmp.Name()
	defer os.Remove(tmpPath) // gone once linked, or on any failure
	keys := -1
	if c.Bool("compact") {
		tmp.Close()
		dst, err := keyspace.Open(tmpPath, nil) // synced at commit
		if err != nil {
			return err
		}
		keys, err = keyspace.Copy(dst, src)
		var size int64
		if err == nil {
			size, err = dst.Size()
		}
		if cerr := dst.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			// bbolt grows a file 16 MiB ahead of its pages; the copy
			// needs only its pages, as Backup writes them.
			err = truncateSynced(tmpPath, size)
		}
		if err != nil {
			return err
		}
	} else {
		_, err := src.Backup(tmp)
		if err == nil {
			err = tmp.Sync()
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	if info, err := os.Stat(from); err == nil {
		os.Chmod(tmpPath, info.Mode().Perm()) // the database's permissions, not CreateTemp's 0600
	}
	if err := os.Link(tmpPath, to); err != nil {
		return fmt.Errorf("backup: %w", err) // --to appeared meanwhile, or links are not supported here
	}
	syncDir(filepath.Dir(to))
	fromSize, _ := src.Size()
	info, err := os.Stat(to)
	if err != nil {
		return err
	}
	what := "a copy of its pages"
	if keys >= 0 {
		what = fmt.Sprintf("%s, compacted", count(keys, "key"))
	}
	_, err = fmt.Fprintf(c.App.Writer, "backed up %s (%s) to %s (%s): %s\n", from, bytesText(fromSize), to, bytesText(info.Size()), what)
	return err
}

// sameFile reports whether a and b name one file; a b that does not
// exist is not a.
func sameFile(a, b string) (bool, error) {
	ia, err := os.Stat(a)
	if err != nil {
		return false, nil // openRead says what is wrong with a
	}
	ib, err := os.Stat(b)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(ia, ib), nil
}

// syncDir makes a new directory entry durable, where the system allows.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// truncateSynced cuts the file at path to size bytes and syncs it.
func truncateSynced(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
