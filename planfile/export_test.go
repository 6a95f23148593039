package planfile

// SetHook installs a hook that runs at named stages of the store's
// operations: "temp-written" (before the rename) and "read-opened" (before
// the read).
func SetHook(s *Store, hook func(stage, sessionDir string) error) { s.hook = hook }

// Title is the title logged with an approved plan.
var Title = title
