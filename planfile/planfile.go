// Package planfile is the plan-file companion of the plan-mode plugin: one
// private plan file per session, which the model drafts with plan_write and
// reads with plan_read, and which exit_plan_mode presents for review.
//
// The file lives at <dir>/<session id>/plan.md, outside the workspace, so
// the workspace tools cannot reach it and the plan tools reach nothing else.
// Every access goes through [os.Root] with the rules [Store] lists. With
// this plugin, exit_plan_mode's plan is optional: omitted, the file is
// presented; given, it is written to the file first. Either way the review
// shows the file. An approval is bound to the text shown: when the file
// changed during the review, the user is asked again about the new text. A
// host may let the user edit the plan in the review; the edit comes back in
// the answer, and an approval writes it to the file and reports it.
//
// Each approved plan is logged as a log-only [EventApproved] event (title,
// SHA-256, content, the digest of the text shown), the session's plan
// history. While plan mode is on,
// the section [SectionName] tells the model how to use the file.
//
// A forked session gets a copy of its parent's plan file the first time the
// plugin serves it; the log-only [EventFile] marker names the session whose
// directory holds the file, which is how a fork finds its parent's.
package planfile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/dshgo/planmode"
	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companion"
)

// Names the plugin registers with the host.
const (
	// PluginName names the plugin: its key under plugins, its fx module,
	// its validator and its pre-step listener.
	PluginName = "plan-file"
	// EventApproved is the log-only event that records an approved plan;
	// its payload is [ApprovedPayload].
	EventApproved = "plan/approved"
	// EventFile is the log-only marker that records which session's
	// directory holds the session's plan file; its payload is
	// [FilePayload]. A fork inherits its parent's marker, which names the
	// parent.
	EventFile = "plan/file"
	// SectionName is the system-prompt section about the plan file, shown
	// while plan mode is on.
	SectionName = "plan:file"
	// SectionOrder places [SectionName] right after plan:policy (50).
	SectionOrder = 51
	// ReadToolName reads the plan file (any time).
	ReadToolName = "plan_read"
	// WriteToolName replaces the plan file's content (plan mode only).
	WriteToolName = "plan_write"
)

// Limits of max_bytes.
const (
	// DefaultMaxBytes is max_bytes when the key is missing (1 MiB).
	DefaultMaxBytes = 1 << 20
	// MinMaxBytes is the smallest max_bytes accepted (1 KiB).
	MinMaxBytes = 1 << 10
	// MaxMaxBytes is the largest max_bytes accepted (16 MiB).
	MaxMaxBytes = 16 << 20
)

// ApprovedPayload is the payload of [EventApproved].
type ApprovedPayload struct {
	// Title is the plan's first heading ("Plan" when it has none).
	Title string `json:"title"`
	// SHA256 is the hex SHA-256 of Content.
	SHA256 string `json:"sha256"`
	// Content is the approved plan: the text the user was shown, or their
	// edit of it.
	Content string `json:"content"`
	// ShownSHA256 is the hex SHA-256 of the plan text the user was shown
	// in the review they approved (equal to SHA256 unless they edited it);
	// "" in events logged before it was recorded.
	ShownSHA256 string `json:"shownSha256,omitempty"`
}

// FilePayload is the payload of [EventFile].
type FilePayload struct {
	// Session is the ID of the session whose plan directory holds the file.
	Session string `json:"session"`
}

// Digest returns the hex SHA-256 of content, as [ApprovedPayload] records it.
func Digest(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}

// CheckPayload is the plugin's payload check, a [host.Validator]: a
// plan/approved event needs a title, a content and the content's SHA-256;
// a plan/file event needs a session. Other events pass.
func CheckPayload(e host.Event) error {
	var err error
	switch e.Type {
	case EventApproved:
		_, err = decodeApproved(e.Data)
	case EventFile:
		_, err = decodeFile(e.Data)
	default:
		return nil
	}
	if err != nil {
		return companion.BadPayload(PluginName, e, err)
	}
	return nil
}

func decodeApproved(data json.RawMessage) (ApprovedPayload, error) {
	var p struct {
		Title   *string `json:"title"`
		SHA256  *string `json:"sha256"`
		Content *string `json:"content"`
		Shown   string  `json:"shownSha256"`
	}
	if err := json.Unmarshal(data, &p); err != nil || p.Title == nil || p.SHA256 == nil || p.Content == nil || *p.Title == "" {
		return ApprovedPayload{}, fmt.Errorf("%s", problemApprovedShape)
	}
	if *p.SHA256 != Digest(*p.Content) {
		return ApprovedPayload{}, fmt.Errorf(problemApprovedDigest, *p.SHA256)
	}
	if p.Shown != "" && !isHexDigest(p.Shown) {
		return ApprovedPayload{}, fmt.Errorf(problemShownDigest, p.Shown)
	}
	return ApprovedPayload{Title: *p.Title, SHA256: *p.SHA256, Content: *p.Content, ShownSHA256: p.Shown}, nil
}

// isHexDigest reports whether s is a SHA-256 in lower-case hex.
func isHexDigest(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == sha256.Size && hex.EncodeToString(b) == s
}

func decodeFile(data json.RawMessage) (FilePayload, error) {
	var p FilePayload
	if err := json.Unmarshal(data, &p); err != nil || p.Session == "" {
		return FilePayload{}, fmt.Errorf("%s", problemFileShape)
	}
	return p, nil
}

// history is what the plugin folds from a session's log.
type history struct {
	owner  string // the session the latest plan/file marker names
	active bool   // the logged plan-mode state
	left   bool   // plan mode was on and then off: entering again is a return
	served bool   // in memory: the fork copy and the marker were handled
}

// fold applies one event to h: plan/file and plan/mode; malformed payloads
// are skipped.
func (h *history) fold(e host.Event) {
	switch e.Type {
	case EventFile:
		if p, err := decodeFile(e.Data); err == nil {
			h.owner = p.Session
		}
	case planmode.EventPlanMode:
		if active, ok := companion.PlanMode(e); ok {
			h.left = h.left || h.active && !active
			h.active = active
		}
	}
}
