"""pteforge.cortex_m: models on Arm's CMSIS-NN kernels (backend="cortex_m").

  ops         pteforge's operators (linear, linear_dq8): schemas and eager definitions
  lstm_op     pteforge::lstm_cell, an LSTM cell's gates and state update
  stft_op     pteforge::stft_magnitude, a windowed DFT's magnitude (an FFT, no stored basis)
  lowering    backend="cortex_m": linear layers onto those operators
  quantize    int8 weights with dynamically quantized int8 activations (linear_dq8)
  kernels     their C++ reference kernels in ExecuTorch's Python runtime

The C++ kernels are in cc/kernels (CMSIS-NN on the Cortex-M55, portable C++ elsewhere);
docs/microcontrollers.md tells the whole story. Importing this package imports nothing
heavy; the modules above load torch when imported.
"""
