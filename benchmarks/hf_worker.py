"""Benchmark worker: Hugging Face transformers eager generate on a Marian checkpoint.

Usage: hf_worker.py <checkpoint> <sentences.txt> <tokens> <beams> <threads>
Prints JSON lines: {"load_ms"}, then per sentence {"source_tokens", "generated_tokens",
"encode_ms", "total_ms"}. Exactly <tokens> tokens are generated per sentence
(min_length = max_length), so engines compare equal work.
"""

import json
import sys
import time

from pteforge.support.quiet import quiet_dependencies


def main(argv: list[str]) -> int:
    checkpoint, sentences, tokens, beams, threads = argv[1], argv[2], int(argv[3]), int(argv[4]), int(argv[5])
    quiet_dependencies()
    import torch
    from transformers import MarianMTModel, MarianTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    torch.set_num_threads(threads)
    start = time.perf_counter()
    model = MarianMTModel.from_pretrained(checkpoint, local_files_only=True).eval()
    tokenizer = MarianTokenizer.from_pretrained(checkpoint, local_files_only=True)
    print(json.dumps({"load_ms": (time.perf_counter() - start) * 1e3}), flush=True)
    length = tokens + 1  # generate counts the decoder start token
    with open(sentences, encoding="utf-8") as f:
        lines = [line.strip() for line in f if line.strip()]
    with torch.inference_mode():
        for text in lines:
            inputs = tokenizer([text], return_tensors="pt")
            start = time.perf_counter()
            model.get_encoder()(**inputs)
            encode_ms = (time.perf_counter() - start) * 1e3
            start = time.perf_counter()
            output = model.generate(**inputs, num_beams=beams, min_length=length, max_length=length, do_sample=False)
            total_ms = (time.perf_counter() - start) * 1e3
            print(json.dumps({"source_tokens": inputs["input_ids"].shape[1], "generated_tokens": output.shape[1] - 1,
                              "encode_ms": encode_ms, "total_ms": total_ms}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
