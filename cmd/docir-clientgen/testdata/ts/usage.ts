// usage.ts is compiled with tsc --strict beside the generated docir.ts and
// run with node: the types must be usable as a client would use them (and
// refuse misuse, see @ts-expect-error), and the builders and decoders must
// check what they build and decode.
import {
  decodeDocirGet,
  decodeDocirSearch,
  decodeRow,
  decodeWorkspaceBind,
  decodeWorkspaceReadBatch,
  decodeWorkspaceRefresh,
  decodeWorkspaceReplay,
  docirContext,
  docirGet,
  docirQuery,
  docirSearch,
  readBatch,
  SchemaError,
  workspaceBind,
  workspaceReplay,
  workspaceEvidence,
  workspaceRefresh,
  workspaceStatus,
  type BindingResult,
  type Document,
  type GetResult,
  type Hit,
} from "./docir.js";

function expectThrow(what: string, f: () => unknown): void {
  try {
    f();
  } catch (e) {
    if (e instanceof SchemaError) return;
    throw e;
  }
  throw new Error(what + ": no SchemaError");
}

const frames: string[] = [];
frames.push(docirGet(1, { doc_id: "runbooks/disk-full#Mitigate" }));
frames.push(docirGet("two", { doc_ids: ["a", "b#x"] }));
frames.push(docirSearch(3, { query: "retry", limit: 5 }));
frames.push(workspaceStatus(4));
expectThrow("a string limit", () =>
  // @ts-expect-error: limit is a number
  docirSearch(5, { query: "x", limit: "5" }),
);
expectThrow("no query", () =>
  // @ts-expect-error: query is required
  docirSearch(6, { limit: 5 }),
);
expectThrow("limit past the bound", () => docirSearch(7, { query: "x", limit: 1001 }));
expectThrow("both doc_id and doc_ids", () => docirGet(8, { doc_id: "a", doc_ids: ["b"] }));
expectThrow("17 frames", () => readBatch(9, 1, new Array<string>(17).fill(frames[0])));

const batch = readBatch(10, 1, frames);
if (JSON.parse(batch).params.batch.frames.length !== 4) throw new Error("batch: " + batch);

const hit = decodeDocirSearch(
  '{"jsonrpc":"2.0","id":3,"result":{"query":"retry","hits":[{"id":"a","title":"A","path":"a.md","store":"local","score":1,"matched_section":"a#x"}],"total":1}}',
);
if (!hit.ok) throw new Error("search: not ok");
const first: Hit = hit.result.hits[0];
if (first.matched_section !== "a#x") throw new Error("search: " + JSON.stringify(first));
expectThrow("a body in a skeleton", () =>
  decodeDocirSearch('{"jsonrpc":"2.0","id":3,"result":{"query":"q","hits":[],"total":0,"body":"x"}}'),
);

const miss = decodeDocirGet('{"jsonrpc":"2.0","id":6,"error":{"code":-32001,"message":"nope","data":{"code":"not_found"}}}');
if (miss.ok || miss.error.data?.code !== "not_found") throw new Error("get error");

const res = decodeWorkspaceReadBatch(
  JSON.stringify({
    jsonrpc: "2.0",
    id: 10,
    result: {
      schema: "docir.read-batch.v1",
      responses: ['{"jsonrpc":"2.0","id":"two","result":{"documents":[],"missing":[]}}\n', null],
      source_authority: false,
    },
  }),
);
if (!res.ok) throw new Error("batch: not ok");
const row = decodeRow(res.result.responses[0], decodeDocirGet);
if (row === null || !row.ok) throw new Error("row");
const doc: Document | GetResult = row.result;
if (!("documents" in doc)) throw new Error("row: " + JSON.stringify(doc));
if (decodeRow(res.result.responses[1], decodeDocirGet) !== null) throw new Error("null row");
// Bindings: bind and replay frames, and every read pinned by a receipt or a
// generation, at most one of the two.
const receipt =
  '{"digest":"' + "a".repeat(64) + '","receipt":{"authority":false,"manifest_digest":"' + "b".repeat(64) + '","revision":3,"schema":"docir.workspace-binding.v1","workspace":"' + "c".repeat(32) + '"}}\n';
