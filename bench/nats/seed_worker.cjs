// A Nachos tool worker written as the Nachos seed's ToolService is: the npm
// `nats` 2.29 client, one plain subscription on nachos.tool.<id>.request
// (no queue group), one request handled at a time, the envelope answered.
// Its tool runs a command (argv after the tool id) with the arguments as
// JSON on stdin and answers what it printed, as a command tool does.
// The NATS benchmark (benches/nats_overhead.rs) compares toolc's worker
// with it.
//
// Usage: node seed_worker.cjs NATS_URL TOOL_ID COMMAND [ARGS...]
const { connect, StringCodec } = require("nats");
const { spawnSync } = require("child_process");
const crypto = require("crypto");

const [url, toolId, command, ...args] = process.argv.slice(2);
const sc = StringCodec();
const RESERVED = ["sessionId", "callId", "sandbox"];

function envelope(requestId, payload) {
  return {
    id: crypto.randomUUID(),
    timestamp: new Date().toISOString(),
    source: toolId,
    type: "tool.response",
    correlationId: requestId,
    payload,
  };
}

(async () => {
  const nc = await connect({ servers: url, name: "seed-worker" });
  const sub = nc.subscribe(`nachos.tool.${toolId}.request`);
  await nc.flush();
  process.stderr.write("ready\n");
  for await (const msg of sub) {
    const started = Date.now();
    let request;
    try {
      request = JSON.parse(sc.decode(msg.data));
    } catch (e) {
      msg.respond(sc.encode(JSON.stringify(envelope("", {
        success: false, content: [],
        error: { code: "VALIDATION_ERROR", message: "invalid JSON" },
      }))));
      continue;
    }
    const input = { ...(request.payload || {}) };
    for (const key of RESERVED) delete input[key];
    const run = spawnSync(command, args, { input: JSON.stringify(input) });
    const payload = run.status === 0
      ? { success: true, content: [{ type: "text", text: run.stdout.toString() }],
          metadata: { duration: Date.now() - started } }
      : { success: false, content: [],
          error: { code: "EXECUTION_ERROR", message: run.stderr.toString() },
          metadata: { duration: Date.now() - started } };
    msg.respond(sc.encode(JSON.stringify(envelope(request.id, payload))));
  }
})().catch((e) => {
  process.stderr.write(`seed worker: ${e}\n`);
  process.exit(1);
});
