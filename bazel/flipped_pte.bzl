"""flipped_pte: a copy of a pte_export's program with bits flipped at seeded positions
(flip_bits.py), keeping the original's report and replay record, so an image embedding
it can replay the intact program's calls and find what the damage changed."""

def _flipped_pte_impl(ctx):
    program = ctx.file.program
    out = ctx.actions.declare_file(ctx.label.name + ".pte")
    ctx.actions.run(
        executable = ctx.executable._flip_bits,
        arguments = ["--seed=%d" % ctx.attr.seed, "--bits=%d" % ctx.attr.bits,
                     "--from_fraction=%f" % (ctx.attr.from_percent / 100.0), program.path, out.path],
        inputs = [program],
        outputs = [out],
        mnemonic = "FlipBits",
        progress_message = "Flipping %d bits of %s" % (ctx.attr.bits, program.short_path),
    )
    groups = ctx.attr.program[OutputGroupInfo]
    return [
        DefaultInfo(files = depset([out])),
        OutputGroupInfo(report = groups.report, replay = groups.replay),
    ]

flipped_pte = rule(
    implementation = _flipped_pte_impl,
    attrs = {
        "program": attr.label(mandatory = True, allow_single_file = [".pte"]),
        "seed": attr.int(mandatory = True),
        "bits": attr.int(default = 8),
        "from_percent": attr.int(default = 25, doc = "Flip bits in the file's last (100 - this) percent."),
        "_flip_bits": attr.label(default = "//tests/replay:flip_bits", executable = True, cfg = "exec"),
    },
)
