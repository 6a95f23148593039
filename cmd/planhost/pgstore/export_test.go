package pgstore

import (
	"context"
	"time"
)

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

// SchemaVersion is the schema version this package migrates a database to.
func SchemaVersion() int {
	ms, _ := migrations()
	return len(ms)
}

// Fence is session id's fencing token as its row holds it.
func Fence(st *Store, id string) (fence uint64, err error) {
	var f int64
	err = st.pool.QueryRow(context.Background(), `SELECT fence FROM planmode_sessions WHERE id = $1`, id).Scan(&f)
	return uint64(f), err
}
