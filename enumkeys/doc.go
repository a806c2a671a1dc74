// Package enumkeys keeps per-parent sequences of items: the seeds'
// enumerable keys, where a message key userID_messageID makes the latest
// message, the one before it and the one after it one step away.
//
// Not yet implemented; see issue 5.
package enumkeys
