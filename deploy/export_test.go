package deploy

// Texts and limits the external tests compare against.
const (
	MaxErrors         = maxErrors
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
