#!/usr/bin/env python3
"""Every public symbol of a module has a doc comment: a check over its symbol graphs.

Usage: check_doc_coverage.py SYMBOL_GRAPH_DIR [--module Strata] [--sources Sources/Strata]

Reads MODULE.symbols.json and the extension graphs MODULE@Other.symbols.json (members Strata
adds to Swift's and Foundation's types) that swift-symbolgraph-extract wrote with
`-minimum-access-level public`, and lists every public or open symbol declared in SOURCES that
has no doc comment. Exit 1 when there is one; the last line is the figure.

Which symbols count, and why:
- Only symbols with a source location under SOURCES: those are the declarations we wrote.
  A symbol without a location is one the compiler or the symbol graph made up for us: the
  Hashable/Equatable/RawRepresentable members synthesized for enums (`hashValue`,
  `hash(into:)`, `init(rawValue:)`), and the default implementations of other modules'
  protocol extensions listed on our types (`Sequence.filter(_:)` on a collection of ours,
  `Data.formatted(_:)` in an extension graph). Their documentation, if any, belongs to the
  module that declares them; DocC shows them under "Default Implementations".
- A declaration of ours whose doc comment is inherited counts as documented: when an
  implementation of a protocol requirement has no comment of its own (`description`,
  `==`, `hash(into:)`, `startIndex`), swift-symbolgraph-extract gives it the requirement's
  comment (the graph marks it with the requirement's module) and DocC shows that text. The
  requirement says what the member does; a comment of ours is welcome where the
  implementation has more to say (ManagedObject's `==` is identity, for instance).
- Extension blocks (`swift.extension`, emitted with `-emit-extension-block-symbols` for
  extensions of other modules' types such as `extension Int: AttributeValueConvertible`) are
  not declarations of their own: DocC lists them as the extended type's page under "Extended
  Modules", with the members and conformances they add, and those members are checked here.
- Symbols below `public` (package, internal) are not in the graphs at all.
"""
import argparse, glob, json, os, sys

ap = argparse.ArgumentParser()
ap.add_argument("graph_dir")
ap.add_argument("--module", default="Strata")
ap.add_argument("--sources", default="Sources/Strata")
a = ap.parse_args()

paths = sorted(glob.glob(os.path.join(a.graph_dir, f"{a.module}.symbols.json")) +
               glob.glob(os.path.join(a.graph_dir, f"{a.module}@*.symbols.json")))
if not any(p.endswith(f"/{a.module}.symbols.json") for p in paths):
    sys.exit(f"check_doc_coverage: no {a.module}.symbols.json in {a.graph_dir}")

sources = "/" + a.sources.strip("/") + "/"
checked, missing = 0, []
for path in paths:
    with open(path) as f:
        graph = json.load(f)
    for symbol in graph["symbols"]:
        if symbol.get("accessLevel") not in ("public", "open"):
            continue
        if symbol["kind"]["identifier"] == "swift.extension":
            continue
        location = symbol.get("location")
        if not location or sources not in location.get("uri", ""):
            continue
        checked += 1
        comment = symbol.get("docComment") or {}
        text = "".join(line.get("text", "") for line in comment.get("lines", [])).strip()
        if not text:
            file = location["uri"].split(sources, 1)[1]
            line = location.get("position", {}).get("line", 0) + 1
            name = ".".join(symbol["pathComponents"])
            missing.append(f"{a.sources.rstrip('/')}/{file}:{line}: {symbol['kind']['displayName'].lower()} {name}")

for entry in sorted(set(missing)):
    print(f"undocumented: {entry}")
print(f"doc coverage: {checked - len(set(missing))} of {checked} public symbols of {a.module} documented")
sys.exit(1 if missing else 0)
