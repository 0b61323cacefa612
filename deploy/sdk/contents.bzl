"""What each SDK holds (deploy/BUILD.bazel, deploy/sdk/BUILD.bazel)."""

# Linux and Android arm64: portable programs, so that the same list selects the kernels
# on the runtime from source (which has no XNNPACK) and runs on the wheel's.
LINUX_PROGRAMS = [
    "//models:stateful_pte",
    "//models/silero_vad:silero_vad_pte",
]

# The components, each after those it requires.
LINUX_COMPONENTS = ["//deploy/sdk:" + name for name in [
    "runtime",
    "kernels",
    "vad",
    "text",
    "translate",
    "generate",
    "transcribe",
]]

# The Cortex-M55: the int8 Silero VAD on CMSIS-NN, as //cc/tools:vad_int8_cortex_m55
# embeds it (deploy/sdk/BUILD.bazel shares that image's kernels and embedding).
M55_PROGRAM = "//models/silero_vad:silero_vad_16k_int8_cmsis_nn_pte"

M55_COMPONENTS = ["//deploy/sdk:m55_" + name for name in [
    "runtime",
    "kernels",
    "vad",
    "embedded",
    "program",
]]
