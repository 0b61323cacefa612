"""What README.md and docs/*.md refer to: Bazel labels, repository paths, tools' flags and
`--config`s. Docs that cannot rot rest on it:

  - docs/references.bzl lists every target the pages name; //docs:references depends on
    all of them, so Bazel refuses to analyze the workspace when one is renamed or
    removed (a target the docs name is visible to //docs);
  - //docs:docs_test checks that the list is exactly what the pages name today, that
    every repository path they name exists, that every `--flag` given to one of
    pteforge's tools is in that tool's --help, and every `--config=x` is in .bazelrc;
  - the paths' evidence, one file for each (the file itself, a folder's BUILD file or
    first file, a stem's first file), is listed as labels in DOC_PATH_FILES and given to
    docs_test as data: the test sees the paths it checks as declared inputs (in its
    runfiles, as a remote executor does), and a deleted file fails the build. A file no
    target of its package uses must be in that package's exports_files for //docs to
    name it (Bazel says so: "Perhaps add 'exports_files([...])'").

After editing the pages, regenerate the list (it checks that each path exists):

    python3 docs/references.py --write

Standard library only: it runs before any venv exists.
"""

from __future__ import annotations

import itertools
import os
import re
import sys
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Top-level entries of the repository a documented path may start with.
_TOP = ("bazel/", "cc/", "python/", "models/", "tests/", "toolchains/", "third_party/", "benchmarks/", "examples/",
        "deploy/", "docs/", "tools/", ".ci/", "bazelw", "WORKSPACE", "BUILD.bazel", ".bazelrc")

# pteforge's tools as the pages call them -> the Bazel target whose --help lists the
# tool's flags. `python -m pteforge.export` is the exporter's command line.
TOOLS = {
    "pte_run": "//cc/tools:pte_run",
    "pte_replay": "//cc/tools:pte_replay",
    "translate": "//cc/tools:translate",
    # The same program as translate; its own target builds the full-size OPUS-MT model.
    "opus_translate": "//cc/tools:translate",
    "tokenize": "//cc/text:tokenize",
    "pteforge.export": "//python/pteforge:export",
    "pteforge-export": "//python/pteforge:export",
    "generate_text": "//python/pteforge/seq2seq:generate_text",
    "transcribe": "//cc/tools:transcribe",
}


def documents(root: str = ROOT) -> list[tuple[str, str]]:
    """(name, text) of README.md and every docs/*.md."""
    names = ["README.md"] + sorted(f"docs/{n}" for n in os.listdir(os.path.join(root, "docs")) if n.endswith(".md"))
    result = []
    for name in names:
        with open(os.path.join(root, name), encoding="utf-8") as handle:
            result.append((name, handle.read()))
    return result


def _expand_braces(word: str) -> list[str]:
    """`a_{x,y}_b` -> ["a_x_b", "a_y_b"] (as the pages abbreviate target families)."""
    parts = re.split(r"\{([^{}]*)\}", word)
    choices = [[part] if i % 2 == 0 else part.split(",") for i, part in enumerate(parts)]
    return ["".join(combination) for combination in itertools.product(*choices)]


def _code_spans(text: str) -> list[str]:
    """Inline `code` and the lines of ``` blocks, continuation lines joined. Blocks
    marked ```text (listings of other places, e.g. the arm64 bundle's files) are not
    about this repository and are left out."""
    spans = []
    for language, block in re.findall(r"```([a-z]*)\n(.*?)```", text, re.S):
        if language != "text":
            spans += block.replace("\\\n", " ").splitlines()
    prose = re.sub(r"```[a-z]*\n.*?```", "", text, flags=re.S)
    spans += re.findall(r"`([^`\n]+)`", prose)
    return spans


def labels(text: str) -> set[str]:
    """Bazel labels of this workspace the text names (patterns like //... excluded)."""
    found = set()
    for word in re.findall(r"(?<![\w:/@])//[^\s`'\")\]|,;{}]*(?:\{[^}\s]*\}[^\s`'\")\]|,;{}]*)*", text):
        word = word.split("=", 1)[0]  # --//x:setting=value
        if "..." in word or "*" in word:
            continue  # a pattern, not a label
        for label in _expand_braces(word.rstrip(".")):
            if label != "//" and not label.endswith(":all"):
                found.add(label)
    return found


def paths(text: str) -> set[str]:
    """Repository paths the text names in code spans (`cc/runtime/session.h`, `models/opus`)."""
    found = set()
    for span in _code_spans(text):
        for word in span.split():
            word = word.strip("()[],;:'\"").removeprefix("./")
            if word.startswith(_TOP) and not any(c in word for c in "<>*$=:"):
                found.add(word.rstrip("/.") or word)
    return found


