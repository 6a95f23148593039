package pgstore

// ReadBacks returns how many times st read events from the table.
func ReadBacks(st *Store) int64 { return st.readBacks.Load() }

// Listening reports whether st's listener has listened once.
func Listening(st *Store) bool { return st.listening.Load() }

// EncodeNotice and DecodeNotice expose the notification payload.
var (
	EncodeNotice = encodeNotice
	DecodeNotice = decodeNotice
)
