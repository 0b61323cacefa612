#!/usr/bin/env python3
"""The verdict of tools/remote_exec/check: from Bazel's JSON execution log of a build
with --config=remote_exec, every spawn must have run on the execution service (runner
"remote", or "remote cache hit" for an action the service had already run), and each
.pte and binary it wrote must equal, byte for byte, the same file in a local build.
With --cache_hits_only (a second builder sharing the first's storage), every spawn must
be a cache hit.

    compare.py --log=exec.json --remote_root=R --local_root=L --summary="INFO: ..." \
        --seconds=N [--cache_hits_only]
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from execution_log import outputs, spawns  # noqa: E402  (tools/execution_log.py)

# Outputs compared with the local build: programs and what the C++ toolchains make.
_COMPARED = (".pte", ".elf", ".a", ".so", ".o")
_REMOTE_RUNNERS = ("remote", "remote cache hit")


def is_compared(path: str) -> bool:
    # Binaries have no extension: the outputs of link actions are compared too.
    return path.endswith(_COMPARED) or "." not in os.path.basename(path)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--remote_root", required=True)
    parser.add_argument("--local_root", required=True)
    parser.add_argument("--summary", required=True)
    parser.add_argument("--seconds", type=int, required=True)
    parser.add_argument("--cache_hits_only", action="store_true")
    args = parser.parse_args()

    log = spawns(args.log)
    problems = []
    if not log:
        problems.append("the execution log has no spawns")
    local = [s for s in log if s.get("runner") not in _REMOTE_RUNNERS]
    problems += [f"{s.get('mnemonic')} ran with runner '{s.get('runner')}', not remotely: {s.get('progressMessage')}"
                 for s in local]
    ran = sum(1 for s in log if s.get("runner") == "remote")
    if args.cache_hits_only and ran:
        problems += [f"{s.get('mnemonic')} ran again instead of being a cache hit: {s.get('progressMessage')}"
                     for s in log if s.get("runner") == "remote"]
    mnemonics = sorted({s.get("mnemonic", "") for s in log})
    identical, compared = 0, []
    for spawn in log:
        if spawn.get("mnemonic") not in ("PteExport", "CppLink", "CppArchive", "Genrule", "TestRunner"):
            continue
        for path in outputs(spawn):
            if not is_compared(path):
                continue
            remote, here = os.path.join(args.remote_root, path), os.path.join(args.local_root, path)
            if not os.path.isfile(remote) or not os.path.isfile(here):
                continue  # not an output file of this build here (e.g. a test's log)
            compared.append(path)
            with open(remote, "rb") as a, open(here, "rb") as b:
                if a.read() == b.read():
                    identical += 1
                else:
                    problems.append(f"{path} differs between the remote and the local build")
    if not any(path.endswith(".pte") for path in compared):
        problems.append("no .pte was compared with the local build")
    print(f"check: {args.summary.replace('INFO: ', '')} ({len(log)} spawns in the log, {ran} run by the service, "
          f"{len(log) - ran - len(local)} cache hits, {len(local)} elsewhere) in {args.seconds} s")
    print(f"check: {identical} of {len(compared)} outputs byte-identical to the local build "
          f"({sum(1 for p in compared if p.endswith('.pte'))} .pte); mnemonics: {', '.join(mnemonics)}")
    for problem in problems:
        print("check: FAIL: " + problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
