"""Bare-metal images that carry their programs: pte_embed, cortex_m_image, cortex_m_program.

    pte_embed(
        name = "stateful_embedded",          # a cc_library defining ImageProgram()
        program = "//models:stateful_pte",   # a pte_export target (its report sizes memory)
        replay = True,                       # embed its replay record too
    )

    cortex_m_image(
        name = "stateful_image",             # the ELF, built for the Cortex-M55
        binary = ":stateful_replay",         # a cc_binary linking a pte_embed library
        board = "mps3_an547",                # checked against this board's memory
    )

cortex_m_program(name, program, main) declares both, plus the program's kernels
(pte_kernels) and the cc_binary in between: <name>_embedded, <name>_kernels,
<name>_binary and the image <name>. cortex_m_test(name, program, main) is an image
(<name>_image) and the test running it under qemu (<name>_test).

The embedded program and its report are built in the host configuration whatever the
image's target (cfg = "host"): one export serves every image, the kernel selection and
the host tests, instead of one export per configuration. So are the Python tools that
read them (gen_embedded, fit_check, and pte_kernels' select_kernels): with cfg = "exec"
each configuration a transition makes (the Cortex-M55, aarch64 on the runtime from
source, ...) built them again, with the C++ library of pteforge's kernels the exporter
imports and, on the runtime from source, ExecuTorch's runtime for the host.
"""

load("//bazel:on_target_test.bzl", "fixed_target_attrs", "on_target_test", "to_fixed_target")
load("//third_party/executorch:pte_kernels.bzl", "pte_kernels")

def _embedded_sources_impl(ctx):
    program = ctx.attr.program[DefaultInfo].files.to_list()
    if len(program) != 1 or not program[0].path.endswith(".pte"):
        fail("%s: program must give one .pte file" % ctx.label)
    program = program[0]
    groups = ctx.attr.program[OutputGroupInfo] if OutputGroupInfo in ctx.attr.program else None
    if ctx.file.report:
        report = ctx.file.report
    elif groups and hasattr(groups, "report"):
        report = groups.report.to_list()[0]
    else:
        fail("%s: %s has no report; give report = <a pte_export target's report>" % (ctx.label, ctx.attr.program.label))

    # The assembler's .incbin reads these: declared as headers of the library so the
    # compile action sees them (.inc is a header extension Bazel accepts).
    blobs = []
    program_inc = ctx.actions.declare_file(ctx.label.name + "/program.pte.inc")
    ctx.actions.symlink(output = program_inc, target_file = program)
    blobs.append(program_inc)
    arguments = [
        "--program=" + program.path,
        "--report=" + report.path,
        "--program_include=" + program_inc.path,
        "--heap_bytes=%d" % (ctx.attr.heap_kb * 1024),
        "--temp_bytes=%d" % (ctx.attr.temp_kb * 1024),
    ]
    if ctx.attr.method_kb:
        arguments.append("--method_bytes=%d" % (ctx.attr.method_kb * 1024))
    if ctx.attr.replay:
        if not groups or not hasattr(groups, "replay") or not groups.replay.to_list():
            fail("%s: %s has no replay record; export it with pte_export(replay = True)" % (ctx.label, ctx.attr.program.label))
        replay_inc = ctx.actions.declare_file(ctx.label.name + "/replay.txt.inc")
        ctx.actions.symlink(output = replay_inc, target_file = groups.replay.to_list()[0])
        blobs.append(replay_inc)
        arguments.append("--replay_include=" + replay_inc.path)
    asm = ctx.actions.declare_file(ctx.label.name + "/program.S")
    cc = ctx.actions.declare_file(ctx.label.name + "/program.cc")
    ctx.actions.run(
        executable = ctx.executable._generator,
        arguments = arguments + ["--out_asm=" + asm.path, "--out_cc=" + cc.path],
        # The blobs too: their digests go into the .S (gen_embedded.py says why).
        inputs = [program, report] + blobs,
        outputs = [asm, cc],
        mnemonic = "PteEmbed",
        progress_message = "Embedding %s in an image" % ctx.attr.program.label,
    )
    return [
        DefaultInfo(files = depset([asm, cc])),
        OutputGroupInfo(blobs = depset(blobs)),
    ]

