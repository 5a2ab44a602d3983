#!/usr/bin/env python3
"""Copy the forge fixtures the fakes and the e2e tests need into the repository.

Usage: tools/trim-forge-fixtures.py SHARED_FORGE_FIXTURES OUT_DIR

The webhook payloads are copied as they are. Each API description keeps whole only the
operations a fake in internal/forge/forgetest serves (read from its route tables) and the
definitions those operations reach through $ref; every other operation is kept as a bare
name (a fake answers it 501, "not implemented", as with the full description), so the copy is small enough to commit
and the fakes check requests against the same schemas as with the full description.
"""
import json
import os
import re
import shutil
import sys

SPECS = {
    "github-api.github.com.2022-06.json": "github.go",
    "gitea-swagger.json": "gitea.go",
    "forgejo-swagger.json": "gitea.go",
}
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "internal", "forge", "forgetest")
ROUTE = re.compile(r'^\s*"(GET|POST|PATCH|PUT|DELETE) (/[^"]*)":', re.M)


def routes(go_file):
    with open(os.path.join(HERE, go_file)) as f:
        return {(m.group(1).lower(), m.group(2)) for m in ROUTE.finditer(f.read())}


def refs(node, out):
    if isinstance(node, dict):
        r = node.get("$ref")
        if isinstance(r, str) and r.startswith("#/"):
            out.add(r)
        for v in node.values():
            refs(v, out)
    elif isinstance(node, list):
        for v in node:
            refs(v, out)


def lookup(doc, ref):
    node = doc
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def trim(doc, wanted):
    paths = {}
    for tmpl, item in doc["paths"].items():
        if any((k, tmpl) in wanted for k in item):
            # path-level parameters, routed operations whole, the others as bare names
            paths[tmpl] = {k: v if k == "parameters" or (k, tmpl) in wanted else {} for k, v in item.items()}
        else:
            # an operation the fakes do not serve still exists: they answer it 501
            paths[tmpl] = {k: {} for k in item if k != "parameters" and not k.startswith("$")}
    missing = wanted - {(m, t) for t, item in paths.items() for m, op in item.items() if m != "parameters" and op}
    if missing:
        sys.exit(f"routes not in the API description: {sorted(missing)}")
    seen, todo = set(), set()
    refs(paths, todo)
    while todo:
        r = todo.pop()
        if r not in seen:
            seen.add(r)
            refs(lookup(doc, r), todo)
    out = {k: v for k, v in doc.items() if k not in ("paths", "components", "definitions", "parameters", "responses")}
    out["paths"] = paths
    for r in sorted(seen):
        parts = r[2:].split("/")
        node, src = out, doc
        for p in parts[:-1]:
            node = node.setdefault(p, {})
            src = src[p]
        node[parts[-1]] = src[parts[-1]]
    return out


def main():
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(os.path.join(out, "api-specs"), exist_ok=True)
    for spec, go_file in SPECS.items():
        with open(os.path.join(src, "api-specs", spec)) as f:
            doc = json.load(f)
        with open(os.path.join(out, "api-specs", spec), "w") as f:
            json.dump(trim(doc, routes(go_file)), f, indent=1, sort_keys=True)
            f.write("\n")
    for forge in ("github", "gitea", "forgejo"):
        dst = os.path.join(out, forge, "webhooks")
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(os.path.join(src, forge, "webhooks"), dst)


main()
