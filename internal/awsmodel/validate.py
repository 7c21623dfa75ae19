"""Check recorded AWS requests against AWS's published service models.

Reads {"requests": [...]} as JSON on stdin (each request: service, operation,
method, path (escaped), pathParams, query, body or bodyText, label) and writes
one JSON report on stdout. The models are botocore's service-2 models; the
checks are:

- the operation: the model's operation whose HTTP method and requestUri
  template match the request, which must be the one the recorder named;
- botocore.validate.ParamValidator over the input shape, with the body's
  members and the URI and query-string members taken from the path: types,
  required members, unknown members, minimum lengths and values;
- what ParamValidator leaves out, from the same shapes: maximum lengths and
  values, map sizes, enum membership and patterns (a pattern must match the
  whole value, as AWS's request validation applies it; a Java regex that
  Python's re cannot compile is skipped and reported);
- constraints that the model states only in a member's documentation
  (DOCUMENTED below): each rule quotes the sentence it rests on, and the
  rule is reported stale when the model's documentation no longer says it;
- for Batch SubmitServiceJob of type SAGEMAKER_TRAINING, the
  serviceRequestPayload as SageMaker's CreateTrainingJob input, the same way.

Exit status: 0 with a report (problems are in the report), 3 when botocore
cannot be imported, 2 when the input is unreadable.
"""

import html
import json
import re
import sys
import urllib.parse

try:
    import botocore
    import botocore.session
    from botocore.validate import ParamValidator
except ImportError as e:  # the Go side maps status 3 to "unavailable"
    print(f"botocore cannot be imported by {sys.executable}: {e}", file=sys.stderr)
    sys.exit(3)

MAX_MESSAGE = 240

session = botocore.session.get_session()
_models = {}


def model(service):
    if service not in _models:
        _models[service] = session.get_service_model(service)
    return _models[service]


def short(v, n=MAX_MESSAGE):
    s = v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))
    return s if len(s) <= n else s[: n - 3] + "..."


# --- patterns -------------------------------------------------------------

_compiled = {}
skipped = {}  # pattern -> {"pattern", "error", "shapes"}


def compiled(pattern, where):
    if pattern not in _compiled:
        try:
            _compiled[pattern] = re.compile(pattern)
        except re.error as e:
            _compiled[pattern] = None
            skipped[pattern] = {"pattern": pattern, "error": str(e), "shapes": []}
    rx = _compiled[pattern]
    if rx is None and where not in skipped[pattern]["shapes"]:
        skipped[pattern]["shapes"].append(where)
    return rx


# --- constraints ParamValidator does not check ----------------------------


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def walk(v, shape, path, out, service):
    """Report max lengths and values, map sizes, enums and patterns of v."""
    meta = shape.metadata
    t = shape.type_name
    if t == "structure":
        if getattr(shape, "is_document_type", False) or not isinstance(v, dict):
            return
        for k, sub in v.items():
            if k in shape.members:
                walk(sub, shape.members[k], f"{path}.{k}" if path else k, out, service)
    elif t == "list":
        if not isinstance(v, list):
            return
        if "max" in meta and len(v) > meta["max"]:
            out.append((path, f"{len(v)} items, over the model's maximum of {meta['max']} ({shape.name})"))
        for i, item in enumerate(v):
            walk(item, shape.member, f"{path}[{i}]", out, service)
    elif t == "map":
        if not isinstance(v, dict):
            return
        if "min" in meta and len(v) < meta["min"]:
            out.append((path, f"{len(v)} entries, under the model's minimum of {meta['min']} ({shape.name})"))
        if "max" in meta and len(v) > meta["max"]:
            out.append((path, f"{len(v)} entries, over the model's maximum of {meta['max']} ({shape.name})"))
        for k, item in v.items():
            walk(k, shape.key, f"{path} (key {k!r})", out, service)
            walk(item, shape.value, f"{path}.{k}", out, service)
    elif t == "string":
        if not isinstance(v, str):
            return
        if "max" in meta and len(v) > meta["max"]:
            out.append((path, f"{len(v)} characters, over the model's maximum of {meta['max']} ({shape.name})"))
        enum = meta.get("enum")
        if enum and v not in enum:
            shown = ", ".join(enum) if len(enum) <= 12 else ", ".join(enum[:12]) + f", ... ({len(enum)} values)"
            out.append((path, f"{short(json.dumps(v), 80)} is not one of the model's values for {shape.name}: {shown}"))
        p = meta.get("pattern")
        if p is not None:
            rx = compiled(p, f"{service}.{shape.name}")
            if rx is not None and rx.fullmatch(v) is None:
                out.append((path, f"{short(json.dumps(v), 120)} does not match the model's pattern {p} ({shape.name})"))
    elif t in ("integer", "long", "double", "float"):
        if isinstance(v, bool):
            out.append((path, f"{json.dumps(v)} is a boolean; the model wants a number ({shape.name})"))
        elif is_number(v) and "max" in meta and v > meta["max"]:
            out.append((path, f"{v} is over the model's maximum of {meta['max']} ({shape.name})"))


