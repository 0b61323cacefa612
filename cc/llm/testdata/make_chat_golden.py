"""Golden data for //cc/llm:chat_test: conversations with the tiny chat model
(//models/llm:tiny_chat), each reply generated greedily by transformers from the whole
conversation's ids (no cache kept between turns), which the C++ chat must reproduce
turn by turn with its kept cache.

    make_chat_golden.py MODEL_DIR OUT.json

Per turn: the ids in the cache after it, the reply's ids and text,
and whether the reply re-tokenizes to its ids (what transformers' own chat loop does
when it renders the reply's text again; informational). The ids of a conversation
are those pteforge.llm.chat_template.turn_pieces gives, each reply as generated; the
exporter checked those joins against apply_chat_template. The overflow case: turns
whose ids pass max_seq_len, refused, then restarted with the last turns that leave a
quarter of max_seq_len for the reply.
"""

from __future__ import annotations

import json
import sys

from pteforge.support.quiet import held_back, quiet_dependencies

quiet_dependencies()

import transformers  # noqa: E402

from pteforge.llm import chat_template  # noqa: E402
from pteforge.llm.chat import Conversation, transformers_generate  # noqa: E402

MAX_SEQ_LEN = 256  # //models/llm:tiny_chat_xnnpack_pte's
MAX_NEW_TOKENS = 16

CONVERSATIONS = [
    {"system": None, "users": ["What is the capital of France?", "And of Portugal?", "Thanks! Café, 東京."]},
    {"system": "You are a terse assistant.", "users": ["Hello!", "Tell me about the weather today, please."]},
]
# Each message about 100 tokens (the tiny tokenizer's pieces are short): the second or
# third does not fit in 256 positions.
OVERFLOW = {"system": None, "users": ["The weather is nice today and the market is open until nine in the evening, "
                                      "so we will walk there after lunch with the children. " + str(i)
                                      for i in range(3)]}


def _turn(conversation, user, generate, stops, new_ids=None):
    reply, text = conversation.turn(user, generate, MAX_NEW_TOKENS, stops, new_ids)
    content = reply[:-1] if conversation.stopped else reply
    # What the cache holds after the turn: all but the reply's last token, on which no
    # step ran.
    return {"user": user, "cache_after": conversation.ids[:-1], "reply_ids": reply, "reply_text": text,
            "stop": "eos" if conversation.stopped else "max_new_tokens",
            "reply_retokenizes": conversation.encode(text) == content}


def main(argv):
    model_dir, out = argv
    # transformers' progress bars, and its note that the overflow case's conversation is
    # longer than the tokenizer's model_max_length (which is the point of that case).
    with held_back():
        golden = _golden(model_dir)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(golden, f, ensure_ascii=False, indent=1)
    return 0


def _golden(model_dir):
    model = transformers.AutoModelForCausalLM.from_pretrained(model_dir).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir)
    chat_format = chat_template.derive_chat_format(tokenizer, model_dir)
    eos = model.generation_config.eos_token_id
    golden = {"max_seq_len": MAX_SEQ_LEN, "max_new_tokens": MAX_NEW_TOKENS, "conversations": []}
    for case in CONVERSATIONS:
        conversation = Conversation(tokenizer, chat_format, case["system"], MAX_SEQ_LEN)
        stops = conversation.stops(eos if isinstance(eos, list) else [eos])
        generate = transformers_generate(model, stops)
        turns = [_turn(conversation, user, generate, stops) for user in case["users"]]
        assert len(conversation.ids) < MAX_SEQ_LEN, "a plain conversation must fit: shorten it"
        golden["conversations"].append({"system": case["system"], "turns": turns})

    conversation = Conversation(tokenizer, chat_format, None, MAX_SEQ_LEN)
    turns = []
    for user in OVERFLOW["users"]:
        cached = max(len(conversation.ids) - 1, 0)  # the reply's last token is not in the cache
        new_ids = conversation.turn_ids(user)
        if cached + 1 - conversation.stopped + len(new_ids) < MAX_SEQ_LEN:
            turns.append(_turn(conversation, user, generate, stops, new_ids))
            continue
        dropped, ids = conversation.keep_last_turns(user, MAX_SEQ_LEN // 4)
        turn = _turn(conversation, user, generate, stops, ids)
        turn.update(refused_with_cached=cached, dropped_turns=dropped)
        turns.append(turn)
        break
    golden["overflow"] = {"turns": turns, "reply_room": MAX_SEQ_LEN // 4}
    return golden


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
