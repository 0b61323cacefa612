"""A model's Jinja chat template as data the C++ chat (cc/llm/chat.h) renders exactly.

Most chat templates wrap each message in text that depends only on its role
(ChatML: "<|im_start|>user\\n" + content + "<|im_end|>\\n"). ChatFormat holds that:

    start             text before the first message (a BOS token's text, or "")
    roles             role -> (prefix, suffix) for system, user and assistant
    default_system    the system message the template adds when the conversation has
                      none (SmolLM2: "You are a helpful AI assistant named SmolLM, ..."),
                      or None
    end_of_turn       the special token that ends an assistant message ("<|im_end|>"),
                      which the model generates to end its reply; end_of_turn_id its id

and renders a conversation as start + [the default system message] + prefix + content
+ suffix per message + (the assistant's prefix: the generation prompt).

derive_chat_format reads these parts off renders of conversations with marker contents,
then checks them against transformers' apply_chat_template on CONVERSATIONS (1 to 3
turns, with and without a system message, with and without the generation prompt):
the same text, the same ids, and the same ids when each turn's new text and each reply
are tokenized on their own and joined (turn_pieces: how the C++ chat feeds the kept
cache). A
template that fails any check is an ExportError naming the template and the reason.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from pteforge.support.errors import ExportError

ROLES = ("system", "user", "assistant")

# Marker contents: a template that copies content verbatim shows each one once.
_MARKERS = {"system": "pteforgeSYSTEMmarker", "user": "pteforgeUSERmarker", "assistant": "pteforgeASSISTANTmarker"}

# What the derived format is checked against: realistic contents (several lines,
# non-ASCII, spaces and a newline at the ends, which a template that trims would drop).
_SYSTEM = "You are a terse assistant. Answer in one sentence."
_TURNS = (
    ("What is the capital of France?", "The capital of France is Paris."),
    ("And of Portugal?\nKeep it short.", " Lisbon — Lisboa, in Portuguese. "),
    (" Thanks! Café, naïve, 東京, 3 + 4 = 7.\n", "You're welcome!\n\nAnything else?"),
)


def _conversations() -> list[tuple[list[dict[str, str]], bool]]:
    """(messages, add_generation_prompt): 1 to 3 turns, with and without a system
    message, ending on a user message (prompt or not) or on an assistant's."""
    cases = []
    for system in (False, True):
        head = [{"role": "system", "content": _SYSTEM}] if system else []
        for turns in range(1, len(_TURNS) + 1):
            messages = list(head)
            for user, assistant in _TURNS[:turns]:
                messages += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
            cases += [(messages[:-1], True), (messages[:-1], False), (messages, False)]
    return cases


CONVERSATIONS = _conversations()


@dataclasses.dataclass(frozen=True)
class ChatFormat:
    """A chat template as per-role text (module docstring)."""

    start: str
    roles: dict[str, tuple[str, str]]
    default_system: str | None
    end_of_turn: str
    end_of_turn_id: int

    def render(self, messages: list[dict[str, str]], add_generation_prompt: bool) -> str:
        """The conversation's text, as the template renders it."""
        text = self.start
        if self.default_system is not None and (not messages or messages[0]["role"] != "system"):
            text += self._wrap("system", self.default_system)
        text += "".join(self._wrap(message["role"], message["content"]) for message in messages)
        return text + (self.roles["assistant"][0] if add_generation_prompt else "")

    def _wrap(self, role: str, content: str) -> str:
        prefix, suffix = self.roles[role]
        return prefix + content + suffix

    def to_json(self) -> bytes:
        """The form the .pte stores (constant chat_template; read by cc/llm/chat_template.h)."""
        data: dict[str, Any] = {
            "start": self.start,
            "roles": {role: {"prefix": prefix, "suffix": suffix} for role, (prefix, suffix) in self.roles.items()},
            "default_system": self.default_system,
            "end_of_turn": self.end_of_turn,
            "end_of_turn_id": self.end_of_turn_id,
        }
        return json.dumps(data, ensure_ascii=False, sort_keys=True).encode("utf-8")


class _Refused(Exception):
    """The template is not of the per-role kind; the message says why."""


def derive_chat_format(tokenizer, name: str) -> ChatFormat:
    """The ChatFormat of a transformers tokenizer's chat template, checked (module
    docstring). `name` names the template in errors (e.g. the model folder).

    Raises:
      ExportError: the template is not one ChatFormat reproduces exactly; the message
        names it and says why.
    """
    try:
        chat_format = _derive(tokenizer)
        _check(chat_format, tokenizer)
    except _Refused as reason:
        raise ExportError(f"the chat template of {name} cannot be rendered by pteforge's chat: {reason}. Export "
                          "without it (generate then takes plain prompts), or give the model a template whose "
                          "messages are wrapped in text that depends only on their role") from None
    return chat_format


def _render(tokenizer, messages: list[dict[str, str]], add_generation_prompt: bool = False) -> str:
    try:
        return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=add_generation_prompt)
    except Exception as error:  # noqa: BLE001 (Jinja raises anything, e.g. raise_exception())
        roles = "/".join(message["role"] for message in messages)
        raise _Refused(f"it fails on a {roles} conversation ({type(error).__name__}: {error})") from None


