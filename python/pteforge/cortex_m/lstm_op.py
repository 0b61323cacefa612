"""pteforge::lstm_cell: an LSTM cell's gates and state update, from its two products.

    lstm_cell(input_gates [B, 4H], hidden_gates [B, 4H], cell [B, H]) -> (hidden [B, H],
                                                                          cell_next [B, H])

With gates = input_gates + hidden_gates (W_ih x + b_ih and W_hh h + b_hh, in PyTorch's
gate order i, f, g, o, each H wide), every operation in float32:

    cell_next = sigmoid(f) * cell + sigmoid(i) * tanh(g)
    hidden = sigmoid(o) * tanh(cell_next)

nn.LSTMCell as ATen computes it after its two products, where sigmoid(x) is 1 / (1 +
exp(-x)) as ExecuTorch's portable kernel computes it. As separate operators the same
cell is an add, four slices, three sigmoids, two tanh, three products and a sum, whose
portable kernels (broadcasting, every dtype) were 43 KB of a microcontroller image's
flash; the kernel (cc/kernels/lstm.h) is plain C++ on every target, with no CMSIS-NN.
Its exp and tanh are the C library's, so it matches the eager definition (PyTorch's
own vectorized exp and tanh) within their last bits.

Import this module before tracing or running a module that calls the operator.
"""

from __future__ import annotations

import torch

from pteforge.support import custom_ops

NAMESPACE = "pteforge"
NAME = "lstm_cell"
SCHEMA = "lstm_cell(Tensor input_gates, Tensor hidden_gates, Tensor cell) -> (Tensor hidden, Tensor cell_next)"

# A fragment: pteforge.cortex_m.ops defines the namespace's other operators.
_library = torch.library.Library(NAMESPACE, "FRAGMENT")


def _check(input_gates: torch.Tensor, hidden_gates: torch.Tensor, cell: torch.Tensor) -> None:
    torch._check(all(t.dtype == torch.float32 for t in (input_gates, hidden_gates, cell)),
                 lambda: "pteforge::lstm_cell: every argument must be float32")
    torch._check(cell.dim() == 2 and input_gates.shape == hidden_gates.shape == (cell.shape[0], 4 * cell.shape[1]),
                 lambda: f"pteforge::lstm_cell: gates [B, 4H] and cell [B, H], got {list(input_gates.shape)}, "
                         f"{list(hidden_gates.shape)}, {list(cell.shape)}")


def lstm_cell_reference(input_gates: torch.Tensor, hidden_gates: torch.Tensor,
                        cell: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """pteforge::lstm_cell in eager PyTorch (see the module docstring)."""
    _check(input_gates, hidden_gates, cell)
    i, f, g, o = (input_gates + hidden_gates).chunk(4, dim=1)
    cell_next = torch.sigmoid(f) * cell + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(cell_next), cell_next


def _fake(input_gates: torch.Tensor, hidden_gates: torch.Tensor, cell: torch.Tensor):
    _check(input_gates, hidden_gates, cell)
    return cell.new_empty(cell.shape), cell.new_empty(cell.shape)


# How a program names the operator (namespace::name.overload).
PROGRAM_OPERATOR = custom_ops.define(_library, NAME, SCHEMA, lstm_cell_reference, _fake)
