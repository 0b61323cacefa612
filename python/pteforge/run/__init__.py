"""pteforge.run: a pteforge .pte in ExecuTorch's Python runtime.

  runtime            load(): every method loaded over shared arenas, named state
  quantized_kernels  ExecuTorch's quantized kernels in its Python runtime
"""
