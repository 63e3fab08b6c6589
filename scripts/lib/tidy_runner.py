#!/usr/bin/env python3
"""Runs clang-tidy over the project's translation units with a result cache (scripts/check-tidy).

A clean result is remembered under a key made of: the clang-tidy version, .clang-tidy, this file,
the translation unit's compile command (paths relative to the checkout), and the content of every
file it includes (project and system headers alike) and KEY_VERSION. A warm run therefore only hashes files; a
changed header re-checks exactly the units that include it. Only clean results are cached, so a
failing unit is checked (and its diagnostics shown) on every run.

The include lists come from the build's ninja dependency log when it is current for the unit, and
otherwise from the compiler (`-M`), so the key is right on a tree that was never built.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys
import time

# Part of every cache key: raise it when a change here changes what clang-tidy reports.
KEY_VERSION = "1"
# Flags g++ understands and clang does not: stripped from the commands clang-tidy sees.
GCC_ONLY_FLAGS = {"-Wno-maybe-uninitialized"}
# Unknown -W options must not become errors, whatever g++-only flag is added next.
EXTRA_ARGS = ["-Wno-unknown-warning-option"]
SOURCE_DIRS = ("common/", "tosca/", "cmdb/", "monitoring/", "connectors/", "orchestrator/", "sim/", "bench/")
# The tests' units are opt-in (ORCH_TIDY_TESTS=1) until their findings are fixed (mostly
# `using namespace` in test files, push_back loops, fixtures without their copy rules).
TEST_DIRS = ("tests/",)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class FileHasher:
    def __init__(self):
        self.memo = {}

    def __call__(self, path: str) -> str:
        digest = self.memo.get(path)
        if digest is None:
            try:
                with open(path, "rb") as f:
                    digest = sha(f.read())
            except OSError:
                digest = "missing"
            self.memo[path] = digest
        return digest


def mtime(path: str) -> float:
    try:
        return os.path.getmtime(path)
    except OSError:
        return float("inf")  # a vanished include: the list is stale


def ninja_deps(build_dir: str) -> dict:
    """object path (relative to the build dir) -> list of dependency paths, for VALID entries."""
    try:
        out = subprocess.run(
            ["ninja", "-C", build_dir, "-t", "deps"], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    deps, current = {}, None
    for line in out.splitlines():
        if not line:
            current = None
        elif not line.startswith(" "):
            target, _, rest = line.partition(":")
            current = target if "(VALID)" in rest else None
            if current:
                deps[current] = []
        elif current:
            deps[current].append(line.strip())
    return deps


def compiler_deps(entry: dict) -> list:
    args = shlex.split(entry["command"])
    cleaned, skip = [], False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == "-o":
            skip = True
            continue
        cleaned.append(arg)
    out = subprocess.run(
        cleaned + ["-M", "-MF", "/dev/stdout"], cwd=entry["directory"], capture_output=True, text=True
    )
    if out.returncode != 0:
        return []
    text = out.stdout.replace("\\\n", " ")
    return text.split(":", 1)[1].split() if ":" in text else []


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--cache", required=True)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--tidy", default="clang-tidy")
    parser.add_argument("files", nargs="*")
    opts = parser.parse_args()
    root = os.path.realpath(opts.root)
    build = os.path.realpath(opts.build)
    start = time.monotonic()

    with open(os.path.join(build, "compile_commands.json")) as f:
        database = json.load(f)
    entries = {}
    for entry in database:
        path = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
        rel = os.path.relpath(path, root)
        with_tests = opts.files or os.environ.get("ORCH_TIDY_TESTS") == "1"
        dirs = SOURCE_DIRS + (TEST_DIRS if with_tests else ())
        if rel.startswith(dirs) and not rel.startswith(".."):
            flags = [a for a in shlex.split(entry["command"]) if a not in GCC_ONLY_FLAGS]
            entries[rel] = dict(entry, file=path, command=shlex.join(flags))
    if opts.files:
        wanted = {os.path.relpath(os.path.realpath(p), root) for p in opts.files}
        unknown = sorted(w for w in wanted if w not in entries)
        if unknown:
            print("check-tidy: not in the compile database: " + " ".join(unknown), file=sys.stderr)
            return 2
        entries = {k: v for k, v in entries.items() if k in wanted}

    # The database clang-tidy reads: g++-only flags removed.
    tidy_db = os.path.join(build, "tidy")
    os.makedirs(tidy_db, exist_ok=True)
    with open(os.path.join(tidy_db, "compile_commands.json.tmp"), "w") as f:
        json.dump([dict(e, command=shlex.join([a for a in shlex.split(e["command"]) if a not in GCC_ONLY_FLAGS]))
                   for e in database], f)
    os.replace(os.path.join(tidy_db, "compile_commands.json.tmp"), os.path.join(tidy_db, "compile_commands.json"))

    version = subprocess.run([opts.tidy, "--version"], capture_output=True, text=True, check=True).stdout
    hasher = FileHasher()
    base = sha(
        (version + hasher(os.path.join(root, ".clang-tidy")) + KEY_VERSION + " ".join(EXTRA_ARGS)
         + " ".join(sorted(GCC_ONLY_FLAGS))).encode()
    )
    deps_log = ninja_deps(build)
    os.makedirs(opts.cache, exist_ok=True)

    def key_for(rel: str, entry: dict) -> str:
        args = shlex.split(entry["command"])
        obj = args[args.index("-o") + 1] if "-o" in args else None
        deps = deps_log.get(obj) if obj else None
        # The build's list is current when the object is newer than the unit and all it included.
        obj_path = os.path.join(entry["directory"], obj) if obj else None
        if deps is not None and obj_path and os.path.exists(obj_path):
            built = os.path.getmtime(obj_path)
            newest = max([os.path.getmtime(entry["file"])] + [mtime(os.path.join(entry["directory"], d)) for d in deps])
            if newest > built:
                deps = None
        else:
            deps = None
        if deps is None:
            deps = compiler_deps(entry)
        parts = [base, entry["command"].replace(root, "."), rel, hasher(entry["file"])]
        for dep in sorted(set(deps)):
            path = os.path.realpath(os.path.join(entry["directory"], dep))
            shown = os.path.relpath(path, root) if path.startswith(root + os.sep) else path
            parts.append(shown + "=" + hasher(path))
        return sha("\n".join(parts).encode())

    todo, cached = [], 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
        keys = list(pool.map(lambda item: (item[0], key_for(*item)), sorted(entries.items())))
    for rel, key in keys:
        if os.path.exists(os.path.join(opts.cache, key[:2], key)):
            cached += 1
        else:
            todo.append((rel, key))
    # One unit per folder in turn: shared headers get checked early, so findings show up early.
    by_dir = {}
    for item in todo:
        by_dir.setdefault(os.path.dirname(item[0]), []).append(item)
    todo = [group[i] for i in range(max(map(len, by_dir.values()), default=0))
            for group in by_dir.values() if i < len(group)]
    print(f"check-tidy: {len(entries)} units, {cached} clean in the cache, {len(todo)} to check "
          f"(keys in {time.monotonic() - start:.1f} s)", file=sys.stderr, flush=True)

    def run(item):
        rel, key = item
        cmd = [opts.tidy, "--quiet", "-p", tidy_db] + [f"--extra-arg={a}" for a in EXTRA_ARGS] + [entries[rel]["file"]]
        proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
        if proc.returncode == 0:
            os.makedirs(os.path.join(opts.cache, key[:2]), exist_ok=True)
            with open(os.path.join(opts.cache, key[:2], key), "w") as f:
                f.write(rel + "\n")
        return rel, proc.returncode, proc.stdout + proc.stderr

    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
        for rel, code, output in pool.map(run, todo):
            if code != 0:
                failed.append(rel)
                lines = [l for l in output.splitlines() if not l.endswith("warnings generated.")
                         and not l.startswith("Suppressed ") and "display errors from all non-system" not in l]
                print("\n".join(lines), flush=True)
    elapsed = time.monotonic() - start
    if failed:
        print(f"check-tidy: {len(failed)} of {len(entries)} units have findings ({elapsed:.0f} s): "
              + " ".join(failed), file=sys.stderr)
        return 1
    print(f"check-tidy: clean ({len(entries)} units, {len(todo)} checked, {elapsed:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
