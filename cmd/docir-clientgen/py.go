package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// pyGen collects the TypedDict classes of a Python module; nested objects
// become classes of their own, named after their parent and property.
type pyGen struct {
	classes strings.Builder
}

func pyLiteral(raw json.RawMessage) string {
	var v any
	json.Unmarshal(raw, &v)
	switch v := v.(type) {
	case bool:
		if v {
			return "True"
		}
		return "False"
	case nil:
		return "None"
	}
	return string(raw) // strings and numbers read the same
}

// typ is the Python annotation of s; name is the class name a nested object
// would take.
func (g *pyGen) typ(s *Schema, name string) string {
	switch {
	case s.Ref != "":
		return RefName(s.Ref)
	case s.Const != nil:
		return "Literal[" + pyLiteral(s.Const) + "]"
	case s.Enum != nil:
		var parts []string
		for _, e := range s.Enum {
			parts = append(parts, pyLiteral(e))
		}
		return "Literal[" + strings.Join(parts, ", ") + "]"
	case s.Type == nil && s.OneOf != nil:
		var parts []string
		for i, o := range s.OneOf {
			parts = append(parts, g.typ(o, fmt.Sprintf("%s%d", name, i)))
		}
		return "Union[" + strings.Join(parts, ", ") + "]"
	}
	var parts []string
	for _, t := range s.Types() {
		switch t {
		case "string":
			parts = append(parts, "str")
		case "boolean":
			parts = append(parts, "bool")
		case "null":
			parts = append(parts, "None")
		case "integer":
			parts = append(parts, "int")
		case "number":
			parts = append(parts, "float")
		case "array":
			parts = append(parts, "List["+g.typ(s.Items, name+"Item")+"]")
		case "object":
			if len(s.order) == 0 && s.AdditionalProperties != nil && s.AdditionalProperties.Values != nil {
				parts = append(parts, "Dict[str, "+g.typ(s.AdditionalProperties.Values, name+"Value")+"]")
			} else if len(s.order) == 0 {
				parts = append(parts, "Dict[str, Any]")
			} else {
				g.class(name, s)
				parts = append(parts, name)
			}
		}
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "Union[" + strings.Join(parts, ", ") + "]"
}

// pyKeywords are Python's reserved words: a member named like one (a
// link's "from") cannot be a field of a class-syntax TypedDict.
var pyKeywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true, "await": true,
	"break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true, "else": true, "except": true,
	"finally": true, "for": true, "from": true, "global": true, "if": true, "import": true, "in": true, "is": true,
	"lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true, "raise": true, "return": true, "try": true,
	"while": true, "with": true, "yield": true,
}

// class writes a TypedDict for an object schema (nested ones first): in
// class syntax, or in the functional syntax when a member is named like a
// Python keyword.
func (g *pyGen) class(name string, s *Schema) {
	for _, p := range s.order {
		if pyKeywords[p] {
			g.functionalClass(name, s)
			return
		}
	}
	var body strings.Builder
	for _, p := range s.order {
		t := g.typ(s.Properties[p], name+Pascal(p))
		if !s.IsRequired(p) {
			t = "NotRequired[" + t + "]"
		}
		fmt.Fprintf(&body, "    %s: %s\n", p, t)
		if d := s.Properties[p].Description; d != "" {
			fmt.Fprintf(&body, "    %q\n", d)
		}
	}
	fmt.Fprintf(&g.classes, "\nclass %s(TypedDict):\n", name)
	if s.Description != "" {
		fmt.Fprintf(&g.classes, "    %q\n\n", s.Description)
	}
	g.classes.WriteString(body.String())
	g.classes.WriteString("\n")
}

// functionalClass writes a TypedDict for an object schema in the
// functional syntax, descriptions as comments.
func (g *pyGen) functionalClass(name string, s *Schema) {
	var body strings.Builder
	for _, p := range s.order {
		t := g.typ(s.Properties[p], name+Pascal(p))
		if !s.IsRequired(p) {
			t = "NotRequired[" + t + "]"
		}
		if d := s.Properties[p].Description; d != "" {
			fmt.Fprintf(&body, "    # %s\n", strings.ReplaceAll(d, "\n", " "))
		}
		fmt.Fprintf(&body, "    %q: %s,\n", p, t)
	}
	g.classes.WriteString("\n")
	if s.Description != "" {
		fmt.Fprintf(&g.classes, "# %s\n", strings.ReplaceAll(s.Description, "\n", " "))
	}
	fmt.Fprintf(&g.classes, "%s = TypedDict(%q, {\n%s})\n\n", name, name, body.String())
}

