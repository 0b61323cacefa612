"""Builds pteforge's wheel from the package's sources (//python:wheel).

    build_wheel.py <out.whl> <pyproject.toml> <setup.py> <README.md> <pteforge/*.py ...>

The sources are copied to a scratch tree (setuptools writes its build files next to
them) and built with pip and setuptools from pteforge's own environment, offline and
without build isolation; SOURCE_DATE_EPOCH fixes the archive's timestamps.
"""

import os
import shutil
import subprocess
import sys
import tempfile

# Where the package's sources are in the workspace.
_PACKAGE_ROOT = "python/pteforge/"


def main(argv: list[str]) -> int:
    if len(argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    out, metadata, modules = argv[0], argv[1:4], argv[4:]
    with tempfile.TemporaryDirectory() as scratch:
        source = os.path.join(scratch, "src")
        os.makedirs(os.path.join(source, "pteforge"))
        for path in metadata:
            shutil.copy(path, source)
        for path in modules:
            # Subpackages keep their folder (pteforge/cortex_m/ops.py).
            relative = path.split(_PACKAGE_ROOT, 1)[1] if _PACKAGE_ROOT in path else os.path.basename(path)
            os.makedirs(os.path.dirname(os.path.join(source, "pteforge", relative)), exist_ok=True)
            shutil.copy(path, os.path.join(source, "pteforge", relative))
        dist = os.path.join(scratch, "dist")
        environment = dict(os.environ, SOURCE_DATE_EPOCH="315532800", PIP_NO_CACHE_DIR="1")
        result = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
             "--quiet", "-w", dist, source],
            env=environment, capture_output=True, text=True)
        if result.returncode != 0:
            print(f"build_wheel: pip wheel failed:\n{result.stdout}{result.stderr}", file=sys.stderr)
            return 1
        (wheel,) = os.listdir(dist)
        if os.path.basename(out) != wheel:
            print(f"build_wheel: pip built {wheel}, the rule declares {os.path.basename(out)} "
                  "(update the version in python/BUILD.bazel)", file=sys.stderr)
            return 1
        shutil.copy(os.path.join(dist, wheel), out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
