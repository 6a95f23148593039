package present

import (
	"errors"

	"github.com/dshgo/planmode/host"
)

// LeaseLoss is the words for a turn lease lost for cause (refhost's
// Options.LeaseLost): the lease expired because it could not be renewed
// (the database unreachable), or another process took the turn over.
func (c *Catalog) LeaseLoss(cause error) string {
	if errors.Is(cause, host.ErrLeaseExpired) {
		return c.Session.LeaseExpired
	}
	return c.Session.LeaseLost
}
