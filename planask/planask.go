// Package planask is the plan-ask companion of the plan-mode plugin: the
// tool ask_user, with which the model asks the user clarifying questions
// while it plans, instead of guessing.
//
// One call asks one to [MaxQuestions] questions. Each has a short header,
// the question, two to [MaxOptions] options (a label and a description)
// and may let the user pick several options (multiSelect). The user can
// always answer in their own words instead (the "other" answer) or skip a
// question. The questions go through the host's question channel as a
// request of kind [host.AskClarify] (purpose [Purpose]), which is no
// approval: a front end shows them as the model's questions, never as a
// review.
//
// Questions and answers are log-only events ([EventAsk] and
// [EventAnswer]), so a resumed or forked session and every viewer of the
// log show them. The model gets the answers as JSON with a short sentence
// ("message") that says how to go on.
//
// By default the tool answers only in plan mode: it stays registered in
// both modes, so the tool list the model sees never changes, and outside
// plan mode a tool guard (or, on a host without a guard chain, the tool
// itself) refuses the call. A turn asks at most a configured number of
// questions.
//
// With no user attached ([host.ErrNoProvider]) the configured headless
// policy answers: "decline" (the default) tells the model no one could
// answer and to state its assumptions; "first-option" takes each
// question's first option and says so, in the result and in the logged
// answer. A run with no user never waits and never gets an answer that
// looks like the user's.
package planask

import (
	"encoding/json"
	"errors"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companion"
)

// Names the plugin registers with the host.
const (
	// PluginName names the plugin: its key under plugins, its fx module and
	// its tool guard.
	PluginName = "plan-ask"
	// ToolName is the tool the model calls to ask the user.
	ToolName = "ask_user"
	// Purpose is the Purpose of the questions' request, a
	// [host.AskClarify]: questions from the model, never an approval.
	Purpose = "plan-ask"
	// EventAsk is the log-only event that records the questions of one
	// call, before they are put to the user; its payload is [AskPayload].
	EventAsk = "plan/ask"
	// EventAnswer is the log-only event that records how the questions of
	// one call were answered; its payload is [AnswerPayload].
	EventAnswer = "plan/answer"
)

// Limits of one call.
const (
	// MaxQuestions is the most questions one call asks.
	MaxQuestions = 4
	// MinOptions is the fewest options a question offers.
	MinOptions = 2
	// MaxOptions is the most options a question offers.
	MaxOptions = 6
	// MaxHeaderSize is the longest header, in bytes.
	MaxHeaderSize = 40
	// MaxQuestionSize is the longest question text, in bytes (2 KiB).
	MaxQuestionSize = 2 << 10
	// MaxLabelSize is the longest option label, in bytes.
	MaxLabelSize = 80
	// MaxDescriptionSize is the longest option description, in bytes.
	MaxDescriptionSize = 500
	// MaxOtherSize is the longest "other" answer kept, in bytes (4 KiB);
	// a longer one is cut at a character boundary.
	MaxOtherSize = 4 << 10
)

// Outcomes of a call, as [AnswerPayload].Outcome and the result's
// "outcome" give them.
const (
	// OutcomeAnswered means the user answered at least one question.
	OutcomeAnswered = "answered"
	// OutcomeDeclined means the user skipped every question, or dismissed
	// the form.
	OutcomeDeclined = "declined"
	// OutcomePolicy means no user was attached and the headless policy
	// answered.
	OutcomePolicy = "policy"
	// OutcomeFailed means the questions could not be put (the question was
	// aborted, or the channel failed).
	OutcomeFailed = "failed"
)

// Headless policies.
const (
	// HeadlessDecline answers no question when no user is attached.
	HeadlessDecline = "decline"
	// HeadlessFirstOption takes each question's first option when no user
	// is attached, marked as the policy's choice.
	HeadlessFirstOption = "first-option"
)

// Option is one choice of a question.
type Option struct {
	// Label is the option's short name, unique within its question.
	Label string `json:"label"`
	// Description says what the option means.
	Description string `json:"description"`
}

// Question is one question of a call.
type Question struct {
	// ID identifies the question within the call: "q1" to "q4".
	ID string `json:"id"`
	// Header is a short title.
	Header string `json:"header"`
	// Question is the question text.
	Question string `json:"question"`
	// MultiSelect lets the user pick several options.
	MultiSelect bool `json:"multiSelect,omitempty"`
	// Options are the choices offered; the user may always write their
	// own answer instead.
	Options []Option `json:"options"`
}

