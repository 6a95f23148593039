package catalog

// Names the external tests reach; the generator needs none of them.
var (
	ErrBadDeclaration   = errBadDeclaration
	ErrUndocumented     = errUndocumented
	ErrMarkerDuplicated = errMarkerDuplicated
	ErrMarkerInContent  = errMarkerInContent
	FindRegion          = findRegion
	HandWritten         = handWritten
	Required            = required
)
