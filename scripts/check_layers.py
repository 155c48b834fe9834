#!/usr/bin/python3
"""Checks the include graph against the layering of DESIGN.md.

Top-level folders may include only the layers their arrow allows (arch <- everyone; hw_model
never includes compiler, runtime or reports, and implements the firmware's HAL; compiler never
includes hw_model; firmware and reports read arch only; sim, the co-simulation top, knows every
layer but the compiler; cli knows them all), and the folders inside compiler/ include each other
without a cycle (the compiler's own files at its root count as one folder). Prints each
offending include or cycle with the file that makes it, and exits 1 when there is one.

    scripts/check_layers.py [ROOT]
"""
import re
import sys
from collections import defaultdict
from pathlib import Path

# What each layer may include besides itself.
ALLOWED = {
    "arch": set(),
    "hw_model": {"arch", "firmware"},  # the control core implements the firmware's HAL
    "rtl": {"arch", "hw_model"},
    "compiler": {"arch"},
    "firmware": {"arch"},
    "driver": {"arch"},
    "runtime": {"arch", "driver"},
    "reports": {"arch"},
    "sim": {"arch", "hw_model", "rtl", "firmware", "driver", "runtime", "reports"},
    "cli": {"arch", "hw_model", "rtl", "compiler", "firmware", "driver", "runtime", "reports", "sim"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def includes(root):
    """(file, included path) for every project include of every source file of the layers."""
    for layer in ALLOWED:
        for path in sorted((root / layer).rglob("*")):
            if path.suffix in (".h", ".cpp"):
                for target in INCLUDE.findall(path.read_text(errors="replace")):
                    yield path.relative_to(root), Path(target)


def compiler_folder(path):
    """The folder of compiler/ a path is in ("compiler" for the files at its root)."""
    parts = path.parts
    return parts[1] if len(parts) > 2 else "compiler"


def find_cycle(edges):
    """One cycle of the graph as a list of nodes (first repeated last), or None."""
    state = {}

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for successor in sorted(edges[node]):
            if state.get(successor) == "open":
                return stack[stack.index(successor):] + [successor]
            if successor not in state:
                found = visit(successor, stack)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node, [])
            if found:
                return found
    return None


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    problems = []
    folder_edges = defaultdict(set)
    witness = {}
    for source, target in includes(root):
        layer, to = source.parts[0], target.parts[0]
        if to not in ALLOWED or to == layer:
            if to == layer == "compiler":
                a, b = compiler_folder(source), compiler_folder(target)
                if a != b:
                    folder_edges[a].add(b)
                    witness.setdefault((a, b), f"{source} includes {target}")
            continue
        if to not in ALLOWED[layer]:
            problems.append(f"{source} includes {target}: {layer}/ may include only "
                            f"{', '.join(sorted(ALLOWED[layer])) or 'nothing of the project'}")
    cycle = find_cycle(folder_edges)
    if cycle:
        steps = [witness[(a, b)] for a, b in zip(cycle, cycle[1:])]
        problems.append("folders of compiler/ include each other in a cycle " + " -> ".join(cycle) +
                        " (" + "; ".join(steps) + ")")
    for problem in problems:
        print(problem)
    if not problems:
        print(f"layers: every include follows DESIGN.md's arrows; compiler/'s folders: "
              f"{sum(len(v) for v in folder_edges.values())} arrows, no cycle")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