// Answer is the answer to one question.
type Answer struct {
	// ID is the question's ID.
	ID string `json:"id"`
	// Selected are the labels of the options chosen (one at most unless
	// the question is multiSelect).
	Selected []string `json:"selected,omitempty"`
	// Other is the user's own answer, written instead of or besides the
	// options.
	Other string `json:"other,omitempty"`
	// Skipped means the question got no answer.
	Skipped bool `json:"skipped,omitempty"`
}

// AskPayload is the payload of [EventAsk].
type AskPayload struct {
	// CallID is the ask_user call's ID.
	CallID string `json:"callId"`
	// Questions are the questions, as checked.
	Questions []Question `json:"questions"`
}

// AnswerPayload is the payload of [EventAnswer].
type AnswerPayload struct {
	// CallID is the ask_user call's ID, as in the matching [EventAsk].
	CallID string `json:"callId"`
	// Outcome is answered, declined, policy or failed.
	Outcome string `json:"outcome"`
	// Policy names the headless policy that answered, when Outcome is
	// policy: decline or first-option.
	Policy string `json:"policy,omitempty"`
	// Answers are the answers, one per question, in order; empty when the
	// outcome is failed.
	Answers []Answer `json:"answers,omitempty"`
	// Error is why the questions could not be put, when Outcome is failed.
	Error string `json:"error,omitempty"`
}

// Errors of the plugin.
var (
	// ErrNeedsPlanMode means the plan-mode plugin is not enabled.
	ErrNeedsPlanMode = companion.ErrNeedsPlanMode
	// ErrBadPayload means a plan/ask or plan/answer event is malformed.
	ErrBadPayload = companion.ErrBadPayload
	// ErrBadInput is wrapped by every error of [DecodeInput].
	ErrBadInput = errors.New(textBadInput)
)

// CheckPayload is the plugin's payload check: plan/ask holds a call ID and
// questions as [DecodeInput] accepts them; plan/answer a call ID, a known
// outcome and answers with IDs. Other events pass.
func CheckPayload(e host.Event) error {
	var err error
	switch e.Type {
	case EventAsk:
		_, err = decodeAsk(e.Data)
	case EventAnswer:
		_, err = decodeAnswer(e.Data)
	default:
		return nil
	}
	if err != nil {
		return companion.BadPayload(PluginName, e, err)
	}
	return nil
}

// decodeAsk reads a plan/ask payload.
func decodeAsk(data json.RawMessage) (AskPayload, error) {
	var p AskPayload
	if err := json.Unmarshal(data, &p); err != nil || p.CallID == "" {
		return AskPayload{}, errors.New(problemAskPayload)
	}
	if err := checkQuestions(p.Questions); err != nil {
		return AskPayload{}, err
	}
	return p, nil
}

// decodeAnswer reads a plan/answer payload.
func decodeAnswer(data json.RawMessage) (AnswerPayload, error) {
	var p AnswerPayload
	if err := json.Unmarshal(data, &p); err != nil || p.CallID == "" {
		return AnswerPayload{}, errors.New(problemAnswerPayload)
	}
	switch p.Outcome {
	case OutcomeAnswered, OutcomeDeclined, OutcomeFailed:
	case OutcomePolicy:
		if p.Policy != HeadlessDecline && p.Policy != HeadlessFirstOption {
			return AnswerPayload{}, errors.New(problemAnswerPayload)
		}
	default:
		return AnswerPayload{}, errors.New(problemAnswerPayload)
	}
	for _, a := range p.Answers {
		if a.ID == "" {
			return AnswerPayload{}, errors.New(problemAnswerPayload)
		}
	}
	return p, nil
}

// Ask is one ask_user call as the log holds it: its questions and, once
// given, its answers.
type Ask struct {
	// Seq is the sequence number of the plan/ask event.
	Seq uint64
	// Questions is the plan/ask payload.
	Questions AskPayload
	// Answer is the plan/answer payload; nil while the call is open (or
	// when the process ended while it was).
	Answer *AnswerPayload
}

// Asks returns the ask_user calls of a session's log, in order, each with
// its answer when one is logged. Malformed payloads are skipped.
func Asks(l host.Log) []Ask {
	var out []Ask
	byCall := map[string]int{}
	for _, e := range l.All() {
		switch e.Type {
		case EventAsk:
			if p, err := decodeAsk(e.Data); err == nil {
				byCall[p.CallID] = len(out)
				out = append(out, Ask{Seq: e.Seq, Questions: p})
			}
		case EventAnswer:
			if p, err := decodeAnswer(e.Data); err == nil {
				if i, ok := byCall[p.CallID]; ok && out[i].Answer == nil {
					out[i].Answer = &p
				}
			}
		}
	}
	return out
}
