package planask

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dshgo/planmode/host"
	"github.com/dshgo/planmode/internal/companion"
)

// Tool errors.
var (
	errNoAgent         = errors.New(textNoAgent)
	errOutsidePlanMode = errors.New(textOutsidePlanMode)
	errReloaded        = errors.New(textReloaded)
	errDelegated       = errors.New(textDelegated)
)

// AnsweredQuestion is one entry of the tool's result: the question and
// its answer.
type AnsweredQuestion struct {
	// ID is the question's ID.
	ID string `json:"id"`
	// Header is the question's header.
	Header string `json:"header"`
	// Question is the question text.
	Question string `json:"question"`
	// Selected are the labels of the options chosen.
	Selected []string `json:"selected,omitempty"`
	// Other is the user's own answer.
	Other string `json:"other,omitempty"`
	// Skipped means the question got no answer.
	Skipped bool `json:"skipped,omitempty"`
}

// Result is the tool's result as the model reads it.
type Result struct {
	// Outcome is answered, declined or policy.
	Outcome string `json:"outcome"`
	// Policy names the headless policy that answered, when Outcome is
	// policy.
	Policy string `json:"policy,omitempty"`
	// Answers are the questions with their answers, in order.
	Answers []AnsweredQuestion `json:"answers"`
	// Message says how to go on.
	Message string `json:"message"`
}

// askUser is ask_user. It checks, in order: a calling agent with a
// session; plan mode (unless configured otherwise); the input; the
// per-turn limit. Then it logs the questions, asks, logs the answers and
// returns them.
func (pl *Plugin) askUser(ctx context.Context, call host.CallContext, input json.RawMessage) (string, error) {
	agent := call.Agent
	if agent == nil || agent.Session() == nil {
		return "", errNoAgent
	}
	if !pl.allowed(agent) {
		return "", errOutsidePlanMode
	}
	qs, err := DecodeInput(input)
	if err != nil {
		return "", err
	}
	sess := agent.Session()
	limit := pl.p.Config.MaxQuestionsPerTurn
	if asked := askedThisTurn(sess.Events()); asked+len(qs) > limit {
		return "", fmt.Errorf(textTurnLimit, asked, len(qs), limit)
	}
	callID := call.CallID
	if callID == "" {
		callID = fmt.Sprintf("seq-%d", sess.Len()+1)
	}
	if err := appendEvent(ctx, sess, EventAsk, AskPayload{CallID: callID, Questions: qs}); err != nil {
		return "", fmt.Errorf(textLogFailed, EventAsk, err)
	}
	out, err := pl.ask(ctx, agent, qs)
	logged := AnswerPayload{CallID: callID, Outcome: out.Outcome, Policy: out.Policy}
	if err != nil {
		logged.Outcome, logged.Error = OutcomeFailed, err.Error()
	} else {
		for _, a := range out.Answers {
			logged.Answers = append(logged.Answers, Answer{ID: a.ID, Selected: a.Selected, Other: a.Other, Skipped: a.Skipped})
		}
	}
	if lerr := appendEvent(ctx, sess, EventAnswer, logged); lerr != nil {
		return "", errors.Join(err, fmt.Errorf(textLogFailed, EventAnswer, lerr))
	}
	if err != nil {
		return "", err
	}
	if out.Answers == nil {
		out.Answers = []AnsweredQuestion{}
	}
	return companion.JSON(out)
}

// ask puts the questions and turns what comes back into the result. The
// error is a tool error: the questions could not be put.
func (pl *Plugin) ask(ctx context.Context, agent host.Agent, qs []Question) (Result, error) {
	if pl.p.Questions == nil {
		return pl.headless(qs), nil
	}
	req := host.AskRequest{Agent: agent, Kind: host.AskClarify, Purpose: Purpose, Questions: hostQuestions(qs)}
	answers, err := pl.run.Ask(ctx, pl.p.Questions, req, errReloaded)
	switch {
	case errors.Is(err, errReloaded):
		return Result{}, errReloaded
	case errors.Is(err, host.ErrNoProvider):
		return pl.headless(qs), nil
	case errors.Is(err, host.ErrDismissed):
		return declined(qs, textDeclined), nil
	case errors.Is(err, host.ErrDelegatedAgent):
		return Result{}, errDelegated
	case err != nil:
		return Result{}, fmt.Errorf("%s: %w", textAskFailed, err)
	}
	return readAnswers(qs, answers)
}

