package host

import (
	"context"
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
	// Options are the choices offered.
	Options []Option `json:"options"`
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
	// Selected are the labels of the options chosen.
	Selected []string `json:"selected,omitempty"`
	// Custom is free text the user typed instead of or besides choosing.
	Custom string `json:"custom,omitempty"`
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
