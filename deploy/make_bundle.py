"""Writes an arm64 bundle: programs, the shared libraries they load, the glibc loader,
.pte files and launchers, as one deterministic .tar (bazel/arm64_bundle.bzl).

    make_bundle.py --out b.tar --root pteforge-arm64 --sysroot_lib /usr/aarch64-linux-gnu/lib \
        --program translate --library libexecutorch.so ... --model x.pte \
        --default_model translate=x.pte

Layout of the archive (under --root):
    bin/<program>       launcher (POSIX sh): the bundled loader runs the program with
                        only lib/ on its library path and without the system's cache
    libexec/<program>   the aarch64 executable
    lib/                every library the programs need, found by following DT_NEEDED
                        from the programs through the given libraries and the sysroot
    models/<x>.pte
    README.txt
"""

from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
import tarfile

LOADER = "ld-linux-aarch64.so.1"

_LAUNCHER = """#!/bin/sh
# Runs {program} with this bundle's own glibc loader and libraries only: nothing of the
# device's system libraries is used (Android's bionic included). Any arm64 Linux kernel.
# PTEFORGE_EMULATOR: a command to run the loader under (e.g. qemu-aarch64 on a PC).
here=$(cd "$(dirname "$0")/.." && pwd)
{default_model}exec ${{PTEFORGE_EMULATOR:-}} "$here/lib/{loader}" --inhibit-cache --library-path "$here/lib" \\
    "$here/libexec/{program}" "$@"
"""

_DEFAULT_MODEL = """given=""
for arg in "$@"; do
  case "$arg" in --model|--model=*) given=yes ;; esac
done
if [ -z "$given" ]; then set -- "--model=$here/models/{model}" "$@"; fi
"""

_README = """pteforge for arm64 (Android or any aarch64 Linux), built by
`./bazelw build //deploy:android_arm64_bundle`. Every program brings its own loader and
libraries (lib/); run it through its launcher:

  sh bin/translate "The weather is nice today."      # {translate_model}
  sh bin/vad speech.wav                             # speech segments (16-bit mono WAV, 16 or 8 kHz)
  sh bin/pte_run --model=models/stateful.pte --list

On a phone: adb push {root}.tar /data/local/tmp/ && adb shell
  cd /data/local/tmp && tar xf {root}.tar && cd {root} && sh bin/translate "Hello."
"""


class BundleError(Exception):
    pass


def _needed(path: str) -> list[str]:
    """The DT_NEEDED names of an ELF file (binutils' readelf reads any architecture)."""
    result = subprocess.run(["readelf", "-d", "-W", path], capture_output=True, text=True)
    if result.returncode != 0:
        raise BundleError(f"{path}: not an ELF file readelf can read: {result.stderr.strip()}")
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", result.stdout)


def _library_closure(programs: list[str], given: dict[str, str], sysroot_lib: str) -> dict[str, str]:
    """name -> file of every library the programs load, and the loader."""
    found: dict[str, str] = {}
    pending = [(program, os.path.basename(program)) for program in programs]
    while pending:
        path, who = pending.pop()
        for name in _needed(path):
            if name in found:
                continue
            source = given.get(name) or os.path.join(sysroot_lib, name)
            if not os.path.exists(source):
                raise BundleError(
                    f"{who} needs {name}, which is neither among its Bazel libraries nor in the "
                    f"sysroot {sysroot_lib} (install Debian's cross libraries: ./bazelw does)")
            found[name] = source
            pending.append((source, name))
    loader = os.path.join(sysroot_lib, LOADER)
    if not os.path.exists(loader):
        raise BundleError(f"the glibc loader {loader} is missing (Debian's libc6-arm64-cross)")
    found[LOADER] = loader
    return found


def _add(archive: tarfile.TarFile, name: str, data: bytes, executable: bool) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o755 if executable else 0o644
    info.mtime = 0
    info.uname = info.gname = "root"
    archive.addfile(info, io.BytesIO(data))


def _read(path: str) -> bytes:
    with open(os.path.realpath(path), "rb") as f:
        return f.read()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--sysroot_lib", required=True)
    parser.add_argument("--program", action="append", default=[])
    parser.add_argument("--library", action="append", default=[])
    parser.add_argument("--model", action="append", default=[])
    parser.add_argument("--default_model", action="append", default=[])
    args = parser.parse_args(argv)
    defaults = dict(item.split("=", 1) for item in args.default_model)
    models = {os.path.basename(path): path for path in args.model}
    try:
        for program, model in defaults.items():
            if model not in models:
                raise BundleError(f"default model {model} of {program} is not among the models ({', '.join(models)})")
        libraries = _library_closure(args.program, {os.path.basename(p): p for p in args.library}, args.sysroot_lib)
    except BundleError as error:
        print(f"make_bundle: error: {error}", file=sys.stderr)
        return 1
    entries: list[tuple[str, bytes, bool]] = []
    for program in args.program:
        name = os.path.basename(program)
        entries.append((f"libexec/{name}", _read(program), True))
        default = _DEFAULT_MODEL.format(model=defaults[name]) if name in defaults else ""
        launcher = _LAUNCHER.format(program=name, loader=LOADER, default_model=default)
        entries.append((f"bin/{name}", launcher.encode(), True))
    for name, path in libraries.items():
        entries.append((f"lib/{name}", _read(path), True))
    for name, path in models.items():
        entries.append((f"models/{name}", _read(path), False))
    readme = _README.format(root=args.root, translate_model=defaults.get("translate", "give --model"))
    entries.append(("README.txt", readme.encode(), False))
    temporary = args.out + ".tmp"
    with tarfile.open(temporary, "w", format=tarfile.GNU_FORMAT) as archive:
        for name, data, executable in sorted(entries):
            _add(archive, f"{args.root}/{name}", data, executable)
    os.replace(temporary, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
