"""select_kernels.py refuses what the runtime from source cannot run, with a message
naming the program and what to do: a program with an XNNPACK delegate, one with
pteforge's CMSIS-NN operators outside an image on CMSIS-NN, and a file that is not a
program. A portable program gets its operators registered and only the kernel sources
that define them copied to be compiled, a cortex_m one on CMSIS-NN exactly pteforge's
kernels it uses."""

import glob
import json
import os
import re
import subprocess
import sys

import pytest
import torch
from runfiles import runfiles

from pteforge import MultiMethodExporter
from pteforge.support import program_file, testing

_RUNFILES = runfiles.Create()
_TOOL = _RUNFILES.Rlocation("pteforge/third_party/executorch/select_kernels")
_TREE = "pteforge/external/executorch_source/executorch/"


def select(tmp_path, *programs, cmsis_nn=False, all_operators=False):
    tree = {name: _RUNFILES.Rlocation(_TREE + path) for name, path in [
        ("functions_yaml", "kernels/portable/functions.yaml"),
        ("quantized_yaml", "kernels/quantized/quantized.yaml"),
        ("prim_ops", "kernels/prim_ops/register_prim_ops.cpp"),
        ("templates", "codegen/templates/RegisterKernels.h"),
    ] + ([("cortex_m_yaml", "backends/cortex_m/ops/operators.yaml")] if cmsis_nn else [])}
    command = [_TOOL, f"--out_dir={tmp_path}"] + [f"--{key}={value}" for key, value in tree.items()]
    command += [f"--program={program}" for program in programs]
    command += ["--all_operators"] if all_operators else []
    for library in ["portable", "quantized"]:
        folder = os.path.dirname(_RUNFILES.Rlocation(_TREE + f"kernels/{library}/cpu/op_add.cpp"))
        command += [f"--{library}_source={path}" for path in sorted(glob.glob(os.path.join(folder, "op_*.cpp")))]
    return subprocess.run(command, capture_output=True, text=True)


def export(tmp_path, backend):
    exporter = MultiMethodExporter(torch.nn.Linear(4, 2).eval(), name="linear")
    exporter.method("forward", (torch.ones(1, 4),))
    path = tmp_path / f"linear_{backend}.pte"
    path.write_bytes(exporter.export(backend=backend).data)
    return path