def param_problems(params, shape, prefix):
    out = []
    errors = ParamValidator().validate(params, shape)
    for reason, name, kw in getattr(errors, "_errors", []):
        member = name.lstrip(".")
        if reason == "missing required field":
            member = f"{member}.{kw['required_name']}".lstrip(".")
        elif reason == "unknown field":
            member = f"{member}.{kw['unknown_param']}".lstrip(".")
        out.append((member, short(errors._format_error((reason, name, kw)))))
    walk(params, shape, "", out, prefix)
    return out


# --- constraints the model states only in prose -----------------------------


def normalize(doc):
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", doc or ""))).strip()


def values_at(obj, path):
    """Values at a dotted path; "name[]" walks every item of a list."""
    vals = [obj]
    for part in path.split("."):
        each = part.endswith("[]")
        key = part[:-2] if each else part
        nxt = []
        for v in vals:
            if isinstance(v, dict) and key in v:
                if each and isinstance(v[key], list):
                    nxt.extend(v[key])
                elif not each:
                    nxt.append(v[key])
        vals = nxt
    return vals


def member_shape(shape, path):
    for part in path.split("."):
        each = part.endswith("[]")
        shape = shape.members[part[:-2] if each else part]
        if each:
            shape = shape.member
    return shape


def doc_of(shape, path):
    """Documentation of the member at path (the last member's own docs)."""
    parts = path.split(".")
    parent = member_shape(shape, ".".join(parts[:-1])) if len(parts) > 1 else shape
    last = parts[-1][:-2] if parts[-1].endswith("[]") else parts[-1]
    return normalize(parent.members[last].documentation)


def in_range(lo, hi):
    def check(v):
        if is_number(v) and not lo <= v <= hi:
            return f"{v} is outside {lo} to {hi}"
    return check


def at_most_items(n):
    def check(v):
        if isinstance(v, list) and len(v) > n:
            return f"{len(v)} items; at most {n}"
    return check


def matches(rx, what):
    def check(v):
        if isinstance(v, str) and re.fullmatch(rx, v) is None:
            return f"{short(json.dumps(v), 120)} is not {what}"
    return check


def one_of(values, what):
    def check(v):
        if isinstance(v, str) and v not in values:
            return f"{short(json.dumps(v), 80)} is not {what}"
    return check


FILTER_NAMES = ["JOB_NAME", "BEFORE_CREATED_AT", "AFTER_CREATED_AT", "SHARE_IDENTIFIER", "QUOTA_SHARE_NAME"]

# (service, operation, member path, member whose documentation states the
# rule, the words of the documentation the rule rests on, check)
DOCUMENTED = [
    ("batch", "SubmitServiceJob", "jobName", "jobName",
     ["It can be up to 128 characters long. It can contain uppercase and lowercase letters, numbers, hyphens (-), and underscores (_)."],
     matches(r"[A-Za-z0-9_-]{1,128}", "1 to 128 letters, digits, '-' or '_'")),
    ("batch", "SubmitServiceJob", "schedulingPriority", "schedulingPriority",
     ["Valid values are integers between 0 and 9999."], in_range(0, 9999)),
    ("batch", "SubmitServiceJob", "retryStrategy.attempts", "retryStrategy.attempts",
     ["You can specify between 1 and 10 attempts."], in_range(1, 10)),
    ("batch", "UpdateServiceJob", "schedulingPriority", "schedulingPriority",
     ["The minimum supported value is 0 and the maximum supported value is 9999."], in_range(0, 9999)),
    ("batch", "ListServiceJobs", "maxResults", "maxResults",
     ["This value can be between 1 and 100."], in_range(1, 100)),
    ("batch", "ListServiceJobs", "filters", "filters",
     ["Only one filter can be used at a time."], at_most_items(1)),
    ("batch", "ListServiceJobs", "filters[].name", "filters", FILTER_NAMES, one_of(FILTER_NAMES, "a filter name")),
]

