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
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [docir, corpus, policy] = process.argv.slice(2);
if (!docir || !corpus) {
  console.error("usage: node client.mjs DOCIR_BINARY CORPUS_DIR");
  process.exit(2);
}

const transport = new StdioClientTransport({
  command: docir,
  args: policy ? ["serve", "--mcp", "--policy", policy] : ["serve", "--mcp"],
  cwd: corpus,
  stderr: "inherit",
});
const client = new Client({ name: "docir-mcpclient-test", version: "1.0.0" });
await client.connect(transport); // initialize + notifications/initialized

const out = {};
out.server = client.getServerVersion();
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

await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
