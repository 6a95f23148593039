package workspace

// Texts the external tests compare against.
const (
	MsgNoEntries       = msgNoEntries
	MsgListTruncated   = msgListTruncated
	MsgNoMatches       = msgNoMatches
	MsgSearchTruncated = msgSearchTruncated
	MsgSearchSkipped   = msgSearchSkipped
	MsgWrote           = msgWrote
	MsgCreated         = msgCreated
	MsgNotFound        = msgNotFound
	MsgIsDir           = msgIsDir
	MsgNotDir          = msgNotDir
	MsgReadLarge       = msgReadLarge
	MsgWriteLarge      = msgWriteLarge
	MsgMissing         = msgMissing
)
