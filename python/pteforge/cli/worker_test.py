"""pteforge-export as a Bazel persistent worker (pteforge.cli.worker): the protocol's
bytes, and a worker process answering export after export as fresh processes would."""

from __future__ import annotations

import os
import subprocess
import sys

from pteforge.cli import worker
from pteforge.support import testing

# make(): weights from torch's unseeded generator, which a worker puts back where it stood
# at start-up before each export (else the second export would get other weights);
# make(seed=...) seeds it, as the build's models do, for a comparison with a new process
# (whose unseeded generator starts elsewhere each time).
# The offset comes from a module beside it in packages without an __init__.py, as the
# build's models (models/silero_vad/) import theirs.
_FACTORY = """
import torch
from pteforge import MultiMethodExporter
from zoo.park import offsets


class Scale(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(4) + offsets.OFFSET)
        self.register_buffer("total", torch.zeros(4))

    def add(self, x):
        self.total.add_(x * self.weight)
        return self.total.clone()


def make(seed=None):
    if seed is not None:
        torch.manual_seed(int(seed))
    return MultiMethodExporter(Scale().eval(), name="scale").method("add", (torch.ones(4),))
"""


def test_request_and_response_bytes_are_bazels():
    # WorkRequest: arguments "--a" (field 1), an input {path "p", digest "d"} (field 2,
    # skipped), request_id 300 (field 3, a two-byte varint).
    request = b"\x0a\x03--a" + b"\x12\x06\x0a\x01p\x12\x01d" + b"\x18\xac\x02"
    assert worker.parse_request(request) == (["--a"], 300)
    # WorkResponse: exit_code 1, output "x", request_id 300, after its length.
    assert worker.encode_response(1, "x", 300) == b"\x08" + b"\x08\x01\x12\x01x\x18\xac\x02"


def _request(arguments: list[str], request_id: int) -> bytes:
    body = b"".join(b"\x0a" + worker._varint(len(a.encode())) + a.encode() for a in arguments)
    body += b"\x18" + worker._varint(request_id)
    return worker._varint(len(body)) + body


def _read_response(stream) -> tuple[int, str, int]:
    message = worker.read_request(stream)  # the same length-delimited framing
    assert message is not None, "the worker ended without answering"
    fields, position = {}, 0

    def read(count):
        nonlocal position
        position += count
        return message[position - count:position]

    while position < len(message):
        key = worker._read_varint(read)
        if key & 7 == 0:
            fields[key >> 3] = worker._read_varint(read)
        else:
            fields[key >> 3] = read(worker._read_varint(read)).decode()
    return fields.get(1, 0), fields.get(2, ""), fields.get(3, 0)


def test_a_worker_exports_as_fresh_processes_do(tmp_path):
    (tmp_path / "zoo" / "park").mkdir(parents=True)
    (tmp_path / "zoo" / "park" / "scale_model.py").write_text(_FACTORY)
    (tmp_path / "zoo" / "park" / "offsets.py").write_text("OFFSET = 0.0\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([".", *sys.path]))
    process = subprocess.Popen([sys.executable, "-m", "pteforge.export", "--persistent_worker"], cwd=tmp_path,
                               env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def export(request_id: int, *arguments: str) -> tuple[int, str]:
        process.stdin.write(_request(list(arguments), request_id))
        process.stdin.flush()
        exit_code, output, answered = _read_response(process.stdout)
        assert answered == request_id
        return exit_code, output

    try:
        status, output = export(1, "--model=zoo.park.scale_model:make", "--out=first.pte")
        assert status == 0, output
        assert "pteforge: verification: " in output and "wrote first.pte" in output
        status, output = export(2, "--model=zoo.park.scale_model:nothing", "--out=bad.pte")
        assert status == 2 and "zoo.park.scale_model has no function 'nothing'" in output
        assert not (tmp_path / "bad.pte").exists()
        status, output = export(3, "--model=zoo.park.scale_model:make", "--out=again.pte")
        assert status == 0, output
        # The workspace's modules are read again: an edit shows in the next export.
        (tmp_path / "zoo" / "park" / "offsets.py").write_text("OFFSET = 10.0\n")
        status, output = export(4, "--model=zoo.park.scale_model:make", "--out=edited.pte")
        assert status == 0, output
        (tmp_path / "zoo" / "park" / "offsets.py").write_text("OFFSET = 0.0\n")
        status, output = export(5, "--model=zoo.park.scale_model:make", "--model_args=seed=7", "--out=seeded.pte")
        assert status == 0, output
    finally:
        process.stdin.close()
        assert process.wait(timeout=60) == 0, process.stderr.read().decode()

    first = (tmp_path / "first.pte").read_bytes()
    assert (tmp_path / "again.pte").read_bytes() == first
    assert (tmp_path / "edited.pte").read_bytes() != first
    # A one-shot export, its command line in an @file as Bazel writes it, gives the same bytes.
    (tmp_path / "export.params").write_text("--model=zoo.park.scale_model:make\n--model_args=seed=7\n--out=one_shot.pte\n")
    one_shot = subprocess.run([sys.executable, "-m", "pteforge.export", "@export.params"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)
    assert one_shot.returncode == 0, one_shot.stderr
    assert (tmp_path / "one_shot.pte").read_bytes() == (tmp_path / "seeded.pte").read_bytes()
    # An @file that cannot be read: a clear message and status 2, no traceback.
    missing = subprocess.run([sys.executable, "-m", "pteforge.export", "@missing.params"], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=600)
    assert missing.returncode == 2
    assert "@missing.params: cannot read the argument file" in missing.stderr and "Traceback" not in missing.stderr


if __name__ == "__main__":
    testing.main(__file__)