func (g *pyGen) decl(name string, s *Schema) {
	if s.Ref == "" && len(s.Types()) == 1 && s.Types()[0] == "object" && len(s.order) > 0 {
		g.class(name, s)
		return
	}
	// An object that may also be something else (params that may be null)
	// gets a class of its own name, so that the alias does not rebind it.
	t := g.typ(s, name+"Object")
	fmt.Fprintf(&g.classes, "\n%s = %s\n", name, t)
	if s.Description != "" {
		fmt.Fprintf(&g.classes, "%q\n", s.Description)
	}
	g.classes.WriteString("\n")
}

// Python writes docs/clients/docir_client.py.
func Python(set *Set) []byte {
	g := &pyGen{}
	for _, name := range set.DefNames {
		g.decl(name, set.Defs.Defs[name])
	}
	for _, m := range set.Methods {
		g.decl(Pascal(m.Method)+"Params", m.ParamsSchema)
		g.decl(Pascal(m.Method)+"Result", m.ResultSchema)
	}
	var b strings.Builder
	b.WriteString(`# Code generated by docir-clientgen from docs/schemas; DO NOT EDIT.
"""Request frames and reply decoders for ` + "`docir serve`" + `, checked against the
published schemas (docs/schemas). Standard library only (Python 3.11 or later);
no I/O: write each frame followed by "\n" to the server and hand each reply
line to the decoder of the method that was called."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, Generic, List, Literal, NotRequired, Optional, TypedDict, TypeVar, Union

Id = Union[str, int]
"""A request id: a string or a number."""

T = TypeVar("T")

`)
	b.WriteString(strings.TrimLeft(g.classes.String(), "\n"))
	fmt.Fprintf(&b, "\n_SCHEMAS: Dict[str, Any] = json.loads(%s)\n", pyString(string(runtimeSchemas(set))))
	b.WriteString(pyRuntime)
	for _, m := range set.Methods {
		name, typ := Snake(m.Method), Pascal(m.Method)
		if m.ParamsOptional() {
			fmt.Fprintf(&b, "\n\ndef %s(id: Id, params: Optional[%sParams] = None) -> str:\n", name, typ)
		} else {
			fmt.Fprintf(&b, "\n\ndef %s(id: Id, params: %sParams) -> str:\n", name, typ)
		}
		fmt.Fprintf(&b, "    \"\"\"The request frame of %s (no line ending).\"\"\"\n    return request(%q, id, params)\n", m.Method, m.Method)
		fmt.Fprintf(&b, "\n\ndef decode_%s(line: Union[str, bytes]) -> Reply[%sResult]:\n", name, typ)
		fmt.Fprintf(&b, "    \"\"\"Decodes a reply line of %s; raises SchemaError when it is not one.\"\"\"\n    return decode(%q, line)\n", m.Method, m.Method)
	}
	return []byte(b.String())
}

