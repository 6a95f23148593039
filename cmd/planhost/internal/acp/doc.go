// Package acp makes the planhost reference host an agent of the Agent
// Client Protocol (ACP): JSON-RPC 2.0 over stdio between an editor (the
// client) and the agent, built on github.com/coder/acp-go-sdk.
//
// [Serve] runs one connection. Every ACP session is a session of the host's
// store, bound to one agent of the host's runtime and to a workspace rooted
// at the client's cwd ([Workspaces] routes the workspace tools of each call
// to its session's root). The session's log drives what the client sees:
// a subscription turns each logged event into session/update notifications
// (tool calls and their results, mode changes, available commands and,
// through a [PlanFeed], plan entries), and the messages and lines every
// front end shows of it (package present's transcript, in the user's
// language) into message chunks; session/load replays the log the same
// way before it answers.
//
// Plan mode maps onto the protocol's session modes ("default" and "plan"),
// offered too as a "mode" session config option. session/set_mode and
// session/set_config_option call the plan-mode controller's Set; a
// current_mode_update is sent whenever the logged mode changes. The plan
// review, and every other question the host puts to the user, is a
// session/request_permission on the tool call that asked, shown as every
// front end shows it (package present: its words, in the user's language,
// and its menu, decided from the options' roles), with the plan in the
// tool call's content: every approving option is allow_once, the others
// reject_once, and a cancelled request is a dismissal. Answers that need
// the user's text arrive as the next prompt (the Dismiss option stops the
// question so the user can say it); Approve with comments is not offered.
// A question from the model is titled, framed and answered as the
// model's, never as a review. docs/acp.md maps every concept to its
// message.
//
// Nothing but protocol messages is written to the output; diagnostics go to
// the configured logger. [Run] is "planhost acp": it builds the host from
// the command's flags and serves stdin and stdout.
package acp
