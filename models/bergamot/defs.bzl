"""bergamot_pte: a Bergamot tiny model exported to a .pte, XNNPACK.

One definition for //models:bergamot_{enpt,pten}_pte and the benchmark's int8 variants,
so that every variant has the same limits (8 rows, 128 source tokens) and compares
like with like.
"""

load("//python/pteforge:defs.bzl", "pte_export")

def bergamot_pte(name, direction, quantization = "none", tags = []):
    pte_export(
        name = name,
        backend = "xnnpack",
        model = "models.bergamot.export:make_exporter",
        model_args = {
            "direction": direction,
            "max_rows": "8",
            "max_source": "128",
            "quantization": quantization,
        },
        tags = tags,
        deps = ["//models/bergamot"],
    )
