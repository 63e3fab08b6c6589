#!/usr/bin/env python3
"""Runs clang-tidy over the project's translation units with a result cache (scripts/check-tidy).

A clean result is remembered under a key made of: the clang-tidy version, .clang-tidy, this file,
the translation unit's compile command (paths relative to the checkout), and the content of every
file it includes (project and system headers alike) and KEY_VERSION. A warm run therefore only hashes files; a
changed header re-checks exactly the units that include it. Only clean results are cached, so a
failing unit is checked (and its diagnostics shown) on every run.

The include list comes from one place, the compiler (`-M` on the unit's own command), so it is
complete on a tree that was never built and the same whatever the build did since. Paths are
normalised (real path, relative to the checkout when inside it) before they are sorted and hashed.
Running the preprocessor for every unit would make a warm run slow, so each unit's list is kept in
the cache beside the hashes of the files it names (a manifest, as ccache's direct mode does): while
none of those files changed, the preprocessor would read the same bytes and list the same files,
and the list is reused; any change re-derives it. (Like ccache, a new header that shadows an
included one earlier on the include path is not noticed: remove the cache then.)
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys
import threading
import time

# Part of every cache key: raise it when a change here changes what clang-tidy reports.
KEY_VERSION = "2"
# Flags g++ understands and clang does not: stripped from the commands clang-tidy sees.
GCC_ONLY_FLAGS = {"-Wno-maybe-uninitialized"}
# Unknown -W options must not become errors, whatever g++-only flag is added next.
EXTRA_ARGS = ["-Wno-unknown-warning-option"]
# tests/support/ is checked by default: the fakes and the store contract every store test runs
# are code the product's behaviour is judged by.
SOURCE_DIRS = ("common/", "tosca/", "cmdb/", "monitoring/", "connectors/", "orchestrator/", "sim/", "bench/",
               "tests/support/")
# The other tests' units are opt-in (ORCH_TIDY_TESTS=1) until their findings are fixed (mostly
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


# Dependency-output flags of the build's own command, with how many arguments each takes: -M
# replaces them (the build's -MF would otherwise name its own .d file).
DEPENDENCY_FLAGS = {"-o": 1, "-MF": 1, "-MT": 1, "-MQ": 1, "-MD": 0, "-MMD": 0}


def compiler_deps(entry: dict):
    """Every file the unit includes (itself too), as the compiler lists them; None on failure."""
    cleaned, skip = [], 0
    for arg in shlex.split(entry["command"]):
        if skip:
            skip -= 1
        elif arg in DEPENDENCY_FLAGS:
            skip = DEPENDENCY_FLAGS[arg]
        else:
            cleaned.append(arg)
    out = subprocess.run(cleaned + ["-M"], cwd=entry["directory"], capture_output=True, text=True)
    if out.returncode != 0 or ":" not in out.stdout:
        return None
    return out.stdout.replace("\\\n", " ").split(":", 1)[1].split()


def normalise(root: str, directory: str, dep: str) -> str:
    """The one spelling of a dependency: the real path, relative to the checkout inside it."""
    path = os.path.realpath(os.path.join(directory, dep))
    return os.path.relpath(path, root) if path.startswith(root + os.sep) else path


class DepsManifests:
    """Each unit's include list with the hashes it was derived from, under <cache>/deps/."""

    def __init__(self, cache: str, root: str, hasher):
        self.dir = os.path.join(cache, "deps")
        self.root = root
        self.hasher = hasher
        os.makedirs(self.dir, exist_ok=True)

    def full_path(self, shown: str) -> str:
        return shown if os.path.isabs(shown) else os.path.join(self.root, shown)

    def deps(self, base: str, rel: str, entry: dict):
        """[(normalised path, content hash)] sorted by path; None when the compiler fails."""
        name = os.path.join(self.dir, sha((base + "\n" + entry["command"] + "\n" + rel).encode()))
        try:
            with open(name) as f:
                recorded = json.load(f)
            if all(self.hasher(self.full_path(path)) == digest for path, digest in recorded):
                return [tuple(item) for item in recorded]
        except (OSError, ValueError):
            pass
        listed = compiler_deps(entry)
        if listed is None:
            return None
        paths = sorted({normalise(self.root, entry["directory"], dep) for dep in listed})
        result = [(path, self.hasher(self.full_path(path))) for path in paths]
        # Written aside and renamed: a concurrent run (another checkout shares the cache) reads
        # either the old manifest or the new one, never half of one.
        temporary = f"{name}.{os.getpid()}.{threading.get_ident()}.tmp"
        with open(temporary, "w") as f:
            json.dump(result, f)
        os.replace(temporary, name)
        return result


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
    os.makedirs(opts.cache, exist_ok=True)
    manifests = DepsManifests(opts.cache, root, hasher)

    def key_for(rel: str, entry: dict):
        """The unit's cache key; None (never cached) when its includes cannot be listed."""
        deps = manifests.deps(base, rel, entry)
        if deps is None:
            return None
        parts = [base, entry["command"].replace(root, "."), rel, hasher(entry["file"])]
        parts += [path + "=" + digest for path, digest in deps]
        return sha("\n".join(parts).encode())

    todo, cached = [], 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
        keys = list(pool.map(lambda item: (item[0], key_for(*item)), sorted(entries.items())))
    for rel, key in keys:
        if key and os.path.exists(os.path.join(opts.cache, key[:2], key)):
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
        if proc.returncode == 0 and key:
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
