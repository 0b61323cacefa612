"""Command line for the exporter: flags, factory loading, output.

    python -m pteforge.export --model=models.stateful:make_exporter --out=stateful.pte \\
        [--backend=xnnpack] [--report=stateful.report.json] [--model_args=key=value ...] \\
        [--replay=stateful.replay.txt] [--plan_svg=stateful.plan.svg] [--verbose]
    python -m pteforge.export --hf_causal_lm=DIR_OR_GGUF --out=model.pte \\
        [--max_seq_len=512] [--backend=xnnpack] [--quantize=int8|int4] [--tokenizer_dir=DIR]
    python -m pteforge.export --hf_seq2seq=DIR --out=model.pte \
        [--max_source_len=128] [--max_target_len=128] [--max_rows=8] [--max_sources=8] \
        [--backend=xnnpack] [--quantize=int8] [--tokenizer_dir=DIR]

The factory is a function returning a configured MultiMethodExporter; --model_args
become its keyword arguments (as strings). --hf_causal_lm (first named --hf_model, which
still works) exports a Hugging Face causal LM folder, or a GGUF file, with pteforge.llm
(prefill / decode_step sharing the KV cache; docs/llm.md);
--hf_seq2seq an encoder-decoder folder (T5, BART, Marian, M2M100, Whisper) with
pteforge.seq2seq (encode / decode_step / reorder_cache sharing the cache; docs/seq2seq.md).
Exit status: 0 on success, 1 when the export fails (the message says what and how to
fix it), 2 for bad flags.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
import traceback
from typing import Callable

from absl import flags

from pteforge.support.quiet import quiet_dependencies, set_verbose
from pteforge.support.spec import BACKENDS

FLAGS = flags.FLAGS

flags.DEFINE_string("model", None, "Factory returning a MultiMethodExporter, as package.module:function.")
flags.DEFINE_string("out", None, "Path of the .pte to write.")
flags.DEFINE_enum("backend", "portable", list(BACKENDS), "Kernel backend for the program.")
flags.DEFINE_string("report", None, "Path of the report JSON (default: <out without .pte>.report.json).")
flags.DEFINE_multi_string("model_args", [], "key=value keyword arguments for the factory (strings).")
flags.DEFINE_string(
    "replay", None, "Also write the conformance replay record (calls and eager PyTorch's results) here."
)
flags.DEFINE_string("plan_svg", None, "Also draw the memory plan as an SVG picture here (pteforge.report.plan_svg).")
flags.DEFINE_string("hf_causal_lm", None, "A Hugging Face causal LM folder, or a GGUF file, to export (pteforge.llm), "
                    "instead of --model.")
flags.DEFINE_alias("hf_model", "hf_causal_lm")  # its first name, kept working
flags.DEFINE_integer("max_seq_len", 512, "With --hf_causal_lm: positions in the KV cache, prompt and generated tokens.")
flags.DEFINE_enum("quantize", "none", ["none", "int8", "int4"],
                  "With --hf_causal_lm: int8 weights per channel, or int4 weights per group of 32 (8da4w), with "
                  "dynamic int8 activations (needs --backend=xnnpack); with --hf_seq2seq: int8.")
flags.DEFINE_string("tokenizer_dir", None,
                    "With --hf_causal_lm or --hf_seq2seq: the tokenizer.json's folder (default: the model's).")
flags.DEFINE_string("hf_seq2seq", None, "A Hugging Face encoder-decoder folder to export (pteforge.seq2seq), "
                    "instead of --model.")
flags.DEFINE_integer("max_source_len", None, "With --hf_seq2seq: the longest source in tokens (default 128; "
                     "Whisper: fixed by the model).")
flags.DEFINE_integer("max_target_len", 128, "With --hf_seq2seq: most decoder positions, the start token included.")
flags.DEFINE_integer("max_rows", 8, "With --hf_seq2seq: most decoder rows at once (sources x beams).")
flags.DEFINE_integer("max_sources", None, "With --hf_seq2seq: most sources at once (default: --max_rows; 1 for "
                     "one source at a time, greedy or with beams, is fastest).")
flags.DEFINE_bool(
    "verbose", False, "Also show what torch, torchao and ExecuTorch print (held back by default)."
)


class CommandError(Exception):
    """A problem with the command line or the factory; exits with status 2."""


def _log_progress() -> None:
    """Shows pteforge's progress on stderr, one line per stage."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("pteforge: %(message)s"))
    ours = logging.getLogger("pteforge")
    ours.addHandler(handler)
    ours.setLevel(logging.INFO)
    ours.propagate = False  # absl's root handler would prefix every line


