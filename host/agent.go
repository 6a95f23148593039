package host

import (
	"context"
	"errors"
)

// AgentStatus is what an agent is doing.
type AgentStatus string

const (
	// StatusIdle means no turn is running.
	StatusIdle AgentStatus = "idle"
	// StatusRunning means a turn or its checkpoint is running. It stays
	// running until after the post-turn checkpoint, so it is not an idle
	// signal for the log: use the turn events for that.
	StatusRunning AgentStatus = "running"
)

// Message is input for the agent: what the user steers or a plugin injects.
type Message struct {
	// Content holds the blocks, images before text by convention.
	Content []Block `json:"content"`
	// Source says who wrote the message; nil means the user.
	Source *Source `json:"source,omitempty"`
}

// Agent is one agent bound to one session.
type Agent interface {
	// ID returns the agent's identifier.
	ID() string
	// Session returns the session the agent logs to.
	Session() Session
	// Status returns the agent's status.
	Status() AgentStatus
	// Steer queues m as the next step's input and, when the agent is idle,
	// starts a turn.
	Steer(m Message) error
	// Inject queues m as context for the next step without waking the agent.
	Inject(m Message) error
}

// Step is one proposed model request: the first request of a turn, each
// continuation after tool results, and each request-recovery retry.
type Step struct {
	// Agent is the agent the step belongs to.
	Agent Agent
	// Turn, Step and Attempt number the proposal (all 1-based). A retry has
	// the same Step and a higher Attempt.
	Turn, Step, Attempt int
	// Messages are the queued messages the step claimed.
	Messages []Message
}

// Decision is a pre-step chain's verdict on a step.
type Decision struct {
	// Accepted is true when the step goes on to a model request.
	Accepted bool
	// Messages are appended as "user/message" events after "step/start".
	Messages []Message
	// Reason explains a rejection.
	Reason string
}

// Accept returns an accepting decision carrying msgs.
func Accept(msgs []Message) Decision { return Decision{Accepted: true, Messages: msgs} }

// Reject returns a rejecting decision.
func Reject(reason string) Decision { return Decision{Reason: reason} }

// PreStepNext runs the rest of the chain.
type PreStepNext func(ctx context.Context, s Step) Decision

// PreStepListener sees every proposed step before the host derives the
// request. It calls next to run the rest of the chain (the innermost link
// accepts with the step's messages) and may change or reject the decision.
// ctx is cancelled when the agent is cancelled.
type PreStepListener func(ctx context.Context, s Step, next PreStepNext) Decision

// PreStepChain is the host's registry of pre-step listeners.
type PreStepChain interface {
	// AddPreStep registers l under name. With prepend it becomes the
	// outermost listener (runs before all others); otherwise it is added
	// innermost. A name already taken is ErrDuplicate.
	AddPreStep(name string, l PreStepListener, prepend bool) (unregister func(), err error)
}

// ErrAgentBusy is returned by hosts for operations that need an idle agent.
var ErrAgentBusy = errors.New("agent is running")
