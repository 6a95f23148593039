package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// Option is one choice of a question.
type Option struct {
	// Label is the option's display text, in the asker's words; an
	// answer selects the option by it. Front ends may show their own
	// words for the option's Role instead, and never decide anything
	// from the label.
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
	// Role says what choosing the option means; see [Role].
	Role Role `json:"role,omitempty"`
	// Model names the model that carries the plan out, for an option
	// of [RoleApproveWithModel]; "" otherwise.
	Model string `json:"model,omitempty"`
}

// Role says what choosing an option means. The asker sets it; front ends
// decide from it which key the option gets, whether it takes the user's
// text and whether it approves, and show their own words for it. The zero
// Role is [RoleAnswer].
type Role string

// The roles of options.
const (
	// RoleAnswer is an answer to a question from the model: information
	// for it, never an approval.
	RoleAnswer Role = "answer"
	// RoleApprove approves what the request is about: a plan, an entry
	// into plan mode, a change of a step.
	RoleApprove Role = "approve"
	// RoleApproveWithComments approves a plan with the user's comments,
	// which it requires.
	RoleApproveWithComments Role = "approve-with-comments"
	// RoleApproveAndClear approves a plan, which the model then carries
	// out from the plan alone (its transcript is compacted to the plan).
	RoleApproveAndClear Role = "approve-and-clear"
	// RoleApproveWithModel approves a plan, carried out by the model the
	// option's Model names.
	RoleApproveWithModel Role = "approve-with-model"
	// RoleSave keeps the plan and leaves plan mode without carrying it
	// out: nothing is approved.
	RoleSave Role = "save"
	// RoleAbandon drops the plan and leaves plan mode.
	RoleAbandon Role = "abandon"
	// RoleKeepPlanning sends the plan back to the model for a revision,
	// with the user's feedback when they give some.
	RoleKeepPlanning Role = "keep-planning"
	// RoleDecline declines what the request asks for (an entry into plan
	// mode, a change of a step), with the user's words when they give
	// some.
	RoleDecline Role = "decline"
)

// Approves reports whether choosing an option of the role approves.
func (r Role) Approves() bool {
	switch r {
	case RoleApprove, RoleApproveWithComments, RoleApproveAndClear, RoleApproveWithModel:
		return true
	}
	return false
}

// TakesText reports whether an option of the role carries the user's
// text in the answer's Custom: feedback, comments or a reason.
func (r Role) TakesText() bool {
	return r == RoleKeepPlanning || r == RoleDecline || r == RoleApproveWithComments
}

// NeedsText reports whether an option of the role is an answer only with
// non-blank text (Approve with comments).
func (r Role) NeedsText() bool { return r == RoleApproveWithComments }

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

// AskKind says what a request is, so that every front end frames it the
// same way.
type AskKind string

// The kinds of requests.
const (
	// AskReview is a plan review: the user approves the plan, or sends it
	// back, with options whose roles say which.
	AskReview AskKind = "review"
	// AskConsent asks the user to allow something the model asked for
	// (entering plan mode, changing a step); an option of an approving
	// role allows it.
	AskConsent AskKind = "consent"
	// AskClarify holds questions from the model. Their answers are
	// information for the model and never approve anything; front ends
	// frame them as the model's questions, never as a review.
	AskClarify AskKind = "clarify"
)

// AskRequest is a set of questions from one agent.
type AskRequest struct {
	Agent Agent `json:"-"`
	// Kind says what the request is. A review or a consent offers an
	// approving option in every question; a clarifying request offers
	// none (every option is [RoleAnswer]).
	Kind AskKind `json:"kind"`
	// Purpose names what the asking plugin asks for ("plan-review",
	// "plan-entry", ...), a stable identifier front ends may key their
	// words by.
	Purpose   string     `json:"purpose,omitempty"`
	Questions []Question `json:"questions"`
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

// Chosen returns the option of q that a selects, when a selects exactly
// one option of q; false otherwise (no selection, several, or a label
// that is none of q's). An option's role is then what the answer means.
func (q Question) Chosen(a Answer) (Option, bool) {
	if len(a.Selected) != 1 {
		return Option{}, false
	}
	for _, o := range q.Options {
		if o.Label == a.Selected[0] {
			return o, true
		}
	}
	return Option{}, false
}

// CheckRoles reports whether the roles of req's options fit its kind: in
// a review or a consent every question offers an option of an approving
// role; in a clarifying request every option is [RoleAnswer] (or has no
// role). The error wraps [ErrBadRoles] and names the question.
func CheckRoles(req AskRequest) error {
	for _, q := range req.Questions {
		approving := false
		for _, o := range q.Options {
			approving = approving || o.Role.Approves()
			if req.Kind == AskClarify && o.Role != "" && o.Role != RoleAnswer {
				return fmt.Errorf("question %q: option %q has role %q in a clarifying request: %w", q.ID, o.Label, o.Role, ErrBadRoles)
			}
		}
		if (req.Kind == AskReview || req.Kind == AskConsent) && !approving {
			return fmt.Errorf("question %q: a %s offers no approving option: %w", q.ID, req.Kind, ErrBadRoles)
		}
	}
	return nil
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
	// ErrBadRoles means the options' roles do not fit the request's
	// kind: a review or a consent question without an approving option,
	// or a clarifying question with an option of another role than
	// [RoleAnswer].
	ErrBadRoles = errors.New("the options' roles do not fit the request's kind")
	// ErrNoQuestions means the request holds no questions.
	ErrNoQuestions = errors.New("no questions")
)
