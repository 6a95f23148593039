package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
)

// Option is one choice of a question.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// Question is one question put to the user.
type Question struct {
	// ID identifies the question within the request; answers refer to it.
	ID string `json:"id"`
	// Header is a short title.
	Header string `json:"header,omitempty"`
	// Question is the question text.
	Question string `json:"question"`
	// Detail is longer Markdown shown with the question (a plan, say).
	Detail string `json:"detail,omitempty"`
	// DetailDigest, when set, is [DigestDetail] of Detail: the exact text
	// the answer is about. A front end may echo it in [Answer].DetailDigest
	// so that the asker can tell an answer to this text from an answer to
	// another one. Plan reviews set it.
	DetailDigest string `json:"detailDigest,omitempty"`
	// Previous, when set, is the text an earlier question of the same
	// review showed as Detail, which changed before the user answered:
	// front ends show what changed from Previous to Detail (a diff).
	Previous string `json:"previous,omitempty"`
	// Reopened, when set, is the plan the user reopened as the working
	// draft that Detail revises: front ends show what changed from it to
	// Detail (a diff). Previous, when set too, is the closer text.
	Reopened string `json:"reopened,omitempty"`
	// Fields, when set, are labelled values the UI may show instead of
	// Detail, in the user's language: Key is a stable identifier the
	// asking plugin documents, Value is the text (model text: escape it).
	// Detail still holds the same content for front ends that do not know
	// the keys.
	Fields []Field `json:"fields,omitempty"`
	// Options are the choices offered.
	Options []Option `json:"options"`
	// MultiSelect lets the user choose several options: the answer's
	// Selected may then hold several labels. Without it, at most one.
	MultiSelect bool `json:"multiSelect,omitempty"`
}

// Field is one labelled value of a [Question]: Key names it (a stable
// identifier, never shown), Value is its text.
type Field struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Intent tells the UI what a request is for.
type Intent struct {
	// Kind names the purpose, for example "plan-review".
	Kind string `json:"kind"`
	// ApproveOption is the label of the option that approves; it must be
	// one of the options of every question in the request.
	ApproveOption string `json:"approveOption,omitempty"`
}

// AskRequest is a set of questions from one agent.
type AskRequest struct {
	Agent     Agent      `json:"-"`
	Questions []Question `json:"questions"`
	Intent    *Intent    `json:"intent,omitempty"`
}

// Answer is the user's answer to one question.
type Answer struct {
	// QuestionID is the ID of the question answered.
	QuestionID string `json:"questionId"`
	// Selected are the labels of the options chosen: at most one unless
	// the question is [Question].MultiSelect.
	Selected []string `json:"selected,omitempty"`
	// Custom is free text the user typed instead of or besides choosing
	// (the "other" answer of a clarifying question).
	Custom string `json:"custom,omitempty"`
	// DetailDigest, when set, echoes the question's DetailDigest: the
	// text the user saw when answering. An answer echoing another digest
	// than the question's does not answer that question's text.
	DetailDigest string `json:"detailDigest,omitempty"`
	// Edited is the question's Detail as the user edited it before
	// answering, for front ends that offer an editor; "" when the user did
	// not edit it. The asker decides what an edit means (a plan review
	// approves the edited plan only when the host can take an edit).
	Edited string `json:"edited,omitempty"`
}

// DigestPrefix starts every [DigestDetail].
const DigestPrefix = "sha256:"

// DigestDetail returns the digest of a question's detail text as
// [Question].DetailDigest carries it: "sha256:" and the hex SHA-256 of the
// text's bytes.
func DigestDetail(detail string) string {
	sum := sha256.Sum256([]byte(detail))
	return DigestPrefix + hex.EncodeToString(sum[:])
}

// UserQuestions is the host's channel for asking the user.
type UserQuestions interface {
	// Ask puts the questions to the user and waits for the answers. ctx
	// carries the caller's cancellation.
	Ask(ctx context.Context, req AskRequest) ([]Answer, error)
}

// Errors of the user-question channel. Implementations wrap them so that
// callers can test with errors.Is.
var (
	// ErrDismissed means the user dismissed the question to speak instead.
	ErrDismissed = errors.New("user dismissed the question")
	// ErrAborted means the question was aborted (cancellation, shutdown).
	ErrAborted = errors.New("question aborted")
	// ErrNoProvider means no UI is attached that could ask the user.
	ErrNoProvider = errors.New("no user-question provider")
	// ErrDelegatedAgent means the caller is a delegated or owned agent,
	// which may not ask the user directly.
	ErrDelegatedAgent = errors.New("delegated agents cannot ask the user")
	// ErrBadIntent means the intent's approving option is not an option.
	ErrBadIntent = errors.New("intent approve option is not among the options")
	// ErrNoQuestions means the request holds no questions.
	ErrNoQuestions = errors.New("no questions")
)
