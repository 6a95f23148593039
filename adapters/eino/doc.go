// Package eino hosts plan mode (package planmode) and its companions in
// CloudWeGo Eino agents.
//
// A [Host] holds the registries plan mode registers into and a session
// store; [Host.Middleware] is the adk.AgentMiddleware that runs them in a
// ChatModelAgent at every chat-model call and around every tool call; an
// [Agent] binds a session of the store and runs the Eino agent's turns on
// it ([Agent.Run]). The session log is the conversation: every chat-model
// call is given the transcript the log holds, so a restarted program goes
// on from the store. docs/eino.md describes the design.
package eino
