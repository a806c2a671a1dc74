package keyspace

import "errors"

// Sentinel errors. Every error returned by this package wraps one of these
// (or an error of the operating system), so callers can test with errors.Is.
var (
	// ErrNotFound is returned by Get when the key is absent.
	ErrNotFound = errors.New("keyspace: key not found")
	// ErrEmptyKey is returned when a key of length zero is written or read.
	ErrEmptyKey = errors.New("keyspace: empty key")
	// ErrKeyTooLarge is returned when a key is longer than MaxKeySize.
	ErrKeyTooLarge = errors.New("keyspace: key too large")
	// ErrValueTooLarge is returned when a value is longer than MaxValueSize.
	ErrValueTooLarge = errors.New("keyspace: value too large")
	// ErrReadOnly is returned by a write inside View, or inside Update on a
	// store opened read-only.
	ErrReadOnly = errors.New("keyspace: read-only")
	// ErrClosed is returned when the store has been closed.
	ErrClosed = errors.New("keyspace: store is closed")
	// ErrTxClosed is returned when a Tx is used after its View or Update
	// function returned.
	ErrTxClosed = errors.New("keyspace: transaction is closed")
	// ErrLocked is returned by Open when another process holds the file lock
	// for longer than Options.Timeout.
	ErrLocked = errors.New("keyspace: database is locked by another process")
	// ErrCorrupt is returned by Open when the file is not a valid bbolt
	// database (garbage, truncated, or written by an incompatible version),
	// and by View, Update and a transaction's reads and writes (as its Err)
	// when a page they read is damaged; the damage never panics
	// (bolt_damage.go).
	ErrCorrupt = errors.New("keyspace: file is not a valid database")
	// ErrEmptyFile is returned by a read-only Open of a file of no bytes
	// (made by touch, or by a copy that failed), with ErrCorrupt: it holds
	// no database, though a writable Open makes it one, as it makes a new
	// file one.
	ErrEmptyFile = errors.New("keyspace: the file is empty (0 bytes)")
	// ErrNotKeyspace is returned by Open when the file is a valid bbolt
	// database that was not written by keyspace.
	ErrNotKeyspace = errors.New("keyspace: file is not a keyspace database")
	// ErrNewerFormat is returned by Open when the file was written in a
	// format newer than this build reads (FormatVersion).
	ErrNewerFormat = errors.New("keyspace: file written by a newer keyspace")
)

// Limits shared by every backend. They are bbolt's, applied to the memory
// backend too so that the two behave the same.
const (
	// MaxKeySize is the longest key, in bytes.
	MaxKeySize = 32768
	// MaxValueSize is the longest value, in bytes.
	MaxValueSize = (1 << 31) - 2
)

// checkKey validates a key for Get, Put and Delete.
func checkKey(key []byte) error {
	if len(key) == 0 {
		return ErrEmptyKey
	}
	if len(key) > MaxKeySize {
		return ErrKeyTooLarge
	}
	return nil
}

// checkPut validates a key/value pair for Put.
func checkPut(key, value []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if len(value) > MaxValueSize {
		return ErrValueTooLarge
	}
	return nil
}