def test_a_portable_program_gets_its_operators(tmp_path):
    result = select(tmp_path, export(tmp_path, "portable"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "operators.txt").read_text().split() == ["aten::addmm.out"]
    assert "addmm_out" in (tmp_path / "portable" / "RegisterCodegenUnboxedKernelsEverything.cpp").read_text()
    # Only the source that defines addmm_out is compiled, marked as the tree's file, and
    # the predicate its dtype selection reads.
    assert sorted(os.listdir(tmp_path / "kernels")) == ["portable_op_addmm.cpp", "selected_op_variants.h"]
    lines = (tmp_path / "kernels" / "portable_op_addmm.cpp").read_text().splitlines()
    line = next(line for line in lines if line.startswith("#line "))
    assert line.startswith("#line 1 ") and line.endswith('kernels/portable/cpu/op_addmm.cpp"')
    # Compiled for the dtypes the program gives it: float32 tensors, and its Scalars
    # alpha and beta (integers in the program), nothing else.
    kept = json.loads((tmp_path / "kernels.json").read_text())["operators"]
    assert kept == {"aten::addmm.out": ["Float", "Long"]}
    selection = next(line for line in lines if line.startswith("#define PTEFORGE_SELECTED_DTYPE"))
    assert "ScalarType::Float" in selection and "ScalarType::Long" in selection and "Half" not in selection
    assert lines.index(selection) < lines.index(line)


_PRIMITIVE = ("executorch_prim::", "aten::sym_", "aten::_local_scalar_dense")


def registered_primitives(out_dir) -> set[str]:
    """The primitive operators out_dir/prim_ops/register_prim_ops.cpp registers once
    preprocessed with its own macros (its #includes dropped: only the selective build's
    #if blocks matter)."""
    source = (out_dir / "prim_ops" / "register_prim_ops.cpp").read_text()
    source = "".join(line + "\n" for line in source.splitlines() if not line.startswith("#include"))
    preprocessed = subprocess.run(["cpp", "-P", "-w"], input=source, capture_output=True, text=True, check=True)
    return set(re.findall(r'Kernel\(\s*"([^"]+)"', preprocessed.stdout))


class Reshape(torch.nn.Module):
    def forward(self, x):
        return x.view(x.shape[0] * 2, 2) + 1.0


def test_an_image_registers_the_primitive_operators_its_programs_use(tmp_path):
    from torch.export import Dim

    exporter = MultiMethodExporter(Reshape().eval(), name="reshape")
    exporter.method("forward", (torch.ones(3, 4),), dynamic_shapes=({0: Dim("rows", min=1, max=8)},))
    program = tmp_path / "reshape.pte"
    program.write_bytes(exporter.export(backend="portable").data)
    used = {op.name + (f".{op.overload}" if op.overload else "")
            for plan in program_file.read_program(str(program)).execution_plan for op in plan.operators}
    wanted = {op for op in used if op.startswith(_PRIMITIVE)}
    assert wanted, f"the dynamic reshape uses no primitive operator: {sorted(used)}"
    result = select(tmp_path / "dynamic", program)
    assert result.returncode == 0, result.stderr
    assert registered_primitives(tmp_path / "dynamic") == wanted
    assert json.loads((tmp_path / "dynamic" / "kernels.json").read_text())["primitive_operators"] == sorted(wanted)
    # None for a program without any: the file registers nothing.
    result = select(tmp_path / "static", export(tmp_path, "portable"))
    assert result.returncode == 0, result.stderr
    assert registered_primitives(tmp_path / "static") == set()
    assert json.loads((tmp_path / "static" / "kernels.json").read_text())["primitive_operators"] == []
    # Every one with --all_operators: all the 28 the tree's registration has.
    result = select(tmp_path / "all", all_operators=True)
    assert result.returncode == 0, result.stderr
    tree = _RUNFILES.Rlocation(_TREE + "kernels/prim_ops/register_prim_ops.cpp")
    with open(tree) as f:
        every = set(re.findall(r'Kernel\(\s*"([^"]+)"', f.read()))
    assert len(every) >= 28 and registered_primitives(tmp_path / "all") == every


def test_kernels_a_macro_defines_are_found(tmp_path):
    from third_party.executorch import kernel_sources

    folder = os.path.dirname(_RUNFILES.Rlocation(_TREE + "kernels/portable/cpu/op_add.cpp"))
    sources = sorted(glob.glob(os.path.join(folder, "op_*.cpp")))
    # acos_out comes from a DEFINE_UNARY_UFUNC macro; copy_ is named by op__device_copy.cpp
    # too but defined by op_copy.cpp only.
    found = kernel_sources.source_files({"acos_out", "copy_"}, sources)
    assert [os.path.basename(path) for path in found] == ["op_acos.cpp", "op_copy.cpp"]
    with pytest.raises(kernel_sources.KernelSourceError, match="no kernel source defines no_such_out"):
        kernel_sources.source_files({"no_such_out"}, sources)


def test_a_cortex_m_program_gets_pteforge_kernels_only_on_cmsis_nn(tmp_path):
    program = export(tmp_path, "cortex_m")
    refused = select(tmp_path / "plain", program)
    assert refused.returncode == 1
    assert "pteforge::linear.out" in refused.stderr and "cmsis_nn = True" in refused.stderr
    result = select(tmp_path / "cmsis_nn", program, cmsis_nn=True)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "cmsis_nn" / "operators.txt").read_text().split() == ["pteforge::linear.out"]
    registration = (tmp_path / "cmsis_nn" / "pteforge" / "register.cc").read_text()
    assert 'Kernel("pteforge::linear.out", pteforge::kernels::LinearOut)' in registration
    assert "LinearDq8Out" not in registration  # only what the program uses


def test_an_xnnpack_program_is_refused(tmp_path):
    program = export(tmp_path, "xnnpack")
    result = select(tmp_path, program)
    assert result.returncode == 1
    assert f"{program} delegates to XnnpackBackend" in result.stderr
    assert "backend='portable'" in result.stderr


def test_a_file_that_is_not_a_program_is_refused(tmp_path):
    junk = tmp_path / "junk.pte"
    junk.write_bytes(b"not a program" * 10)
    result = select(tmp_path, junk)
    assert result.returncode == 1
    assert f"{junk} is not a readable ExecuTorch program" in result.stderr


if __name__ == "__main__":
    testing.main(__file__)