def tool_flags(text: str) -> set[tuple[str, str]]:
    """(tool, flag) for every --flag the text gives one of pteforge's tools."""
    found = set()
    for span in _code_spans(text):
        words = span.split()
        tool = None
        for word in words:
            base = word.rsplit("/", 1)[-1].split(":")[-1]
            if base in TOOLS:
                tool = base
            elif tool is not None and word.startswith("--") and len(word) > 2:
                name = word[2:].split("=", 1)[0]
                if re.fullmatch(r"[a-z][a-z0-9_]*", name):
                    found.add((tool, name))
            elif word in ("|", "&&", ";"):
                tool = None
    return found


def configs(text: str) -> set[str]:
    """The names of every --config=x the text gives Bazel."""
    return set(re.findall(r"--config=([a-z0-9_]+)", text))


_BUILD_FILES = ("BUILD.bazel", "BUILD")


def evidence(path: str, root: str = ROOT) -> str:
    """The repository file that proves `path` names a file or folder of the repository, or
    is the stem of files (`cc/cli/executorch_log` for its .h and .cc): the file itself, a
    folder's BUILD file or else its first file (sorted, depth first), a stem's first file.

    Raises:
      ValueError: nothing at `path`.
    """
    full = os.path.join(root, path)
    if os.path.isfile(full):
        return path
    if os.path.isdir(full):
        for folder, subfolders, files in os.walk(full):
            subfolders.sort()
            chosen = [name for name in _BUILD_FILES if name in files] or sorted(files)
            if chosen:
                return os.path.relpath(os.path.join(folder, chosen[0]), root)
    folder, stem = os.path.split(full)
    if os.path.isdir(folder):
        named = sorted(n for n in os.listdir(folder) if n.startswith(stem + "."))
        if named:
            return os.path.relpath(os.path.join(folder, named[0]), root)
    raise ValueError(f"{path}: no such file or folder in the repository")


def file_label(path: str, root: str = ROOT) -> str:
    """The Bazel label of the source file at `path`: its package is the nearest folder
    above it with a BUILD file."""
    package = os.path.dirname(path)
    while package and not any(os.path.isfile(os.path.join(root, package, n)) for n in _BUILD_FILES):
        package = os.path.dirname(package)
    return f"//{package}:{os.path.relpath(path, package) if package else path}"


def everything(root: str = ROOT) -> tuple[set[str], set[str], set[tuple[str, str]], set[str]]:
    """Labels, paths, tool flags and configs named across all pages."""
    all_labels, all_paths, all_flags, all_configs = set(), set(), set(), set()
    for _, text in documents(root):
        all_labels |= labels(text)
        all_paths |= paths(text)
        all_flags |= tool_flags(text)
        all_configs |= configs(text)
    return all_labels, all_paths, all_flags, all_configs


def bzl_text(root: str = ROOT, path_files: list[str] | None = None) -> str:
    """docs/references.bzl for the pages as they are. `path_files` is DOC_PATH_FILES as
    listed (docs_test, which sees the paths' evidence but not the BUILD files that decide
    their labels); by default it is worked out in the source tree at `root`.

    Raises:
      ValueError: a page names a path that does not exist.
    """
    all_labels, all_paths, _, _ = everything(root)
    targets = sorted(label for label in all_labels if ":" in label and not label.endswith(".bzl"))
    # A package named as //a/b is checked as the folder a/b, and a file of Starlark
    # (load("//a:x.bzl", ...), not a target) as the path a/x.bzl.
    folders = sorted(label[2:] for label in all_labels if ":" not in label)
    folders += sorted(label[2:].replace(":", "/") for label in all_labels if label.endswith(".bzl"))
    named = sorted(set(all_paths) | set(folders))
    found = [evidence(path, root) for path in named]  # raises ValueError for a missing path
    if path_files is None:
        path_files = sorted({file_label(file, root) for file in found})
    lines = ["# Generated by `python3 docs/references.py --write` from README.md and docs/*.md: do not edit.",
             "# //docs:references depends on every target; //docs:docs_test checks the paths.", "",
             "DOC_TARGETS = ["]
    lines += [f'    "{label}",' for label in targets]
    lines += ["]", "", "DOC_PATHS = ["]
    lines += [f'    "{path}",' for path in named]
    lines += ["]", "", "# A file of each path above: //docs:docs_test's data (docs/references.py, evidence).",
              "DOC_PATH_FILES = ["]
    lines += [f'    "{label}",' for label in path_files]
    lines += ["]", ""]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if argv[1:] != ["--write"]:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        text = bzl_text()
    except ValueError as error:
        print(f"docs/references.py: error: a page names {error}", file=sys.stderr)
        return 1
    with open(os.path.join(HERE, "references.bzl"), "w", encoding="utf-8") as handle:
        handle.write(text)
    print(f"wrote docs/references.bzl ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
