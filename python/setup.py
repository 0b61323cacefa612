"""The package's modules without its tests: pteforge's tests sit next to the code
(*_test.py, testing*.py) and are not part of what users install."""

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithoutTests(build_py):
    def find_package_modules(self, package, package_dir):
        return [
            (pkg, module, path)
            for pkg, module, path in super().find_package_modules(package, package_dir)
            if not module.endswith("_test") and not module.startswith("testing")
        ]


setup(cmdclass={"build_py": BuildWithoutTests})
