"""Packs a pteforge SDK: archives, headers, shared libraries, programs, a CMake package,
pkg-config files and sdk.json, as one deterministic .tar (bazel/sdk.bzl).

    make_sdk.py --components c.json --root pteforge-x86_64 --out sdk.tar \
        --file SRC=lib/libpteforge_runtime.a ... --template deploy/sdk/templates/X.in ...
        [--executorch_info version.py|source_info.json] [--sysroot_library /usr/.../libc.so.6]

Layout (under --root):
    include/                        the headers, at the paths they are included by
    lib/libpteforge_<c>.a           a component's archive (pteforge::<c>)
    lib/libpteforge_<c>_whole.a     its objects that must be linked whole (--whole-archive)
    lib/*.so*                       shared libraries (the executorch wheel's), and on the
                                    Android bundle's route the glibc loader and C runtime
    lib/cmake/pteforge/             pteforgeConfig.cmake, pteforgeConfigVersion.cmake
    lib/pkgconfig/pteforge-<c>.pc   one per component, and pteforge.pc for all of them
    share/pteforge/sdk.json         version, target, ExecuTorch's version and commit, the
                                    build flags, the components, programs and kernels
    share/pteforge/programs/        the programs the SDK was built for, with their reports
    share/pteforge/toolchain.cmake  cross targets: the compiler and flags the SDK was built with
    README.txt
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import re
import string
import sys
import tarfile

# Compile flags that decide the ABI of a bare-metal build: consumers must use the same.
_ABI_FLAG = re.compile(r"^-m(cpu|thumb|float-abi|fpu|arch)")
# The C library's headers (bare metal: newlib-nano's newlib.h, whose struct _reent the
# SDK's code was compiled against).
_LIBC_HEADERS_FLAG = re.compile(r"^-isystem/\S*newlib/nano$")
_CXX_ABI_FLAGS = ("-fno-exceptions", "-fno-rtti")


class SdkError(Exception):
    pass


class Template(string.Template):
    delimiter = "@"
    pattern = r"@(?:(?P<escaped>@)|(?P<named>[A-Z_]+)@|(?P<braced>(?!))|(?P<invalid>))"


def _read(path: str) -> bytes:
    with open(os.path.realpath(path), "rb") as f:
        return f.read()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def executorch_info(paths: list[str]) -> dict:
    """The runtime's version and commit: the wheel's version.py or source_info.json."""
    for path in paths:
        text = _read(path).decode()
        if path.endswith(".json"):
            return json.loads(text)
        version = re.search(r'__version__\s*=\s*"([^"]+)"', text)
        commit = re.search(r"git_version[^=]*=\s*'([0-9a-f]+)'", text)
        return {
            "runtime": "the executorch wheel's shared libraries",
            "version": version.group(1) if version else "unknown",
            "commit": commit.group(1) if commit else "unknown",
            "commit_from": "the wheel's executorch/version.py",
        }
    raise SdkError("no --executorch_info: the SDK must record its ExecuTorch runtime")


def _cmake_list(items: list[str]) -> str:
    return ";".join(items)


def _whole(path: str) -> str:
    # One token: pkg-config (pkgconf) merges repeated flags, which would break a
    # --whole-archive ... --no-whole-archive pair split over three.
    return f"-Wl,--whole-archive,{path},--no-whole-archive"


def cmake_config(description: dict, templates: dict[str, str]) -> str:
    """pteforgeConfig.cmake: an INTERFACE IMPORTED target per component, over a STATIC
    IMPORTED target for its archive that names what the archive needs (the components
    it builds on, shared libraries, flags), so that CMake orders every archive before
    what it uses whichever components an app links."""
    blocks = []
    for component in description["components"]:
        name = component["name"]
        needs = [f"pteforge::{required}" for required in component["requires"]]
        needs += [f"pteforge::shared_{library}" for library in component["shared_libraries"]]
        needs += component["link_flags"]
        links = []
        if component["whole_archive"]:
            links.append(_whole("${PTEFORGE_PREFIX}/lib/" + component["whole_archive"]))
        links += [f"pteforge::{name}_archive"] if component["archive"] else needs
        shared = "".join(
            f"  _pteforge_shared({library})\n" for library in component["shared_libraries"])
        archive = Template(templates["archive.cmake.in"]).substitute(
            NAME=name, ARCHIVE=component["archive"], NEEDS=_cmake_list(needs)) if component["archive"] else ""
        blocks.append(Template(templates["component.cmake.in"]).substitute(
            NAME=name,
            SHARED=shared,
            ARCHIVE=archive,
            INCLUDES=_cmake_list([
                "${PTEFORGE_PREFIX}/include" + (f"/{folder}" if folder else "")
                for folder in component["include_dirs"]]),
            DEFINES=_cmake_list(component["defines"]),
            LINKS=_cmake_list(links),
            OPTIONS=_cmake_list(component.get("link_options", [])),
        ))
    return Template(templates["pteforgeConfig.cmake.in"]).substitute(
        VERSION=description["version"],
        TARGET=description["target"],
        TRIPLET=description["triplet"],
        COMPONENTS=" ".join(component["name"] for component in description["components"]),
        BLOCKS="\n".join(blocks),
    )


def pkg_config(description: dict, component: dict, templates: dict[str, str]) -> str:
    links = []
    # Bare metal: the link's own flags (CPU, specs, linker script) are a variable, as the
    # compile flags are: pkgconf 1.8 repeats some of them when a package is reached twice,
    # and gcc refuses a second --specs.
    bare_metal = bool(description.get("linker_script"))
    ldflags = component.get("link_options", []) if bare_metal else []
    if not bare_metal:
        links += component.get("link_options", [])
    if component["whole_archive"]:
        links.append(_whole("${libdir}/" + component["whole_archive"]))
    if component["archive"]:
        links.append("${libdir}/" + component["archive"])
    links += ["${libdir}/" + library for library in component["shared_libraries"]]
    if component["shared_libraries"]:
        links.append("-Wl,-rpath,${libdir}")
    links += component["link_flags"]
    cflags = ["-I${includedir}" + (f"/{folder}" if folder else "") for folder in component["include_dirs"]]
    cflags += ["-D" + define for define in component["defines"]]
    return Template(templates["component.pc.in"]).substitute(
        NAME=component["name"],
        VERSION=description["version"],
        TARGET=description["target"],
        REQUIRES=", ".join(f"pteforge-{required}" for required in component["requires"]),
        CFLAGS=" ".join(cflags),
        LIBS=" ".join(_pc_quote(link) for link in links),
        CPUFLAGS=" ".join(description.get("cpu_flags", [])),
        CXXFLAGS=" ".join(description.get("cxx_abi_flags", [])),
        LDFLAGS=" ".join(_pc_quote(flag) for flag in ldflags),
    )


def _pc_quote(flag: str) -> str:
    return flag.replace(" ", "\\ ")


def abi_flags(description: dict) -> tuple[list[str], list[str]]:
    """The compile flags consumers must share (bare metal): CPU flags and the C library's
    headers, C++ flags."""
    compile_flags = description["compile_flags"]
    cpu = [flag for flag in compile_flags if _ABI_FLAG.match(flag) or _LIBC_HEADERS_FLAG.match(flag)]
    cxx = [flag for flag in compile_flags if flag in _CXX_ABI_FLAGS]
    return list(dict.fromkeys(cpu)), list(dict.fromkeys(cxx))


def bare_metal_link_options(description: dict, linker_script: str) -> list[str]:
    """The toolchain's link flags a firmware must use too: CPU flags (they pick newlib's
    variant), the C library's specs and the symbols it must keep (newlib-nano's printf
    of floats), section garbage collection, and the SDK's copy of the linker script in
    place of the workspace's."""
    flags = description["link_flags"]
    kept = []
    skip = False
    for flag in flags:
        if skip:
            skip = False
            continue
        if flag == "-T":
            skip = True
            continue
        if (_ABI_FLAG.match(flag) or flag.startswith(("--specs=", "-Wl,-u,")) or
                flag == "-Wl,--gc-sections"):
            kept.append(flag)
    # One token: pkg-config and CMake de-duplicate flags, which tears "-T" from its
    # argument. The driver's -T (not -Wl,-T), which gcc hands the linker after every
    # other argument, so that a firmware's --defsym=__stack_size__ counts wherever it is.
    return list(dict.fromkeys(kept)) + [f"-T{linker_script}"]


