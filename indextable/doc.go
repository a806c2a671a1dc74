// Package indextable keeps tables of records with secondary indexes
// maintained in the same transaction as the records.
//
// Not yet implemented; see issue 6.
package indextable