_stale = {}


def documented_problems(service, operation, params):
    out = []
    for svc, op, path, doc_path, words, check in DOCUMENTED:
        if svc != service or op != operation:
            continue
        key = (svc, op, path)
        if key not in _stale:
            doc = doc_of(model(svc).operation_model(op).input_shape, doc_path)
            missing = [w for w in words if w not in doc]
            _stale[key] = (f"stale rule: the model's documentation of {op}.{doc_path} no longer says "
                           f"{' / '.join(map(repr, missing))}; re-read it and update DOCUMENTED") if missing else None
        if _stale[key]:
            out.append((path, _stale[key]))
            continue
        for v in values_at(params, path):
            msg = check(v)
            if msg:
                said = f": {words[0]!r}" if len(words) == 1 else f" names {', '.join(words)}"
                out.append((path, f"{msg} (the model's documentation of {op}.{doc_path}{said})"))
    return out


# --- operations and HTTP bindings -------------------------------------------


def template_regex(uri):
    path = uri.split("?", 1)[0]
    rx, names = "", []
    for lit, var in re.findall(r"([^{]*)(?:\{([^}]+)\})?", path):
        rx += re.escape(lit)
        if var:
            greedy = var.endswith("+")
            names.append(var.rstrip("+"))
            rx += "(.+)" if greedy else "([^/]+)"
    return re.compile(rx), names


_routes = {}


def routes(service):
    if service not in _routes:
        m = model(service)
        rs = []
        for name in m.operation_names:
            op = m.operation_model(name)
            rx, names = template_regex(op.http["requestUri"])
            rs.append((op.http["method"], rx, names, name))
        _routes[service] = rs
    return _routes[service]


def resolve(service, method, path, target=""):
    m = model(service)
    if m.metadata.get("protocol") == "json":
        # The JSON protocol: every operation is a POST to "/", named by
        # X-Amz-Target, <targetPrefix>.<operation>.
        prefix, _, op = target.rpartition(".")
        if method != "POST" or path != "/" or prefix != m.metadata.get("targetPrefix") or op not in m.operation_names:
            return None, None
        return op, {}
    for m, rx, names, name in routes(service):
        mt = rx.fullmatch(path)
        if m == method and mt:
            return name, {n: urllib.parse.unquote(v) for n, v in zip(names, mt.groups())}
    return None, None


def query_value(shape, values):
    """A query parameter's values as the member's type (lists stay lists)."""
    if shape.type_name == "list":
        return values
    v = values[0]
    if shape.type_name in ("integer", "long") and v.lstrip("-").isdigit():
        return int(v)
    if shape.type_name == "boolean" and v in ("true", "false"):
        return v == "true"
    return v


def build_params(op_model, body, uri, query, out):
    """The operation's input: the body's members, then the path's labels
    and the query string's parameters under their members' names. Header
    members are not recorded and not checked."""
    shape = op_model.input_shape
    params = {}
    if shape is None:
        if body:
            out.append(("", f"the model's {op_model.name} takes no input, but the body has {short(body)}"))
        return params
    by_location = {}
    for name, ms in shape.members.items():
        loc = ms.serialization.get("location")
        by_location[(loc, ms.serialization.get("name", name))] = name
    if not isinstance(body, dict):
        out.append(("", f"the body is {short(body, 80)}, not a JSON object"))
        body = {}
    for k, v in body.items():
        member = by_location.get((None, k))
        if member is None:
            known = sorted(n for (loc, n) in by_location if loc is None)
            out.append((k, f"{k!r} is not a body member of {op_model.name} in the model (body members: {', '.join(known)})"))
            continue
        params[member] = v
    for k, v in uri.items():
        member = by_location.get(("uri", k))
        if member is not None:
            params[member] = v
    for k, vs in (query or {}).items():
        member = by_location.get(("querystring", k))
        if member is None:
            out.append((k, f"query parameter {k!r} is not in the model's {op_model.name}"))
            continue
        params[member] = query_value(shape.members[member], vs)
    return params


