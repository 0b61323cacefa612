"""Repository rule: an ExecuTorch source tree, named by $PTEFORGE_EXECUTORCH_SRC.

ExecuTorch's runtime sources are on no package registry, so the user points the build
at a tree, like an SDK: the folder that holds runtime/, kernels/, schema/ and codegen/
(an upstream checkout works; docs/microcontrollers.md). The tree is symlinked,
never copied, as `executorch/` (so `#include <executorch/runtime/...>` resolves) and
built by source.BUILD: the runtime for every target (Cortex-M55 needs it; x86_64 and
aarch64 use it with --config=source_runtime).

Without the variable every target of the repository is incompatible with every
platform (the constraint's name says what to set), so `bazel test //...` skips what
needs the tree and runs the rest. A variable naming something that is not a source
tree is an error. The rule is re-evaluated when the variable changes.
"""

SOURCE_ENV = "PTEFORGE_EXECUTORCH_SRC"

# The folders the build reads, each with one file that proves it is what we expect.
_REQUIRED = [
    "runtime/executor/program.cpp",
    "kernels/portable/functions.yaml",
    "kernels/prim_ops/register_prim_ops.cpp",
    "kernels/quantized/quantized.yaml",
    "schema/program.fbs",
    "codegen/templates/RegisterCodegenUnboxedKernels.cpp",
    "extension/data_loader/mmap_data_loader.cpp",
]

# Every target of source.BUILD; without a tree each is an incompatible stand-in.
_TARGETS = {
    "codegen_templates": "filegroup",
    "cortex_m_functions_yaml": "filegroup",
    "cortex_m_ops": "cc_library",
    "data_loaders": "cc_library",
    "headers": "cc_library",
    "kernel_utils": "cc_library",
    "portable_functions_yaml": "filegroup",
    "portable_kernel_sources": "filegroup",
    "prim_ops": "cc_library",
    "prim_ops_functions": "cc_library",
    "prim_ops_registration_source": "filegroup",
    "quantized_functions_yaml": "filegroup",
    "quantized_kernel_sources": "filegroup",
    "runtime": "cc_library",
    "source_info": "filegroup",
}

_MISSING_CONSTRAINT = "@//third_party/executorch:set_PTEFORGE_EXECUTORCH_SRC_to_an_executorch_source_tree"

def _missing_build_file():
    lines = [
        "# %s is not set: no ExecuTorch source tree, so every library here is" % SOURCE_ENV,
        "# incompatible and Bazel skips whatever needs one (docs/microcontrollers.md).",
        "# (filegroups cannot be incompatible in Bazel 4.2.3: they hold a placeholder,",
        "# and rules reading them check EXECUTORCH_SOURCE in defs.bzl.)",
        'package(default_visibility = ["//visibility:public"])',
        "",
    ]
    for name, kind in sorted(_TARGETS.items()):
        if kind == "cc_library":
            lines.append('cc_library(name = "%s", target_compatible_with = ["%s"])' % (name, _MISSING_CONSTRAINT))
        else:
            lines.append('filegroup(name = "%s", srcs = ["placeholder"])' % name)
    return "\n".join(lines) + "\n"

# What Starlark code can test at loading time: whether there is a source tree, and the
# constraint that marks a target incompatible when there is none.
_DEFS = """EXECUTORCH_SOURCE = {present}
MISSING_EXECUTORCH_SOURCE = "{constraint}"
"""

def _executorch_source_impl(rctx):
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    given = rctx.os.environ.get(SOURCE_ENV, "")
    rctx.file("defs.bzl", _DEFS.format(present = bool(given), constraint = _MISSING_CONSTRAINT))
    if not given:
        rctx.file("placeholder", "")
        rctx.file("BUILD.bazel", _missing_build_file())
        return
    tree = rctx.path(given)
    missing = [path for path in _REQUIRED if not rctx.path(str(tree) + "/" + path).exists]
    if missing:
        fail(("%s=%s is not an ExecuTorch source tree: it lacks %s. Point it at the folder " +
              "that holds runtime/, kernels/, schema/ and codegen/ (e.g. a checkout of " +
              "github.com/pytorch/executorch at cff6f4dd32e630945b7188512c1f2b4f102b05ad), " +
              "or unset it to skip the targets that need one.") % (SOURCE_ENV, given, ", ".join(missing)))
    rctx.symlink(tree, "executorch")
    rctx.file("source_info.json", _source_info(rctx, tree))
    rctx.template("BUILD.bazel", rctx.attr._overlay)

def _commit(rctx, tree):
    """(commit, how it was found): a git checkout's HEAD, else the commit a snapshot's
    ORIGIN.md beside the tree names ("... at commit <40 hex digits>"), else unknown."""
    git = rctx.path(str(tree) + "/.git/HEAD")
    if git.exists:
        head = rctx.read(git).strip()
        if head.startswith("ref: "):
            ref = rctx.path(str(tree) + "/.git/" + head[len("ref: "):])
            if ref.exists:
                return rctx.read(ref).strip(), "git HEAD (" + head[len("ref: "):] + ")"
            return "unknown", "git HEAD names " + head[len("ref: "):] + ", which is packed"
        return head, "git HEAD (detached)"
    origin = rctx.path(str(tree.dirname) + "/ORIGIN.md")
    if origin.exists:
        words = rctx.read(origin).replace("\n", " ").split(" ")
        for i in range(len(words) - 1):
            commit = words[i + 1].strip("`.,;:()")
            if words[i] == "commit" and len(commit) == 40:
                return commit, str(origin)
    return "unknown", "not a git checkout, and no ORIGIN.md beside it names a commit"

def _source_info(rctx, tree):
    """What the SDK records of the tree (bazel/sdk.bzl): its version.txt and commit."""
    version = rctx.path(str(tree) + "/version.txt")
    commit, found = _commit(rctx, tree)
    return json.encode_indent(struct(
        runtime = "ExecuTorch built from source",
        tree = str(tree),
        version = rctx.read(version).strip() if version.exists else "unknown",
        commit = commit,
        commit_from = found,
    )) + "\n"

executorch_source = repository_rule(
    implementation = _executorch_source_impl,
    attrs = {
        "_overlay": attr.label(default = "//third_party/executorch:source.BUILD"),
    },
    environ = [SOURCE_ENV],
    local = True,
)