// headless answers by the configured policy.
func (pl *Plugin) headless(qs []Question) Result {
	if pl.p.Config.Headless != HeadlessFirstOption {
		r := declined(qs, textPolicyDecline)
		r.Outcome, r.Policy = OutcomePolicy, HeadlessDecline
		return r
	}
	r := Result{Outcome: OutcomePolicy, Policy: HeadlessFirstOption, Message: textPolicyFirstOption}
	for _, q := range qs {
		r.Answers = append(r.Answers, AnsweredQuestion{ID: q.ID, Header: q.Header, Question: q.Question, Selected: []string{q.Options[0].Label}})
	}
	return r
}

// declined is the result with every question skipped.
func declined(qs []Question, message string) Result {
	r := Result{Outcome: OutcomeDeclined, Message: message}
	for _, q := range qs {
		r.Answers = append(r.Answers, AnsweredQuestion{ID: q.ID, Header: q.Header, Question: q.Question, Skipped: true})
	}
	return r
}

// readAnswers checks the front end's answers against the questions: at
// most one answer per question, labels among its options, one label
// unless it is multiSelect. A question with no answer, or an answer with
// neither a label nor text, is skipped.
func readAnswers(qs []Question, answers []host.Answer) (Result, error) {
	byID := map[string]host.Answer{}
	for _, a := range answers {
		if _, dup := byID[a.QuestionID]; dup || !slices.ContainsFunc(qs, func(q Question) bool { return q.ID == a.QuestionID }) {
			return Result{}, fmt.Errorf(textBadAnswer, a.QuestionID)
		}
		byID[a.QuestionID] = a
	}
	r := Result{Outcome: OutcomeDeclined, Message: textDeclined}
	for _, q := range qs {
		a := byID[q.ID]
		aq := AnsweredQuestion{ID: q.ID, Header: q.Header, Question: q.Question, Other: companion.Cut(strings.TrimSpace(a.Custom), MaxOtherSize, "")}
		for _, label := range a.Selected {
			if !slices.ContainsFunc(q.Options, func(o Option) bool { return o.Label == label }) || slices.Contains(aq.Selected, label) {
				return Result{}, fmt.Errorf(textBadAnswer, q.ID)
			}
			aq.Selected = append(aq.Selected, label)
		}
		if len(aq.Selected) > 1 && !q.MultiSelect {
			return Result{}, fmt.Errorf(textBadAnswer, q.ID)
		}
		if len(aq.Selected) == 0 && aq.Other == "" {
			aq.Skipped = true
		} else {
			r.Outcome, r.Message = OutcomeAnswered, textAnswered
		}
		r.Answers = append(r.Answers, aq)
	}
	return r, nil
}

// hostQuestions turns checked questions into the host's form: each keeps
// its ID, header, text, options (each an answer: [host.RoleAnswer]) and
// multiSelect flag.
func hostQuestions(qs []Question) []host.Question {
	out := make([]host.Question, len(qs))
	for i, q := range qs {
		hq := host.Question{ID: q.ID, Header: q.Header, Question: q.Question, MultiSelect: q.MultiSelect}
		for _, o := range q.Options {
			hq.Options = append(hq.Options, host.Option{Label: o.Label, Description: o.Description, Role: host.RoleAnswer})
		}
		out[i] = hq
	}
	return out
}

// appendEvent logs one of the plugin's events, under the turn's lease
// when ctx is a turn's (see [host.Append]).
func appendEvent(ctx context.Context, sess host.Session, typ string, payload any) error {
	data, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	_, err = host.Append(ctx, sess, host.Event{Type: typ, Data: data})
	return err
}