def toolchain_file(description: dict, templates: dict[str, str]) -> str:
    compiler = description["compiler"]
    cxx = re.sub(r"gcc$", "g++", compiler)
    cpu, cxx_abi = abi_flags(description)
    return Template(templates[description["toolchain_template"]]).substitute(
        TARGET=description["target"],
        TRIPLET=description["triplet"],
        PROCESSOR=description["processor"],
        CC=compiler,
        CXX=cxx,
        CPUFLAGS=" ".join(cpu),
        CXXFLAGS=" ".join(cxx_abi),
        EMULATOR=description.get("emulator", ""),
    )


def sdk_json(description: dict, executorch: dict, programs: list[dict], kernels: dict) -> str:
    return json.dumps({
        "name": "pteforge",
        "version": description["version"],
        "target": description["target"],
        "triplet": description["triplet"],
        "executorch": executorch,
        "build": {
            "compilation_mode": description["compilation_mode"],
            "compiler": description["compiler"],
            "compile_flags": description["compile_flags"],
            "link_flags": description["link_flags"],
        },
        "components": [
            {key: component[key] for key in ("name", "requires", "archive", "whole_archive", "shared_libraries",
                                             "defines", "link_flags")}
            for component in description["components"]
        ],
        "programs": programs,
        "kernels": kernels,
    }, indent=2) + "\n"


