"""Benchmark worker: one decoder step with cross-attention keys/values cached in shared
state vs recomputed from the stored encoder output (optimum-executorch's design).

Usage: step_worker.py <threads> <steps> <name>=<program.pte> ...
Prints JSON lines {"program", "source_tokens", "step_ms"}: the mean of `steps` decode
steps (batch 1) after encoding a source of 16, 64 and 128 tokens.
"""

import json
import sys
import time

from pteforge.quiet import quiet_dependencies

SOURCE_LENGTHS = (16, 64, 128)


def main(argv: list[str]) -> int:
    threads, steps, programs = int(argv[1]), int(argv[2]), argv[3:]
    quiet_dependencies()
    import torch
    from executorch.extension.pybindings import portable_lib

    import pteforge

    portable_lib._unsafe_reset_threadpool(threads)
    for spec in programs:
        name, _, path = spec.partition("=")
        program = pteforge.load(path)
        (pad,) = program.run("pad_token_id")
        for length in SOURCE_LENGTHS:
            ids = torch.randint(5, 300, (1, length))
            ids[0, -1] = 0
            mask = torch.ones(1, length, dtype=torch.int64)
            program.run("encode", ids, mask, torch.tensor([0]))
            token = torch.full((1, 1), pad)
            program.run("decode_step", token, mask, torch.ones(1, 1, dtype=torch.int64))  # warm up
            start = time.perf_counter()
            for t in range(1, steps + 1):
                program.run("decode_step", token, mask, torch.ones(1, t, dtype=torch.int64))
            step_ms = (time.perf_counter() - start) * 1e3 / steps
            print(json.dumps({"program": name, "source_tokens": length, "step_ms": step_ms}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