// pyString quotes s as a Python string literal (JSON's escapes are Python's).
func pyString(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

const pyRuntime = `

class SchemaError(ValueError):
    """A frame or reply that does not match its schema."""


class RpcError(TypedDict):
    """A JSON-RPC error: the number, a message for people, docir's stable code."""

    code: int
    message: str
    data: NotRequired[Dict[str, str]]


@dataclass(frozen=True)
class Reply(Generic[T]):
    """A decoded reply: result when ok, else error."""

    id: Optional[Id]
    result: Optional[T] = None
    error: Optional[RpcError] = None

    @property
    def ok(self) -> bool:
        return self.error is None


METHODS = tuple(_SCHEMAS["methods"])
"""The methods the schemas describe."""

MAX_BATCH_FRAMES = 16
"""The most frames one workspace/read-batch holds."""


def _has_type(t: str, v: Any) -> bool:
    if t == "null":
        return v is None
    if t == "boolean":
        return isinstance(v, bool)
    if t == "string":
        return isinstance(v, str)
    if t == "integer":
        return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if t == "array":
        return isinstance(v, list)
    if t == "object":
        return isinstance(v, dict)
    return False


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True) and type(a) is type(b)


def _check(s: Dict[str, Any], v: Any, path: str, errs: List[str]) -> None:
    if "$ref" in s:
        name = s["$ref"].split("#/$defs/", 1)[1]
        _check(_SCHEMAS["defs"][name], v, path, errs)
    if "oneOf" in s:
        n = 0
        for o in s["oneOf"]:
            e: List[str] = []
            _check(o, v, path, e)
            n += not e
        if n != 1:
            errs.append(f"{path}: matches {n} of the {len(s['oneOf'])} alternatives; want exactly one")
    if "not" in s:
        e: List[str] = []
        _check(s["not"], v, path, e)
        if not e:
            errs.append(f"{path}: matches what it must not ({json.dumps(s['not'])})")
    if "type" in s:
        types = [s["type"]] if isinstance(s["type"], str) else s["type"]
        if not any(_has_type(t, v) for t in types):
            errs.append(f"{path}: want {' or '.join(types)}, got {json.dumps(v)[:80]}")
            return
    if "const" in s and not _same(s["const"], v):
        errs.append(f"{path}: want {json.dumps(s['const'])}")
    if "enum" in s and not any(_same(e, v) for e in s["enum"]):
        errs.append(f"{path}: want one of {json.dumps(s['enum'])}")
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        if "minimum" in s and v < s["minimum"]:
            errs.append(f"{path}: below the minimum {s['minimum']}")
        if "maximum" in s and v > s["maximum"]:
            errs.append(f"{path}: above the maximum {s['maximum']}")
    if isinstance(v, str):
        if "minLength" in s and len(v) < s["minLength"]:
            errs.append(f"{path}: shorter than {s['minLength']}")
        if "maxLength" in s and len(v) > s["maxLength"]:
            errs.append(f"{path}: longer than {s['maxLength']}")
        if "pattern" in s and not re.search(s["pattern"], v):
            errs.append(f"{path}: does not match {s['pattern']}")
    if isinstance(v, list):
        if "minItems" in s and len(v) < s["minItems"]:
            errs.append(f"{path}: fewer than {s['minItems']} items")
        if "maxItems" in s and len(v) > s["maxItems"]:
            errs.append(f"{path}: more than {s['maxItems']} items")
        if "items" in s:
            for i, item in enumerate(v):
                _check(s["items"], item, f"{path}[{i}]", errs)
    if isinstance(v, dict):
        for name in s.get("required", []):
            if name not in v:
                errs.append(f"{path}: no {json.dumps(name)}")
        props = s.get("properties", {})
        for name, value in v.items():
            if name in props:
                _check(props[name], value, f"{path}.{name}", errs)
            elif s.get("additionalProperties") is False:
                errs.append(f"{path}: unknown member {json.dumps(name)}")
            elif isinstance(s.get("additionalProperties"), dict):
                _check(s["additionalProperties"], value, f"{path}.{name}", errs)


def _must_match(s: Dict[str, Any], v: Any, what: str) -> None:
    errs: List[str] = []
    _check(s, v, "$", errs)
    if errs:
        raise SchemaError(f"{what}: {'; '.join(errs)}")


def _method(method: str) -> Dict[str, Any]:
    try:
        return _SCHEMAS["methods"][method]
    except KeyError:
        raise SchemaError(f"unknown method {method!r}") from None


def request(method: str, id: Id, params: Any = None) -> str:
    """Builds the request frame of any described method, params checked
    against its schema; None params are left out of the frame."""
    if isinstance(id, bool) or not isinstance(id, (str, int)):
        raise SchemaError(f"{method}: id must be a string or an integer, not {id!r}")
    frame: Dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        _must_match(_method(method)["params"], params, f"{method} params")
        frame["params"] = params
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))


def decode(method: str, line: Union[str, bytes]) -> Reply[Any]:
    """Decodes a reply line of method: the envelope, then the result against its schema."""
    schemas = _method(method)
    try:
        v = json.loads(line)
    except ValueError as e:
        raise SchemaError(f"{method} reply: not JSON: {e}") from None
    if not isinstance(v, dict) or v.get("jsonrpc") != "2.0":
        raise SchemaError(f"{method} reply: not a JSON-RPC 2.0 reply object")
    rid = v.get("id")
    if isinstance(rid, bool) or not (rid is None or isinstance(rid, (str, int, float))):
        raise SchemaError(f"{method} reply: id {rid!r}")
    extra = set(v) - {"jsonrpc", "id", "result", "error"}
    if extra:
        raise SchemaError(f"{method} reply: unknown members {sorted(extra)}")
    if ("error" in v) == ("result" in v):
        raise SchemaError(f"{method} reply: want exactly one of result and error")
    if "error" in v:
        e = v["error"]
        if not isinstance(e, dict) or not _has_type("integer", e.get("code")) or not isinstance(e.get("message"), str):
            raise SchemaError(f"{method} reply: a malformed error")
        if "data" in e and not (isinstance(e["data"], dict) and isinstance(e["data"].get("code"), str)):
            raise SchemaError(f"{method} reply: a malformed error.data")
        return Reply(id=rid, error=e)
    _must_match(schemas["result"], v["result"], f"{method} result")
    return Reply(id=rid, result=v["result"])


def read_batch(id: Id, image_revision: int, frames: List[str]) -> str:
    """Builds a workspace/read-batch frame from 1 to 16 inner request frames."""
    return request("workspace/read-batch", id, {"image_revision": image_revision, "batch": {"frames": list(frames)}})


def decode_row(row: Optional[str], decoder: Callable[[str], Reply[T]]) -> Optional[Reply[T]]:
    """Decodes one row of a read-batch result with the decoder of the method
    its frame called; None stays None (a blank frame or a notification)."""
    return None if row is None else decoder(row)
`