def kernels_report(entries: dict[str, bytes]) -> dict:
    """What the kernel selection kept, from the reports the rule copied in."""
    for name, data in entries.items():
        if name.endswith("kernels.json"):
            return json.loads(data)
    for name, data in entries.items():
        if name.endswith("operators.txt"):
            return {"selection": "the operators of the SDK's programs",
                    "operators": data.decode().split()}
    return {"selection": "every kernel of the executorch wheel (prebuilt shared libraries: "
                         "they cannot be selected; build with --config=source_runtime for that)"}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--components", required=True, help="the rule's description (JSON)")
    parser.add_argument("--root", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--file", action="append", default=[], help="SRC=DEST under the root")
    parser.add_argument("--template", action="append", default=[])
    parser.add_argument("--executorch_info", action="append", default=[])
    parser.add_argument("--sysroot_library", action="append", default=[])
    args = parser.parse_args(argv)
    with open(args.components) as f:
        description = json.load(f)
    templates = {os.path.basename(path): _read(path).decode() for path in args.template}
    entries: dict[str, tuple[bytes, bool]] = {}

    def add(destination: str, data: bytes, executable: bool = False) -> None:
        if destination in entries and entries[destination][0] != data:
            raise SdkError(f"two different files would be {destination}")
        entries[destination] = (data, executable)

    try:
        for item in args.file:
            source, destination = item.split("=", 1)
            add(destination, _read(source), destination.startswith("bin/") or (os.access(source, os.X_OK) and ".so" in destination))
        for path in args.sysroot_library:
            if not os.path.exists(path):
                raise SdkError(f"{path} is missing (Debian's cross C library: ./bazelw installs it)")
            add("lib/" + os.path.basename(path), _read(path), True)
        executorch = executorch_info(args.executorch_info)
        if description.get("linker_script"):
            for component in description["components"]:
                if component["name"] == "embedded":
                    component["link_options"] = component.get("link_options", []) + bare_metal_link_options(
                        description, "${PTEFORGE_PREFIX}/" + description["linker_script"])
        cpu, cxx_abi = abi_flags(description) if description.get("linker_script") else ([], [])
        description["cpu_flags"], description["cxx_abi_flags"] = cpu, cxx_abi
        add("lib/cmake/pteforge/pteforgeConfig.cmake", cmake_config(description, templates).encode())
        add("lib/cmake/pteforge/pteforgeConfigVersion.cmake",
            Template(templates["pteforgeConfigVersion.cmake.in"]).substitute(VERSION=description["version"]).encode())
        for component in description["components"]:
            pc = dict(component)
            if "link_options" in pc:  # pkg-config has no ${PTEFORGE_PREFIX}
                pc["link_options"] = [flag.replace("${PTEFORGE_PREFIX}", "${prefix}") for flag in pc["link_options"]]
            add(f"lib/pkgconfig/pteforge-{component['name']}.pc", pkg_config(description, pc, templates).encode())
        everything = {"name": "all", "requires": [c["name"] for c in description["components"]], "archive": None,
                      "whole_archive": None, "shared_libraries": [], "link_flags": [], "defines": [],
                      "include_dirs": []}
        add("lib/pkgconfig/pteforge.pc", pkg_config(description, everything, templates)
            .replace("Name: pteforge-all", "Name: pteforge").encode())
        if description.get("toolchain_template"):
            add("share/pteforge/toolchain.cmake", toolchain_file(description, templates).encode())
        programs = []
        for destination, (data, _) in sorted(entries.items()):
            if destination.startswith("share/pteforge/programs/") and destination.endswith(".pte"):
                programs.append({"file": destination, "sha256": _sha256(data), "bytes": len(data)})
        kernels = kernels_report({name: data for name, (data, _) in entries.items()
                                  if name.startswith("share/pteforge/") and "/programs/" not in name})
        add("share/pteforge/sdk.json", sdk_json(description, executorch, programs, kernels).encode())
        add("README.txt", Template(templates["README.txt.in"]).substitute(
            ROOT=args.root, VERSION=description["version"], TARGET=description["target"],
            COMPONENTS=" ".join(c["name"] for c in description["components"]),
            EXECUTORCH=f"{executorch.get('version')} (commit {executorch.get('commit')})",
        ).encode())
    except SdkError as error:
        print(f"make_sdk: error: {error}", file=sys.stderr)
        return 1
    temporary = args.out + ".tmp"
    with tarfile.open(temporary, "w", format=tarfile.GNU_FORMAT) as archive:
        folders = set()
        for name in sorted(entries):
            parts = name.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                folders.add("/".join(parts[:i]))
        for folder in sorted(folders):
            info = tarfile.TarInfo(f"{args.root}/{folder}")
            info.type, info.mode, info.mtime, info.uname, info.gname = tarfile.DIRTYPE, 0o755, 0, "root", "root"
            archive.addfile(info)
        for name, (data, executable) in sorted(entries.items()):
            info = tarfile.TarInfo(f"{args.root}/{name}")
            info.size, info.mode, info.mtime, info.uname, info.gname = (
                len(data), 0o755 if executable else 0o644, 0, "root", "root")
            archive.addfile(info, io.BytesIO(data))
    os.replace(temporary, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
