package planmode

import (
	"fmt"

	"github.com/dshgo/planmode/host"
)

// CheckPayload is the plugin's payload check, a [host.Validator]. It rejects
// a "plan/mode" event whose active field is missing or not a boolean, and a
// "plan/cancel" event whose cancelled field is not "active" or "inactive",
// naming the event and the bad value; it accepts every other event. The
// plugin registers it under [PluginName] while it runs, so the store applies
// it on every append and to every event of a session being opened.
func CheckPayload(e host.Event) error {
	var err error
	switch e.Type {
	case EventPlanMode:
		_, err = decodeMode(e.Data)
	case EventPlanCancel:
		_, err = decodeCancel(e.Data)
	}
	if err != nil {
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

// eventTypes are the declarations of the plugin's events, both log-only.
func eventTypes() []host.EventType {
	return []host.EventType{
		{Name: EventPlanMode, Kind: host.LogOnly},
		{Name: EventPlanCancel, Kind: host.LogOnly},
	}
}