_embedded_sources = rule(
    implementation = _embedded_sources_impl,
    attrs = {
        "program": attr.label(mandatory = True, cfg = "host"),
        "report": attr.label(allow_single_file = [".json"], cfg = "host"),
        "replay": attr.bool(),
        "heap_kb": attr.int(mandatory = True),
        "temp_kb": attr.int(mandatory = True),
        "method_kb": attr.int(),
        "_generator": attr.label(
            default = "//cc/embedded:gen_embedded",
            executable = True,
            cfg = "host",  # one build for every configuration (embedded.bzl)
        ),
    },
)

def pte_embed(name, program, report = None, replay = False, heap_kb = 1024, temp_kb = 16, method_kb = 0, **kwargs):
    """A cc_library embedding `program` and the static memory its Session needs.

    Args:
      name: the cc_library (it defines pteforge::ImageProgram(); cc/embedded/embedded_program.h).
      program: a pte_export target (or any target giving one .pte, with `report`).
      report: the report that sizes the arenas (default: the program's own).
      replay: also embed the program's replay record (pte_export(replay = True)).
      heap_kb: the heap behind malloc/new (on bare metal; cc/embedded/heap.c).
      temp_kb: scratch memory for kernels.
      method_kb: the method pool; 0 estimates it from the program.
      **kwargs: passed to the cc_library (testonly, visibility, ...).
    """
    _embedded_sources(
        name = name + "_sources",
        program = program,
        report = report,
        replay = replay,
        heap_kb = heap_kb,
        temp_kb = temp_kb,
        method_kb = method_kb,
        testonly = kwargs.get("testonly", False),
    )
    native.filegroup(
        name = name + "_blobs",
        srcs = [":" + name + "_sources"],
        output_group = "blobs",
        testonly = kwargs.get("testonly", False),
    )
    native.cc_library(
        name = name,
        srcs = [":" + name + "_sources"],
        textual_hdrs = [":" + name + "_blobs"],
        deps = ["//cc/embedded:embedded_program"] + select({
            "//toolchains:is_cortex_m55": ["//cc/embedded:heap"],
            "//conditions:default": [],
        }),
        # Linked whole: main() and the heap refer to it, whatever the link order.
        alwayslink = True,
        **kwargs
    )

def _cortex_m_image_impl(ctx):
    binary = ctx.attr.binary[0][DefaultInfo].files_to_run.executable
    image = ctx.actions.declare_file(ctx.label.name + ".elf")
    fit = ctx.actions.declare_file(ctx.label.name + ".fit.txt")
    ctx.actions.run(
        executable = ctx.executable._fit_check,
        arguments = [
            "--elf=" + binary.path,
            "--board=" + ctx.attr.board,
            "--image=" + str(ctx.label),
            "--nm=/usr/bin/arm-none-eabi-nm",
            "--size=/usr/bin/arm-none-eabi-size",
            "--table=" + fit.path,
            "--copy_to=" + image.path,
        ],
        inputs = [binary],
        outputs = [image, fit],
        mnemonic = "FitCheck",
        progress_message = "Checking that %s fits the %s board" % (ctx.label, ctx.attr.board),
    )
    return [
        DefaultInfo(
            executable = image,
            files = depset([image]),
            runfiles = ctx.attr.binary[0][DefaultInfo].default_runfiles,
        ),
        # The fit table (written by the same action as the image).
        OutputGroupInfo(fit = depset([fit])),
    ]

cortex_m_image = rule(
    implementation = _cortex_m_image_impl,
    executable = True,
    doc = "A Cortex-M55 ELF of `binary` that exists only if it fits `board` (fit_check.py).",
    attrs = dict(
        {
            "binary": attr.label(mandatory = True, executable = True, cfg = to_fixed_target),
            "board": attr.string(
                default = "mps3_an547",
                values = ["mps3_an547", "m55_2mb_flash_512kb_sram", "m55_1mb_flash_256kb_sram", "m55_512kb_flash_128kb_sram"],
            ),
            "_fit_check": attr.label(
                default = "//cc/embedded:fit_check",
                executable = True,
                cfg = "host",  # one build for every configuration (embedded.bzl)
            ),
        },
        **fixed_target_attrs("cortex_m55")
    ),
)

