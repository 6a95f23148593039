// Interop test client for `planhost acp`, written with the official ACP
// TypeScript SDK. The Go test TestNodeClientInterop runs it:
//
//   node client.mjs PLANHOST SESSIONS_DIR WORKSPACE SCRIPT SCRIPT2 TRANSCRIPT CONFIG SCRIPT3
//
// It spawns `PLANHOST acp` three times, with the scripted models SCRIPT,
// SCRIPT2 and SCRIPT3, and walks:
// initialize, session/new, session/set_mode plan, a prompt whose plan review
// arrives as session/request_permission (its steps sent as a plan update
// before it; approved with the allow_once option), the
// current_mode_update back to default, a todo_write whose list
// arrives as a plan update, a switch to plan mode made while a second
// prompt waits (announced when that turn ends, before its response), and
// then, in a second agent process,
// session/load of the same session (the plan sent again), a burst of 3,000
// session/cancel notifications and a prompt of 2 MB of '<'; then, in a
// third agent process on a new session, two clarifying questions (ask_user)
// as one permission request each, the first answered with a choice and the
// second skipped (the tool's result carries both), an approved plan,
// "/plan reopen" (a current_mode_update to plan) and a revised plan whose
// review shows what changed from the reopened plan. CONFIG is the
// deployment file (plan mode, the todo plugin and plan-ask). Every line either side
// wrote is appended to TRANSCRIPT as {"conn": 1|2, "from": "client"|"agent",
// "line": ...}
// so that the Go test can check it against the protocol's JSON schema.
// Diagnostics go to stderr; the exit code is 0 only when every check held.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { check, record as recordTo } from "./common.mjs";

const [planhost, sessionsDir, workspace, script, script2, transcript, config, script3] = process.argv.slice(2);
if (!script3) {
  console.error("usage: node client.mjs PLANHOST SESSIONS_DIR WORKSPACE SCRIPT SCRIPT2 TRANSCRIPT CONFIG SCRIPT3");
  process.exit(2);
}

// startAgent spawns planhost acp and returns its process and an ACP stream.
let connections = 0;

function startAgent(script) {
  const conn = ++connections;
  const child = spawn(planhost, ["acp", "-config", config, "-model", `scripted:${script}`, "-sessions", sessionsDir, "-log-level", "info"], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const toAgent = recordTo(transcript, conn, "client");
  toAgent.readable.pipeTo(Writable.toWeb(child.stdin)).catch(() => {});
  const fromAgent = Readable.toWeb(child.stdout).pipeThrough(recordTo(transcript, conn, "agent"));
  return { child, stream: acp.ndJsonStream(toAgent.writable, fromAgent) };
}

// session collects what the agent sends.
const updates = [];
const permissionRequests = [];
// planAtReview holds, for each permission request, the plan last sent
// before it.
const planAtReview = [];
let onUpdate = () => {};
// answer picks the option id for a permission request; by default the
// first allow_once option.
const allowOnce = (params) => params.options.find((o) => o.kind === "allow_once").optionId;
let answer = allowOnce;

function newClient() {
  return acp
    .client({ name: "planhost-interop-test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
      onUpdate(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissionRequests.push(params);
      planAtReview.push(updates.filter((n) => n.update.sessionUpdate === "plan").at(-1)?.update.entries ?? []);
      return { outcome: { outcome: "selected", optionId: answer(params) } };
    });
}

function waitForUpdate(pred, what) {
  const found = updates.find((n) => pred(n.update));
  if (found) return Promise.resolve(found);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), 20000);
    onUpdate = (n) => {
      if (pred(n.update)) {
        clearTimeout(timer);
        onUpdate = () => {};
        resolve(n);
      }
    };
  });
}

async function stopAgent(child) {
  child.stdin.end();
  await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on("exit", resolve)));
  check(child.exitCode === 0, `planhost acp exited 0 (got ${child.exitCode})`);
}

// checkTodoPlan checks that the last plan update is the scripted todo list.
function checkTodoPlan(what) {
  const plans = updates.filter((n) => n.update.sessionUpdate === "plan");
  const entries = plans.at(-1)?.update.entries ?? [];
  const got = entries.map((e) => `${e.content}/${e.priority}/${e.status}`).join(",");
  check(got === "\\[high\\] Add Goodbye/high/completed,Test Goodbye/medium/in_progress", `${what} (${got})`);
}

const initParams = {
  protocolVersion: acp.PROTOCOL_VERSION,
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  clientInfo: { name: "planhost-interop-test", version: "1.0.0" },
};

let sessionId;

