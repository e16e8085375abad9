"""Drives a live `docir serve` with the generated Python client (standard
library only): builds request frames with its builders, decodes each reply
with its decoders, binds, replays the receipt and pins every read by it
and by its generation, and, in batch mode, sends the 16 frames as one
workspace/read-batch and checks every row against the frame sent alone.

usage: live.py MODE DOCIR CORPUS POLICY CLIENTS
  MODE    frames (each frame alone) or batch (the read batch)
Exits 0 and prints "ok" when every check holds; 1 otherwise."""

import subprocess
import sys

mode, docir, corpus, policy, clients = sys.argv[1:6]
sys.path.insert(0, clients)
import docir_client as dc  # noqa: E402


def fail(msg):
    print(msg)
    sys.exit(1)


server = subprocess.Popen([docir, "serve", "--policy", policy], cwd=corpus,
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8")


def call(frame):
    server.stdin.write(frame + "\n")
    server.stdin.flush()
    line = server.stdout.readline()
    if not line:
        fail(f"no reply to {frame}")
    return line


try:
    status = dc.decode_workspace_status(call(dc.workspace_status(1)))
    if not status.ok:
        fail(f"status: {status.error}")
    generation = status.result["generation"]
    discover = dc.decode_workspace_discover(call(dc.workspace_discover(2, {})))
    if not discover.ok or "workspace/read-batch" not in discover.result["methods"] or discover.result.get("read_batch_workers") != 2:
        fail(f"discover: {discover}")

    # 16 frames from the generated builders, each with its decoder.
    calls = [
        (dc.docir_get(10, {"doc_id": "runbooks/disk-full#Mitigate"}), dc.decode_docir_get),
        (dc.docir_get(11, {"doc_id": "guides/检索"}), dc.decode_docir_get),
        (dc.docir_get(12, {"doc_id": "adr/0001-record-architecture-decisions"}), dc.decode_docir_get),
        (dc.docir_get(13, {"doc_id": "nope"}), dc.decode_docir_get),
        (dc.docir_get("14", {"doc_ids": ["runbooks/disk-full", "runbooks/disk-full#nope", "nope"]}), dc.decode_docir_get),
        (dc.docir_get("15", {"doc_ids": []}), dc.decode_docir_get),
        (dc.docir_search(16, {"query": "retry budget", "limit": 3}), dc.decode_docir_search),
        (dc.docir_search(17, {"query": "disk"}), dc.decode_docir_search),
        (dc.docir_search(18, {"query": "zzzqqq"}), dc.decode_docir_search),
        (dc.docir_query(19, {"expr": "kind:adr", "sort": "-id"}), dc.decode_docir_query),
        (dc.docir_query(20, {"expr": "kind:"}), dc.decode_docir_query),
        (dc.docir_context(21, {"query": "disk full", "budget": 100, "limit": 2}), dc.decode_docir_context),
        (dc.docir_context(22, {"query": "retry"}), dc.decode_docir_context),
        (dc.workspace_status(23), dc.decode_workspace_status),
        (dc.workspace_discover(24), dc.decode_workspace_discover),
        (dc.docir_get(25, {"doc_id": "runbooks/disk-full"}), dc.decode_docir_get),
    ]
    assert len(calls) == dc.MAX_BATCH_FRAMES
    alone = []
    for frame, decode in calls:
        line = call(frame)
        reply = decode(line)  # raises SchemaError when the reply is not as published
        alone.append(line)
    # Replies that must be errors are; the rest are results.
    errors = {13: "not_found", 20: "invalid_query"}
    for (frame, _), line in zip(calls, alone):
        rid = int(dc.json.loads(frame)["id"])
        reply = dc.json.loads(line)
        want = errors.get(rid)
        got = reply.get("error", {}).get("data", {}).get("code")
        if got != want:
            fail(f"frame {frame}: error code {got}; want {want}")

    # The builders refuse what the server would.
    for bad in (lambda: dc.docir_search(1, {"query": "x", "limit": 1001}),
                lambda: dc.docir_get(1, {"doc_id": "a", "doc_ids": []}),
                lambda: dc.read_batch(1, generation, [calls[0][0]] * 17),
                lambda: dc.read_batch(1, 0, [calls[0][0]])):
        try:
            bad()
        except dc.SchemaError:
            continue
        fail("a builder accepted params past a bound")

    # Bindings: bind, replay the receipt, and every read pinned by it
    # (binding) and by its generation (image_revision) answers exactly as
    # it does unpinned.
    # (ttl "0": no hold, so that a replay answers the same binding.)
    bound = dc.decode_workspace_bind(call(dc.workspace_bind(50, {"ttl": "0"})))
    if not bound.ok or bound.result["revision"] != generation or not bound.result["current"]:
        fail(f"bind: {bound}")
    receipt = bound.result["receipt"]
    again = dc.decode_workspace_bind(call(dc.workspace_bind(51, {"workspace": bound.result["workspace"], "revision": generation, "ttl": "0"})))
    if not again.ok or again.result != bound.result:
        fail(f"a select of the bound generation: {again}")
    for require in (False, True):
        replayed = dc.decode_workspace_replay(call(dc.workspace_replay(52, {"receipt": receipt, "require_current": require})))
        if not replayed.ok or replayed.result != bound.result:
            fail(f"replay: {replayed}")
    edited = receipt.replace(bound.result["digest"], "0" * 64)
    rejected = dc.decode_workspace_replay(call(dc.workspace_replay(53, {"receipt": edited})))
    if rejected.ok or rejected.error["data"]["code"] != "binding_rejected":
        fail(f"an edited receipt: {rejected}")
    reads = [
        (dc.docir_get, {"doc_id": "runbooks/disk-full#Mitigate"}, dc.decode_docir_get),
        (dc.docir_get, {"doc_ids": ["adr/0001-record-architecture-decisio"]}, dc.decode_docir_get),
        (dc.docir_search, {"query": "disk", "limit": 3}, dc.decode_docir_search),
        (dc.docir_query, {"expr": "kind:adr", "sort": "-id"}, dc.decode_docir_query),
        (dc.docir_context, {"query": "disk full", "budget": 200}, dc.decode_docir_context),
        (dc.workspace_status, {}, dc.decode_workspace_status),
    ]
    for build, params, decode in reads:
        want = decode(call(build(60, params)))
        if not want.ok:
            fail(f"{params}: {want.error}")
        for pin in ({"binding": receipt}, {"image_revision": generation}):
            got = decode(call(build(61, {**params, **pin})))
            if got != dc.Reply(id=61, result=want.result):
                fail(f"{params} pinned by {list(pin)}: {got}; want {want}")
        stale = decode(call(build(62, {**params, "image_revision": generation + 1000})))
        if stale.ok or stale.error["data"]["code"] != "stale_revision":
            fail(f"{params} pinned past the retained: {stale}")
    suggested = dc.decode_docir_get(call(dc.docir_get(63, {"doc_ids": ["adr/0001-record-architecture-decisio"]})))
    if "adr/0001-record-architecture-decisions" not in suggested.result["missing"][0].get("suggestions", []):
        fail(f"a near miss without a suggestion: {suggested}")
    refreshed = dc.decode_workspace_refresh(call(dc.workspace_refresh(64)))
    if not refreshed.ok or refreshed.result.get("ignored") != 1 or refreshed.result.get("warning_counts") != {"binary": 1}:
        fail(f"refresh: {refreshed}")
    for bad in (lambda: dc.docir_search(1, {"query": "x", "image_revision": generation, "binding": receipt}),
                lambda: dc.workspace_status(1, {"image_revision": 0}),
                lambda: dc.docir_get(1, {"doc_id": "a", "binding": ""}),
                lambda: dc.workspace_bind(1, {"workspace": bound.result["workspace"]}),
                lambda: dc.workspace_bind(1, {"revision": generation}),
                lambda: dc.workspace_replay(1, {"require_current": True})):
        try:
            bad()
        except dc.SchemaError:
            continue
        fail("a builder accepted two selectors, a zero selector, a half select or no receipt")
    try:
        dc.decode_workspace_refresh('{"jsonrpc":"2.0","id":1,"result":' + dc.json.dumps({**refreshed.result, "warning_counts": {"binary": "1"}}) + "}")
        fail("the refresh decoder accepted a warning count that is no integer")
    except dc.SchemaError:
        pass

    if mode == "batch":
        frames = [frame for frame, _ in calls]
        reply = dc.decode_workspace_read_batch(call(dc.read_batch(99, generation, frames)))
        if not reply.ok:
            fail(f"read-batch: {reply.error}")
        rows = reply.result["responses"]
        if len(rows) != len(calls):
            fail(f"{len(rows)} rows for {len(calls)} frames")
        for i, ((frame, decode), row) in enumerate(zip(calls, rows)):
            decoded = dc.decode_row(row, decode)
            if decoded is None or row != alone[i]:
                fail(f"row {i} differs from the frame sent alone:\n got {row!r}\nwant {alone[i]!r}")
    elif mode != "frames":
        fail(f"unknown mode {mode}")
    print("ok")
finally:
    server.stdin.close()
    server.wait(timeout=60)