const bindings: string[] = [
  workspaceBind(20),
  workspaceBind(21, {}),
  workspaceBind(22, { workspace: "c".repeat(32), revision: 3 }),
  workspaceReplay(23, { receipt }),
  workspaceReplay(24, { receipt, require_current: true }),
  docirGet(25, { doc_id: "a", binding: receipt }),
  docirSearch(26, { query: "x", image_revision: 3 }),
  docirQuery(27, { expr: "kind:adr", binding: receipt }),
  docirContext(28, { query: "x", budget: 10, image_revision: 3 }),
  workspaceStatus(29, { image_revision: 3 }),
  workspaceStatus(38, null),
  workspaceBind(39, null),
];
if (JSON.parse(bindings[5]).params.binding !== receipt) throw new Error("binding: " + bindings[5]);
expectThrow("both selectors", () => docirSearch(30, { query: "x", image_revision: 3, binding: receipt }));
expectThrow("both selectors on status", () => workspaceStatus(31, { image_revision: 3, binding: receipt }));
expectThrow("image_revision 0", () => docirGet(32, { doc_id: "a", image_revision: 0 }));
expectThrow("an empty binding", () => docirGet(33, { doc_id: "a", binding: "" }));
expectThrow("workspace without revision", () => workspaceBind(34, { workspace: "c".repeat(32) }));
expectThrow("revision without workspace", () => workspaceBind(35, { revision: 3 }));
expectThrow("no receipt", () =>
  // @ts-expect-error: receipt is required
  workspaceReplay(36, { require_current: true }),
);
expectThrow("a string image_revision", () =>
  // @ts-expect-error: image_revision is a number
  docirSearch(37, { query: "x", image_revision: "3" }),
);
const bound = decodeWorkspaceBind(
  JSON.stringify({
    jsonrpc: "2.0",
    id: 20,
    result: {
      receipt,
      digest: "a".repeat(64),
      workspace: "c".repeat(32),
      revision: 3,
      manifest_digest: "b".repeat(64),
      current: true,
      hold: { binds: 1, created: "2030-01-01T00:00:00Z", expires: "2030-01-02T00:00:00Z" },
    },
  }),
);
if (!bound.ok) throw new Error("bind: not ok");
const b: BindingResult = bound.result;
if (b.revision !== 3 || !b.current || b.hold?.binds !== 1) throw new Error("bind: " + JSON.stringify(b));
expectThrow("a hold of 0 binds", () =>
  decodeWorkspaceBind(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 21,
      result: { ...b, hold: { binds: 0, created: "2030-01-01T00:00:00Z", expires: "2030-01-02T00:00:00Z" } },
    }),
  ),
);
const unheld = decodeWorkspaceBind(JSON.stringify({ jsonrpc: "2.0", id: 22, result: { ...b, hold: null } }));
if (!unheld.ok || unheld.result.hold !== null) throw new Error("bind without a hold: " + JSON.stringify(unheld));
expectThrow("a binding result without current", () =>
  decodeWorkspaceReplay(
    JSON.stringify({ jsonrpc: "2.0", id: 23, result: { receipt, digest: "a".repeat(64), workspace: "c".repeat(32), revision: 3, manifest_digest: "b".repeat(64) } }),
  ),
);
const summary = (counts: unknown) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 40,
    result: { added: 0, changed: 0, removed: 0, unchanged: 1, documents: 1, generation: 1, published: false, seconds: 0, warnings: ["x"], ignored: 2, warning_counts: counts },
  });
const refreshed = decodeWorkspaceRefresh(summary({ binary: 1 }));
if (!refreshed.ok || refreshed.result.warning_counts?.["binary"] !== 1) throw new Error("refresh: " + JSON.stringify(refreshed));
expectThrow("a warning count that is no number", () => decodeWorkspaceRefresh(summary({ binary: "1" })));
// A read under a binding, attested: its params are the read's own, as a
// client writes them (they once typed as Record<string, never>, which no
// real call compiles against).
const attested = workspaceEvidence(41, { binding: receipt, method: "docir/get", params: { doc_ids: ["a", "b#x"] } });
if (JSON.parse(attested).params.params.doc_ids[1] !== "b#x") throw new Error("evidence: " + attested);
workspaceEvidence(42, { binding: receipt, method: "docir/search", params: { query: "retry budget", limit: 3 } });
workspaceEvidence(43, { binding: receipt, method: "workspace/status" });
workspaceEvidence(44, { binding: receipt, method: "docir/context", params: null });
expectThrow("a method that is not a read", () =>
  // @ts-expect-error: evidence attests reads only
  workspaceEvidence(45, { binding: receipt, method: "workspace/refresh", params: {} }),
);
expectThrow("no binding", () =>
  // @ts-expect-error: binding is required
  workspaceEvidence(46, { method: "docir/get", params: { doc_id: "a" } }),
);
// Params that take no members take none.
workspaceRefresh(47, {});
expectThrow("a member refresh does not take", () =>
  // @ts-expect-error: workspace/refresh takes no members
  workspaceRefresh(48, { force: true }),
);
console.log("ok");
