#!/usr/bin/env python3
"""Type-checks the Swift code blocks of the DocC articles against the built Strata module.

Usage: check_doc_snippets.py CATALOG_DIR MODULES_DIR [-I DIR ...]

Each article (CATALOG_DIR/*.md) becomes one Swift file, type-checked in Swift 6 mode with
`swiftc -typecheck` against the Strata module in MODULES_DIR, so an example that names an API
that does not exist (or uses it with the wrong types, or breaks a Sendable rule) fails
`make docs`. Exit 1 when an article does not type-check; the compiler's messages point at the
generated file, whose comments name the article and the block's line.

How blocks become Swift:
- Only fenced blocks tagged `swift` count. A block whose first line is `// Core Data` (the code
  a port starts from) is skipped.
- Declarations at the start of a line (`import`, `class`, `final class`, `struct`, `enum`,
  `func`, `protocol`, `extension`, up to their closing brace at the start of a line) are placed
  at file scope, in order.
- The other lines of a block are statements: they go into a function of their own, nested in a
  `do { }` scope so they may declare names the prelude already has. The function is `async` when
  the block says `await`, and it receives the names articles use without declaring them
  (`context`, `view`, `container`, `storeURL`, `request`, …; see PRELUDE_PARAMETERS) as
  parameters, plus a few mutable locals (PRELUDE_LOCALS).
- When the article declares no `Person` (or `Team`) class at file scope, the prelude declares
  the one the articles share (`name`, `age`, `team`; `name`, `zone`, `members`).
"""
import argparse, os, re, subprocess, sys, tempfile

PRELUDE_PARAMETERS = [
    ("context", "ManagedObjectContext"), ("view", "ManagedObjectContext"),
    ("viewContext", "ManagedObjectContext"), ("background", "ManagedObjectContext"),
    ("container", "PersistentContainer"), ("storeURL", "URL"), ("cutoff", "Date"),
    ("request", "FetchRequest<Person>"), ("table", "SnippetTable"),
    ("description", "PersistentStoreDescription"), ("model", "ManagedObjectModel"),
    ("v1", "ManagedObjectModel"), ("v2", "ManagedObjectModel"), ("v3", "ManagedObjectModel"),
    ("v4", "ManagedObjectModel"), ("records", "[(name: String, age: Int64)]"),
    ("ids", "[ManagedObjectID]"),
]
PRELUDE_LOCALS = [
    "var lastToken: PersistentHistoryToken? = nil",
    "var total: Int64 = 0",
]
PRELUDE_TYPES = {
    "Person": """final class Person: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("age") var age: Int64
    @Relationship("team") var team: Team?
}""",
    "Team": """final class Team: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("zone") var zone: String
    @Relationship("members") var members: Set<Person>
}""",
}
PRELUDE_FILE_SCOPE = """import Foundation
import Strata

final class SnippetTable: FetchedResultsControllerDelegate {}
final class Note: ManagedObject {}
func show(_ people: [Person]) {}
func report(_ error: any Error) {}
"""
DECLARATION = re.compile(r"^(import|(public |open |final |private )*(class|struct|enum|func|protocol|extension|actor)\b)")


def blocks(text):
    """(line, code) of each ```swift block."""
    lines, i, found = text.split("\n"), 0, []
    while i < len(lines):
        if lines[i].strip() == "```swift":
            start, body = i + 1, []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            found.append((start + 1, "\n".join(body)))
        i += 1
    return found


def swift_file(article, text):
    file_scope, functions = [], []
    for n, (line, code) in enumerate(blocks(text)):
        first = next((l.strip() for l in code.split("\n") if l.strip()), "")
        if first.startswith("// Core Data"):
            continue
        tag = f"// {article}, block at line {line}"
        declarations, statements, inside = [], [], False
        for l in code.split("\n"):
            if inside:
                declarations.append(l)
                inside = l != "}"
            elif DECLARATION.match(l):
                if not l.startswith("import "):
                    declarations.append(l)
                    inside = l.rstrip().endswith("{")
            else:
                statements.append(l)
        if declarations:
            file_scope.append(tag + "\n" + "\n".join(declarations))
        code = "\n".join(statements)
        if code.strip():
            is_async = "await" in code
            params = ", ".join(f"{name}: {kind}" for name, kind in PRELUDE_PARAMETERS)
            locals_ = "\n".join(f"    {l}" for l in PRELUDE_LOCALS)
            body = "\n".join(f"        {l}" for l in code.split("\n"))
            functions.append(
                f"{tag}\nfunc snippet{n}({params}) {'async ' if is_async else ''}throws {{\n{locals_}\n    do {{\n{body}\n    }}\n}}")
    if not file_scope and not functions:
        return None
    declared = "\n".join(file_scope)
    types = [code for name, code in PRELUDE_TYPES.items() if not re.search(rf"\bclass {name}\b", declared)]
    return "\n\n".join([PRELUDE_FILE_SCOPE] + types + file_scope + functions) + "\n"


ap = argparse.ArgumentParser()
ap.add_argument("catalog")
ap.add_argument("modules")
ap.add_argument("-I", dest="includes", action="append", default=[])
ap.add_argument("--swiftc", default=os.environ.get("SWIFTC", "swiftc"))
a = ap.parse_args()

failed, checked = [], 0
with tempfile.TemporaryDirectory() as tmp:
    for name in sorted(os.listdir(a.catalog)):
        if not name.endswith(".md"):
            continue
        source = swift_file(name, open(os.path.join(a.catalog, name)).read())
        if source is None:
            continue
        path = os.path.join(tmp, name[:-3] + ".swift")
        with open(path, "w") as f:
            f.write(source)
        command = [a.swiftc, "-typecheck", "-swift-version", "6", "-module-name", "StrataDocSnippets", "-I", a.modules] + \
            [x for i in a.includes for x in ("-I", i)] + [path]
        result = subprocess.run(command, capture_output=True, text=True)
        checked += 1
        if result.returncode != 0:
            failed.append(name)
            print(f"{name}: the examples do not type-check")
            print(result.stdout + result.stderr)
            print("--- generated file ---")
            for i, l in enumerate(source.split("\n"), 1):
                print(f"{i:4} {l}")
print(f"doc snippets: {checked - len(failed)} of {checked} articles type-check")
sys.exit(1 if failed else 0)
