// Interop walk of a model per mode for `planhost acp`, written with the
// official ACP TypeScript SDK. The Go test TestNodeClientModelPerMode runs
// it against two fake OpenAI-compatible endpoints (their addresses and keys
// in the environment, which the agent inherits):
//
//   node models.mjs PLANHOST SESSIONS_DIR WORKSPACE TRANSCRIPT CONFIG PLAN_MODEL
//
// It spawns `PLANHOST acp -model openai -plan-model PLAN_MODEL` and walks:
// initialize, session/new, session/set_mode plan, a prompt whose plan (made
// by the plan-mode model) arrives for review as session/request_permission;
// the review must offer "carry out the plan with" the default model
// (OPENAI_MODEL) as an allow_once option, which the client picks; then the
// current_mode_update back to default and the default model's steps (a
// read_file and its answer). It prints the session's ID on stdout
// ("session ID"); the Go test checks the endpoints' requests and the log.
// Every line either side wrote is appended to TRANSCRIPT as {"conn": 1,
// "from": "client"|"agent", "line": ...} for the schema check. Diagnostics
// go to stderr; the exit code is 0 only when every check held.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { check, record as recordTo } from "./common.mjs";

const [planhost, sessionsDir, workspace, transcript, config, planModel] = process.argv.slice(2);
const execModel = process.env.OPENAI_MODEL;
if (!planModel || !execModel) {
  console.error("usage: OPENAI_MODEL=NAME node models.mjs PLANHOST SESSIONS_DIR WORKSPACE TRANSCRIPT CONFIG PLAN_MODEL");
  process.exit(2);
}

const child = spawn(planhost, ["acp", "-config", config, "-model", "openai", "-plan-model", planModel, "-sessions", sessionsDir, "-log-level", "info"], {
  stdio: ["pipe", "pipe", "inherit"],
});
const toAgent = recordTo(transcript, 1, "client");
toAgent.readable.pipeTo(Writable.toWeb(child.stdin)).catch(() => {});
const stream = acp.ndJsonStream(toAgent.writable, Readable.toWeb(child.stdout).pipeThrough(recordTo(transcript, 1, "agent")));

const updates = [];
const permissionRequests = [];
// The option the review must offer, by its name (the catalog's words,
// internal/present).
const withName = `Approve and execute with ${execModel}: leave plan mode and carry the plan out with this model`;

const client = acp
  .client({ name: "planhost-interop-models" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    updates.push(params);
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    permissionRequests.push(params);
    // Pick "carry out the plan with MODEL"; with no such option, keep
    // planning (the checks below then fail).
    const with_ = params.options.find((o) => o.name === withName);
    const fallback = params.options.find((o) => o.optionId === "keep-planning") ?? params.options.at(-1);
    return { outcome: { outcome: "selected", optionId: (with_ ?? fallback).optionId } };
  });

await client.connectWith(stream, async (ctx) => {
  await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: "planhost-interop-models", version: "1.0.0" },
  });
  const created = await ctx.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
  const sessionId = created.sessionId;
  check(created.modes?.currentModeId === "default", "new session starts in the default mode");
  await ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" });

  const resp = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Add a Goodbye function." }] });
  check(resp.stopReason === "end_turn", `prompt stop reason ${resp.stopReason}`);
  check(permissionRequests.length === 1, `one permission request, the plan review (${permissionRequests.length})`);
  const review = permissionRequests[0];
  check(review.toolCall.kind === "switch_mode" && review.toolCall.title === "Plan review: Add Goodbye", `the review is the plan's (${review.toolCall.title})`);
  const options = review.options.map((o) => `${o.optionId}=${o.kind}`).join(",");
  check(options === `approve=allow_once,approve-and-execute-with-${execModel}=allow_once,save-plan-and-stop=reject_once,keep-planning=reject_once,_speak=reject_once`,
    `review options ${options}`);
  const with_ = review.options.find((o) => o.name === withName);
  check(with_?.kind === "allow_once", `the review offers "${withName}" as allow_once`);
  const modes = updates.filter((n) => n.update.sessionUpdate === "current_mode_update").map((n) => n.update.currentModeId);
  check(modes.join(",") === "plan,default", `mode updates ${modes}`);
  const read = updates.find((n) => n.update.sessionUpdate === "tool_call_update" && n.update.toolCallId === "read-1" && n.update.status === "completed");
  check(read !== undefined, "the default model's read_file ran after the approval");
  const said = updates.filter((n) => n.update.sessionUpdate === "agent_message_chunk").map((n) => n.update.content.text).join("");
  check(said.includes("Goodbye added."), "the default model's answer arrives");
  console.log(`session ${sessionId}`);
});
child.stdin.end();
await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on("exit", resolve)));
check(child.exitCode === 0, `planhost acp exited 0 (got ${child.exitCode})`);
console.error("node client: all checks passed");
