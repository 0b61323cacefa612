"""libFuzzer fuzzers and their tests, and their seed corpora.

    libfuzzer_tests(
        name = "wav_fuzzer",                 # the fuzzer (clang, ASan + UBSan)
        srcs = ["wav_fuzzer.cc"],
        deps = [":vad"],
        args = ["-dict=$(rootpath wav_fuzzer.dict)"],
        data = ["wav_fuzzer.dict"],
        runs = {                             # wav_fuzz_smoke_test, wav_fuzz_long_test
            "smoke": ("medium", ["-seed=1", "-runs=5000"]),
            "long": ("enormous", ["-seed=1", "-runs=1000000"]),
        },
    )
"""

load(":on_target_test.bzl", "on_target_test")

# Every run's limits: a finding is a crash, a leak, 2 GB of memory or 20 s on one input.
_LIMITS = [
    "-rss_limit_mb=2048",
    "-timeout=20",
    "-print_final_stats=1",
]

def libfuzzer_tests(name, srcs, deps, runs, args = [], data = []):
    """A libFuzzer fuzzer and a test per run: <stem>_<run>_test.

    The fuzzer is built for the host with clang's libFuzzer and sanitizers
    (//toolchains/linux_x86_64_libfuzzer, through on_target_test's transition); every
    run gives it `args` and the limits above. The run named "smoke" is a test of
    `bazel test //...`; the others are manual (longer runs by hand).

    Args:
      name: the fuzzer (a name ending in "_fuzzer"; <stem> is the name without "er":
        text_fuzzer -> text_fuzz_smoke_test).
      srcs: its LLVMFuzzerTestOneInput.
      deps: what it fuzzes.
      runs: run name -> (test size, the run's own arguments: seed, -runs or -max_total_time).
      args: arguments of every run (a dictionary, a corpus, the program it opens).
      data: files the runs read.
    """
    if not name.endswith("_fuzzer"):
        fail("%s: a fuzzer's name ends in _fuzzer" % name)
    native.cc_binary(
        name = name,
        testonly = True,
        srcs = srcs,
        linkopts = ["-fsanitize=fuzzer"],
        target_compatible_with = ["//toolchains/constraints:libfuzzer"],
        deps = deps,
    )
    for run, (size, run_args) in runs.items():
        on_target_test(
            name = "%s_%s_test" % (name[:-len("er")], run),
            size = size,
            binary = ":" + name,
            data = data,
            program_args = run_args + args + _LIMITS,
            tags = [] if run == "smoke" else ["manual"],
            target = "x86_64_libfuzzer",
        )

def _seed_corpus_impl(ctx):
    out = ctx.actions.declare_directory(ctx.label.name)
    regressions = ["--regressions"] + [f.path for f in ctx.files.regressions] if ctx.files.regressions else []
    ctx.actions.run(
        executable = ctx.executable.tool,
        arguments = [out.path] + [f.path for f in ctx.files.srcs] + regressions,
        inputs = ctx.files.srcs + ctx.files.regressions,
        outputs = [out],
        mnemonic = "SeedCorpus",
        progress_message = "Writing fuzzer seeds %s" % ctx.label,
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

seed_corpus = rule(
    implementation = _seed_corpus_impl,
    doc = "A directory of fuzzer seeds, written by a tool from given files, and past findings as they are.",
    attrs = {
        # What the seeds are made from (.pte programs, tokenizer.json files, ...).
        "srcs": attr.label_list(allow_files = True, mandatory = True),
        # Inputs of past findings, in the fuzzer's input layout, kept as they are.
        "regressions": attr.label_list(allow_files = True),
        # Run as `tool <output-dir> <srcs>... [--regressions <regressions>...]`
        # (//cc/runtime/fuzz:seed_corpus_tool).
        "tool": attr.label(mandatory = True, executable = True, cfg = "exec"),
    },
)
