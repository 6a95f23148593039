// Helpers shared by the interop clients (client.mjs, models.mjs).
import { appendFileSync } from "node:fs";

// check throws when ok is false and reports the check on stderr otherwise.
export function check(ok, what) {
  if (!ok) {
    throw new Error(`check failed: ${what}`);
  }
  console.error(`ok: ${what}`);
}

// record returns a TransformStream that appends every line passing through
// it to transcript as {"conn": conn, "from": from, "line": ...}.
export function record(transcript, conn, from) {
  const decoder = new TextDecoder();
  let pending = "";
  return new TransformStream({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      let i;
      while ((i = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, i).trim();
        pending = pending.slice(i + 1);
        if (line) appendFileSync(transcript, JSON.stringify({ conn, from, line }) + "\n");
      }
      controller.enqueue(chunk);
    },
  });
}
