package deploy

// Texts the external tests compare against.
const (
	MsgTooLarge       = msgTooLarge
	MsgEmpty          = msgEmpty
	MsgTooManyErrors  = msgTooManyErrors
	MsgUTF16          = msgUTF16
	MsgBadUTF8        = msgBadUTF8
	MsgControlChar    = msgControlChar
	MsgAnchor         = msgAnchor
	MsgUnknownTopKey  = msgUnknownTopKey
	MsgNoKnownPlugins = msgNoKnownPlugins
	MsgTab            = msgTab
)