// First agent process: a plan-mode session with an approved plan.
{
  const { child, stream } = startAgent(script);
  await newClient().connectWith(stream, async (ctx) => {
    const init = await ctx.request(acp.methods.agent.initialize, initParams);
    check(init.protocolVersion === acp.PROTOCOL_VERSION, `protocol version ${init.protocolVersion}`);
    check(init.agentCapabilities?.loadSession === true, "agent can load sessions");
    check(init.agentCapabilities?.promptCapabilities?.image === true, "agent takes images");

    const created = await ctx.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
    sessionId = created.sessionId;
    check(typeof sessionId === "string" && sessionId.length > 0, `session ${sessionId}`);
    check(created.modes?.currentModeId === "default", "new session starts in the default mode");
    check(created.modes?.availableModes.map((m) => m.id).join(",") === "default,plan", "modes default and plan offered");
    await waitForUpdate((u) => u.sessionUpdate === "available_commands_update" && u.availableCommands.some((c) => c.name === "plan"), "/plan advertised");
    check(true, "/plan advertised with available_commands_update");

    await ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" });
    await waitForUpdate((u) => u.sessionUpdate === "current_mode_update" && u.currentModeId === "plan", "mode update to plan");
    check(true, "current_mode_update plan after session/set_mode");

    const resp = await ctx.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "Add a Goodbye function." }],
    });
    check(resp.stopReason === "end_turn", `prompt stop reason ${resp.stopReason}`);
    check(permissionRequests.length === 1, "one permission request (the plan review)");
    const review = permissionRequests[0];
    const text = (review.toolCall.content ?? []).map((c) => c.content?.text ?? "").join("\n");
    check(text.includes("# Add Goodbye"), "the plan is in the tool call's content");
    // Every approving answer is allow_once (Approve, Approve and clear),
    // every other reject_once (Save plan and stop approves nothing);
    // Approve with comments needs text, which a
    // permission option cannot carry, so it is not offered.
    const options = review.options.map((o) => `${o.optionId}=${o.kind}`).join(",");
    check(options === "approve=allow_once,approve-and-clear=allow_once,save-plan-and-stop=reject_once,keep-planning=reject_once,_speak=reject_once", `review options ${options}`);
    check(!review.options.some((o) => /comment/i.test(o.name)), "no option that needs text");
    check(review.toolCall.title === "Plan review: Add Goodbye" && review.toolCall.kind === "switch_mode", `the request names its tool call (${review.toolCall.title}, ${review.toolCall.kind})`);
    const reviewed = planAtReview[0].map((e) => `${e.content}/${e.priority}/${e.status}`).join(",");
    check(planAtReview[0].length === 1 && planAtReview[0][0].content.includes("Goodbye") && planAtReview[0][0].status === "pending",
      `the plan under review is sent as a plan update before the review (${reviewed})`);
    const exitCall = updates.find((n) => n.update.sessionUpdate === "tool_call" && n.update.toolCallId === review.toolCall.toolCallId);
    check(exitCall?.update.kind === "switch_mode", "the review is on the exit_plan_mode tool call (kind switch_mode)");
    const modes = updates.filter((n) => n.update.sessionUpdate === "current_mode_update").map((n) => n.update.currentModeId);
    check(modes.join(",") === "plan,default", `mode updates ${modes}`);
    const kinds = updates.filter((n) => n.update.sessionUpdate === "tool_call").map((n) => n.update.kind);
    check(kinds.join(",") === "read,search,switch_mode,edit,think", `tool call kinds ${kinds}`);
    checkTodoPlan("the todo list arrives as a plan update");

    // A mode switch made after the turn's last step (the model is waiting)
    // is logged when the turn ends: its current_mode_update arrives before
    // the prompt's response, not at the next prompt.
    const second = ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Look again." }] });
    await waitForUpdate((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "read-2" && u.status === "completed", "the second read");
    // The model's last request starts right after the read's result.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" });
    await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
    const cancelled = await second;
    check(cancelled.stopReason === "cancelled", `second prompt stop reason ${cancelled.stopReason}`);
    const after = updates.filter((n) => n.update.sessionUpdate === "current_mode_update").map((n) => n.update.currentModeId);
    check(after.join(",") === "plan,default,plan", `the switch is announced when the turn ends (mode updates ${after})`);
  });
  await stopAgent(child);
}

// Second agent process: load the session again.
{
  updates.length = 0;
  const { child, stream } = startAgent(script2);
  await newClient().connectWith(stream, async (ctx) => {
    await ctx.request(acp.methods.agent.initialize, initParams);
    const loaded = await ctx.request(acp.methods.agent.session.load, { sessionId, cwd: workspace, mcpServers: [] });
    check(loaded.modes?.currentModeId === "plan", "loaded session is in plan mode, as switched at the end of the last turn");
    const users = updates.filter((n) => n.update.sessionUpdate === "user_message_chunk").map((n) => n.update.content.text);
    check(users.join("|") === "Add a Goodbye function.|Look again.", `history replayed before the load response (${users})`);
    const agentText = updates.filter((n) => n.update.sessionUpdate === "agent_message_chunk").map((n) => n.update.content.text).join("\n");
    check(agentText.includes("Here is my plan."), "agent messages replayed");
    checkTodoPlan("the todo list's plan is sent again on load");
    // A burst of cancels of a session the agent does not know (each one a
    // diagnostic on its stderr), then a prompt of 2 MB of '<': the prompt
    // is answered (a turn, or an error when the store refuses to log it)
    // and the agent keeps serving.
    await Promise.all(Array.from({ length: 3000 }, () => ctx.notify(acp.methods.agent.session.cancel, { sessionId: "no-such-session" })));
    const big = { sessionId, prompt: [{ type: "text", text: "<".repeat(2 << 20) }] };
    const answer = await ctx.request(acp.methods.agent.session.prompt, big).then(
      (r) => `stop reason ${r.stopReason}`,
      (e) => (typeof e.code === "number" ? `error ${e.code}: ${e.data?.error ?? e.message}` : Promise.reject(e)),
    );
    check(true, `a 2 MB prompt of '<' after a cancel burst is answered (${answer.slice(0, 200)})`);
    const resp = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Thanks." }] });
    check(resp.stopReason === "end_turn", "the loaded session goes on");
  });
  await stopAgent(child);
}

