"""Outputs that do not depend on the target, made once, in the host configuration,
whichever configuration asks for them.

host_built_writer: a folder a writer rule makes (a model folder with random weights, a
checkpoint), forwarded as it is.

    host_built_writer(_tiny_seq2seq_writer, "tiny_t5", family = "t5", corpus = [...])

declares `tiny_t5_writer` (the writer rule, given folder = "tiny_t5" to name its output)
and `tiny_t5`, its files through host_files (bazel/on_target_test.bzl). Such outputs were
written twice in a cold build: in the host configuration for the exports that read them
(pte_export's inputs are cfg = "host") and again in the target configuration for the
tests that read them as data. The writer target is tagged manual: `//...` would otherwise
name it directly and write its output a second time, in the target configuration.

host_built_file: one file (generated_file's, bazel/cc.bzl) linked into the configuration
that asks for it, where #include and $(location) look for it.
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

def _host_built_file_impl(ctx):
    ctx.actions.symlink(output = ctx.outputs.out, target_file = ctx.file.src)
    return [DefaultInfo(files = depset([ctx.outputs.out]))]

host_built_file = rule(
    implementation = _host_built_file_impl,
    doc = "`out`, a link here to `src` as the host configuration builds it.",
    attrs = {
        "src": attr.label(allow_single_file = True, cfg = "host", mandatory = True),
        "out": attr.output(mandatory = True),
    },
)
