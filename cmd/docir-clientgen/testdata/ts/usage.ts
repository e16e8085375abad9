// usage.ts is compiled with tsc --strict beside the generated docir.ts and
// run with node: the types must be usable as a client would use them (and
// refuse misuse, see @ts-expect-error), and the builders and decoders must
// check what they build and decode.
import {
  decodeDocirGet,
  decodeDocirSearch,
  decodeRow,
  decodeWorkspaceReadBatch,
  docirGet,
  docirSearch,
  readBatch,
  SchemaError,
  workspaceStatus,
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
console.log("ok");