def _split(text: str, role: str) -> tuple[str, str]:
    marker = _MARKERS[role]
    if text.count(marker) != 1:
        raise _Refused(f"it does not copy a {role} message's content into the text once, unchanged")
    before, _, after = text.partition(marker)
    return before, after


def _derive(tokenizer) -> ChatFormat:
    # The chain system, user, assistant, user, assistant: each message must only add text.
    chain = [{"role": role, "content": _MARKERS[role]} for role in ("system", "user", "assistant")]
    chain += [{"role": "user", "content": _MARKERS["user"] + "2"}, {"role": "assistant",
                                                                   "content": _MARKERS["assistant"] + "2"}]
    texts = [_render(tokenizer, chain[:count]) for count in range(1, len(chain) + 1)]
    pieces = [texts[0]]
    for before, after in zip(texts, texts[1:]):
        if not after.startswith(before):
            raise _Refused("adding a message changes the text of the messages before it")
        pieces.append(after[len(before):])
    roles: dict[str, tuple[str, str]] = {}
    # The last message's suffix is what follows its content when it is last.
    for index, role in enumerate(("system", "user", "assistant")):
        prefix, suffix = _split(pieces[index], role)
        roles[role] = (prefix, suffix)
    system_head = roles["system"][0]  # the conversation's start and the system prefix together

    # Without a system message: either the start alone, or a default system message.
    first_user = _render(tokenizer, [chain[1]])
    head, _ = _split(first_user, "user")
    user_prefix = roles["user"][0]
    if not head.endswith(user_prefix):
        raise _Refused("the first user message is wrapped differently from later ones")
    head = head[:len(head) - len(user_prefix)]
    system_suffix = roles["system"][1]
    if system_head.startswith(head) and len(head) < len(system_head):
        start, default_system = head, None
        roles["system"] = (system_head[len(head):], system_suffix)
    elif head.startswith(system_head) and head.endswith(system_suffix):
        start, default_system = "", head[len(system_head):len(head) - len(system_suffix)]
    else:
        raise _Refused("what it puts before the first message depends on the messages in a way that is neither "
                       "a fixed start nor a default system message")

    prompt = _render(tokenizer, chain[:2], add_generation_prompt=True)
    if prompt[len(texts[1]):] != roles["assistant"][0] or not prompt.startswith(texts[1]):
        raise _Refused("its generation prompt is not the text that starts an assistant message in the "
                       "conversation, so a generated reply would not read as the conversation does")
    end_of_turn, end_of_turn_id = _end_of_turn(tokenizer, roles["assistant"][1])
    return ChatFormat(start, roles, default_system, end_of_turn, end_of_turn_id)


def _end_of_turn(tokenizer, assistant_suffix: str) -> tuple[str, int]:
    """The special token the assistant's suffix starts with: the model generates it to
    end a reply, and generation stops there."""
    specials = [token for token in tokenizer.all_special_tokens if assistant_suffix.startswith(token)]
    if not specials:
        raise _Refused(f"an assistant message does not end with a special token (it ends with "
                       f"{assistant_suffix!r}), so the end of a reply cannot be recognised")
    token = max(specials, key=len)
    return token, int(tokenizer.convert_tokens_to_ids(token))


def _check(chat_format: ChatFormat, tokenizer) -> None:
    """The format against apply_chat_template on CONVERSATIONS: text, ids, and ids turn by
    turn."""
    for messages, add_generation_prompt in CONVERSATIONS:
        expected = _render(tokenizer, messages, add_generation_prompt)
        text = chat_format.render(messages, add_generation_prompt)
        roles = "/".join(message["role"] for message in messages)
        if text != expected:
            raise _Refused(f"on a {roles} conversation{' with the generation prompt' if add_generation_prompt else ''}"
                           f" it renders {expected!r}, where its parts give {text!r}")
        ids = tokenizer.apply_chat_template(messages, tokenize=True, add_generation_prompt=add_generation_prompt,
                                            return_dict=True)["input_ids"]
        if list(ids) != _encode(tokenizer, text):
            raise _Refused(f"apply_chat_template's ids for a {roles} conversation are not its text's ids")
        if add_generation_prompt and list(ids) != turn_by_turn_ids(chat_format, tokenizer, messages):
            raise _Refused(f"a {roles} conversation tokenized one turn at a time gives other ids than tokenized "
                           "whole: its turns do not join at special tokens")


def _encode(tokenizer, text: str) -> list[int]:
    # As apply_chat_template: the template writes the special tokens itself.
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def turn_pieces(chat_format: ChatFormat, messages: list[dict[str, str]]) -> list[str]:
    """The texts the C++ chat (cc/llm/chat.cc) tokenizes one after the other for
    `messages` (ending on a user message, with the generation prompt): up to the first
    generation prompt; then per assistant reply its content (which the model generates)
    and the rest up to the next generation prompt, the reply's suffix first."""
    pieces, current = [], ""
    for index, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        before = chat_format.render(messages[:index], add_generation_prompt=True)
        pieces += [before[len(current):], message["content"]]
        current = before + message["content"]
    pieces.append(chat_format.render(messages, add_generation_prompt=True)[len(current):])
    return pieces


def turn_by_turn_ids(chat_format: ChatFormat, tokenizer, messages: list[dict[str, str]]) -> list[int]:
    """The ids of turn_pieces, each tokenized on its own."""
    return [token for piece in turn_pieces(chat_format, messages) for token in _encode(tokenizer, piece)]
