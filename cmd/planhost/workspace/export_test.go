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

// Limits returns the limits in force, defaults filled in.
func (w *Workspace) Limits() Limits { return w.limits }