def parse_model_args(pairs: list[str]) -> dict[str, str]:
    """--model_args=key=value pairs as a dict."""
    result = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.isidentifier():
            raise CommandError(f"--model_args={pair!r}: expected key=value with an identifier key")
        if key in result:
            raise CommandError(f"--model_args: '{key}' given twice")
        result[key] = value
    return result


def load_factory(spec: str) -> Callable:
    """Imports package.module:function and returns the function."""
    module_name, sep, function_name = spec.partition(":")
    if not sep or not module_name or not function_name:
        raise CommandError(f"--model={spec!r}: expected package.module:function")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        raise CommandError(
            f"--model={spec!r}: cannot import {module_name} ({error}). Is it on PYTHONPATH "
            "(in Bazel: a deps entry of the pte_export target)?"
        ) from error
    factory = getattr(module, function_name, None)
    if factory is None or not callable(factory):
        available = sorted(name for name, value in vars(module).items() if callable(value) and not name.startswith("_"))
        raise CommandError(
            f"--model={spec!r}: {module_name} has no function '{function_name}'. "
            f"Its functions are: {', '.join(available) or '(none)'}."
        )
    return factory


# Flags that belong to one kind of export.
_LLM_FLAGS = ("max_seq_len",)
_SEQ2SEQ_FLAGS = ("max_source_len", "max_target_len", "max_rows", "max_sources")
_HF_FLAGS = ("quantize", "tokenizer_dir")


def _check_model_flags() -> None:
    """Exactly one of --model, --hf_causal_lm and --hf_seq2seq, and only its own flags."""
    sources = [name for name in ("model", "hf_causal_lm", "hf_seq2seq") if FLAGS[name].value]
    if len(sources) != 1:
        raise CommandError("give one of --model (a factory), --hf_causal_lm (a Hugging Face causal LM folder or a "
                           "GGUF file) and --hf_seq2seq (a Hugging Face encoder-decoder folder)")
    allowed = {"model": (), "hf_causal_lm": _LLM_FLAGS + _HF_FLAGS, "hf_seq2seq": _SEQ2SEQ_FLAGS + _HF_FLAGS}[sources[0]]
    for name in _LLM_FLAGS + _SEQ2SEQ_FLAGS + _HF_FLAGS:
        if FLAGS[name].present and name not in allowed:
            owners = [f"--{owner}" for owner, flags_of in (("hf_causal_lm", _LLM_FLAGS + _HF_FLAGS),
                                                           ("hf_seq2seq", _SEQ2SEQ_FLAGS + _HF_FLAGS))
                      if name in flags_of]
            extra = " (a --model factory takes --model_args)" if FLAGS.model else ""
            raise CommandError(f"--{name} is for {' and '.join(owners)} exports{extra}")
    if not FLAGS.model and FLAGS.model_args:
        raise CommandError(f"--model_args is for --model factories; --{sources[0]} takes "
                           f"{', '.join('--' + name for name in allowed)}")
    if FLAGS.quantize != "none" and FLAGS.backend != "xnnpack":
        raise CommandError(f"--quantize={FLAGS.quantize} needs --backend=xnnpack (the portable kernels have no "
                           "quantized matmul)")
    if FLAGS.hf_seq2seq and FLAGS.quantize == "int4":
        raise CommandError("--quantize=int4 is for --hf_causal_lm; --hf_seq2seq takes none or int8")


