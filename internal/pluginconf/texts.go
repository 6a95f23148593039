package pluginconf

// Problems reported to the author of the deployment file; the loader prefixes
// FILE:LINE:COL, the plugin and the key.
const (
	problemNotMapping   = "the configuration must be a mapping (keys: %s) or empty, got %s"
	problemKeyNotString = "keys must be strings, got %s"
	problemUnknownKey   = "unknown key (known keys: %s)"
	problemDuplicate    = "is given twice (first at line %d, column %d)"
	problemNotInt       = "must be a whole number from %d to %d, got %s"
	problemIntRange     = "must be a whole number from %d to %d, got %s"
	problemNotBool      = "must be true or false, got %s"
)
