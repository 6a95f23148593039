package planmode

import (
	"fmt"

	"github.com/dshgo/planmode/host"
)

// CheckPayload is the plugin's payload check, a [host.Validator]. It rejects
// a "plan/mode" event whose active field is missing or not a boolean, naming
// the event and the bad value, and accepts every other event. The plugin
// registers it under [PluginName] while it runs, so the store applies it on
// every append and to every event of a session being opened.
func CheckPayload(e host.Event) error {
	if e.Type != EventPlanMode {
		return nil
	}
	if _, err := decodeMode(e.Data); err != nil {
		return fmt.Errorf("%s: %s: %w: %w", PluginName, eventLabel(e), ErrBadPayload, err)
	}
	return nil
}

// eventLabel names an event for an error: its sequence number once it has
// one, and its type.
func eventLabel(e host.Event) string {
	if e.Seq == 0 {
		return fmt.Sprintf("new event %q", e.Type)
	}
	return fmt.Sprintf("event %d %q", e.Seq, e.Type)
}

// eventType is the declaration of [EventPlanMode].
func eventType() host.EventType {
	return host.EventType{Name: EventPlanMode, Kind: host.LogOnly}
}
