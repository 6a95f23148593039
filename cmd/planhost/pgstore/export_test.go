package pgstore

// ReadBacks returns how many times st read events from the table.
func ReadBacks(st *Store) int64 { return st.readBacks.Load() }

// EncodeNotice and DecodeNotice expose the notification payload.
var (
	EncodeNotice = encodeNotice
	DecodeNotice = decodeNotice
)
