// A real MCP host for docir's tests: the official TypeScript SDK spawns
// `docir serve --mcp`, says initialize, lists the tools and calls them.
// It prints one JSON object with what it saw on stdout; the Go test
// (cmd/docir/serve_mcp_test.go) checks it. The SDK's Client also checks
// every structuredContent against the tool's outputSchema, and throws
// when one does not match.
//
// usage: node client.mjs DOCIR_BINARY CORPUS_DIR [POLICY_FILE]
// With a policy file the server is started with --policy, and when it
// lists a read_batch tool the client runs a batch of three frames.
// With DOCIR_MCP_TRANSPORT=http the client starts
// `docir serve --mcp --http 127.0.0.1:0` with a bearer token, reads the
// address from its stderr, checks GET /health, and speaks Streamable HTTP
// to /mcp with the token; otherwise it speaks stdio.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [docir, corpus, policy] = process.argv.slice(2);
if (!docir || !corpus) {
  console.error("usage: node client.mjs DOCIR_BINARY CORPUS_DIR [POLICY_FILE]");
  process.exit(2);
}
const policyArgs = policy ? ["--policy", policy] : [];

let transport;
let server; // the HTTP server process
let httpURL, httpAuth; // its /mcp URL and the token's header
const result = {};
if (process.env.DOCIR_MCP_TRANSPORT === "http") {
  const token = "tok-" + Math.random().toString(36).slice(2);
  server = spawn(docir, ["serve", "--mcp", "--http", "127.0.0.1:0", ...policyArgs], {
    cwd: corpus,
    env: { ...process.env, DOCIR_HTTP_TOKEN: token },
    stdio: ["ignore", "inherit", "pipe"],
  });
  const url = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: server.stderr });
    lines.on("line", (line) => {
      const m = line.match(/^docir serve: listening on (http:\/\/127\.0\.0\.1:\d+\/mcp) /);
      if (m) resolve(m[1]);
      else process.stderr.write(line + "\n");
    });
    server.on("exit", (code) => reject(new Error(`docir serve exited ${code} before listening`)));
  });
  const health = await fetch(new URL("/health", url));
  result.health = { status: health.status, body: await health.json() };
  const noToken = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  result.noTokenStatus = noToken.status;
  httpURL = url;
  httpAuth = { Authorization: `Bearer ${token}` };
  transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
} else {
  transport = new StdioClientTransport({
    command: docir,
    args: ["serve", "--mcp", ...policyArgs],
    cwd: corpus,
    stderr: "inherit",
  });
}
const client = new Client({ name: "docir-mcpclient-test", version: "1.0.0" });
await client.connect(transport); // initialize + notifications/initialized

const out = result;
out.server = client.getServerVersion();
out.instructions = client.getInstructions();
out.tools = (await client.listTools()).tools;
// Two documents and a miss, in one call.
out.get = await client.callTool({
  name: "get",
  arguments: { doc_ids: ["runbooks/disk-full#Mitigate", "adr/0001-record-architecture-decisions", "nope"] },
});
out.getOne = await client.callTool({ name: "get", arguments: { doc_id: "guides/检索#概述" } });
out.search = await client.callTool({ name: "search", arguments: { query: "retry budget", limit: 3 } });
out.context = await client.callTool({ name: "context", arguments: { query: "disk full", budget: 200 } });
out.query = await client.callTool({ name: "query", arguments: { expr: "kind:adr" } });
out.status = await client.callTool({ name: "status", arguments: {} });
out.fields = await client.callTool({ name: "fields", arguments: {} });
// A section as a resource a host can attach.
out.templates = (await client.listResourceTemplates()).resourceTemplates;
out.resource = await client.readResource({ uri: "docir:///runbooks/disk-full#mitigate" });
// As the Inspector's form sends it: doc_ids as an array, limit as a number.
out.inspectorGet = await client.callTool({ name: "get", arguments: { doc_ids: ["runbooks/disk-full"] } });
// Errors of the call are tool errors, not protocol errors.
out.malformed = await client.callTool({ name: "get", arguments: { doc_ids: ["runbooks/disk-full", "a b"] } });
out.notFound = await client.callTool({ name: "get", arguments: { doc_id: "nope" } });

if (out.tools.some((t) => t.name === "read_batch")) {
  const generation = out.status.structuredContent.generation;
  out.readBatch = await client.callTool({
    name: "read_batch",
    arguments: {
      image_revision: generation,
      batch: {
        frames: [
          JSON.stringify({ jsonrpc: "2.0", id: 1, method: "docir/get", params: { doc_id: "runbooks/disk-full#Mitigate" } }),
          JSON.stringify({ jsonrpc: "2.0", id: 2, method: "docir/search", params: { query: "retry budget", limit: 2 } }),
          "not json",
        ],
      },
    },
  });
}

// Every call answered, whatever its size (issue 25): each waits 15 s at
// most, so that a reply that never comes fails here rather than at the
// SDK's 60 s timeout.
const quick = { timeout: 15000 };
const addrs = (n, len) => Array.from({ length: n }, (_, i) => `runbooks/disk-full#${"h".repeat(len)}-${i}`);
const caught = async (f) => {
  try {
    return { answered: await f() };
  } catch (e) {
    return { code: e.code, message: String(e.message) };
  }
};
// A 100 KB call (250 addresses, over the 64 a get takes): a tool error.
out.call100k = { bytes: JSON.stringify({ doc_ids: addrs(250, 380) }).length };
out.call100k.reply = await caught(() => client.callTool({ name: "get", arguments: { doc_ids: addrs(250, 380) } }, undefined, quick));
// The most a get takes, 64 addresses of 740 bytes: served.
out.call50k = await caught(() => client.callTool({ name: "get", arguments: { doc_ids: addrs(64, 740) } }, undefined, quick));
// Over the 1 MiB bound, the id written last as this SDK writes it.
out.call2m = await caught(() => client.callTool({ name: "search", arguments: { query: "q ".repeat(1 << 20) } }, undefined, quick));
// A control character in a resource URI (issue 28.9), then the session goes on.
out.controlURI = await caught(() => client.readResource({ uri: "docir:///\u0000" }, quick));
out.pingAfter = await caught(() => client.ping(quick));
if (server) {
  const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...httpAuth };
  const raw = async (body, sid) => {
    const r = await fetch(httpURL, { method: "POST", headers: sid ? { ...headers, "Mcp-Session-Id": sid } : headers, body });
    return { status: r.status, body: await r.text() };
  };
  out.noSession = await raw(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/list" }));
  out.bigID = await raw('{"jsonrpc":"2.0","id":12345678901234567890,"method":"tools/list"}', transport.sessionId);
}

await client.close();
if (server) {
  const exited = new Promise((resolve) => server.on("exit", resolve));
  if (server.exitCode === null) server.kill("SIGTERM");
  await exited;
}
process.stdout.write(JSON.stringify(out) + "\n");