# --- one request --------------------------------------------------------------


def check_request(r):
    """Returns (operation, problems, payload checked?)."""
    service = r.get("service") or "batch"
    out = []
    method, path = r.get("method") or "POST", r.get("path") or ""
    target = r.get("target") or ""
    op_name, uri = resolve(service, method, path, target)
    recorded = r.get("operation") or ""
    if op_name is None:
        where = f"{method} {path}" + (f" with X-Amz-Target {target}" if target else "")
        return recorded or where, [("", f"no {service} operation in the model is at {where}")], False
    if recorded and recorded != op_name:
        out.append(("", f"the recorder named it {recorded}, but the model's operation at {method} {path} is {op_name}"))
    given = r.get("pathParams") or {}
    if given and given != uri:
        out.append(("", f"the recorder's path parameters {given} differ from the model's URI template's {uri}"))
    if "bodyText" in r:
        out.append(("", f"the body is not JSON: {short(r['bodyText'], 120)}"))
        body = {}
    else:
        body = r.get("body")
        if body is None:
            body = {}
    op_model = model(service).operation_model(op_name)
    params = build_params(op_model, body, uri, r.get("query"), out)
    out.extend(param_problems(params, op_model.input_shape, service))
    out.extend(documented_problems(service, op_name, params))

    payload_checked = False
    if service == "batch" and op_name == "SubmitServiceJob" and params.get("serviceJobType") == "SAGEMAKER_TRAINING":
        raw = params.get("serviceRequestPayload")
        if isinstance(raw, str):
            payload_checked = True
            try:
                payload = json.loads(raw)
            except ValueError as e:
                out.append(("serviceRequestPayload", f"not JSON: {e}"))
            else:
                if not isinstance(payload, dict):
                    out.append(("serviceRequestPayload", f"{short(payload, 80)} is not a JSON object"))
                else:
                    ct = model("sagemaker").operation_model("CreateTrainingJob").input_shape
                    for member, msg in param_problems(payload, ct, "sagemaker"):
                        out.append((f"serviceRequestPayload.{member}".rstrip("."), f"{msg} [SageMaker {ct.name}]"))
    return op_name, out, payload_checked


def describe(r):
    body = r.get("body") if isinstance(r.get("body"), dict) else {}
    ident = [f"{k} {json.dumps(body[k])}" for k in ("jobName", "jobId", "jobQueue") if isinstance(body.get(k), str)]
    if not ident and r.get("pathParams"):
        ident = [f"{k} {json.dumps(v)}" for k, v in sorted(r["pathParams"].items())]
    return ", ".join(ident)


def main():
    try:
        data = json.load(sys.stdin)
        reqs = data["requests"]
    except (ValueError, KeyError, TypeError) as e:
        print(f"unreadable input: {e}", file=sys.stderr)
        sys.exit(2)
    checked, problems, seen = {}, [], {}
    payloads = 0
    for i, r in enumerate(reqs):
        key = json.dumps({k: r.get(k) for k in ("service", "operation", "target", "method", "path", "pathParams", "query", "body", "bodyText")}, sort_keys=True)
        if key in seen:
            first = seen[key]
            checked[first["operation"]] = checked.get(first["operation"], 0) + 1
            payloads += first["payload"]
            for p in first["problems"]:
                p["count"] += 1
            continue
        op, out, payload = check_request(r)
        checked[op] = checked.get(op, 0) + 1
        payloads += payload
        mine = [{"index": i, "count": 1, "operation": op, "member": m, "message": msg,
                 "label": r.get("label", ""), "request": describe(r)} for m, msg in out]
        problems.extend(mine)
        seen[key] = {"operation": op, "payload": int(payload), "problems": mine}
    report = {
        "botocore": botocore.__version__,
        "python": sys.version.split()[0],
        "checked": checked,
        "distinct": len(seen),
        "payloads": payloads,
        "problems": problems,
        "skippedPatterns": list(skipped.values()),
    }
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    main()
