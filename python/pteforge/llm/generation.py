"""load_causal_lm: a causal-LM .pte in ExecuTorch's Python runtime (pteforge.load), with
the position kept on this side so that the cache's limit is a clear error.

    lm = load_causal_lm("model.pte")
    tokens = lm.greedy([1, 15043, 3186], max_new_tokens=20)   # as generate(do_sample=False)

The C++ equivalent, with sampling and a tokenizer, is cc/llm/causal_lm.h.
"""

from __future__ import annotations

import os

import torch

from pteforge.llm.program_constants import FAMILY, TOKENIZER_JSON
from pteforge.run.runtime import LoadedProgram


class CacheFullError(ValueError):
    """A prefill or decode_step would write past the last position of the cache."""


class LoadedCausalLm:
    """A loaded causal-LM program and the number of tokens in its cache.

    Not thread-safe (one conversation at a time). Args: source: .pte bytes or a path.
    """

    def __init__(self, source: bytes | str | os.PathLike):
        self.program = LoadedProgram(source)
        if "family" not in self.program.method_names or self._constant("family") != FAMILY:
            raise ValueError("this .pte is not a causal LM exported by pteforge.llm (no family='causal_lm' constant)")
        self.max_seq_len = int(self._constant("max_seq_len"))
        self.vocab_size = int(self._constant("vocab_size"))
        self.eos_token_ids = tuple(int(i) for i in self._constant("eos_token_ids").tolist())
        self.repetition_penalty = float(self._constant("repetition_penalty"))
        self.position = 0

    def _constant(self, name: str):
        (value,) = self.program.run(name)
        return value

    def tokenizer_json(self) -> bytes | None:
        """The tokenizer.json stored at export (None if it was exported without one)."""
        if TOKENIZER_JSON not in self.program.method_names:
            return None
        return bytes(self._constant(TOKENIZER_JSON).numpy().tobytes())

    def reset(self) -> None:
        """Empties the cache: the next prefill starts a new conversation."""
        self.program.reset_state()
        self.position = 0

    def prefill(self, ids: list[int]) -> torch.Tensor:
        """Processes `ids` (one or more) at the current position; the last one's logits [vocab]."""
        if not ids:
            raise ValueError("prefill needs at least one token")
        self._check_room(len(ids))
        tensor = torch.tensor([list(ids)], dtype=torch.int64)
        (logits,) = self.program.run("prefill" if len(ids) > 1 else "decode_step", tensor)
        self.position += len(ids)
        return logits[0]

    def decode_step(self, token: int) -> torch.Tensor:
        """Processes one token at the current position; its logits [vocab]."""
        return self.prefill([token])

    def greedy(self, prompt: list[int], max_new_tokens: int | None = None) -> list[int]:
        """As transformers' generate(do_sample=False) from an empty cache: the generated
        tokens, ending with an EOS token if one came, at most max_new_tokens, and at most
        max_seq_len tokens with the prompt (as a static cache of that size in transformers).
        The model's repetition_penalty applies, as in generate()."""
        self.reset()
        limit = self.max_seq_len - len(prompt)
        if max_new_tokens is not None:
            limit = min(limit, max_new_tokens)
        generated: list[int] = []
        logits = self.prefill(prompt)
        while len(generated) < limit:
            generated.append(int(torch.argmax(self._penalized(logits, prompt + generated))))
            if generated[-1] in self.eos_token_ids or len(generated) == limit:
                break
            logits = self.decode_step(generated[-1])
        return generated

    def _penalized(self, logits: torch.Tensor, context: list[int]) -> torch.Tensor:
        """transformers' RepetitionPenaltyLogitsProcessor, with the same arithmetic."""
        if self.repetition_penalty == 1.0:
            return logits
        ids = torch.tensor(sorted(set(context)), dtype=torch.int64)
        score = logits[ids]
        logits = logits.clone()
        logits[ids] = torch.where(score < 0, score * self.repetition_penalty, score / self.repetition_penalty)
        return logits

    def _check_room(self, count: int) -> None:
        if self.position + count > self.max_seq_len:
            raise CacheFullError(
                f"the cache holds max_seq_len={self.max_seq_len} tokens: {self.position} are used and "
                f"{count} more do not fit. Call reset() to start a new conversation, or export with a "
                "larger max_seq_len")


def load_causal_lm(source: bytes | str | os.PathLike) -> LoadedCausalLm:
    """Loads a .pte made by export_causal_lm; see LoadedCausalLm."""
    return LoadedCausalLm(source)
