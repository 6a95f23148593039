//go:build !unix

package benchcpu

import "time"

// now returns 0 where getrusage(2) is missing.
func now() time.Duration { return 0 }
