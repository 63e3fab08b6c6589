#!/usr/bin/env python3
"""scripts/check-architecture on synthetic graphs and source trees: it passes the declared
chain and fails on each kind of violation it is there to catch."""

import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SCRIPT = os.path.join(ROOT, "scripts", "check-architecture")

# The declared chain as CMake names its targets, bottom first, each linking the one before it.
CHAIN = ["orch_common", "orch_tosca", "orch_cmdb", "orch_monitoring", "orch_connectors", "orch_sim"] + [
    "orch_orchestrator_" + area
    for area in ("server", "domain", "placement", "auth", "workflow", "store", "service", "schedule", "api", "ops",
                 "app")
]


def dot(edges, extra_nodes=()):
    """A graph in `cmake --graphviz` form (labels carry the alias on a second line, as CMake writes)."""
    names = list(CHAIN) + [n for n in extra_nodes if n not in CHAIN]
    for a, b in edges:
        for n in (a, b):
            if n not in names:
                names.append(n)
    ids = {n: f"node{i}" for i, n in enumerate(names)}
    lines = ['digraph "indigo_orchestrator" {']
    lines += [f'    "{ids[n]}" [ label = "{n}\\n(alias)", shape = octagon ];' for n in names]
    lines += [f'    "{ids[a]}" -> "{ids[b]}" [ style = dotted ] // {a} -> {b}' for a, b in edges]
    lines.append("}")
    return "\n".join(lines) + "\n"


def chain_edges():
    return [(CHAIN[i], CHAIN[i - 1]) for i in range(1, len(CHAIN))]


class CheckArchitectureTest(unittest.TestCase):
    def run_script(self, graph, *args):
        with tempfile.NamedTemporaryFile("w", suffix=".dot", delete=False) as f:
            f.write(graph)
        try:
            return subprocess.run([sys.executable, SCRIPT, "--dot", f.name, *args], capture_output=True, text=True)
        finally:
            os.unlink(f.name)

    def test_the_declared_chain_passes_and_is_printed_highest_first(self):
        run = self.run_script(dot(chain_edges()), "--no-includes")
        self.assertEqual(run.returncode, 0, run.stderr)
        lines = run.stdout.splitlines()
        self.assertIn("orchestrator/app        -> orchestrator/ops", lines[1])
        self.assertEqual(lines[-1].strip(), "common")

    def test_an_upward_link_fails(self):
        run = self.run_script(dot(chain_edges() + [("orch_orchestrator_store", "orch_orchestrator_api")]),
                              "--no-includes")
        self.assertEqual(run.returncode, 1)
        self.assertIn("orchestrator/store -> orchestrator/api: upward link", run.stderr)

    def test_a_cycle_fails(self):
        run = self.run_script(dot(chain_edges() + [("orch_orchestrator_auth", "orch_orchestrator_store")]),
                              "--no-includes")
        self.assertEqual(run.returncode, 1)
        self.assertIn("orchestrator/auth -> orchestrator/store: upward link", run.stderr)

    def test_a_link_to_the_umbrella_fails(self):
        run = self.run_script(dot(chain_edges() + [("orch_orchestrator_api", "orch_orchestrator")]), "--no-includes")
        self.assertEqual(run.returncode, 1)
        self.assertIn("orchestrator/api -> orchestrator/*: links a target outside the chain", run.stderr)

    def test_a_library_missing_from_the_order_fails(self):
        run = self.run_script(dot(chain_edges() + [("orch_orchestrator_billing", "orch_common")]), "--no-includes")
        self.assertEqual(run.returncode, 1)
        self.assertIn("orchestrator/billing: not in the layer order", run.stderr)

    def test_site_sim_reaching_the_database_fails(self):
        edges = chain_edges() + [("site-sim", "orch_orchestrator_server"), ("orch_orchestrator_server", "deps::pqxx")]
        run = self.run_script(dot(edges), "--no-includes")
        self.assertEqual(run.returncode, 1)
        self.assertIn("site-sim reaches deps::pqxx", run.stderr)

    def test_an_include_of_an_unlinked_area_fails(self):
        with tempfile.TemporaryDirectory() as root:
            source = os.path.join(root, "orchestrator", "src", "store", "rows.cpp")
            os.makedirs(os.path.dirname(source))
            with open(source, "w") as f:
                f.write('#include "orchestrator/domain/deployment.hpp"\n#include "orchestrator/api/views.hpp"\n')
            run = self.run_script(dot(chain_edges()), "--root", root)
        self.assertEqual(run.returncode, 1)
        self.assertIn("orchestrator/src/store/rows.cpp: includes orchestrator/api/... but orchestrator/store does not link",
                      run.stderr)
        self.assertNotIn("orchestrator/domain/...", run.stderr)

    def test_a_document_whose_diagram_differs_from_the_graph_fails(self):
        graph = dot(chain_edges())
        printed = self.run_script(graph, "--no-includes").stdout.rstrip("\n")
        with tempfile.TemporaryDirectory() as tmp:
            doc = os.path.join(tmp, "ARCHITECTURE.md")
            with open(doc, "w") as f:
                f.write("# A\n\n```\n" + printed + "\n```\n")
            same = self.run_script(graph, "--no-includes", "--doc", doc)
            with open(doc, "w") as f:
                f.write("# A\n\n```\n" + printed.replace("-> orchestrator/ops", "-> orchestrator/api") + "\n```\n")
            stale = self.run_script(graph, "--no-includes", "--doc", doc)
        self.assertEqual(same.returncode, 0, same.stderr)
        self.assertEqual(stale.returncode, 1)
        self.assertIn("the diagram is not the build's graph", stale.stderr)


if __name__ == "__main__":
    unittest.main()
