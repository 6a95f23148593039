// Package validators registers the plugins' payload checks with a host's
// validator registry.
package validators

import "github.com/dshgo/planmode/host"

// AddFor registers check under name with vs: for the events of types only
// where vs offers that ([host.TypedValidators]; the store then spares the
// call for every other event), else for every event (check must pass the
// other types).
func AddFor(vs host.Validators, name string, types []string, check host.Validator) (func(), error) {
	if tv, ok := vs.(host.TypedValidators); ok {
		return tv.AddValidatorFor(name, types, check)
	}
	return vs.AddValidator(name, check)
}

// Names returns the names of the declared event types, in order: the
// types argument of AddFor for a plugin that checks all its own events.
func Names(types []host.EventType) []string {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = t.Name
	}
	return names
}