// toolText joins the text of a permission request's tool call content.
const toolText = (req) => (req.toolCall.content ?? []).map((c) => c.content?.text ?? "").join("\n");

// Third agent process, a new session: clarifying questions and /plan reopen.
{
  updates.length = 0;
  permissionRequests.length = 0;
  // The storage question is answered "In a file", the language one skipped.
  answer = (params) => {
    if (params.toolCall.toolCallId !== "ask-1") return allowOnce(params);
    const want = toolText(params).includes("Which language first?") ? "Skip this question" : "Answer: In a file: A JSON file.";
    return params.options.find((o) => o.name === want).optionId;
  };
  const { child, stream } = startAgent(script3);
  await newClient().connectWith(stream, async (ctx) => {
    await ctx.request(acp.methods.agent.initialize, initParams);
    const created = await ctx.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] });
    const sid = created.sessionId;
    await ctx.request(acp.methods.agent.session.setMode, { sessionId: sid, modeId: "plan" });
    const resp = await ctx.request(acp.methods.agent.session.prompt, { sessionId: sid, prompt: [{ type: "text", text: "Keep greetings elsewhere." }] });
    check(resp.stopReason === "end_turn", `ask prompt stop reason ${resp.stopReason}`);
    const asks = permissionRequests.filter((r) => r.toolCall.toolCallId === "ask-1");
    check(asks.length === 2, `one permission request per question (${asks.length})`);
    const opts = asks.map((r) => r.options.map((o) => `${o.name}=${o.kind}`).join(",")).join(" | ");
    check(opts === "Answer: In code: A Go map.=reject_once,Answer: In a file: A JSON file.=reject_once,Skip this question=reject_once | " +
      "Answer: German: Second most asked.=reject_once,Answer: French: Third.=reject_once,Skip this question=reject_once",
      `each choice is a reject_once answer (it approves nothing), plus Skip (${opts})`);
    check(asks.every((r) => r.toolCall.title === "Question from the model" && r.toolCall.kind === "think"), "each request is titled as a question from the model");
    check(toolText(asks[0]).includes("Where should greetings live?") && toolText(asks[1]).includes("Which language first?"), "each request holds its question");
    const done = updates.find((n) => n.update.sessionUpdate === "tool_call_update" && n.update.toolCallId === "ask-1" && n.update.status === "completed");
    const result = JSON.parse(done?.update.rawOutput?.output ?? "{}");
    const got = (result.answers ?? []).map((a) => (a.skipped ? "skipped" : (a.selected ?? []).join("+"))).join(",");
    check(result.outcome === "answered" && got === "In a file,skipped", `the model gets the chosen label and the skipped question (${result.outcome}: ${got})`);
    check(permissionRequests.length === 3 && permissionRequests[2].toolCall.toolCallId === "plan-2", "then the plan review, approved");

    const reopened = await ctx.request(acp.methods.agent.session.prompt, { sessionId: sid, prompt: [{ type: "text", text: "/plan reopen" }] });
    check(reopened.stopReason === "end_turn", `/plan reopen stop reason ${reopened.stopReason}`);
    const modes = updates.filter((n) => n.update.sessionUpdate === "current_mode_update").map((n) => n.update.currentModeId);
    check(modes.join(",") === "plan,default,plan", `/plan reopen switches to plan mode (mode updates ${modes})`);
    check(!toolText(permissionRequests[2]).includes("What changed since the plan you reopened"), "the first review shows no reopen diff");

    const revised = await ctx.request(acp.methods.agent.session.prompt, { sessionId: sid, prompt: [{ type: "text", text: "Document it too." }] });
    check(revised.stopReason === "end_turn", `revised plan stop reason ${revised.stopReason}`);
    check(permissionRequests.length === 4 && permissionRequests[3].toolCall.toolCallId === "plan-3", "the revised plan is reviewed");
    const diff = toolText(permissionRequests[3]);
    check(diff.includes("What changed since the plan you reopened") && diff.includes("+2. Document the file's format."),
      "the next review shows the diff against the reopened plan");
  });
  await stopAgent(child);
}
console.error("node client: all checks passed");
