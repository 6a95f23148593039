package planmode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/dshgo/planmode/host"
)

// CheckPayload is the plugin's payload check, a [host.Validator] registered
// while the plugin runs. It rejects a malformed "plan/mode" (active not a
// boolean), "plan/cancel" or "plan/reopen" payload, naming the event and the
// bad value ([ErrBadPayload]), and accepts every other event.
func CheckPayload(e host.Event) error {
	var err error
	switch e.Type {
	case EventPlanMode:
		_, err = decodeMode(e.Data)
	case EventPlanCancel:
		err = checkCancel(e.Data)
	case EventPlanReopen:
		_, err = decodeReopen(e.Data)
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

// decodeMode reads a plan/mode payload; errors do not name the event.
func decodeMode(data json.RawMessage) (bool, error) {
	raw, err := payloadField(data, "active", wantMode, wantBool)
	if err != nil {
		return false, err
	}
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf(problemBadValue, "active", quoteJSON(raw), wantBool)
}

// checkCancel checks a plan/cancel payload: the selection it withdraws is
// "active" or "inactive".
func checkCancel(data json.RawMessage) error {
	raw, err := payloadField(data, "cancelled", wantCancel, wantSelection)
	if err != nil {
		return err
	}
	var name string
	if json.Unmarshal(raw, &name) != nil || name != SelectionActive.String() && name != SelectionInactive.String() {
		return fmt.Errorf(problemBadValue, "cancelled", quoteJSON(raw), wantSelection)
	}
	return nil
}

// payloadField returns the value of the field key of a payload object;
// want and wantValue describe a valid payload and value in its errors.
func payloadField(data json.RawMessage, key, want, wantValue string) (json.RawMessage, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf(problemEmpty, want)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return nil, fmt.Errorf(problemNotObject, quoteJSON(data), want)
	}
	raw, ok := fields[key]
	if !ok {
		return nil, fmt.Errorf(problemMissing, key, wantValue)
	}
	return raw, nil
}

// quoteJSON renders raw JSON for an error message, shortened when long.
func quoteJSON(raw []byte) string {
	const limit = 64
	s := string(bytes.TrimSpace(raw))
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// decodeReopen reads and checks a plan/reopen payload.
func decodeReopen(data json.RawMessage) (ReopenPayload, error) {
	var p ReopenPayload
	if err := json.Unmarshal(data, &p); err != nil {
		return p, fmt.Errorf(problemReopenNotObject, quoteJSON(data))
	}
	switch {
	case p.Number < 1:
		return p, fmt.Errorf(problemReopenNumber, p.Number)
	case len(p.Plan) > maxPlanSize:
		return p, fmt.Errorf(problemReopenSize, len(p.Plan), maxPlanSize)
	case p.Digest != host.DigestDetail(p.Plan):
		return p, errors.New(problemReopenDigest)
	}
	return p, nil
}
