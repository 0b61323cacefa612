"""host_built_writer: an output that does not depend on the target (a model folder with
random weights, a checkpoint), written once, in the host configuration, whichever
configuration asks for it.

    host_built_writer(_tiny_seq2seq_writer, "tiny_t5", family = "t5", corpus = [...])

declares `tiny_t5_writer` (the writer rule, given folder = "tiny_t5" to name its output)
and `tiny_t5`, its files through host_files (bazel/on_target_test.bzl). Such outputs were
written twice in a cold build: in the host configuration for the exports that read them
(pte_export's inputs are cfg = "host") and again in the target configuration for the
tests that read them as data. The writer target is tagged manual: `//...` would otherwise
name it directly and write its output a second time, in the target configuration.
"""

load(":on_target_test.bzl", "host_files")

def host_built_writer(writer, name, **kwargs):
    """`name`, the output `writer` (a rule with a `folder` attribute naming its output)
    writes in the host configuration; `<name>_writer` is the writer's target (manual: built
    only through `name`). testonly, visibility and tags apply to both."""
    common = {key: kwargs.pop(key) for key in ["testonly", "visibility", "tags"] if key in kwargs}
    writer_tags = common.get("tags", []) + ([] if "manual" in common.get("tags", []) else ["manual"])
    writer(name = name + "_writer", folder = name, **dict(kwargs, **dict(common, tags = writer_tags)))
    host_files(name = name, srcs = [":" + name + "_writer"], **common)
