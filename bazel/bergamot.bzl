"""bergamot_pte: a Bergamot tiny model exported to a .pte.

One definition for //models:bergamot_{enpt,pten}_pte and the benchmark's int8 variants,
so that every variant has the same limits (128 source tokens, XNNPACK; 8 rows unless it
says otherwise) and compares like with like; the microcontroller variant (portable
kernels, smaller limits) says what it changes.
"""

load("//bazel:pte_export.bzl", "pte_export")

def bergamot_pte(name, direction, quantization = "none", backend = "xnnpack", max_rows = 8, max_source = 128,
                 tags = []):
    pte_export(
        name = name,
        backend = backend,
        model = "models.bergamot.export:make_exporter",
        model_args = {
            "direction": direction,
            "max_rows": str(max_rows),
            "max_source": str(max_source),
            "quantization": quantization,
        },
        tags = tags,
        deps = ["//models/bergamot"],
    )
