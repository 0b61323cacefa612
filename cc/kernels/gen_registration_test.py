"""The registration generator knows exactly the operators pteforge defines, and writes
what ExecuTorch's registry takes."""

import pytest
import torch

from cc.kernels import gen_registration
from pteforge.cortex_m import lstm_op, ops, stft_op
from pteforge.lower import attention_op
from pteforge.support import testing


def test_every_defined_operator_has_a_kernel_and_no_more():
    defined = [*ops.PROGRAM_OPERATORS, stft_op.PROGRAM_OPERATOR, lstm_op.PROGRAM_OPERATOR, attention_op.PROGRAM_OPERATOR]
    assert sorted(gen_registration.KERNELS) == sorted(defined)
    # Every operator torch knows in pteforge's namespace is one of them.
    assert {f"pteforge::{name}.out" for name in torch.ops.pteforge} == set(defined)


def test_the_registration_names_each_selected_kernel_once():
    source = gen_registration.registration_source(["pteforge::linear_dq8.out", "pteforge::linear_dq8.out"], "a test")
    assert source.count('Kernel("pteforge::linear_dq8.out", pteforge::kernels::LinearDq8Out)') == 1
    assert "pteforge::linear.out" not in source
    assert "register_kernels" in source


def test_nothing_selected_registers_nothing():
    assert "register_kernels" not in gen_registration.registration_source([], "a test")


def test_an_unknown_operator_is_refused():
    with pytest.raises(ValueError, match="no pteforge kernel for pteforge::conv.out"):
        gen_registration.registration_source(["pteforge::conv.out"], "a test")


if __name__ == "__main__":
    testing.main(__file__)
