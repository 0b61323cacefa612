"""Repository rule: a CMSIS-NN source tree, named by $PTEFORGE_CMSIS_NN_SRC.

Arm's CMSIS-NN (github.com/ARM-software/CMSIS-NN) is neither in Debian nor on PyPI, so
the user points the build at a tree, like an SDK: the folder that holds Include/ and
Source/ (an upstream checkout at the commit ExecuTorch's backends/cortex_m pins works).
Its Include/ and Source/ are symlinked, never copied, and built by cmsis_nn.BUILD.

Without the variable every target of the repository is incompatible with every
platform (the constraint's name says what to set), so `bazel test //...` skips what
needs the tree and runs the rest. A variable naming something that is not a CMSIS-NN
tree is an error. The rule is re-evaluated when the variable changes.
"""

SOURCE_ENV = "PTEFORGE_CMSIS_NN_SRC"

# Files that prove the folder is CMSIS-NN, recent enough to have the float32 API that
# cmsis_nn.BUILD turns on.
_REQUIRED = [
    "Include/arm_nnfunctions.h",
    "Include/arm_nnfunctions_flt.h",
    "Source/FullyConnectedFunctions/arm_fully_connected_s8.c",
]

# What cmsis_nn.BUILD reads.
_FOLDERS = [
    "Include",
    "Source",
]

_MISSING_CONSTRAINT = "@//third_party/cmsis_nn:set_PTEFORGE_CMSIS_NN_SRC_to_a_cmsis_nn_source_tree"

_MISSING_BUILD_FILE = """# {env} is not set: no CMSIS-NN source tree, so the library is incompatible and
# Bazel skips whatever needs it.
package(default_visibility = ["//visibility:public"])

cc_library(name = "cmsis_nn", target_compatible_with = ["{constraint}"])
"""

# What Starlark code can test at loading time: whether there is a source tree, and the
# constraint that marks a target incompatible when there is none.
_DEFS = """CMSIS_NN_SOURCE = {present}
MISSING_CMSIS_NN_SOURCE = "{constraint}"
"""

def _cmsis_nn_source_impl(rctx):
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    given = rctx.os.environ.get(SOURCE_ENV, "")
    rctx.file("defs.bzl", _DEFS.format(present = bool(given), constraint = _MISSING_CONSTRAINT))
    if not given:
        rctx.file("BUILD.bazel", _MISSING_BUILD_FILE.format(env = SOURCE_ENV, constraint = _MISSING_CONSTRAINT))
        return
    tree = rctx.path(given)
    missing = [path for path in _REQUIRED if not rctx.path(str(tree) + "/" + path).exists]
    if missing:
        fail(("%s=%s is not a CMSIS-NN source tree: it lacks %s. Point it at the absolute " +
              "path of the folder that holds Include/ and Source/ (e.g. a checkout of " +
              "github.com/ARM-software/CMSIS-NN at dbf45dbfcc515421dd6099037d3e2637b90748c8), " +
              "or unset it to skip the targets that need one.") % (SOURCE_ENV, given, ", ".join(missing)))
    for folder in _FOLDERS:
        rctx.symlink(str(tree) + "/" + folder, folder)
    rctx.template("BUILD.bazel", rctx.attr._overlay)

cmsis_nn_source = repository_rule(
    implementation = _cmsis_nn_source_impl,
    attrs = {
        "_overlay": attr.label(default = "//third_party/cmsis_nn:cmsis_nn.BUILD"),
    },
    environ = [SOURCE_ENV],
    local = True,
)
