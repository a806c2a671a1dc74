package keyspace

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// FormatVersion is the version of the keyspace's on-disk layout that this
// build writes and reads: how the techniques lay out their keys and values
// (each package's doc shows its layout). A file records the version that
// created it in the keyspace bucket's sequence number, a uint64 bbolt keeps
// in the bucket's header, outside the keyspace's keys, so no scan ever sees
// it. Open refuses a file of a newer version with ErrNewerFormat rather
// than misreading it; a change to any layout that an older build would
// misread raises the version.
//
// Versions:
//
//   - 0: files created before the version was recorded. They are read as
//     version 1, which they are, but for one thing: geo indexes written
//     before points could expire (their values lack the flags byte) read
//     as corrupt, and are exported with the older build and imported again.
//   - 1: the first recorded version, of every layout as documented.
//   - 2 (session 24): geo fence sets' cells on a circle's or a box's edge
//     carry the region (values 2 and 3, which a version-1 build reads as
//     damaged), and a set keeps a mask of its levels ("l") and its
//     polygons' rings ("p"). Version-1 files read unchanged: their edge
//     cells hold 0 and their sets no mask, and lookups read every level.
//   - 3 (session 26): the cells of a fence that expires carry its expiry
//     (a first byte with 0x80 set, which a version-2 build reads as
//     damaged), and a set keeps its expiring fences by when ("e") and its
//     circles' and boxes' regions ("r"). Version-2 files read unchanged:
//     their fences never expire, and a circle or box with no region key
//     is read from its definition.
//   - 4 (session 35): a polygon fence's rings carry their band indexes,
//     so a lookup tests a point on them in place (a form that begins with
//     a zero word, which a version-3 build reads as damaged). Version-3
//     files read unchanged: rings in the earlier form are decoded whole
//     for each lookup, as before, until the fence is put again.
//   - 5 (session 38): a fence set may hold sectors, a definition with a
//     "sector" and a region key of kind 4, which a version-4 build reads
//     as damaged (its Repair would delete them). Only a write of a sector
//     fence raises a file to 5; version-4 files read unchanged.
//   - 6 (session 41): a fence set may hold corridors, a definition with a
//     "corridor" and a region key of kind 5, which a version-5 build
//     reads as damaged. Only a write of a corridor fence raises a file to
//     6; version-5 files read unchanged.
//   - 7 (session 47): the command line's catalog may hold a partial
//     index, a definition with "where" or "where_in" conditions, which a
//     version-6 build would read as a whole index and give every record
//     it writes an entry in, leaving the index out of step. Only creating
//     a partial index raises a file to 7; version-6 files read unchanged.
//   - 8 (session 48): the command line's indexes keep numbers in order:
//     an index definition with "numbers": "ordered" keeps every number
//     of up to 2^53 as a float64 (7 and "7.0" alike), where a version-7
//     build would write whole numbers as int64s beside them and leave
//     the index out of step. Creating any index raises a file to 8;
//     version-7 files read unchanged, their indexes keeping numbers by
//     kind until they are dropped and created again.
//
// A file records the version of the newest layout written into it, not
// only the version that created it: a write in a layout an older build
// would misread raises the file's version (RequireFormat), so that build
// refuses the file rather than reading the new data as damaged. Files
// that builds before session 36 wrote into keep the version that created
// them.
const FormatVersion = 8

// RequireFormat records, in the file under the Update transaction tx,
// that it holds data in the layout of format version v: a file recording
// an older version records v once tx commits, so that a build older than
// v refuses it (ErrNewerFormat) instead of misreading what tx wrote. A
// technique calls it in the transaction that first writes a layout an
// older build would misread (geo's fence sets do, for every write). It
// never lowers a version, and is rolled back with tx. A memory store has
// no file: on it RequireFormat only checks that tx may write. A version
// above FormatVersion, or a View's tx, is an error; a Tx of another kind
// (a wrapper made outside this package) is passed over.
func RequireFormat(tx Tx, v uint64) error {
	if v > FormatVersion {
		return fmt.Errorf("keyspace: require format %d: this build writes up to %d", v, FormatVersion)
	}
	if r, ok := tx.(interface{ requireFormat(uint64) error }); ok {
		return r.requireFormat(v)
	}
	return nil
}

func (t *memTx) requireFormat(uint64) error { return t.usable(true) }

func (t *boltTx) requireFormat(v uint64) (err error) {
	if err := t.usable(true); err != nil {
		return err
	}
	defer t.recoverDamage(&err)
	t.inBolt = true
	if t.b.Sequence() < v {
		t.writes++
		err = t.b.SetSequence(v)
	}
	t.inBolt = false
	if err != nil {
		return fmt.Errorf("keyspace: require format %d: %w", v, damagedOr(err))
	}
	return nil
}

// checkFormat refuses a keyspace bucket of a newer format. The version
// lies in a page like any other, and bbolt's pages carry no checksums,
// so a damaged byte there reads as a newer format too; the error says
// both (FuzzDamagedFile found it).
func checkFormat(b *bolt.Bucket) error {
	if v := b.Sequence(); v > FormatVersion {
		return fmt.Errorf("%w (format %d; this build reads up to %d), or damaged", ErrNewerFormat, v, FormatVersion)
	}
	return nil
}

// Format returns the FormatVersion the file records: the version that
// created it, or a later one a write raised it to (RequireFormat); 0 for a
// file created before versions were recorded, which reads as version 1.
func (s *BoltStore) Format() (uint64, error) {
	var v uint64
	err := s.View(func(tx Tx) error {
		v = tx.(*boltTx).b.Sequence()
		return nil
	})
	return v, err
}
