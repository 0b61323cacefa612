"""Writes what Hugging Face produces for a Marian checkpoint: the tokenizer's input ids
and generate()'s output ids, for batches of sentences with greedy and beam search.
cc/seq2seq's parity test must reproduce every id (opus_parity_test.cc).

Usage: hf_reference.py <checkpoint_dir> <sentences.txt> <max_length> <output.txt>

Output format, one record per line:
  case <beams> <max_length>      a batch follows, translated together
  sentence <text>
  source <ids>                   MarianTokenizer's input ids (with </s>)
  output <ids>                   generate()'s ids, start token and padding removed
"""

import sys

from pteforge.support.quiet import held_back, quiet_dependencies

# Batches (as indices into the sentence file) and beam widths: greedy and beams, one
# sentence and several (padded to the longest).
CASES = [
    (1, [0]), (1, [1]), (1, [2, 3, 4]), (1, [5, 6, 7, 8, 9, 10, 11, 12]),
    (4, [0]), (4, [3]), (4, [5, 13]), (2, [1, 2, 6, 14]),
]


def main(argv: list[str]) -> int:
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    quiet_dependencies()
    with held_back():  # transformers' advice to install sacremoses, which we do not need
        return _write_reference(argv)


def _write_reference(argv: list[str]) -> int:
    import torch
    from transformers import MarianMTModel, MarianTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    directory, sentences_path, max_length, out_path = argv[1], argv[2], int(argv[3]), argv[4]
    with open(sentences_path, encoding="utf-8") as f:
        sentences = [line.rstrip("\n") for line in f if line.strip()]
    model = MarianMTModel.from_pretrained(directory, attn_implementation="eager", local_files_only=True).eval()
    tokenizer = MarianTokenizer.from_pretrained(directory, local_files_only=True)
    pad, start = model.config.pad_token_id, model.config.decoder_start_token_id
    lines = []
    for beams, indices in CASES:
        batch = [sentences[i] for i in indices]
        inputs = tokenizer(batch, return_tensors="pt", padding=True)
        with torch.no_grad():
            output = model.generate(**inputs, num_beams=beams, max_length=max_length, do_sample=False)
        lines.append(f"case {beams} {max_length}")
        for row, text in enumerate(batch):
            source = inputs["input_ids"][row][inputs["attention_mask"][row].bool()].tolist()
            ids = output[row].tolist()
            assert ids[0] == start, ids
            ids = ids[1:]
            while ids and ids[-1] == pad:
                ids.pop()
            lines += [f"sentence {text}", "source " + " ".join(map(str, source)), "output " + " ".join(map(str, ids))]
    with open(out_path, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