def cortex_m_program(name, program, main, board = "mps3_an547", deps = [], stack_kb = 64,
                     kernels = None, all_kernels = False, cmsis_nn = False, testonly = False, tags = [],
                     **embedding):
    """A Cortex-M55 image running `main` on the embedded `program` with its kernels.

    Declares <name>_embedded (pte_embed), <name>_kernels (pte_kernels of the program),
    <name>_binary (the cc_binary) and <name> (cortex_m_image: the ELF, fit-checked).

    Args:
      name: the image.
      program: a pte_export target.
      main: a cc_library with main() (e.g. //cc/embedded:replay_main).
      board: the board profile the image must fit (fit_check.py).
      deps: more libraries for the binary.
      stack_kb: the stack reserved below the top of RAM (the linker script's
        __stack_size__; a deeper stack faults, MSPLIM).
      kernels: a pte_kernels library to link instead of the program's own: shared by
        images of the same program (each pte_kernels compiles the kernels it selects),
        and the intact program's for a damaged one.
      all_kernels: link every portable and quantized kernel instead (to measure what
        selecting them saves).
      cmsis_nn: the program was exported with backend = "cortex_m": link its operators'
        CMSIS-NN kernels too (pte_kernels; needs PTEFORGE_CMSIS_NN_SRC, skipped without).
      testonly: as usual.
      tags: for every target (e.g. manual).
      **embedding: how the program is embedded, pte_embed's: replay, report (what sizes
        the memory), heap_kb, temp_kb (kernels' scratch), method_kb (the method pool).
    """
    pte_embed(
        name = name + "_embedded",
        program = program,
        testonly = testonly,
        tags = tags,
        **embedding
    )
    if kernels and all_kernels:
        fail("cortex_m_program(name = %r): give kernels or all_kernels, not both" % name)
    if all_kernels or kernels:
        native.alias(
            name = name + "_kernels",
            actual = kernels or "//third_party/executorch:all_portable_kernels",
            testonly = testonly,
            tags = tags,
        )
    else:
        pte_kernels(
            name = name + "_kernels",
            programs = [program],
            cmsis_nn = cmsis_nn,
            testonly = testonly,
            tags = tags,
        )
    native.cc_binary(
        name = name + "_binary",
        linkopts = ["-Wl,--defsym=__stack_size__=%d" % (stack_kb * 1024)],
        deps = [
            ":" + name + "_embedded",
            ":" + name + "_kernels",
            main,
            "//cc/embedded:executorch_pal",
            "//toolchains:program_startup",
        ] + deps,
        target_compatible_with = ["//toolchains/constraints:cortex_m55"],
        testonly = testonly,
        tags = tags,
    )
    cortex_m_image(
        name = name,
        binary = ":" + name + "_binary",
        board = board,
        testonly = testonly,
        tags = tags,
    )

def cortex_m_test(name, program, main, size = "small", tags = [], **kwargs):
    """A Cortex-M55 image run as a test under qemu-system-arm: its exit status decides.

    Declares <name>_image (cortex_m_program, testonly, with its own targets) and
    <name>_test (on_target_test).

    Args:
      name: the stem of both names.
      program: a pte_export target (cortex_m_program).
      main: a cc_library with main() (e.g. //cc/embedded:replay_main).
      size: the test's size.
      tags: for every target (e.g. manual).
      **kwargs: passed to cortex_m_program (replay, heap_kb, board, cmsis_nn, ...).
    """
    cortex_m_program(
        name = name + "_image",
        program = program,
        main = main,
        testonly = True,
        tags = tags,
        **kwargs
    )
    on_target_test(
        name = name + "_test",
        size = size,
        binary = ":%s_image" % name,
        tags = tags,
        target = "cortex_m55",
    )
