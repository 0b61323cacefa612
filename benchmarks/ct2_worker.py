"""Benchmark worker: CTranslate2 on a converted Marian checkpoint.

Usage: ct2_worker.py <ct2_model_dir> <checkpoint> <sentences.txt> <tokens> <beams> <threads> <compute_type>
Prints JSON lines like hf_worker.py. CTranslate2 has no encoder-only call, so
"encode_ms" is the time of a translation limited to one decoding step.
"""

import json
import sys
import time

from pteforge.support.quiet import quiet_dependencies


def main(argv: list[str]) -> int:
    model_dir, checkpoint, sentences = argv[1], argv[2], argv[3]
    tokens, beams, threads, compute_type = int(argv[4]), int(argv[5]), int(argv[6]), argv[7]
    quiet_dependencies()
    import ctranslate2
    from transformers import MarianTokenizer

    tokenizer = MarianTokenizer.from_pretrained(checkpoint, local_files_only=True)
    start = time.perf_counter()
    translator = ctranslate2.Translator(model_dir, device="cpu", compute_type=compute_type,
                                        intra_threads=threads, inter_threads=1)
    print(json.dumps({"load_ms": (time.perf_counter() - start) * 1e3}), flush=True)
    with open(sentences, encoding="utf-8") as f:
        lines = [line.strip() for line in f if line.strip()]
    for text in lines:
        source = tokenizer.convert_ids_to_tokens(tokenizer(text)["input_ids"])
        start = time.perf_counter()
        translator.translate_batch([source], beam_size=beams, max_decoding_length=1, min_decoding_length=1)
        encode_ms = (time.perf_counter() - start) * 1e3
        start = time.perf_counter()
        result = translator.translate_batch([source], beam_size=beams, min_decoding_length=tokens,
                                            max_decoding_length=tokens, return_end_token=True)
        total_ms = (time.perf_counter() - start) * 1e3
        print(json.dumps({"source_tokens": len(source), "generated_tokens": len(result[0].hypotheses[0]),
                          "encode_ms": encode_ms, "total_ms": total_ms}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
