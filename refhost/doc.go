// Package refhost is the reference agent host: a small, complete
// implementation of the [host] contracts that a Go program can run and
// that plugin tests drive end to end.
//
// A [Runtime] holds the registries (event types, prompt sections, tools,
// commands, pre-step listeners, request-error listeners), the user-question
// service ([Questions]) and the [Model]. Each [Agent] is bound to one
// session and runs its turns in a goroutine of its own. [Module] provides
// all of it to an fx application.
//
// # A turn
//
// [Agent.Steer] queues a message and, when the agent is idle, starts a
// turn; [Agent.Inject] only queues. The turn appends "turn/start", runs
// steps until one ends it, appends "turn/end" with the reason (completed,
// blocked, cancelled or error), runs the checkpoint hook, and only then
// becomes idle. A Steer that arrives after the turn's last step claimed
// its messages starts another turn right away.
//
// # A step
//
//  1. Claim: the step takes every queued message.
//  2. Pre-step: the chain runs with the proposed step (turn, step, attempt,
//     messages). Prepended listeners run outermost, the latest prepend
//     first; the rest follow in registration order; the innermost link
//     accepts with the claimed messages. A rejection puts the messages back
//     at the front of the queue and ends the turn "blocked"; so does a
//     cancellation, with "cancelled".
//  3. Log the input: "step/start", then a "compaction/summary" when one was
//     scheduled ([Runtime.CompactBeforeNextRequest]), then each of the
//     decision's messages as "user/message" (the event's Source is the
//     message's).
//  4. Derive the request, only now, so that everything appended so far
//     (including a plugin's appends from its pre-step listener) is in it.
//     The system prompt is the sections sorted by (Order, Name), empty
//     texts dropped, joined by a blank line; the tools are sorted by name;
//     the transcript is folded from transcript-kind events only and
//     restarts at the last "compaction/summary". Undeclared event types are
//     log-only.
//  5. Header: "request/header" is appended for the first request of the
//     session ("initial"), the first request of an agent created on a
//     non-empty session ("resume"), and whenever the system-prompt or
//     tool-catalog digest differs from the last header ("change").
//  6. Call the model. A request error goes to the request-error listeners;
//     when one asks for a retry and attempts remain, the same step is
//     proposed again with Attempt + 1 — back to (1), through the pre-step
//     chain, with a freshly derived request. Otherwise the turn ends
//     "error".
//  7. Log "assistant/message", then run each tool call in order, logging
//     "tool/call" and "tool/result": the tool-guard chain runs first
//     ([Runtime.AddToolGuard]) and a refusal is the call's is-error result;
//     an execute error reads "Error: <message>"; an unknown tool, a panic,
//     or a call skipped by cancellation is an is-error result too.
//  8. "step/end" closes every "step/start", with an error text when the
//     request failed or the step was cancelled. Tool calls lead to the next
//     step (Step + 1, Attempt 1); an answer without them completes the turn.
//     A turn takes at most MaxSteps steps; past that it ends "error".
//
// Cancellation ([Agent.Cancel], [Agent.Stop]) cancels the context of the
// pre-step chain, the model call and the tools. Nothing is left half
// written: every tool call the model asked for gets a result, every
// "step/start" its "step/end", every "turn/start" its "turn/end". Messages
// a step claimed but never logged go back to the queue.
//
// # Transcript
//
// user/message, assistant/message (with its tool calls), tool/result and
// compaction/summary map to one [Message] each; tool/call events travel
// inside the assistant message. An event of a plugin's transcript-kind type
// becomes a user message: its payload's "content" blocks when it has any,
// otherwise a text block "[type] payload". Each step decodes only the
// events appended since the previous step; declaring or removing an event
// type makes the next step fold the whole log again.
//
// # Resume
//
// [Runtime.NewAgent] on a non-empty session continues its turn numbering,
// remembers its last request header, gives every tool call without a
// result, anywhere in the log, an is-error result, and closes a turn the
// log left open (a crash mid-turn) with a "turn/end" of reason error, so
// that the log's idle signal holds again.
//
// # Lost results
//
// When the append of a tool call's result fails, the turn ends with an
// error, the tool is told ([host.ResultLossHandler]), and that call and the
// calls of the batch after it (which do not run) get is-error results
// before the agent's next append. Every request pairs each tool call with
// one tool message right after its assistant message, whatever the log
// holds, so one failed append never makes later requests fail at endpoints
// that enforce the tool-call rules.
//
// # Commands
//
// [Runtime.Execute] runs "/name rest" lines: see its doc for parsing and
// logging.
package refhost
