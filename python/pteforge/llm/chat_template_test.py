"""chat_template: the parts read off a template render every test conversation as
transformers' apply_chat_template does (text and ids, whole and turn by turn), and
templates those parts cannot reproduce are refused with the reason."""

import pytest
import transformers

from pteforge import ExportError
from pteforge.support import testing
from pteforge.llm import chat_template
from pteforge.llm.from_gguf import testing as testing_gguf

_CORPUS = ["What is the capital of France? The capital of France is Paris.", "Café, naïve, 東京 — it's fine!",
           "You are a helpful assistant. Answer in one sentence, please."] * 20

# ChatML with a start token and no default system message.
_START_CHATML = ("<|endoftext|>{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + "
                 "message['content'] + '<|im_end|>\n'}}{% endfor %}"
                 "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")


def _tokenizer(template: str):
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=testing_gguf.chat_tokenizer(_CORPUS, vocab_size=500), bos_token="<|im_start|>",
        eos_token="<|im_end|>", unk_token="<|endoftext|>")
    tokenizer.chat_template = template
    return tokenizer


def test_smollm2_template_parts():
    chat_format = chat_template.derive_chat_format(_tokenizer(testing_gguf.SMOLLM2_CHAT_TEMPLATE), "smollm2")
    assert chat_format.start == ""
    assert chat_format.roles == {role: (f"<|im_start|>{role}\n", "<|im_end|>\n") for role in chat_template.ROLES}
    assert chat_format.default_system == "You are a helpful AI assistant named SmolLM, trained by Hugging Face"
    assert (chat_format.end_of_turn, chat_format.end_of_turn_id) == ("<|im_end|>", 2)


def test_a_start_token_without_default_system():
    chat_format = chat_template.derive_chat_format(_tokenizer(_START_CHATML), "start")
    assert (chat_format.start, chat_format.default_system) == ("<|endoftext|>", None)
    assert chat_format.roles["system"] == ("<|im_start|>system\n", "<|im_end|>\n")


@pytest.mark.parametrize("template", [testing_gguf.SMOLLM2_CHAT_TEMPLATE, _START_CHATML])
def test_parts_render_as_transformers(template):
    tokenizer = _tokenizer(template)
    chat_format = chat_template.derive_chat_format(tokenizer, "t")
    conversations = chat_template.CONVERSATIONS
    assert len(conversations) == 18 and {len(m) for m, _ in conversations} == {1, 2, 3, 4, 5, 6, 7}
    for messages, prompt in conversations:
        expected = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=prompt)
        assert chat_format.render(messages, prompt) == expected
        if prompt:
            pieces = chat_template.turn_pieces(chat_format, messages)
            assert "".join(pieces) == expected
            whole = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_dict=True)["input_ids"]
            assert chat_template.turn_by_turn_ids(chat_format, tokenizer, messages) == list(whole)


_CHATML = "'<|im_start|>' + message['role'] + '\n' + {content} + '<|im_end|>\n'"
_LOOP = "{{% for message in messages %}}{{{{ {body} }}}}{{% endfor %}}"
_PROMPT = "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"


@pytest.mark.parametrize("template, reason", [
    (_LOOP.format(body=_CHATML.format(content="message['content'] | trim")) + _PROMPT,
     r"on a user/assistant/user/assistant conversation it renders [\s\S]* where its parts give"),
    ("{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
     + _LOOP.format(body=_CHATML.format(content="message['content']")) + _PROMPT,
     r"it fails on a system conversation \(TemplateError: System role not supported\)"),
    (_LOOP.format(body="message['role'] + ': ' + message['content'] + '\n'")
     + "{% if add_generation_prompt %}{{ 'assistant: ' }}{% endif %}",
     r"an assistant message does not end with a special token \(it ends with '\\n'\)"),
    (_LOOP.format(body=_CHATML.format(content="message['content']"))
     + "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n<think>\n' }}{% endif %}",
     "its generation prompt is not the text that starts an assistant message"),
    # " The" is one token in a whole conversation, two when the reply starts after ": ".
    (_LOOP.format(body="'<|im_start|>' + message['role'] + ': ' + message['content'] + '<|im_end|>'")
     + "{% if add_generation_prompt %}{{ '<|im_start|>assistant: ' }}{% endif %}",
     "a user/assistant/user conversation tokenized one turn at a time gives other ids than tokenized whole"),
    ("{% for message in messages %}{% if loop.last %}{{ '<|im_start|>' + message['role'] + ':' + message['content'] }}"
     "{% else %}" + "{{ " + _CHATML.format(content="message['content']") + " }}{% endif %}{% endfor %}",
     "adding a message changes the text of the messages before it"),
])
def test_templates_it_cannot_reproduce_are_refused(template, reason):
    with pytest.raises(ExportError, match=r"the chat template of my_model cannot be rendered by pteforge's chat: "
                                          + reason):
        chat_template.derive_chat_format(_tokenizer(template), "my_model")


if __name__ == "__main__":
    testing.main(__file__)
