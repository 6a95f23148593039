package pgstore

import (
	"context"
	"time"
)

// ReadBacks returns how many times st read events from the table.
func ReadBacks(st *Store) int64 { return st.readBacks.Load() }

// Listening reports whether st's listener has listened once.
func Listening(st *Store) bool { return st.listening.Load() }

// EncodeNotice and DecodeNotice expose the notification payload.
var (
	EncodeNotice = encodeNotice
	DecodeNotice = decodeNotice
)

// LeaseHolder runs the query that reads who holds session id's lease, as
// LeaseTurn does after a grant it lost.
func LeaseHolder(st *Store, id string) (live bool, err error) {
	var (
		host       string
		pid        int
		since, upt *time.Time
	)
	err = st.pool.QueryRow(context.Background(), sqlLeaseHolder, id).Scan(&host, &pid, &since, &upt, &live)
	return live, err
}
