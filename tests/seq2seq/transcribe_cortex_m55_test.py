"""Whisper on the microcontroller: the tiny Whisper of models/seq2seq on the emulated
Cortex-M55 (//cc/tools:transcribe_cortex_m55, qemu-system-arm -M mps3-an547) gives, for
every window of speech made with espeak-ng (tests/vad), the token ids the x86_64
transcribe tool gives on the same .pte and WAV file, greedy and with 4 beams.

The device reads the WAV through semihosting and computes each window's log-mel
features, runs the encoder and the search; the tokenizer stays on the host, so the
decoder prompt's ids (<|en|> <|transcribe|> <|notimestamps|>) come from the model's
tokenizer.json here, in a file the device reads, and the device prints ids.
"""

import os
import re
import subprocess

import pytest
from runfiles import runfiles
from tokenizers import Tokenizer

from pteforge.support import testing

_RUNFILES = runfiles.Create()
TRANSCRIBE = _RUNFILES.Rlocation("pteforge/cc/tools/transcribe")
IMAGE = _RUNFILES.Rlocation("pteforge/tests/seq2seq/transcribe_cortex_m55.sh")
PROGRAM = _RUNFILES.Rlocation("pteforge/models/seq2seq/tiny_whisper_portable.pte")
TOKENIZER = _RUNFILES.Rlocation("pteforge/models/seq2seq/tiny_whisper/tokenizer.json")
SPEECH = _RUNFILES.Rlocation("pteforge/tests/vad/audio/en_us_16k.wav")
PROMPT = ["<|en|>", "<|transcribe|>", "<|notimestamps|>"]


def _run(*command: str) -> str:
    result = subprocess.run(command, capture_output=True, text=True, timeout=1200, check=False)
    assert result.returncode == 0, f"{' '.join(command)} exited with {result.returncode}:\n{result.stderr}{result.stdout}"
    return result.stdout


def _ids(output: str) -> list[list[int]]:
    return [[int(i) for i in line.split()[1:]] for line in output.splitlines() if line.strip().startswith("ids:")]


@pytest.fixture
def prompt_file(tmp_path) -> str:
    tokenizer = Tokenizer.from_file(TOKENIZER)
    prompt = [tokenizer.token_to_id(token) for token in PROMPT]
    assert None not in prompt
    path = os.path.join(tmp_path, "prompt.txt")
    with open(path, "w") as f:
        f.write(" ".join(map(str, prompt)) + "\n")
    return path


@pytest.mark.parametrize("beams", [1, 4])
def test_device_ids_equal_x86_64(beams, prompt_file):
    host = _ids(_run(TRANSCRIBE, "--quiet", "--decoding=windows", "--print_ids", f"--beams={beams}",
                     f"--model={PROGRAM}", SPEECH))
    output = _run(IMAGE, f"--input={SPEECH}", f"--prompt={prompt_file}", f"--beams={beams}")
    print(output)
    device = _ids(output)
    assert len(host) == 31  # 9.9 s in 0.32 s windows
    assert device == host
    # Windows of different speech give different ids: the comparison is not of constants.
    assert len({tuple(ids) for ids in device}) > 10
    assert re.search(r"transcribed 31 windows in \d+ ms", output)


def test_device_refuses_a_bad_prompt(tmp_path):
    path = os.path.join(tmp_path, "bad_prompt.txt")
    with open(path, "w") as f:
        f.write("1 x\n")
    result = subprocess.run([IMAGE, f"--input={SPEECH}", f"--prompt={path}"], capture_output=True, text=True,
                            timeout=600, check=False)
    assert result.returncode == 2
    assert "--prompt" in result.stderr and "'x'" in result.stderr


if __name__ == "__main__":
    testing.main(__file__)
