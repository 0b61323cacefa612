"""A conversation turn by turn, fed as the C++ chat (cc/llm/chat.cc) feeds its kept
cache: the first turn's rendered text, then per turn the previous reply's suffix and
the new user message with the generation prompt, each tokenized alone; a reply's last
token stays out of the cache until the next turn, and a reply that ended on a stop token
gives it up to the suffix's text. For tests and checks: the golden data of
//cc/llm:chat_test, the real model's check (//models/smollm2:check).

    conversation = Conversation(tokenizer, chat_format, system=None, max_seq_len=1024)
    reply_ids, text = conversation.turn("What is the capital of France?", generate)

`generate(ids, max_new_tokens)` returns the greedy reply to the whole conversation's
`ids` (transformers' generate, or a program continuing its cache), ending with a stop
token when one came.
"""

from __future__ import annotations

from typing import Callable

from pteforge.llm.chat_template import ChatFormat

Generate = Callable[[list[int], int], list[int]]


class Conversation:
    def __init__(self, tokenizer, chat_format: ChatFormat, system: str | None, max_seq_len: int):
        self.tokenizer, self.format, self.max_seq_len = tokenizer, chat_format, max_seq_len
        self.messages = [{"role": "system", "content": system}] if system is not None else []
        self.ids: list[int] = []  # the cache's ids, then the last reply's last token
        self.stopped = True  # the last reply ended on a stop token

    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def stops(self, eos_ids: list[int]) -> list[int]:
        return [self.format.end_of_turn_id] + [i for i in eos_ids if i != self.format.end_of_turn_id]

    def turn_ids(self, user: str) -> list[int]:
        """The ids the turn adds after self.ids (from which it takes a stop token off)."""
        rendered = self.format.render(self.messages + [{"role": "user", "content": user}], True)
        if not self.ids:
            return self.encode(rendered)
        head = self.format.render([], False)  # the start and the default system message
        only_user = self.format.render([{"role": "user", "content": user}], True)[len(head):]
        if self.stopped:
            self.ids.pop()  # the suffix's text brings the end-of-turn token back
        return self.encode(self.format.roles["assistant"][1] + only_user)

    def turn(self, user: str, generate: Generate, max_new_tokens: int, stops: list[int],
             new_ids: list[int] | None = None) -> tuple[list[int], str]:
        """One turn (new_ids: the turn's ids if computed already); the reply's ids and
        text."""
        self.ids += self.turn_ids(user) if new_ids is None else new_ids
        reply = generate(list(self.ids), min(max_new_tokens, self.max_seq_len - len(self.ids)))
        self.stopped = reply[-1] in stops
        self.ids += reply
        text = self.tokenizer.decode(reply, skip_special_tokens=True)
        self.messages += [{"role": "user", "content": user}, {"role": "assistant", "content": text}]
        return reply, text

    def keep_last_turns(self, user: str, reply_room: int) -> tuple[int, list[int]]:
        """Chat::KeepLastTurns: the fewest earlier turns dropped that leave reply_room
        tokens; the count and the new conversation's ids."""
        system = [m for m in self.messages if m["role"] == "system"]
        rest = [m for m in self.messages if m["role"] != "system"]
        for drop in range(len(rest) // 2 + 1):
            kept = system + rest[2 * drop:] + [{"role": "user", "content": user}]
            ids = self.encode(self.format.render(kept, True))
            if len(ids) + reply_room <= self.max_seq_len:
                self.messages, self.ids, self.stopped = system + rest[2 * drop:], [], True
                return drop, ids
        raise ValueError("the message does not fit alone")


def transformers_generate(model, stops: list[int]) -> Generate:
    """Generate with transformers' greedy generate() from the whole conversation's ids."""
    import torch

    def generate(ids: list[int], max_new_tokens: int) -> list[int]:
        output = model.generate(torch.tensor([ids]), max_new_tokens=max_new_tokens, do_sample=False,
                                eos_token_id=stops, pad_token_id=stops[0])
        return output[0, len(ids):].tolist()
    return generate
