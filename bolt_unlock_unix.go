//go:build unix

package keyspace

import (
	"os"
	"syscall"
)

// unlockFile releases the flock bbolt took on f. Closing f alone would
// not: bbolt's memory map of the file keeps the open file, and with it the
// lock, alive until it is unmapped.
func unlockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}
