#!/usr/bin/env python3
"""Baseline for bench/tosca: the Python tosca-parser 2.6.0 (Debian python3-tosca-parser) parsing
the same corpus templates as tosca_bench, cycling through them for a time budget.

Debian's package omits three definition files (reference/tosca.md section 5); they are restored
from shared/peers/tosca-parser-2.6.0-defs into a scratch copy of the package, which is put first
on sys.path. URL imports of the INDIGO types are rewritten to the corpus copies (tosca-parser
has no mirror map); relative imports are left as they are.

Usage: tosca_parser_baseline.py CORPUS_DIR PEER_DEFS_DIR SCRATCH_DIR SECONDS
Prints `key: value` lines.
"""
import logging
import os
import resource
import shutil
import sys
import time

PREFIX = "https://raw.githubusercontent.com/indigo-dc/tosca-types/"


def prepare_package(defs_dir, scratch):
    import importlib.util
    spec = importlib.util.find_spec("toscaparser")
    if spec is None or spec.origin is None:
        sys.exit("tosca_parser_baseline: python3-tosca-parser is not installed")
    source = os.path.dirname(spec.origin)
    target = os.path.join(scratch, "toscaparser")
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target)
    shutil.copy(os.path.join(defs_dir, "TOSCA_definition_1_0.yaml"), os.path.join(target, "elements"))
    shutil.copy(os.path.join(defs_dir, "TOSCA_nfv_definition_1_0_0.yaml"), os.path.join(target, "extensions", "nfv"))
    shutil.copy(os.path.join(defs_dir, "TOSCA_mec_definition_1_0_0.yaml"), os.path.join(target, "extensions", "mec"))
    sys.path.insert(0, scratch)


def load_templates(corpus, scratch):
    """The files tosca_bench measures, imports redirected to local copies where needed."""
    out = []
    rewritten_dir = os.path.join(scratch, "templates")
    os.makedirs(rewritten_dir, exist_ok=True)
    refs = os.path.join(corpus, "indigo-dc-tosca-types", "refs") + "/"
    for dirpath, _, files in os.walk(corpus):
        for name in sorted(files):
            if not name.endswith((".yaml", ".yml")):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            if "topology_template" not in text or "<pattern>" in text:
                continue
            if PREFIX in text:
                relative = os.path.relpath(path, corpus).replace(os.sep, "__")
                path = os.path.join(rewritten_dir, relative)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text.replace(PREFIX, refs))
            out.append(path)
    return sorted(out)


def main():
    corpus, defs_dir, scratch, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    os.makedirs(scratch, exist_ok=True)
    prepare_package(defs_dir, scratch)
    logging.disable(logging.CRITICAL)
    from toscaparser.tosca_template import ToscaTemplate

    templates = load_templates(corpus, scratch)
    parsed = accepted = 0
    durations = []
    start = time.monotonic()
    cpu_start = time.process_time()
    deadline = start + seconds
    while time.monotonic() < deadline or parsed < len(templates):
        path = templates[parsed % len(templates)]
        t0 = time.monotonic()
        try:
            ToscaTemplate(path)
            ok = True
        except BaseException:  # rejected or crashed: both count as a parse
            ok = False
        durations.append(time.monotonic() - t0)
        if parsed < len(templates) and ok:
            accepted += 1
        parsed += 1
        if parsed >= len(templates) and time.monotonic() >= deadline:
            break
    elapsed = time.monotonic() - start
    cpu = time.process_time() - cpu_start
    durations.sort()
    print(f"peer_templates: {len(templates)} ({accepted} accepted)")
    print(f"peer_parses: {parsed} in {elapsed:.2f} s wall, {cpu:.2f} s CPU")
    print(f"peer_throughput_templates_per_s: {parsed / elapsed:.3f}")
    print(f"peer_throughput_templates_per_cpu_s: {parsed / cpu:.3f}")
    print(f"peer_median_latency_ms: {1000 * durations[len(durations) // 2]:.1f}")
    print(f"peer_peak_rss_kib: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}")


if __name__ == "__main__":
    main()
