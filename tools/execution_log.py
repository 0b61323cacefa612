"""Bazel's JSON execution log (--execution_log_json_file), read by the checks of the
shared cache (tools/remote_cache/check) and of remote execution (tools/remote_exec)."""

import json


def spawns(path: str) -> list[dict]:
    """The spawns of a JSON execution log: one JSON object after another, not a list."""
    text, decoder, index, found = open(path).read(), json.JSONDecoder(), 0, []
    while index < len(text):
        while index < len(text) and text[index].isspace():
            index += 1
        if index == len(text):
            break
        value, index = decoder.raw_decode(text, index)
        found.append(value)
    return found


def outputs(spawn: dict) -> list[str]:
    """The paths (under the execroot) a spawn wrote."""
    return [item["path"] if isinstance(item, dict) else str(item) for item in spawn.get("listedOutputs", [])]
