"""The exporter's stages, python/pteforge/<stage>/, and the stages each may import.

Each stage is one py_library declared with pteforge_stage(): its deps are the stages it
may import, listed here, and building it runs stage_imports.py over its sources, which
fails on an import of any other pteforge stage. That a lower stage never imports a
higher one is so a fact of the build, not a convention.
"""

# Lowest first. A stage may import itself and the stages listed with it, each of which
# must come before it; the check names every import, those inside functions included.
# The families sit among the stages: cortex_m is the backend the lowering and the
# runtime load; llm and seq2seq build on the whole exporter, and the command line on them.
STAGES = {
    "support": [],
    "capture": ["support"],
    "state": ["capture", "support"],
    "cortex_m": ["support"],
    "lower/speedups": [],
    "lower": ["cortex_m", "support"],
    "emit": ["support"],
    "run": ["cortex_m", "emit", "support"],
    "verify": ["capture", "emit", "run", "state", "support"],
    "report": ["capture", "emit", "state", "support", "verify"],
    "program": ["capture", "emit", "lower", "lower/speedups", "report", "state", "support", "verify"],
    "llm/from_gguf": ["support"],
    "llm": ["llm/from_gguf", "lower", "program", "run", "support"],
    "seq2seq": ["llm", "lower", "program", "run", "support"],
    "cli": ["llm", "program", "report", "seq2seq", "support"],
}

_PACKAGE = "python/pteforge"

def _stage_of_package():
    package = native.package_name()
    stage = package[len(_PACKAGE) + 1:] if package.startswith(_PACKAGE + "/") else None
    if stage not in STAGES:
        fail("%s is no stage of the exporter; add it to STAGES in //bazel:stages.bzl" % package)
    order = list(STAGES.keys())
    for lower in STAGES[stage]:
        if lower not in STAGES or order.index(lower) >= order.index(stage):
            fail("STAGES in //bazel:stages.bzl: %s may import %s, which is not a stage before it" % (stage, lower))
    return stage

def pteforge_stage(name, srcs, data = [], **kwargs):
    """The py_library of the stage in this package, and the check of its imports.

    Args:
      name: the stage's last folder name (//python/pteforge/lower/speedups:speedups).
      srcs: its modules (a package root's file by label, e.g. //python/pteforge:__init__.py).
      data: its data files; the import check's report joins them, so that building the
        library, or anything using it, runs the check.
      **kwargs: more py_library attributes (visibility).
    """
    stage = _stage_of_package()
    native.genrule(
        name = name + "_imports",
        srcs = srcs,
        outs = [name + "_imports.txt"],
        cmd = ("$(execpath //python:stage_imports) --stage=%s --may_import=%s --stages=%s --out=$@ $(SRCS)" %
               (stage, ",".join(STAGES[stage]), ",".join(STAGES.keys()))),
        exec_tools = ["//python:stage_imports"],
        message = "Checking that the %s stage imports no stage above it" % stage,
    )
    native.py_library(
        name = name,
        srcs = srcs,
        data = data + [":" + name + "_imports"],
        deps = ["//%s/%s" % (_PACKAGE, lower) for lower in STAGES[stage]],
        # `import pteforge` from python/.
        imports = ["/".join([".."] * (stage.count("/") + 2))],
        **kwargs
    )
