#!/usr/bin/env python3
"""Checks a trace written by STRATA_TRACE while the demo ran (CI: `.ci/run`).

The file must be one JSON object in Chrome's trace-event format, every event with the fields
Perfetto needs, and it must show the demo's parent/child pattern: tracks named for the
`editor`, `viewContext` and `importer` contexts, the editor's `save into parent` span, the view
context's `apply child save` and `save` spans, the importer's `merge` span, and the two arrows
(`child save pushed into parent` from the editor to the view context, `did-save merged` from the
view context to the importer), each start inside a span on its track. Exit status 1 otherwise.
Usage: check_trace.py TRACE.json
"""
import json
import sys


def main(path):
    with open(path, encoding="utf-8") as f:
        top = json.load(f)
    events = top["traceEvents"]
    for event in events:
        for field in ("name", "ph", "ts", "pid", "tid"):
            if field not in event:
                raise SystemExit(f"{path}: an event lacks '{field}': {event}")
    tracks = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}

    def track(prefix):
        found = [tid for tid, name in tracks.items() if name.startswith(prefix + " #")]
        if not found:
            raise SystemExit(f"{path}: no track for the {prefix} context (tracks: {sorted(tracks.values())})")
        return found[0]

    editor, view, importer = track("editor"), track("viewContext"), track("importer")

    def spans(name, tid):
        return [e for e in events if e["ph"] == "X" and e["tid"] == tid and e["name"] == name]

    def require_span(name, tid):
        found = spans(name, tid)
        if not found:
            raise SystemExit(f"{path}: no '{name}' span on {tracks[tid]}")
        return found

    require_span("save into parent", editor)
    require_span("apply child save", view)
    require_span("save", view)
    require_span("merge", importer)

    def inside(time, tid):
        return any(e["ts"] <= time <= e["ts"] + e.get("dur", 0) for e in events if e["ph"] == "X" and e["tid"] == tid)

    def require_flow(name, source, target):
        starts = [e for e in events if e["ph"] == "s" and e["name"] == name and e["tid"] == source]
        for start in starts:
            for finish in events:
                if finish["ph"] == "f" and finish.get("id") == start.get("id") and finish["tid"] == target:
                    if inside(start["ts"], source) and inside(finish["ts"], target):
                        return
        raise SystemExit(f"{path}: no '{name}' arrow from {tracks[source]} to {tracks[target]}")

    require_flow("child save pushed into parent", editor, view)
    require_flow("did-save merged", view, importer)
    complete = sum(1 for e in events if e["ph"] == "X")
    print(f"trace {path}: valid trace-event JSON, {len(events)} events ({complete} spans) on {len(tracks)} tracks; "
          "child save → parent and did-save → merge arrows present")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(sys.argv[1])
