// Package refhost is the reference agent host: a small, complete
// implementation of the [host] contracts that a Go program can run and
// that plugin tests drive end to end.
//
// A [Runtime] holds the registries (event types, prompt sections, tools,
// commands, pre-step listeners, request-error listeners, tool guards), the
// user-question service ([Questions]) and the [Model]. Each [Agent] is bound
// to one session and runs its turns in a goroutine of its own. [Module]
// provides all of it to an fx application.
//
// [Agent.Steer] queues a message and, when the agent is idle, starts a
// turn; [Agent.Inject] only queues. A turn appends "turn/start", runs steps
// until one ends it, appends "turn/end" with the reason (completed, blocked,
// cancelled or error), runs the checkpoint hook, and only then becomes idle.
// A step:
//
//  1. takes every queued message;
//  2. runs the pre-step chain: prepended listeners outermost, the latest
//     prepend first, then the rest in registration order. A rejection or a
//     cancellation puts the messages back and ends the turn "blocked" or
//     "cancelled";
//  3. logs "step/start", a scheduled "compaction/summary"
//     ([Runtime.CompactBeforeNextRequest]) and the decision's messages as
//     "user/message";
//  4. derives the request only now, so that every append so far is in it:
//     the non-empty sections in (Order, Name) order joined by a blank line,
//     the tools sorted by name, and the transcript folded from
//     transcript-kind events since the last "compaction/summary"
//     (undeclared event types are log-only);
//  5. logs "request/header" for a session's first request ("initial"), an
//     agent's first on a non-empty session ("resume"), and whenever the
//     system-prompt or tool-catalog digest changed ("change");
//  6. calls the model. A failed request goes to the request-error
//     listeners; when one asks for a retry and attempts remain, the step is
//     proposed again with Attempt + 1, back through the pre-step chain;
//  7. logs "assistant/message" and runs each tool call in order, logging
//     "tool/call" and "tool/result". The tool-guard chain runs first; a
//     refusal, an unknown tool, an error ("Error: <message>"), a panic or a
//     call skipped by cancellation is an is-error result;
//  8. logs "step/end". Tool calls lead to the next step, up to MaxSteps; an
//     answer without them completes the turn.
//
// Nothing is left half written: every tool call gets a result, every
// "step/start" its "step/end" and every "turn/start" its "turn/end", when
// the turn is cancelled, when an append fails (the tool is told, see
// [host.ResultLossHandler]) and when the process stopped mid-turn (see
// [Runtime.NewAgent]).
//
// In the transcript, user/message, assistant/message (with its tool calls),
// tool/result and compaction/summary are one [Message] each. An event of a
// plugin's transcript-kind type becomes a user message: its payload's
// "content" blocks when it has any, otherwise a text block "[type] payload".
// Every request pairs each tool call with one tool message right after its
// assistant message, whatever the log holds.
package refhost
