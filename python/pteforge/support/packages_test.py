"""pteforge.support.packages: an installed package's folder and files found without
importing it, and clear errors naming what to install when they are missing."""

import os

import pytest

from pteforge.support import testing
from pteforge.support.packages import PackageFileNotFound, package_file, package_folder


def test_an_installed_packages_folder_and_files_are_found():
    folder = package_folder("absl", "absl-py")
    assert os.path.isfile(os.path.join(folder, "flags", "__init__.py"))
    assert package_file(folder, "flags/__init__.py", "absl-py").endswith("absl/flags/__init__.py")


def test_a_missing_package_says_what_to_install():
    with pytest.raises(PackageFileNotFound, match=r"the no-such-dist package is not installed: it ships the "
                                                  r"weights \(./bazelw installs it from third_party/python/"):
        package_folder("no_such_package_here", "no-such-dist", "the weights")
    with pytest.raises(FileNotFoundError, match="the no-such-dist package is not installed \\("):
        package_folder("no_such_package_here", "no-such-dist")


def test_a_missing_file_names_its_path_and_package():
    folder = package_folder("absl", "absl-py")
    with pytest.raises(PackageFileNotFound, match=r"absl/model\.bin is missing from the absl-py package"):
        package_file(folder, "model.bin", "absl-py")


if __name__ == "__main__":
    testing.main(__file__)