def _folder(flag: str) -> str:
    path = FLAGS[flag].value
    if not os.path.isdir(path):
        raise CommandError(f"--{flag}={path}: no such folder")
    return path


def _hf_factory() -> tuple[Callable, dict[str, str]]:
    """pteforge.llm's or pteforge.seq2seq's factory for --hf_causal_lm / --hf_seq2seq, and its
    arguments."""
    if FLAGS.hf_causal_lm:
        from pteforge.llm.export import make_exporter

        kwargs = {"hf_model": FLAGS.hf_causal_lm, "max_seq_len": str(FLAGS.max_seq_len)}
        if not os.path.exists(FLAGS.hf_causal_lm):
            raise CommandError(f"--hf_causal_lm={FLAGS.hf_causal_lm}: no such folder or file")
    else:
        from pteforge.seq2seq.export import make_exporter

        kwargs = {"hf_seq2seq": _folder("hf_seq2seq"), "max_target_len": str(FLAGS.max_target_len),
                  "max_rows": str(FLAGS.max_rows)}
        for name in ("max_source_len", "max_sources"):
            if FLAGS[name].value is not None:
                kwargs[name] = str(FLAGS[name].value)
    kwargs["quantize"] = FLAGS.quantize
    if FLAGS.tokenizer_dir:
        kwargs["tokenizer_dir"] = FLAGS.tokenizer_dir
    return make_exporter, kwargs


def main(argv: list[str]) -> int:
    """Runs one export; returns the exit status."""
    set_verbose(FLAGS.verbose)
    quiet_dependencies()  # before executorch is imported
    from pteforge.program.exporter import MultiMethodExporter
    from pteforge.support.errors import ExportError

    try:
        if len(argv) > 1:
            raise CommandError(f"unexpected arguments: {' '.join(argv[1:])} (all options are --flags)")
        _check_model_flags()
        if not FLAGS.out:
            raise CommandError("--out is required")
        out_dir = os.path.dirname(os.path.abspath(FLAGS.out))
        if not os.path.isdir(out_dir):
            raise CommandError(f"--out={FLAGS.out}: the folder {out_dir} does not exist")
        kwargs = parse_model_args(FLAGS.model_args)
        _log_progress()
        if FLAGS.hf_causal_lm or FLAGS.hf_seq2seq:
            factory, kwargs = _hf_factory()
        else:
            factory = load_factory(FLAGS.model)
        try:
            exporter = factory(**kwargs)
        except ExportError:
            raise
        except Exception as error:
            traceback.print_exc()
            flag = next(name for name in ("model", "hf_causal_lm", "hf_seq2seq") if FLAGS[name].value)
            source = f"--{flag}={FLAGS[flag].value}"
            raise CommandError(f"{source}: the factory raised {type(error).__name__}: {error}") from error
        if not isinstance(exporter, MultiMethodExporter):
            raise CommandError(
                f"--model={FLAGS.model}: the factory returned {type(exporter).__name__}, "
                "not a MultiMethodExporter"
            )
        program = exporter.export(backend=FLAGS.backend, record_replay=FLAGS.replay is not None)
        replaced = os.path.exists(FLAGS.out)
        written = list(program.save(FLAGS.out, FLAGS.report))
        if FLAGS.replay is not None:
            written.append(program.save_replay(FLAGS.replay))
        if FLAGS.plan_svg is not None:
            written.append(program.save_plan_svg(FLAGS.plan_svg))
    except CommandError as error:
        print(f"pteforge: error: {error}", file=sys.stderr)
        return 2
    except ExportError as error:
        print(f"pteforge: export failed: {error}\n(no .pte was written)", file=sys.stderr)
        return 1
    print(program.summary())
    total = sum(program.timings.values())
    print(f"wrote {', '.join(written[:-1])} and {written[-1]} in {total:.1f} s"
          + (" (replacing the previous .pte)" if replaced else ""))
    return 0
