"""The C++ shapes BUILD files repeat, as thin macros (as TFLite Micro's build_def.bzl).

    cc_unit(                             # search.h and search.cc
        name = "search",
        deps = ["//cc/runtime:status"],
    )

    cc_unit_test(                        # search_test.cc, a googletest test on the host
        name = "search_test",
        deps = [":search"],
    )

    program_tests(                       # one test program on several targets:
        name = "session",                # session_x86_64_test, session_aarch64_test
        binary = ":session_test_program",
        targets = ["x86_64", "aarch64"],
        args = ["$(rootpath //models:stateful_pte)"],
        data = ["//models:stateful_pte"],
    )

    cc_tool(                             # pte_run.cc, a main on the tool library
        name = "pte_run",
        deps = ["//cc/cli:calls"],
    )

    generated_file(                      # a build-time Python generator's output
        name = "unicode_data",
        out = "unicode_data.inc",
        generator = "gen_unicode_tables.py",
        message = "Generating the tokenizer's Unicode tables",
    )

Each macro declares the targets its docstring names, no others.
"""

load(":host_built.bzl", "host_built_file")
load(":on_target_test.bzl", "on_target_test")

def cc_unit(name, deps = [], **kwargs):
    """A library of one concern in two files, <name>.h and <name>.cc.

    Args:
      name: the library, and its files' stem.
      deps: what it uses.
      **kwargs: passed to the cc_library (copts, visibility, ...).
    """
    native.cc_library(
        name = name,
        srcs = [name + ".cc"],
        hdrs = [name + ".h"],
        deps = deps,
        **kwargs
    )

def cc_unit_test(name, srcs = None, deps = [], size = "small", **kwargs):
    """A googletest test of C++ code, on the host: googletest's main linked.

    Args:
      name: the test.
      srcs: its sources (default: <name>.cc).
      deps: the code under test (googletest's gtest_main is added).
      size: the test's size (small unless given).
      **kwargs: passed to the cc_test (data, args, ...).
    """
    native.cc_test(
        name = name,
        size = size,
        srcs = srcs or [name + ".cc"],
        deps = deps + ["@googletest//:gtest_main"],
        **kwargs
    )

def program_tests(name, binary, targets, args = [], data = [], target_args = {}, size = "small", sizes = {},
                  tags = [], **kwargs):
    """A test program run as a test on each of `targets`: <name>_<target>_test.

    x86_64 runs the host build of `binary` as it is (an sh_test through
    toolchains/run_on_target.sh: nothing built twice); every other target builds
    `binary` for itself and runs it under its emulator (on_target_test). The data are
    built for the host, once.

    Args:
      name: the stem of the tests' names.
      binary: the test program (a cc_binary; testonly is fine).
      targets: where to run it: x86_64 and on_target_test's targets.
      args: the program's arguments on every target ($(rootpath) expands).
      data: files it reads.
      target_args: more arguments on one target ({"aarch64": ["--gtest_filter=..."]}).
      size: the tests' size; sizes: another size on one target ({"aarch64": "medium"}).
      tags: for every test.
      **kwargs: for every test (e.g. testonly, visibility).
    """
    for target in targets:
        test_name = "%s_%s_test" % (name, target)
        program_args = args + target_args.get(target, [])
        if target == "x86_64":
            native.sh_test(
                name = test_name,
                size = sizes.get(target, size),
                srcs = ["//toolchains:run_on_target.sh"],
                args = ["x86_64", "$(rootpath %s)" % binary] + program_args,
                data = [binary] + data,
                tags = tags,
                **kwargs
            )
        else:
            on_target_test(
                name = test_name,
                size = sizes.get(target, size),
                binary = binary,
                data = data,
                program_args = program_args,
                tags = tags,
                target = target,
                **kwargs
            )

def cc_tool(name, srcs = None, deps = [], default_model = None, default_model_path = None, **kwargs):
    """A command-line program on the tool library, with every kernel of the runtime.

    The tool library (//cc/cli:runtime_tool) gives it the standard flags, Fail,
    ExecuTorch's log routing and --help; //cc/runtime:all_kernels lets it run any program.

    Args:
      name: the binary.
      srcs: its main (default: <name>.cc).
      deps: the libraries its main uses.
      default_model: a .pte target it opens without --model, built next to it...
      default_model_path: ...and that .pte's path in the workspace ("models/x.pte"),
        given to the main as PTEFORGE_DEFAULT_MODEL (a runfiles path;
        //cc/cli:default_model finds it).
      **kwargs: passed to the cc_binary (tags, visibility, ...).
    """
    copts = []
    data = []
    if default_model:
        copts = ['-DPTEFORGE_DEFAULT_MODEL=\\"pteforge/%s\\"' % default_model_path]
        data = [default_model]
        deps = deps + ["//cc/cli:default_model"]
    native.cc_binary(
        name = name,
        srcs = srcs or [name + ".cc"],
        copts = copts,
        data = data,
        deps = deps + [
            "//cc/cli:runtime_tool",
            "//cc/runtime:all_kernels",
        ],
        **kwargs
    )

def generated_file(name, out, generator, srcs = [], args = [], deps = [], message = None, **kwargs):
    """`out`, written at build time by the Python script `generator`, once: in the host
    configuration, whichever configurations use it (a generator's output does not depend
    on the target; written per configuration, ExecuTorch's operator list was made six
    times in a cold build).

    Declares the generator's py_binary (named after the script: gen_x.py -> gen_x), the
    genrule `<name>_host` (manual), which runs `generator <args> <srcs> <out>` (or
    `generator <args> <srcs>` when an argument names the output itself: "--out=$@") in
    the host configuration, and `name`, which gives its output as `out` here.

    Args:
      name: the target giving `out`.
      out: the file written.
      generator: the script, in this package.
      srcs: its inputs, passed after `args`.
      args: its leading arguments ($(execpath) and $@ expand).
      deps: the script's Python dependencies.
      message: the progress message.
      **kwargs: passed to the genrule (testonly, visibility, ...).
    """
    tool = generator[:-len(".py")]
    common = {key: kwargs[key] for key in ["testonly", "visibility", "tags"] if key in kwargs}
    native.py_binary(
        name = tool,
        srcs = [generator],
        python_version = "PY3",
        deps = deps,
        testonly = kwargs.get("testonly", False),
    )
    native.genrule(
        name = name + "_host",
        srcs = srcs,
        outs = ["host_generated/" + out],
        cmd = " ".join(["$(execpath :%s)" % tool] + args + (["$(SRCS)"] if srcs else []) +
                       ([] if [arg for arg in args if "$@" in arg] else ["$@"])),
        exec_tools = [":" + tool],
        message = message,
        **dict(kwargs, tags = kwargs.get("tags", []) + ["manual"])
    )
    host_built_file(name = name, src = ":" + name + "_host", out = out, **common)
