// Package validators registers the plugins' payload checks with a host's
// validator registry.
//
// The root package still calls AddFor and Names; once it calls
// AddValidator directly, as the companions do, this package goes.
package validators

import "github.com/dshgo/planmode/host"

// AddFor registers check under name with vs. The types are ignored: a
// store runs every validator on every event, and check passes the events
// of every type it does not check.
func AddFor(vs host.Validators, name string, _ []string, check host.Validator) (func(), error) {
	return vs.AddValidator(name, check)
}

// Names returns the names of the declared event types, in order.
func Names(types []host.EventType) []string {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = t.Name
	}
	return names
}
