package host

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Document is one agent-scoped durable document, as [Documents] stores it.
type Document struct {
	// Data is the document's content, opaque to the store.
	Data []byte
	// Version counts the document's writes: 1 after the first Put, one
	// more after each later one. A document that does not exist has
	// version 0.
	Version int64
}

// Documents is a small durable store of documents that belong to an agent
// rather than to one of its sessions (a todo list, say): they outlive
// sessions, wake-ups and restarts. A document is named by the agent's ID and
// a name the plugin chooses; different agents never see each other's
// documents.
//
// Writes are compare-and-swap: Put names the version it read, and only the
// writer holding the current version wins, so two sessions of one agent
// (in one process or in several sharing the store) that each read, change
// and write a document lose no update as long as each retries on
// [ErrVersionConflict] from a fresh Get.
//
// Implementations are safe for concurrent use. Get and Put honour ctx: a
// cancelled context fails the call with an error wrapping ctx.Err(). Every
// implementation passes the conformance suite hosttest.TestDocuments.
type Documents interface {
	// Get returns the agent's document called name. A document that was
	// never written is [ErrDocumentNotFound]. The returned Data is the
	// caller's to keep and change.
	Get(ctx context.Context, agentID, name string) (Document, error)
	// Put replaces the content of the agent's document called name with a
	// copy of data, provided its current version is ifVersion (0: the
	// document must not exist yet), and returns the stored document, whose
	// version is ifVersion+1. Any other current version is
	// [ErrVersionConflict] and changes nothing. When Put returns, a durable
	// implementation has the new content on stable storage. Data larger
	// than [MaxDocumentSize] is [ErrDocumentTooLarge]; keys that
	// [ValidateDocumentKey] refuses are [ErrBadDocumentKey].
	Put(ctx context.Context, agentID, name string, data []byte, ifVersion int64) (Document, error)
}

// Limits of [Documents] keys and content.
const (
	// MaxDocumentSize is the largest document content a store accepts, in
	// bytes (4 MiB).
	MaxDocumentSize = 4 << 20
	// MaxDocumentAgentIDLen is the longest agent ID, in bytes.
	MaxDocumentAgentIDLen = 128
	// MaxDocumentNameLen is the longest document name, in bytes.
	MaxDocumentNameLen = 64
)

// Errors of [Documents]. Implementations wrap them so that callers can test
// with errors.Is.
var (
	// ErrDocumentNotFound means the agent has no document of that name.
	ErrDocumentNotFound = errors.New("document not found")
	// ErrVersionConflict means a Put named a version other than the
	// document's current one: someone else wrote it since it was read.
	ErrVersionConflict = errors.New("document version conflict")
	// ErrBadDocumentKey means an agent ID or a document name is not one a
	// store accepts (see [ValidateDocumentKey]).
	ErrBadDocumentKey = errors.New("bad document key")
	// ErrDocumentTooLarge means the content is larger than
	// [MaxDocumentSize].
	ErrDocumentTooLarge = errors.New("document too large")
)

// ValidateDocumentKey checks an agent ID and a document name the way every
// [Documents] implementation does. The agent ID is 1 to
// [MaxDocumentAgentIDLen] bytes of UTF-8 with no control characters (any
// other text is fine: stores encode it). The name is chosen by a plugin: 1
// to [MaxDocumentNameLen] bytes of lowercase ASCII letters, digits, '.', '-'
// and '_', starting with a letter or a digit. A bad key is
// [ErrBadDocumentKey].
func ValidateDocumentKey(agentID, name string) error {
	if agentID == "" || len(agentID) > MaxDocumentAgentIDLen || !utf8.ValidString(agentID) {
		return fmt.Errorf("agent id %q: %w", agentID, ErrBadDocumentKey)
	}
	for _, r := range agentID {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return fmt.Errorf("agent id %q: control character: %w", agentID, ErrBadDocumentKey)
		}
	}
	if name == "" || len(name) > MaxDocumentNameLen {
		return fmt.Errorf("document name %q: %w", name, ErrBadDocumentKey)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		letterOrDigit := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !letterOrDigit && (i == 0 || c != '.' && c != '-' && c != '_') {
			return fmt.Errorf("document name %q: %w", name, ErrBadDocumentKey)
		}
	}
	return nil
}
