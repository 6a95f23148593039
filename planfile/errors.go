package planfile

import (
	"errors"

	"github.com/dshgo/planmode/internal/companion"
)

// Errors of the plan file. Callers test them with errors.Is; the returned
// errors wrap them with the path and what was wrong.
var (
	// ErrUnsafe means a filesystem object breaks the private-file rules: a
	// symbolic link, a hard-linked or non-regular file, or a directory or
	// file open to others.
	ErrUnsafe = errors.New(textUnsafe)
	// ErrSwapped means the file or directory a name referred to changed
	// during an operation; the operation is abandoned, nothing is followed.
	ErrSwapped = errors.New(textSwapped)
	// ErrTooLarge means a plan is over the configured max_bytes.
	ErrTooLarge = errors.New(textTooLarge)
	// ErrBadContent means a plan is not UTF-8 or holds a NUL byte.
	ErrBadContent = errors.New(textBadContent)
	// ErrBadSession means a session ID cannot name a directory.
	ErrBadSession = errors.New(textBadSession)
	// ErrUnsupported means the platform cannot give the guarantees the plan
	// file needs (an atomic rename inside an open directory).
	ErrUnsupported = errors.New(textUnsupported)
	// ErrBadPayload means a plan/approved or plan/file event is malformed.
	ErrBadPayload = companion.ErrBadPayload
	// ErrNeedsPlanMode means the plan-mode plugin is not enabled.
	ErrNeedsPlanMode = companion.ErrNeedsPlanMode

	errNotAbsolute   = errors.New(textNotAbsolute)
	errMaxBytesRange = errors.New(textMaxBytesRange)
)
