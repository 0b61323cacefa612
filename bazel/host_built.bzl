"""host_built: a target's files built once, in the host configuration, whichever
configuration asks for them.

    host_built(name = "tiny_t5", src = ":tiny_t5_folder")

Files that do not depend on the target (a model folder with random weights, a
checkpoint) were written twice in a cold build: once in the host configuration for the
exports that read them (pte_export's inputs are cfg = "host") and once more in the
target configuration for the tests that read them as data. Through host_built both get
the host configuration's files: no action of its own, the same paths in runfiles.
"""

def _host_built_impl(ctx):
    built = ctx.attr.src[DefaultInfo]
    return [DefaultInfo(files = built.files, runfiles = built.default_runfiles)]

host_built = rule(
    implementation = _host_built_impl,
    doc = "The files and runfiles of `src`, built in the host configuration.",
    attrs = {"src": attr.label(mandatory = True, cfg = "host")},
)

def host_built_writer(writer, name, **kwargs):
    """`name`, the output `writer` (a rule with a `folder` attribute naming its output)
    writes in the host configuration; `<name>_writer` is the writer's target. testonly,
    visibility and tags apply to both."""
    common = {key: kwargs.pop(key) for key in ["testonly", "visibility", "tags"] if key in kwargs}
    writer(name = name + "_writer", folder = name, **dict(kwargs, **common))
    host_built(name = name, src = ":" + name + "_writer", **common)
